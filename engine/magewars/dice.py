"""Mage Wars dice arithmetic (reference §7): attack faces, the number of dice, damage, the effect table and
the exact damage distribution for the battle calculator.

Everything here is a pure function of plain values so the attack sequence, the upkeep and the odds share
one formula, and the reference's test vectors (§13.1-13.3, §13.7) check it directly.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import cache
from typing import Any

from ..core import IllegalAction, require
from .stacking import RULES, sources

# Attack die faces (§2): OCTGN's order. A face is (points, critical).
FACES: dict[str, tuple[int, bool]] = {"blank": (0, False), "1": (1, False), "2": (2, False),
                                      "1*": (1, True), "2*": (2, True)}
_FACE_ALIASES = {"-": "blank", "0": "blank", "": "blank", "b": "blank", "1c": "1*", "2c": "2*",
                 "crit1": "1*", "crit2": "2*"}
SIDES = ("blank", "blank", "1", "2", "1*", "2*")  # the set's sides 1-6 (describe.py), as hand entry numbers them

MAX_DICE = 30  # more attack dice than any card bar plus every bonus; keeps a typo from rolling 10^6 dice
D12_TOP = 12


def parse_face(raw: Any) -> str:
    """An attack die face from an action: a face name ("blank"/"-", "1", "2", "1*", "2*"), a camera reading
    {"face": ...}, or a bare number 1-6 naming the set's side as the page's entry pad does (1-2 blank, 3 = 1,
    4 = 2, 5 = 1*, 6 = 2*: like every dice set, a die's number is its side)."""
    if isinstance(raw, dict):
        raw = raw.get("face", raw.get("value"))
    if isinstance(raw, int) and not isinstance(raw, bool) and 1 <= raw <= 6:
        return SIDES[raw - 1]
    if isinstance(raw, str):
        name = _FACE_ALIASES.get(raw.strip().lower(), raw.strip())
        if name in FACES:
            return name
    raise IllegalAction("bad_dice", f"An attack die shows blank, 1, 2, 1* or 2* (sides 1-6); {raw!r} is not one.")


def split_roll(faces: list[str]) -> tuple[int, int]:
    """(normal, critical) points of rolled attack faces (§7.2)."""
    normal = critical = 0
    for face in faces:
        points, crit = FACES[face]
        if crit:
            critical += points
        else:
            normal += points
    return normal, critical


def dice_count(attack: dict[str, Any], attacker: dict[str, Any], defender: dict[str, Any],
               *, first_strike: bool = True, barrier: bool = False) -> tuple[int, list[dict[str, Any]]]:
    """Number of attack dice (§7.1) and the terms that made it, for the step-by-step breakdown.

    Melee/Charge/Bloodthirsty bonuses count on the first strike only (§13.2 N6); Ranged +X never on zone
    attacks or damage barriers; Weak, Freeze and Stagger only on non-spell attacks and never on a damage
    barrier; Aegis takes the defender's value (it does not stack). Never below 1 unless the attack has no dice.
    """
    base = int(attack.get("dice", 0))
    terms: list[dict[str, Any]] = [{"term": "base", "n": base}]
    if base <= 0:
        return 0, terms
    n = base
    melee = attack.get("range", "melee") == "melee"
    if melee and first_strike and attack.get("melee_bonus"):
        terms.append({"term": "melee_bonus", "n": int(attack["melee_bonus"])})
    if not melee and not barrier and not attack.get("zone") and attack.get("ranged_bonus"):
        terms.append({"term": "ranged_bonus", "n": int(attack["ranged_bonus"])})
    kind = attack.get("type")
    mod = type_modifier(defender, kind)
    if mod:
        terms.append({"term": "weakness" if mod > 0 else "resistance", "n": mod, "kind": kind})
    vs = vs_bonus(attack, defender)
    if vs:
        terms.append({"term": "vs", "n": vs})
    aegis = stacked(defender, "aegis")
    if aegis:
        terms.append({"term": "aegis", "n": -aegis})
    if not attack.get("spell") and not barrier:
        cond = attacker.get("conditions", {})
        if cond.get("weak"):
            terms.append({"term": "weak", "n": -cond["weak"]})
        if cond.get("freeze"):
            terms.append({"term": "freeze", "n": -1})
        if cond.get("stagger"):
            terms.append({"term": "stagger", "n": -2 * cond["stagger"]})
    n = sum(t["n"] for t in terms)
    return max(n, 1), terms


def stacked(defender: dict[str, Any], key: str) -> int:
    """The defender's Aegis or Tough with its sources stacked by the rules (engine/magewars/stacking.py); the
    attack passes the defender with its enchantments' grants already folded in."""
    values = sources(defender.get("traits", {}).get(key))
    return RULES[key](values) if values else 0


def type_modifier(defender: dict[str, Any], kind: str | None) -> int:
    """The defender's weakness (+X) or resistance (-X) to a damage type, e.g. `Flame +2` (§7.1, §7.4)."""
    if not kind:
        return 0
    return int(defender.get("traits", {}).get("type_mods", {}).get(kind, 0))


def vs_bonus(attack: dict[str, Any], defender: dict[str, Any]) -> int:
    """Sum of the attack's "+X vs TRAIT" bonuses that the defender meets (e.g. +2 vs Nonliving)."""
    traits = defender.get("traits", {})
    total = 0
    for row in attack.get("vs", []):
        if traits.get(row["trait"]) or (row["trait"] == "living" and is_living(defender)):
            total += int(row["bonus"])
    return total


def is_living(obj: dict[str, Any]) -> bool:
    """Living unless Nonliving or Incorporeal (which is also Nonliving, §7.2); conjurations are not Living."""
    traits = obj.get("traits", {})
    return obj.get("kind") != "conjuration" and not traits.get("nonliving") and not traits.get("incorporeal")


def immune_to(obj: dict[str, Any], kind: str | None) -> bool:
    """Immunity to a damage type; Nonliving (and Incorporeal) objects are immune to poison (§7.2)."""
    if not kind:
        return False
    traits = obj.get("traits", {})
    if kind == "poison" and (traits.get("nonliving") or traits.get("incorporeal")):
        return True
    return kind in traits.get("immune", [])


def effective_armor(obj: dict[str, Any]) -> int:
    """Armor after Corrode markers, never below 0 (§7.2, §9)."""
    return max(int(obj.get("armor", 0)) - obj.get("conditions", {}).get("corrode", 0), 0)


def damage(faces: list[str], attack: dict[str, Any], defender: dict[str, Any]) -> dict[str, Any]:
    """Damage of one strike from its rolled faces (§7.2), with the parts the page shows step by step."""
    normal, critical = split_roll(faces)
    traits = defender.get("traits", {})
    out: dict[str, Any] = {"normal": normal, "critical": critical, "armor": 0, "rule": "standard"}
    if immune_to(defender, attack.get("type")):
        out.update(rule="immune", damage=0)
    elif traits.get("incorporeal") and not attack.get("ethereal"):
        ones = sum(1 for f in faces if FACES[f][0] == 1)
        out.update(rule="incorporeal", damage=ones)
    elif traits.get("incorporeal"):
        out.update(rule="ethereal", damage=normal + critical)
    elif attack.get("critical"):
        out.update(rule="critical_damage", damage=normal + critical)
    elif traits.get("resilient"):
        out.update(rule="resilient", damage=critical)
    else:
        armor = max(effective_armor(defender) - int(attack.get("piercing", 0)), 0)
        out.update(armor=armor, damage=max(normal - armor, 0) + critical)
    return out


# -- the effect table (§7.4) -----------------------------------------------------------------------------
_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)|(\+))?\s*$")
_EFFECT = re.compile(r"^\s*(\d+)?\s*([A-Za-z_ ]+?)\s*$")


def parse_effects(raw: Any, conditions: set[str]) -> list[dict[str, Any]]:
    """Effect rows `{"min", "max" (None = open), "condition", "count"}` from a table such as
    `"7-11 = Burn; 12 = 2 Burn"` or `"4-8 = Daze, 9+ = Stun"`, or from a list of such rows."""
    if raw in (None, "", []):
        return []
    if isinstance(raw, list):
        rows = [_effect_row(row, conditions) for row in raw]
    else:
        require(isinstance(raw, str) and len(raw) <= 200, "bad_attack",
                "The effect table is text like \"7-11 = Burn; 12 = 2 Burn\".")
        rows = [_read_effect(part, conditions) for part in re.split(r"[;,]", raw) if part.strip()]
    rows.sort(key=lambda r: r["min"])
    for a, b in zip(rows, rows[1:], strict=False):
        require(a["max"] is not None and a["max"] < b["min"], "bad_attack", "Two effect ranges overlap.")
    return rows


def _effect_row(row: Any, conditions: set[str]) -> dict[str, Any]:
    """One effect row given as an object, checked."""
    require(isinstance(row, dict) and isinstance(row.get("min"), int)
            and row.get("condition") in conditions, "bad_attack",
            "Each effect row needs a lowest roll and a condition.")
    hi = row.get("max")
    require(hi is None or (isinstance(hi, int) and hi >= row["min"]), "bad_attack",
            "An effect row's highest roll must not be below its lowest.")
    count = row.get("count", 1)
    require(isinstance(count, int) and 1 <= count <= 10, "bad_attack", "An effect places 1 to 10 markers.")
    return {"min": row["min"], "max": hi, "condition": row["condition"], "count": count}


def _read_effect(part: str, conditions: set[str]) -> dict[str, Any]:
    """One effect written as text: a range ("7-11", "12", "9+"), "=", a count and a condition ("2 Burn")."""
    left, sep, right = part.partition("=")
    span, what = _RANGE.match(left), _EFFECT.match(right)
    require(bool(sep and span and what), "bad_attack",
            f"Cannot read the effect \"{part.strip()}\": write it like \"7-11 = Burn\" or \"9+ = Stun\".")
    assert span and what
    name = what.group(2).strip().lower()
    require(name in conditions, "bad_attack", f"\"{what.group(2).strip()}\" is not a condition.")
    lo = int(span.group(1))
    hi = None if span.group(3) else int(span.group(2) or lo)
    require(hi is None or hi >= lo, "bad_attack", f"The range \"{left.strip()}\" runs backwards.")
    return {"min": lo, "max": hi, "condition": name, "count": int(what.group(1) or 1)}


def lookup_effect(rows: list[dict[str, Any]], adjusted: int) -> dict[str, Any] | None:
    """The row whose range holds the adjusted roll. Only an upper-open row ("9+") catches values above
    the die's top; a closed range ("9-12") does not, so a 12 pushed to 13 there places nothing (§7.4 step 3)."""
    for row in rows:
        hi = row["max"]
        if adjusted >= row["min"] and (hi is None or adjusted <= hi):
            return row
    return None


def adjust_effect_roll(d12: int, attack: dict[str, Any], defender: dict[str, Any]) -> tuple[int, list[dict]]:
    """The effect roll after the defender's weakness/resistance to the attack's type, Tough -X and the
    attack's VS bonuses (§7.4 step 2), with its terms."""
    terms: list[dict[str, Any]] = []
    mod = type_modifier(defender, attack.get("type"))
    if mod:
        terms.append({"term": "weakness" if mod > 0 else "resistance", "n": mod, "kind": attack.get("type")})
    tough = stacked(defender, "tough")
    if tough:
        terms.append({"term": "tough", "n": -abs(tough)})
    vs = vs_bonus(attack, defender)
    if vs:
        terms.append({"term": "vs", "n": vs})
    return d12 + sum(t["n"] for t in terms), terms


# -- the battle calculator (§7.3) -------------------------------------------------------------------------
ODDS_MAX_DICE = 20  # the calculator's exact enumeration grows as n^4; no real attack rolls more


@cache
def _face_counts(n: int) -> dict[tuple[int, int, int, int], Fraction]:
    """P(#1, #2, #1*, #2*) for n attack dice (each face 1/6; two blanks)."""
    dist: dict[tuple[int, int, int, int], Fraction] = {(0, 0, 0, 0): Fraction(1)}
    steps = [(0, 0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)]
    for _ in range(n):
        nxt: dict[tuple[int, int, int, int], Fraction] = {}
        for key, p in dist.items():
            for step in steps:
                k = (key[0] + step[0], key[1] + step[1], key[2] + step[2], key[3] + step[3])
                nxt[k] = nxt.get(k, Fraction(0)) + p / 6
        dist = nxt
    return dist


def damage_distribution(n: int, attack: dict[str, Any], defender: dict[str, Any]) -> dict[int, Fraction]:
    """Exact P(damage = k) for one strike of n dice against the defender (§7.3, §13.7), by the same
    `damage` formula the attack uses."""
    require(0 <= n <= ODDS_MAX_DICE, "bad_attack", f"The calculator takes 0 to {ODDS_MAX_DICE} dice.")
    out: dict[int, Fraction] = {}
    for (n1, n2, c1, c2), p in _face_counts(n).items():
        faces = ["1"] * n1 + ["2"] * n2 + ["1*"] * c1 + ["2*"] * c2
        dmg = damage(faces, attack, defender)["damage"]
        out[dmg] = out.get(dmg, Fraction(0)) + p
    return dict(sorted(out.items()))


def odds(n: int, attack: dict[str, Any], defender: dict[str, Any], remaining: int) -> dict[str, Any]:
    """Expected damage and the chance to destroy the defender (damage >= remaining life) before the roll."""
    dist = damage_distribution(min(n, ODDS_MAX_DICE), attack, defender)
    expected = sum(k * p for k, p in dist.items())
    destroy = sum(p for k, p in dist.items() if k >= remaining) if remaining > 0 else Fraction(1)
    return {"dice": n, "expected": round(float(expected), 3), "destroy": round(float(destroy), 4),
            "distribution": {str(k): round(float(p), 4) for k, p in dist.items()}}
