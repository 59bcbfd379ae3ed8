"""Live odds of the roll in progress (issue 13, the page: the chance to end with at least N claws, three of a
kind, to heal back to full, and the best keep for each goal), checked against closed forms."""

from __future__ import annotations

from kothelp import R, act, faces, game

from engine.odds import best_keep


def odds(s: dict) -> dict:
    return {(o["id"], o.get("count", o.get("hearts"))): o for o in R.snapshot(s)["odds"]}


def test_at_least_one_claw_before_rolling_is_one_minus_five_sixths_to_the_18th() -> None:
    """Keeping every claw, a die misses only if all three of its rolls miss: 1 - (5/6)^(3*6)."""
    s = game({}, {"location": "city"})
    assert abs(odds(s)[("claws", 1)]["chance"] - (1 - (5 / 6) ** 18)) < 1e-4


def test_after_a_roll_the_best_keep_for_claws_is_the_claws() -> None:
    s = act(game({}, {"location": "city"}), {"type": "roll", "dice": faces("C C 1 2 3 H")})
    o = odds(s)
    assert o[("claws", 2)]["chance"] == 1.0 and "keep" not in o[("claws", 2)]
    assert o[("claws", 3)]["keep"] == ["claw", "claw"]
    # one more claw from four dice with two rolls: 1 - (5/6)^8
    assert abs(o[("claws", 3)]["chance"] - (1 - (5 / 6) ** 8)) < 1e-4


def test_heal_full_only_outside_tokyo_and_when_hurt() -> None:
    assert ("heal_full", 2) in odds(game({"health": 8}, {"location": "city"}))
    assert not any(k[0] == "heal_full" for k in odds(game({"health": 8, "location": "city"}, {})))
    assert not any(k[0] == "heal_full" for k in odds(game({}, {"location": "city"})))


def test_no_odds_outside_the_roll_phase() -> None:
    s = act(game({}, {"location": "city"}), {"type": "roll", "dice": faces("1 1 2 2 3 3")})
    s = act(s, {"type": "resolve"})
    assert R.snapshot(s)["odds"] == []


def test_best_keep_with_no_rolls_left_keeps_the_hand() -> None:
    assert best_keep(lambda h: h.count(6) >= 3, ("t", 3), 0, (6, 6, 1, 2, 3, 4), n=6) == (0.0, (1, 2, 3, 4, 6, 6))
