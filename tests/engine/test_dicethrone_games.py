"""Full scripted games from docs/examples/ (the files `dicesight play dicethrone` takes), through Match.

Each script is a whole game as a table would log it: camera rolls with explicit dice, keeps, abilities,
defenses, spends, upgrades, the Next button's defaults, to a winner.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.games import get_rules
from engine.match import Match

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
RULES = get_rules("dicethrone")


def run(name: str) -> tuple[Match, list[dict]]:
    setup = json.loads((EXAMPLES / f"{name}.setup.json").read_text(encoding="utf-8"))
    m = Match(RULES, setup, seed=setup.get("seed", 0))
    events = []
    for line in (EXAMPLES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue                               # a comment line (docs/actions.md, scripted play)
        m.submit(json.loads(line))                 # every line is legal: no IllegalAction
        events += m.last_events
    return m, events


def test_documented_1v1_script():
    """docs/actions.md example: Deadeye 6 + Reload (5 -> 3) = 9; Reckless 15 against Duel's half: 7, recoil 4."""
    m, _ = run("dicethrone-1v1")
    s = m.snapshot()
    hp = {p["id"]: p["health"] for p in s["players"]}
    assert hp == {"ann": 43, "bo": 37}
    assert s["active"] == "ann" and s["phase"] == "main1" and s["turn"] == 3


@pytest.mark.parametrize("name, winners, mode", [
    ("dicethrone-1v1-full", ["bo"], "1v1"),
    ("dicethrone-2v2-full", ["ann", "cy"], "2v2"),
    ("dicethrone-koth-full", ["ann"], "koth"),
])
def test_full_scripted_game_to_a_winner(name, winners, mode):
    """Rules §1 win condition: reduce every opponent to 0; the game then waits for nothing."""
    m, events = run(name)
    s = m.snapshot()
    assert s["mode"] == mode
    assert s["winners"] == winners and s["draw"] is False and s["pending"] is None
    for p in s["players"]:
        assert (p["health"] > 0) is (p["id"] in winners)
        assert 0 <= p["cp"] <= 15
    turns = [e for e in events if e["type"] == "turn"]
    assert len(turns) == s["turn"] - 1             # every turn after the first announced
    if mode == "koth":                             # one player falls first, the game goes on
        defeated = [e for e in events if e["type"] == "defeated"]
        assert len(defeated) == 2 and events.index(defeated[0]) < events.index(defeated[1]) - 1
    if mode == "2v2":                              # one shared dial per team
        team = {p["id"]: p["health"] for p in s["players"]}
        assert team["ann"] == team["cy"] and team["bo"] == team["di"] == 0
    assert any(e["type"] == "upgraded" for e in events)
    assert any(e["type"] == "defense" for e in events)


@pytest.mark.parametrize("name", ["dicethrone-1v1-full", "dicethrone-2v2-full", "dicethrone-koth-full"])
def test_scripted_game_replays_from_its_log(name):
    """DESIGN: state = replay of the log; undoing the winning blow reopens the game."""
    m, _ = run(name)
    again = Match.replay(RULES, m.setup, m.seed, m.entries)
    assert again.snapshot() == m.snapshot()
    m.submit({"type": "undo"})
    assert m.snapshot()["pending"] is not None and m.snapshot()["winner"] is None
