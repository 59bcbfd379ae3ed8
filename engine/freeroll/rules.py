"""The free-roll game: every roll on the tray is recorded; nothing else is kept.

It is the smallest game that exercises the whole pipeline (camera -> reader -> table -> store -> page),
and the fallback when nobody has set up a real game yet.
"""

from __future__ import annotations

from typing import Any

from ..core import Action, Event, GameDescription, IllegalAction, action_type, decision, require
from .describe import description

KEEP = 30  # rolls kept in the state for the page; the log keeps them all


def parse_dice(raw: Any, *, low: int = 1, high: int = 6) -> list[dict[str, Any]]:
    """Dice of a roll action as `{"value": int, ...}` dicts; accepts bare ints for hand entry."""
    require(isinstance(raw, list) and len(raw) > 0, "bad_dice", "A roll needs a list of at least one die.")
    require(len(raw) <= 40, "bad_dice", "A roll can hold at most 40 dice.")
    dice = []
    for die in raw:
        if isinstance(die, bool):
            raise IllegalAction("bad_dice", "Each die must be a number or an object with a \"value\".")
        if isinstance(die, int):
            die = {"value": die}
        require(isinstance(die, dict) and isinstance(die.get("value"), int)
                and not isinstance(die.get("value"), bool),
                "bad_dice", "Each die must be a number or an object with a \"value\".")
        require(low <= die["value"] <= high, "bad_dice",
                f"A die shows {low} to {high}; {die['value']} is not a face.")
        dice.append({k: die[k] for k in ("value", "face", "colour") if k in die})
    return dice


class FreeRoll:
    """Rules object for the free-roll game (see engine.core.Rules)."""

    name = "freeroll"

    def setup(self, config: dict[str, Any], seed: int) -> dict[str, Any]:
        return {"count": 0, "rolls": [], "title": str(config.get("title", "Free roll"))}

    def apply(self, state: dict[str, Any], action: Action) -> tuple[dict[str, Any], list[Event]]:
        kind = action_type(action)
        if kind != "roll":
            raise IllegalAction("unknown_action", f"The free-roll game only records rolls, not \"{kind}\".")
        dice = parse_dice(action.get("dice"))
        source = action.get("source", "manual")
        require(source in ("camera", "manual"), "bad_source", "A roll comes from the camera or by hand.")
        number = state["count"] + 1
        roll = {"n": number, "dice": dice, "total": sum(d["value"] for d in dice), "source": source}
        if "image" in action:
            roll["image"] = str(action["image"])
        new = {**state, "count": number, "rolls": [*state["rolls"], roll][-KEEP:]}
        return new, [{"type": "rolled", "roll": roll}]

    def describe(self) -> GameDescription:
        return description()

    def options(self, state: dict[str, Any]) -> list[Action]:
        """A roll takes any dice, so there is no finite list of answers; random players roll 1-5 dice."""
        return []

    def default_action(self, state: dict[str, Any]) -> Action | None:
        return None

    def snapshot(self, state: dict[str, Any], viewer: str | None = None) -> dict[str, Any]:
        return {
            "title": state["title"],
            "phase": "roll",
            "active": None,
            "players": [],
            "rolls": list(reversed(state["rolls"])),
            "count": state["count"],
            "pending": decision(None, "roll", "Roll the dice into the tray, or enter them by hand.", [],
                                input={"type": "dice", "count": None, "count_max": 40, "faces": [1, 2, 3, 4, 5, 6],
                                       "dice_sets": ["d6"], "player": None}),
        }

    def dump(self, state: dict[str, Any]) -> dict[str, Any]:
        return state

    def load(self, data: dict[str, Any]) -> dict[str, Any]:
        return data
