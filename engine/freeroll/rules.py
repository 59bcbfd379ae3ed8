"""The free-roll game: every roll on the tray is recorded; nothing else is kept.

It is the smallest game that exercises the whole pipeline (camera -> reader -> table -> store -> page),
and the fallback when nobody has set up a real game yet.
"""

from __future__ import annotations

from typing import Any

from ..core import Action, Event, GameDescription, IllegalAction, decision, require
from ..kernel import GameRules
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


def record_roll(s: dict[str, Any], action: Action) -> list[Event]:
    """A roll of any dice, by camera or by hand: counted and kept for the page."""
    dice = parse_dice(action.get("dice"))
    source = action.get("source", "manual")
    require(source in ("camera", "manual"), "bad_source", "A roll comes from the camera or by hand.")
    number = s["count"] + 1
    roll = {"n": number, "dice": dice, "total": sum(d["value"] for d in dice), "source": source}
    if "image" in action:
        roll["image"] = str(action["image"])
    s["count"] = number
    s["rolls"] = [*s["rolls"], roll][-KEEP:]
    return [{"type": "rolled", "roll": roll}]


class FreeRoll(GameRules):
    """Rules object for the free-roll game (see engine.core.Rules; the dispatch is the kernel's)."""

    name = "freeroll"
    title = "The free-roll game"
    handlers = {"roll": record_roll}

    def setup(self, config: dict[str, Any], seed: int) -> dict[str, Any]:
        return {"count": 0, "rolls": [], "title": str(config.get("title", "Free roll"))}

    def copy(self, state: dict[str, Any]) -> dict[str, Any]:
        return dict(state)  # its one handler replaces what it changes: the old rolls are shared

    def describe(self) -> GameDescription:
        return description()

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
