"""The King of Tokyo state (plain JSON data) and the helpers every rule uses: who is where, what a monster's
cards grant, gaining and losing health, VP and energy, elimination and the Bay closing.

The state is a dict so that dump/load are the identity and a checkpoint is the state itself. Randomness is
a splitmix64 stream whose whole state is one int (`s["rng"]`), so replay and undo give the same deck and dice.
"""

from __future__ import annotations

from typing import Any

from .. import rng
from .data import MAX_HEALTH, WIN_VP, cards

S = dict[str, Any]
TOKYO = ("city", "bay")


# -- seeded randomness (engine/rng.py; King of Tokyo's stream always began from its own salt) ------------
SALT = 0x2545F4914F6CDD1D


def seed_state(seed: int) -> int:
    return rng.seed_state(seed, SALT)


rand = rng.rand
shuffle = rng.shuffle


# -- seats and places -------------------------------------------------------------------------------------
def alive(s: S) -> list[int]:
    return [i for i, p in enumerate(s["players"]) if p["alive"]]


def in_tokyo(s: S, i: int) -> bool:
    return s["players"][i]["loc"] in TOKYO


def name(s: S, i: int) -> str:
    return s["players"][i]["name"]


def pid(s: S, i: int | None) -> str | None:
    return None if i is None else s["players"][i]["id"]


def clockwise(s: S, start: int, include_start: bool = False) -> list[int]:
    """Living seats in turn order after `start` (with `start` first when asked)."""
    n = len(s["players"])
    order = [(start + k) % n for k in range(0 if include_start else 1, n)]
    return [i for i in order if s["players"][i]["alive"]]


def neighbours(s: S, i: int) -> list[int]:
    """The nearest living monsters on each side (one monster when only two are left)."""
    others = clockwise(s, i)
    if not others:
        return []
    left, right = others[0], others[-1]
    return [left] if left == right else [left, right]


def place(s: S, i: int, loc: str, ev: list[dict[str, Any]], *, entering: bool = True) -> None:
    """Move monster `i` to "city", "bay" or "out"; entering Tokyo from outside gives +1 VP."""
    p = s["players"][i]
    old = p["loc"]
    if old in TOKYO:
        s[old] = None
    if loc in TOKYO:
        s[loc] = i
    p["loc"] = loc
    if loc in TOKYO and old not in TOKYO and entering:
        count(s, i, "entered")
        gain_vp(s, i, 1, ev, why="enter")
        ev.append({"type": "entered", "player": p["id"], "place": loc})
    elif loc == "out" and old in TOKYO:
        ev.append({"type": "left_tokyo", "player": p["id"], "place": old})
    elif loc in TOKYO and old in TOKYO and old != loc:
        ev.append({"type": "moved", "player": p["id"], "place": loc})


# -- what a monster's cards grant -------------------------------------------------------------------------
def card_effects(s: S, i: int) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(card id, effect, card instance) for each keep card of `i`; Mimic counts as the card it copies."""
    out = []
    table = cards()
    for inst in s["players"][i]["cards"]:
        cid = inst["id"]
        if cid == "mimic":
            target = find_card(s, inst.get("copy"))
            if target is not None:
                copied = target[1]["id"]
                out.append((copied, table[copied]["effect"], inst))
            continue
        out.append((cid, table[cid]["effect"], inst))
    return out


def has(s: S, i: int, cid: str) -> int:
    """How many times `i` has card `cid` in effect (a Mimic copy counts)."""
    return sum(1 for c, _e, _inst in card_effects(s, i) if c == cid)


def amount(s: S, i: int, key: str) -> int:
    """Sum of an effect number over `i`'s cards (True counts 1)."""
    total = 0
    for _c, eff, _inst in card_effects(s, i):
        v = eff.get(key)
        if v is True:
            total += 1
        elif isinstance(v, int):
            total += v
    return total


def find_card(s: S, uid: Any) -> tuple[int, dict[str, Any]] | None:
    """(owner, instance) of the keep card with this uid, if it is in play."""
    if uid is None:
        return None
    for i, p in enumerate(s["players"]):
        for inst in p["cards"]:
            if inst["uid"] == uid:
                return i, inst
    return None


def max_health(s: S, i: int) -> int:
    return MAX_HEALTH + amount(s, i, "max_health")


def remove_card(s: S, i: int, inst: dict[str, Any], ev: list[dict[str, Any]]) -> None:
    """A keep card leaves play: to the discard pile; a Mimic copying it loses its copy (token comes back)."""
    p = s["players"][i]
    p["cards"] = [c for c in p["cards"] if c["uid"] != inst["uid"]]
    s["discard"].append(inst["id"])
    ev.append({"type": "card_discarded", "player": p["id"], "card": inst["id"]})
    for q in s["players"]:
        for c in q["cards"]:
            if c["id"] == "mimic" and c.get("copy") == inst["uid"]:
                c["copy"] = None
                c.pop("counters", None)
                c.pop("tokens", None)
    for q in range(len(s["players"])):
        clamp_health(s, q)


def clamp_health(s: S, i: int) -> None:
    p = s["players"][i]
    p["health"] = min(p["health"], max_health(s, i))


# -- the game's story in numbers (the recap at the end) ---------------------------------------------------
STATS = ("damage", "taken", "healed", "cards", "tokyo_turns", "entered")


def count(s: S, i: int, key: str, n: int = 1) -> None:
    """Add to monster `i`'s running total `key` (one of STATS) for the recap."""
    row = s.setdefault("stats", {}).setdefault(s["players"][i]["id"], dict.fromkeys(STATS, 0))
    row[key] = row.get(key, 0) + n


# -- gains and losses -------------------------------------------------------------------------------------
def gain_vp(s: S, i: int, n: int, ev: list[dict[str, Any]], why: str = "") -> None:
    p = s["players"][i]
    if n == 0 or not p["alive"]:
        return
    before = p["vp"]
    p["vp"] = max(0, min(WIN_VP, before + n))
    if p["vp"] != before:
        ev.append({"type": "vp", "player": p["id"], "change": p["vp"] - before, "vp": p["vp"], "why": why})


def gain_energy(s: S, i: int, n: int, ev: list[dict[str, Any]], why: str = "", bonus: bool = True) -> None:
    """Energy from the bank; Friend of Children adds 1 to every gain (not to Metamorph's refunds)."""
    p = s["players"][i]
    if n <= 0 or not p["alive"]:
        return
    if bonus:
        n += amount(s, i, "energy_bonus")
    p["energy"] += n
    ev.append({"type": "energy", "player": p["id"], "change": n, "energy": p["energy"], "why": why})


def heal(s: S, i: int, n: int, ev: list[dict[str, Any]], why: str = "") -> None:
    """Gain health up to the maximum; Regeneration adds 1 to every gain."""
    p = s["players"][i]
    if n <= 0 or not p["alive"]:
        return
    n += amount(s, i, "heal_bonus")
    before = p["health"]
    p["health"] = min(max_health(s, i), before + n)
    if p["health"] != before:
        count(s, i, "healed", p["health"] - before)
        ev.append({"type": "healed", "player": p["id"], "change": p["health"] - before,
                   "health": p["health"], "why": why})


def lose_health(s: S, i: int, n: int, ev: list[dict[str, Any]], *, claw: bool, src: int | None,
                why: str = "") -> int:
    """Monster `i` loses `n` hearts now (reactions already decided by the caller). Returns hearts lost."""
    p = s["players"][i]
    if n <= 0 or not p["alive"]:
        return 0
    t = s["t"]
    if i in t["wings"]:
        ev.append({"type": "no_loss", "player": p["id"], "card": "wings", "amount": n})
        return 0
    if n == 1 and amount(s, i, "ignore_single_loss"):
        ev.append({"type": "no_loss", "player": p["id"], "card": "armor_plating", "amount": n})
        return 0
    before = p["health"]
    p["health"] = max(0, before - n)
    lost = before - p["health"]
    count(s, i, "taken", lost)
    if src is not None and src != i:
        count(s, src, "damage", lost)
    ev.append({"type": "lost", "player": p["id"], "change": -lost, "health": p["health"], "claw": claw,
               "by": pid(s, src), "why": why})
    if src is not None and src == s["active"] and src != i and lost > 0:
        t["damaged"] = True
        if claw and i not in t["clawed"]:
            t["clawed"].append(i)
    if lost >= 2:
        gain_energy(s, i, amount(s, i, "energy_on_big_loss"), ev, why="were_only_making_it_stronger")
    if p["health"] == 0:
        reached_zero(s, i, ev)
    return lost


def reached_zero(s: S, i: int, ev: list[dict[str, Any]]) -> None:
    """Health 0: Eater of the Dead scores, then It Has a Child! brings the monster back, else it is out."""
    for j in alive(s):
        if j != i:
            gain_vp(s, j, 3 * has(s, j, "eater_of_the_dead"), ev, why="eater_of_the_dead")
    p = s["players"][i]
    if has(s, i, "it_has_a_child"):
        for inst in list(p["cards"]):
            remove_card(s, i, inst, ev)
        p["vp"] = 0
        p["health"] = 10
        p["poison"] = p["shrink"] = 0
        if p["loc"] in TOKYO:
            place(s, i, "out", ev)
        ev.append({"type": "reborn", "player": p["id"]})
        return
    eliminate(s, i, ev)


def eliminate(s: S, i: int, ev: list[dict[str, Any]]) -> None:
    p = s["players"][i]
    if p["loc"] in TOKYO:
        place(s, i, "out", ev)
    for inst in list(p["cards"]):
        remove_card(s, i, inst, ev)
    p["alive"] = False
    p["energy"] = 0
    p["poison"] = p["shrink"] = 0
    ev.append({"type": "eliminated", "player": p["id"]})
    close_bay_if_needed(s, ev)


def close_bay_if_needed(s: S, ev: list[dict[str, Any]]) -> None:
    """With 4 or fewer monsters left the Bay closes at once; its monster moves to an empty City, else out."""
    if not s["bay_open"] or len(alive(s)) > 4:
        return
    s["bay_open"] = False
    ev.append({"type": "bay_closed"})
    j = s["bay"]
    if j is not None:
        if s["city"] is None:
            place(s, j, "city", ev, entering=False)
        else:
            place(s, j, "out", ev)


def check_survivors(s: S, ev: list[dict[str, Any]]) -> bool:
    """Last monster standing wins at once; nobody left means nobody wins. True when the game is over."""
    if s["over"]:
        return True
    left = alive(s)
    if len(left) > 1:
        return False
    s["over"] = True
    s["winners"] = [s["players"][i]["id"] for i in left]
    s["phase"] = "over"
    s["pending"] = None
    s["steps"] = []
    ev.append({"type": "game_over", "winners": list(s["winners"]), "why": "last_standing" if left else "all_out"})
    return True
