"""A refusal a phone's own tap meets is shown in the phone's language (issue 34, point 5): for each game a
paired zh-TW or ko phone submits an action the rules refuse, through the page's own act(), and the toast it
shows holds no English word (tests/e2e/test_page_languages.py reads the rest of the page the same way)."""

from __future__ import annotations

import pytest
from pagekit import pair_with_box
from test_page_languages import english_words

pytestmark = pytest.mark.e2e

GAMES = {
    "kingoftokyo": ({"players": [{"id": "p1", "name": "Ana", "monster": "cyber_kitty"},
                                 {"id": "p2", "name": "Bo", "monster": "the_king"}], "first": "p1"},
                    {"type": "buy", "slot": 0}),
    "dicethrone": ({"mode": "1v1", "players": [{"id": "ann", "name": "Ann", "hero": "gunslinger"},
                                               {"id": "bo", "name": "Bo", "hero": "barbarian"}]},
                   {"type": "keep", "keep": [0]}),
    "regidice": ({"players": [{"name": "Ana"}, {"name": "Bo"}]}, {"type": "roll", "player": "p2", "dice": ["R1"]}),
    "magewars": ({"initiative": "p1", "phase": "actions",
                  "players": [{"name": "Ana", "mage": "wizard"}, {"name": "Ben", "mage": "warlock"}]},
                 {"type": "pass"}),
}


@pytest.mark.parametrize("locale", ["zh-TW", "ko-KR"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_refused_tap_is_explained_in_the_phones_language(phone, table, serve_table, game, locale):
    setup, refused = GAMES[game]
    table.new_game(game, setup)
    page = phone(locale)
    page.goto(serve_table(table))
    pair_with_box(page, table)
    status = page.evaluate("""async (action) => {
        const m = await import('/static/core.js');
        try { await m.act(action); return 200; } catch (e) { return e.status || 0; }
    }""", refused)
    assert status == 409
    page.locator("#toast").wait_for(state="visible")
    said = page.locator("#toast").inner_text()
    assert said and not english_words([["toast", said]]), said
