"""Every Dice Throne hero on the page (issue 12): eight whole 1v1 games at 390x844, together all sixteen heroes,
played from a paired phone through the pending options (dice by hand on the first roll of each offense,
otherwise the default; once the page has shown all it must, the rest of the game goes through the table
while the phone follows), in en, zh-TW and ko by turns. Along the way the page must show what the abilities
the dice make do ("Smack: 8 damage"), the hero's board on tap, keep advice from the odds, the roll phase's
damage before it lands, readable log lines ("Ana rolled 1 2 3 6 6"), the end recap and "play again"; in
zh-TW and ko none of those Dice Throne texts may be English.

Screenshots go to test-artifacts/screenshots/ (15-heroes-*).
"""

from __future__ import annotations

import re

import pytest
from pagekit import choose_game, shot
from test_page_dicethrone import answer, get_state, pair_phone, step

from engine.dicethrone.heroes import hero_ids

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

GAMES = [  # (hero of Ana, hero of Bo, browser locale, page language)
    ("artificer", "cursed_pirate", "en-US", "en"),
    ("huntress", "seraph", "zh-TW", "zh-TW"),
    ("tactician", "vampire_lord", "ko-KR", "ko"),
    ("monk", "gunslinger", "en-US", "en"),
    ("moon_elf", "shadow_thief", "zh-TW", "zh-TW"),
    ("barbarian", "paladin", "ko-KR", "ko"),
    ("ninja", "samurai", "en-US", "en"),
    ("treant", "pyromancer", "ko-KR", "ko"),
]
# a roll as the log words it ("Ana rolled 1 2 3 6 6"); the log shows its tail, so any roll of either player
ROLLED = {"en": re.compile(r"(Ana|Bo) rolled( \d)+"), "zh-TW": re.compile(r"(Ana|Bo) 擲出( \d)+"),
          "ko": re.compile(r"(Ana|Bo): (\d ?)+굴림")}
HEALTH = 7  # every game to a winner in few turns: each still shows the abilities, odds, damage and recap
ENGLISH = re.compile(r"[A-Za-z]{3,}")  # a word in English (CP and hero/player names aside)


def test_the_games_cover_all_sixteen_heroes():
    assert sorted(h for g in GAMES for h in g[:2]) == sorted(hero_ids())


def setup(page, a: str, b: str, health: int) -> None:
    page.locator("#newgame").click()
    page.locator("#setup").wait_for(state="visible")
    choose_game(page, "dicethrone")
    page.locator("#s_modes label").first.click()  # 1 vs 1
    rows = page.locator("#s_players .splayer")
    rows.nth(0).locator("input").fill("Ana")
    rows.nth(0).locator("select").select_option(a)
    rows.nth(1).locator("input").fill("Bo")
    rows.nth(1).locator("select").select_option(b)
    page.fill("#s_health", str(health))
    page.select_option("#s_start", "0")
    page.locator("#s_go").click()
    page.locator("#players article[data-player='p1']").wait_for()


def english_in(texts: list[str]) -> list[str]:
    return [t for t in texts if ENGLISH.search(t.replace("Ana", "").replace("Bo", "").replace("CP", ""))]


@pytest.mark.parametrize("a,b,locale,lang", GAMES, ids=[f"{g[0]}-{g[1]}-{g[3]}" for g in GAMES])
def test_a_whole_game_with_each_hero(box, table, phone, a, b, locale, lang):  # noqa: F811
    page = phone(locale)
    page.goto(box)
    page.locator("#live.on").wait_for()
    pair_phone(page, table)
    setup(page, a, b, health=HEALTH)
    tag = f"{a}-{b}-{lang}"

    # the hero's whole board on tap, at the levels the player has
    page.locator("#players article[data-player='p1'] button[data-board]").click()
    board = page.locator("#info_text").inner_text()
    assert "→" in board and len(board.splitlines()) >= 6, board
    if lang != "en":
        assert english_in(board.splitlines()) == [], board
    shot(page, f"15-heroes-{tag}-board")
    page.locator("#info button").click()

    seen = {"does": False, "advice": False, "damage": False}
    for _ in range(300):
        snap = get_state(box)
        if snap["phase"] == "over":
            break
        offense = snap["pending"] and snap["pending"]["kind"] == "offense"
        if offense and snap["attempts"]["used"] and not seen["advice"] and page.locator("#odds .advice").count():
            seen["advice"] = True
            advice = page.locator("#odds .advice").all_inner_texts()
            if lang != "en":
                assert english_in(advice) == [], advice
            shot(page, f"15-heroes-{tag}-odds", at="#gamedicecard")
        if offense and snap["abilities"] and not seen["does"]:
            page.locator("#abilities .does").first.wait_for()
            does = page.locator("#abilities .does").all_inner_texts()
            assert all(does), does
            if lang != "en":
                assert english_in(does) == [], does
            seen["does"] = True
            shot(page, f"15-heroes-{tag}-abilities", at="#gamedicecard")
        if not seen["damage"] and page.locator("#damagecard").is_visible():
            seen["damage"] = True   # damage you can follow: what each player takes before it is applied
            if lang != "en":
                assert english_in(page.locator("#damagecard").inner_text().splitlines()) == []
            shot(page, f"15-heroes-{tag}-damage", at="#damagecard")
        if all(seen.values()):  # the page showed all it must: the rest through the table, the phone follows
            answer(table, hand=[1, 2, 3, 6, 6])
        else:
            step(page, box, hand=[1, 2, 3, 6, 6])
    else:
        pytest.fail(f"{tag}: no winner after 300 decisions")
    page.locator("#winner").wait_for(state="visible")
    final = get_state(box)
    assert final["phase"] == "over"
    assert seen["does"], "the dice never made an ability"
    log = page.locator("#log").inner_text()
    assert ROLLED[lang].search(log), log[:400]
    shot(page, f"15-heroes-{tag}-over")
    shot(page, f"15-heroes-{tag}-log", at="#logcard")
    assert seen["damage"], "no roll phase's damage was ever shown before it landed"
    # the end: the recap, then "play again" with the same heroes, names and health
    page.locator("#recap").wait_for(state="visible")
    if lang != "en":
        assert english_in(page.locator("#recap").inner_text().splitlines()) == []
    shot(page, f"15-heroes-{tag}-recap", at="#recap")
    page.locator("#playagain").click()
    page.wait_for_function("() => window.dicesight.snap && window.dicesight.snap.phase !== 'over'")
    again = get_state(box)
    assert sorted((p["name"], p["hero"], p["health"]) for p in again["players"]) == [("Ana", a, HEALTH), ("Bo", b, HEALTH)]
    assert page.js_errors == []
