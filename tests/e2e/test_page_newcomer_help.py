"""Smaller stops for a newcomer (issue 34, "Smaller"): the rules of Regidice and Mage Wars in a few lines on
the page, in the phone's language, with a legend of the Mage Wars attack die's faces; a virtual reroll offered
in King of Tokyo after the first roll, as it is for the first; and Regidice's own dice shown above the
declare list. Screenshots: test-artifacts/screenshots/help-*.png."""

from __future__ import annotations

import pytest
from pagekit import pair_with_box, shot
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

MAGE_WARS = {"initiative": "p1", "players": [{"name": "Ana", "mage": "wizard"}, {"name": "Ben", "mage": "warlock"}]}
KOT = {"players": [{"id": "p1", "name": "Ana", "monster": "cyber_kitty"},
                   {"id": "p2", "name": "Bo", "monster": "the_king"}], "first": "p1"}
RULE_WORDS = {"en-US": ("How to play", "wounded pile"), "zh-TW": ("玩法摘要", "受傷堆"), "ko-KR": ("게임 방법", "부상 더미")}


def open_page(phone, box, locale: str, game: str):
    page = phone(locale)
    page.goto(box)
    page.wait_for_function("g => window.dicesight.snap && window.dicesight.snap.game === g", arg=game)
    return page


@pytest.mark.parametrize("locale", sorted(RULE_WORDS))
def test_regidice_explains_its_rules_in_the_phones_language(phone, box, table, locale):
    table.new_game("regidice", {"players": 2})
    page = open_page(phone, box, locale, "regidice")
    title, word = RULE_WORDS[locale]
    page.locator("#rules summary").click()
    expect(page.locator("#rules summary")).to_have_text(title)
    assert page.locator("#rules li").count() >= 6
    expect(page.locator("#rules")).to_contain_text(word)
    shot(page, f"help-regidice-rules-{locale}", at="#rules")


def test_mage_wars_explains_its_attack_die(phone, box, table):
    table.new_game("magewars", MAGE_WARS)
    page = open_page(phone, box, "ko-KR", "magewars")
    page.locator("#rules summary").click()
    legend = page.locator("#mwlegend li")
    expect(legend).to_have_count(5)
    expect(page.locator("#mwlegend li[data-face='2*']")).to_contain_text("치명 피해 2")
    shot(page, "help-magewars-legend-ko", at="#mwlegend")


# Points of a starred face's digit (the corners and edge midpoints of its box: its advance across, from the
# baseline up a digit's height, 0.72 of the font size) and whether each lies on the ink drawn under it: the
# digit is drawn in the die's own colour, so where it leaves the ink it vanishes.
DIGIT_ON_INK = """(li) => {
    const svg = li.querySelector('svg');
    const text = svg.querySelector('text');
    const ink = [...svg.querySelectorAll('path, circle')];
    const b = text.getBBox();
    const base = Number(text.getAttribute('y'));
    const high = 0.72 * Number(text.getAttribute('font-size'));
    const points = [];
    for (const fx of [0, 0.5, 1]) for (const fy of [0, 0.5, 1]) points.push([b.x + fx * b.width, base - fy * high]);
    return points.map(([x, y]) => {
        const onScreen = new DOMPoint(x, y).matrixTransform(text.getCTM());
        return ink.some((shape) => shape.isPointInFill(onScreen.matrixTransform(shape.getCTM().inverse())));
    });
}"""


@pytest.mark.parametrize("face", ["1*", "2*"])
def test_a_starred_face_s_digit_sits_on_the_star(phone, box, table, face):
    """Issue 34, smaller: the digit of a starred attack face was hard to read: drawn in the die's colour over
    the star's thin spikes, most of it stood on the die itself. Every point of its box now lies on ink."""
    table.new_game("magewars", MAGE_WARS)
    page = open_page(phone, box, "en-US", "magewars")
    page.locator("#rules summary").click()
    die = page.locator(f"#mwlegend li[data-face='{face}']")
    expect(die.locator("svg text")).to_have_text(face[0])
    on_ink = die.evaluate(DIGIT_ON_INK)
    assert all(on_ink), f"points of the digit off the star's ink: {on_ink}"


def test_king_of_tokyo_offers_a_virtual_reroll(phone, box, table):
    table.new_game("kingoftokyo", KOT)
    table.submit({"type": "roll", "player": "p1", "dice": ["heart", "claw", "claw", "1", "2", "3"]})
    page = phone("en-US")
    page.goto(box)
    pair_with_box(page, table)
    reroll = page.locator("#pending button.option[data-type='roll']")
    expect(reroll).to_have_count(1)
    seq = table.snapshot()["seq"]
    reroll.click()
    page.wait_for_function("s => window.dicesight.snap.seq > s", arg=seq, timeout=45_000)
    assert table.snapshot()["rolls"]["used"] == 2


def test_regidice_shows_your_dice_above_the_declare_list(phone, box, table):
    table.new_game("regidice", {"players": 2})
    for player in ("p1", "p2"):
        table.submit({"type": "roll", "player": player, "dice": ["R1", "R2", "R3", "B4", "B5", "B6", "Y1", "Y2", "Y3"]})
    declarer = table.snapshot()["pending"]["player"]
    page = phone("en-US")
    page.goto(box)
    pair_with_box(page, table)
    page.locator("#seat").select_option(declarer)
    page.wait_for_function("s => window.dicesight.snap && window.dicesight.snap.viewer === s", arg=declarer)
    expect(page.locator("#rdmine")).to_be_visible()
    mine, pending = page.locator("#rdmine").bounding_box(), page.locator("#pending").bounding_box()
    assert mine["y"] < pending["y"], "the declare list sits above the player's own dice"
    shot(page, "help-regidice-your-dice-first")


def test_the_entry_pad_names_symbol_faces_for_screen_readers(phone, box, table):
    """A hand-entry pad of symbol dice read "Die showing 4" to a screen reader; it says the face now."""
    table.new_game("kingoftokyo", KOT)
    page = phone("ko-KR")
    page.goto(box)
    pair_with_box(page, table)
    labels = page.locator("#entrypad button").evaluate_all("bs => bs.map((b) => b.getAttribute('aria-label'))")
    assert len(labels) == 6 and not any("4" in label for label in labels[3:]), labels
    assert labels[3] != labels[4] != labels[5]
