"""The Dice Throne `Rules` object (engine.core.Rules): setup, apply, snapshot, dump, load."""

from __future__ import annotations

from typing import Any

from ..core import Action, Event, GameDescription
from ..kernel import GameRules
from . import asks, flow, story, view
from . import state as st
from .actions import HANDLERS
from .describe import description
from .view import default_action, snapshot


class DiceThrone(GameRules):
    """Dice Throne 1v1, 2v2 and 3-player King of the Hill, heroes as data (see docs/actions.md)."""

    name = "dicethrone"
    title = "Dice Throne"
    handlers = HANDLERS
    after_end = ("adjust",)  # a correction by hand stays possible after the end

    def setup(self, config: dict[str, Any], seed: int) -> st.S:
        s = st.setup(config, seed)
        flow.enter(s, s["phase"])
        asks.present(s)
        return s

    def is_over(self, state: st.S) -> bool:
        return state["winner"] is not None or state["draw"]

    def copy(self, state: st.S) -> st.S:
        return st.clone(state)  # copy-on-write: several times faster than a deep copy (see st.clone)

    def after(self, old: st.S, s: st.S, action: Action, events: list[Event]) -> list[Event]:
        if s["winner"] is not None or s["draw"]:  # a mid-effect defeat (an exploding keg, a card's damage) ends everything at once
            s["pending"] = None
            s["phase"] = "over"
            s["rp"] = None
        if "asks" in s:   # an effect asked a player something: that question is the next decision
            asks.present(s)
        story.record(old, s, events)   # what the move caused, for the page's log and recap
        return events

    def describe(self) -> GameDescription:
        return description()

    def snapshot(self, state: st.S, viewer: str | None = None) -> dict[str, Any]:
        return snapshot(state)  # no hidden information: every phone sees the same

    def options(self, state: st.S) -> list[Action]:
        """Every legal answer to the pending decision, as every game gives them: bare actions (the labelled
        options the page shows are `view.options`)."""
        return [o["action"] for o in view.options(state)]

    # The pending decision's usual answer (the box's Next button): a plain function of the state, bound as a
    # static method to spare a call on every decision.
    default_action = staticmethod(default_action)

    def dump(self, state: st.S) -> dict[str, Any]:
        return st.deep_copy(state)

    def load(self, data: dict[str, Any]) -> st.S:
        return st.deep_copy(data)
