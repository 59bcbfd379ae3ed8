"""The final-damage algorithm of rules §10, as one pure function over a damage packet.

Order of use does not matter (EX-02): flat additions and subtractions make the add/subtract total, then
every halving (Protect, Duel, Retribution...) is computed separately from that same total, rounding up,
never chained. Damage types decide which entries count (§8): pure and collateral damage ignore attack
modifiers; ultimate damage ignores every reduction and reaction but keeps increases (§9).
"""

from __future__ import annotations

from typing import Any

from .dice import half_up

MODIFIER = "modifier"   # attack modifiers: Bounty, Reload, Get Some!, Wither, Shame...
PREVENT = "prevent"     # flat prevention: defensive abilities, Chi, Not This Time!...


def packet(to: int, frm: int | None, amount: int, dtype: str = "normal", *, attack: bool = False,
           orp: bool = False, source: str = "") -> dict[str, Any]:
    """One source of incoming damage to one player, with everything players add to it."""
    return {"to": to, "from": frm, "amount": amount, "type": dtype, "attack": attack, "orp": orp,
            "source": source, "mods": [], "halves": [], "reflect": [], "avoided": False}


def final_damage(amount: int, dtype: str, mods: list[list[Any]] | list[tuple[int, str]],
                 halves: int = 0, reflect: int = 0, avoided: bool = False) -> dict[str, Any]:
    """Damage taken and damage reflected for one incoming source (rules §10, §8, §9).

    `mods` are (amount, kind) pairs, kind MODIFIER or PREVENT; `halves` counts "prevent half" effects,
    `reflect` counts "deal half back" effects (Retribution). Returns total (the add/subtract total),
    prevented_half (each halving), taken, reflected (list of amounts back to the attacker).
    """
    ultimate = dtype == "ultimate"
    modifiable = dtype not in ("pure", "collateral")
    total = amount
    for entry in mods:
        n, kind = entry[0], entry[1]
        if kind == MODIFIER and not modifiable:
            continue
        if ultimate and n < 0:
            continue
        total += n
    total = max(0, total)
    if ultimate:
        return {"total": total, "halves": [], "taken": total, "reflected": []}
    cut = [half_up(total) for _ in range(halves)]
    back = [half_up(total) for _ in range(reflect)]
    taken = 0 if avoided else max(0, total - sum(cut))
    return {"total": total, "halves": cut, "taken": taken, "reflected": back}


def resolve(p: dict[str, Any]) -> dict[str, Any]:
    """final_damage for a packet dict."""
    return final_damage(p["amount"], p["type"], p["mods"], len(p["halves"]), len(p["reflect"]), p["avoided"])
