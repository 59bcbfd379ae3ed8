"""Dice Throne with dice from the demo tray: `dicesight run --camera demo` as a user starts it, a phone pairs
with the page's virtual Pair button (the demo box has no real buttons), sets up a 1v1 game, ends Main
Phase (1), and the demo tray's next throw becomes the attacker's roll: the page draws it with the hero's
symbols and the log shows the roll photo. Seed 71 makes the demo throw five dice every time; the
demo tray runs at twice real time (`--demo-speed 2`).
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
from pagekit import confirm_if_shown, shot
from pagekit import demo_box as run_demo_box
from playwright.sync_api import expect

from device.camera.demo import DemoTray

pytestmark = [pytest.mark.e2e, pytest.mark.slow(20)]

ROOT = Path(__file__).resolve().parents[2]
SEED = 71


@pytest.fixture()
def demo_box(tmp_path):
    with run_demo_box(tmp_path / "state", SEED, speed=2) as url:
        yield url


def state(url: str) -> dict:
    with urllib.request.urlopen(url + "/api/state", timeout=5) as r:
        return json.load(r)


def test_offensive_roll_from_the_demo_tray(demo_box, phone):
    page = phone("en-US")
    page.goto(demo_box)
    page.locator("#live.on").wait_for()
    page.locator("#pair").click()
    page.wait_for_function("() => /Pair button/.test(document.getElementById('pairmsg').textContent)")
    page.locator("#panel-pair").click()
    page.locator("#pairbox").wait_for(state="hidden")

    page.locator("#newgame").click()
    page.select_option("#s_game", "dicethrone")
    rows = page.locator("#s_players .splayer")
    rows.nth(0).locator("input").fill("Ana")
    rows.nth(0).locator("select").select_option("barbarian")
    rows.nth(1).locator("input").fill("Bo")
    rows.nth(1).locator("select").select_option("gunslinger")
    page.select_option("#s_start", "0")
    page.locator("#s_go").click()
    page.locator("#players article[data-player='p1']").wait_for()
    page.locator("#pending button.option.primary").click()  # end Main Phase (1)
    page.wait_for_function("() => window.dicesight.snap.phase === 'offensive'")

    # The next settled throw is Ana's first roll. If the reader is unsure, the page asks the players to
    # check the dice: they confirm the reading when it is right, or fix it by hand to what lies on the
    # tray (here: the demo throw the partial reading belongs to, as a player looking at the dice would).
    demo = DemoTray(seed=SEED, realtime=False)
    throws = [demo.values(k) for k in range(60)]
    fixed = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        snap = state(demo_box)
        if snap["attempts"]["used"] > 0:
            break
        tray = snap["tray"]
        read = [d["value"] for d in tray["dice"] if d["value"] is not None]
        truth = next((t for t in throws if len(t) == 5 and not Counter(read) - Counter(t)), None)
        if tray["needs_confirmation"] and tray["state"] == "settled" and read and truth is not None:
            # the demo tray runs at twice real time: the next throw may sweep this one away before the
            # page shows it; then wait for another
            try:
                expect(page.locator("#traycard")).to_contain_text("Not sure", timeout=3000)
            except AssertionError:
                continue
            shot(page, "29-demo-tray-confirm", at="#traycard")
            confirmed = len(tray["dice"]) == 5 and confirm_if_shown(page, truth)  # the reading is right
            if not confirmed:
                page.locator("#confirm button.ghost").click()  # fix the dice
                page.locator("#entryclear").click()
                for v in truth:
                    page.locator(f"#entrypad [data-add='{v}']").click()
                page.locator("#entrysubmit").click()
            fixed = truth
            page.wait_for_function("() => window.dicesight.snap.attempts.used > 0")
            break
        time.sleep(0.3)
    snap = state(demo_box)
    assert snap["attempts"]["used"] >= 1, f"no throw read in 120 s: {snap['tray']}"
    shown = [int(v) for v in page.locator("#gamedice [data-value]").evaluate_all("e => e.map(x => x.dataset.value)")]
    roll = [e for e in snap["log"] if e["action"]["type"] == "roll"][-1]
    assert Counter(shown) in [Counter(t) for t in throws], "the roll is a throw of the demo tray"
    if roll["action"].get("source") == "camera":
        page.locator(f"#log li[data-seq='{roll['seq']}'] img").wait_for()  # the roll photo
    else:
        assert Counter(shown) == Counter(fixed)
    faces = {1: "sword", 2: "sword", 3: "sword", 4: "heart", 5: "heart", 6: "pow"}
    assert [page.locator("#gamedice [data-value]").nth(i).get_attribute("data-face") for i in range(5)] == [
        faces[v] for v in shown]
    shot(page, "30-demo-tray-dicethrone", at="#pending")
    shot(page, "31-demo-tray-dicethrone-full", full=True)
    assert page.js_errors == []
