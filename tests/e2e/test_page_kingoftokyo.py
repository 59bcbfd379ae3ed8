"""A 4-monster King of Tokyo game played from phone-sized Chromium pages (390x844) against the box's real table
service (device.table.Table, no camera: dice entered by hand): pair two phones, set up the game on the sheet,
keep dice by tapping them, resolve, buy a card from the market, answer a yield on the attacked monster's own
phone, watch the odds, and play to a winner; the board in zh-TW and ko.

Screenshots go to test-artifacts/screenshots/kot-*.png.
"""

from __future__ import annotations

import re

import pytest
from pagekit import choose_game, get_state, pair_with_box, shot, tap_until_box_moves, wait_seq_above
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

MONSTERS = ["cyber_kitty", "the_king", "gigazaur", "space_penguin", "meka_dragon", "alienoid"]
NAMES = ["Ana", "Bo", "Cy", "Di", "Ed", "Fu"]


def setup_game(page, count: int = 4) -> None:
    page.locator("#newgame").click()
    page.locator("#setup").wait_for(state="visible")
    choose_game(page, "kingoftokyo")
    page.locator(f"#s_modes input[value='{'city' if count <= 4 else 'bay'}']").check()
    page.select_option("#s_count", str(count))
    rows = page.locator("#s_players .splayer")
    expect(rows).to_have_count(count)
    for k in range(count):
        rows.nth(k).locator("input").fill(NAMES[k])
        rows.nth(k).locator("select").select_option(MONSTERS[k])
    page.select_option("#s_start", "0")
    shot(page, f"kot-01-setup-{count}")
    page.locator("#s_go").click()
    page.locator("#players article[data-player='p1']").wait_for()


def enter_dice(page, values: list[int]) -> None:
    page.locator("#entryclear").click()
    for v in values:
        page.locator(f"#entrypad [data-add='{v}']").click()
    page.locator("#entrysubmit").click()


def click_option(page, kind: str) -> None:
    page.locator(f"#pending button.option[data-type='{kind}']").first.click()


def settle(page, box, *kinds: str) -> dict:
    """Answer the decisions a bought card may add (Metamorph, Psychic Probe, Camouflage...) with "pass" or
    the first option, until the game waits for one of `kinds`; the market is the table's own shuffle."""
    for _ in range(20):
        snap = get_state(box)
        if snap["phase"] == "over" or snap["pending"]["kind"] in kinds:
            return snap
        passing = page.locator("#pending button.option[data-type='pass']")
        (passing.first if passing.count() else page.locator("#pending button.option").first).click()
        wait_seq_above(page, snap["seq"])
    raise AssertionError(f"the game never waited for {kinds}")


def play_to_winner(page, table) -> None:
    """Every throw four claws and two energy; end every buy phase; stay in Tokyo; first option otherwise.

    Through the table's one writer (`Table.submit`, the call behind the API) while the phone follows: the
    page's own buttons for each of these answers were tapped in the turns before; a whole game of taps
    would test the same buttons a hundred times over."""
    for _ in range(300):
        snap = table.snapshot()
        if snap["phase"] == "over":
            break
        pending = snap["pending"]
        options = {o["action"]["type"]: o["action"] for o in pending.get("options", [])}
        if pending["kind"] == "roll" and snap["rolls"]["used"] == 0:
            wanted = pending["input"]
            action = {**wanted.get("action", {"type": "roll"}), "dice": [6, 6, 6, 6, 5, 5][: wanted["count"]]}
        elif pending["kind"] == "roll":
            action = options["resolve"]
        elif pending["kind"] == "buy":
            action = options["end"]
        elif pending["kind"] == "yield":
            action = options["stay"]
        else:
            action = pending["options"][0]["action"]
        table.submit(action)
    else:
        pytest.fail("no winner after 300 decisions")
    page.wait_for_function("s => window.dicesight.snap.seq >= s", arg=table.match.seq)


@pytest.mark.slow(16)
def test_a_four_monster_game_to_a_winner(box, table, phone):
    page = phone("en-US")
    page.goto(box)
    page.locator("#live.on").wait_for()
    pair_with_box(page, table)
    setup_game(page)
    snap = get_state(box)
    assert snap["game"] == "kingoftokyo" and snap["active"] == "p1" and snap["phase"] == "roll"
    expect(page.locator("#kot-tokyo [data-place='city']")).to_have_attribute("data-holder", "")
    assert page.locator("#kot-market .kot-card").count() == 3
    expect(page.locator("#kot-odds li").first).to_be_visible()  # odds before rolling
    shot(page, "kot-02-start")

    # The Cyber Kitty (p2's phone, Korean) will answer its own yield.
    other = phone("ko-KR")
    other.goto(box)
    other.locator("#live.on").wait_for()
    pair_with_box(other, table)

    # Turn 1, Ana: throw 6 dice by hand, keep the two claws by tapping them, reroll 4, resolve.
    seq = get_state(box)["seq"]
    enter_dice(page, [6, 6, 1, 2, 4, 5])
    wait_seq_above(page, seq)
    expect(page.locator("#kot-dice [data-face='claw']")).to_have_count(2)
    seq = get_state(box)["seq"]
    page.locator("#kot-dice button[data-die='0']").click()
    wait_seq_above(page, seq)
    seq = get_state(box)["seq"]
    page.locator("#kot-dice button[data-die='1']").click()
    wait_seq_above(page, seq)
    expect(page.locator("#kot-dice .kot-die.kept")).to_have_count(2)
    expect(page.locator("#kot-odds li[data-goal='claws'] .kot-die").first).to_be_visible()  # best keep shown
    assert "[object" not in page.locator("#kot-roll").inner_text()
    shot(page, "kot-03-kept-with-odds", at="#kot-roll")
    seq = get_state(box)["seq"]
    enter_dice(page, [5, 5, 5, 3])  # only the four rerolled dice go in the tray
    wait_seq_above(page, seq)
    seq = get_state(box)["seq"]
    click_option(page, "resolve")
    wait_seq_above(page, seq)
    snap = get_state(box)
    assert snap["tokyo"]["city"] == "p1" and snap["players"][0]["energy"] == 3
    expect(page.locator("#kot-tokyo [data-place='city']")).to_have_attribute("data-holder", "p1")
    shot(page, "kot-04-buy-phase", at="#kot-market")
    market = snap["market"]
    affordable = [m["slot"] for m in market if m and m["price"] <= 3]
    seq = snap["seq"]
    if affordable:
        page.locator(f"#kot-market button[data-buy='{affordable[0]}']").click()
        wait_seq_above(page, seq)
        assert get_state(box)["players"][0]["cards"] or get_state(box)["players"][0]["vp"] > 1 or \
            get_state(box)["players"][0]["health"] != 10 or get_state(box)["players"][0]["energy"] < 3
        seq = get_state(box)["seq"]
    click_option(page, "end")
    wait_seq_above(page, seq)

    # Turn 2, Bo (p2) claws Ana in Tokyo: the yield is Ana's (p1) decision, answered on her phone.
    seq = settle(page, box, "roll")["seq"]
    enter_dice(page, [6, 6, 6, 1, 2, 3])
    wait_seq_above(page, seq)
    seq = get_state(box)["seq"]
    click_option(page, "resolve")
    wait_seq_above(page, seq)
    snap = settle(page, box, "yield")
    assert snap["pending"]["kind"] == "yield" and snap["pending"]["player"] == "p1" and snap["pending"]["damage"] == 3
    expect(page.locator("#players article[data-player='p1'] .kot-ask")).to_contain_text("3")
    shot(page, "kot-05-yield-prompt")
    # answered on the second phone (Korean)
    expect(other.locator("#pending button.option[data-type='yield']")).to_be_visible()
    shot(other, "kot-06-yield-prompt-ko")
    tap_until_box_moves(other.locator("#pending button.option[data-type='yield']"), box, snap["seq"])
    wait_seq_above(page, snap["seq"])
    snap = settle(page, box, "buy")
    assert snap["tokyo"]["city"] == "p2"

    play_to_winner(page, table)
    final = get_state(box)
    assert final["phase"] == "over" and len(final["winners"]) == 1
    winner = next(p for p in final["players"] if p["id"] == final["winners"][0])
    expect(page.locator("#winner")).to_be_visible()
    expect(page.locator("#winnertext")).to_contain_text(winner["name"])
    expect(page.locator("#kot-events li[data-type='game_over']")).to_have_count(1)
    assert "[object" not in page.locator("body").inner_text()
    shot(page, "kot-07-winner")
    expect(page.locator(f"#kot-recap .kot-recap-row.won[data-player='{winner['id']}']")).to_be_visible()
    shot(page, "kot-08-recap", at="#kot-recap")
    shot(page, "kot-08-log", at="#kot-log")
    assert not page.js_errors and not other.js_errors

    # The same board in Traditional Chinese and Korean.
    for locale, lang, words in (("zh-TW", "zh-TW", ["東京市", "霹靂喵喵", "勝利點數"]), ("ko-KR", "ko", ["도쿄 시티", "승점"])):
        watcher = phone(locale)
        watcher.goto(box)
        watcher.locator("#players article[data-player='p1']").wait_for()
        watcher.wait_for_function("() => Object.keys(window.dicesight.games).length > 0")
        expect(watcher.locator("#kot-tokyo")).to_contain_text(words[0])
        text = watcher.locator("body").inner_text()
        for word in words:
            assert word in text, (lang, word)
        shot(watcher, f"kot-09-board-{lang}")


@pytest.mark.slow(12)
def test_a_six_monster_game_fills_tokyo_bay(box, table, phone):
    """5-6 monsters: the City is taken first, then the Bay (drawn on the board), then a winner."""
    page = phone("en-US")
    page.goto(box)
    page.locator("#live.on").wait_for()
    pair_with_box(page, table)
    setup_game(page, 6)
    assert get_state(box)["tokyo"]["bay_open"] is True
    expect(page.locator("#kot-tokyo [data-place='bay']")).to_be_visible()
    for want in ("city", "bay"):
        seq = get_state(box)["seq"]
        enter_dice(page, [1, 1, 2, 2, 3, 3])
        wait_seq_above(page, seq)
        seq = get_state(box)["seq"]
        click_option(page, "resolve")
        wait_seq_above(page, seq)
        seq = get_state(box)["seq"]
        click_option(page, "end")
        wait_seq_above(page, seq)
        holder = get_state(box)["tokyo"][want]
        expect(page.locator(f"#kot-tokyo [data-place='{want}']")).to_have_attribute("data-holder", holder)
    snap = get_state(box)
    assert snap["tokyo"] == {"city": "p1", "bay": "p2", "bay_open": True}
    shot(page, "kot-10-six-monsters-bay", at="#kot-tokyo")
    play_to_winner(page, table)
    final = get_state(box)
    assert final["phase"] == "over" and len(final["winners"]) == 1 and not final["tokyo"]["bay_open"]
    expect(page.locator("#kot-tokyo [data-place='bay']")).to_have_class(re.compile("closed"))
    shot(page, "kot-11-six-monsters-winner", at="#kot-tokyo")
    assert not page.js_errors
