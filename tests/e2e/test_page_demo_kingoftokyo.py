"""King of Tokyo with dice from the demo tray: the real table with the demo tray as its camera (wired as
`dicesight run --camera demo` wires it), stepped frame by frame by the test. A 2-monster game waits for the
first roll of the turn; the demo tray throws six black King of Tokyo dice (the set and colour the game's
pending dice input names) and the throw becomes the roll; the board draws it with its faces (1, 2, 3, heart,
energy, claw)."""

from __future__ import annotations

import json
import urllib.request
from collections import Counter

import pytest
from pagekit import confirm_if_shown, pair_with_box, shot
from playwright.sync_api import expect
from realbox import demo_table, throw_demo

pytestmark = [pytest.mark.e2e, pytest.mark.slow(5)]

SEED = 71
FACES = ["1", "2", "3", "heart", "energy", "claw"]
SETUP = {"start": "p1", "players": [{"id": "p1", "name": "Ana", "monster": "cyber_kitty"},
                                    {"id": "p2", "name": "Bo", "monster": "the_king"}]}


@pytest.fixture()
def table(tmp_path):
    table = demo_table(tmp_path, SEED)
    table.new_game("kingoftokyo", SETUP, 3)
    yield table
    table.close()


def state(url: str) -> dict:
    with urllib.request.urlopen(url + "/api/state", timeout=5) as r:
        return json.load(r)


def test_first_roll_from_the_demo_tray(table, serve_table, phone):
    url = serve_table(table)
    page = phone("en-US")
    page.goto(url)
    pair_with_box(page, table)
    page.locator("#players article[data-player='p1']").wait_for()
    assert state(url)["pending"]["input"]["dice_sets"] == ["kingoftokyo"]
    assert table.tray_request() == ("kingoftokyo", 6)  # the box reads the set the game names

    # The tray's next throw is Ana's first roll. An unsure reading is confirmed, or fixed by hand to what
    # lies on the tray (as a player looking at the dice would).
    planned, _status = throw_demo(table)
    truth = [d.value for d in planned]
    assert len(truth) == 6 and {d.dice_set.id for d in planned} == {"kingoftokyo"}
    if state(url)["rolls"]["used"] == 0:
        tray = state(url)["tray"]
        assert tray["state"] == "settled" and tray["needs_confirmation"], tray
        page.locator("#confirm").wait_for()
        sure = [d["face"] for d in tray["dice"] if d["certain"]]
        assert not Counter(sure) - Counter(FACES[v - 1] for v in truth), (tray["dice"], truth)  # sure = right
        shot(page, "kot-20-demo-tray-confirm", at="#traycard")
        # a die whose face has no number (heart, energy, claw) can be confirmed as read
        expect(page.locator("#confirmbtn")).to_be_enabled()
        if not confirm_if_shown(page, [FACES[v - 1] for v in truth]):  # the reading is right: confirmed, else fixed
            page.locator("#confirm button.ghost").click()
            page.locator("#entryclear").click()
            for v in truth:
                page.locator(f"#entrypad [data-add='{v}']").click()
            page.locator("#entrysubmit").click()
    page.wait_for_function("() => window.dicesight.snap.rolls.used > 0")
    expect(page.locator("#confirm")).to_be_hidden()  # the dice lying there are used: no second roll of them
    snap = state(url)
    expect(page.locator("#kot-dice [data-face]")).to_have_count(6)
    shown = page.locator("#kot-dice [data-face]").evaluate_all("e => e.map(x => x.dataset.face)")
    assert Counter(shown) == Counter(FACES[v - 1] for v in truth), "the roll is what the demo tray threw"
    assert Counter(shown) == Counter(d["face"] for d in snap["dice"])
    assert "[object" not in page.locator("#kot-roll").inner_text()
    shot(page, "kot-21-demo-tray-roll", at="#kot-roll")
    assert page.js_errors == []
