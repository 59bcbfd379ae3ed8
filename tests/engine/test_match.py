"""engine/match.py: the log, undo/redo as entries, in-memory checkpoints, replay from a store checkpoint."""

from __future__ import annotations

import random

from dthelp import RULES, random_action

from engine.core import IllegalAction
from engine.games import get_rules
from engine.match import KEEP_EVERY, Entry, Match


def long_match(n: int = 3 * KEEP_EVERY + 7, seed: int = 5) -> Match:
    r = random.Random(seed)
    m = Match(RULES, {"players": [{"hero": "samurai"}, {"hero": "ninja"}]}, seed)
    while len(m.entries) < n and m.state["pending"] is not None:
        try:
            m.submit(random_action(m, r))
        except IllegalAction:
            pass  # random extra cards may be refused
    return m


def test_undo_across_the_checkpoint_grid_equals_a_fresh_replay():
    """DESIGN: state = replay of the effective actions; undo far back rebuilds from a kept state."""
    m = long_match()
    actions = m.effective_actions()
    for back in (1, 5, KEEP_EVERY, KEEP_EVERY + 3, 2 * KEEP_EVERY + 1):
        for _ in range(back):
            m.submit({"type": "undo"})
        fresh = Match(RULES, m.setup, m.seed)
        for a in actions[:len(actions) - back]:
            fresh.submit(a)
        assert m.state == fresh.state
        for _ in range(back):
            m.submit({"type": "redo"})
        assert m.effective_actions() == actions


def test_only_a_few_states_are_kept():
    """Memory: the latest state plus one per KEEP_EVERY effective actions."""
    m = long_match()
    kept = sum(1 for e in m._done if e.state is not None)
    assert kept <= len(m._done) // KEEP_EVERY + 1


def test_undo_entries_are_logged_and_a_new_action_clears_redo():
    """DESIGN: undo appends an entry; nothing is rewritten; a new action ends the redo chain."""
    m = Match(get_rules("freeroll"), {}, 0)
    m.submit({"type": "roll", "dice": [1, 2]})
    m.submit({"type": "roll", "dice": [3]})
    m.submit({"type": "undo"})
    assert [e.action["type"] for e in m.entries] == ["roll", "roll", "undo"] and m.can_redo()
    m.submit({"type": "roll", "dice": [6]})
    assert not m.can_redo() and m.state["count"] == 2
    again = Match.replay(get_rules("freeroll"), {}, 0, [Entry(e.seq, e.action) for e in m.entries])
    assert again.state == m.state


def test_the_log_and_the_setup_are_private_copies():
    """Match copies what it is given: changing a submitted action or the setup later changes nothing."""
    setup = {"players": [{"hero": "samurai"}, {"hero": "ninja"}], "start": "p1"}
    m = Match(RULES, setup, 3)
    setup["players"][0]["hero"] = "monk"
    assert m.setup["players"][0]["hero"] == "samurai"
    flat = {"type": "advance"}
    nested = {"type": "roll", "dice": [1, 2, 3, 4, 5]}
    m.submit(flat)
    m.submit(nested)
    flat["type"] = "undo"
    nested["dice"].append(6)
    assert [e.action for e in m.entries] == [{"type": "advance"}, {"type": "roll", "dice": [1, 2, 3, 4, 5]}]
    try:
        Match(RULES, None, 0)  # type: ignore[arg-type]
    except IllegalAction as err:
        assert err.code == "bad_setup"
    else:
        raise AssertionError("a setup that is not an object was accepted")
