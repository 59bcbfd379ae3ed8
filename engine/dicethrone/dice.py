"""Dice Throne's dice helpers: faces to symbols, symbol counts, n of a kind, straights.

Dice Throne tests straights and "n of a kind" on the *numbers* 1-6 but ability requirements on the *symbols*
the hero prints on those numbers; keeping both views here means each game only supplies its face map.
Functions take plain lists of ints so the hot path (ability matching in every random game of the bench)
stays allocation-light.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

SMALL_RUNS = (frozenset({1, 2, 3, 4}), frozenset({2, 3, 4, 5}), frozenset({3, 4, 5, 6}))
LARGE_RUNS = (frozenset({1, 2, 3, 4, 5}), frozenset({2, 3, 4, 5, 6}))


def symbols(values: Iterable[int], faces: Sequence[str]) -> list[str]:
    """The symbol each value shows, given `faces[0]` = the symbol on 1, ..., `faces[5]` = on 6."""
    return [faces[v - 1] for v in values]


def symbol_counts(values: Iterable[int], faces: Sequence[str]) -> dict[str, int]:
    """How many dice show each symbol (symbols not shown are absent)."""
    counts: dict[str, int] = {}
    for v in values:
        s = faces[v - 1]
        counts[s] = counts.get(s, 0) + 1
    return counts


def most_of_a_kind(values: Iterable[int]) -> int:
    """The largest number of dice showing the same *number* (2-of-a-kind tests this, not symbols)."""
    counts = [0] * 7
    for v in values:
        counts[v] += 1
    return max(counts)


def n_of_a_kind(values: Iterable[int], n: int) -> bool:
    """At least `n` dice show the same number (so five 2s are also four of a kind)."""
    return most_of_a_kind(values) >= n


def small_straight(values: Iterable[int]) -> bool:
    """Four consecutive numbers on four different dice: {1-4}, {2-5} or {3-6} within the values."""
    present = set(values)
    return any(run <= present for run in SMALL_RUNS)


def large_straight(values: Iterable[int]) -> bool:
    """Five consecutive numbers on the five dice: exactly 1-5 or 2-6."""
    present = set(values)
    return any(run <= present for run in LARGE_RUNS)


def meets_symbols(counts: Mapping[str, int], need: Mapping[str, int]) -> bool:
    """Requirements are minimum counts: four swords satisfy "3 swords"."""
    return all(counts.get(sym, 0) >= n for sym, n in need.items())


def half_up(value: int) -> int:
    """Half, rounded up: every division in Dice Throne rounds up (7 -> 4, 1 -> 1, 0 -> 0)."""
    return -(-value // 2)
