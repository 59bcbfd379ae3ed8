"""Dice Throne with dice from the demo tray: the real table with the demo tray as its camera (wired as
`dicesight run --camera demo` wires it), stepped frame by frame by the test so no time is waited for. A phone
pairs, ends Main Phase (1), and the demo tray's next throw (the barbarian's five dice, since the tray throws
what the game waits for) becomes the attacker's roll: the page draws it with the hero's symbols and the log
shows the roll photo. `dicesight run --camera demo` itself is tested in test_demo_box.py.
"""

from __future__ import annotations

import json
import urllib.request
from collections import Counter

import pytest
from pagekit import confirm_if_shown, pair_with_box, shot
from playwright.sync_api import expect
from realbox import demo_table, throw_demo

pytestmark = [pytest.mark.e2e, pytest.mark.slow(6)]

SEED = 71
SETUP = {"mode": "1v1", "start": "p1", "players": [
    {"id": "p1", "name": "Ana", "hero": "barbarian"}, {"id": "p2", "name": "Bo", "hero": "gunslinger"}]}


@pytest.fixture()
def table(tmp_path):
    table = demo_table(tmp_path, SEED)
    table.new_game("dicethrone", SETUP, 3)
    yield table
    table.close()


def state(url: str) -> dict:
    with urllib.request.urlopen(url + "/api/state", timeout=5) as r:
        return json.load(r)


def test_offensive_roll_from_the_demo_tray(table, serve_table, phone):
    url = serve_table(table)
    page = phone("en-US")
    page.goto(url)
    pair_with_box(page, table)
    page.locator("#players article[data-player='p1']").wait_for()
    page.locator("#pending button.option.primary").click()  # end Main Phase (1)
    page.wait_for_function("() => window.dicesight.snap.phase === 'offensive'")
    assert table.tray_request() == ("dicethrone:barbarian", 5)

    # The tray's next throw is Ana's first roll. A sure reading is the roll at once; if the reader is unsure
    # of any die, the page asks the players to check: they confirm the reading when it is right, or fix it
    # by hand to what lies on the tray.
    planned, status = throw_demo(table)
    truth = [d.value for d in planned]
    assert len(truth) == 5
    if state(url)["attempts"]["used"] == 0:
        tray = state(url)["tray"]
        assert tray["state"] == "settled" and tray["needs_confirmation"], tray
        expect(page.locator("#traycard")).to_contain_text("Not sure")
        shot(page, "29-demo-tray-confirm", at="#traycard")
        # every die the reader is sure of is right
        sure = [d["value"] for d in tray["dice"] if d["certain"]]
        assert not Counter(sure) - Counter(truth), (tray["dice"], truth)
        if not confirm_if_shown(page, truth):  # the reading is right: confirmed, else fixed
            page.locator("#confirm button.ghost").click()  # fix the dice
            page.locator("#entryclear").click()
            for v in truth:
                page.locator(f"#entrypad [data-add='{v}']").click()
            page.locator("#entrysubmit").click()
    else:  # every die read for sure
        assert all(r.certain for r in status.readings)
    page.wait_for_function("() => window.dicesight.snap.attempts.used > 0")
    expect(page.locator("#confirm")).to_be_hidden()  # the dice lying there are used: no second roll of them
    snap = state(url)
    shown = [int(v) for v in page.locator("#gamedice [data-value]").evaluate_all("e => e.map(x => x.dataset.value)")]
    assert Counter(shown) == Counter(truth), "the roll is what the demo tray threw"
    roll = [e for e in snap["log"] if e["action"]["type"] == "roll"][-1]
    if roll["action"].get("source") == "camera":
        page.locator(f"#log li[data-seq='{roll['seq']}'] img").wait_for()  # the roll photo
    faces = {1: "sword", 2: "sword", 3: "sword", 4: "heart", 5: "heart", 6: "pow"}
    assert [page.locator("#gamedice [data-value]").nth(i).get_attribute("data-face") for i in range(5)] == [
        faces[v] for v in shown]
    shot(page, "30-demo-tray-dicethrone", at="#pending")
    shot(page, "31-demo-tray-dicethrone-full", full=True)
    assert page.js_errors == []
