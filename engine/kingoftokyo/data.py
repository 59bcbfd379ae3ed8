"""King of Tokyo data: dice faces, monsters and the 66 power cards, loaded once from the package's JSON files.

The rules read cards only through their `effect` data (cards.json), so a card's numbers live in one place
and the handler table in `cards.py` stays small.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

FACES = ("1", "2", "3", "heart", "energy", "claw")
"""Side index 1..6 of a King of Tokyo die -> the symbol the rules read (the reference's encoding:
1, 2, 3 = numbers, 4 = heart, 5 = energy, 6 = claw)."""

FACE_INDEX = {f: i for i, f in enumerate(FACES, start=1)}
ALIASES = {"h": "heart", "e": "energy", "c": "claw", "smash": "claw", "attack": "claw", "paw": "claw",
           "lightning": "energy", "one": "1", "two": "2", "three": "3"}
START_HEALTH = 10
MAX_HEALTH = 10
WIN_VP = 20
BLACK_DICE = 6


def _load(name: str) -> dict[str, Any]:
    return json.loads(resources.files(__package__).joinpath(name).read_text(encoding="utf-8"))


@cache
def game_json() -> dict[str, Any]:
    return {k: v for k, v in _load("game.json").items() if not k.startswith("_")}


@cache
def cards() -> dict[str, dict[str, Any]]:
    """Every distinct card by id (64 names; Extra Head and Evacuation Orders have count 2)."""
    return {row["id"]: row for row in _load("cards.json")["cards"]}


@cache
def deck_ids() -> tuple[str, ...]:
    """The 66 cards of the deck, one id per physical card, in data order (shuffled at setup)."""
    return tuple(cid for cid, row in cards().items() for _ in range(row["count"]))


@cache
def monsters() -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in game_json()["monsters"]}


def face_of(raw: Any) -> str | None:
    """The face a die shows from hand entry or a camera reading: a face name, an index 1..6, or a reading
    {"face": ..., "value": ...} (the face name wins over the value)."""
    if isinstance(raw, dict):
        if "face" in raw:
            got = face_of(raw["face"])
            if got is not None:
                return got
        raw = raw.get("value")
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return FACES[raw - 1] if 1 <= raw <= 6 else None
    if isinstance(raw, str):
        name = raw.strip().lower()
        name = ALIASES.get(name, name)
        return name if name in FACE_INDEX else None
    return None
