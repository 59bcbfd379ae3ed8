"""Helpers for the Regidice tests: build a stated position, roll and declare through the real actions."""

from __future__ import annotations

from typing import Any

from engine.games import get_rules

RULES = get_rules("regidice")


def apply(s: dict[str, Any], action: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return RULES.apply(s, action)


def setup(players: int = 4, seed: int = 1, **position: Any) -> dict[str, Any]:
    config: dict[str, Any] = {"players": players}
    if position:
        config["position"] = position
    return RULES.setup(config, seed)


def roll_all(s: dict[str, Any], rolls: dict[str, list[str]]) -> dict[str, Any]:
    """Each player with dice rolls exactly the dice written for them ("R3"...), in turn order."""
    while s["phase"] == "roll":
        me = RULES.snapshot(s)["pending"]["player"]
        s, _ = apply(s, {"type": "roll", "player": me, "dice": rolls[me]})
    return s


def declare_all(s: dict[str, Any], decls: dict[str, dict[str, Any]]) -> tuple[dict[str, Any], list[dict]]:
    events: list[dict] = []
    while s["phase"] == "declare":
        me = RULES.snapshot(s)["pending"]["player"]
        s, ev = apply(s, {"type": "declare", "player": me, **decls[me]})
        events += ev
    return s, events


def to_resolve(rolls: dict[str, list[str]], decls: dict[str, dict[str, Any]], players: int | None = None,
               **position: Any) -> dict[str, Any]:
    """A round played up to the Resolve phase: pools holding the rolled colours, rolled, declared, collected."""
    n = players or len(rolls)
    pools = {p: [f"{d[0]}1" for d in dice] for p, dice in rolls.items()}
    s = setup(n, pools=pools, **position)
    s = roll_all(s, rolls)
    s, _ = declare_all(s, decls)
    s, _ = apply(s, {"type": "advance"})
    assert s["phase"] == "resolve"
    return s


def pool(s: dict[str, Any], player: str) -> list[str]:
    """A player's pool written colour letter + pips, sorted (order in the pool does not matter)."""
    return sorted(f"{d['id'][0]}{d['pips']}" for d in s["dice"] if d["at"] == "pool:" + player)


def pool_ids(s: dict[str, Any], player: str) -> list[str]:
    return [d["id"] for d in s["dice"] if d["at"] == "pool:" + player]


def where(s: dict[str, Any], place: str) -> list[dict[str, Any]]:
    return [d for d in s["dice"] if d["at"] == place]


def enemy_pips(s: dict[str, Any]) -> list[int]:
    return [d["pips"] for d in s["dice"] if d["at"] == "enemy"]
