"""The venue board's view of a table (webui.scoreboard): every game's example played through, read only from
the shared screen's snapshot: the players, their scores, whose turn, the last roll, the winners, and the
events (rolls, damage, winners) between two moves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from device.play_cmd import script_lines, start
from webui.scoreboard import board, events

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def played(example: str, game: str) -> list[dict]:
    """The shared screen's snapshot after setup and after each accepted line of an example game."""
    match = start(game, str(EXAMPLES / f"{example}.setup.json"), 0)
    snaps = [match.snapshot()]
    for _line, action in script_lines(EXAMPLES / f"{example}.jsonl"):
        match.submit(action)
        snaps.append({**match.snapshot(), "game_id": 1})
    snaps[0]["game_id"] = 1
    return snaps


def story(snaps: list[dict]) -> tuple[dict, list[dict]]:
    boards = [board(s) for s in snaps]
    said = [e for prev, cur in zip(boards, boards[1:], strict=False) for e in events(prev, cur)]
    return boards[-1], said


@pytest.mark.parametrize(("example", "game", "life", "winners"), [
    ("dicethrone-1v1-full", "dicethrone", "health", ["bo"]),
    ("kingoftokyo-4-monsters", "kingoftokyo", "health", ["bo"]),
    ("magewars-duel", "magewars", "mage.left", ["p2"]),
])
def test_a_whole_game_tells_its_damage_and_winners(example: str, game: str, life: str, winners: list) -> None:
    snaps = played(example, game)
    last, said = story(snaps)
    assert last["game"] == game and last["over"] and last["winners"] == winners
    assert last["title"]["zh-TW"] and last["phase"]["name"]["ko"]
    assert [s["key"] for s in last["scores"] if s["life"]] == [life]
    first = board(snaps[0])
    # every point of life lost is one damage event's amount, player by player (heals aside: none lost more)
    lost = {p["id"]: 0 for p in last["players"]}
    for e in said:
        if e["type"] == "damage":
            lost[e["player"]] += e["amount"]
            assert e["before"] - e["after"] == e["amount"] > 0
    for p, p0 in zip(last["players"], first["players"], strict=True):
        assert lost[p["id"]] >= p0["scores"][life] - p["scores"][life] > 0 or p["id"] in winners
    assert [e["players"] for e in said if e["type"] == "winners"] == [winners]
    rolls = [e for e in said if e["type"] == "roll"]
    assert rolls and all(e["dice"] for e in rolls)
    assert [e["seq"] for e in rolls] == sorted({e["seq"] for e in rolls})  # each roll once, in order


def test_king_of_tokyo_shows_health_and_victory_points() -> None:
    last, _ = story(played("kingoftokyo-4-monsters", "kingoftokyo"))
    ann = last["players"][0]
    assert ann["name"] == "Ann" and ann["scores"] == {"health": 0, "vp": 19} and ann["max"] == {"health": 10}
    assert [s["name"]["en"] for s in last["scores"]] == ["Health", "Victory points"]


def test_a_coop_victory_is_everyones_and_hidden_rolls_show_colours_only() -> None:
    snaps = played("regidice-2p-victory", "regidice")
    last, said = story(snaps)
    assert last["winners"] == ["p1", "p2"]
    rolls = [e for e in said if e["type"] == "roll"]
    assert rolls and all(set(d) == {"colour"} for e in rolls for d in e["dice"])
    assert all("pips" not in json.dumps(board(s)) for s in snaps)


def test_whose_turn_falls_back_to_the_pending_decision() -> None:
    snaps = played("regidice-2p-victory", "regidice")
    assert board(snaps[0])["turn"] == snaps[0]["pending"]["player"] is not None


def test_a_new_game_is_one_event_and_the_first_board_none() -> None:
    snaps = played("freeroll-evening", "freeroll")
    b = board(snaps[-1])
    assert events(None, b) == []
    assert b["last_roll"]["dice"] == [{"value": v} for v in (1, 1, 4, 6, 2)]
    other = board({**snaps[0], "game_id": 2})
    assert events(b, other) == [{"type": "game", "game": "freeroll", "title": b["title"], "players": []}]


def test_junk_is_read_as_nothing() -> None:
    b = board({"game": "nosuchgame", "players": [{"id": "a"}, "x"], "log": [{"action": {"type": "roll",
              "dice": [True, None, 3, "claw", {"value": "6", "colour": "red", "pips": 4}]}}]})
    assert b["players"] == [{"id": "a", "name": "a", "scores": {}, "max": {}}]
    assert b["last_roll"]["dice"] == [{"value": 3}, {"face": "claw"}, {"value": "6", "colour": "red"}]
    assert b["title"] is None and b["winners"] == [] and not b["over"]
