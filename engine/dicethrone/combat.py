"""The Roll Phase (§2.4-2.6): offensive rolls, declaration, activation, targeting, defense, damage.

The roll-phase context `s["rp"]` lives from the start of the Offensive Roll Phase to the end of the Roll
Phase; all damage and healing collects in it and is applied in one batch at its end (§2.6.6). Ability
effects run in order with a program counter so they can pause for a roll, a target or a choice and
resume when the answer arrives.
"""

from __future__ import annotations

from typing import Any

from ..core import IllegalAction, require
from . import asks, companions, flow
from . import effects as fx
from . import state as st
from .abilities import defense_level, effects_of, satisfied_sorted
from .damage import MODIFIER, resolve
from .heroes import hero
from .rollphase import DIE_VALUE, E, begin_orp, pend, values


def offense_roll(s: st.S, rolled: list[int]) -> E:
    """One roll attempt: the values fill the unkept dice in order."""
    k = 0
    for d in st.own_dice(s):
        if not d["kept"]:
            d["value"] = rolled[k]
            k += 1
    s["attempts"] += 1
    return [{"type": "rolled", "purpose": "offense", "dice": values(s), "attempt": s["attempts"]}]


def options_satisfied(s: st.S) -> list[dict[str, Any]]:
    """The abilities the offensive dice meet now (shared cached list: read it, do not change it)."""
    if s["attempts"] == 0:
        return []
    p = s["players"][s["rp"]["attacker"]]
    upgrades = p["upgrades"]
    return satisfied_sorted(p["hero"], tuple(sorted(upgrades.items())) if upgrades else (),
                            tuple(sorted(map(DIE_VALUE, s["dice"]))))


def declare(s: st.S, ability: str | None) -> E:
    """Declare one ability the final dice meet (or none); opponents then may change the dice (§2.4.2)."""
    rp = s["rp"]
    i = rp["attacker"]
    require(s["attempts"] > 0, "roll_first", "Roll the dice before choosing an ability.")
    if ability is None:
        rp["ability"] = None
        st.remove_status(s, i, "blind")  # Blind acts at the end of the holder's next ORP, even an empty one
        return finish_roll_phase(s, note="no ability")
    a = next((m for m in options_satisfied(s) if m["id"] == ability), None)
    if a is None:
        met = options_satisfied(s)
        raise IllegalAction("not_satisfied", f"The dice do not meet {ability.replace('_', ' ').title()} "
                            f"(they meet: {', '.join(m['name']['en'] for m in met) or 'nothing'}).")
    rp.update(ability=ability, level=a["level"], tier=a["tier"], ultimate=a["ultimate"],
              final=values(s))
    rp["attack"]["source"] = ability
    opp = st.opponents(s, i)
    pend(s, "confirm", opp[0] if opp else None)
    return [{"type": "declared", "player": s["players"][i]["id"], "ability": ability, "level": a["level"]}]


def dice_changed(s: st.S) -> E:
    """Someone changed the active player's dice after the declaration: choose again (§2.4.3)."""
    rp = s["rp"]
    if s["pending"]["kind"] == "confirm":
        rp.update(ability=None, level=None, tier=None, ultimate=False, final=None)
        pend(s, "offense", rp["attacker"])
        return [{"type": "redeclare", "player": s["players"][rp["attacker"]]["id"]}]
    return []


def activate(s: st.S) -> E:
    """The declaration stands: Blind may cancel it; then run the ability's effects (§2.4.4)."""
    rp = s["rp"]
    i = rp["attacker"]
    rp["stage"] = "effects"
    events: E = [{"type": "activated", "player": s["players"][i]["id"], "ability": rp["ability"],
                  "level": rp["level"], "ultimate": rp["ultimate"]}]
    if rp["ultimate"]:
        rp["attack"]["type"] = "ultimate"
    if st.has(s, i, "blind"):
        s["tray"] = "blind"
        s["dice"] = [{"value": 0, "kept": False}]
        pend(s, "blind_roll", i, dice=1)
        return events
    return events + run_offense(s)


def blind_rolled(s: st.S, v: int) -> E:
    rp = s["rp"]
    st.remove_status(s, rp["attacker"], "blind")
    events: E = [{"type": "blind", "value": v, "missed": v <= 2}]
    if v <= 2:
        rp["ability"] = None
        return events + finish_roll_phase(s, note="blind")
    return events + run_offense(s)


def _ctx(s: st.S, owner: int, other: int | None, role: str, roll: list[int] | None,
         source: str) -> dict[str, Any]:
    return {"owner": owner, "other": other, "role": role, "roll": roll, "source": source,
            "final": s["rp"]["final"] if s["rp"] else None, "faces": hero(s["players"][owner]["hero"])["faces"]}


def run_offense(s: st.S) -> E:
    """Run the activated ability's effects from the program counter until done or paused."""
    rp = s["rp"]
    i = rp["attacker"]
    hid = s["players"][i]["hero"]
    effs = effects_of(hid, rp["ability"], rp["level"], rp["tier"])
    events: E = []
    while rp["pc"] < len(effs):
        eff = effs[rp["pc"]]
        if fx.needs_target(eff) and rp["target"] is None and fx.check(eff.get("if"), _ctx(s, i, None, "offense", rp["roll"], "")):
            return events + start_targeting(s)
        if eff["do"] == "roll":
            s["tray"] = "ability"
            s["dice"] = [{"value": 0, "kept": False} for _ in range(eff["dice"])]
            pend(s, "ability_roll", i, dice=eff["dice"])
            return events
        if eff["do"] == "opposed":
            s["tray"] = "opposed"
            s["dice"] = [{"value": 0, "kept": False, "owner": s["players"][i]["id"]},
                         {"value": 0, "kept": False, "owner": s["players"][rp["target"]]["id"]}]
            pend(s, "opposed_roll", i, dice=2)
            return events
        if eff["do"] == "choose":   # the ability waits for the choice: later effects may depend on it
            ctx = _ctx(s, i, rp["target"], "offense", rp["roll"], rp["ability"])
            available = fx.choice_options(s, eff, ctx) if fx.check(eff.get("if"), ctx) else []
            if len(available) > 1:
                asks.pause(s, i, *fx.choice_ask(s, eff, ctx, available, "resume_offense"))
                return events
        events += fx.apply(s, eff, _ctx(s, i, rp["target"], "offense", rp["roll"], rp["ability"]))
        rp["pc"] += 1
    return events + after_offense(s)


@asks.op("resume_offense")
def _resume_offense(s: st.S, args: dict[str, Any]) -> E:
    """The attacker chose: run that option's effects, then the ability's next effects."""
    events = fx.run_effects(s, args["effects"], args["ctx"])
    s["rp"]["pc"] += 1
    return events + run_offense(s)


def ability_rolled(s: st.S, rolled: list[int]) -> E:
    """An ability's own dice are on the tray; cards may still change them before they are read (§2.4).

    A roll effect with `reroll: N` ("you may reroll one of these dice") lets its owner reroll up to N of
    them once, before they are read (the `reroll` action)."""
    for k, d in enumerate(st.own_dice(s)):
        d["value"] = rolled[k]
    rp = s["rp"]
    eff = effects_of(s["players"][rp["attacker"]]["hero"], rp["ability"], rp["level"], rp["tier"])[rp["pc"]]
    pend(s, "ability_resolve", rp["attacker"], **({"rerolls": eff["reroll"]} if eff.get("reroll") else {}))
    return [{"type": "rolled", "purpose": "ability", "dice": rolled}]


def opposed_rolled(s: st.S, rolled: list[int]) -> E:
    """Showdown-style roll: the ability owner's die and the target's; read once cards had their chance."""
    for k, d in enumerate(st.own_dice(s)):
        d["value"] = rolled[k]
    pend(s, "ability_resolve", s["rp"]["attacker"])
    return [{"type": "rolled", "purpose": "opposed", "dice": rolled}]


def resolve_ability_roll(s: st.S) -> E:
    """Read the ability's dice as they are now and go on with its effects."""
    rp = s["rp"]
    i = rp["attacker"]
    dice = values(s)
    eff = effects_of(s["players"][i]["hero"], rp["ability"], rp["level"], rp["tier"])[rp["pc"]]
    events: E = []
    if eff["do"] == "opposed":
        won = dice[0] >= dice[1] if eff["win"] == "ge" else dice[0] > dice[1]
        events.append({"type": "opposed", "attacker": dice[0], "defender": dice[1], "won": won})
        ctx = _ctx(s, i, rp["target"], "offense", [dice[0]], rp["ability"])
        for sub in eff["win_effects"] if won else eff["lose_effects"]:
            events += fx.apply(s, sub, ctx)
    else:
        rp["roll"] = dice
    rp["pc"] += 1
    return events + run_offense(s)


# -- Targeting Roll Phase (§2.5) --------------------------------------------------------------------
def start_targeting(s: st.S) -> E:
    rp = s["rp"]
    i = rp["attacker"]
    opp = st.opponents(s, i)
    if len(opp) == 1:
        return set_target(s, opp[0])
    s["phase"] = "targeting"
    if s["mode"] == "2v2":
        s["tray"] = "targeting"
        s["dice"] = [{"value": 0, "kept": False}]
        pend(s, "targeting_roll", i, dice=1)
    else:
        pend(s, "target", i, choices=opp)
    return [{"type": "phase", "phase": "targeting"}]


def targeting_rolled(s: st.S, v: int) -> E:
    """2v2: 1-2 left opponent, 3-4 right, 5 the opponents choose, 6 the attacker chooses (§2.5)."""
    st.own_dice(s)[0]["value"] = v
    pend(s, "targeting_resolve", s["rp"]["attacker"])
    return [{"type": "rolled", "purpose": "targeting", "dice": [v]}]


def resolve_targeting(s: st.S) -> E:
    """Cards may change the targeting die before it is read, except for an ultimate (§2.5)."""
    rp = s["rp"]
    i = rp["attacker"]
    v = s["dice"][0]["value"]
    opp = st.opponents(s, i)
    events: E = [{"type": "targeting", "value": v}]
    if v <= 4:
        return events + set_target(s, opp[0] if v <= 2 else opp[-1])
    chooser = opp[0] if v == 5 else i
    pend(s, "target", chooser, choices=opp)
    return events


def set_target(s: st.S, j: int) -> E:
    """The defender is known; in King of the Hill attacking a leader draws a card at once (§14)."""
    rp = s["rp"]
    i = rp["attacker"]
    rp["target"] = j
    rp["attack"]["to"] = j
    events: E = [{"type": "target", "attacker": s["players"][i]["id"], "defender": s["players"][j]["id"]}]
    if s["mode"] == "koth" and attack_planned(s):
        top = max(st.health(s, k) for k in range(len(s["players"])) if st.alive(s, k))
        if st.health(s, j) == top:
            st.draw(s, i, 1)
            events.append({"type": "leader_draw", "player": s["players"][i]["id"]})
    return events + run_offense(s)


def attack_planned(s: st.S) -> bool:
    """Does the activated ability deal targeted damage (is it an attack, §8.1)?"""
    rp = s["rp"]
    hid = s["players"][rp["attacker"]]["hero"]
    effs = effects_of(hid, rp["ability"], rp["level"], rp["tier"])

    def deals(eff: dict[str, Any]) -> bool:
        if eff["do"] == "damage" and eff.get("type") != "collateral":
            return True
        if eff["do"] == "opposed":
            return any(deals(e) for e in eff.get("win_effects", []) + eff.get("lose_effects", []))
        return False
    return any(deals(e) for e in effs)


# -- Defensive Roll Phase (§2.6) --------------------------------------------------------------------
def after_offense(s: st.S) -> E:
    """Effects done: defend if it is a defendable attack and the defender can act, else the last window."""
    rp = s["rp"]
    rp["stage"] = "after"
    d = rp["target"]
    atk = rp["attack"]
    if d is None or atk["amount"] <= 0:
        return open_window(s)
    if rp["undefendable"] and atk["type"] == "normal":
        atk["type"] = "undefendable"
    s["phase"] = "defensive"
    defenses = hero(s["players"][d]["hero"])["defenses"]
    acts = not st.has(s, d, "stun") and not st.has(s, d, "shadows")
    can_defend = atk["type"] == "normal" and acts and bool(defenses)
    # A companion that takes attacks (Nyra) may take any attack but an ultimate, defendable or not.
    companion = companions.takes_attacks(s, d) if acts and atk["type"] != "ultimate" else None
    if companion is not None:
        pend(s, "defense", d, companion=companion, defend=can_defend)
    elif can_defend:
        pend(s, "defense", d)
    else:
        return open_window(s)
    return [{"type": "phase", "phase": "defensive"}]


def choose_defense(s: st.S, defense: str | None, companion: str | None = None) -> E:
    rp = s["rp"]
    d = rp["target"]
    p = s["players"][d]
    if companion is not None:   # pass the whole attack to the companion instead of defending (Nyra)
        require(s["pending"].get("companion") == companion, "bad_companion",
                f"{p['name']} has no standing companion \"{companion}\" to take this attack.")
        rp["to_companion"] = companion
        return [{"type": "to_companion", "player": p["id"], "companion": companion}] + open_window(s)
    if defense is None:
        return [{"type": "no_defense", "player": p["id"]}] + open_window(s)
    require(s["pending"].get("defend", True), "undefendable",
            "This attack cannot be defended: pass it to your companion, or take it.")
    lv = defense_level(p["hero"], p["upgrades"], defense)
    if lv is None:
        raise IllegalAction("unknown_defense", f"{p['name']}'s hero has no defense \"{defense}\".")
    rp["defense"] = {"id": defense, "level": lv["level"], "attempts": 0}
    events: E = [{"type": "defense", "player": p["id"], "defense": defense, "level": lv["level"]}]
    if lv["dice"] is None:  # dice unknown in the sources: its known effects only, the rest by hand
        ctx = _ctx(s, d, rp["attacker"], "defense", [], defense)
        for eff in lv["effects"]:
            events += fx.apply(s, eff, ctx)
        return events + open_window(s)
    opposed = any(e["do"] == "opposed" for e in lv["effects"])
    s["tray"] = "defense"
    s["dice"] = [{"value": 0, "kept": False, "owner": p["id"]} for _ in range(lv["dice"])]
    if opposed:
        s["dice"].append({"value": 0, "kept": False, "owner": s["players"][rp["attacker"]]["id"]})
    pend(s, "defense_roll", d, dice=len(s["dice"]))
    return events


def defense_rolled(s: st.S, rolled: list[int]) -> E:
    """One defensive roll attempt (Better D! grants another); then a window to change the dice."""
    k = 0
    for d in st.own_dice(s):
        if not d["kept"]:
            d["value"] = rolled[k]
            k += 1
    rp = s["rp"]
    rp["defense"]["attempts"] += 1
    p = s["players"][rp["target"]]
    lv = defense_level(p["hero"], p["upgrades"], rp["defense"]["id"])
    rerolls = 0 if rp["defense"].get("rerolled") else lv.get("reroll", 0)
    pend(s, "defense_resolve", rp["target"], **({"rerolls": rerolls} if rerolls else {}))
    return [{"type": "rolled", "purpose": "defense", "dice": values(s)}]


def rerollable(s: st.S) -> list[int]:
    """Positions of the dice a "you may reroll" answer may take: the decider's own dice on the tray."""
    pending = s["pending"]
    me = s["players"][pending["player"]]["id"]
    return [k for k, d in enumerate(s["dice"]) if d.get("owner", me) == me]


def reroll(s: st.S, picks: list[int], rolled: list[int]) -> E:
    """Reroll the picked dice once ("you may reroll one of these dice"); then the dice are read as usual."""
    before = values(s)
    dice = st.own_dice(s)
    for k, v in zip(picks, rolled, strict=True):
        dice[k]["value"] = v
    pending = {k: v for k, v in s["pending"].items() if k != "rerolls"}
    s["pending"] = pending
    if pending["kind"] == "defense_resolve":
        s["rp"]["defense"]["rerolled"] = True
    return [{"type": "rerolled", "player": s["players"][pending["player"]]["id"], "dice": picks,
             "before": before, "after": values(s)}]


def resolve_defense(s: st.S) -> E:
    rp = s["rp"]
    d = rp["target"]
    p = s["players"][d]
    lv = defense_level(p["hero"], p["upgrades"], rp["defense"]["id"])
    dice = values(s)
    events: E = []
    for eff in lv["effects"]:
        if eff["do"] == "opposed":
            mine, theirs = dice[0], dice[-1]
            won = mine >= theirs if eff["win"] == "ge" else mine > theirs
            events.append({"type": "duel", "defender": mine, "attacker": theirs, "won": won})
            ctx = _ctx(s, d, rp["attacker"], "defense", [mine], rp["defense"]["id"])
            if won and "win_choice" in eff:
                pend(s, "choice", d, labels=[c["label"] for c in eff["win_choice"]], what="defense")
                return events
            for sub in eff["win_effects"] if won else eff["lose_effects"]:
                events += fx.apply(s, sub, ctx)
        else:
            events += fx.apply(s, eff, _ctx(s, d, rp["attacker"], "defense", dice, rp["defense"]["id"]))
    return events + open_window(s)


def defense_choice(s: st.S, k: int) -> E:
    rp = s["rp"]
    d = rp["target"]
    p = s["players"][d]
    lv = defense_level(p["hero"], p["upgrades"], rp["defense"]["id"])
    eff = next(e for e in lv["effects"] if e["do"] == "opposed")
    require(0 <= k < len(eff["win_choice"]), "bad_choice", "Pick one of the listed options.")
    ctx = _ctx(s, d, rp["attacker"], "defense", [values(s)[0]], rp["defense"]["id"])
    events: E = [{"type": "chose", "player": p["id"], "option": eff["win_choice"][k]["label"]}]
    for sub in eff["win_choice"][k]["effects"]:
        events += fx.apply(s, sub, ctx)
    return events + open_window(s)


# -- last window and the end of the Roll Phase ------------------------------------------------------
def open_window(s: st.S) -> E:
    """Last chance to spend statuses and play cards before damage is totalled (§2.6.5)."""
    rp = s["rp"]
    rp["stage"] = "window"
    if rp["target"] is not None and rp["attack"]["amount"] > 0 or rp["packets"] or rp["heals"]:
        pend(s, "window", None)
        return []
    return finish_roll_phase(s)


def attack_total(s: st.S) -> dict[str, Any] | None:
    """The attack packet with the statuses of attacker and defender folded in (not stored)."""
    rp = s["rp"]
    if rp is None or rp["target"] is None or rp["attack"]["amount"] <= 0:
        return None
    atk = dict(rp["attack"])
    atk["mods"] = list(atk["mods"])
    mine = s["players"][rp["attacker"]]["statuses"]   # what st.has reads, looked up once
    theirs = s["players"][rp["target"]]["statuses"]
    if theirs.get("bounty", 0):
        atk["mods"].append([1, MODIFIER, "bounty"])
    if theirs.get("targeted", 0):
        atk["mods"].append([2, MODIFIER, "targeted"])
    if mine.get("wither", 0):
        atk["mods"].append([-mine["wither"], MODIFIER, "wither"])
    if mine.get("shame", 0) and atk["type"] not in ("ultimate", "pure"):
        atk["mods"].append([-1, MODIFIER, "shame"])
    if "companions" in s["players"][rp["attacker"]]:
        for bonus, cid in companions.attack_bonus(s, rp["attacker"]):
            atk["mods"].append([bonus, MODIFIER, cid])
    if atk["type"] != "ultimate" and (mine.get("parlay", 0) or theirs.get("shadows", 0)):
        atk["avoided"] = True
    return atk


def finish_roll_phase(s: st.S, note: str | None = None) -> E:
    """Total every damage and heal of the Roll Phase and apply them in one batch (§2.6.6, §10)."""
    rp = s["rp"]
    i = rp["attacker"]
    atk = attack_total(s) if rp["ability"] else None
    if atk is not None:
        _tokens_the_attack_uses(s, i, rp["target"], atk)
    parlay = st.has(s, i, "parlay") and not rp["ultimate"]
    damage: dict[int, int] = {}
    events: E = []
    packets = ([atk] if atk else []) + rp["packets"]
    summary = [_take(s, p, p is atk, parlay, damage, events) for p in packets]
    _attacker_hurt(s, i, damage, landed=summary[0]["taken"] if atk else 0)
    heal: dict[int, int] = {}
    for j, n in rp["heals"]:
        heal[j] = heal.get(j, 0) + n
    s["last"] = {"ability": rp["ability"], "packets": summary, "damage": {s["players"][k]["id"]: v for k, v in damage.items()},
                 "heal": {s["players"][k]["id"]: v for k, v in heal.items()}}
    events.append({"type": "roll_phase_end", **s["last"], **({"note": note} if note else {})})
    events += st.apply_batch(s, damage, heal)
    held = s["players"][i]["statuses"]
    for status in ("parlay", "entangle", "constrict"):
        if status in held:  # each removal replaces the dict without the other two's keys changing
            st.remove_status(s, i, status)
    target = rp["target"]
    s["rp"] = None
    s["tray"] = None
    if st.over(s):
        return events
    return events + _after_roll_phase(s, i, target)


def _tokens_the_attack_uses(s: st.S, i: int, d: int, atk: dict[str, Any]) -> None:
    """A Bounty on the defender pays the attacker 1 CP; Shame weakens one attack and is spent with it."""
    if st.has(s, d, "bounty"):
        st.gain_cp(s, i, 1)
    if st.has(s, i, "shame") and atk["type"] not in ("ultimate", "pure"):
        st.remove_status(s, i, "shame", 1)


def _take(s: st.S, p: dict[str, Any], is_attack: bool, parlay: bool, damage: dict[int, int], events: E) -> dict[str, Any]:
    """One damage packet resolved: what its target takes and what is reflected are added to `damage`
    (Parlay cancels the attacker's own Offensive Roll damage); an attack passed to a companion hurts the
    companion, not the hero's dial (its events go to `events`). Returns the packet's summary row."""
    rp = s["rp"]
    r = resolve(p)
    taken = r["taken"]
    if parlay and p["orp"] and p["from"] == rp["attacker"]:
        taken = 0
    damage[p["to"]] = damage.get(p["to"], 0) + taken
    for back in r["reflected"]:
        damage[p["from"]] = damage.get(p["from"], 0) + back
    if is_attack and rp.get("to_companion"):   # the companion took the whole attack: the hero's dial is spared
        damage[p["to"]] -= taken
        events += companions.hurt(s, p["to"], rp["to_companion"], taken)
    return {"to": s["players"][p["to"]]["id"], "type": p["type"], "source": p["source"],
            "total": r["total"], "taken": taken, "reflected": sum(r["reflected"])}


def _attacker_hurt(s: st.S, i: int, damage: dict[int, int], landed: int) -> None:
    """What the attack costs the attacker: recoil once it landed, and a Barbed Vine per reroll (at most 2)."""
    rp = s["rp"]
    if rp["recoil"] and landed >= 1:
        damage[i] = damage.get(i, 0) + rp["recoil"]
    if st.has(s, i, "barbed_vine"):
        vine = min(2, max(0, s["attempts"] - 1))
        damage[i] = damage.get(i, 0) + vine
        st.remove_status(s, i, "barbed_vine")


def _after_roll_phase(s: st.S, i: int, target: int | None) -> E:
    """Where the turn goes: a defender the attacker stunned is freed and the attacker rolls again; an attacker
    who fell (King of the Hill) hands the turn on; else Main Phase 2."""
    if target is not None and st.has(s, target, "stun") and s["players"][target].get("stunned_by") == i:
        st.remove_status(s, target, "stun")
        s["players"][target].pop("stunned_by", None)
        if st.alive(s, target) and st.alive(s, i):
            return [{"type": "stun_extra_roll", "player": s["players"][i]["id"]}] + begin_orp(s, target)
    if not st.alive(s, i):   # King of the Hill: the attacker fell to Retribution or recoil; next player
        return flow.next_turn(s)
    return flow.enter_main2(s)
