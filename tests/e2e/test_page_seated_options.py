"""A phone bound to a seat is offered only its own choices (issue 34, point 4): in Regidice the phones of
players whose turn it is not showed "roll for this player" and every declare button, then had them refused,
and in the suffer phase every phone highlighted another player's answer as the default. Now each seated
phone shows its own options and, when it has none, whom the table waits for. Two phones sit as p1 and p3 of
a three-player game set up at reference §10.7 S6 (two blockers choose who takes the strike); the round is
driven through the table (the call behind the API). Screenshots: test-artifacts/screenshots/seated-*.png."""

from __future__ import annotations

import pytest
from pagekit import pair_with_box, shot
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

POSITION = {"players": 3, "position": {
    "pools": {"p1": ["R1", "B1", "Y1", "R1"], "p2": ["R1", "B1", "Y1", "R1"], "p3": []},
    "enemy": 3, "enemy_pips": [1, 1, 1, 1, 1]}}
ROLLS = {"p1": ["R4", "B4", "Y4", "R1"], "p2": ["R5", "B5", "Y5", "R1"]}
DECLARATIONS = {"p1": {"action": "block", "value": 4}, "p2": {"action": "block", "value": 5},
                "p3": {"action": "attack", "value": 6}}


def seated_phone(phone, box, table, seat: str, locale: str = "en-US"):
    page = phone(locale)
    page.goto(box)
    pair_with_box(page, table)
    expect(page.locator("#seatcard")).to_be_visible()
    page.locator("#seat").select_option(seat)
    page.wait_for_function("s => window.dicesight.snap && window.dicesight.snap.viewer === s", arg=seat)
    return page


def wait_for(page, table) -> None:
    page.wait_for_function("s => window.dicesight.snap && window.dicesight.snap.seq >= s", arg=table.snapshot()["seq"])


def buttons(page) -> list[dict]:
    return page.evaluate("""() => [...document.querySelectorAll('#pending button.option')]
        .map((b) => ({type: b.dataset.type, primary: b.classList.contains('primary'), text: b.innerText}))""")


def answer_as_the_table(table, phase: str, action: dict) -> None:
    while table.snapshot()["phase"] == phase:
        me = table.snapshot()["pending"]["player"]
        table.submit({"player": me, **action(me)})


def test_seated_phones_see_only_their_own_choices(phone, box, table):
    table.new_game("regidice", POSITION)
    first, third = seated_phone(phone, box, table, "p1"), seated_phone(phone, box, table, "p3", "ko-KR")
    snap = table.snapshot()
    assert snap["phase"] == "roll"
    waiting = snap["pending"]["player"]
    other = third if waiting == "p1" else first
    wait_for(other, table)
    assert buttons(other) == [], "a phone whose turn it is not is offered the roller's buttons"
    expect(other.locator("#pending .whose")).to_be_visible()
    shot(other, "seated-roll-others-wait")

    answer_as_the_table(table, "roll", lambda me: {"type": "roll", "dice": ROLLS[me]})
    assert table.snapshot()["phase"] == "declare"
    declarer = table.snapshot()["pending"]["player"]
    for page, seat in ((first, "p1"), (third, "p3")):
        wait_for(page, table)
        offered = buttons(page)
        assert (seat == declarer) == bool(offered), (seat, declarer, offered)
    answer_as_the_table(table, "declare", lambda me: {"type": "declare", **DECLARATIONS[me]})
    table.submit({"type": "advance"})
    for who in ("p3", "p1", "p2"):
        table.submit({"type": "resolve", "player": who})

    snap = table.snapshot()
    assert snap["phase"] == "suffer" and snap["pending"]["player"] is None
    assert [o["action"]["player"] for o in snap["pending"]["options"]] == ["p1", "p2"]
    wait_for(first, table)
    wait_for(third, table)
    mine = buttons(first)
    assert len(mine) == 1 and mine[0]["type"] == "suffer"
    assert buttons(third) == [], "a player who is not a candidate is offered the candidates' answers"
    names = {p["id"]: p["name"] for p in snap["players"]}
    expect(third.locator("#pending .whose")).to_contain_text(f"{names['p1']} / {names['p2']}")
    assert not any(b["primary"] for b in buttons(third))
    shot(first, "seated-suffer-own-choice", at="#pending")
    shot(third, "seated-suffer-others-wait-ko", at="#pending")
