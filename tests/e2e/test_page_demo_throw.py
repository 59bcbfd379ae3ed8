"""The demo tray throws when a player asks (issue 34 #1): "Throw the dice" on the phone, beside the tray and on
the box's virtual panel, enabled only while the game waits for a roll; the throw is the game's own dice; a new
game's tray starts empty. The real table with the demo tray as its camera (wired as `dicesight run` wires it),
stepped frame by frame by the test. `dicesight run` itself (nothing thrown until asked) is in test_demo_box.py.

Screenshots: demo-throw-*.png."""

from __future__ import annotations

from collections import Counter

import pytest
from pagekit import confirm_if_shown, pair_with_box, shot
from playwright.sync_api import expect
from realbox import demo_table, throw_demo

pytestmark = [pytest.mark.e2e, pytest.mark.slow(6)]

SETUP = {"mode": "1v1", "start": "p1", "players": [
    {"id": "p1", "name": "Ana", "hero": "barbarian"}, {"id": "p2", "name": "Bo", "hero": "gunslinger"}]}
WORDS = {"en-US": ("Throw the dice", "Demo tray"), "zh-TW": ("擲骰子", "示範托盤"), "ko-KR": ("주사위 던지기", "데모 트레이")}


@pytest.fixture()
def table(tmp_path):
    table = demo_table(tmp_path, 71)
    table.new_game("dicethrone", SETUP, 3)
    yield table
    table.close()


def tap_throw(page, button: str) -> None:
    """Tap a "Throw the dice" and wait for the box's answer (the tray then has a throw on its way)."""
    with page.expect_response("**/api/panel/throw") as answer:
        page.locator(button).click()
    assert answer.value.status == 200, answer.value.text()


def use_throw(page, table, truth: list[int]) -> None:
    """The settled throw is the roll: at once when the reader is sure, else confirmed (or fixed) as a player would."""
    if table.snapshot()["attempts"]["used"] == 0:
        page.locator("#confirm").wait_for()
        if not confirm_if_shown(page, truth):
            page.locator("#fixbtn").click()
            page.locator("#entryclear").click()
            for v in truth:
                page.locator(f"#entrypad [data-add='{v}']").click()
            page.locator("#entrysubmit").click()
    page.wait_for_function("() => window.dicesight.snap.attempts.used > 0")


def test_the_phone_throws_the_demo_dice_when_the_game_waits_for_a_roll(table, serve_table, phone):
    url = serve_table(table)
    page = phone("en-US")
    page.goto(url)
    pair_with_box(page, table)
    page.locator("#players article[data-player='p1']").wait_for()
    # Main Phase (1) waits for a choice: nothing to throw, and nothing lands by itself
    expect(page.locator("#traythrowbtn")).to_be_disabled()
    expect(page.locator("#panel-throw")).to_be_disabled()
    expect(page.locator("#demohint")).to_contain_text("Throw the dice")
    assert "moving" not in [table.tray.step().state for _ in range(120)] and table.tray.dice == []
    shot(page, "demo-throw-01-main-phase-disabled", at="#traycard")

    page.locator("#pending button.option.primary").click()  # end Main Phase (1): the offensive roll
    page.wait_for_function("() => window.dicesight.snap.phase === 'offensive'")
    expect(page.locator("#traythrowbtn")).to_be_enabled()
    tap_throw(page, "#traythrowbtn")
    planned, _status = throw_demo(table, ask=False)
    truth = [d.value for d in planned]
    assert len(truth) == 5 and {d.dice_set.id for d in planned} == {"dicethrone:barbarian"}  # the hero's dice
    use_throw(page, table, truth)
    shown = [int(v) for v in page.locator("#gamedice [data-value]").evaluate_all("e => e.map(x => x.dataset.value)")]
    assert Counter(shown) == Counter(truth), "the roll is what the demo tray threw"
    shot(page, "demo-throw-02-offensive-roll", at="#traycard")

    # the panel's button throws again (a reroll): the hand picks up the dice lying there first
    expect(page.locator("#panel-throw")).to_be_enabled()
    tap_throw(page, "#panel-throw")
    planned, _status = throw_demo(table, ask=False)
    assert len(planned) == 5
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # the box panel: the page's end
    shot(page, "demo-throw-03-panel")

    # a new game: the last game's dice are taken away, and its first roll waits for a throw
    used = table.snapshot()["tray"]["roll"]
    table.new_game("kingoftokyo", {"start": "p1", "players": [{"id": "p1", "name": "Ana", "monster": "the_king"},
                                                              {"id": "p2", "name": "Bo", "monster": "alienoid"}]}, 3)
    states = [table.tray.step().state for _ in range(60)]
    assert states[-1] == "empty" and table.snapshot()["rolls"]["used"] == 0
    page.locator("#traycard[data-state='empty']").wait_for()
    expect(page.locator("#tray [data-value]")).to_have_count(0)
    tap_throw(page, "#traythrowbtn")
    planned, _status = throw_demo(table, ask=False)
    assert len(planned) == 6 and {d.colour for d in planned} == {"black"}  # King of Tokyo's six black dice
    assert table.snapshot()["tray"]["roll"] > used
    assert page.js_errors == []


@pytest.mark.parametrize("locale", ["en-US", "zh-TW", "ko-KR"])
def test_the_throw_button_speaks_the_phone_s_language(table, serve_table, phone, locale):
    url = serve_table(table)
    page = phone(locale)
    page.goto(url)
    pair_with_box(page, table)
    table.submit({"type": "advance"})  # the offensive roll: the button is live
    label, hint = WORDS[locale]
    expect(page.locator("#traythrowbtn")).to_have_text(label)
    expect(page.locator("#traythrowbtn")).to_be_enabled()
    expect(page.locator("#panel-throw")).to_have_text(label)
    expect(page.locator("#demohint")).to_contain_text(hint)
    shot(page, f"demo-throw-10-{locale}", at="#traycard")
    assert page.js_errors == []


def test_rolling_for_who_starts_throws_one_die_from_the_sheet(table, serve_table, phone):
    """The setup sheet covers the page while players roll for who starts: its own "Throw a die" throws one."""
    url = serve_table(table)
    page = phone("en-US")
    page.goto(url)
    pair_with_box(page, table)
    page.locator("#newgame").click()
    page.locator("#setup").wait_for(state="visible")
    page.select_option("#s_start", "tray")
    page.locator("#s_go").click()
    page.locator("#s_rolloff").wait_for()
    page.wait_for_function("() => window.dicesight.snap.tray.observing")
    tap_throw(page, "#ro_demo_throw")
    planned, _status = throw_demo(table, ask=False)
    assert len(planned) == 1, "a roll for who starts is one die"
    expect(page.locator("#ro_tray [data-value]")).to_have_count(1)
    shot(page, "demo-throw-20-rolloff")
    assert table.snapshot()["game"] == "dicethrone" and table.match.seq == 0, "nothing recorded in the game"
    assert page.js_errors == []


def test_the_throw_button_goes_grey_once_the_rolls_are_used(table, serve_table, phone):
    """A newcomer's Dice Throne game with the demo tray: after the third offensive roll "Throw the dice" stayed
    live; a tap threw and read five dice, and the roll was refused ("All 3 roll attempts are used")."""
    url = serve_table(table)
    page = phone("zh-TW")
    page.goto(url)
    pair_with_box(page, table)
    table.submit({"type": "advance"})  # the offensive roll
    for attempt in (1, 2, 3):
        expect(page.locator("#traythrowbtn")).to_be_enabled()
        tap_throw(page, "#traythrowbtn")
        planned, _status = throw_demo(table, ask=False)
        truth = [d.value for d in planned]
        if table.snapshot()["attempts"]["used"] < attempt:  # the reader was unsure: confirm or fix, as a player
            page.locator("#confirm").wait_for()
            if not confirm_if_shown(page, truth):
                page.locator("#fixbtn").click()
                page.locator("#entryclear").click()
                for v in truth:
                    page.locator(f"#entrypad [data-add='{v}']").click()
                page.locator("#entrysubmit").click()
        page.wait_for_function("n => window.dicesight.snap.attempts.used >= n", arg=attempt)
    expect(page.locator("#traythrowbtn")).to_be_disabled()
    expect(page.locator("#panel-throw")).to_be_disabled()
    assert table.snapshot()["phase"] == "offensive", "the player still chooses an ability"
    shot(page, "demo-throw-30-rolls-used-zh-TW", at="#traycard")
    assert page.js_errors == []
