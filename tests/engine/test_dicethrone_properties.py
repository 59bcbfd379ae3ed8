"""Property tests over random legal Dice Throne games (hypothesis picks seeds, modes and heroes).

Invariants a player would check at any moment: health within 0..start+10, CP within 0..15, every stack
within its limit, hands never negative; and the log is the game: replaying it (from the start or from a
checkpoint) gives the live state, undo then redo gives the same state, illegal actions change nothing.
"""

from __future__ import annotations

import json
import random

from dthelp import RULES, random_action
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import IllegalAction
from engine.dicethrone import state as dts
from engine.dicethrone import view
from engine.dicethrone.heroes import hero_ids
from engine.match import Match

MODES = {"1v1": 2, "2v2": 4, "koth": 3}
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

games = st.tuples(st.integers(0, 2**31), st.sampled_from(sorted(MODES)),
                  st.lists(st.sampled_from(hero_ids()), min_size=4, max_size=4))


def setup_for(mode: str, heroes: list[str]) -> dict:
    return {"mode": mode, "players": [{"id": f"p{k + 1}", "hero": h} for k, h in enumerate(heroes[:MODES[mode]])]}


def check_invariants(s: dict) -> None:
    for team in s["teams"]:
        assert 0 <= team["health"] <= s["cap"] == s["start_health"] + 10
    for i, p in enumerate(s["players"]):
        assert 0 <= p["cp"] <= 15
        assert p["hand"] >= 0 and p["deck"] >= 0 and p["discard"] >= 0
        for sid, n in p["statuses"].items():
            assert 1 <= n <= dts.limit(s, i, sid), (sid, n)
    assert (s["pending"] is None) == (s["winner"] is not None or s["draw"])   # over exactly when decided


def play(seed: int, mode: str, heroes: list[str], limit: int = 1500) -> Match:
    r = random.Random(seed)
    m = Match(RULES, setup_for(mode, heroes), seed)
    while m.state["pending"] is not None and len(m.entries) < limit:
        action = random_action(m, r)
        bare = {k: v for k, v in action.items() if k != "await_roll"}
        listed = bare in RULES.options(m.state)
        try:
            m.submit(action)
        except IllegalAction as err:
            assert not listed, f"a listed option was refused: {action}: {err.message}"
            assert err.code != "malformed", f"{action}: {err.message}"
        check_invariants(m.state)
        if m.state["pending"] is not None:    # exactly one default option, and default_action agrees
            defaults = [o["action"] for o in view.options(m.state) if o.get("default")]
            assert defaults == [RULES.default_action(m.state)], m.state["pending"]
        if len(m.entries) % 3 == 0:       # the phone's view renders at every step, JSON and small
            assert len(json.dumps(m.snapshot(), ensure_ascii=False)) < 16000
    return m


@SETTINGS
@given(games)
def test_random_games_keep_every_limit_and_end(game):
    """Rules §3, §4, §6.4: health 0..start+10, CP 0..15, stacks within limits; games end in a result."""
    seed, mode, heroes = game
    m = play(seed, mode, heroes)
    assert m.state["pending"] is None or len(m.entries) >= 1500


@SETTINGS
@given(games)
def test_replay_of_the_log_equals_the_live_state(game):
    """DESIGN: the game is its log: replay from the setup, and from a checkpoint, gives the same state."""
    seed, mode, heroes = game
    m = play(seed, mode, heroes, limit=300)
    again = Match.replay(RULES, m.setup, seed, m.entries)
    assert again.state == m.state
    assert again.snapshot() == m.snapshot()
    half = len(m.entries) // 2
    partial = Match.replay(RULES, m.setup, seed, m.entries[:half])
    seq, data = partial.checkpoint()
    data = json.loads(json.dumps(data))                     # the store keeps checkpoints as JSON
    resumed = Match.replay(RULES, m.setup, seed, m.entries, checkpoint=(seq, data))
    assert resumed.state == m.state


@SETTINGS
@given(games, st.integers(1, 60))
def test_undo_then_redo_equals_the_original(game, back):
    """DESIGN: undo appends an entry; redo restores exactly the state that was undone."""
    seed, mode, heroes = game
    m = play(seed, mode, heroes, limit=120)
    before = json.dumps(m.snapshot()["players"]), m.state
    steps = min(back, len(m.effective_actions()))
    for _ in range(steps):
        m.submit({"type": "undo"})
    for _ in range(steps):
        m.submit({"type": "redo"})
    assert m.state == before[1]
    assert json.dumps(m.snapshot()["players"]) == before[0]


@SETTINGS
@given(games, st.lists(st.fixed_dictionaries({
    "type": st.sampled_from(["roll", "keep", "ability", "pass", "target", "defense", "resolve", "choose",
                             "advance", "knockdown", "sell", "play", "spend", "adjust", "nonsense"]),
    "dice": st.one_of(st.none(), st.lists(st.integers(-1, 8), max_size=6)),
    "player": st.sampled_from(["p1", "p2", "p9", None]),
    "ability": st.sampled_from(["smack", "revolver", None, 3]),
    "status": st.sampled_from(["evasive", "protect", "reload", "nope"]),
    "card": st.sampled_from(["Six-It!", "Smack II", "Mystery!", None]),
}), max_size=8))
def test_actions_never_mutate_the_state_they_are_given(game, actions):
    """Rules contract (engine/core.py): apply returns a new state; an illegal action changes nothing."""
    seed, mode, heroes = game
    m = play(seed, mode, heroes, limit=40)
    for action in actions:
        action = {k: v for k, v in action.items() if v is not None}
        frozen = json.dumps(RULES.dump(m.state), sort_keys=True)
        try:
            RULES.apply(m.state, action)
        except IllegalAction as err:
            assert err.code and err.message
        assert json.dumps(RULES.dump(m.state), sort_keys=True) == frozen


@SETTINGS
@given(games)
def test_no_applied_action_changes_any_earlier_state(game):
    """Copy-on-write (state.clone, own_dice, own_teams): old states share data with new ones, so every
    accepted or refused action, dice-changing cards included, must leave every earlier state as it was."""
    seed, mode, heroes = game
    r = random.Random(seed)
    m = Match(RULES, setup_for(mode, heroes), seed)
    history = [(m.state, dts.deep_copy(m.state))]
    while m.state["pending"] is not None and len(m.entries) < 300:
        action = random_action(m, r)
        try:
            m.submit(action)
        except IllegalAction:
            pass
        history.append((m.state, dts.deep_copy(m.state)))
        if len(m.entries) % 25 == 0:
            for state, frozen in history:
                assert state == frozen
    for state, frozen in history:
        assert state == frozen
