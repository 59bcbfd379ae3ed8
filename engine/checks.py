"""Checks of the values a setup brings in from outside (a phone, a script, a saved game), shared by games.

A setup is untrusted JSON: numbers may arrive as strings, floats, NaN, infinity, 1e300 or lists, names may
hold control characters or lone surrogates (which cannot be written as UTF-8, so the store and the page
would fail later, far from the cause). Each check returns the clean value or raises
IllegalAction("bad_setup", a sentence naming the field and what it takes), so a bad setup is refused where
it is given and nothing is half set up.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from .core import IllegalAction

SEED_MIN = -(1 << 63)
SEED_MAX = (1 << 63) - 1  # a signed 64-bit integer: what SQLite stores and JSON readers keep exactly


def _shown(value: Any) -> str:
    """A short, printable rendering of a refused value for the message (never the whole of a huge one)."""
    text = repr(value)
    return text if len(text) <= 24 else text[:21] + "..."


def whole(value: Any, what: str, low: int, high: int, code: str = "bad_setup") -> int:
    """`value` as a whole number in low..high: a JSON integer, not a string, float, bool or list."""
    if type(value) is not int:
        raise IllegalAction(code, f"{what} must be a whole number from {low} to {high}, not {_shown(value)}.")
    if not low <= value <= high:
        raise IllegalAction(code, f"{what} must be from {low} to {high}; {_shown(value)} is out of range.")
    return value


def seed(value: Any) -> int:
    """A game seed: a whole number that fits in a signed 64-bit integer."""
    return whole(value, "The seed", SEED_MIN, SEED_MAX)


def text(value: Any, what: str, max_len: int, code: str = "bad_setup") -> str:
    """A short name or id: a string of 1..max_len characters, no control characters, valid Unicode.

    Leading and trailing spaces are dropped. A lone surrogate (from a broken client's JSON `\\ud800`) is
    refused here: it cannot be encoded as UTF-8, so it would break the store's writes and the page.
    """
    if not isinstance(value, str):
        raise IllegalAction(code, f"{what} must be text, not {_shown(value)}.")
    value = value.strip()
    if not 1 <= len(value) <= max_len:
        raise IllegalAction(code, f"{what} must be 1 to {max_len} characters long.")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise IllegalAction(code, f"{what} holds a character that is not valid text.") from None
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") and ch != "\u200d" for ch in value):
        raise IllegalAction(code, f"{what} holds a control or unassigned character.")
    return value


def choice(value: Any, what: str, options: tuple[str, ...] | list[str], code: str = "bad_setup") -> str:
    """One of a few named options (a mode, a phase), with the options listed when it is not."""
    if not isinstance(value, str) or value not in options:
        raise IllegalAction(code, f"{what} must be one of {', '.join(options)}, not {_shown(value)}.")
    return value


def mapping(value: Any, what: str, code: str = "bad_setup") -> dict[str, Any]:
    """A JSON object (e.g. statuses by id); None counts as empty."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise IllegalAction(code, f"{what} must be an object, not {_shown(value)}.")
    return value
