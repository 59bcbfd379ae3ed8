"""The contract every game's rules obey, so the table, the page and the CLI need no game-specific code.

A game is a `Rules` object: `setup` builds the first state from a setup dict and a seed, `apply` checks an
action against the rules and returns the next state with the events it caused, `snapshot` renders the
public JSON view that phones receive. `apply` never mutates the state it is given: the match keeps old
states for undo, and a rejected action must change nothing.
"""

from __future__ import annotations

from typing import Any, NotRequired, Protocol, TypedDict, runtime_checkable

Action = dict[str, Any]
Event = dict[str, Any]
State = Any

# -- how a game describes itself ------------------------------------------------------------------------
# The page, the panel, the CLI and the camera read a game only through `Rules.describe()`: no module
# outside `engine/<game>/` names a game. Everything below is plain JSON (str keys, lists, numbers), so the
# web app can ship it to phones as it is and the box can hand a dice set to `vision/` as a plain dict.

LANGS = ("en", "zh-TW", "ko")
Text = dict[str, str]
"""Words a player reads, by language: {"en": ..., "zh-TW": ..., "ko": ...}. "en" is always present; a
missing language falls back to "en" (and the untranslated-string tests say where)."""


class FaceSpec(TypedDict):
    """One side of a die. `index` 1..n is the physical side (what opposite-face tables and teaching name);
    `name` is the symbol id the game reads ("3", "claw", "sword"); `value` its number or None; `glyph`
    how the renderer draws it ("pips:N", "text:S", "icon:NAME", "blank", "icon:NAME+text:S")."""

    index: int
    name: str
    value: int | None
    glyph: str
    label: NotRequired[Text]


class DiceSetSpec(TypedDict):
    """A kind of die, as data the reader can use without knowing the game. `opposite` maps a side index
    (as a string key: JSON) to the index of the side opposite it, so a reader under the tray can turn the
    face on the glass into the top face. `kind`: "pips" (count), "icons", "numerals". `shape`: the outline
    of a face as the camera sees it ("square", "pentagon", "triangle"). `colours`: body colours the game
    tells apart (e.g. Regidice's red/blue/yellow/black), empty when colour does not matter."""

    id: str
    name: Text
    faces: list[FaceSpec]
    opposite: dict[str, int]
    kind: str
    shape: str
    colours: NotRequired[list[str]]


class PhaseSpec(TypedDict):
    """A phase the snapshot's `phase` may name, in turn order. `led` is the slot (0-4) of the panel's row
    of five phase LEDs that this phase lights, or None; the page labels each slot with the phases on it."""

    id: str
    name: Text
    led: int | None


class ModeSpec(TypedDict):
    """A way to play (1v1, 2v2, King of the Hill...), with the player counts it takes (inclusive)."""

    id: str
    name: Text
    players: list[int]  # [min, max]


class SetupField(TypedDict):
    """One field of the setup form. `kind`: "choice" (one of `options`), "seat_choice" (per seat, one of
    `options`, e.g. a hero per player; `unique` when two seats may not pick the same), "text", "int"
    (with `min`/`max`), "bool". `options` rows are {"id": ..., "name": Text} plus anything the game's
    board view wants (a hero's dice faces...). `key` is where the value goes in the setup JSON."""

    key: str
    kind: str
    name: Text
    options: NotRequired[list[dict[str, Any]]]
    unique: NotRequired[bool]
    default: NotRequired[Any]
    min: NotRequired[int]
    max: NotRequired[int]
    modes: NotRequired[list[str]]  # only shown for these modes


class ScoreSpec(TypedDict):
    """A number the venue board shows for each player (life, VP, mana...): `key` is the path of the value in a
    player's public snapshot ("health", "mage.left"), `max` the path of its maximum (or absent), `text` the key
    of its name in the game's `texts`; `life` marks the one whose loss is damage (the venue's events)."""

    key: str
    text: str
    max: NotRequired[str]
    life: NotRequired[bool]


class Scoreboard(TypedDict):
    """How a board of many tables (`dicesight venue`) reads the game's public snapshot without naming the game:
    the `scores` per player, whose turn it is (`turn`: a path to a player id; the pending decision's player when
    that is null) and who won (`winners`: a path to a list of player ids or one id, null when the game has no
    winner; `everyone`: the value there that means every player won, as in a co-op game)."""

    scores: list[ScoreSpec]
    turn: str
    winners: str | None
    everyone: NotRequired[str]


class GameDescription(TypedDict):
    """All a client needs to offer, set up, show and read a game without game-specific code.

    - `dice_sets`: every set the game throws, by id; a pending dice input names which to read.
    - `catalogue`: named things the page shows with their rule text, by kind ("heroes", "cards",
      "statuses", "monsters"...), each row {"id": ..., "name": Text, "text": Text, ...}.
    - `texts`: every other string the game shows (phase prompts, refusals by IllegalAction code, log
      templates with {placeholders}) by key, as Text.
    - `hidden`: True when some of a player's state must not reach other phones before a reveal
      (then `snapshot(state, viewer)` filters).
    - `scoreboard`: what a venue board shows of a table (Scoreboard above), read from the public snapshot.
    - `start`: how the game picks who starts (issue 35: the game's to describe, the page only draws it):
      `choose` (the setup may name the first player, `setup.start`), `tray` (a roll-off on the tray before
      the game: `{"set", "sides"}`, one die each, highest starts, ties roll again; None when the game has
      no such rule) and `otherwise` (Text: what happens when nobody is named).
    """

    name: str
    title: Text
    modes: list[ModeSpec]
    setup: list[SetupField]
    phases: list[PhaseSpec]
    dice_sets: dict[str, DiceSetSpec]
    catalogue: dict[str, list[dict[str, Any]]]
    texts: dict[str, Text]
    hidden: bool
    scoreboard: Scoreboard
    start: dict[str, Any]


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

    def describe(self) -> GameDescription:
        """The game's self-description (above). Constant for a given version of the game: callers cache it."""

    def snapshot(self, state: State, viewer: str | None = None) -> dict[str, Any]:
        """JSON view for phones: at least `phase`, `active`, `players`, `pending` (a Decision dict or None).

        `viewer` is the player id a paired phone is bound to, or None for the shared screen and unpaired
        watchers. A game with hidden information leaves out what `viewer` may not see yet; others ignore it.
        A pending decision that waits for dice carries `input: {"type": "dice", "count": N or None,
        "dice_sets": [set ids the throw may hold], "player": whose dice}`.
        """

    def options(self, state: State) -> list[Action]:
        """Every legal answer to the pending decision (random players, property tests, the page)."""

    def default_action(self, state: State) -> Action | None:
        """What the box's Next button submits: the pending decision's usual answer, or None."""

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
    """The action's `type`, or IllegalAction for anything that is not an action object.

    The one check of an action's shape that every game and `Match` share. It runs on every action (the
    bench plays ~100k a second), so the common case is a dict lookup and two type tests.
    """
    if type(action) is dict:
        kind = action.get("type")
        if type(kind) is str and kind:
            return kind
    elif not isinstance(action, dict):
        raise IllegalAction("bad_action", "An action must be a JSON object with a \"type\".")
    kind = action.get("type")
    if not isinstance(kind, str) or not kind:
        raise IllegalAction("bad_action", "An action must have a \"type\" naming what to do.")
    return kind
