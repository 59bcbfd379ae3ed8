"""The Dice Throne `Rules` object (engine.core.Rules): setup, apply, snapshot, dump, load."""

from __future__ import annotations

from typing import Any

from ..core import Action, Event, GameDescription, IllegalAction, action_type
from . import asks, flow, story
from . import state as st
from .actions import dispatch
from .describe import description
from .view import default_action, options, snapshot


class DiceThrone:
    """Dice Throne 1v1, 2v2 and 3-player King of the Hill, heroes as data (see docs/actions.md)."""

    name = "dicethrone"

    def setup(self, config: dict[str, Any], seed: int) -> st.S:
        s = st.setup(config, seed)
        flow.enter(s, s["phase"])
        asks.present(s)
        return s

    def apply(self, state: st.S, action: Action) -> tuple[st.S, list[Event]]:
        kind = action_type(action)  # the clear IllegalAction for anything that is not an action
        s = st.clone(state)  # handlers mutate the copy; an IllegalAction discards it
        try:
            events = dispatch(s, kind, action)
        except (TypeError, ValueError, KeyError, AttributeError, IndexError) as err:
            # A field of the wrong shape that no check caught: refuse it, the state is untouched.
            raise IllegalAction("malformed", f"The \"{kind}\" action has a field of the wrong shape "
                                f"({type(err).__name__}: {err}).") from err
        if s["winner"] is not None or s["draw"]:  # st.over(s): a mid-effect defeat (an exploding keg, a card's damage) ends everything at once
            s["pending"] = None
            s["phase"] = "over"
            s["rp"] = None
        if "asks" in s:   # an effect asked a player something: that question is the next decision
            asks.present(s)
        story.record(state, s, events)   # what the move caused, for the page's log and recap
        return s, events

    def describe(self) -> GameDescription:
        return description()

    def snapshot(self, state: st.S, viewer: str | None = None) -> dict[str, Any]:
        return snapshot(state)  # no hidden information: every phone sees the same

    # Legal options of the pending decision (what random players and the Next button pick from), and its
    # default option (the box's Next button), cheaply: `RULES.options(state)`, `RULES.default_action(state)`.
    # Plain functions of the state, bound as static methods to spare a call on every decision.
    options = staticmethod(options)
    default_action = staticmethod(default_action)

    def dump(self, state: st.S) -> dict[str, Any]:
        return st.deep_copy(state)

    def load(self, data: dict[str, Any]) -> st.S:
        return st.deep_copy(data)
