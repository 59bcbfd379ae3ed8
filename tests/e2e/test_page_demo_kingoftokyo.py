"""King of Tokyo with dice from the demo tray: `dicesight run --camera demo` as a user starts it, a phone pairs
with the page's virtual Pair button, sets up a 2-monster game, and the demo tray's next throw (six King of
Tokyo dice: the tray follows the game's pending dice input) becomes the first roll of the turn; the board
draws it with its faces (1, 2, 3, heart, energy, claw)."""

from __future__ import annotations

import json
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
from pagekit import confirm_if_shown, shot
from pagekit import demo_box as run_demo_box

from device.camera.demo import DemoTray

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SEED = 71
FACES = ["1", "2", "3", "heart", "energy", "claw"]


@pytest.fixture()
def demo_box(tmp_path):
    with run_demo_box(tmp_path / "state", SEED) as url:
        yield url


def state(url: str) -> dict:
    with urllib.request.urlopen(url + "/api/state", timeout=5) as r:
        return json.load(r)


def test_first_roll_from_the_demo_tray(demo_box, phone):
    page = phone("en-US")
    page.goto(demo_box)
    page.locator("#live.on").wait_for()
    page.locator("#pair").click()
    page.wait_for_function("() => /Pair button/.test(document.getElementById('pairmsg').textContent)")
    page.locator("#panel-pair").click()
    page.locator("#pairbox").wait_for(state="hidden")

    page.locator("#newgame").click()
    page.select_option("#s_game", "kingoftokyo")
    page.locator("#s_modes input[value='city']").check()
    page.select_option("#s_count", "2")
    rows = page.locator("#s_players .splayer")
    rows.nth(0).locator("input").fill("Ana")
    rows.nth(0).locator("select").select_option("cyber_kitty")
    rows.nth(1).locator("input").fill("Bo")
    rows.nth(1).locator("select").select_option("the_king")
    page.select_option("#s_start", "0")
    page.locator("#s_go").click()
    page.locator("#players article[data-player='p1']").wait_for()
    assert state(demo_box)["pending"]["input"]["dice_sets"] == ["kingoftokyo"]

    # The next settled throw is Ana's first roll. An unsure reading is confirmed, or fixed by hand to the
    # demo throw it belongs to (as a player looking at the dice would).
    demo = DemoTray(seed=SEED, realtime=False)
    throws = [[d.value for d in demo.plan(k, 6)] for k in range(80)]
    fixed = None
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        snap = state(demo_box)
        if snap["rolls"]["used"] > 0:
            break
        tray = snap["tray"]
        read = [d["value"] for d in tray["dice"] if d["value"] is not None]
        truth = next((t for t in throws if not Counter(read) - Counter(t)), None)
        if tray["needs_confirmation"] and tray["state"] == "settled" and read and truth is not None:
            page.locator("#confirm").wait_for()
            shot(page, "kot-20-demo-tray-confirm", at="#traycard")
            if not (len(tray["dice"]) == 6 and confirm_if_shown(page, truth)):  # else the reading is right
                page.locator("#confirm button.ghost").click()
                page.locator("#entryclear").click()
                for v in truth:
                    page.locator(f"#entrypad [data-add='{v}']").click()
                page.locator("#entrysubmit").click()
            fixed = truth
            page.wait_for_function("() => window.dicesight.snap.rolls.used > 0")
            break
        time.sleep(0.3)
    snap = state(demo_box)
    assert snap["rolls"]["used"] >= 1, f"no throw read in 150 s: {snap['tray']}"
    shown = page.locator("#kot-dice [data-face]").evaluate_all("e => e.map(x => x.dataset.face)")
    assert Counter(shown) in [Counter(FACES[v - 1] for v in t) for t in throws], "the roll is a demo throw"
    assert Counter(shown) == Counter(d["face"] for d in snap["dice"])
    roll = [e for e in snap["log"] if e["action"]["type"] == "roll"][-1]
    if roll["action"].get("source") != "camera":
        assert Counter(shown) == Counter(FACES[v - 1] for v in fixed)
    assert "[object" not in page.locator("#kot-roll").inner_text()
    shot(page, "kot-21-demo-tray-roll", at="#kot-roll")
    assert page.js_errors == []
