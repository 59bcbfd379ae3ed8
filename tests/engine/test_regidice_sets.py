"""The sets of the Resolve phase (reference §4.4) on the worked examples of §10.1-§10.4, and the attack
search checked against an exhaustive search on small pools (hypothesis)."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from engine.regidice import sets


def damage(values: list[int], defence: int) -> int:
    groups = sets.attack_groups(values, defence)
    used = [i for g in groups for i in g]
    assert len(used) == len(set(used)), "a die in two groups"
    assert all(sum(values[i] for i in g) == defence for g in groups)
    return len(groups)


@pytest.mark.parametrize("row, defence, pool, expected", [
    ("A1", 3, [1, 2, 1, 1, 1], 2),
    ("A2", 3, [3, 3, 3, 1, 2], 4),  # single-die groups count (§11.1)
    ("A3", 3, [2, 2, 2, 2], 0),
    ("A4", 4, [4, 4, 1, 3, 2, 2], 4),
    ("A5", 4, [1, 1, 2, 2, 3], 2),
    ("A6", 17, [6, 6, 5], 1),
])
def test_10_1_attack_groups_sum_exactly_to_the_defence(row: str, defence: int, pool: list[int], expected: int) -> None:
    assert damage(pool, defence) == expected, row


def _exhaustive(values: list[int], target: int) -> int:
    """Most disjoint subsets summing to target, by trying every subset (only for tiny pools)."""
    best = 0

    def go(left: tuple[int, ...], count: int) -> None:
        nonlocal best
        best = max(best, count)
        if not left:
            return
        first, rest = left[0], left[1:]
        go(rest, count)  # the first die is not used
        for size in range(len(rest) + 1):
            for combo in combinations(range(len(rest)), size):
                if first + sum(rest[i] for i in combo) == target:
                    go(tuple(v for i, v in enumerate(rest) if i not in combo), count + 1)

    go(tuple(values), 0)
    return best


@settings(max_examples=150, deadline=None)
@given(hs.lists(hs.integers(1, 6), max_size=8), hs.integers(3, 20))
def test_attack_search_finds_the_maximum(values: list[int], defence: int) -> None:
    assert damage(values, defence) == _exhaustive(values, defence)


@pytest.mark.parametrize("pool, expected", [
    ([4, 4, 4], 1), ([4, 4, 4, 4], 2), ([2, 2, 2, 2, 2], 3), ([6] * 6, 4), ([4, 4, 4, 2, 2, 2], 2), ([5, 5, 1, 1, 3], 0),
])
def test_10_2_block_sets(pool: list[int], expected: int) -> None:
    assert sum(sets.block_of([pool[i] for i in g]) for g in sets.block_sets(pool)) == expected


@pytest.mark.parametrize("pool, pile, expected", [
    ([2, 3, 4], 5, 1), ([2, 3, 4, 5, 6], 5, 3), ([1, 2, 3, 4, 5, 6], 5, 4), ([1, 2, 3, 5, 6], 5, 1),
    ([1, 2, 4, 5], 5, 0), ([1, 2, 3, 4, 5], 2, 2), ([1, 2, 3, 3, 4, 5], 5, 3),
])
def test_10_3_heal_runs(pool: list[int], pile: int, expected: int) -> None:
    runs = sets.heal_runs(pool, pile)
    assert min(pile, sum(sets.heal_of([pool[i] for i in g]) for g in runs)) == expected


def test_10_3_a_capped_heal_uses_only_the_dice_it_needs() -> None:
    """With 2 wounded dice, a run of 4 is enough: the 5th die stays free to be passed (§4.6)."""
    runs = sets.heal_runs([1, 2, 3, 4, 5], 2)
    assert sum(len(g) for g in runs) == 4


@pytest.mark.parametrize("pool, spells", [
    ([2, 2, 3], 1), ([2, 2, 3, 2, 2, 3], 2), ([2, 2, 2], 0),
])
def test_10_4_spells_match_the_enemy_pips(pool: list[int], spells: int) -> None:
    assert sets.spell_count(pool, [2, 2, 3]) == spells
    assert len(sets.spell_sets(pool, [2, 2, 3])) == spells
