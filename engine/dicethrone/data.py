"""Package data other than heroes: the status table, the generic cards, companions' rules, loaded once."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from .heroes import norm


def _load(name: str) -> dict[str, Any]:
    return json.loads(resources.files(__package__).joinpath(name).read_text(encoding="utf-8"))


@cache
def statuses() -> dict[str, dict[str, Any]]:
    """Status id -> its row (kind, limit, spend window, text, names)."""
    return {row["id"]: row for row in _load("statuses.json")["statuses"]}


@cache
def generic_cards() -> dict[str, dict[str, Any]]:
    """Normalised name or id -> generic card (in every hero's deck)."""
    out: dict[str, dict[str, Any]] = {}
    for card in _load("cards.json")["cards"]:
        out[norm(card["name"]["en"])] = card
        out[norm(card["id"])] = card
    return out


@cache
def companion_data() -> dict[str, dict[str, Any]]:
    """Hero id -> its companions' rules (`growth`, `companions`): engine/dicethrone/companions.json."""
    return {k: v for k, v in _load("companions.json").items() if not k.startswith("_")}


@cache
def deck_size() -> int:
    return int(_load("cards.json")["deck_size"])


@cache
def spendable() -> frozenset[str]:
    """Ids of the statuses a holder may spend (`spend` not null): option lists skip every other token."""
    return frozenset(sid for sid, row in statuses().items() if row.get("spend") is not None)
