"""A Mage Wars duel played from a phone-sized Chromium (390x844) against the box's real table service: set
up Wizard against Warlock, register a creature, attack with the attack builder, enter the attack dice and the
effect die of one throw, see the damage worked out step by step, let Burn tick through upkeep, and play to a
winner; the board in zh-TW and ko. Screenshots go to test-artifacts/screenshots/mw-*.png."""

from __future__ import annotations

import json
import urllib.request
from collections import Counter

import pytest
from pagekit import choose_game, pair_with_box, shot
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect
from realbox import demo_table, throw_demo

pytestmark = pytest.mark.e2e


def state(url: str) -> dict:
    with urllib.request.urlopen(url + "/api/state", timeout=5) as r:
        return json.load(r)


def after(page, url: str, do) -> dict:
    """Do something on the page and wait until the phone has the snapshot it caused."""
    seq = state(url)["seq"]
    do()
    page.wait_for_function("s => window.dicesight.snap && window.dicesight.snap.seq > s", arg=seq)
    return state(url)


def option(page, url: str, action_type: str, index: int = 0) -> dict:
    return after(page, url, lambda: page.locator(f"#pending button.option[data-type='{action_type}']").nth(index).click())


def enter_attack(page, url: str, faces: list[str], effect: int) -> dict:
    for f in faces:
        page.locator(f"#mwpad button[data-face='{f}']").click()
    page.locator(f"#mwd12 [data-d12='{effect}']").click()
    return after(page, url, lambda: page.locator("#mwthrowsend").click())


def pad(page, url: str, values: list[int]) -> dict:
    page.locator("#entryclear").click()
    for v in values:
        page.locator(f"#entrypad [data-add='{v}']").click()
    return after(page, url, lambda: page.locator("#entrysubmit").click())


@pytest.mark.slow
def test_a_mage_wars_duel_from_a_phone(box, table, phone):
    page = phone("en-US")
    page.goto(box)
    page.locator("#live.on").wait_for()
    pair_with_box(page, table)

    page.locator("#newgame").click()
    page.locator("#setup").wait_for(state="visible")
    choose_game(page, "magewars")
    rows = page.locator("#s_players .splayer")
    expect(rows).to_have_count(2)
    rows.nth(0).locator("input").fill("Ana")
    rows.nth(0).locator("select").select_option("wizard")
    rows.nth(1).locator("input").fill("Ben")
    rows.nth(1).locator("select").select_option("warlock")
    page.select_option("#s_start", "0")
    shot(page, "mw-01-setup")
    page.locator("#s_go").click()
    page.locator("#mwboard article[data-player='p1']").wait_for()
    snap = state(box)
    assert snap["game"] == "magewars" and snap["phase"] == "channeling" and snap["initiative"] == "p1"
    expect(page.locator("#mwlist li")).to_have_count(2)  # the channeling list: +10 for each mage
    shot(page, "mw-02-channeling")

    option(page, box, "next")  # confirm channeling: 20 mana each
    expect(page.locator("#mwboard article[data-player='p1'] .stat[data-field='mana'] b")).to_have_text("20")
    option(page, box, "next")  # planning done at the table

    # Ana registers a Bear from the phone (it enters play activated, as a summoned creature does)
    page.locator("#mwregister summary").click()
    page.fill("#mwregname", "Bear")
    page.fill("#mwreglife", "9")
    page.fill("#mwregarmor", "1")
    after(page, box, lambda: page.locator("#mwregbtn").click())
    expect(page.locator("#mwboard article[data-player='p1'] .mwobj")).to_have_count(1)
    # and a Ward on it, as the card reads (Aegis 1 on the Bear's own card would stack by the highest)
    page.select_option("#mwkind", "enchantment")
    expect(page.locator("#mwreglife")).to_be_hidden()
    page.fill("#mwregname", "Ward")
    page.select_option("#mwregon", label="Bear")
    page.fill("#mwregaegis", "2")
    snap = after(page, box, lambda: page.locator("#mwregbtn").click())
    ward = next(o for o in snap["objects"] if o["name"] == "Ward")
    bear = next(o for o in snap["objects"] if o["name"] == "Bear")
    assert ward["kind"] == "enchantment" and ward["on"] == bear["id"] and bear["applied"]["aegis"] == 2
    expect(page.locator(f"#mwboard .mwobj[data-object='{bear['id']}']")).to_contain_text("Aegis 2")
    shot(page, "mw-02b-enchantment", at="#mwboard article[data-player='p1']")
    page.select_option("#mwkind", "creature")
    option(page, box, "next")  # deployment
    option(page, box, "quickcast", 1)  # Ana passes
    option(page, box, "quickcast", 1)  # Ben passes
    assert state(box)["phase"] == "actions"

    # Ana's Wizard attacks Ben's Warlock with a flame attack built on the phone
    option(page, box, "activate")
    page.locator("#mwbuilder").wait_for()
    page.select_option("#mwtarget", "p2")
    page.fill("#mwdice", "4")
    page.select_option("#mwrange", "ranged")
    page.select_option("#mwtype", "flame")
    page.fill("#mweffects", "7-11 = Burn; 12 = 2 Burn")
    page.fill("#mwname", "Fireball")
    page.locator("#mwsave").check()
    after(page, box, lambda: page.locator("#mwattackbtn").click())
    expect(page.locator("#mwattack")).to_be_visible()
    expect(page.locator("#mwdicecount b")).to_have_text("4 dice")
    expect(page.locator("#mwodds")).to_contain_text("%")
    assert page.locator("#entry").is_hidden()  # the view enters this mixed throw itself
    shot(page, "mw-03-attack-odds", at="#mwattack")
    snap = enter_attack(page, box, ["2*", "1", "blank", "2"], 8)
    assert snap["objects"][1]["damage"] == 5 and snap["objects"][1]["conditions"]["burn"] == 1
    expect(page.locator("#mwcalc")).to_have_text("3 normal − 0 armor + 2 critical = 5 damage")
    expect(page.locator("#mweffect")).to_contain_text("Burn")
    shot(page, "mw-04-strike-breakdown", at="#mwstrike")

    option(page, box, "end_activation")
    option(page, box, "activate")  # Ben's Warlock
    option(page, box, "end_activation")
    for _ in range(2):
        option(page, box, "quickcast", 1)  # final quickcast: both keep their marker
    # round 2: Ben has the initiative; channeling, then the upkeep list with Ben's Burn
    assert state(box)["round"] == 2 and state(box)["initiative"] == "p2"
    option(page, box, "next")
    expect(page.locator("#mwlist li")).to_have_count(1)
    shot(page, "mw-05-upkeep-list", at="#mwlist")
    option(page, box, "upkeep")
    snap = pad(page, box, [5])  # the burn die shows a starburst 1: one more damage, the Burn stays
    warlock = snap["objects"][1]
    assert warlock["damage"] == 6 and warlock["conditions"]["burn"] == 1 and snap["phase"] == "planning"

    # a correction brings Ben to the edge, then the saved Fireball finishes the duel
    page.locator("#mwfix summary").click()
    for _ in range(6):
        after(page, box, lambda: page.locator("#mwfix li[data-object='p2'] button", has_text="+5").click())
    option(page, box, "next")
    option(page, box, "next")
    option(page, box, "quickcast", 1)
    option(page, box, "quickcast", 1)
    option(page, box, "activate")  # Ben first this round
    option(page, box, "end_activation")
    ana = page.locator("#pending button.option[data-type='activate']", has_text="Ana")
    try:
        ana.click(timeout=15_000)
    except PlaywrightTimeout:
        # (say what the box offered and what the page drew: on 2026-11-27 this told that Ana was "Player 1",
        # her name typed into the seats the sheet was about to redraw; choose_game now waits for them)
        snap = state(box)
        shown = page.evaluate("""() => ({seq: window.dicesight.snap && window.dicesight.snap.seq,
            buttons: [...document.querySelectorAll('#pending button.option')].map(
                (b) => ({text: b.textContent, type: b.dataset.type, disabled: b.disabled}))})""")
        raise AssertionError(f"Ana's activation is not offered: pending {json.dumps(snap.get('pending'))}, box seq "
                             f"{snap.get('seq')}, the page {json.dumps(shown)}, "
                             f"last actions {json.dumps(snap.get('log', [])[-8:])}") from None
    page.wait_for_function("() => window.dicesight.snap.acting === 'p1'")
    after(page, box, lambda: page.locator("#pending button.option[data-type='attack']").first.click())
    snap = enter_attack(page, box, ["2", "2", "1", "1"], 3)
    assert snap["winner"] == "p1" and snap["phase"] == "over"
    expect(page.locator("#mwwinner")).to_contain_text("Ana")
    shot(page, "mw-06-winner")
    assert page.js_errors == []

    for locale, words in (("zh-TW", ["法力", "燃燒", "巫師"]), ("ko-KR", ["마나", "화상", "위저드"])):
        other = phone(locale)
        other.goto(box)
        other.locator("#mwboard article[data-player='p1']").wait_for()
        text = other.locator("body").inner_text()
        for word in words:
            assert word in text, (locale, word)
        shot(other, f"mw-07-board-{locale}", full=True)
        assert other.js_errors == []


@pytest.fixture()
def demo(tmp_path):
    """The real table with the demo tray as its camera, stepped by the test (`throw_demo`)."""
    table = demo_table(tmp_path, 9)
    table.new_game("magewars", {"players": [{"id": "p1", "name": "Ana", "mage": "wizard"},
                                            {"id": "p2", "name": "Ben", "mage": "warlock"}],
                                "initiative": "p1", "phase": "actions"}, 3)
    yield table
    table.close()


@pytest.mark.slow(5)
def test_an_attack_read_from_the_demo_tray(demo, serve_table, phone):
    """The attack dice and the effect die come from one throw on the (demo) tray: the box reads each die as
    its own set; a sure reading is the roll, an unsure one fills the phone's entry for the players to check."""
    url = serve_table(demo)
    page = phone("en-US")
    page.goto(url)
    pair_with_box(page, demo)
    page.locator("#mwboard article[data-player='p1']").wait_for()
    option(page, url, "activate")
    page.select_option("#mwtarget", "p2")
    page.fill("#mwdice", "3")
    page.fill("#mweffects", "7+ = Burn")
    after(page, url, lambda: page.locator("#mwattackbtn").click())
    assert state(url)["pending"]["input"]["sets"] == {"magewars-attack": 3, "d12": 1}

    # The tray's next throw holds three attack dice and the effect die (it throws what the game waits for).
    planned, _status = throw_demo(demo)
    truth = (sorted(d.dice_set.face(d.value).name for d in planned if d.dice_set.id != "d12"),
             next(d.dice_set.face(d.value).value for d in planned if d.dice_set.id == "d12"))
    assert len(truth[0]) == 3
    snap = state(url)
    if not snap["last_strike"]:  # the reader was unsure of some die: the players check the throw
        tray = snap["tray"]
        assert tray["state"] == "settled" and {d["set"] for d in tray["dice"]} <= {"magewars-attack", "d12"}
        page.locator("#mwread").wait_for()
        shot(page, "mw-08-demo-throw-to-check", at="#mwthrow")
        # every die the reader is sure of is right
        sure = [d["face"] for d in tray["dice"] if d.get("set") == "magewars-attack" and d["certain"]]
        assert not Counter(sure) - Counter(truth[0]), (tray["dice"], truth)
        effect = next((d["value"] for d in tray["dice"] if d.get("set") == "d12" and d["certain"]), None)
        assert effect in (None, truth[1]), (tray["dice"], truth)
        while page.locator("#mwentry button").count():
            page.locator("#mwentry button").first.click()
        for f in truth[0]:
            page.locator(f"#mwpad button[data-face='{f}']").click()
        page.locator(f"#mwd12 [data-d12='{truth[1]}']").click()
        after(page, url, lambda: page.locator("#mwthrowsend").click())
    snap = state(url)
    strike = snap["last_strike"]
    assert strike, snap["tray"]
    roll = [e for e in snap["log"] if e["action"]["type"] == "roll"][-1]
    if roll["action"].get("source") == "camera":  # every die read for sure: the roll as thrown
        assert {d["set"] for d in roll["action"]["dice"]} == {"magewars-attack", "d12"}
    assert (sorted(strike["faces"]), strike["effect_roll"]) == truth
    page.locator("#mwstrike").wait_for()
    shot(page, "mw-09-demo-strike", at="#mwstrike")
    assert page.js_errors == []


@pytest.mark.slow(3)
def test_the_next_attack_does_not_start_from_the_dice_still_lying_there(demo, serve_table, phone):
    """Issue 34 #1, met playing with the demo tray as a newcomer: once a throw was the roll of one attack, the
    next attack's throw panel was filled from the same dice, still lying on the tray, with "check the dice",
    so a tap on Send rolled them again for the new attack. Only a reading waiting for its check fills it."""
    demo.submit({"type": "activate", "object": "p1"})
    demo.submit({"type": "attack", "target": "p2", "attack": {"dice": 3, "effects": "7+ = Burn"}})
    planned, _status = throw_demo(demo)
    if demo.snapshot()["last_strike"] is None:  # an unsure reading: the players enter what they see
        faces = [d.dice_set.face(d.value).name for d in planned if d.dice_set.id != "d12"]
        effect = next(d.dice_set.face(d.value).value for d in planned if d.dice_set.id == "d12")
        demo.submit({"type": "roll", "dice": faces, "effect": effect})
    assert demo.snapshot()["last_strike"] and demo.snapshot()["tray"]["dice"], "the used dice still lie there"
    demo.submit({"type": "end_activation"})
    demo.submit({"type": "activate", "object": "p2"})
    demo.submit({"type": "attack", "target": "p1", "attack": {"dice": 3, "effects": "7+ = Burn"}})

    page = phone("en-US")
    page.goto(serve_table(demo))
    pair_with_box(page, demo)
    page.locator("#mwthrowsend").wait_for()
    expect(page.locator("#mwentry [data-face]")).to_have_count(0)
    expect(page.locator("#mwread")).to_have_count(0)
    expect(page.locator("#mwthrowsend")).to_be_disabled()
    shot(page, "mw-10-next-attack-starts-empty", at="#mwthrow")
    assert page.js_errors == []
