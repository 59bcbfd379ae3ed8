"""Helpers for Dice Throne tests: build a match, drive it with actions, read players from the snapshot.

Scenarios are set up the way players would at the table (adjust actions for tokens, health and CP), so
the tests go through `Match` exactly like the table service and `dicesight play`.
"""

from __future__ import annotations

from typing import Any

from engine.core import IllegalAction
from engine.dicethrone import view
from engine.games import get_rules
from engine.match import Match

RULES = get_rules("dicethrone")


def game(*heroes: str, mode: str = "1v1", start: str = "p1", seed: int = 1, **extra: Any) -> Match:
    """A match with players p1, p2... playing `heroes` in seat order; p1 starts unless told."""
    setup = {"mode": mode, "start": start,
             "players": [{"id": f"p{k + 1}", "name": f"P{k + 1}", "hero": h} for k, h in enumerate(heroes)],
             **extra}
    return Match(RULES, setup, seed)


def go(m: Match, *actions: dict[str, Any]) -> Match:
    for a in actions:
        m.submit(a)
    return m


def snap(m: Match) -> dict[str, Any]:
    return m.snapshot()


def player(m: Match, pid: str) -> dict[str, Any]:
    return next(p for p in m.snapshot()["players"] if p["id"] == pid)


def health(m: Match, pid: str) -> int:
    return player(m, pid)["health"]


def cp(m: Match, pid: str) -> int:
    return player(m, pid)["cp"]


def tokens(m: Match, pid: str) -> dict[str, int]:
    return {s["id"]: s["count"] for s in player(m, pid)["statuses"]}


def pending(m: Match) -> dict[str, Any] | None:
    return m.snapshot()["pending"]


def kind(m: Match) -> str | None:
    p = pending(m)
    return p["kind"] if p else None


def give(m: Match, pid: str, **statuses: int) -> Match:
    return go(m, {"type": "adjust", "player": pid, "status": statuses})


def set_health(m: Match, pid: str, value: int) -> Match:
    return go(m, {"type": "adjust", "player": pid, "health": value - health(m, pid)})


def set_cp(m: Match, pid: str, value: int) -> Match:
    return go(m, {"type": "adjust", "player": pid, "cp": value - cp(m, pid)})


def attack(m: Match, dice: list[int], ability: str) -> Match:
    """From the active player's Main Phase (1): roll `dice`, declare `ability`, opponents let it activate."""
    return go(m, {"type": "advance"}, {"type": "roll", "dice": dice}, {"type": "ability", "ability": ability},
              {"type": "pass"})


def illegal(m: Match, action: dict[str, Any]) -> IllegalAction:
    """Submit an action that must be refused; returns the error (and checks nothing changed)."""
    before = m.snapshot()
    try:
        m.submit(action)
    except IllegalAction as err:
        assert m.snapshot() == before
        return err
    raise AssertionError(f"{action} was accepted")


def attack_view(m: Match) -> dict[str, Any]:
    return m.snapshot()["roll_phase"]["attack"]


def end_roll_phase(m: Match) -> dict[str, Any]:
    """Resolve the last window; returns the summary of damage applied."""
    go(m, {"type": "resolve"})
    return m.snapshot()["last_roll_phase"]


def random_action(m: Match, r: Any) -> dict[str, Any]:
    """A random legal action: one of the pending decision's options, sometimes an extra card or spend."""
    opts = view.options(m.state)  # the labelled options (defaults marked), as the page shows them
    state = m.state
    if r.random() < 0.1 and state["rp"] is not None:
        p = r.choice([p["id"] for p in state["players"] if not p["out"]])
        return r.choice([
            {"type": "play", "player": p, "card": "Six-It!", "die": r.randrange(5)},
            {"type": "play", "player": p, "card": "Tip It!", "die": r.randrange(5), "delta": r.choice([1, -1])},
            {"type": "play", "player": p, "card": "Not This Time!"},
            {"type": "play", "player": p, "card": "One More Time!"},
            {"type": "play", "player": p, "card": "Getting Paid!"},
            {"type": "bonus", "amount": r.randint(-3, 5)},
            {"type": "adjust", "player": p, "status": {r.choice(["evasive", "protect", "chi", "bounty", "wither",
                                                                 "poison", "burn", "shame", "honor"]): 1}},
        ])
    if state["pending"]["kind"] == "offense" and state["attempts"] and r.random() < 0.5:
        abilities = [o for o in opts if o["action"]["type"] == "ability" and o["action"]["ability"]]
        if abilities:
            return r.choice(abilities)["action"]
    if r.random() < 0.7:
        for o in opts:
            if o.get("default"):
                return o["action"]
    action = r.choice(opts)["action"]
    if action["type"] == "spend" and r.random() < 0.5:
        action = {**action, "await_roll": True}   # the token's die comes from the camera
    return action
