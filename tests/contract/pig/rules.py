"""Pig for two players: on your turn roll a die as often as you like; a 1 loses the turn's points and ends
the turn, anything else adds to them; hold to bank them. The first to `GOAL` points wins."""

from __future__ import annotations

from typing import Any

from engine import rng
from engine.core import Action, Event, GameDescription, decision, require
from engine.describe import load_game_json, pip_d6
from engine.kernel import GameRules

GOAL = 12
S = dict[str, Any]


def roll(s: S, action: Action) -> list[Event]:
    """A die thrown (by the camera or by hand: `dice`), or rolled by the box when none is given."""
    dice = action.get("dice")
    if dice is None:
        dice = rng.roll(s, 1)
    require(isinstance(dice, list) and len(dice) == 1 and dice[0] in range(1, 7), "bad_dice", "Pig rolls one die, 1-6.")
    value = dice[0]
    player = s["players"][s["active"]]["id"]
    if value == 1:
        s["turn"] = 0
        s["active"] = 1 - s["active"]
        return [{"type": "pigged", "player": player}]
    s["turn"] += value
    return [{"type": "rolled", "player": player, "value": value}]


def hold(s: S, action: Action) -> list[Event]:
    """Bank the turn's points; the other player's turn (or the end)."""
    require(s["turn"] > 0, "roll_first", "Roll at least once before holding.")
    me = s["players"][s["active"]]
    me["score"] += s["turn"]
    s["turn"] = 0
    if me["score"] >= GOAL:
        s["phase"] = "over"
        s["winner"] = me["id"]
        return [{"type": "won", "player": me["id"]}]
    s["active"] = 1 - s["active"]
    return [{"type": "held", "player": me["id"], "score": me["score"]}]


class Pig(GameRules):
    name = "pig"
    title = "Pig"
    handlers = {"roll": roll, "hold": hold}

    def setup(self, config: dict[str, Any], seed: int) -> S:
        ids = [str(p.get("id", f"p{k + 1}")) for k, p in enumerate(config.get("players") or [{}, {}])][:2]
        require(len(ids) == 2 and ids[0] != ids[1], "bad_setup", "Pig is for two players with distinct ids.")
        return {"rng": rng.seed_state(seed), "players": [{"id": i, "score": 0} for i in ids], "active": 0,
                "turn": 0, "phase": "turn", "winner": None}

    def options(self, state: S) -> list[Action]:
        if self.is_over(state):
            return []
        return [{"type": "roll"}] + ([{"type": "hold"}] if state["turn"] else [])

    def default_action(self, state: S) -> Action | None:
        return None if self.is_over(state) else {"type": "roll"}

    def snapshot(self, state: S, viewer: str | None = None) -> dict[str, Any]:
        active = state["players"][state["active"]]["id"]
        pending = None if self.is_over(state) else decision(
            active, "turn", "Roll or hold.", [{"label": "Roll", "action": {"type": "roll"}}],
            input={"type": "dice", "count": 1, "faces": [1, 2, 3, 4, 5, 6], "dice_sets": ["d6"], "player": active})
        return {"phase": state["phase"], "active": active, "players": [dict(p) for p in state["players"]],
                "turn": state["turn"], "winner": state["winner"], "pending": pending}

    def describe(self) -> GameDescription:
        data = load_game_json(__package__)
        return {"name": "pig", "title": data["title"], "modes": data["modes"], "start": data["start"],
                "setup": [], "phases": data["phases"], "dice_sets": {"d6": pip_d6("d6", data["title"])},
                "catalogue": {}, "texts": {}, "hidden": False, "scoreboard": data["scoreboard"]}
