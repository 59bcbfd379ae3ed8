"""A turn's phases outside the Roll Phase (§2): Upkeep, Income, Main (1), Knockdown, Main (2), Discard.

Automatic steps run straight through; the flow stops only where someone must decide or roll (a Powder
Keg, a Knockdown, a Main Phase, an over-full hand), leaving a pending decision in the state.
"""

from __future__ import annotations

from . import effects as fx
from . import state as st
from .abilities import level_of
from .heroes import hero
from .rollphase import E, begin_orp, pend


def start_turn(s: st.S) -> E:
    """Upkeep (§2.1): passives and status effects of the active player; damage batched to the end."""
    i = s["active"]
    p = s["players"][i]
    s["phase"] = "upkeep"
    events: E = [{"type": "turn", "turn": s["turn"], "player": p["id"]}]
    if st.has(s, i, "shadows"):
        p["shadows_turn"] = s["turn"]
    faces = hero(p["hero"])["faces"]
    for passive in hero(p["hero"])["passives"]:
        lv = level_of(p["upgrades"], passive)
        for eff in (lv or {}).get("upkeep", []):
            events += fx.apply(s, eff, {"owner": i, "other": None, "role": "upkeep", "roll": None,
                                        "final": None, "faces": faces, "source": passive["id"]})
    if st.has(s, i, "fire_mastery"):
        st.remove_status(s, i, "fire_mastery", 1)
    dmg = 2 * st.has(s, i, "burn") + st.has(s, i, "poison")
    if p["hero"] != "cursed_pirate":
        dmg += st.has(s, i, "cursed_doubloon")
    s["upkeep_damage"] = dmg
    if st.has(s, i, "powder_keg"):
        s["tray"] = "keg"
        s["dice"] = [{"value": 0, "kept": False}]
        pend(s, "keg_roll", i, dice=1)
        return events
    return events + finish_upkeep(s)


def keg_rolled(s: st.S, v: int) -> E:
    """Powder Keg (§6.6): 1-2 explodes for 3 undefendable; 6 may be passed to a chosen player."""
    i = s["active"]
    st.own_dice(s)[0]["value"] = v
    events: E = [{"type": "rolled", "purpose": "keg", "dice": [v]}]
    if v <= 2:
        st.remove_status(s, i, "powder_keg")
        s["upkeep_damage"] += 3
        events.append({"type": "keg_exploded", "player": s["players"][i]["id"], "damage": 3})
    elif v == 6:
        pend(s, "keg_pass", i, choices=[j for j in range(len(s["players"])) if j != i and st.alive(s, j)])
        return events
    return events + finish_upkeep(s)


def pass_keg(s: st.S, j: int | None) -> E:
    i = s["active"]
    events: E = []
    if j is not None:
        st.remove_status(s, i, "powder_keg")
        events += st.gain_status(s, j, "powder_keg", 1)
    return events + finish_upkeep(s)


def finish_upkeep(s: st.S) -> E:
    dmg = s.pop("upkeep_damage", 0)
    s["tray"] = None
    events = st.apply_batch(s, {s["active"]: dmg}, {}) if dmg else []
    if st.over(s):
        return events
    if not st.alive(s, s["active"]):   # King of the Hill: fell in their own Upkeep, the game goes on
        return events + next_turn(s)
    return events + income(s)


def income(s: st.S) -> E:
    """+1 CP and a card; the start player skips the first; Concussion skips one and goes (§2.2)."""
    i = s["active"]
    p = s["players"][i]
    s["phase"] = "income"
    if s["turn"] == 1:
        events: E = [{"type": "income_skipped", "player": p["id"], "why": "start player"}]
    elif st.has(s, i, "concussion"):
        st.remove_status(s, i, "concussion")
        events = [{"type": "income_skipped", "player": p["id"], "why": "concussion"}]
    else:
        cp = st.gain_cp(s, i, 1)
        card = st.draw(s, i, 1)
        events = [{"type": "income", "player": p["id"], "cp": cp, "cards": card}]
    return events + enter_main(s, "main1")


def enter_main(s: st.S, phase: str) -> E:
    s["phase"] = phase
    s["dice"] = [] if phase == "main1" else s["dice"]
    pend(s, "main", s["active"])
    return [{"type": "phase", "phase": phase}]


def enter_main2(s: st.S) -> E:
    return enter_main(s, "main2")


def end_main(s: st.S) -> E:
    """Leave a Main Phase: after Main (1) comes Knockdown's check then the ORP; after Main (2) Discard."""
    i = s["active"]
    if s["phase"] == "main1":
        if st.has(s, i, "knockdown"):
            pend(s, "knockdown", i)
            return [{"type": "knockdown_check", "player": s["players"][i]["id"]}]
        return begin_orp(s)
    s["phase"] = "discard"
    if s["players"][i]["hand"] > st.HAND_LIMIT:
        pend(s, "discard", i)
        return [{"type": "phase", "phase": "discard"}]
    return end_turn(s)


def knockdown(s: st.S, paid: bool) -> E:
    """Pay 2 CP to remove Knockdown, or skip the ORP; either way the token goes (§6.6)."""
    i = s["active"]
    st.remove_status(s, i, "knockdown")
    if paid:
        st.pay(s, i, 2, "Removing Knockdown")
        return [{"type": "knockdown_paid", "player": s["players"][i]["id"]}] + begin_orp(s)
    s["attempts"] = 0
    return [{"type": "roll_phase_skipped", "player": s["players"][i]["id"]}] + enter_main2(s)


def end_turn(s: st.S) -> E:
    """End of turn: Delayed Poison, Shadows expiry, then the next living player's turn."""
    i = s["active"]
    p = s["players"][i]
    events: E = []
    poison = st.remove_status(s, i, "delayed_poison")
    if poison:
        events += st.apply_batch(s, {i: 3 * poison}, {})
        if st.over(s):
            return events
        if not st.alive(s, i):
            return events + next_turn(s)
    if p.get("shadows_turn") is not None and p["shadows_turn"] < s["turn"] + 1 and st.has(s, i, "shadows"):
        if p["shadows_turn"] == s["turn"]:
            st.remove_status(s, i, "shadows")
        p.pop("shadows_turn", None)
    faces = hero(p["hero"])["faces"]
    for passive in hero(p["hero"])["passives"]:
        lv = level_of(p["upgrades"], passive)
        for eff in (lv or {}).get("end_turn", []):
            if s["attempts"] < eff.get("if_attempts_below", 99):
                events += fx.apply(s, eff, {"owner": i, "other": None, "role": "upkeep", "roll": None,
                                            "final": None, "faces": faces, "source": passive["id"]})
    return events + next_turn(s)


def next_turn(s: st.S) -> E:
    """The next living player in turn order starts a turn (defeated players are skipped)."""
    order = s["order"]
    k = order.index(s["active"])
    nxt = s["active"]
    for step in range(1, len(order) + 1):
        nxt = order[(k + step) % len(order)]
        if st.alive(s, nxt):
            break
    s["active"] = nxt
    s["turn"] += 1
    s["attempts"] = 0
    s["dice"] = []
    return start_turn(s)


def enter(s: st.S, phase: str) -> E:
    """Start play at a phase of the active player's turn: "upkeep" for a new game, any of
    state.POSITION_PHASES for a stated mid-game position (the Offensive Roll Phase starts with fresh dice)."""
    if phase == "upkeep":
        return start_turn(s)
    if phase == "income":
        return income(s)
    if phase == "offensive":
        return begin_orp(s)
    return enter_main(s, phase)
