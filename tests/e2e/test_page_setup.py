"""The setup sheet (issue 34 #2): "Start the game" with the sheet's defaults starts every game, switching games
as a newcomer does (King of Tokyo used to default every player to the same monster, which the box refuses),
and a refused setup says why inside the sheet, in the phone's language (the toast was drawn under the modal
dialog, so the refusal was invisible and "Start the game" seemed to do nothing).

Screenshots: setup-*.png."""

from __future__ import annotations

import pytest
from pagekit import choose_game, pair_with_box, shot
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

# what a refusal of two Gigazaurs says, per phone language
TWICE = {"en-US": ("Gigazaur", "more than once"), "zh-TW": ("吉哥拉", "不只一次"), "ko-KR": ("기가자우르", "두 명 이상")}


def open_sheet(page) -> None:
    page.locator("#newgame").click()
    page.locator("#setup").wait_for(state="visible")


def seat_choices(page) -> list[str]:
    """What each seat of the sheet has chosen (a hero, a monster, a mage)."""
    return page.locator("#s_players select").evaluate_all("els => els.map(e => e.value)")


def start(page, game: str) -> None:
    """Tap "Start the game" and wait until the box has started `game` and the sheet is gone."""
    page.locator("#s_go").click()
    page.wait_for_function("g => window.dicesight.snap && window.dicesight.snap.game === g", arg=game)
    page.locator("#setup").wait_for(state="hidden")


def test_the_sheet_s_defaults_start_every_game(table, serve_table, phone):
    page = phone("en-US")
    page.goto(serve_table(table))
    pair_with_box(page, table)
    open_sheet(page)
    expect(page.locator("#s_game")).to_have_value("dicethrone")  # the first game with players
    choose_game(page, "kingoftokyo")  # the seats keep their rows: heroes are no monsters
    expect(page.locator("#s_players select")).to_have_count(2)
    expect(page.locator("#s_players select").first.locator("option[value='gigazaur']")).to_have_count(1)  # redrawn
    monsters = seat_choices(page)
    assert len(set(monsters)) == 2, monsters
    shot(page, "setup-01-kingoftokyo-defaults")
    start(page, "kingoftokyo")
    assert sorted(p["monster"] for p in table.snapshot()["players"]) == sorted(monsters)

    for game in ("dicethrone", "magewars", "regidice"):
        open_sheet(page)
        choose_game(page, game)
        chosen = seat_choices(page)
        assert len(set(chosen)) == len(chosen), (game, chosen)  # different heroes, different mages
        start(page, game)

    open_sheet(page)  # six monsters: Tokyo City and Bay
    choose_game(page, "kingoftokyo")
    page.locator("#s_modes input[value='bay']").check()
    page.select_option("#s_count", "6")
    expect(page.locator("#s_players select")).to_have_count(6)
    assert len(set(seat_choices(page))) == 6
    start(page, "kingoftokyo")
    assert len(table.snapshot()["players"]) == 6
    assert page.js_errors == []


def test_a_name_typed_while_the_sheet_redraws_its_seats_is_kept(table, serve_table, phone):
    """A player picks Mage Wars and starts typing a name at once: the sheet loads the game's board (slow on a
    busy box; held back 1.5 s here) and then redraws the seats. The typing goes on in the same seat."""
    page = phone("en-US")
    page.goto(serve_table(table))
    pair_with_box(page, table)
    open_sheet(page)

    def slow_board(route):
        page.wait_for_timeout(1500)
        route.continue_()

    page.route("**/magewars/board.js*", slow_board)
    page.select_option("#s_game", "magewars")
    name = page.locator("#s_players input").first
    name.click()
    name.press("Control+A")  # the old seat, still Dice Throne's
    page.locator("#setup[data-drawn='magewars']").wait_for(state="attached")
    page.keyboard.type("Ana")
    expect(name).to_have_value("Ana")
    start(page, "magewars")
    assert table.snapshot()["players"][0]["name"] == "Ana"


@pytest.mark.parametrize("locale", ["en-US", "zh-TW", "ko-KR"])
def test_a_refused_setup_says_why_inside_the_sheet(table, serve_table, phone, locale):
    page = phone(locale)
    page.goto(serve_table(table))
    pair_with_box(page, table)
    open_sheet(page)
    choose_game(page, "kingoftokyo")
    seats = page.locator("#s_players select")
    seats.nth(0).select_option("gigazaur")
    seats.nth(1).select_option("gigazaur")
    page.locator("#s_go").click()
    error = page.locator("#setup #s_error")
    expect(error).to_be_visible()
    name, words = TWICE[locale]
    expect(error).to_contain_text(name)
    expect(error).to_contain_text(words)
    # drawn on top, where the player looks: nothing (no backdrop, no page behind the dialog) covers it
    assert page.evaluate("""() => { const e = document.getElementById('s_error'); const r = e.getBoundingClientRect();
        return e.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)); }""")
    expect(page.locator("#setup")).to_be_visible()
    assert table.snapshot()["game"] == "freeroll", "nothing started"
    shot(page, f"setup-10-refused-{locale}")

    seats.nth(1).select_option("the_king")  # fixed: the reason goes, and the game starts
    expect(error).to_be_hidden()
    start(page, "kingoftokyo")
    assert page.js_errors == []


# The chosen way to start as the select draws it: its words' width in the select's own font against the room
# the select gives them, and the sheet's other visible texts that say those words whole.
START_READ = """() => {
    const sel = document.getElementById('s_start');
    const words = sel.selectedOptions[0].textContent;
    const style = getComputedStyle(sel);
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const room = sel.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 24;  // the arrow
    const whole = [...document.querySelectorAll('#s_fields *')].filter((e) => e !== sel && !sel.contains(e)
        && e.children.length === 0 && e.getClientRects().length && e.textContent.trim() === words.trim()
        && e.scrollWidth <= e.clientWidth + 1);
    return {words, fits: ctx.measureText(words).width <= room, whole: whole.length};
}"""


@pytest.mark.parametrize("locale", ["en-US", "zh-TW", "ko-KR"])
def test_the_way_to_start_can_be_read_whole(table, serve_table, phone, locale):
    """Issue 34 (a newcomer at 390 px): King of Tokyo's rule for who starts ("Roll for it in the game: most
    claws starts") was cut by its select at a phone's width in every language ("... most c"); the sheet now
    says the chosen way whole where the select cannot."""
    page = phone(locale)
    page.goto(serve_table(table))
    pair_with_box(page, table)
    open_sheet(page)
    choose_game(page, "kingoftokyo")
    page.locator("#s_players select option[value='gigazaur']").first.wait_for(state="attached")
    seen = page.evaluate(START_READ)
    assert seen["fits"] or seen["whole"], f"the way to start is cut and said nowhere else: {seen}"
    shot(page, f"setup-20-who-starts-{locale}", at="#s_startlabel")
