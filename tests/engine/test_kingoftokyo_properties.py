"""Properties of random King of Tokyo games (hypothesis): health within 0..max, VP within 0..20, energy never
negative, exactly one winner or none (several only in a shared 20 VP finish), replay == live through
engine.match.Match, undo/redo give back the same states, and every snapshot is plain JSON."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from kothelp import NAMES, R

from engine.match import Match

MAX_ACTIONS = 3000


def play(seed: int, players: int, check: bool = True) -> Match:
    rng = random.Random(seed)
    match = Match(R, {"players": NAMES[:players]}, seed)
    for _ in range(MAX_ACTIONS):
        s = match.state
        if s["over"]:
            break
        opts = R.options(s)
        assert opts, (s["phase"], s["pending"])
        match.submit(rng.choice(opts))
        if check:
            for p in R.snapshot(match.state)["players"]:
                assert 0 <= p["health"] <= p["max_health"] <= 12, p
                assert 0 <= p["vp"] <= 20 and p["energy"] >= 0, p
                assert p["alive"] or p["health"] == 0
    return match


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=hs.integers(0, 2**32), players=hs.integers(2, 6))
def test_random_games_keep_the_numbers_in_range_and_end(seed: int, players: int) -> None:
    match = play(seed, players)
    s = match.state
    assert s["over"], "a random game ends"
    alive = [p["id"] for p in s["players"] if p["alive"]]
    if len(s["winners"]) != 1:
        # no winner (all out at once) or a shared finish at 20 VP
        assert s["winners"] == [] and alive == [] or all(
            next(p for p in s["players"] if p["id"] == w)["vp"] == 20 for w in s["winners"])
    assert set(s["winners"]) <= set(alive) or not alive


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=hs.integers(0, 2**32), players=hs.integers(2, 6))
def test_replay_equals_live_and_checkpoints_round_trip(seed: int, players: int) -> None:
    live = play(seed, players, check=False)
    again = Match.replay(R, live.setup, live.seed, list(live.entries))
    assert again.state == live.state
    mid = len(live.entries) // 2
    part = Match.replay(R, live.setup, live.seed, live.entries[:mid])
    seq, data = part.checkpoint()
    resumed = Match.replay(R, live.setup, live.seed, list(live.entries), checkpoint=(seq, json.loads(json.dumps(data))))
    assert resumed.state == live.state
    assert json.loads(json.dumps(R.snapshot(live.state))) == R.snapshot(live.state)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=hs.integers(0, 2**32), players=hs.integers(2, 6), back=hs.integers(1, 30))
def test_undo_then_redo_gives_back_the_same_states(seed: int, players: int, back: int) -> None:
    match = play(seed, players, check=False)
    states = []
    n = min(back, len(match.effective_actions()))
    for _ in range(n):
        states.append(match.state)
        match.submit({"type": "undo"})
    replayed = Match.replay(R, match.setup, match.seed, [])
    for action in match.effective_actions():
        replayed.submit(action)
    assert replayed.state == match.state
    for expected in reversed(states):
        match.submit({"type": "redo"})
        assert match.state == expected


def test_a_refused_action_changes_nothing() -> None:
    """Bad input loses nothing: the state after a refusal is the state before it."""
    match = play(3, 4, check=False)
    s = R.setup({"players": NAMES[:3], "first": "p1"}, 1)
    before = json.dumps(s, sort_keys=True)
    for bad in ({"type": "buy", "slot": 9}, {"type": "roll", "dice": ["claw"]}, {"type": "fly"}, {"type": "end"},
                {"type": "roll", "dice": [1, 2, 3, 4, 5, 7]}, {"type": "yield"}, {"type": "rapid_heal"}):
        try:
            R.apply(s, bad)
        except Exception as exc:  # noqa: BLE001 - every refusal must be an IllegalAction
            assert type(exc).__name__ == "IllegalAction", (bad, exc)
        else:
            raise AssertionError(f"{bad} was accepted")
        assert json.dumps(s, sort_keys=True) == before
    assert match.state["over"]
