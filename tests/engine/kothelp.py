"""Helpers for King of Tokyo tests: mid-game setups and whole turns from the reference's dice notation."""

from __future__ import annotations

from typing import Any

from engine.games import get_rules

R = get_rules("kingoftokyo")
NAMES = ["gigazaur", "cyber_kitty", "space_penguin", "the_king", "meka_dragon", "alienoid"]
SHORT = {"C": "claw", "H": "heart", "E": "energy", "1": "1", "2": "2", "3": "3"}


def faces(text: str) -> list[str]:
    """The reference's notation (`C C 1 2 3 E`) as face names."""
    return [SHORT[t] for t in text.split()]


def game(*players: dict[str, Any], first: str = "p1", seed: int = 7, **extra: Any) -> dict[str, Any]:
    """A game already started at `first`'s turn; players given as dicts (monster defaults by seat)."""
    rows = []
    for k, row in enumerate(players):
        rows.append({"monster": NAMES[k], "id": f"p{k + 1}", **row})
    return R.setup({"players": rows, "first": first, **extra}, seed)


def act(s: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    return R.apply(s, action)[0]


def turn(s: dict[str, Any], dice: str) -> dict[str, Any]:
    """The active monster's whole roll: one throw with these final faces, then resolve."""
    s = act(s, {"type": "roll", "dice": faces(dice)})
    if s["phase"] == "roll":
        s = act(s, {"type": "resolve"})
    return s


def answer(s: dict[str, Any], kind: str, action: dict[str, Any]) -> dict[str, Any]:
    assert s["pending"] is not None and s["pending"]["kind"] == kind, s["pending"]
    return act(s, action)


def p(s: dict[str, Any], pid: str) -> dict[str, Any]:
    return next(x for x in s["players"] if x["id"] == pid)


def end(s: dict[str, Any]) -> dict[str, Any]:
    """End the buy phase (answering nothing else)."""
    assert s["phase"] == "buy" and s["pending"] is None, (s["phase"], s["pending"])
    return act(s, {"type": "end"})
