"""The contract every game's rules obey, so the table, the page and the CLI need no game-specific code.

A game is a `Rules` object: `setup` builds the first state from a setup dict and a seed, `apply` checks an
action against the rules and returns the next state with the events it caused, `snapshot` renders the
public JSON view that phones receive. `apply` never mutates the state it is given: the match keeps old
states for undo, and a rejected action must change nothing.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

Action = dict[str, Any]
Event = dict[str, Any]
State = Any


class IllegalAction(Exception):
    """An action the rules refuse. `code` is for programs, `message` is a sentence a player understands."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            out["details"] = self.details
        return out


@runtime_checkable
class Rules(Protocol):
    """One game's rules. Implementations live in `engine/<game>/` and are registered in `engine.games`."""

    name: str

    def setup(self, config: dict[str, Any], seed: int) -> State:
        """First state of a game; raises IllegalAction("bad_setup", ...) for an impossible setup."""

    def apply(self, state: State, action: Action) -> tuple[State, list[Event]]:
        """Next state and events, or IllegalAction. Must not mutate `state`."""

    def snapshot(self, state: State) -> dict[str, Any]:
        """Public JSON view: at least `phase`, `active`, `players`, `pending` (a Decision dict or None)."""

    def dump(self, state: State) -> dict[str, Any]:
        """JSON-able form of the state, for checkpoints in the store."""

    def load(self, data: dict[str, Any]) -> State:
        """Inverse of `dump`."""


def decision(player: str | None, kind: str, prompt: str, options: list[dict[str, Any]],
             **extra: Any) -> dict[str, Any]:
    """A pending decision any client can render without knowing the game.

    `options` are `{"label": str, "action": Action}` (plus optional `"hint"`): answering the decision means
    submitting one option's action unchanged. `extra` may describe free inputs (e.g. dice entry).
    """
    return {"player": player, "kind": kind, "prompt": prompt, "options": options, **extra}


def require(condition: bool, code: str, message: str, **details: Any) -> None:
    """Raise IllegalAction unless `condition` holds; keeps rule checks one line each."""
    if not condition:
        raise IllegalAction(code, message, **details)


def action_type(action: Any) -> str:
    """The action's `type`, or IllegalAction for anything that is not an action object."""
    if not isinstance(action, dict):
        raise IllegalAction("bad_action", "An action must be a JSON object with a \"type\".")
    kind = action.get("type")
    if not isinstance(kind, str) or not kind:
        raise IllegalAction("bad_action", "An action must have a \"type\" naming what to do.")
    return kind
