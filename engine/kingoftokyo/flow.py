"""The turn as a queue of steps (plain data in `s["steps"]`), so a rule that waits for a player's decision
(yield Tokyo, Camouflage's dice, the hearts against Poison, Opportunist's window...) parks the game in a
JSON state and the answer resumes it exactly where it stopped, on replay and after undo alike.

A step is {"do": name, ...}; `run` pops steps in order until one sets `s["pending"]` (it puts itself back in
front to be resumed) or the queue is empty (the active monster then acts freely: roll or buy).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import state as st
from .data import BLACK_DICE, WIN_VP, cards

S = st.S
Ev = list[dict[str, Any]]


def new_turn_flags() -> dict[str, Any]:
    return {"clawed": [], "claw_loss": {}, "damaged": False, "wings": [], "herd": False, "vacated": {},
            "yield_asked": [], "dead_handled": False, "probed": False}


# -- turn start ------------------------------------------------------------------------------------------
def dice_count(s: S, i: int, penalty: int = 0) -> tuple[int, int]:
    """(black dice, green dice) monster `i` throws this turn: 6 black + 1 green per Extra Head, minus one per
    Shrink token and per Freeze Time penalty (black dice go first), never below 0."""
    p = s["players"][i]
    green = st.amount(s, i, "extra_dice")
    black = BLACK_DICE - p["shrink"] - penalty
    if black < 0:
        green = max(0, green + black)
        black = 0
    return black, green


def start_turn(s: S, i: int, ev: Ev, bonus: str | None = None) -> None:
    """Start of turn: +2 VP in Tokyo (Urbavore +1), Battery Monster pays out, the dice for this turn."""
    s["active"] = i
    s["turn"] += 1
    s["t"] = new_turn_flags()
    s["phase"] = "roll"
    p = s["players"][i]
    ev.append({"type": "turn", "player": p["id"], "turn": s["turn"], "bonus": bonus})
    if st.in_tokyo(s, i):
        st.count(s, i, "tokyo_turns")
        st.gain_vp(s, i, 2 + st.amount(s, i, "tokyo_start_vp"), ev, why="start_in_tokyo")
    for cid, eff, inst in list(st.card_effects(s, i)):
        if eff.get("take_each_turn"):
            take = min(eff["take_each_turn"], inst.get("counters", 0))
            inst["counters"] = inst.get("counters", 0) - take
            st.gain_energy(s, i, take, ev, why=cid, bonus=False)
            if inst["counters"] <= 0:
                _spent_card(s, i, inst, ev)
    black, green = dice_count(s, i, 1 if bonus == "freeze" else 0)
    s["dice"] = [{"face": None, "kept": False, "colour": "black"} for _ in range(black)] + \
                [{"face": None, "kept": False, "colour": "green"} for _ in range(green)]
    s["rolls"] = 0
    s["rolls_max"] = 3 + st.amount(s, i, "extra_rolls")


def _spent_card(s: S, i: int, inst: dict[str, Any], ev: Ev) -> None:
    """A card used up (Battery Monster empty, Smoke Cloud out of tokens, Plot Twist played): it is discarded,
    or a Mimic copying it loses its copy (the Mimic card itself stays)."""
    if inst["id"] == "mimic":
        inst["copy"] = None
        inst.pop("counters", None)
        inst.pop("tokens", None)
        ev.append({"type": "mimic_lost", "player": st.pid(s, i)})
    else:
        st.remove_card(s, i, inst, ev)


# -- the step machine ------------------------------------------------------------------------------------
def push(s: S, *steps: dict[str, Any]) -> None:
    """Run these steps next, before whatever was queued."""
    s["steps"][0:0] = list(steps)


def ask(s: S, step: dict[str, Any], pending: dict[str, Any]) -> None:
    """Park the game on a decision and resume this step after the answer."""
    s["pending"] = pending
    push(s, step)


def run(s: S, ev: Ev) -> None:
    while not s["over"] and s["pending"] is None and s["steps"]:
        step = s["steps"].pop(0)
        if step["do"] != "hit" and st.check_survivors(s, ev):
            break
        STEPS[step["do"]](s, step, ev)
        if not s["over"] and not s["players"][s["active"]]["alive"] and not s["t"]["dead_handled"]:
            # the active monster is out: losses already under way still land, then the next turn starts
            s["t"]["dead_handled"] = True
            s["pending"] = None
            s["steps"] = [x for x in s["steps"] if x["do"] == "hit"] + [{"do": "finish_turn"}]
    if not s["over"] and s["pending"] is None and not s["steps"]:
        st.check_survivors(s, ev)


def step_hit(s: S, step: dict[str, Any], ev: Ev) -> None:
    t, n = step["target"], step["amount"]
    p = s["players"][t]
    if not p["alive"] or n <= 0:
        return
    if step["claw"] and st.in_tokyo(s, t) and st.amount(s, t, "yield_free") and not step.get("jets"):
        step["jets"] = True
        s["t"]["yield_asked"].append(t)
        ask(s, step, {"kind": "yield", "player": t, "damage": n, "jets": True, "by": step.get("src"),
                      "health": p["health"]})
        return
    if not step.get("asked") and t not in s["t"]["wings"]:
        wings = st.has(s, t, "wings") > 0 and p["energy"] >= 2
        camo = st.has(s, t, "camouflage") > 0
        # Rapid Healing "also to avoid reaching 0": offered when this loss would take the last heart
        rapid = (st.has(s, t, "rapid_healing") > 0 and p["energy"] >= 2 and n >= p["health"]
                 and p["health"] < st.max_health(s, t))
        if wings or camo or rapid:
            step["asked"] = True
            ask(s, step, {"kind": "defend", "player": t, "damage": n, "wings": wings, "camouflage": camo,
                          "rapid_healing": rapid, "claw": step["claw"], "health": p["health"]})
            return
    lost = st.lose_health(s, t, n, ev, claw=step["claw"], src=step.get("src"), why=step.get("why", ""))
    if step["claw"] and lost:
        key = str(t)
        s["t"]["claw_loss"][key] = s["t"]["claw_loss"].get(key, 0) + lost


def step_score(s: S, step: dict[str, Any], ev: Ev) -> None:
    """Resolve the final dice: numbers, energy, then hearts and claws as their own steps."""
    i = s["active"]
    faces = [d["face"] for d in s["dice"]]
    counts = {f: faces.count(f) for f in ("1", "2", "3", "heart", "energy", "claw")}
    ev.append({"type": "resolved", "player": st.pid(s, i), "dice": faces})
    vp = 0
    for n in (1, 2, 3):
        c = counts[str(n)]
        if c >= 3:
            vp += n + c - 3
    if counts["1"] >= 3:
        vp += st.amount(s, i, "ones_bonus")
    if counts["1"] and counts["2"] and counts["3"]:
        vp += st.amount(s, i, "one_two_three_vp")
    if all(counts.values()):
        vp += st.amount(s, i, "all_faces_vp")
    st.gain_vp(s, i, vp, ev, why="dice")
    if counts["1"] >= 3 and st.has(s, i, "freeze_time"):
        s["extra"].append({"player": i, "kind": "freeze"})
    st.gain_energy(s, i, counts["energy"], ev, why="dice")
    push(s, {"do": "hearts", "n": counts["heart"]}, {"do": "claws", "dice": counts["claw"], "twos": counts["2"]},
         {"do": "enter"}, {"do": "buy"})


def step_hearts(s: S, step: dict[str, Any], ev: Ev) -> None:
    i, n = s["active"], step["n"]
    p = s["players"][i]
    if n <= 0:
        return
    if st.has(s, i, "healing_ray") and not step.get("ray_done"):
        hurt = [j for j in st.alive(s) if j != i and s["players"][j]["health"] < st.max_health(s, j)]
        if hurt:
            ask(s, step, {"kind": "healing_ray", "player": i, "hearts": n, "targets": hurt})
            return
    if st.in_tokyo(s, i):
        ev.append({"type": "no_heal_in_tokyo", "player": p["id"], "hearts": n})
        return
    if (p["poison"] or p["shrink"]) and not step.get("cured"):
        step["cured"] = True
        ask(s, step, {"kind": "cure", "player": i, "hearts": n})
        return
    st.heal(s, i, n, ev, why="dice")


def step_claws(s: S, step: dict[str, Any], ev: Ev) -> None:
    i = s["active"]
    tokyo = st.in_tokyo(s, i)
    total = step["dice"] + st.amount(s, i, "claws_always") + (st.amount(s, i, "claws_in_tokyo") if tokyo else 0)
    if total >= 1:
        total += st.amount(s, i, "claws_if_claw") + (st.amount(s, i, "claws_in_tokyo_if_claw") if tokyo else 0)
    if step["twos"] >= 3:
        total += st.amount(s, i, "twos_claws")
    if total <= 0:
        return
    st.gain_vp(s, i, st.amount(s, i, "vp_if_claw"), ev, why="alpha_monster")
    if st.amount(s, i, "hit_all"):
        targets = [j for j in st.clockwise(s, i)]
    elif tokyo:
        targets = [j for j in st.clockwise(s, i) if not st.in_tokyo(s, j)]
    else:
        targets = [j for j in st.clockwise(s, i) if st.in_tokyo(s, j)]
    ev.append({"type": "claws", "player": st.pid(s, i), "claws": total, "targets": [st.pid(s, j) for j in targets]})
    push(s, *[{"do": "hit", "target": j, "amount": total, "claw": True, "src": i, "why": "claws"} for j in targets],
         {"do": "post_claws", "tokyo": [j for j in targets if st.in_tokyo(s, j)]})


def step_post_claws(s: S, step: dict[str, Any], ev: Ev) -> None:
    """Poison Spit and Shrink Ray tokens on the monsters the claws hurt, Fire Breathing on the neighbours,
    then each clawed monster in Tokyo decides whether to yield."""
    i = s["active"]
    for j in s["t"]["clawed"]:
        q = s["players"][j]
        if not q["alive"]:
            continue
        for token, cid in (("poison", "poison_spit"), ("shrink", "shrink_ray")):
            k = st.has(s, i, cid)
            if k:
                q[token] += k
                ev.append({"type": "token", "player": q["id"], "token": token, "change": k, "count": q[token]})
    fire = st.amount(s, i, "neighbours")
    follow: list[dict[str, Any]] = []
    if fire:
        follow += [{"do": "hit", "target": j, "amount": fire, "claw": False, "src": i, "why": "fire_breathing"}
                   for j in st.neighbours(s, i)]
    follow += [{"do": "yield_ask", "target": j} for j in step["tokyo"]]
    push(s, *follow)


def step_yield_ask(s: S, step: dict[str, Any], ev: Ev) -> None:
    t = step["target"]
    p = s["players"][t]
    lost = s["t"]["claw_loss"].get(str(t), 0)
    if not p["alive"] or not st.in_tokyo(s, t) or t in s["t"]["yield_asked"] or lost <= 0:
        return
    s["t"]["yield_asked"].append(t)
    s["pending"] = {"kind": "yield", "player": t, "damage": lost, "jets": False, "by": s["active"],
                    "health": p["health"]}


def do_yield(s: S, t: int, ev: Ev) -> None:
    loc = s["players"][t]["loc"]
    s["t"]["vacated"][loc] = t
    ev.append({"type": "yielded", "player": st.pid(s, t), "place": loc})
    st.place(s, t, "out", ev)


def step_enter(s: S, step: dict[str, Any], ev: Ev) -> None:
    """Step 3: an outside active monster must fill an empty City, else an empty open Bay."""
    i = s["active"]
    if st.in_tokyo(s, i):
        return
    if s["city"] is None:
        loc = "city"
    elif s["bay_open"] and s["bay"] is None:
        loc = "bay"
    else:
        return
    st.place(s, i, loc, ev)
    yielder = s["t"]["vacated"].get(loc)
    if yielder is not None:
        dmg = st.amount(s, yielder, "yield_damage")
        if dmg:
            push(s, {"do": "hit", "target": i, "amount": dmg, "claw": False, "src": yielder, "why": "burrowing"})


def step_buy(s: S, step: dict[str, Any], ev: Ev) -> None:
    s["phase"] = "buy"


def price(s: S, buyer: int, cid: str) -> int:
    return max(0, cards()[cid]["cost"] - st.amount(s, buyer, "discount"))


def step_opportunist(s: S, step: dict[str, Any], ev: Ev) -> None:
    slot, cid = step["slot"], step["card"]
    while step["ask"]:
        if s["market"][slot] != cid:
            return
        j = step["ask"].pop(0)
        if s["players"][j]["alive"] and s["players"][j]["energy"] >= price(s, j, cid):
            ask(s, step, {"kind": "opportunist", "player": j, "slot": slot, "card": cid, "price": price(s, j, cid)})
            return


def step_mimic(s: S, step: dict[str, Any], ev: Ev) -> None:
    i = step["player"]
    targets = mimic_targets(s)
    if s["players"][i]["alive"] and targets:
        s["pending"] = {"kind": "mimic", "player": i, "uid": step["uid"], "pay": 0}


def mimic_targets(s: S) -> list[int]:
    return [c["uid"] for p in s["players"] if p["alive"] for c in p["cards"] if c["id"] != "mimic"]


def step_metamorph(s: S, step: dict[str, Any], ev: Ev) -> None:
    i = s["active"]
    if st.has(s, i, "metamorph") and s["players"][i]["cards"]:
        ask(s, step, {"kind": "metamorph", "player": i})


def step_probe(s: S, step: dict[str, Any], ev: Ev) -> None:
    while step["ask"]:
        j = step["ask"].pop(0)
        if s["players"][j]["alive"] and st.has(s, j, "psychic_probe") and s["dice"]:
            ask(s, step, {"kind": "probe", "player": j})
            return


def step_end_effects(s: S, step: dict[str, Any], ev: Ev) -> None:
    i = s["active"]
    p = s["players"][i]
    st.gain_vp(s, i, (p["energy"] // 6) * st.amount(s, i, "vp_per_6_energy"), ev, why="energy_hoarder")
    if p["energy"] == 0:
        st.gain_energy(s, i, st.amount(s, i, "solar"), ev, why="solar_powered")
    if not s["t"]["damaged"]:
        st.gain_vp(s, i, st.amount(s, i, "vp_if_no_damage"), ev, why="herbivore")
    under = st.amount(s, i, "underdog_vp")
    if under and all(p["vp"] < s["players"][j]["vp"] for j in st.alive(s) if j != i):
        st.gain_vp(s, i, under, ev, why="rooting_for_the_underdog")
    if p["poison"]:
        push(s, {"do": "hit", "target": i, "amount": p["poison"], "claw": False, "src": None, "why": "poison"})


def step_finish_turn(s: S, step: dict[str, Any], ev: Ev) -> None:
    """End of turn: a living monster at 20 VP wins (several share it); else the next turn starts."""
    if st.check_survivors(s, ev):
        return
    top = [i for i in st.alive(s) if s["players"][i]["vp"] >= WIN_VP]
    if top:
        s["over"] = True
        s["winners"] = [st.pid(s, i) for i in top]
        s["phase"] = "over"
        s["steps"] = []
        ev.append({"type": "game_over", "winners": list(s["winners"]), "why": "vp"})
        return
    while s["extra"]:
        extra = s["extra"].pop(0)
        if s["players"][extra["player"]]["alive"]:
            start_turn(s, extra["player"], ev, bonus=extra["kind"])
            return
    nxt = st.clockwise(s, s["active"])
    start_turn(s, nxt[0], ev)


STEPS: dict[str, Callable[[S, dict[str, Any], Ev], None]] = {
    "hit": step_hit, "score": step_score, "hearts": step_hearts, "claws": step_claws,
    "post_claws": step_post_claws, "yield_ask": step_yield_ask, "enter": step_enter, "buy": step_buy,
    "opportunist": step_opportunist, "mimic": step_mimic, "metamorph": step_metamorph, "probe": step_probe,
    "end_effects": step_end_effects, "finish_turn": step_finish_turn,
}
