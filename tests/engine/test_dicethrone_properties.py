"""Property tests over random legal Dice Throne games (hypothesis picks seeds, modes and heroes).

Invariants a player would check at any moment: health within 0..start+10, CP within 0..15, every stack
within its limit, hands never negative; a listed option is never refused; one default option.
What every game keeps (replay == live, undo/redo, refusals change nothing, no mutation, dump/load, offered
options legal, no hidden leak) is the contract kit's, run over every game: tests/contract.
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


