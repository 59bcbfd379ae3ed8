"""What every game's rules share: one dispatch, one handler signature, default dump/load, the log's view.

A game subclasses `GameRules`, names its moves in `handlers` and fills in what is its own; `apply` is then
the same for every game (the order matters, so it is written once):

1. the action's shape (`action_type`), 2. its handler, or `unknown_action` naming the known ones,
3. `game_over` once the game is over (`is_over`; `after_end` lists the corrections still allowed),
4. a private copy of the state (`copy`; a refused action changes nothing),
5. the game's checks before any move (`before`), the handler, the game's follow-up (`after`).

A handler is `handler(s, action) -> events`: it changes `s` (the private copy) in place and returns what
happened, or None when the game's `after` tells the events itself (Mage Wars reads them off its log). A
field of the wrong shape that no check caught is refused as `malformed`, never a crash of the box.

Secrets are declared here too (issue 35): `public_action` is how the shared log shows an action to
every phone, and a game with hidden information describes itself `hidden` and filters its own snapshot by
viewer; the table (device.table.Table.snapshot) is the one place that applies them.

Players are looked up here too, one way for every game: a state keeps its players as `s["players"]`, a
list of objects with an `id`, and a seat is an index into it. `seat_of` refuses an unknown id with the one
refusal every game shares (`unknown_player`); `find_seat` answers None, for a game that refuses in words of
its own (King of Tokyo's `bad_player`) or where no seat is an answer (a setup's optional field).
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Mapping
from typing import Any

from .core import Action, Event, GameDescription, IllegalAction, action_type

State = dict[str, Any]
Handler = Callable[[State, Action], "list[Event] | None"]
MALFORMED = (TypeError, ValueError, KeyError, AttributeError, IndexError)


def plain_copy(data: Any) -> Any:
    """A deep copy of plain JSON data, fast (marshal); a game with a cheaper copy overrides `copy`."""
    return marshal.loads(marshal.dumps(data))


def public_action(action: Action) -> Action:
    """An action as the shared log shows it: bulky evidence (camera readings) left out."""
    return {k: v for k, v in action.items() if k != "evidence"}


def player_ids(s: State) -> list[str]:
    """Every player's id, in seat order."""
    return [p["id"] for p in s["players"]]


def find_seat(s: State, pid: Any) -> int | None:
    """The seat of the player with id `pid`, or None when no player has it."""
    for seat, p in enumerate(s["players"]):
        if p["id"] == pid:
            return seat
    return None


def seat_of(s: State, pid: Any) -> int:
    """The seat of the player with id `pid`; an id no player has is refused (`unknown_player`)."""
    seat = find_seat(s, pid)
    if seat is None:
        raise IllegalAction("unknown_player", f"There is no player \"{pid}\" in this game.")
    return seat


class GameRules:
    """The base of every game's rules object (engine.core.Rules): the kernel's dispatch and defaults."""

    name: str = ""
    title: str = ""  # the game's name in refusals ("Mage Wars has no action ...")
    handlers: Mapping[str, Handler] = {}
    after_end: tuple[str, ...] = ()  # actions still allowed once the game is over (corrections)
    over_message: str = "The game is over."

    # -- the one dispatch ---------------------------------------------------------------------------
    def apply(self, state: State, action: Action) -> tuple[State, list[Event]]:
        """Next state and events, or IllegalAction; never changes `state`."""
        kind = action_type(action)
        handler = self.handlers.get(kind)
        if handler is None:
            raise IllegalAction("unknown_action", f"{self.title or self.name} has no action \"{kind}\" "
                                f"(known: {', '.join(sorted(self.handlers))}).")
        if kind not in self.after_end and self.is_over(state):
            raise IllegalAction("game_over", self.over_message)
        s = self.copy(state)
        try:
            self.before(s, kind, action)
            events = handler(s, action)
            events = self.after(state, s, action, events or [])
        except MALFORMED as err:
            raise IllegalAction("malformed", f"The \"{kind}\" action has a field of the wrong shape "
                                f"({type(err).__name__}: {err}).") from err
        return s, events

    # -- what a game may fill in ----------------------------------------------------------------------
    def is_over(self, state: State) -> bool:
        return state.get("phase") == "over"

    def copy(self, state: State) -> State:
        return plain_copy(state)

    def before(self, s: State, kind: str, action: Action) -> None:
        """Checks every move of the game shares (whose turn it is, a busy state), on the private copy."""

    def after(self, old: State, s: State, action: Action, events: list[Event]) -> list[Event]:
        """What follows every move (a flow that runs on, a sweep); returns the move's events."""
        return events

    def options(self, state: State) -> list[Action]:
        return []

    def default_action(self, state: State) -> Action | None:
        return None

    def dump(self, state: State) -> dict[str, Any]:
        return plain_copy(state)

    def load(self, data: dict[str, Any]) -> State:
        return plain_copy(data)

    def public_action(self, action: Action) -> Action:
        return public_action(action)

    def snapshot(self, state: State, viewer: str | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def describe(self) -> GameDescription:
        raise NotImplementedError
