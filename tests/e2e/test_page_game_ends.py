"""The last details of issue 34 met in the newcomer runs, on 390x844 phones in en, zh-TW and ko: Mage Wars'
game-over banner names the winner as the other games' do ("Ana wins!", not "Game over"); a Regidice player
with no dice left shows "Pool: 0", not "Pool: 0 ·"; a King of Tokyo monster's health reads "10/10" on one
line (the "/10" dropped under the label on a line of its own). Screenshots: test-artifacts/screenshots/ends-*.png."""

from __future__ import annotations

import re

import pytest
from pagekit import pair_with_box, shot
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e
SLOW = 45_000  # ms
LOCALES = ("en-US", "zh-TW", "ko-KR")

MAGE_WARS = {"initiative": "p1", "phase": "actions",
             "players": [{"name": "Ana", "mage": "wizard"}, {"name": "Ben", "mage": "warlock", "life": 10, "damage": 8}]}
WINS = {"en-US": "Ana wins!", "zh-TW": "Ana 獲勝！", "ko-KR": "Ana 승리!"}  # the page's catalogue, "%(name)s wins!"
REGIDICE = {"players": 3, "position": {
    "pools": {"p1": ["R1", "B1", "Y1", "R1"], "p2": ["R1", "B1", "Y1", "R1"], "p3": []},
    "enemy": 3, "enemy_pips": [1, 1, 1, 1, 1]}}
POOL = {"en-US": "Pool: 0", "zh-TW": "骰子池: 0", "ko-KR": "주사위: 0"}  # Regidice's view.pool
KOT = {"players": [{"id": "p1", "name": "Ana", "monster": "cyber_kitty"},
                   {"id": "p2", "name": "Bo", "monster": "the_king"}], "first": "p1"}

# Where the monster card's "/10" lies against its health number: the vertical middle of the "/10" text's line
# box, and the number's top and bottom.
MAX_BESIDE_NUMBER = """(field) => {
  const walker = document.createTreeWalker(field, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode()) && !node.textContent.includes("/10")) {}
  if (!node) return null;
  const range = document.createRange();
  const at = node.textContent.indexOf("/10");
  range.setStart(node, at);
  range.setEnd(node, at + 3);
  const max = range.getClientRects();
  if (!max.length || !field.isConnected) return null;  // a snapshot redrew the field between finding and reading it
  const num = field.querySelector(".health").getBoundingClientRect();
  return { lines: max.length, middle: (max[0].top + max[0].bottom) / 2, top: num.top, bottom: num.bottom };
}"""


def laid_out(page, field, tries: int = 20) -> dict | None:
    """Where the maximum lies beside the number, read again while a snapshot's redraw has just replaced the
    field (under load a redraw came between finding the field and reading it: no boxes to read)."""
    for _ in range(tries):
        where = field.evaluate(MAX_BESIDE_NUMBER)
        if where is not None:
            return where
        page.wait_for_timeout(100)
    return None


def paired_phone(phone, box, table, locale: str):
    page = phone(locale)
    page.goto(box)
    pair_with_box(page, table)
    page.wait_for_function("s => window.dicesight.snap && window.dicesight.snap.seq >= s", arg=table.snapshot()["seq"],
                           timeout=SLOW)
    return page


@pytest.mark.parametrize("locale", LOCALES)
def test_mage_wars_game_over_banner_names_the_winner(phone, box, table, locale):
    table.new_game("magewars", MAGE_WARS)
    table.submit({"type": "activate", "object": "p1"})
    table.submit({"type": "attack", "target": "p2", "attack": {"name": "Staff", "dice": 2}})
    table.submit({"type": "roll", "dice": ["2", "2"]})  # 4 damage on Ben's last 2 life
    snap = table.snapshot()
    assert snap["phase"] == "over" and snap["winner"] == "p1"
    page = paired_phone(phone, box, table, locale)
    expect(page.locator("#winnertext")).to_have_text(WINS[locale], timeout=SLOW)
    shot(page, f"ends-magewars-winner-{locale}")
    assert page.js_errors == []


@pytest.mark.parametrize("locale", LOCALES)
def test_a_regidice_player_with_no_dice_has_no_stray_separator(phone, box, table, locale):
    table.new_game("regidice", REGIDICE)
    page = paired_phone(phone, box, table, locale)
    pool = page.locator("#rdplayers article[data-player='p3'] p.muted small").first
    expect(pool).to_have_text(re.compile(f"^{re.escape(POOL[locale])}$"), timeout=SLOW)
    # a player with dice still says which colours
    expect(page.locator("#rdplayers article[data-player='p1'] p.muted small").first).to_contain_text(" · ")
    shot(page, f"ends-regidice-empty-pool-{locale}", at="#rdplayers article[data-player='p3']")


@pytest.mark.parametrize("locale", LOCALES)
def test_king_of_tokyo_health_and_its_maximum_share_a_line(phone, box, table, locale):
    table.new_game("kingoftokyo", KOT)
    page = paired_phone(phone, box, table, locale)
    for pid in ("p1", "p2"):
        field = page.locator(f"article.kot-monster[data-player='{pid}'] [data-field='health']")
        expect(field).to_be_visible(timeout=SLOW)
        where = laid_out(page, field)
        assert where is not None, field.inner_text()
        assert where["lines"] == 1 and where["top"] <= where["middle"] <= where["bottom"], (locale, pid, where)
    shot(page, f"ends-kot-health-{locale}", at="#players")
