"""Request bodies the box accepts: checked here, at the door, so that nothing further in can fail on them.

The engine checks what an action or a setup means; this module checks what any JSON the box keeps must
be, whatever the game: not nested deeper than `MAX_DEPTH` (Python's parser would raise RecursionError),
numbers that are finite and fit the store and the page's JavaScript (no NaN, no Infinity, no 1e300, no
integer beyond 2^53), strings that are valid Unicode (a lone surrogate cannot be written as UTF-8) and of
sane length, lists and objects of bounded size. A setup is also held against the game's own setup form
(`describe()["setup"]`): a field the form declares as an int must be an int within its min/max, a
choice one of its options, and so on. Each refusal is a `BadPayload` with a code and the path of the
offending value, which the web app turns into a 400 with a translated sentence.
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 24
MAX_STRING = 2000          # characters in one string (names, messages)
MAX_ITEMS = 1000           # entries in one list or object
MAX_SAFE_INT = 2**53 - 1   # larger integers lose digits in the page's JavaScript
MAX_NUMBER = 1e15          # larger floats have no meaning in any game the box keeps
SEED_MAX = MAX_SAFE_INT    # SQLite keeps 64 bits, the page's JavaScript 53: a seed fits both
TEXT_FIELD_MAX = 80        # a free-text setup field (a player's name)


class BadPayload(ValueError):
    """A body the box refuses: `code` names the rule, `where` the path of the value (e.g. setup.players[1])."""

    def __init__(self, code: str, where: str, detail: str = "") -> None:
        super().__init__(f"{code} at {where or 'the top'}" + (f": {detail}" if detail else ""))
        self.code = code
        self.where = where or "body"
        self.detail = detail


def _reject_constant(name: str) -> Any:
    raise BadPayload("bad_number", "", f"{name} is not a number the box accepts")


def _nesting(raw: str) -> int:
    """The deepest nesting of [ and { outside strings (checked before parsing: the parser recurses)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in raw:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif ch in "]}":
            depth -= 1
    return deepest


def parse_object(raw: bytes) -> dict[str, Any]:
    """The JSON object in `raw`, checked by `check_value`; BadPayload otherwise."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadPayload("bad_json", "", "the body is not UTF-8 text") from None
    if not text.strip():
        raise BadPayload("empty_body", "")
    if _nesting(text) > MAX_DEPTH:
        raise BadPayload("too_deep", "", f"more than {MAX_DEPTH} levels of nesting")
    try:
        body = json.loads(text, parse_constant=_reject_constant)
    except BadPayload:
        raise
    except (ValueError, RecursionError) as exc:  # ValueError also covers over-long integer literals
        raise BadPayload("bad_json", "", str(exc)) from None
    if not isinstance(body, dict):
        raise BadPayload("not_object", "")
    check_value(body)
    return body


def check_value(value: Any, where: str = "", depth: int = 0) -> None:
    """Refuse what no game can mean and nothing can store (see the module doc)."""
    if depth > MAX_DEPTH:
        raise BadPayload("too_deep", where)
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int | float):
        _check_number(value, where)
    elif isinstance(value, str):
        _check_text(value, where, MAX_STRING)
    elif isinstance(value, list):
        _check_items(len(value), where, "items")
        for i, item in enumerate(value):
            check_value(item, f"{where}[{i}]", depth + 1)
    elif isinstance(value, dict):
        _check_items(len(value), where, "keys")
        for key, item in value.items():
            _check_text(key, f"{where}.{key}" if where else str(key), MAX_STRING)
            check_value(item, f"{where}.{key}" if where else str(key), depth + 1)
    else:
        raise BadPayload("bad_value", where)


def _check_number(value: int | float, where: str) -> None:
    """A whole number within JavaScript's safe integers; any other number finite and of sensible size."""
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INT:
            raise BadPayload("bad_number", where, "a whole number beyond 2^53")
    elif not math.isfinite(value) or abs(value) > MAX_NUMBER:
        raise BadPayload("bad_number", where, "not a finite number of sensible size")


def _check_items(count: int, where: str, what: str) -> None:
    if count > MAX_ITEMS:
        raise BadPayload("too_many", where, f"more than {MAX_ITEMS} {what}")


def _check_text(text: str, where: str, limit: int) -> None:
    if len(text) > limit:
        raise BadPayload("too_long", where, f"more than {limit} characters")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadPayload("bad_text", where, "not valid Unicode (a lone surrogate)") from None
    if "\x00" in text:
        raise BadPayload("bad_text", where, "a NUL character")


def check_seed(seed: Any) -> int | None:
    """A seed is absent (the box picks one) or a whole number 0..2^53-1."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise BadPayload("bad_seed", "seed")
    return seed


def check_setup(setup: Any, form: list[dict[str, Any]]) -> None:
    """Hold a setup against the game's setup form: each declared field that is present must be of its
    kind and within its bounds. Keys the form does not declare (a mid-game position) are left to the
    engine, which knows their meaning; `check_value` has already bounded them."""
    if not isinstance(setup, dict):
        raise BadPayload("bad_setup", "setup")
    for field in form:
        key = field.get("key")
        if isinstance(key, str) and key in setup:
            check = _FIELD_CHECKS.get(field.get("kind"))
            if check is not None:
                check(setup[key], f"setup.{key}", field)


def _options(field: dict[str, Any]) -> list[Any]:
    return [o.get("id") for o in field.get("options", []) if isinstance(o, dict)]


def _check_int_field(value: Any, where: str, field: dict[str, Any]) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadPayload("setup_not_int", where)
    low, high = field.get("min"), field.get("max")
    if (low is not None and value < low) or (high is not None and value > high):
        raise BadPayload("setup_out_of_range", where, f"{low}..{high}")


def _check_bool_field(value: Any, where: str, field: dict[str, Any]) -> None:
    if not isinstance(value, bool):
        raise BadPayload("setup_not_bool", where)


def _check_text_field(value: Any, where: str, field: dict[str, Any]) -> None:
    if not isinstance(value, str):
        raise BadPayload("setup_not_text", where)
    _check_text(value, where, TEXT_FIELD_MAX)


def _check_choice_field(value: Any, where: str, field: dict[str, Any]) -> None:
    options = _options(field)
    if not isinstance(value, str) or (options and value not in options):
        raise BadPayload("setup_bad_choice", where)


def _check_seats(value: Any, where: str, field: dict[str, Any], options: list[Any]) -> None:
    """A choice per seat (a hero, a monster): each one of the form's options, and, where the form says each
    may be played once (`unique`: King of Tokyo's monsters), no option twice; that refusal's `detail` is the
    option chosen twice, so the page can name it in the phone's language."""
    if not isinstance(value, list):
        raise BadPayload("setup_bad_choice", where)
    seen: set[str] = set()
    for i, seat in enumerate(value):
        picked = seat.get(field.get("choice", "id")) if isinstance(seat, dict) else seat
        if not isinstance(picked, str) or (options and picked not in options):
            raise BadPayload("setup_bad_choice", f"{where}[{i}]")
        if field.get("unique") and picked in seen:
            raise BadPayload("setup_not_unique", f"{where}[{i}]", picked)
        seen.add(picked)


def _check_seat_field(value: Any, where: str, field: dict[str, Any]) -> None:
    _check_seats(value, where, field, _options(field))


# each kind of setup field the games' forms declare, and how a value of it is checked
_FIELD_CHECKS = {"int": _check_int_field, "bool": _check_bool_field, "text": _check_text_field,
                 "choice": _check_choice_field,
                 "seat_choice": _check_seat_field}
