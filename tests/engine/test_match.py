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


class _Counter:
    """A tiny game for interleaving tests: the state counts; `apply` can be held up in one chosen thread."""

    name = "counter"

    def __init__(self) -> None:
        import threading

        self.hold_in: int | None = None  # the thread whose next apply waits for `release`
        self.held = threading.Event()
        self.release = threading.Event()

    def setup(self, config, seed):
        return {"n": 0, "moves": 0}

    def apply(self, state, action):
        import threading

        if threading.get_ident() == self.hold_in:
            self.held.set()
            self.release.wait(5)
        if action.get("type") != "add":
            raise IllegalAction("unknown_action", "Only add.")
        return {"n": state["n"] + action["k"], "moves": state["moves"] + 1}, []

    def snapshot(self, state, viewer=None):
        return dict(state)

    def dump(self, state):
        return dict(state)

    def load(self, data):
        return dict(data)


def test_a_page_reading_the_state_after_an_undo_cannot_put_back_an_older_state():
    """DESIGN (the log is the truth): the live state always equals the replay of the log, whatever the web
    threads read meanwhile. Found by the power-cut bench: a reader that rebuilt the state after an undo and
    stored it could overwrite the state of a move the writer applied meanwhile; the table then accepted a
    move the log could not replay ("Roll the dice before choosing an ability")."""
    import threading

    rules = _Counter()
    m = Match(rules, {}, 0)
    for k in (1, 2, 4):
        m.submit({"type": "add", "k": k})
    m.submit({"type": "undo"})
    seen: list[dict] = []
    go = threading.Event()
    reader = threading.Thread(target=lambda: go.wait(5) and seen.append(m.state))
    reader.start()
    rules.hold_in = reader.ident
    go.set()
    rules.held.wait(1)  # a reader that rebuilds the state is now held up inside it; one that only reads is done
    m.submit({"type": "add", "k": 8})
    rules.release.set()
    reader.join(5)
    assert m.state == Match.replay(rules, {}, 0, m.entries).state == {"n": 11, "moves": 3}
    assert seen and seen[0] in ({"n": 3, "moves": 2}, {"n": 11, "moves": 3})


def test_reading_the_state_never_changes_the_match():
    """A read is a read: after any undo or redo the state is already rebuilt, so `state` computes nothing."""
    rules = _Counter()
    m = Match(rules, {}, 0)
    r = random.Random(3)
    calls: list[dict] = []
    counting = lambda s, a: calls.append(a) or _Counter.apply(rules, s, a)  # noqa: E731
    for _ in range(300):
        kind = r.choice(["add", "add", "undo", "redo"])
        try:
            m.submit({"type": kind, "k": r.randint(1, 9)} if kind == "add" else {"type": kind})
        except IllegalAction:
            continue
        calls.clear()
        rules.apply = counting
        assert m.state == Match.replay(_Counter(), {}, 0, m.entries).state
        del rules.apply
        assert calls == []
