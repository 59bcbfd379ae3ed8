"""The example games of docs/examples/kingoftokyo-* play to their winner through engine.match.Match and
`dicesight play`, and replaying their logs gives the same game (docs/actions.md, King of Tokyo: Examples)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kothelp import R

from device.cli import main
from engine.match import Match

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
WINNERS = {"kingoftokyo-4-monsters": ["bo"], "kingoftokyo-6-monsters-bay": ["ed"]}


def actions(name: str) -> list[dict]:
    lines = (EXAMPLES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("name", sorted(WINNERS))
def test_example_game_reaches_its_winner(name: str) -> None:
    setup = json.loads((EXAMPLES / f"{name}.setup.json").read_text(encoding="utf-8"))
    match = Match(R, setup, setup["seed"])
    kinds, events = set(), []
    for action in actions(name):
        match.submit(action)
        kinds.add(action["type"])
        events += match.last_events
    s = match.state
    assert s["over"] and s["winners"] == WINNERS[name]
    assert {"buy", "yield", "stay", "sweep", "end"} <= kinds
    bay = any(e["type"] == "entered" and e["place"] == "bay" for e in events)
    assert bay == ("6-monsters" in name)  # the Bay is used with 5-6 monsters only
    assert any(e["type"] == "bought" for e in events) and any(e["type"] == "yielded" for e in events)
    again = Match.replay(R, setup, setup["seed"], list(match.entries))
    assert again.state == s


@pytest.mark.parametrize("name", sorted(WINNERS))
def test_play_command_plays_the_example(capsys: pytest.CaptureFixture[str], name: str) -> None:
    code = main(["play", "kingoftokyo", "--setup", str(EXAMPLES / f"{name}.setup.json"),
                 "--script", str(EXAMPLES / f"{name}.jsonl"), "--json", "--strict"])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0 and out[-1]["snapshot"]["winners"] == WINNERS[name]
