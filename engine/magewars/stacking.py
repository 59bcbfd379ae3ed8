"""Numbers the rules stack in their own way, and the enchantments that give them to an object.

Players enter what they read off each card: "Aegis 1" on the creature and "Aegis 2" on an enchantment attached
to it, "Regenerate 1" and "Regenerate 3", "Tough -3". The engine keeps every source and applies the stacking
rule itself, so "highest only" is never the players' arithmetic (issue 33):
- Aegis: the highest counts (reference §7.1: does not stack);
- Regenerate: the highest counts (§10);
- Tough: each source counts, so two add up (the reference sets no limit on it; see docs/actions.md, Mage Wars,
  "Decisions on the reference's open points").

An object keeps its own sources in `traits.aegis`, `traits.tough` and `regenerate` (lists of magnitudes; a
game saved before lists were kept holds one number, read as a list of one). An enchantment (`kind`
"enchantment") attached to an object (`on`) adds its `grants` while both are in play, and leaves play with it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..checks import whole
from ..core import require

RULES: dict[str, Callable[[Iterable[int]], int]] = {"aegis": max, "regenerate": max, "tough": sum}
MAX_SOURCES = 6
MAX_VALUE = 10


def parse_values(raw: Any, what: str) -> list[int]:
    """A value as printed, or a list of them (one per card): "Tough -3" may be given as -3 or 3."""
    values = raw if isinstance(raw, list) else [raw]
    require(len(values) <= MAX_SOURCES, "bad_object", f"{what} lists at most {MAX_SOURCES} values, one per card.")
    return [abs(v) for v in (whole(v, what, -MAX_VALUE, MAX_VALUE, "bad_object") for v in values) if v]


def parse_grants(raw: Any) -> dict[str, list[int]]:
    """An enchantment's `grants`, e.g. {"aegis": 2, "regenerate": 1, "tough": -2}."""
    if raw is None:
        return {}
    require(isinstance(raw, dict) and set(raw) <= set(RULES), "bad_object",
            "An enchantment grants any of " + ", ".join(RULES) + ", like {\"aegis\": 2}.")
    grants = {key: parse_values(value, f"The granted {key}") for key, value in raw.items()}
    return {key: values for key, values in grants.items() if values}


def sources(stored: Any) -> list[int]:
    """The stored sources of a value as a list (a single number in games saved before lists)."""
    if isinstance(stored, list):
        return [int(v) for v in stored]
    return [int(stored)] if stored else []


def own_sources(o: dict[str, Any], key: str) -> list[int]:
    return sources(o.get("regenerate") if key == "regenerate" else o.get("traits", {}).get(key))


def enchantments_on(s: dict[str, Any], o: dict[str, Any]) -> list[dict[str, Any]]:
    """The enchantments in play attached to `o`, in registration order."""
    found = (s["objects"][i] for i in s["order"])
    return [e for e in found if e["kind"] == "enchantment" and e.get("on") == o["id"] and not e["destroyed"]]


def applied(s: dict[str, Any], o: dict[str, Any]) -> dict[str, int]:
    """The Aegis, Regenerate and Tough the rules apply to `o` now, every source stacked by its rule."""
    granted = [e.get("grants", {}) for e in enchantments_on(s, o)]
    out = {}
    for key, rule in RULES.items():
        values = own_sources(o, key) + [v for g in granted for v in g.get(key, [])]
        out[key] = rule(values) if values else 0
    return out


def as_rules_see(s: dict[str, Any], o: dict[str, Any]) -> dict[str, Any]:
    """`o` with its stacked values in place of their sources, for the dice arithmetic (engine/magewars/dice)."""
    values = applied(s, o)
    traits = {**o["traits"], "aegis": values["aegis"], "tough": values["tough"]}
    return {**o, "traits": traits, "regenerate": values["regenerate"]}


def orphans(s: dict[str, Any]) -> list[dict[str, Any]]:
    """Enchantments still in play whose object has left it: they leave with it."""
    objects = s["objects"]
    return [e for e in objects.values() if e["kind"] == "enchantment" and not e["destroyed"]
            and e.get("on") is not None and objects[e["on"]]["destroyed"]]
