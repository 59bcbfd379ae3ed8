"""A free roll confirmed on a phone keeps each die's face only where a number names one face of the box's set
(webui/static/app.js `facesByValue`): a hero die's 6 is its pow, but on Mage Wars' attack dice a 1 is two faces
(the plain 1 and the 1 in a starburst) and the set's first face is a blank, so there the number alone is sent, as
before. The real table runs behind the page; the tray's reading is put there as the watcher would."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from realbox import make_table, reading, set_tray

pytestmark = pytest.mark.e2e


@pytest.fixture()
def table(tmp_path):
    table = make_table(tmp_path)
    yield table
    table.close()


@pytest.mark.parametrize("dice_set, read, stored", [
    ("dicethrone:barbarian", [reading(6, False, face="pow"), reading(2, True, face="sword")],
     [{"value": 6, "face": "pow"}, {"value": 2, "face": "sword"}]),
    ("magewars-attack", [reading(1, False, face="1"), reading(2, True, face="2")],
     [{"value": 1}, {"value": 2}]),  # never {"value": 1, "face": "blank"}
])
def test_a_confirmed_free_roll_keeps_the_faces_a_number_names(table, serve_table, phone, dice_set, read, stored):
    table.dice_set = dice_set
    url = serve_table(table)
    page = phone("en-US")
    page.goto(url)
    page.locator("#live.on").wait_for()
    page.locator("#pair").click()
    page.wait_for_function("() => /\\d/.test(document.getElementById('pairmsg').textContent)")
    table.press("pair")
    page.locator("#pairbox").wait_for(state="hidden")
    set_tray(table, "settled", read, needs_confirmation=True)
    page.locator("#confirmbtn").click()
    expect(page.locator("#rolls [data-n='1']")).to_be_visible()
    assert table.snapshot()["rolls"][0]["dice"] == stored
