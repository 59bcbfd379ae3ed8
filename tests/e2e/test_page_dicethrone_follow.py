"""Dice Throne on a phone (390x844) that players can follow: who starts is rolled for once per tap, the
tray never says "empty" while dice move, the box's own die for Blind is shown, a card's refusal is said
inside its sheet, damage is shown before and after it lands, the log reads as sentences (undo included),
and the end has a recap and "play again". Against the real table service with fake hardware
(tests/e2e/realbox.py), whose tray the tests set. Screenshots go to test-artifacts/screenshots/ (dt-follow-*), in en, zh-TW and ko.
"""

from __future__ import annotations

import pytest
from pagekit import choose_game, pair_with_box, shot
from playwright.sync_api import expect
from realbox import make_table, set_tray

pytestmark = pytest.mark.e2e

SETUP = {"mode": "1v1", "health": 30, "start": "p1",
         "players": [{"id": "p1", "name": "Ana", "hero": "barbarian"}, {"id": "p2", "name": "Ben", "hero": "moon_elf"}]}


@pytest.fixture()
def table(tmp_path):
    table = make_table(tmp_path, game="dicethrone", setup=SETUP, seed=3)  # the real table, fake hardware
    yield table
    table.close()


@pytest.fixture()
def box(table, serve_table):
    return serve_table(table)


def seq_is(page, n: int) -> None:
    page.wait_for_function("n => window.dicesight.snap && window.dicesight.snap.seq === n", arg=n)


def caught_up(page, table) -> None:
    """The page shows the box's newest snapshot (its buttons are those of the decision now pending)."""
    seq_is(page, table.snapshot()["seq"])


def log_item(page, text: str):
    return page.locator("#log li").filter(has_text=text)


def test_a_double_tap_in_the_roll_for_who_starts_counts_once(box, table, phone):
    page = phone("en-US")
    page.goto(box)
    pair_with_box(page, table)
    page.locator("#newgame").click()
    choose_game(page, "dicethrone")
    page.select_option("#s_start", "tray")
    page.locator("#s_go").click()
    page.locator("#s_rolloff").wait_for()
    page.locator("#ro_pad [data-v='5']").dblclick()
    first = page.locator("#s_rolloff .roplayer[data-index='0']")
    expect(first).to_have_attribute("data-values", "5")
    expect(page.locator("#s_rolloff .roplayer[data-index='1']")).to_have_attribute("data-values", "")
    expect(page.locator("#s_rolloff .roplayer[data-index='1']")).to_have_class("roplayer now")
    page.locator("#ro_pad [data-v='3']").click()   # the second player's own tap counts
    expect(page.locator("#s_rolloff .roplayer[data-index='1']")).to_have_attribute("data-values", "3")
    expect(page.locator("#ro_result")).to_be_visible()


def test_the_tray_never_says_empty_while_dice_move(box, table, phone):
    page = phone("en-US")
    page.goto(box)
    page.locator("#live.on").wait_for()
    set_tray(table, "moving")
    expect(page.locator("#traycard")).to_have_attribute("data-state", "moving")
    expect(page.locator("#traystate")).to_have_text("Dice moving…")
    expect(page.locator("#tray .empty")).to_have_count(0)
    set_tray(table, "empty")
    expect(page.locator("#tray .empty")).to_have_count(1)


def test_the_box_rolls_for_blind_and_the_log_shows_its_die(box, table, phone):
    page = phone("en-US")
    page.goto(box)
    pair_with_box(page, table)
    table.submit({"type": "adjust", "player": "p1", "status": {"blind": 1}})
    for a in ({"type": "advance"}, {"type": "roll", "dice": [1, 2, 3, 4, 4]},
              {"type": "ability", "player": "p1", "ability": "smack"}, {"type": "pass"}):
        table.submit(a)
    expect(page.locator("#pending")).to_have_attribute("data-kind", "blind_roll")
    caught_up(page, table)
    page.locator("#pending button.option.primary").click()   # the box rolls the die
    line = log_item(page, "for Blind")
    expect(line).to_have_count(1)
    value = table.snapshot()["story"][-1]["events"][0]["value"]
    result = "the ability has no effect" if value <= 2 else "the ability goes ahead"
    expect(line.locator(".storyline")).to_have_text(f"Ana rolled {value} for Blind: {result}")
    expect(line.locator(f".boxdie [data-value='{value}']")).to_have_count(1)   # the die itself, drawn
    shot(page, "dt-follow-blind-en", at="#logcard")


def test_the_box_rolls_for_evasive_and_the_log_shows_its_die(box, table, phone):
    page = phone("en-US")
    page.goto(box)
    pair_with_box(page, table)
    table.submit({"type": "adjust", "player": "p2", "status": {"evasive": 1}})
    for a in ({"type": "advance"}, {"type": "roll", "dice": [1, 2, 3, 4, 4]},
              {"type": "ability", "player": "p1", "ability": "smack"}, {"type": "pass"},
              {"type": "defense", "player": "p2", "defense": None}):
        table.submit(a)
    expect(page.locator("#pending")).to_have_attribute("data-kind", "window")
    caught_up(page, table)
    seq = table.snapshot()["seq"]
    page.locator("#pending button.option[data-type='spend']").filter(has_text="Evasive").click()
    page.locator("#spendbox").click()   # let the box roll the token's die
    seq_is(page, seq + 1)
    spent = next(e for e in table.snapshot()["story"][-1]["events"] if e["type"] == "spent")
    line = f"Ben spent Evasive and rolled {spent['value']}" + (" · avoided the damage" if spent["avoided"] else "")
    expect(log_item(page, "Ben spent Evasive").locator(".storyline")).to_have_text(line)
    expect(log_item(page, "Ben spent Evasive").locator(f".boxdie [data-value='{spent['value']}']")).to_have_count(1)
    row = page.locator("#damagecard .dmgrow[data-player='p2']")
    expect(row.locator(".dmg.prev b")).to_have_text("✓" if spent["avoided"] else "0")
    shot(page, "dt-follow-evasive-en", at="#damagecard")


LANGS = [  # locale, tag, refusal, Tip It! line, took line, undone line, recap heading, play again
    ("en-US", "en", "First choose: Which die", "Ana played Tip It! on die 3 (4 → 3)", "Ben took {n} (Smack)", "Undone: Ana played Tip It!",
     "Recap", "Play again"),
    ("zh-TW", "zh-TW", "請先選擇：", None, "Ben 受到 {n} 點傷害", "已復原：Ana 打出了", "對局回顧", "再玩一局"),
    ("ko-KR", "ko", "먼저 고르세요: ", None, "Ben: 피해 {n}", "되돌림: Ana:", "경기 요약", "다시 하기"),
]


@pytest.mark.parametrize("locale,lang,refusal,tip_line,took,undone,recap,again", LANGS, ids=[x[1] for x in LANGS])
def test_a_roll_phase_players_can_follow(box, table, phone, locale, lang, refusal, tip_line, took, undone, recap, again):
    page = phone(locale, dark=lang != "ko")
    page.goto(box)
    pair_with_box(page, table)
    table.submit({"type": "advance"})
    table.submit({"type": "roll", "dice": [1, 2, 4, 5, 6]})
    expect(page.locator("#gamedice [data-value]")).to_have_count(5)

    # Tip It! with no die picked: the sheet itself says what is missing (not a toast under its backdrop)
    page.locator("#cards summary").click()
    expect(page.locator("#cardplayer")).to_have_value("p1")
    tip = page.locator("#cardlist [data-card='tip_it']")
    expect(tip.locator(".ctext")).not_to_be_empty()   # every card says what it does
    tip.click()
    page.locator("#cardplay").click()
    expect(page.locator("#carderr")).to_be_visible()
    expect(page.locator("#cardform")).to_be_visible()
    if refusal:
        expect(page.locator("#carderr")).to_contain_text(refusal)
    assert "position" not in page.locator("#carderr").inner_text()
    shot(page, f"dt-follow-card-refusal-{lang}")
    seq = table.snapshot()["seq"]
    page.locator("#cardform [data-name='die'] [data-k='2']").click()
    page.locator("#cardform [data-name='delta'] [data-v='-1']").click()
    page.locator("#cardplay").click()
    seq_is(page, seq + 1)
    expect(page.locator("#gamedice [data-value]").nth(2)).to_have_attribute("data-value", "3")
    if tip_line:
        expect(log_item(page, tip_line)).to_have_count(1)

    # undo the card: the log says what was taken back, and the card's line is struck through
    page.locator("#undo").click()
    seq_is(page, seq + 2)
    expect(log_item(page, undone)).to_have_count(1)
    expect(page.locator("#log li .undone")).to_have_count(1)
    shot(page, f"dt-follow-undone-{lang}", at="#logcard")

    # Smack (three swords) against Ben, no defense: before the damage lands the numbers are on the board
    table.submit({"type": "roll", "dice": [1, 2, 3, 4, 4]})
    caught_up(page, table)
    seq = table.snapshot()["seq"]
    page.locator("#abilities button[data-ability='smack']").click()
    seq_is(page, seq + 1)
    table.submit({"type": "pass"})
    table.submit({"type": "defense", "player": "p2", "defense": None})
    expect(page.locator("#pending")).to_have_attribute("data-kind", "window")
    caught_up(page, table)
    snap = table.snapshot()
    hit = snap["roll_phase"]["attack"]
    row = page.locator("#damagecard .dmgrow[data-player='p2']")
    expect(row.locator(".dmg.in b")).to_have_text(str(hit["base"]))
    expect(row.locator(".dmg.take b")).to_have_text(str(hit["taken"]))
    shot(page, f"dt-follow-damage-before-{lang}", at="#damagecard")
    before = snap["players"][1]["health"]
    page.locator("#pending button.option.primary").click()   # apply damage and end the Roll Phase
    expect(page.locator("#damagecard")).to_be_hidden()
    ben = page.locator("#players article[data-player='p2']")
    expect(ben.locator(".health")).to_have_text(str(before - hit["taken"]))
    expect(ben.locator(".delta")).to_have_text(f"−{hit['taken']}")
    expect(log_item(page, took.format(n=hit["taken"]))).to_have_count(1)
    shot(page, f"dt-follow-damage-after-{lang}", at="#players")
    shot(page, f"dt-follow-log-{lang}", at="#logcard")

    # Burn at Ben's Upkeep is damage outside a Roll Phase: the log says what it did to his health
    table.submit({"type": "adjust", "player": "p2", "status": {"burn": 1}})
    hp = table.snapshot()["players"][1]["health"]
    caught_up(page, table)
    page.locator("#pending button.option.primary").click()   # Ana ends Main phase 2: Ben's turn, his Upkeep
    if lang == "en":
        expect(log_item(page, f"Ben: health {hp} → {hp - 2}")).to_have_count(1)
    expect(page.locator("#players article[data-player='p2'] .health")).to_have_text(str(hp - 2))

    # the end: Ben at 1 health takes the next hit; a recap, then the same table again
    table.submit({"type": "adjust", "player": "p2", "health": 1 - table.snapshot()["players"][1]["health"]})
    for a in ({"type": "advance"}, {"type": "advance"}, {"type": "roll", "dice": [1, 1, 1, 1, 1]},
              {"type": "ability", "player": "p2", "ability": None}, {"type": "advance"}, {"type": "advance"},
              {"type": "advance"}, {"type": "roll", "dice": [1, 2, 3, 4, 4]},
              {"type": "ability", "player": "p1", "ability": "smack"}, {"type": "pass"},
              {"type": "defense", "player": "p2", "defense": None}, {"type": "resolve"}):
        if table.snapshot()["phase"] == "over":
            break
        try:
            table.submit(a)
        except Exception as err:  # which Main phases follow depends on the turn; skip what does not apply
            if getattr(err, "code", None) not in ("wrong_time", "not_your_turn"):
                raise
    assert table.snapshot()["phase"] == "over"
    expect(page.locator("#recap")).to_be_visible()
    expect(page.locator("#recap h2")).to_have_text(recap)
    stats = table.snapshot()["stats"]
    expect(page.locator("#recap .recaprow[data-player='p1'] .dealt")).to_have_text(str(stats["p1"]["dealt"]))
    expect(page.locator("#recap .recaprow[data-player='p2'] .taken")).to_have_text(str(stats["p2"]["taken"]))
    expect(page.locator("#recap .recaprow").first).to_have_attribute("data-player", "p1")   # the winner first
    shot(page, f"dt-follow-recap-{lang}", at="#recap")
    caught_up(page, table)
    page.locator("#playagain").click()
    expect(page.locator("#recap")).to_be_hidden()
    expect(page.locator("#players article[data-player='p2'] .health")).to_have_text("30")
    new = table.snapshot()
    assert [p["hero"] for p in new["players"]] == ["barbarian", "moon_elf"] and new["active"] == "p2"
    assert page.js_errors == []


TEAMS = {"mode": "2v2", "start": "p1", "players": [
    {"id": "p1", "name": "Ana", "hero": "barbarian"}, {"id": "p2", "name": "Ben", "hero": "moon_elf"},
    {"id": "p3", "name": "Chen", "hero": "pyromancer"}, {"id": "p4", "name": "Dae", "hero": "monk"}]}


@pytest.mark.parametrize("locale,lang,picked", [("en-US", "en", "Targeting die 2: Ben is the defender"),
                                                ("zh-TW", "zh-TW", "目標骰 2：Ben 成為防禦者")], ids=["en", "zh-TW"])
def test_two_vs_two_the_targeting_die_says_whom_it_picked(box, table, phone, locale, lang, picked):
    table.new_game("dicethrone", TEAMS, 3)
    page = phone(locale)
    page.goto(box)
    pair_with_box(page, table)
    expect(page.locator("#players[data-count='4'] .health")).to_have_count(2)   # one health per team
    for a in ({"type": "advance"}, {"type": "roll", "dice": [1, 2, 3, 4, 4]},
              {"type": "ability", "player": "p1", "ability": "smack"}, {"type": "pass"}):
        table.submit(a)
    expect(page.locator("#pending")).to_have_attribute("data-kind", "targeting_roll")
    table.submit({"type": "roll", "dice": [2]})
    table.submit({"type": "resolve"})
    expect(log_item(page, picked)).to_have_count(1)
    table.submit({"type": "defense", "player": "p2", "defense": None})
    taken = table.snapshot()["roll_phase"]["attack"]["taken"]
    caught_up(page, table)
    page.locator("#pending button.option.primary").click()
    # team B's health moved once, on the card that shows it (Ben's, its first member)
    expect(page.locator("#players article[data-player='p2'] .delta")).to_have_text(f"−{taken}")
    expect(page.locator("#players .delta")).to_have_count(1)
    shot(page, f"dt-follow-2v2-{lang}", at="#players")
    shot(page, f"dt-follow-2v2-log-{lang}", at="#logcard")
    assert page.js_errors == []
