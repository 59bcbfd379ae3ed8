"""The game contract, checked once for every registered game and for the tiny test game (Pig): replay, undo
and redo, refusals, no mutation, dump and load, offered options, and no hidden leak (issue 35). Each game's
own tests keep only its own invariants (tests/engine/test_<game>_*.py)."""

from __future__ import annotations

import copy
import json
import random

import pytest

from engine.core import IllegalAction
from engine.match import Match

from .kit import KIT_GAMES, dump, other_pips, play, random_move, with_dice

NAMES = sorted(KIT_GAMES)
SEEDS = (0, 5, 6, 7)  # the first of each game's documented setups, then drawn ones


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", NAMES)
def test_replay_of_the_log_is_the_live_game(name: str, seed: int) -> None:
    """DESIGN (the log is the truth): replaying the entries, undos and redos included, gives the live state."""
    live = play(name, seed, 120, undo_share=0.15)
    again = Match.replay(live.rules, live.setup, live.seed, live.entries)
    assert dump(live.rules, again.state) == dump(live.rules, live.state)
    assert json.dumps(again.snapshot(), sort_keys=True) == json.dumps(live.snapshot(), sort_keys=True)


@pytest.mark.parametrize("name", NAMES)
def test_undo_then_redo_gives_back_every_state(name: str) -> None:
    match = play(name, 4, 60)
    states = [dump(match.rules, match.state)]
    back = min(12, len(match.effective_actions()))
    for _ in range(back):
        match.submit({"type": "undo"})
        states.append(dump(match.rules, match.state))
    for k in range(back):
        match.submit({"type": "redo"})
        assert dump(match.rules, match.state) == states[back - k - 1]


@pytest.mark.parametrize("name", NAMES)
def test_a_refused_action_changes_nothing(name: str) -> None:
    """A refusal is an IllegalAction (never another error) and leaves the state and the log as they were."""
    rules = KIT_GAMES[name]
    rng = random.Random(5)
    match = play(name, 5, 40)
    kinds = sorted(getattr(rules, "handlers", {})) or ["roll"]
    junk = [None, 7, "x", [], {}, {"a": 1}, -1, 10**30, 2.5, True]
    bad = [{"type": "no_such_action"}, {"type": ""}, {"no": "type"}, "roll", [1, 2]]
    bad += [{"type": rng.choice(kinds), rng.choice(["dice", "player", "card", "target", "ability", "die"]): rng.choice(junk)}
            for _ in range(40)]
    for action in bad:
        before, seq = dump(rules, match.state), match.seq
        try:
            match.submit(action)
        except IllegalAction:
            assert dump(rules, match.state) == before and match.seq == seq, action
        else:
            match.submit({"type": "undo"})  # a junk field the game may ignore: fine, as long as it was legal


@pytest.mark.parametrize("name", NAMES)
def test_apply_never_changes_a_state_it_was_given(name: str) -> None:
    """engine.core.Rules.apply: no state, the one given nor any earlier one, is changed by a later move (the
    games copy on write: a shared part changed in place would rewrite history)."""
    rules = KIT_GAMES[name]
    rng = random.Random(6)
    state = rules.setup(play(name, 6, 0).setup, 6)
    seen = []
    for _ in range(150):
        seen.append((state, copy.deepcopy(state)))
        move = random_move(rules, state, rng)
        if move is None:
            break
        try:
            state, _events = rules.apply(state, move)
        except IllegalAction:
            continue
    assert all(kept == then for kept, then in seen)


@pytest.mark.parametrize("name", NAMES)
def test_dump_and_load_round_trip_and_play_on_alike(name: str) -> None:
    """A checkpoint (dump) loaded back is the same game: same dump, same snapshot, same next moves."""
    rules = KIT_GAMES[name]
    match = play(name, 7, 50)
    loaded = rules.load(json.loads(json.dumps(rules.dump(match.state))))
    assert dump(rules, loaded) == dump(rules, match.state)
    assert rules.snapshot(loaded, None) == rules.snapshot(match.state, None)
    rng = random.Random(8)
    a, b = match.state, loaded
    for _ in range(20):
        move = random_move(rules, a, rng)
        if move is None:
            break
        try:
            a, _ = rules.apply(a, move)
        except IllegalAction:
            continue
        b, _ = rules.apply(b, move)
        assert dump(rules, a) == dump(rules, b)


@pytest.mark.parametrize("name", NAMES)
def test_every_offered_option_is_legal(name: str) -> None:
    """What `options` offers (the page's buttons, the box's random players) the game accepts."""
    rules = KIT_GAMES[name]
    rng = random.Random(9)
    state = play(name, 9, 0).state
    for _ in range(80):
        for option in rules.options(state):
            try:
                rules.apply(state, option)
            except IllegalAction as err:
                pytest.fail(f"offered but refused: {option}: {err.code} {err.message}")
        default = rules.default_action(state)
        if default is not None:
            rules.apply(state, default)
        move = random_move(rules, state, rng)
        if move is None:
            break
        try:
            state, _ = rules.apply(state, move)
        except IllegalAction:
            continue


def _hidden_games() -> list[str]:
    return [name for name in NAMES if KIT_GAMES[name].describe().get("hidden")]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", _hidden_games())
def test_no_viewer_sees_another_seats_secret(name: str, seed: int) -> None:
    """Issue 35 #1: a game declares its secrets once (what `public_action` leaves out of an action, what its
    snapshot shows a viewer); then no other viewer's bytes (state, log) change when a hidden roll's pips do."""
    rules = KIT_GAMES[name]
    rng = random.Random(seed)
    match = play(name, seed, 0)
    viewers = [None] + [p["id"] for p in rules.snapshot(match.state, None).get("players", [])]
    checked = 0
    for _ in range(200):
        move = random_move(rules, match.state, rng)
        if move is None:
            break
        if move.get("type") == "roll" and "dice" not in move:
            move = with_dice(rules, match, move, rng)
        try:
            match.submit(move)
        except IllegalAction:
            continue
        if rules.public_action(move) == {k: v for k, v in move.items() if k != "evidence"}:
            continue  # nothing left out: no secret in this action
        owner = move.get("player")
        twin = Match.replay(rules, match.setup, match.seed, match.entries[:-1])
        twin.submit(other_pips(move, rng))
        for viewer in viewers:
            if viewer is not None and viewer == owner:
                continue
            seen = json.dumps(match.snapshot(viewer=viewer), sort_keys=True)
            assert seen == json.dumps(twin.snapshot(viewer=viewer), sort_keys=True), (viewer, move)
            checked += 1
    assert checked, "the random game made no hidden roll to check"
