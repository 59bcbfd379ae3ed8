"""Exact odds of meeting a dice target with rerolls and optimal keeping (shared by every d6 game).

The phone shows, for each ability, the chance to meet it from the dice on the tray with the attempts left.
A roll of n d6 is a multiset (252 of them for 5 dice), so the best keeping strategy is an exact dynamic
programme over multisets: V_r(hand) = 1 if the hand meets the target, else the best over every sub-multiset
K kept of the expected V_{r-1}(K + the rerolled dice). Transitions are computed once per dice count; each
target then costs a few thousand multiply-adds per attempt level, cached per target.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement
from math import factorial
from typing import Any

Hand = tuple[int, ...]
Target = Callable[[Hand], bool]


@cache
def _outcomes(m: int) -> tuple[tuple[Hand, Fraction], ...]:
    """Every multiset of m d6 with its exact probability."""
    out = []
    for combo in combinations_with_replacement(range(1, 7), m):
        ways = factorial(m)
        for v in set(combo):
            ways //= factorial(combo.count(v))
        out.append((combo, Fraction(ways, 6 ** m)))
    return tuple(out)


@cache
def _space(n: int) -> dict[str, Any]:
    """Hands of n dice, keepable sub-multisets, and the transition of each keep to the hands it can reach."""
    hands = list(combinations_with_replacement(range(1, 7), n))
    hand_ix = {h: k for k, h in enumerate(hands)}
    keeps = [k for size in range(n + 1) for k in combinations_with_replacement(range(1, 7), size)]
    keep_ix = {k: j for j, k in enumerate(keeps)}
    trans = []
    for kept in keeps:
        row = [(hand_ix[tuple(sorted(kept + out))], p) for out, p in _outcomes(n - len(kept))]
        trans.append(row)
    subs = []
    for h in hands:
        found = set()
        for mask in range(1 << n):
            found.add(tuple(h[b] for b in range(n) if mask >> b & 1))
        subs.append([keep_ix[k] for k in found])
    return {"hands": hands, "hand_ix": hand_ix, "keeps": keeps, "keep_ix": keep_ix, "trans": trans, "subs": subs}


# Tables per (target key, dice count, exact), the least recently used dropped beyond TABLES_MAX. Why this
# bound: one Dice Throne game of the soak (bench/soak.py --tracemalloc) held 12 tables; a table with three
# rolls measured 0.12 MiB (5 dice) to 0.15 MiB (8 dice) with tracemalloc, so 128 tables stay under ~20 MiB
# while covering many games' requirements (Dice Throne's 16 heroes have 53 distinct first-tier
# requirements on numbers). `_space`, `_outcomes` and `_float_trans` stay unbounded: one entry per dice
# count a game allows.
TABLES_MAX = 128
_TABLES: OrderedDict[tuple[Hashable, int, bool], list[list[Any]]] = OrderedDict()


def _tables(key: Hashable, target: Target, n: int, levels: int, exact: bool) -> list[list[Any]]:
    """V[r][hand index] for r = 0..levels rerolls left, cached per target key (extended on demand)."""
    cached = _TABLES.get((key, n, exact))
    if cached is not None and len(cached) > levels:
        _TABLES.move_to_end((key, n, exact))
        return cached
    values = _compute(target, n, levels, exact)
    _TABLES[(key, n, exact)] = values
    _TABLES.move_to_end((key, n, exact))
    while len(_TABLES) > TABLES_MAX:
        _TABLES.popitem(last=False)
    return values


def _compute(target: Target, n: int, levels: int, exact: bool) -> list[list[Any]]:
    sp = _space(n)
    one, zero = (Fraction(1), Fraction(0)) if exact else (1.0, 0.0)
    met = [target(h) for h in sp["hands"]]
    values = [[one if ok else zero for ok in met]]
    trans = sp["trans"] if exact else [[(h, float(p)) for h, p in row] for row in sp["trans"]]
    for _ in range(levels):
        prev = values[-1]
        w = [sum((p * prev[h] for h, p in row), zero) for row in trans]
        values.append([one if met[k] else max(w[j] for j in sp["subs"][k]) for k in range(len(met))])
    return values


def chance(target: Target, key: Hashable, rolls: int, hand: Hand | None = None, *, n: int = 5,
           exact: bool = False) -> Any:
    """Chance to meet `target` with `rolls` roll attempts left, keeping optimally.

    `hand` = the dice showing now (None before the first roll: every die is rolled on the first attempt).
    `key` identifies the target for the cache (same key, same target). Fractions when `exact`.
    """
    sp = _space(n)
    if hand is None:
        if rolls <= 0:
            return Fraction(0) if exact else 0.0
        v = _tables(key, target, n, rolls - 1, exact)[rolls - 1]
        return sum((p * v[sp["hand_ix"][h]] for h, p in _outcomes(n)), Fraction(0) if exact else 0.0) if exact \
            else sum(float(p) * v[sp["hand_ix"][h]] for h, p in _outcomes(n))
    v = _tables(key, target, n, max(rolls, 0), exact)[max(rolls, 0)]
    return v[sp["hand_ix"][tuple(sorted(hand))]]


@cache
def _float_trans(n: int) -> list[list[tuple[int, float]]]:
    return [[(h, float(p)) for h, p in row] for row in _space(n)["trans"]]


def best_keep(target: Target, key: Hashable, rolls: int, hand: Hand, *, n: int = 5) -> tuple[float, Hand]:
    """The dice of `hand` to keep for the best chance of meeting `target` with `rolls` rolls left (>= 1),
    and that chance. A hand that already meets the target keeps everything (chance 1)."""
    hand = tuple(sorted(hand))
    if target(hand):
        return 1.0, hand
    if rolls <= 0:
        return 0.0, hand
    sp = _space(n)
    values = _tables(key, target, n, rolls - 1, False)[rolls - 1]
    trans = _float_trans(n)
    best, kept_best = -1.0, hand
    for j in sp["subs"][sp["hand_ix"][hand]]:
        p = sum(w * values[h] for h, w in trans[j])
        kept = sp["keeps"][j]
        if p > best + 1e-12 or (abs(p - best) <= 1e-12 and len(kept) > len(kept_best)):
            best, kept_best = p, kept
    return best, kept_best
