"""The small effect language hero and card data are written in, and its interpreter.

An effect is `{"do": ..., "amount"/"status"/"count"..., "if": {...}, "per"/"sum"...}`. Conditions look at
the ability's final dice (`kind`: n of a kind by number) or at the dice the effect itself rolled (`on`,
`count`, `sum_at_least`), following the wording rules of §7.4 ("on X" = once, "N x X" = per die).
Effects that need input (a roll, an opposed roll, a choice) are run by the roll-phase code; the rest are
here.
"""

from __future__ import annotations

from typing import Any

from ..dice import half_up, most_of_a_kind, symbol_counts
from . import state as st
from .damage import MODIFIER, PREVENT, packet
from .data import statuses

TARGETED = {"inflict", "steal_cp", "opposed"}
Ctx = dict[str, Any]


def needs_target(eff: dict[str, Any]) -> bool:
    """Whether the effect touches the target, so the target must be known first (§2.5)."""
    if eff["do"] == "damage":
        return eff.get("type") != "collateral"
    return eff["do"] in TARGETED


def check(cond: dict[str, Any] | None, ctx: Ctx) -> bool:
    """Does the effect's `if` hold? No condition = always."""
    if not cond:
        return True
    roll = ctx.get("roll") or []
    faces = ctx["faces"]
    if "kind" in cond and most_of_a_kind(ctx.get("final") or [1, 2, 3, 4, 5]) < cond["kind"]:
        return False
    if "on" in cond and cond["on"] not in (faces[v - 1] for v in roll):
        return False
    if "not_on" in cond and cond["not_on"] in (faces[v - 1] for v in roll):
        return False
    if "count" in cond:
        counts = symbol_counts(roll, faces)
        if any(counts.get(k, 0) < n for k, n in cond["count"].items()):
            return False
    if "sum_at_least" in cond and sum(roll) < cond["sum_at_least"]:
        return False
    if "sum_at_most" in cond and sum(roll) > cond["sum_at_most"]:
        return False
    if "none_of" in cond and any(faces[v - 1] in cond["none_of"] for v in roll):
        return False
    if "final_count" in cond:
        counts = symbol_counts(ctx.get("final") or [], faces)
        if any(counts.get(k, 0) < n for k, n in cond["final_count"].items()):
            return False
    return True


def amount(eff: dict[str, Any], ctx: Ctx, s: st.S) -> int:
    """The effect's number: flat, per symbol rolled, sum of the roll, half the roll, per token held."""
    n = int(eff.get("amount", eff.get("count", 1)))
    roll = ctx.get("roll") or []
    if eff.get("sum"):
        n *= sum(roll)
    if "per" in eff:
        pers = eff["per"] if isinstance(eff["per"], list) else [eff["per"]]
        counts = symbol_counts(roll, ctx["faces"])
        n *= sum(counts.get(sym, 0) for sym in pers) // eff.get("divisor", 1)
    if "per_final" in eff:
        n *= symbol_counts(ctx.get("final") or [], ctx["faces"]).get(eff["per_final"], 0)
    if eff.get("half_value"):
        n = half_up(sum(roll))
    if "per_status" in eff:
        held = st.has(s, ctx["owner"], eff["per_status"])
        n *= min(held, eff.get("cap", held))
    return n


def apply(s: st.S, eff: dict[str, Any], ctx: Ctx) -> list[dict[str, Any]]:
    """Apply one effect that needs no further input. `ctx`: owner, other, roll, final, faces, role."""
    if not check(eff.get("if"), ctx):
        return []
    do = eff["do"]
    owner, other = ctx["owner"], ctx.get("other")
    rp = s["rp"]
    n = amount(eff, ctx, s)
    if eff.get("consume"):  # "remove up to N tokens: X per token removed" (Combustion, Overgrowth)
        held = st.has(s, owner, eff["per_status"])
        st.remove_status(s, owner, eff["per_status"], min(held, eff.get("cap", held)))
    events: list[dict[str, Any]] = []
    if do == "damage":
        dtype = eff.get("type", "normal")
        if dtype == "collateral":
            for j in st.opponents(s, owner):
                add_packet(s, packet(j, owner, n, "collateral", orp=ctx["role"] == "offense",
                                     source=ctx.get("source", "")))
        elif ctx["role"] == "offense":
            atk = rp["attack"]
            atk["amount"] += n
            if dtype != "normal" and atk["type"] in ("normal", "undefendable"):
                atk["type"] = dtype
        elif other is not None:
            add_packet(s, packet(other, owner, n, dtype, source=ctx.get("source", "")))
    elif do == "bonus":
        atk = rp and rp.get("attack")
        if atk and atk["from"] == owner and rp.get("target") is not None:
            atk["mods"].append([n, MODIFIER, ctx.get("source", "")])
        else:
            st.note(s, f"{ctx.get('source', 'A modifier')} had no attack to add to.")
    elif do == "recoil":
        rp["recoil"] = n
    elif do == "heal":
        add_heal(s, owner, n)
    elif do == "cp":
        st.gain_cp(s, owner, n)
    elif do == "steal_cp" and other is not None:
        took = min(n, s["players"][other]["cp"])
        s["players"][other]["cp"] -= took
        st.gain_cp(s, owner, took)  # the victim loses it all, the thief is capped (§4 AMB)
    elif do == "steal_health" and other is not None:
        add_packet(s, packet(other, owner, n, "pure", source=ctx.get("source", "")))
        add_heal(s, owner, n)
    elif do == "lose_cp" and other is not None:
        s["players"][other]["cp"] = max(0, s["players"][other]["cp"] - n)
    elif do == "draw":
        st.draw(s, owner, n)
    elif do == "gain":
        events += st.gain_status(s, owner, eff["status"], n, source=owner)
    elif do == "inflict":
        if other is None:
            st.note(s, f"{statuses()[eff['status']]['name']['en']} needs a chosen player (adjust by hand).")
        else:
            events += st.gain_status(s, other, eff["status"], n, source=owner)
    elif do == "remove":
        st.remove_status(s, owner, eff["status"], n)
    elif do == "limit":
        st.put(s["players"][owner], "limits", eff["status"], st.limit(s, owner, eff["status"]) + n)
    elif do == "undefendable":
        if rp:
            rp["undefendable"] = True
    elif do == "prevent":
        target = incoming(s, owner)
        if target is not None:
            target["mods"].append([-n, PREVENT, ctx.get("source", "")])
    elif do == "prevent_half":
        target = incoming(s, owner)
        if target is not None:
            target["halves"].append(ctx.get("source", ""))
    elif do == "cleanse":
        cleanse(s, owner)
    elif do == "manual":
        st.note(s, eff["text"])
        events.append({"type": "manual", "text": eff["text"]})
    return events


def cleanse(s: st.S, i: int) -> str | None:
    """Remove one negative status token from player i (the first in the status table's order)."""
    for sid, row in statuses().items():
        if row["kind"] == "negative" and st.has(s, i, sid):
            st.remove_status(s, i, sid, 1)
            return sid
    return None


def add_packet(s: st.S, p: dict[str, Any]) -> None:
    """Damage in a Roll Phase waits for its end (§2.6); outside one it is applied at once."""
    if s["rp"] is not None:
        s["rp"]["packets"].append(p)
    else:
        st.apply_batch(s, {p["to"]: p["amount"]}, {})


def add_heal(s: st.S, i: int, n: int) -> None:
    if s["rp"] is not None:
        heals = s["rp"]["heals"]
        heals.append([i, n])
    else:
        st.apply_batch(s, {}, {i: n})


def incoming(s: st.S, i: int) -> dict[str, Any] | None:
    """The damage source player i's prevention acts on: the attack if i is its target, else i's first packet."""
    rp = s["rp"]
    if rp is None:
        return None
    atk = rp.get("attack")
    if atk and atk["to"] == i and rp.get("target") is not None:
        return atk
    for p in rp["packets"]:
        if p["to"] == i:
            return p
    return None
