"""The example duel of docs/examples/magewars-duel.* plays to its winner through engine.match.Match, and the
`dicesight play magewars` command a rules writer would run prints a snapshot per line with no refusal."""

from __future__ import annotations

import json
from pathlib import Path

from mwhelp import RULES

from device import cli
from engine.match import Match

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def _example() -> tuple[dict, list[dict]]:
    setup = json.loads((EXAMPLES / "magewars-duel.setup.json").read_text(encoding="utf-8"))
    lines = (EXAMPLES / "magewars-duel.jsonl").read_text(encoding="utf-8").splitlines()
    return setup, [json.loads(line) for line in lines if line.strip()]


def test_the_example_duel_ends_with_a_winner():
    setup, actions = _example()
    m = Match(RULES, setup, 1)
    for action in actions:
        m.submit(action)
    assert m.state["winner"] == "p2"
    assert m.state["objects"]["p1"]["destroyed"]
    assert m.state["round"] > 1  # it went through channeling and upkeep more than once


def test_dicesight_play_runs_the_example(capsys):
    code = cli.main(["play", "magewars", "--setup", str(EXAMPLES / "magewars-duel.setup.json"),
                     "--script", str(EXAMPLES / "magewars-duel.jsonl"), "--json"])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0
    assert not [line for line in out if "error" in line], "no line of the example is refused"
    assert out[-1]["snapshot"]["winner"] == "p2"
