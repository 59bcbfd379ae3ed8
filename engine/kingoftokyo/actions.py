"""Every action King of Tokyo accepts (docs/actions.md, "King of Tokyo"): checked against the rules, then
applied to a private copy of the state. A refusal raises IllegalAction and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import IllegalAction, require
from ..kernel import find_seat
from . import cards as cardfx
from . import flow
from . import state as st
from .data import FACES, cards, face_of

S = st.S
Ev = list[dict[str, Any]]


# -- who acts --------------------------------------------------------------------------------------------
def actor(s: S, a: dict[str, Any]) -> int:
    """The monster the action is for: the pending decision's player, else the active monster. An explicit
    `player` naming someone else is refused with who is expected."""
    pending = s["pending"]
    expected = pending["player"] if pending is not None else s["active"]
    who = a.get("player")
    if who is not None and who != st.pid(s, expected):
        require(find_seat(s, who) is not None, "bad_player", f"There is no player \"{who}\".")
        raise IllegalAction("not_your_turn", f"It is {st.name(s, expected)}'s decision, not {who}'s.")
    return expected


def subject(s: S, a: dict[str, Any]) -> int:
    """The monster a free action (Rapid Healing, a correction) is about: `player`, required."""
    i = find_seat(s, a.get("player"))
    require(i is not None, "bad_player", "Name the monster with \"player\" (a player id from the setup).")
    return i  # type: ignore[return-value]


def expect_phase(s: S, *phases: str) -> None:
    require(s["pending"] is None and s["phase"] in phases and not s["steps"], "wrong_time",
            _wrong_time(s))


def _wrong_time(s: S) -> str:
    if s["pending"] is not None:
        return f"The game waits for {st.name(s, s['pending']['player'])} to decide ({s['pending']['kind']})."
    return f"That cannot be done now (phase: {s['phase']})."


def expect_pending(s: S, *kinds: str) -> dict[str, Any]:
    pending = s["pending"]
    require(pending is not None and pending["kind"] in kinds, "wrong_time", _wrong_time(s))
    return pending  # type: ignore[return-value]


# -- dice ------------------------------------------------------------------------------------------------
def read_dice(s: S, raw: Any, count: int) -> list[str]:
    """The faces of a throw: given (camera or by hand) or seeded; the count must match the dice thrown."""
    if raw is None:
        return [FACES[st.rand(s, 6)] for _ in range(count)]
    require(isinstance(raw, list), "bad_dice", "\"dice\" must be a list of faces: 1, 2, 3, heart, energy, claw.")
    out = []
    for die in raw:
        face = face_of(die)
        require(face is not None, "bad_dice",
                f"{die!r} is not a King of Tokyo face (1, 2, 3, heart, energy or claw).")
        out.append(face)  # type: ignore[arg-type]
    require(len(out) == count, "wrong_dice_count",
            f"This throw needs exactly {count} {'die' if count == 1 else 'dice'}, but {len(out)} were given.")
    return out


def set_keep(s: S, keep: Any) -> None:
    require(isinstance(keep, list) and all(isinstance(k, int) and not isinstance(k, bool) for k in keep),
            "bad_keep", "\"keep\" is a list of die numbers (0 is the first die).")
    require(all(0 <= k < len(s["dice"]) for k in keep), "bad_keep",
            f"Dice are numbered 0 to {len(s['dice']) - 1}.")
    require(s["rolls"] > 0 or not keep, "bad_keep", "Nothing can be kept before the first roll.")
    for k, d in enumerate(s["dice"]):
        d["kept"] = k in keep


def can_reroll_threes(s: S) -> bool:
    """Background Dweller: with no rolls left, dice showing 3 may still be rolled."""
    free = [d for d in s["dice"] if not d["kept"]]
    return bool(free) and st.has(s, s["active"], "background_dweller") > 0 and all(d["face"] == "3" for d in free)


def do_roll(s: S, a: dict[str, Any]) -> Ev:
    ev: Ev = []
    if s["phase"] == "rolloff":
        return do_rolloff(s, a)
    expect_phase(s, "roll")
    i = actor(s, a)
    if "keep" in a:
        set_keep(s, a["keep"])
    if s["rolls"] == 0:
        for d in s["dice"]:
            d["kept"] = False
    free = [d for d in s["dice"] if not d["kept"]]
    require(bool(s["dice"]), "no_dice", "This monster has no dice to roll this turn: resolve.")
    require(bool(free), "all_kept", "Every die is kept: release one to roll, or resolve.")
    dweller = False
    if s["rolls"] >= s["rolls_max"]:
        dweller = can_reroll_threes(s)
        require(dweller, "no_rolls", f"All {s['rolls_max']} rolls are used: resolve the dice.")
    faces = read_dice(s, a.get("dice"), len(free))
    for d, f in zip(free, faces, strict=True):
        d["face"] = f
    if not dweller:
        s["rolls"] += 1
    ev.append({"type": "rolled", "player": st.pid(s, i), "dice": faces, "roll": s["rolls"],
               "source": a.get("source", "manual"), "dweller": dweller})
    if not choices_left(s):
        start_resolve(s, ev)
    return ev


def choices_left(s: S) -> bool:
    """Whether the active monster may still do anything before its dice resolve (else they resolve at once)."""
    i = s["active"]
    p = s["players"][i]
    if s["rolls"] < s["rolls_max"] or can_reroll_threes(s):
        return True
    if st.has(s, i, "energy_drink") and p["energy"] >= 1:
        return True
    if any(inst.get("tokens") for cid, _e, inst in st.card_effects(s, i) if cid == "smoke_cloud"):
        return True
    if (st.has(s, i, "herd_culler") and not s["t"]["herd"]) or st.has(s, i, "plot_twist"):
        return True
    return bool(st.has(s, i, "stretchy") and p["energy"] >= 2)


def do_keep(s: S, a: dict[str, Any]) -> Ev:
    ev: Ev = []
    expect_phase(s, "roll")
    actor(s, a)
    set_keep(s, a.get("dice", a.get("keep")))
    # the faces kept, as the log says them ("Dice kept: claw claw heart"), and where they lie (0-based)
    kept = [k for k, d in enumerate(s["dice"]) if d["kept"]]
    ev.append({"type": "kept", "player": st.pid(s, s["active"]), "dice": [s["dice"][k]["face"] for k in kept],
               "at": kept})
    return ev


def do_extra_roll(s: S, a: dict[str, Any]) -> Ev:
    """One more roll: Energy Drink (pay 1 energy) or Smoke Cloud (spend a Smoke token)."""
    ev: Ev = []
    expect_phase(s, "roll")
    i = actor(s, a)
    require(s["rolls"] > 0, "roll_first", "Roll once before buying an extra roll.")
    card = a.get("card")
    p = s["players"][i]
    if card == "energy_drink":
        require(st.has(s, i, "energy_drink") > 0, "no_card", "Only a monster with Energy Drink can do that.")
        require(p["energy"] >= 1, "no_energy", "Energy Drink needs 1 energy.")
        p["energy"] -= 1
    elif card == "smoke_cloud":
        insts = [inst for cid, _e, inst in st.card_effects(s, i) if cid == "smoke_cloud" and inst.get("tokens")]
        require(bool(insts), "no_card", "Only a monster with Smoke Cloud and a Smoke token left can do that.")
        insts[0]["tokens"] -= 1
        if insts[0]["tokens"] == 0:
            flow._spent_card(s, i, insts[0], ev)
    else:
        raise IllegalAction("bad_card", "An extra roll comes from \"energy_drink\" or \"smoke_cloud\".")
    s["rolls_max"] += 1
    ev.append({"type": "extra_roll", "player": p["id"], "card": card, "rolls_max": s["rolls_max"]})
    return ev


def do_change_die(s: S, a: dict[str, Any]) -> Ev:
    """Herd Culler (to a 1, once a turn), Plot Twist (any face, then discarded), Stretchy (any face, 2 energy)."""
    ev: Ev = []
    expect_phase(s, "roll")
    i = actor(s, a)
    require(s["rolls"] > 0, "roll_first", "Roll before changing a die.")
    die = a.get("die")
    require(isinstance(die, int) and not isinstance(die, bool) and 0 <= die < len(s["dice"]), "bad_die",
            f"\"die\" is a die number from 0 to {len(s['dice']) - 1}.")
    card = a.get("card")
    p = s["players"][i]
    if card == "herd_culler":
        require(st.has(s, i, card) > 0 and not s["t"]["herd"], "no_card",
                "Herd Culler changes one die to a 1, once each turn.")
        face = "1"
        s["t"]["herd"] = True
    else:
        face = face_of(a.get("face"))  # type: ignore[assignment]
        require(face is not None, "bad_dice", "\"face\" is one of 1, 2, 3, heart, energy, claw.")
        if card == "plot_twist":
            insts = [inst for cid, _e, inst in st.card_effects(s, i) if cid == "plot_twist"]
            require(bool(insts), "no_card", "Only a monster with Plot Twist can do that.")
            flow._spent_card(s, i, insts[0], ev)
        elif card == "stretchy":
            require(st.has(s, i, card) > 0, "no_card", "Only a monster with Stretchy can do that.")
            require(p["energy"] >= 2, "no_energy", "Stretchy needs 2 energy.")
            p["energy"] -= 2
        else:
            raise IllegalAction("bad_card", "A die is changed by \"herd_culler\", \"plot_twist\" or \"stretchy\".")
    s["dice"][die]["face"] = face
    ev.append({"type": "die_changed", "player": p["id"], "card": card, "die": die, "face": face})
    if s["rolls"] >= s["rolls_max"] and not choices_left(s):
        start_resolve(s, ev)
    return ev


def do_resolve(s: S, a: dict[str, Any]) -> Ev:
    ev: Ev = []
    expect_phase(s, "roll")
    actor(s, a)
    require(s["rolls"] > 0 or not s["dice"], "roll_first", "Roll the dice first.")
    start_resolve(s, ev)
    return ev


def start_resolve(s: S, ev: Ev) -> None:
    s["phase"] = "resolve"
    others = [j for j in st.clockwise(s, s["active"]) if st.has(s, j, "psychic_probe")]
    steps: list[dict[str, Any]] = [{"do": "probe", "ask": others}] if others else []
    flow.push(s, *steps, {"do": "score"})


# -- roll-off for the first player -----------------------------------------------------------------------
def do_rolloff(s: S, a: dict[str, Any]) -> Ev:
    ev: Ev = []
    ro = s["rolloff"]
    i = actor(s, a)
    faces = read_dice(s, a.get("dice"), 6)
    ro["claws"][str(i)] = faces.count("claw")
    ev.append({"type": "rolloff", "player": st.pid(s, i), "dice": faces, "claws": faces.count("claw")})
    waiting = [j for j in ro["contenders"] if str(j) not in ro["claws"]]
    if waiting:
        s["pending"] = rolloff_pending(s, waiting[0])
        return ev
    best = max(ro["claws"].values())
    tied = [j for j in ro["contenders"] if ro["claws"][str(j)] == best]
    if len(tied) > 1:
        ev.append({"type": "rolloff_tie", "players": [st.pid(s, j) for j in tied]})
        s["rolloff"] = {"contenders": tied, "claws": {}}
        s["pending"] = rolloff_pending(s, tied[0])
        return ev
    s["rolloff"] = None
    s["pending"] = None
    ev.append({"type": "first_player", "player": st.pid(s, tied[0])})
    flow.start_turn(s, tied[0], ev)
    return ev


def rolloff_pending(s: S, i: int) -> dict[str, Any]:
    return {"kind": "rolloff", "player": i}


# -- buying ----------------------------------------------------------------------------------------------
def reveal(s: S, slot: int, ev: Ev) -> None:
    """Turn the deck's top card face up into `slot` (an empty deck is the discard pile shuffled: BGA's way),
    then give every other Opportunist a chance at it, clockwise from the active monster."""
    if not s["deck"] and s["discard"]:
        s["deck"] = st.shuffle(s, s["discard"])
        s["discard"] = []
        ev.append({"type": "reshuffled"})
    cid = s["deck"].pop(0) if s["deck"] else None
    s["market"][slot] = cid
    if cid is None:
        return
    ev.append({"type": "revealed", "card": cid, "slot": slot})
    owners = [j for j in st.clockwise(s, s["active"], include_start=True)
              if st.has(s, j, "opportunist") and j != s["active"]]
    if owners:
        s["steps"].append({"do": "opportunist", "slot": slot, "card": cid, "ask": owners})


def pay(s: S, i: int, cost: int, what: str) -> None:
    p = s["players"][i]
    require(p["energy"] >= cost, "no_energy", f"{what} costs {cost} energy; {p['name']} has {p['energy']}.")
    p["energy"] -= cost


def do_buy(s: S, a: dict[str, Any]) -> Ev:
    ev: Ev = []
    pending = s["pending"]
    if pending is not None and pending["kind"] == "opportunist":
        i = actor(s, a)
        slot = pending["slot"]
        require(a.get("slot", slot) == slot, "bad_slot", "Opportunist buys the card just revealed.")
        s["pending"] = None
        return _buy_slot(s, i, slot, ev)
    expect_phase(s, "buy")
    i = actor(s, a)
    if a.get("top"):
        require(st.has(s, i, "made_in_a_lab") > 0, "no_card", "Only Made in a Lab lets a monster buy the deck's top card.")
        require(bool(s["deck"]), "empty_deck", "The deck is empty.")
        cid = s["deck"][0]
        pay(s, i, flow.price(s, i, cid), cards()[cid]["name"]["en"])
        s["deck"].pop(0)
        ev.append({"type": "bought", "player": st.pid(s, i), "card": cid, "from": "deck"})
        cardfx.bought(s, i, cid, ev)
        return ev
    if "from" in a:
        return _buy_from(s, i, a, ev)
    _buy_slot(s, i, a.get("slot"), ev)
    return ev


def _buy_slot(s: S, i: int, slot: Any, ev: Ev) -> None:
    require(isinstance(slot, int) and not isinstance(slot, bool) and 0 <= slot < len(s["market"]), "bad_slot",
            "\"slot\" is 0, 1 or 2: one of the three face-up cards.")
    cid = s["market"][slot]
    require(cid is not None, "bad_slot", "That place of the market is empty.")
    pay(s, i, flow.price(s, i, cid), cards()[cid]["name"]["en"])
    ev.append({"type": "bought", "player": st.pid(s, i), "card": cid, "slot": slot})
    s["market"][slot] = None
    cardfx.bought(s, i, cid, ev)
    reveal(s, slot, ev)


def _buy_from(s: S, i: int, a: dict[str, Any], ev: Ev) -> None:
    """Parasitic Tentacles: buy a keep card from another monster, paying that monster."""
    require(st.has(s, i, "parasitic_tentacles") > 0, "no_card", "Only Parasitic Tentacles lets a monster buy others' cards.")
    j = find_seat(s, a.get("from"))
    require(j is not None and j != i and s["players"][j]["alive"], "bad_player", "\"from\" names another living monster.")
    found = st.find_card(s, a.get("uid"))
    require(found is not None and found[0] == j, "bad_card", "\"uid\" names a keep card of that monster.")
    _owner, inst = found  # type: ignore[misc]
    cost = flow.price(s, i, inst["id"])
    pay(s, i, cost, cards()[inst["id"]]["name"]["en"])
    s["players"][j]["energy"] += cost
    s["players"][j]["cards"] = [c for c in s["players"][j]["cards"] if c["uid"] != inst["uid"]]
    if inst["id"] == "mimic":
        inst["copy"] = None
    ev.append({"type": "bought", "player": st.pid(s, i), "card": inst["id"], "from": st.pid(s, j)})
    st.clamp_health(s, j)
    s["players"][i]["cards"].append(inst)
    st.count(s, i, "cards")
    st.gain_vp(s, i, st.amount(s, i, "vp_on_buy"), ev, why="media_friendly")
    if inst["id"] == "mimic":
        flow.push(s, {"do": "mimic", "player": i, "uid": inst["uid"]})


def do_sweep(s: S, a: dict[str, Any]) -> Ev:
    ev: Ev = []
    expect_phase(s, "buy")
    i = actor(s, a)
    pay(s, i, 2, "Sweeping the cards")
    for cid in s["market"]:
        if cid is not None:
            s["discard"].append(cid)
    ev.append({"type": "swept", "player": st.pid(s, i), "cards": list(s["market"])})
    s["market"] = [None, None, None]
    for slot in range(3):
        reveal(s, slot, ev)
    return ev


def do_end(s: S, a: dict[str, Any]) -> Ev:
    ev: Ev = []
    expect_phase(s, "buy")
    actor(s, a)
    s["phase"] = "end"
    flow.push(s, {"do": "metamorph"}, {"do": "end_effects"}, {"do": "finish_turn"})
    return ev


# -- answers to pending decisions ------------------------------------------------------------------------
def do_yield(s: S, a: dict[str, Any]) -> Ev:
    ev: Ev = []
    pending = expect_pending(s, "yield")
    i = actor(s, a)
    s["pending"] = None
    if pending["jets"]:
        s["steps"].pop(0)  # Jets: the claw damage it was about to take does not land
        ev.append({"type": "no_loss", "player": st.pid(s, i), "card": "jets", "amount": pending["damage"]})
    flow.do_yield(s, i, ev)
    return ev


def do_stay(s: S, a: dict[str, Any]) -> Ev:
    ev: Ev = []
    expect_pending(s, "yield")
    i = actor(s, a)
    s["pending"] = None
    ev.append({"type": "stayed", "player": st.pid(s, i), "place": s["players"][i]["loc"]})
    return ev


def do_defend(s: S, a: dict[str, Any]) -> Ev:
    """Before hearts are lost: pay 2 energy for Wings, roll Camouflage's dice, heal with Rapid Healing before a
    killing loss, or take the loss."""
    ev: Ev = []
    pending = expect_pending(s, "defend")
    i = actor(s, a)
    how = a.get("with", "none")
    step = s["steps"][0]
    if how == "wings":
        require(pending["wings"], "no_card", "Wings needs the card and 2 energy.")
        pay(s, i, 2, "Wings")
        s["t"]["wings"].append(i)
        ev.append({"type": "wings", "player": st.pid(s, i)})
    elif how == "camouflage":
        require(pending["camouflage"], "no_card", "Only a monster with Camouflage can roll it.")
        faces = read_dice(s, a.get("dice"), step["amount"])
        saved = faces.count("heart")
        step["amount"] -= saved
        ev.append({"type": "camouflage", "player": st.pid(s, i), "dice": faces, "saved": saved})
    elif how == "rapid_healing":
        require(pending.get("rapid_healing", False), "no_card", "Rapid Healing needs the card, 2 energy and a heart to gain.")
        pay(s, i, 2, "Rapid Healing")
        st.heal(s, i, 1, ev, why="rapid_healing")
        step["asked"] = False  # asked again: heal more, use another card, or take the loss
    else:
        require(how == "none", "bad_choice", "\"with\" is none, wings, camouflage or rapid_healing.")
    s["pending"] = None
    return ev


def do_cure(s: S, a: dict[str, Any]) -> Ev:
    """Hearts outside Tokyo: each may remove a Poison or Shrink token instead of healing 1."""
    ev: Ev = []
    pending = expect_pending(s, "cure")
    i = actor(s, a)
    p = s["players"][i]
    poison, shrink = a.get("poison", 0), a.get("shrink", 0)
    ok = all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (poison, shrink))
    require(ok and poison <= p["poison"] and shrink <= p["shrink"] and poison + shrink <= pending["hearts"],
            "bad_choice", f"Remove at most {pending['hearts']} tokens, no more than you have.")
    p["poison"] -= poison
    p["shrink"] -= shrink
    s["steps"][0]["n"] -= poison + shrink
    for token, k in (("poison", poison), ("shrink", shrink)):
        if k:
            ev.append({"type": "token", "player": p["id"], "token": token, "change": -k, "count": p[token]})
    s["pending"] = None
    return ev


def do_heal_other(s: S, a: dict[str, Any]) -> Ev:
    """Healing Ray: one heart heals another monster, which pays 2 energy (1 if it only has 1)."""
    ev: Ev = []
    pending = expect_pending(s, "healing_ray")
    i = actor(s, a)
    j = find_seat(s, a.get("target"))
    require(j is not None and j in pending["targets"], "bad_target", "Heal a wounded monster other than yourself.")
    step = s["steps"][0]
    q = s["players"][j]  # type: ignore[index]
    st.heal(s, j, 1, ev, why="healing_ray")  # type: ignore[arg-type]
    fee = min(2, q["energy"])
    q["energy"] -= fee
    s["players"][i]["energy"] += fee
    ev.append({"type": "energy", "player": st.pid(s, i), "change": fee, "energy": s["players"][i]["energy"],
               "why": "healing_ray"})
    step["n"] -= 1
    s["pending"] = None
    if step["n"] <= 0:
        s["steps"].pop(0)
    return ev


def do_sell(s: S, a: dict[str, Any]) -> Ev:
    """Metamorph: discard a keep card at the end of the turn for its full printed cost."""
    ev: Ev = []
    expect_pending(s, "metamorph")
    i = actor(s, a)
    found = st.find_card(s, a.get("uid"))
    require(found is not None and found[0] == i, "bad_card", "\"uid\" names one of your keep cards.")
    inst = found[1]  # type: ignore[index]
    cost = cards()[inst["id"]]["cost"]
    st.remove_card(s, i, inst, ev)
    st.gain_energy(s, i, cost, ev, why="metamorph", bonus=False)
    s["pending"] = None
    return ev


def do_mimic(s: S, a: dict[str, Any]) -> Ev:
    """Place the Mimic token: after buying Mimic, or at the start of one's turn for 1 energy."""
    ev: Ev = []
    pending = s["pending"]
    if pending is not None and pending["kind"] == "mimic":
        i = actor(s, a)
        inst = st.find_card(s, pending["uid"])
        s["pending"] = None
    else:
        expect_phase(s, "roll")
        i = actor(s, a)
        require(s["rolls"] == 0, "wrong_time", "The Mimic token moves at the start of your turn, before rolling.")
        mims = [c for c in s["players"][i]["cards"] if c["id"] == "mimic"]
        require(bool(mims), "no_card", "Only a monster with Mimic can move the Mimic token.")
        pay(s, i, 1, "Moving the Mimic token")
        inst = (i, mims[0])
    target = st.find_card(s, a.get("target"))
    require(target is not None and target[1]["id"] != "mimic", "bad_target",
            "\"target\" is the uid of a keep card in play (not Mimic itself).")
    mim = inst[1]  # type: ignore[index]
    mim["copy"] = target[1]["uid"]  # type: ignore[index]
    mim.pop("counters", None)
    mim.pop("tokens", None)
    cid = target[1]["id"]  # type: ignore[index]
    ev.append({"type": "mimic", "player": st.pid(s, i), "card": cid})
    cardfx.on_gain(s, i, cid, mim, ev)
    st.clamp_health(s, i)
    return ev


def do_probe(s: S, a: dict[str, Any]) -> Ev:
    """Psychic Probe: reroll one die of the active monster's final roll; a heart discards the card."""
    ev: Ev = []
    expect_pending(s, "probe")
    i = actor(s, a)
    die = a.get("die")
    require(isinstance(die, int) and not isinstance(die, bool) and 0 <= die < len(s["dice"]), "bad_die",
            f"\"die\" is a die number from 0 to {len(s['dice']) - 1}.")
    face = read_dice(s, a.get("dice"), 1)[0]
    s["dice"][die]["face"] = face
    ev.append({"type": "probed", "player": st.pid(s, i), "die": die, "face": face})
    if face == "heart":
        inst = next(inst for cid, _e, inst in st.card_effects(s, i) if cid == "psychic_probe")
        flow._spent_card(s, i, inst, ev)
    s["pending"] = None
    return ev


def do_pass(s: S, a: dict[str, Any]) -> Ev:
    """Decline an optional decision (Opportunist, Metamorph, Healing Ray, Psychic Probe, Mimic)."""
    ev: Ev = []
    pending = expect_pending(s, "opportunist", "metamorph", "healing_ray", "probe", "mimic")
    actor(s, a)
    if pending["kind"] in ("metamorph", "healing_ray"):
        s["steps"].pop(0)  # these re-ask until declined
        if pending["kind"] == "healing_ray":
            flow.push(s, {"do": "hearts", "n": pending["hearts"], "ray_done": True})
    s["pending"] = None
    return ev


# -- free actions ----------------------------------------------------------------------------------------
def do_rapid_heal(s: S, a: dict[str, Any]) -> Ev:
    """Rapid Healing: at any time, 2 energy for 1 health."""
    ev: Ev = []
    require(not s["over"], "game_over", "The game is over.")
    i = subject(s, a)
    p = s["players"][i]
    require(p["alive"] and st.has(s, i, "rapid_healing") > 0, "no_card", "Only a monster with Rapid Healing can do that.")
    require(p["health"] < st.max_health(s, i), "full_health", f"{p['name']} is already at full health.")
    pay(s, i, 2, "Rapid Healing")
    st.heal(s, i, 1, ev, why="rapid_healing")
    return ev


def do_adjust(s: S, a: dict[str, Any]) -> Ev:
    """The table corrects a monster's numbers by agreement (what the engine could not know): absolute values."""
    ev: Ev = []
    require(not s["over"], "game_over", "The game is over.")
    i = subject(s, a)
    p = s["players"][i]
    require(p["alive"], "bad_player", f"{p['name']} is out of the game.")
    limits = {"health": (1, st.max_health(s, i)), "vp": (0, 20), "energy": (0, 999), "poison": (0, 12),
              "shrink": (0, 12)}
    changed = {}
    for key, (low, high) in limits.items():
        if key in a:
            v = a[key]
            require(isinstance(v, int) and not isinstance(v, bool) and low <= v <= high, "bad_value",
                    f"{key} must be a whole number from {low} to {high}.")
            changed[key] = v
    require(bool(changed), "bad_value", "Say what to set: health, vp, energy, poison or shrink.")
    p.update(changed)
    ev.append({"type": "adjusted", "player": p["id"], **changed})
    return ev


HANDLERS: dict[str, Callable[[S, dict[str, Any]], Ev]] = {  # the kernel dispatches on these (engine.kernel)
    "roll": do_roll, "keep": do_keep, "extra_roll": do_extra_roll, "change_die": do_change_die,
    "resolve": do_resolve, "buy": do_buy, "sweep": do_sweep, "end": do_end, "yield": do_yield, "stay": do_stay,
    "defend": do_defend, "cure": do_cure, "heal_other": do_heal_other, "sell": do_sell, "mimic": do_mimic,
    "probe": do_probe, "pass": do_pass, "rapid_heal": do_rapid_heal, "adjust": do_adjust,
}
FREE = ("rapid_heal", "adjust")
