"""The page at a phone's width (390x844) keeps its words whole (issue 34, point 6): a long game title is not
cut by the language switcher, a life total is never split across lines ("32/3" over "2" in Korean), the Mage
Wars attack form's checkboxes leave their labels a line, and Dice Throne's health correction row holds its
six buttons on one line. Each check measures the laid-out page in Chromium; the games are set up on the
real table directly. Screenshots: test-artifacts/screenshots/layout-*.png."""

from __future__ import annotations

import pytest
from pagekit import pair_with_box, shot

pytestmark = pytest.mark.e2e

MAGE_WARS = {"initiative": "p1", "phase": "actions",
             "players": [{"name": "서연", "mage": "wizard"}, {"name": "지수", "mage": "warlock"}]}
KING_OF_TOKYO = {"players": [{"name": "Ana", "monster": "cyber_kitty"}, {"name": "Bo", "monster": "the_king"}]}
DICE_THRONE = {"mode": "1v1", "players": [{"id": "ann", "name": "Ann", "hero": "gunslinger"},
                                         {"id": "bo", "name": "Bo", "hero": "barbarian"}]}


def open_game(phone, box, table, locale: str, game: str, setup: dict, paired: bool = False):
    table.new_game(game, setup)
    page = phone(locale)
    page.goto(box)
    page.locator("#live.on").wait_for()
    if paired:
        pair_with_box(page, table)
    page.wait_for_function("g => window.dicesight && window.dicesight.snap && window.dicesight.snap.game === g",
                           arg=game)
    return page


LINES = """el => {  // how many lines the element's text takes
    const range = document.createRange();
    range.selectNodeContents(el);
    const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
    return tops.size;
}"""


@pytest.mark.parametrize("locale", ["en-US", "ko-KR"])
def test_a_long_game_title_is_shown_whole_beside_the_language_switcher(phone, box, table, locale):
    page = open_game(phone, box, table, locale, "kingoftokyo", KING_OF_TOKYO)
    title = page.locator("#title")
    assert title.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), "the title is cut"
    t, langs = title.bounding_box(), page.locator(".langs").bounding_box()
    assert t["x"] + t["width"] <= langs["x"] + 1, "the title runs under the language switcher"
    assert t["y"] + t["height"] <= page.locator(".top").bounding_box()["height"] + 1
    shot(page, f"layout-kot-title-{locale}")


def test_a_life_total_stays_on_one_line_in_korean(phone, box, table):
    page = open_game(phone, box, table, "ko-KR", "magewars", MAGE_WARS)
    numbers = page.locator("#mwboard .stat b")
    assert numbers.count() >= 8
    for i in range(numbers.count()):
        assert numbers.nth(i).evaluate(LINES) == 1, numbers.nth(i).inner_text()
    shot(page, "layout-mw-life-ko")


def test_the_attack_forms_checkboxes_leave_their_labels_a_line(phone, box, table):
    page = open_game(phone, box, table, "ko-KR", "magewars", MAGE_WARS, paired=True)
    page.locator("#pending button.option[data-type='activate']").first.click()
    page.locator("#mwbuilder").wait_for()
    boxes = page.locator("#mwbuilder input[type='checkbox']")
    assert boxes.count() >= 3
    for i in range(boxes.count()):
        label = boxes.nth(i).locator("xpath=..")
        assert boxes.nth(i).bounding_box()["width"] < 40
        assert label.locator("span").evaluate(LINES) == 1, label.inner_text()
    shot(page, "layout-mw-attack-form-ko", at="#mwbuilder .chips")


@pytest.mark.parametrize("locale", ["en-US", "zh-TW"])
def test_the_health_correction_row_keeps_its_buttons_on_one_line(phone, box, table, locale):
    page = open_game(phone, box, table, locale, "dicethrone", DICE_THRONE, paired=True)
    page.locator("#corrections summary").click()
    row = page.locator("#adjust .adjrow[data-field='health']").first
    tops = {round(b.bounding_box()["y"]) for b in row.locator("button").all()}
    assert len(tops) == 1, "the health buttons wrap onto another line"
    right = row.bounding_box()["x"] + row.bounding_box()["width"]
    assert all(b.bounding_box()["x"] + b.bounding_box()["width"] <= right + 1 for b in row.locator("button").all())
    shot(page, f"layout-dt-corrections-{locale}", at="#corrections")
