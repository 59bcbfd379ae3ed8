"""The Regidice rules object (engine.core.Rules): setup, apply, the per-viewer snapshot, options, dump/load."""

from __future__ import annotations

from typing import Any

from ..core import Action, GameDescription
from ..kernel import GameRules, public_action
from . import flow, view
from .describe import description
from .state import S, new_state


class Regidice(GameRules):
    """Co-operative Regidice for 2-4 players (reference/regidice.md); its rolls are hidden until Collect."""

    name = "regidice"
    title = "Regidice"
    handlers = flow.HANDLERS
    over_message = "The game is over: start a new one."

    def setup(self, config: dict[str, Any], seed: int) -> S:
        s = new_state(config, seed)
        flow.start_round(s, [])
        s["events"] = []
        return s

    def describe(self) -> GameDescription:
        return description()

    def snapshot(self, state: S, viewer: str | None = None) -> dict[str, Any]:
        return view.snapshot(state, viewer)

    def options(self, state: S) -> list[Action]:
        return [o["action"] for o in view.options_view(state)] if state["phase"] != "over" else []

    def default_action(self, state: S) -> Action | None:
        if state["phase"] == "over":
            return None
        for o in view.options_view(state):
            if o.get("default"):
                return o["action"]
        return None

    def public_action(self, action: Action) -> Action:
        """An action as the shared log shows it to every phone: a roll keeps its count and colours, never its
        pips (they are hidden until Collect; the owner sees them in the snapshot)."""
        if action.get("type") != "roll":
            return public_action(action)
        out = {k: action[k] for k in ("type", "player", "source") if k in action}
        if isinstance(action.get("dice"), list):
            out["dice"] = [{"colour": _colour_of(die)} for die in action["dice"]]
        return out



def _colour_of(die: Any) -> str | None:
    """The colour of a die as a roll action gives it (a reading object or "R3"), never its pips."""
    if isinstance(die, dict):
        colour = die.get("colour")
        return colour if isinstance(colour, str) else None
    if isinstance(die, str) and die:
        return {"R": "red", "B": "blue", "Y": "yellow", "K": "black"}.get(die[0].upper())
    return None
