"""Live odds for the roll in progress (engine.odds, exact with optimal keeping): the chance to end the turn's
rolls with at least N claws, with three of a kind of a number, or with enough hearts to heal back to full,
and the dice to keep for each goal.

Faces are the side indexes of data.FACES (1, 2, 3 = numbers, 4 = heart, 5 = energy, 6 = claw). The chances
count the rolls left this turn, not extra rolls a card could buy.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..odds import best_keep, chance
from . import state as st
from .data import FACE_INDEX, FACES

HEART, CLAW = FACE_INDEX["heart"], FACE_INDEX["claw"]
MAX_DICE = 8


@cache
def _at_least(face: int, k: int):  # noqa: ANN202 - a target predicate for engine.odds
    return lambda hand: hand.count(face) >= k


def _three_of_a_kind(hand: tuple[int, ...]) -> bool:
    return hand.count(1) >= 3 or hand.count(2) >= 3 or hand.count(3) >= 3


def goals(s: st.S) -> list[tuple[str, dict[str, Any], Any, tuple[Any, ...]]]:
    """(goal id, params, target, cache key) for the active monster's roll."""
    i = s["active"]
    n = len(s["dice"])
    out: list[tuple[str, dict[str, Any], Any, tuple[Any, ...]]] = []
    for k in range(1, min(n, 3) + 1):
        out.append(("claws", {"count": k}, _at_least(CLAW, k), ("kingoftokyo", "claw", k)))
    if n >= 3:
        out.append(("three_of_a_kind", {}, _three_of_a_kind, ("kingoftokyo", "three")))
    missing = st.max_health(s, i) - s["players"][i]["health"]
    if not st.in_tokyo(s, i) and 0 < missing <= n:
        out.append(("heal_full", {"hearts": missing}, _at_least(HEART, missing), ("kingoftokyo", "heart", missing)))
    return out


def odds(s: st.S) -> list[dict[str, Any]]:
    """Each goal with its chance (rounded to 4 places) and, after a roll, the faces to keep for a goal not met yet."""
    n = len(s["dice"])
    if s["phase"] != "roll" or s["pending"] is not None or not 0 < n <= MAX_DICE:
        return []
    left = max(0, s["rolls_max"] - s["rolls"])
    hand = None if s["rolls"] == 0 else tuple(FACE_INDEX[d["face"]] for d in s["dice"])
    out = []
    for goal, params, target, key in goals(s):
        row: dict[str, Any] = {"id": goal, **params}
        if hand is None:
            row["chance"] = round(chance(target, key, left, None, n=n), 4)
        else:
            p, kept = best_keep(target, key, left, hand, n=n)
            row["chance"] = round(p, 4)
            if not target(hand):  # a goal already met needs no advice
                row["keep"] = [FACES[v - 1] for v in kept]
        out.append(row)
    return out
