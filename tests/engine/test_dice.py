"""Shared dice helpers (engine/dice.py), checked against the rulebook's tables."""

import pytest

from engine.dicethrone.dice import (
    half_up,
    large_straight,
    meets_symbols,
    most_of_a_kind,
    n_of_a_kind,
    small_straight,
    symbol_counts,
    symbols,
)

BARBARIAN = ["sword", "sword", "sword", "heart", "heart", "pow"]


@pytest.mark.parametrize("dice, small, large", [
    ([1, 2, 3, 4, 6], True, False),
    ([2, 3, 4, 5, 5], True, False),
    ([6, 5, 4, 3, 1], True, False),
    ([1, 2, 3, 4, 5], True, True),
    ([2, 3, 4, 5, 6], True, True),
    ([1, 2, 3, 5, 6], False, False),
    ([1, 1, 2, 3, 4], True, False),
    ([1, 2, 3, 4, 4], True, False),
    ([1, 3, 4, 5, 6], True, False),
    ([2, 3, 4, 6, 6], False, False),
    ([1, 2, 4, 5, 6], False, False),
    ([3, 3, 3, 3, 3], False, False),
])
def test_ex14_straights_use_numbers_in_any_order(dice, small, large):
    """EX-14 (rules §5): small = 4 consecutive numbers, large = 5; a large one is also small."""
    assert small_straight(dice) is small
    assert large_straight(dice) is large


def test_ex16_of_a_kind_counts_numbers_not_symbols():
    """EX-16 (rules §5): 1 2 3 1 1 shows five Swords but only three of a kind."""
    assert symbol_counts([1, 2, 3, 1, 1], BARBARIAN) == {"sword": 5}
    assert most_of_a_kind([1, 2, 3, 1, 1]) == 3
    assert n_of_a_kind([1, 1, 1, 1, 4], 4)
    assert n_of_a_kind([2, 2, 2, 2, 2], 4)  # AMB: "4 of a kind" read as "at least 4"
    assert not n_of_a_kind([1, 2, 3, 3, 3], 4)


def test_symbols_and_minimum_counts():
    """Rules §5: requirements are minimum counts; four swords satisfy "3 swords"."""
    assert symbols([1, 4, 6], BARBARIAN) == ["sword", "heart", "pow"]
    counts = symbol_counts([1, 2, 3, 6, 1], BARBARIAN)
    assert meets_symbols(counts, {"sword": 3})
    assert meets_symbols(counts, {"sword": 3, "pow": 1})
    assert not meets_symbols(counts, {"pow": 2})


@pytest.mark.parametrize("value, half", [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3), (7, 4), (9, 5), (17, 9), (0, 0)])
def test_ex06_half_rounds_up(value, half):
    """EX-06 (rules §10): every division rounds up."""
    assert half_up(value) == half
