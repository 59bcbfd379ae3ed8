"""The small effect language hero and card data are written in, and its interpreter.

An effect is `{"do": ..., "amount"/"status"/"count"..., "if": {...}, "per"/"sum"...}`. Conditions look at
the ability's final dice (`kind`: n of a kind by number) or at the dice the effect itself rolled (`on`,
`count`, `sum_at_least`), following the wording rules of §7.4 ("on X" = once, "N x X" = per die).
Effects that need input (a roll, an opposed roll, a choice) are run by the roll-phase code; the rest are
here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import asks, companions
from . import state as st
from .damage import MODIFIER, PREVENT, packet
from .data import statuses
from .dice import half_up, most_of_a_kind, symbol_counts
from .heroes import hero
from .words import words

TARGETED = {"inflict", "steal_cp", "opposed"}
Ctx = dict[str, Any]


def needs_target(eff: dict[str, Any]) -> bool:
    """Whether the effect touches the target, so the target must be known first (§2.5)."""
    if "to" in eff:        # a chosen player: no target needed (§2.5, special targeting)
        return False
    if eff["do"] == "choose":
        return any(needs_target(e) for o in eff["options"] for e in o["effects"])
    if eff["do"] == "damage":
        return eff.get("type") != "collateral"
    return eff["do"] in TARGETED


def check(cond: dict[str, Any] | None, ctx: Ctx) -> bool:
    """Does the effect's `if` hold? No condition = always; else every part it states (in _CONDITIONS' order)."""
    if not cond:
        return True
    roll = ctx.get("roll") or []
    faces = ctx["faces"]
    return all(holds(cond[key], ctx, roll, faces) for key, holds in _CONDITIONS if key in cond)


def _of_a_kind(want: int, ctx: Ctx, roll: list[int], faces: list[str]) -> bool:
    """The final dice have `want` of a kind (no final dice yet: read as a straight, so never)."""
    return not most_of_a_kind(ctx.get("final") or [1, 2, 3, 4, 5]) < want


def _rolled(sym: str, ctx: Ctx, roll: list[int], faces: list[str]) -> bool:
    return sym in (faces[v - 1] for v in roll)


def _not_rolled(sym: str, ctx: Ctx, roll: list[int], faces: list[str]) -> bool:
    return sym not in (faces[v - 1] for v in roll)


def _counts_met(need: dict[str, int], dice: list[int], faces: list[str]) -> bool:
    counts = symbol_counts(dice, faces)
    return not any(counts.get(k, 0) < n for k, n in need.items())


def _rolled_counts(need: dict[str, int], ctx: Ctx, roll: list[int], faces: list[str]) -> bool:
    return _counts_met(need, roll, faces)


def _final_counts(need: dict[str, int], ctx: Ctx, roll: list[int], faces: list[str]) -> bool:
    return _counts_met(need, ctx.get("final") or [], faces)


def _sum_at_least(n: int, ctx: Ctx, roll: list[int], faces: list[str]) -> bool:
    return not sum(roll) < n


def _sum_at_most(n: int, ctx: Ctx, roll: list[int], faces: list[str]) -> bool:
    return not sum(roll) > n


def _none_of(syms: list[str], ctx: Ctx, roll: list[int], faces: list[str]) -> bool:
    return not any(faces[v - 1] in syms for v in roll)


# The parts an effect's `if` may state, checked in this order (the first that fails decides).
_CONDITIONS: tuple[tuple[str, Callable[[Any, Ctx, list[int], list[str]], bool]], ...] = (
    ("kind", _of_a_kind), ("on", _rolled), ("not_on", _not_rolled), ("count", _rolled_counts),
    ("sum_at_least", _sum_at_least), ("sum_at_most", _sum_at_most), ("none_of", _none_of),
    ("final_count", _final_counts),
)


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
    if "plus_cp" in eff:  # "damage equal to (half) your CP" (Shadow Thief): CP held when the effect applies
        cp = s["players"][ctx["owner"]]["cp"]
        n += half_up(cp) if eff["plus_cp"] == "half" else cp
    return n


# -- handlers: one per `do`, each given the effect, its context and its number (`amount` above) -------
Handler = Callable[[st.S, dict[str, Any], Ctx, int], list[dict[str, Any]]]


def do_damage(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    """Offense adds to the attack (§8.1); collateral hits every opponent; other roles make a packet."""
    owner, other = ctx["owner"], ctx.get("other")
    dtype = eff.get("type", "normal")
    if dtype == "collateral":
        for j in st.opponents(s, owner):
            add_packet(s, packet(j, owner, n, "collateral", orp=ctx["role"] == "offense",
                                 source=ctx.get("source", "")))
    elif ctx["role"] == "offense":
        atk = s["rp"]["attack"]
        atk["amount"] += n
        if dtype != "normal" and atk["type"] in ("normal", "undefendable"):
            atk["type"] = dtype
    elif other is not None:
        add_packet(s, packet(other, owner, n, dtype, source=ctx.get("source", "")))
    return []


def do_bonus(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    """An attack modifier on the owner's own attack in progress (§8.1)."""
    rp = s["rp"]
    atk = rp and rp.get("attack")
    if atk and atk["from"] == ctx["owner"] and rp.get("target") is not None:
        atk["mods"].append([n, MODIFIER, ctx.get("source", "")])
    else:
        st.note(s, f"{ctx.get('source', 'A modifier')} had no attack to add to.")
    return []


def do_recoil(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    s["rp"]["recoil"] = n
    return []


def do_heal(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    """Heal the owner, or with `companion` the owner's companion (its own health, at once)."""
    if "companion" in eff:
        return companions.heal(s, ctx["owner"], eff["companion"], n)
    add_heal(s, ctx["owner"], n)
    return []


def do_grow(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    """Grow n Spirits (the Treant): each step a new one or a promoted one, asked when both are possible."""
    return companions.grow(s, ctx["owner"], n, ctx.get("source", ""))


def do_cp(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    st.gain_cp(s, ctx["owner"], n)
    return []


def do_steal_cp(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    """The victim loses it all, the thief is capped (§4 AMB)."""
    other = ctx.get("other")
    if other is not None:
        took = min(n, s["players"][other]["cp"])
        s["players"][other]["cp"] -= took
        st.gain_cp(s, ctx["owner"], took)
    return []


def do_steal_health(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    other = ctx.get("other")
    if other is not None:
        add_packet(s, packet(other, ctx["owner"], n, "pure", source=ctx.get("source", "")))
        add_heal(s, ctx["owner"], n)
    return []


def do_lose_cp(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    other = ctx.get("other")
    if other is not None:
        s["players"][other]["cp"] = max(0, s["players"][other]["cp"] - n)
    return []


def do_draw(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    st.draw(s, ctx["owner"], n)
    return []


def do_gain(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    return give_status(s, ctx["owner"], eff["status"], n, ctx["owner"])


def do_inflict(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    other = ctx.get("other")
    if other is None:
        st.note(s, f"{statuses()[eff['status']]['name']['en']} needs a chosen player (adjust by hand).")
        return []
    return give_status(s, other, eff["status"], n, ctx["owner"])


def give_status(s: st.S, j: int, status: str, n: int, source: int) -> list[dict[str, Any]]:
    """Tokens for player j, who may first decline them when the status says its owner may (the Cursed
    Pirate and Cursed Doubloons, heroes §2: "The Pirate may decline any gain"): then j is asked."""
    row = statuses().get(status)
    if row and row.get("owner_may_decline") and n > 0 and st.owns(s, j, status):
        name = row["name"]["en"]
        asks.ask(s, j, f"{s['players'][j]['name']}: take {n} {name}, or decline?", [
            {"label": f"Take {n} {name}", "text": words("take_tokens", n=str(n), status=row["name"]), "op": "status",
             "args": {"to": j, "status": status, "n": n, "source": source}},
            {"label": "Decline", "text": words("decline"), "op": "nothing"}],
            {"effect": "may_decline", "status": status, "count": n})
        return []
    return st.gain_status(s, j, status, n, source=source)


@asks.op("status")
def _status(s: st.S, args: dict[str, Any]) -> list[dict[str, Any]]:
    return st.gain_status(s, args["to"], args["status"], args["n"], source=args["source"])


# -- "a chosen player" (rules §6.1: gain on yourself or a chosen player; §2.5: such effects skip targeting) --
def choices_for(s: st.S, owner: int, to: str) -> list[int]:
    """Who an effect with `to` may go to: "chosen" any living player (you first, then turn order),
    "opponent" a living opponent, "teammate" a living teammate other than you."""
    order = s["order"]
    k = order.index(owner)
    rotated = [j for j in order[k:] + order[:k] if st.alive(s, j)]
    team = s["players"][owner]["team"]
    if to == "chosen":
        return rotated
    if to == "opponent":
        return [j for j in rotated if s["players"][j]["team"] != team]
    return [j for j in rotated if j != owner and s["players"][j]["team"] == team]


def choose_player(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    """An effect on a chosen player: asked when there is a real choice, applied at once when not."""
    owner = ctx["owner"]
    choices = choices_for(s, owner, eff["to"])
    if not choices:
        return []                     # e.g. "a chosen teammate" in 1v1: nobody to give it to
    if len(choices) == 1:
        return to_player(s, eff, ctx, n, choices[0])
    what = f"{n} {statuses()[eff['status']]['name']['en']}" if "status" in eff else f"{eff['do']} {n}"
    options = [{"label": s["players"][j]["name"], "player": s["players"][j]["id"], "op": "effect_to",
                "args": {"eff": eff, "ctx": ctx, "n": n, "to": j}} for j in choices]
    asks.ask(s, owner, f"{s['players'][owner]['name']}: who gets {what} ({eff['do']})?", options,
             {"effect": eff["do"], "status": eff.get("status"), "amount": n, "to": eff["to"],
              "source": ctx.get("source", "")})
    return []


def to_player(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int, j: int) -> list[dict[str, Any]]:
    """Apply an effect with `to` on player j (the chosen player) instead of its usual receiver; its `also`
    effects go to the same player ("a chosen player gains Flight and takes 3 undefendable damage")."""
    events = TO_PLAYER[eff["do"]](s, eff, ctx, n, j)
    for sub in eff.get("also", ()):
        events += TO_PLAYER[sub["do"]](s, sub, ctx, amount(sub, ctx, s), j)
    return events


@asks.op("effect_to")
def _effect_to(s: st.S, args: dict[str, Any]) -> list[dict[str, Any]]:
    return to_player(s, args["eff"], args["ctx"], args["n"], args["to"])


def _give_to(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int, j: int) -> list[dict[str, Any]]:
    return give_status(s, j, eff["status"], n, ctx["owner"])


def _heal_to(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int, j: int) -> list[dict[str, Any]]:
    add_heal(s, j, n)
    return []


def _damage_to(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int, j: int) -> list[dict[str, Any]]:
    add_packet(s, packet(j, ctx["owner"], n, eff.get("type", "normal"), orp=ctx["role"] == "offense",
                         source=ctx.get("source", "")))
    return []


def _remove_from(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int, j: int) -> list[dict[str, Any]]:
    st.remove_status(s, j, eff["status"], n)
    return []


def _cp_to(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int, j: int) -> list[dict[str, Any]]:
    st.gain_cp(s, j, n)
    return []


def _draw_to(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int, j: int) -> list[dict[str, Any]]:
    st.draw(s, j, n)
    return []


TO_PLAYER: dict[str, Callable[[st.S, dict[str, Any], Ctx, int, int], list[dict[str, Any]]]] = {
    "gain": _give_to, "inflict": _give_to, "heal": _heal_to, "damage": _damage_to, "remove": _remove_from,
    "cp": _cp_to, "draw": _draw_to,
}
"""The effects that may name a chosen player with `to` (tests/engine/test_engine_layout.py checks the data)."""


def do_remove(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    st.remove_status(s, ctx["owner"], eff["status"], n)
    return []


def do_limit(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    """Raise the owner's stack limit of a status (e.g. a passive that holds more tokens)."""
    owner = ctx["owner"]
    st.put(s["players"][owner], "limits", eff["status"], st.limit(s, owner, eff["status"]) + n)
    return []


def do_undefendable(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    if s["rp"]:
        s["rp"]["undefendable"] = True
    return []


def do_prevent(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    """Flat prevention; `all` ignores the incoming damage altogether (other effects still apply)."""
    target = incoming(s, ctx["owner"])
    if target is not None:
        if eff.get("all"):
            target["avoided"] = True
        else:
            target["mods"].append([-n, PREVENT, ctx.get("source", "")])
    return []


def do_prevent_half(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    target = incoming(s, ctx["owner"])
    if target is not None:
        target["halves"].append(ctx.get("source", ""))
    return []


def do_cleanse(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    """Remove one negative status token from the owner, or every one with `all` (Shadow Shank!)."""
    while cleanse(s, ctx["owner"]) is not None and eff.get("all"):
        pass
    return []


def do_flip(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    """Turn a two-sided hero board (Cursed Pirate): every slot with a level of that `form` now uses it,
    for the rest of the game; nothing happens if the board already shows that side, or (`unless_holds`)
    while the owner still holds that token."""
    p = s["players"][ctx["owner"]]
    if eff.get("unless_holds") and st.has(s, ctx["owner"], eff["unless_holds"]):
        return []
    events: list[dict[str, Any]] = []
    for ability in hero(p["hero"])["abilities"]:
        for level in ability["levels"]:
            if level.get("form") == eff["form"] and p["upgrades"].get(ability["id"], 1) != level["level"]:
                st.put(p, "upgrades", ability["id"], level["level"])
                events.append({"type": "upgraded", "player": p["id"], "ability": ability["id"],
                               "level": level["level"]})
    if events:
        st.note(s, f"{p['id']} turns the hero board to its {eff['form']} side.")
    return events


# -- "choose one" / "you may": the owner picks one of several lists of effects ---------------------------
def choice_options(s: st.S, eff: dict[str, Any], ctx: Ctx) -> list[dict[str, Any]]:
    """The options of a `choose` effect the owner can take now: an option with `requires` ({"status": id,
    "count": n} or {"cp": n}) needs the owner to hold that much ("you may discard a Spirit to...")."""
    owner = ctx["owner"]
    out = []
    for o in eff["options"]:
        need = o.get("requires") or {}
        if "status" in need and st.has(s, owner, need["status"]) < need.get("count", 1):
            continue
        if "cp" in need and s["players"][owner]["cp"] < need["cp"]:
            continue
        out.append(o)
    return out


def choice_ask(s: st.S, eff: dict[str, Any], ctx: Ctx, available: list[dict[str, Any]], op: str) -> tuple[
        str, list[dict[str, Any]], dict[str, Any]]:
    """(prompt, options, about) of the question a `choose` effect asks; each option runs `op` with its effects."""
    owner = ctx["owner"]
    options = [{"label": o["label"]["en"], "text": o["label"], "op": op, "args": {"effects": o["effects"], "ctx": ctx}}
               for o in available]
    about = {"effect": "choose", "source": ctx.get("source", ""), "labels": [o["label"] for o in available]}
    return f"{s['players'][owner]['name']}: choose one.", options, about


def do_choose(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    """Choose one list of effects ("Choose: inflict Bleed or gain Mesmerize"; "you may ..." has a "no"
    option). One possible option runs at once; several ask the owner. (In an Offensive Roll Phase the ability
    pauses at this effect instead: combat.run_offense.)"""
    available = choice_options(s, eff, ctx)
    if len(available) <= 1:
        return run_effects(s, available[0]["effects"], ctx) if available else []
    asks.ask(s, ctx["owner"], *choice_ask(s, eff, ctx, available, "effects"))
    return []


def run_effects(s: st.S, effects: list[dict[str, Any]], ctx: Ctx) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for e in effects:
        events += apply(s, e, ctx)
    return events


@asks.op("effects")
def _effects_answer(s: st.S, args: dict[str, Any]) -> list[dict[str, Any]]:
    return run_effects(s, args["effects"], args["ctx"])


def do_manual(s: st.S, eff: dict[str, Any], ctx: Ctx, n: int) -> list[dict[str, Any]]:
    """What the engine cannot do: a note in the log and an event, for the players to do by hand. The data's
    text is a Text (en/zh-TW/ko): the note keeps the English line, the event carries every language."""
    text = eff["text"]
    st.note(s, text["en"] if isinstance(text, dict) else text)
    return [{"type": "manual", "text": text}]


HANDLERS: dict[str, Handler] = {
    "damage": do_damage, "bonus": do_bonus, "recoil": do_recoil, "heal": do_heal, "cp": do_cp,
    "steal_cp": do_steal_cp, "steal_health": do_steal_health, "lose_cp": do_lose_cp, "draw": do_draw,
    "gain": do_gain, "inflict": do_inflict, "remove": do_remove, "limit": do_limit,
    "undefendable": do_undefendable, "prevent": do_prevent, "prevent_half": do_prevent_half,
    "cleanse": do_cleanse, "manual": do_manual, "flip": do_flip, "grow": do_grow,
    "choose": do_choose,
}
PAUSING = frozenset({"roll", "opposed"})
"""Effects that wait for dice: the roll-phase code (combat.run_offense, cards.run_effects) runs them,
never `apply`. Every `do` in the data is in HANDLERS or here (tests/engine/test_dicethrone_effects.py)."""


def apply(s: st.S, eff: dict[str, Any], ctx: Ctx) -> list[dict[str, Any]]:
    """Apply one effect that needs no further input. `ctx`: owner, other, roll, final, faces, role, source."""
    cond = eff.get("if")
    if cond and not check(cond, ctx):
        return []
    if cond and "companion_active" in cond and not companions.active(s, ctx["owner"], cond["companion_active"]):
        return []
    handler = HANDLERS.get(eff["do"])
    if handler is None:  # a pausing effect reached outside a roll (e.g. in an Upkeep passive): nothing to do
        return []
    n = amount(eff, ctx, s)
    if "to" in eff:
        return choose_player(s, eff, ctx, n)
    if eff.get("consume"):  # "remove up to N tokens: X per token removed" (Combustion, Overgrowth)
        owner = ctx["owner"]
        held = st.has(s, owner, eff["per_status"])
        st.remove_status(s, owner, eff["per_status"], min(held, eff.get("cap", held)))
    return handler(s, eff, ctx, n)


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
