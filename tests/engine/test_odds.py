"""Exact dice odds (engine/odds.py) against EX-43, EX-44 and EX-45 of the Dice Throne examples."""

from __future__ import annotations

from fractions import Fraction

import pytest
from dthelp import game, go, snap

from engine import odds
from engine.dicethrone.dice import large_straight, small_straight
from engine.odds import chance


@pytest.mark.parametrize("name, target, exact", [
    ("small straight", small_straight, Fraction(753572225, 1224440064)),
    ("large straight", large_straight, Fraction(319695199, 1224440064)),
    ("four 6s", lambda h: h.count(6) >= 4, Fraction(12274918019, 117546246144)),
    ("five 6s", lambda h: h.count(6) == 5, Fraction(6240321451, 470184984576)),
    ("three in {1,2,3}", lambda h: sum(v <= 3 for v in h) >= 3, Fraction(16121, 16384)),
])
def test_ex43_optimal_keeping_three_attempts(name, target, exact):
    """EX-43 [R]: exact DP over the 252 multisets, keeping optimally, 3 attempts."""
    assert chance(target, ("ex43", name), 3, exact=True) == exact
    assert chance(target, ("ex43f", name), 3) == pytest.approx(float(exact))


def test_ex43_five_of_a_face_closed_form():
    """EX-43 check: five of one face = (1 - (5/6)^3)^5 = (91/216)^5."""
    assert chance(lambda h: h.count(6) == 5, "ex43-closed", 3, exact=True) == (1 - Fraction(5, 6) ** 3) ** 5


@pytest.mark.parametrize("name, target, exact", [
    ("small", small_straight, Fraction(25, 162)),
    ("large", large_straight, Fraction(5, 162)),
    ("five 1s", lambda h: h.count(1) == 5, Fraction(1, 7776)),
    ("five of a kind", lambda h: len(set(h)) == 1, Fraction(1, 1296)),
])
def test_ex44_single_roll(name, target, exact):
    """EX-44 [R]: one roll, no rerolls."""
    assert chance(target, ("ex44", name), 1, exact=True) == exact


@pytest.mark.parametrize("rerolls, exact", [(1, Fraction(1, 6)), (2, Fraction(11, 36))])
def test_ex45_one_die_case(rerolls, exact):
    """EX-45 [R]: faces A B B B B B, need AAAAA, holding four A and one B: keep the A's, reroll the B."""
    assert chance(lambda h: h.count(1) == 5, "ex45", rerolls, (1, 1, 1, 1, 2), exact=True) == exact


def test_snapshot_lists_odds_while_rolling():
    """DESIGN snapshot: the dice with the odds of each ability; Gunslinger before the first roll."""
    m = game("gunslinger", "barbarian")
    go(m, {"type": "advance"})
    odds = {o["id"]: o["chance"] for o in snap(m)["odds"]}
    assert odds["showdown"] == 0.6154 and odds["fan_the_hammer"] == 0.2611
    assert odds["deadeye"] == 0.1044 and odds["fill_em_with_lead"] == 0.0133
    go(m, {"type": "roll", "dice": [6, 6, 6, 6, 6]})
    assert {o["id"]: o["chance"] for o in snap(m)["odds"]}["fill_em_with_lead"] == 1.0


def test_tables_beyond_the_bound_are_dropped_and_recomputed_alike(monkeypatch):
    """The odds tables are an LRU cache (engine.odds.TABLES_MAX): a box playing all night keeps a bounded
    number, and a target whose table was dropped gets the same chance again."""
    monkeypatch.setattr(odds, "TABLES_MAX", 3)
    monkeypatch.setattr(odds, "_TABLES", odds.OrderedDict())
    targets = [(("bound-test", k), lambda hand, k=k: hand.count(6) >= k) for k in range(1, 6)]
    first = [odds.chance(t, key, 3, None) for key, t in targets]
    assert len(odds._TABLES) == 3
    again = [odds.chance(t, key, 3, None) for key, t in targets]
    assert again == first and len(odds._TABLES) == 3
