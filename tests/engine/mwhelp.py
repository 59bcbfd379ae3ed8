"""Helpers for the Mage Wars rules tests: a duel already in the Action stage, creatures registered by their
numbers, and short ways to submit the actions a phone would send."""

from __future__ import annotations

from typing import Any

from engine.games import get_rules

RULES = get_rules("magewars")


def duel(objects: list[dict[str, Any]] | None = None, **players: Any) -> dict[str, Any]:
    """A duel at the start of round 1's Action stage, p1 holding the initiative."""
    p1 = {"name": "Ana", "mage": "wizard", **players.get("p1", {})}
    p2 = {"name": "Ben", "mage": "warlock", **players.get("p2", {})}
    setup = {"players": [p1, p2], "initiative": "p1", "phase": "actions", "objects": objects or [],
             **players.get("extra", {})}
    return RULES.setup(setup, 1)


def act(s: dict[str, Any], *actions: dict[str, Any]) -> dict[str, Any]:
    for action in actions:
        s, _ = RULES.apply(s, action)
    return s


def creature(name: str, owner: str, life: int = 10, **kw: Any) -> dict[str, Any]:
    return {"name": name, "owner": owner, "life": life, "ready": True, **kw}


def by_name(s: dict[str, Any], name: str) -> dict[str, Any]:
    return next(o for o in s["objects"].values() if o["name"] == name)


def attack_with(s: dict[str, Any], attacker: str, target: str, **spec: Any) -> dict[str, Any]:
    """Activate `attacker` (when it is not acting yet) and declare an attack described by `spec`."""
    a, t = by_name(s, attacker), by_name(s, target)
    if s["acting"] != a["id"]:
        s = act(s, {"type": "activate", "object": a["id"]})
    return act(s, {"type": "attack", "target": t["id"], "attack": {"name": "Test", **spec}})


def roll(s: dict[str, Any], faces: list[str], effect: int | None = None) -> dict[str, Any]:
    action: dict[str, Any] = {"type": "roll", "dice": list(faces)}
    if effect is not None:
        action["effect"] = effect
    return act(s, action)


def d12(s: dict[str, Any], *values: int) -> dict[str, Any]:
    return act(s, {"type": "roll", "dice": list(values)})
