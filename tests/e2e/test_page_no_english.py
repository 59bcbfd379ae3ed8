"""No English on a Traditional Chinese or Korean page (issue 34, point 5): each of the four games is set up on
the real table and played a few steps, and at every step a paired phone at 390x844 opens every folded
section and reads everything it shows (text, button names, placeholders, labels for screen readers). Any
word of three or more Latin letters that is not a name the players gave, a unit or the brand fails the test,
with the words and where they are. Refusals the engine words are sent through a phone too, so a refusal is
read in the phone's language as well. Screenshots: test-artifacts/screenshots/noenglish-*.png."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from pagekit import pair_with_box, shot
from realbox import make_table

pytestmark = [pytest.mark.e2e, pytest.mark.slow(20)]

NAMES = {"Ana", "Ben", "Bo", "Cy", "Ann", "Dee"}  # the players' own names are theirs
# "Regidice" is the game's name in its Traditional Chinese rules too (BGA's zh-TW help page, seed 002);
# CP is how the Korean rulebook (RB24) writes combat points.
ALLOWED = NAMES | {"dicesight", "CP", "d12", "d6", "Regidice"}
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’]{2,}")

READ_PAGE = """() => {
  for (const d of document.querySelectorAll('details')) d.open = true;
  const seen = (el) => el && !el.closest('.langs, script, style, #toast') && el.getClientRects().length > 0;
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const n = walk.currentNode;
    const text = n.textContent.trim();
    if (text && seen(n.parentElement)) out.push([text, n.parentElement.closest('[id]')?.id || n.parentElement.tagName]);
  }
  for (const el of document.querySelectorAll('[placeholder], [aria-label], [title], img[alt]')) {
    if (!seen(el)) continue;
    for (const a of ['placeholder', 'aria-label', 'title', 'alt']) {
      const v = el.getAttribute(a);
      if (v) out.push([v, (el.closest('[id]')?.id || el.tagName) + '@' + a]);
    }
  }
  return out;
}"""

GAMES = {
    "kingoftokyo": ({"players": [{"id": "p1", "name": "Ana", "monster": "cyber_kitty"},
                                 {"id": "p2", "name": "Bo", "monster": "the_king"}], "first": "p1"},
                    [{"type": "roll", "player": "p1", "dice": ["heart", "claw", "claw", "1", "2", "3"]},
                     {"type": "keep", "dice": [1, 2]},
                     {"type": "resolve"}]),
    "dicethrone": ({"mode": "1v1", "start": "ann", "players": [{"id": "ann", "name": "Ann", "hero": "gunslinger"},
                                                               {"id": "bo", "name": "Bo", "hero": "barbarian"}]},
                   []),
    "regidice": ({"players": [{"name": "Ana"}, {"name": "Bo"}]},
                 [{"type": "roll", "player": "p1", "dice": ["R1", "R2", "R3", "B4", "B5", "B6", "Y1", "Y2", "Y3"]}]),
    "magewars": ({"initiative": "p1", "phase": "actions",
                  "players": [{"name": "Ana", "mage": "wizard"}, {"name": "Ben", "mage": "warlock"}],
                  "objects": [{"name": "Dee", "owner": "p1", "life": 6, "ready": True}]},
                 [{"type": "activate", "object": "p1"},
                  {"type": "attack", "target": "p2", "attack": {"dice": 2, "type": "flame", "effects": "7+ = Burn"}},
                  {"type": "roll", "dice": ["2", "1*"], "effect": 9}]),
}
REFUSED = {"kingoftokyo": {"type": "buy", "slot": 0}, "dicethrone": {"type": "keep", "keep": [0]},
           "regidice": {"type": "roll", "player": "p2", "dice": ["R1"]}, "magewars": {"type": "pass"}}


@pytest.fixture()
def table(tmp_path):
    table = make_table(tmp_path, camera=None)
    yield table
    table.close()


@pytest.fixture()
def box(table, serve_table):
    return serve_table(table)


def english_in(page) -> list[str]:
    found = []
    for text, where in page.evaluate(READ_PAGE):
        words = [w for w in LATIN_WORD.findall(text) if w not in ALLOWED]
        if words:
            found.append(f"{where}: {text!r}")
    return found


def refuse_through_the_phone(page, action: dict) -> str:
    """Send an action the rules refuse, as the page's act() does, and return the toast the phone shows."""
    page.evaluate("a => window.dicesightAct ? window.dicesightAct(a) : null", action)
    return page.locator("#toast").inner_text(timeout=15_000)


def settle(page, table) -> None:
    page.wait_for_function("s => window.dicesight.snap && window.dicesight.snap.seq >= s",
                           arg=table.snapshot()["seq"], timeout=45_000)
    page.wait_for_timeout(150)  # the board views draw on the next frame


@pytest.mark.parametrize("locale", ["zh-TW", "ko-KR"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_phone_shows_no_english(phone, box, table, game, locale):
    setup, actions = GAMES[game]
    table.new_game(game, setup)
    page = phone(locale)
    page.goto(box)
    pair_with_box(page, table)
    found: list[str] = []
    for step in [None, *actions]:
        if step is not None:
            table.submit(step)
        settle(page, table)
        found += [f"after {step and step['type']}: {f}" for f in english_in(page)]
    shot(page, f"noenglish-{game}-{locale}", full=True)
    status, body = post_as_phone(page, REFUSED[game])
    assert status == 409, body
    page.locator("#toast").wait_for(state="visible")
    words = [w for w in LATIN_WORD.findall(page.locator("#toast").inner_text()) if w not in ALLOWED]
    if words:
        found.append(f"refusal {body.get('code')}: {page.locator('#toast').inner_text()!r}")
    assert not found, "English on a " + locale + " page:\n" + "\n".join(dict.fromkeys(found))


def post_as_phone(page, action: dict) -> tuple[int, dict]:
    """Submit through the page's own act(), so the phone shows the refusal as it would a tap's."""
    out = page.evaluate("""async (action) => {
        const m = await import('/static/core.js');
        try { await m.act(action); return [200, {}]; } catch (e) { return [e.status || 0, e.data || {}]; }
    }""", action)
    return out[0], out[1]


def state(url: str) -> dict:
    with urllib.request.urlopen(url + "/api/state", timeout=5) as r:
        return json.load(r)

