"""What phones see (the snapshot), the legal answers to the decision the game waits for (options), and what
the box's Next button submits (default_action)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import decision
from . import actions as act
from . import flow
from . import state as st
from .data import cards
from .odds import odds

S = st.S
LOG_KEEP = 25

THROW_NOTE = ("Throw only the dice you reroll: kept dice stay out of the tray, next to it.")


def _player(s: S, i: int) -> dict[str, Any]:
    p = s["players"][i]
    table = cards()
    out_cards = []
    for inst in p["cards"]:
        row: dict[str, Any] = {"uid": inst["uid"], "id": inst["id"], "cost": table[inst["id"]]["cost"]}
        for key in ("counters", "tokens"):
            if key in inst:
                row[key] = inst[key]
        if inst["id"] == "mimic":
            found = st.find_card(s, inst.get("copy"))
            row["copy"] = found[1]["id"] if found else None
        out_cards.append(row)
    return {"id": p["id"], "monster": p["monster"], "name": p["name"], "health": p["health"],
            "max_health": st.max_health(s, i), "vp": p["vp"], "energy": p["energy"], "location": p["loc"],
            "alive": p["alive"], "poison": p["poison"], "shrink": p["shrink"], "cards": out_cards,
            "active": i == s["active"] and not s["over"]}


def snapshot(s: S, viewer: str | None = None) -> dict[str, Any]:
    i = s["active"]
    buyer = i
    market = [None if cid is None else {"slot": k, "id": cid, "cost": cards()[cid]["cost"],
                                        "price": flow.price(s, buyer, cid)}
              for k, cid in enumerate(s["market"])]
    snap: dict[str, Any] = {
        "phase": s["phase"], "active": st.pid(s, i) if not s["over"] else None, "turn": s["turn"],
        "players": [_player(s, j) for j in range(len(s["players"]))],
        "tokyo": {"city": st.pid(s, s["city"]), "bay": st.pid(s, s["bay"]), "bay_open": s["bay_open"]},
        "market": market, "deck": len(s["deck"]), "discard": len(s["discard"]),
        "dice": [dict(d) for d in s["dice"]], "rolls": {"used": s["rolls"], "max": s["rolls_max"]},
        # the dice the tray reads and the page draws (as Dice Throne, Regidice and Mage Wars name theirs):
        # without it the box would read King of Tokyo dice as its configured pip d6
        "dice_set": "kingoftokyo",
        "pending": pending_decision(s), "over": s["over"], "winners": list(s["winners"]),
        "events": list(s["log"][-LOG_KEEP:]), "odds": odds(s),
        "stats": {k: dict(v) for k, v in s.get("stats", {}).items()},
    }
    if s["phase"] == "buy" and st.has(s, i, "made_in_a_lab") and s["deck"]:
        snap["deck_top"] = s["deck"][0]
    return snap


def _opt(label: str, action: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"label": label, "action": action, **extra}


def pending_decision(s: S) -> dict[str, Any] | None:
    """The decision the game waits for, as engine.core.decision: who, what kind, a prompt, the options."""
    if s["over"]:
        return None
    pending = s["pending"]
    opts = [_opt(_label(a), a) for a in options(s)]
    if pending is None:
        return _turn_decision(s, opts)
    j = pending["player"]
    who = st.pid(s, j)
    nm = st.name(s, j)
    kind = pending["kind"]
    ask = _ASKS.get(kind)
    prompt, extra = (kind, {}) if ask is None else ask(s, pending, nm, who)  # every pending kind is listed
    return decision(who, kind, prompt, opts, prompt_key=f"prompt.{kind}", params={"name": nm}, **extra)


def _turn_decision(s: S, opts: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The active monster's own step: rolling (with the dice the tray should read) or buying."""
    i = s["active"]
    who = st.pid(s, i)
    if s["phase"] == "roll":
        return _roll_decision(s, i, who, opts)
    if s["phase"] == "buy":
        p = s["players"][i]
        return decision(who, "buy", f"{st.name(s, i)}: buy power cards ({p['energy']} energy), sweep for 2, "
                        "or end the turn.", opts, prompt_key="prompt.buy",
                        params={"name": st.name(s, i), "energy": p["energy"]})
    return None


def _roll_decision(s: S, i: int, who: str, opts: list[dict[str, Any]]) -> dict[str, Any]:
    """A throw or a reroll: the tray reads the dice not kept (all of them for the first throw)."""
    free = [d for d in s["dice"] if not d["kept"]] if s["rolls"] else s["dice"]
    left = s["rolls_max"] - s["rolls"]
    if s["rolls"] == 0:
        prompt = f"{st.name(s, i)}: throw {len(s['dice'])} dice into the tray."
    else:
        prompt = (f"{st.name(s, i)}: keep dice and reroll the others ({left} roll"
                  f"{'' if left == 1 else 's'} left), or resolve. {THROW_NOTE}")
    colours = sorted({d["colour"] for d in free})
    return decision(who, "roll", prompt, opts, prompt_key="prompt.roll" if s["rolls"] == 0 else "prompt.reroll",
                    params={"name": st.name(s, i), "count": len(free), "left": left},
                    input={"type": "dice", "count": len(free), "dice_sets": ["kingoftokyo"],
                           "colours": colours, "player": who})


Ask = tuple[str, dict[str, Any]]  # a pending decision's English prompt and the decision's extra fields


def _ask_rolloff(s: S, pending: dict[str, Any], nm: str, who: str) -> Ask:
    return (f"{nm}: throw 6 dice for the first player (most claws starts).",
            {"input": {"type": "dice", "count": 6, "dice_sets": ["kingoftokyo"], "colours": ["black"], "player": who}})


def _ask_yield(s: S, pending: dict[str, Any], nm: str, who: str) -> Ask:
    if pending["jets"]:
        prompt = (f"{nm} is hit for {pending['damage']} in Tokyo: stay and lose {pending['damage']} heart(s), "
                  "or yield with Jets and lose none.")
    else:
        prompt = (f"{nm} lost {pending['damage']} heart(s) in Tokyo (health {pending['health']}): "
                  "stay in Tokyo or yield?")
    return prompt, {"damage": pending["damage"], "jets": pending["jets"], "attacker": st.pid(s, pending["by"])}


def _ask_defend(s: S, pending: dict[str, Any], nm: str, who: str) -> Ask:
    """A card against the coming damage; Camouflage throws a die per heart, so the tray reads them."""
    extra: dict[str, Any] = {"damage": pending["damage"]}
    if pending["camouflage"]:
        extra["input"] = {"type": "dice", "count": pending["damage"], "dice_sets": ["kingoftokyo"],
                          "colours": ["black"], "player": who,
                          "action": {"type": "defend", "with": "camouflage", "player": who}}
    return f"{nm} is about to lose {pending['damage']} heart(s): use a card?", extra


def _ask_cure(s: S, pending: dict[str, Any], nm: str, who: str) -> Ask:
    return (f"{nm}: {pending['hearts']} heart(s): heal, or remove Poison/Shrink tokens with some?",
            {"hearts": pending["hearts"]})


def _ask_healing_ray(s: S, pending: dict[str, Any], nm: str, who: str) -> Ask:
    return (f"{nm}: Healing Ray: heal another monster with a heart (it pays you), or keep the hearts?",
            {"hearts": pending["hearts"]})


def _ask_opportunist(s: S, pending: dict[str, Any], nm: str, who: str) -> Ask:
    return (f"{nm}: Opportunist: buy the card just revealed for {pending['price']} energy?",
            {"card": pending["card"], "price": pending["price"]})


def _ask_mimic(s: S, pending: dict[str, Any], nm: str, who: str) -> Ask:
    return f"{nm}: choose the keep card Mimic copies.", {}


def _ask_metamorph(s: S, pending: dict[str, Any], nm: str, who: str) -> Ask:
    return f"{nm}: Metamorph: sell keep cards for their cost in energy, or pass.", {}


def _ask_probe(s: S, pending: dict[str, Any], nm: str, who: str) -> Ask:
    return f"{nm}: Psychic Probe: reroll one of {st.name(s, s['active'])}'s dice, or pass.", {}


_ASKS: dict[str, Callable[[S, dict[str, Any], str, str], Ask]] = {
    "rolloff": _ask_rolloff, "yield": _ask_yield, "defend": _ask_defend, "cure": _ask_cure,
    "healing_ray": _ask_healing_ray, "opportunist": _ask_opportunist, "mimic": _ask_mimic,
    "metamorph": _ask_metamorph, "probe": _ask_probe,
}


def _label(a: dict[str, Any]) -> str:
    kind = a["type"]
    if kind == "buy" and "slot" in a:
        return f"buy slot {a['slot']}"
    if kind == "roll" and a.get("keep"):
        return "roll, keeping " + " ".join(str(k) for k in a["keep"])
    return kind.replace("_", " ")


def options(s: S) -> list[dict[str, Any]]:
    """Every legal answer to what the game waits for (a finite, useful set for free choices like keeping)."""
    if s["over"]:
        return []
    pending = s["pending"]
    if pending is not None:
        return _pending_options(s, pending)
    if s["steps"]:
        return []
    i = s["active"]
    me = st.pid(s, i)
    if s["phase"] == "roll":
        return _roll_options(s, i, me)
    if s["phase"] == "buy":
        return _buy_options(s, i, me)
    return []


def _roll_options(s: S, i: int, me: str) -> list[dict[str, Any]]:
    """The roll phase: the first roll (or resolving a roll the tray already gave), then rerolls with a few
    sensible keeps, resolving, and the cards that change the roll."""
    if s["rolls"] == 0:
        return [{"type": "roll", "player": me} if s["dice"] else {"type": "resolve", "player": me}]
    out = _reroll_options(s, me)
    out.append({"type": "resolve", "player": me})
    return out + _card_roll_options(s, i, me)


def _reroll_options(s: S, me: str) -> list[dict[str, Any]]:
    """Rerolls while rolls are left (the dice not kept as they are, or a keep of _keeps); after the last,
    only the reroll of 3s a card allows."""
    out: list[dict[str, Any]] = []
    if s["rolls"] < s["rolls_max"]:
        if any(not d["kept"] for d in s["dice"]):  # reroll the dice not kept, as they are kept now
            out.append({"type": "roll", "player": me})
        for keep in _keeps(s):
            out.append({"type": "roll", "player": me, "keep": keep})
    elif act.can_reroll_threes(s):
        out.append({"type": "roll", "player": me})
    return out


def _card_roll_options(s: S, i: int, me: str) -> list[dict[str, Any]]:
    """Cards that give the roll more: an extra roll (Energy Drink, Smoke Cloud), a die turned to 1 (Herd Culler)."""
    out: list[dict[str, Any]] = []
    if st.has(s, i, "energy_drink") and s["players"][i]["energy"] >= 1:
        out.append({"type": "extra_roll", "player": me, "card": "energy_drink"})
    if any(inst.get("tokens") for cid, _e, inst in st.card_effects(s, i) if cid == "smoke_cloud"):
        out.append({"type": "extra_roll", "player": me, "card": "smoke_cloud"})
    if st.has(s, i, "herd_culler") and not s["t"]["herd"]:
        k = next((k for k, d in enumerate(s["dice"]) if d["face"] != "1"), None)
        if k is not None:
            out.append({"type": "change_die", "player": me, "card": "herd_culler", "die": k})
    return out


def _buy_options(s: S, i: int, me: str) -> list[dict[str, Any]]:
    """The buy phase: each card the monster can afford, a sweep of the market, the deck's top card (Made in
    a Lab), and ending the turn."""
    p = s["players"][i]
    out: list[dict[str, Any]] = []
    for k, cid in enumerate(s["market"]):
        if cid is not None and p["energy"] >= flow.price(s, i, cid):
            out.append({"type": "buy", "player": me, "slot": k})
    if p["energy"] >= 2:
        out.append({"type": "sweep", "player": me})
    if st.has(s, i, "made_in_a_lab") and s["deck"] and p["energy"] >= flow.price(s, i, s["deck"][0]):
        out.append({"type": "buy", "player": me, "top": True})
    out.append({"type": "end", "player": me})
    return out


def _keeps(s: S) -> list[list[int]]:
    """A handful of sensible keeps: nothing, the claws, the hearts, the most common number, all but one."""
    dice = s["dice"]
    n = len(dice)
    picks = [[], [k for k, d in enumerate(dice) if d["face"] == "claw"],
             [k for k, d in enumerate(dice) if d["face"] == "heart"]]
    nums = [d["face"] for d in dice if d["face"] in ("1", "2", "3")]
    if nums:
        best = max(("1", "2", "3"), key=nums.count)
        picks.append([k for k, d in enumerate(dice) if d["face"] == best])
    if n > 1:
        picks.append(list(range(n - 1)))
    out: list[list[int]] = []
    for keep in picks:
        if len(keep) < n and keep not in out:
            out.append(keep)
    return out


def _pending_options(s: S, pending: dict[str, Any]) -> list[dict[str, Any]]:
    """Every answer to the pending question (a power's or a card's), each a whole action."""
    listed = _PENDING.get(pending["kind"])
    return listed(s, pending, st.pid(s, pending["player"])) if listed is not None else []


def _defences(s: S, pending: dict[str, Any], me: Any) -> list[dict[str, Any]]:
    """Take the hit, or one of the cards that may turn it (each offered only while the player has it)."""
    out = [{"type": "defend", "player": me, "with": "none"}]
    for card in ("wings", "camouflage", "rapid_healing"):
        if pending.get(card):
            out.append({"type": "defend", "player": me, "with": card})
    return out


def _cures(s: S, pending: dict[str, Any], me: Any) -> list[dict[str, Any]]:
    """Every split of the hearts between poison and shrink tokens, none beyond what the player has."""
    p, h = s["players"][pending["player"]], pending["hearts"]
    return [{"type": "cure", "player": me, "poison": a, "shrink": b}
            for a in range(min(h, p["poison"]) + 1) for b in range(min(h - a, p["shrink"]) + 1)]


def _or_pass(options: list[dict[str, Any]], me: Any) -> list[dict[str, Any]]:
    return [*options, {"type": "pass", "player": me}]


# each pending question's answers (`_pending_options`): (state, pending, its player's id) -> actions
_PENDING: dict[str, Callable[[S, dict[str, Any], Any], list[dict[str, Any]]]] = {
    "rolloff": lambda s, pending, me: [{"type": "roll", "player": me}],
    "yield": lambda s, pending, me: [{"type": "stay", "player": me}, {"type": "yield", "player": me}],
    "defend": _defences,
    "cure": _cures,
    "healing_ray": lambda s, pending, me: _or_pass(
        [{"type": "heal_other", "player": me, "target": st.pid(s, t)} for t in pending["targets"]
         if s["players"][t]["health"] < st.max_health(s, t)], me),
    "opportunist": lambda s, pending, me: _or_pass(
        [{"type": "buy", "player": me, "slot": pending["slot"]}], me),
    "mimic": lambda s, pending, me: _or_pass(
        [{"type": "mimic", "player": me, "target": uid} for uid in flow.mimic_targets(s)], me),
    "metamorph": lambda s, pending, me: _or_pass(
        [{"type": "sell", "player": me, "uid": c["uid"]} for c in s["players"][pending["player"]]["cards"]],
        me),
    "probe": lambda s, pending, me: _or_pass(
        [{"type": "probe", "player": me, "die": k} for k in range(len(s["dice"]))], me),
}


def default_action(s: S) -> dict[str, Any] | None:
    """The usual answer: resolve once rolled, end buying, stay in Tokyo, take the loss, heal, pass."""
    if s["over"] or s["steps"] and s["pending"] is None:
        return None
    pending = s["pending"]
    if pending is None:
        me = st.pid(s, s["active"])
        if s["phase"] == "roll":
            return {"type": "resolve", "player": me} if s["rolls"] or not s["dice"] else None
        if s["phase"] == "buy":
            return {"type": "end", "player": me}
        return None
    me = st.pid(s, pending["player"])
    kind = pending["kind"]
    return {"rolloff": None, "yield": {"type": "stay", "player": me},
            "defend": {"type": "defend", "player": me, "with": "none"},
            "cure": {"type": "cure", "player": me, "poison": 0, "shrink": 0}}.get(
        kind, {"type": "pass", "player": me})

