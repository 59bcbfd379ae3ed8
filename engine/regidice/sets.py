"""The sets a player forms in the Resolve phase (reference §4.4), as pure functions of pip values.

Each function takes the pips of the dice in a pool (a list, position = the die's place in the pool) and
returns the sets as lists of positions, so the rules can mark exactly those dice as used (§4.6: used dice
may not be passed). The engine proposes the best sets; a player may name their own and `check_*` says why
a named set does not count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from functools import lru_cache

Counts = tuple[int, int, int, int, int, int]  # how many dice show 1, 2, ..., 6


def counts_of(values: Sequence[int]) -> Counts:
    c = [0] * 6
    for v in values:
        c[v - 1] += 1
    return (c[0], c[1], c[2], c[3], c[4], c[5])


def _positions(values: Sequence[int], groups: Sequence[Sequence[int]]) -> list[list[int]]:
    """Turn groups of pip values into groups of positions in `values`, each position used once."""
    free: dict[int, list[int]] = {}
    for pos, v in enumerate(values):
        free.setdefault(v, []).append(pos)
    out = []
    for group in groups:
        out.append([free[v].pop(0) for v in group])
    return out


# -- attack (§4.4.1): disjoint groups whose pips sum exactly to the round's defence ----------------------
def _sub_multisets(counts: Counts, total: int, top: int) -> tuple[tuple[int, ...], ...]:
    """Every multiset of values <= `top` drawn from `counts` whose values add up to `total` (largest first).
    Counts beyond what `total` could use are clipped first, so many pools share one cached answer."""
    clipped = tuple(min(n, total // v) if v <= top else 0 for v, n in zip(range(1, 7), counts, strict=True))
    return _tails(clipped, total, top)  # type: ignore[arg-type]


@lru_cache(maxsize=65536)
def _tails(counts: Counts, total: int, top: int) -> tuple[tuple[int, ...], ...]:
    if total == 0:
        return ((),)
    out = []
    for v in range(min(top, total), 0, -1):
        if counts[v - 1]:
            rest = list(counts)
            rest[v - 1] -= 1
            for tail in _tails(tuple(rest), total - v, v):  # type: ignore[arg-type]
                out.append((v, *tail))
    return tuple(out)


@lru_cache(maxsize=65536)
def _best_groups(counts: Counts, target: int) -> tuple[tuple[int, ...], ...]:
    """A largest collection of disjoint groups summing to `target`: the largest die is either in a group or
    left out, and the rest is solved the same way (memoised on the counts). Groups holding the largest die are
    tried first, and the search stops as soon as it holds as many groups as the pips allow."""
    top = next((v for v in range(6, 0, -1) if counts[v - 1]), 0)
    total = sum(v * n for v, n in zip(range(1, 7), counts, strict=True))
    if top == 0 or total < target:
        return ()
    bound = total // target  # no more groups than the pips allow
    rest = list(counts)
    rest[top - 1] -= 1
    without: Counts = tuple(rest)  # type: ignore[assignment]
    best: tuple[tuple[int, ...], ...] = ()
    if top <= target:
        for tail in _sub_multisets(without, target - top, top):
            left = list(without)
            for v in tail:
                left[v - 1] -= 1
            found = ((top, *tail), *_best_groups(tuple(left), target))  # type: ignore[arg-type]
            if len(found) > len(best):
                best = found
                if len(best) >= bound:
                    return best
    if len(best) < (total - top) // target:  # leaving the largest die out could still do better
        other = _best_groups(without, target)
        if len(other) > len(best):
            best = other
    return best


def attack_groups(values: Sequence[int], defence: int) -> list[list[int]]:
    """The most disjoint groups summing exactly to `defence` (a single die equal to it counts: §11.1)."""
    if defence <= 0:
        return []
    return _positions(values, _best_groups(counts_of(values), defence))


def check_attack_group(values: Sequence[int], defence: int) -> bool:
    return len(values) > 0 and sum(values) == defence


# -- block (§4.4.2): sets of one value, 3 dice block 1 and each extra die 1 more ------------------------
def block_sets(values: Sequence[int]) -> list[list[int]]:
    """Every value shown three or more times, as one set (splitting a set only loses blocks)."""
    c = counts_of(values)
    groups = [[v] * c[v - 1] for v in range(1, 7) if c[v - 1] >= 3]
    return _positions(values, groups)


def block_of(values: Sequence[int]) -> int:
    """What one block set stops: k - 2 for k >= 3 dice of one value, else the set is not a block."""
    return len(values) - 2 if len(values) >= 3 and len(set(values)) == 1 else 0


# -- heal (§4.4.3): straights, a run of 3 heals 1 and each extra value 1 more --------------------------
RUNS = tuple((start, length) for length in range(6, 2, -1) for start in range(1, 8 - length))


def _run_choices(counts: Counts, first: int) -> Iterator[tuple[tuple[int, int], ...]]:
    """Every multiset of runs (as indexes into RUNS, non-decreasing) that the counts can hold."""
    yield ()
    for k in range(first, len(RUNS)):
        start, length = RUNS[k]
        if all(counts[v - 1] for v in range(start, start + length)):
            rest = list(counts)
            for v in range(start, start + length):
                rest[v - 1] -= 1
            for tail in _run_choices(tuple(rest), k):  # type: ignore[arg-type]
                yield (RUNS[k], *tail)


def heal_runs(values: Sequence[int], cap: int | None = None) -> list[list[int]]:
    """Runs that heal the most (at most `cap`, the wounded pile) with the fewest dice, so unused dice stay free
    to be passed on (§4.6)."""
    best: tuple[int, int] = (0, 0)
    best_runs: tuple[tuple[int, int], ...] = ()
    for runs in _run_choices(counts_of(values), 0):
        healed = sum(length - 2 for _, length in runs)
        if cap is not None:
            healed = min(healed, cap)
        used = sum(length for _, length in runs)
        if (healed, -used) > (best[0], -best[1]):
            best, best_runs = (healed, used), runs
    groups = [list(range(start, start + length)) for start, length in best_runs]
    return _positions(values, groups)


def heal_of(values: Sequence[int]) -> int:
    """What one run heals: L - 2 for L >= 3 different consecutive values, else the set is not a run."""
    ordered = sorted(values)
    if len(ordered) < 3 or any(b - a != 1 for a, b in zip(ordered, ordered[1:], strict=False)):
        return 0
    return len(ordered) - 2


# -- cast (§4.4.4): one colour, pips equal to the enemy's dice as a multiset ---------------------------
def spell_count(values: Sequence[int], enemy: Sequence[int]) -> int:
    """How many disjoint spells dice of one colour (`values`) make against the enemy's pips."""
    need = Counter(enemy)
    have = Counter(values)
    return min(have[v] // n for v, n in need.items()) if need else 0


def spell_sets(values: Sequence[int], enemy: Sequence[int], limit: int | None = None) -> list[list[int]]:
    """Up to `limit` disjoint spells from dice of one colour."""
    n = spell_count(values, enemy)
    if limit is not None:
        n = min(n, limit)
    return _positions(values, [sorted(enemy)] * n)


def is_spell(values: Sequence[int], enemy: Sequence[int]) -> bool:
    return sorted(values) == sorted(enemy)
