"""`dicesight play`: a script of actions applied with no camera; line 0 is the snapshot after setup, refusals
are reported and the script goes on (exit 0), `--strict` stops at the first (exit 1), a mid-game position in
the setup, and every script in docs/examples runs to its end."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from device.cli import main
from engine.games import GAMES

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"


def run_play(capsys, tmp_path, lines, setup=None, game="freeroll", *extra):
    script = tmp_path / "actions.jsonl"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["play", game, "--script", str(script), "--json", *extra]
    if setup is not None:
        (tmp_path / "setup.json").write_text(setup if isinstance(setup, str) else json.dumps(setup), encoding="utf-8")
        args += ["--setup", str(tmp_path / "setup.json")]
    code = main(args)
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return code, out


def test_play_prints_the_setup_then_a_snapshot_per_action(capsys, tmp_path):
    code, out = run_play(capsys, tmp_path, ['{"type": "roll", "dice": [1, 2, 3]}',
                                            '{"type": "roll", "dice": [6]}', '{"type": "undo"}'])
    assert code == 0
    assert out[0]["line"] == 0 and out[0]["seq"] == 0 and out[0]["snapshot"]["count"] == 0
    assert [o["seq"] for o in out[1:]] == [1, 2, 3]
    assert out[2]["snapshot"]["rolls"][0]["total"] == 6
    assert out[3]["snapshot"]["count"] == 1


def test_play_reports_refusals_and_goes_on_to_the_end(capsys, tmp_path):
    code, out = run_play(capsys, tmp_path, ['{"type": "roll", "dice": [9]}', "not json",
                                            '{"type": "roll", "dice": [4]}'])
    assert code == 0                                  # the script ran to its end
    assert out[1]["error"]["code"] == "bad_dice" and out[1]["line"] == 1
    assert out[2]["error"]["code"] == "bad_json" and out[2]["line"] == 2
    assert out[3]["seq"] == 1 and out[3]["snapshot"]["rolls"][0]["total"] == 4


def test_strict_stops_at_the_first_refusal(capsys, tmp_path):
    code, out = run_play(capsys, tmp_path, ['{"type": "roll", "dice": [2]}', '{"type": "roll", "dice": [0]}',
                                            '{"type": "roll", "dice": [4]}'], None, "freeroll", "--strict")
    assert code == 1
    assert [o.get("line") for o in out] == [0, 1, 2]  # nothing after the refused line 2
    assert out[-1]["error"]["code"] == "bad_dice"


def test_comment_and_blank_lines_are_skipped_and_line_numbers_kept(capsys, tmp_path):
    code, out = run_play(capsys, tmp_path, ["# a rules test: two rolls", "", '  # indented comment',
                                            '{"type": "roll", "dice": [5]}'], None, "freeroll", "--strict")
    assert code == 0 and [o["line"] for o in out] == [0, 4]


def test_play_unknown_game_and_bad_setup(capsys, tmp_path):
    code, out = run_play(capsys, tmp_path, [], game="chess")
    assert code == 2 and out[0]["error"]["code"] == "unknown_game"
    code, out = run_play(capsys, tmp_path, [], setup="[1, 2")
    assert code == 2 and out[0]["error"]["code"] == "bad_setup"
    code, out = run_play(capsys, tmp_path, [], setup={"seed": 2 ** 63})
    assert code == 2 and out[0]["error"]["code"] == "bad_setup" and "seed" in out[0]["error"]["message"]


MID_GAME = {
    "mode": "1v1", "seed": 3, "start": "ann", "turn": 6, "active": "bo", "phase": "main1",
    "players": [
        {"id": "ann", "name": "Ann", "hero": "gunslinger", "health": 17, "cp": 9, "hand": 2, "discard": 7,
         "statuses": {"bounty": 1}, "upgrades": {"revolver": 2}},
        {"id": "bo", "name": "Bo", "hero": "barbarian", "health": 58, "cp": 15, "hand": 6,
         "statuses": {"concussion": 1}},
    ],
}


def _player(snap, pid):
    return next(p for p in snap["players"] if p["id"] == pid)


def test_setup_states_a_mid_game_position_with_absolute_values(capsys, tmp_path):
    """A position as players would copy it from a table: every stated number is shown as given."""
    code, out = run_play(capsys, tmp_path, [], MID_GAME, "dicethrone", "--strict")
    assert code == 0 and len(out) == 1
    snap = out[0]["snapshot"]
    ann, bo = _player(snap, "ann"), _player(snap, "bo")
    assert (snap["turn"], snap["active"], snap["phase"], snap["pending"]["kind"]) == (6, "bo", "main1", "main")
    assert (ann["health"], ann["cp"], ann["hand"], ann["discard"], ann["deck"]) == (17, 9, 2, 7, 32 - 9)
    assert {s["id"]: s["count"] for s in ann["statuses"]} == {"bounty": 1}   # no Quick Draw setup gain
    assert ann["upgrades"]["revolver"] == 2
    assert (bo["health"], bo["cp"], bo["hand"]) == (58, 15, 6)
    assert {s["id"]: s["count"] for s in bo["statuses"]} == {"concussion": 1}


def test_a_position_does_not_move_the_heal_cap(capsys, tmp_path):
    """Rules §3: health never goes above the starting health + 10, whatever health a position states."""
    lines = ['{"type": "adjust", "player": "bo", "health": 20}', '{"type": "adjust", "player": "ann", "health": 50}']
    code, out = run_play(capsys, tmp_path, lines, MID_GAME, "dicethrone", "--strict")
    assert code == 0
    for o in out:
        assert all(p["health_max"] == 60 for p in o["snapshot"]["players"])
    assert _player(out[1]["snapshot"], "bo")["health"] == 60
    assert _player(out[2]["snapshot"], "ann")["health"] == 60


def test_a_position_in_the_offensive_roll_phase_plays_on(capsys, tmp_path):
    """Rules §2.4: the position starts the active player's Offensive Roll Phase with 5 fresh dice and 3
    attempts; the stated upgrade is the level in force (Revolver II)."""
    setup = {**MID_GAME, "active": "ann", "phase": "offensive"}
    code, out = run_play(capsys, tmp_path, ['{"type": "roll", "dice": [1, 1, 1, 4, 5]}'], setup, "dicethrone",
                         "--strict")
    assert code == 0
    first = out[0]["snapshot"]
    assert first["phase"] == "offensive" and first["pending"]["kind"] == "offense"
    assert first["attempts"] == {"used": 0, "max": 3}
    met = {a["id"]: a["level"] for a in out[1]["snapshot"]["abilities"]}
    assert met.get("revolver") == 2


def test_a_position_in_upkeep_runs_the_upkeep(capsys, tmp_path):
    """Rules §2.1-2.2: from Upkeep, Burn hurts (2 per token) and Income pays 1 CP and a card after turn 1."""
    setup = {**MID_GAME, "phase": "upkeep", "active": "bo",
             "players": [MID_GAME["players"][0], {**MID_GAME["players"][1], "statuses": {"burn": 1}, "cp": 3}]}
    code, out = run_play(capsys, tmp_path, [], setup, "dicethrone", "--strict")
    bo = _player(out[0]["snapshot"], "bo")
    assert code == 0 and bo["health"] == 56 and bo["cp"] == 4 and bo["hand"] == 7


@pytest.mark.parametrize("setup, word", [
    ({**MID_GAME, "phase": "discard"}, "phase"),
    ({**MID_GAME, "turn": 0}, "turn"),
    ({**MID_GAME, "active": "zed"}, "active"),
    ({**MID_GAME, "players": [{**MID_GAME["players"][0], "health": 61}, MID_GAME["players"][1]]}, "health"),
    ({**MID_GAME, "players": [{**MID_GAME["players"][0], "cp": 16}, MID_GAME["players"][1]]}, "cp"),
    ({**MID_GAME, "players": [{**MID_GAME["players"][0], "statuses": {"bounty": 9}}, MID_GAME["players"][1]]},
     "bounty"),
    ({**MID_GAME, "players": [{**MID_GAME["players"][0], "upgrades": {"revolver": 4}}, MID_GAME["players"][1]]},
     "revolver"),
    ({**MID_GAME, "players": [{**MID_GAME["players"][0], "helth": 3}, MID_GAME["players"][1]]}, "helth"),
])
def test_an_impossible_position_is_refused_with_the_field_named(capsys, tmp_path, setup, word):
    code, out = run_play(capsys, tmp_path, [], setup, "dicethrone")
    assert code == 2 and out[0]["error"]["code"] == "bad_setup" and word in out[0]["error"]["message"]


def _examples():
    for setup in sorted(EXAMPLES.glob("*.setup.json")):
        script = setup.with_name(setup.name[:-len(".setup.json")] + ".jsonl")
        yield pytest.param(setup, script, id=script.stem)


@pytest.mark.parametrize("setup, script", list(_examples()))
def test_every_docs_example_runs_to_its_end_strictly(capsys, setup, script):
    """docs/examples/<game>-*.jsonl with its .setup.json: every line accepted (`--strict`)."""
    game = setup.name.split("-")[0]
    assert game in GAMES and script.exists()
    code = main(["play", game, "--setup", str(setup), "--script", str(script), "--json", "--strict"])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0 and not any("error" in o for o in out)
    lines = [n for n, text in enumerate(script.read_text(encoding="utf-8").splitlines(), 1)
             if text.strip() and not text.lstrip().startswith("#")]
    assert [o["line"] for o in out] == [0, *lines]


def test_the_play_command_names_no_game():
    """DESIGN.md: no module outside engine/<game>/ names a game; play takes the game from engine.games."""
    source = (ROOT / "device" / "play_cmd.py").read_text(encoding="utf-8")
    named = [g for g in GAMES if re.search(rf"\b{g}\b", source)]
    assert named == []


def test_play_viewer_prints_what_that_seat_s_phone_sees(capsys):
    """Issue 33: `--viewer p2` scripts a hidden-information game as a phone sees it: after p1's hidden roll,
    p2's lines hold none of p1's pips (and no engine events); p1's own lines do."""
    setup, script = str(EXAMPLES / "regidice-2p-victory.setup.json"), str(EXAMPLES / "regidice-2p-victory.jsonl")

    def lines(viewer: str) -> list[dict]:
        assert main(["play", "regidice", "--setup", setup, "--script", script, "--json", "--viewer", viewer]) == 0
        return [json.loads(x) for x in capsys.readouterr().out.splitlines()]

    def p1_pips(line: dict) -> list:
        return [d.get("pips") for d in next(p for p in line["snapshot"]["players"] if p["id"] == "p1")["pool"]]

    mine, theirs = lines("p1"), lines("p2")
    first_roll = next(i for i, line in enumerate(mine) if line.get("snapshot", {}).get("players")
                      and any(p1_pips(line)) and mine[i]["snapshot"]["phase"] == "roll")
    assert any(p1_pips(mine[first_roll])) and not any(p1_pips(theirs[first_roll]))
    assert all(line.get("events") == [] for line in theirs)
