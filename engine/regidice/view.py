"""What phones receive: the snapshot filtered for one viewer, and the pending decision with its options.

Hidden information (§4.1): from a player's roll until the Collect phase reveals everything, the pips of the
dice in a player's pool are sent only to that player's own phone. Other phones, the shared screen and
unpaired watchers (viewer None) get the number of dice and their colours. Nothing else in the snapshot is
derived from hidden pips: the options, their labels, the default and the odds depend only on what everyone
may know (declarations, colours, counts), and the round's events never carry a hidden value.
"""

from __future__ import annotations

from typing import Any

from ..core import decision
from ..kernel import player_ids, seat_of
from . import flow, sets
from . import state as st
from .state import S

HIDDEN_PHASES = ("roll", "declare")
PHASE_PROMPTS = {
    "roll": "{who}: roll your {n} dice into the tray (only your phone shows them).",
    "declare": "{who}: declare an action and a value.",
    "collect": "Everyone reveals: move the dice as listed, then go on.",
    "resolve": "{who}: resolve your action.",
    "suffer": "The enemy strikes for {damage}: {who} loses {damage} dice to the wounded pile.",
    "prepare": "{who}: set aside unused dice for your left neighbour, or none.",
    "over": "The game is over.",
}


def _hidden(s: S, d: dict[str, Any], viewer: str | None) -> bool:
    """A pool die's pips are hidden from everyone but its owner from the roll until the reveal (Collect)."""
    if s["phase"] not in HIDDEN_PHASES or not d["at"].startswith("pool:"):
        return False
    return not (d["rolled"] and d["at"] == "pool:" + str(viewer))


def die_view(s: S, d: dict[str, Any], viewer: str | None) -> dict[str, Any]:
    out = {"id": d["id"], "colour": d["colour"], "pips": None if _hidden(s, d, viewer) else d["pips"]}
    if s["phase"] in HIDDEN_PHASES and d["at"].startswith("pool:") and not d["rolled"]:
        out["pips"] = None  # not rolled yet this round: last round's face means nothing now
    if d["used"]:
        out["used"] = True
    return out


def _colour_counts(dice: list[dict[str, Any]]) -> dict[str, int]:
    return {c: n for c in st.COLOURS if (n := sum(1 for d in dice if d["colour"] == c))}


def player_view(s: S, seat: int, viewer: str | None) -> dict[str, Any]:
    p = s["players"][seat]
    mine = st.pool(s, seat)
    return {
        "id": p["id"], "name": p["name"], "seat": seat, "left": st.pid(s, st.left_of(s, seat)),
        "count": len(mine), "colours": _colour_counts(mine),
        "pool": [die_view(s, d, viewer) for d in mine],
        "prepared": [die_view(s, d, viewer) for d in st.at(s, "prep:" + p["id"])],
        "rolled": p["id"] in s["rolled"],
        "declared": s["decl"].get(p["id"]),
        "resolved": s["resolved"].get(p["id"]),
        "power": len(s["power"].get(p["id"], [])),
        "power_left": sum(1 for i in s["power"].get(p["id"], []) if not st.die(s, i)["used"]),
        "prepare_done": p["id"] in s["prepared"] if s["phase"] == "prepare" else None,
        "first": seat == s["first"],
    }


def pending_seat(s: S) -> int | None:
    phase = s["phase"]
    if phase == "roll":
        return flow.next_roller(s)
    if phase == "declare":
        return flow.next_declarer(s)
    if phase == "resolve":
        return flow.next_resolver(s)
    if phase == "suffer":
        cands = s["suffer"]["candidates"]
        return seat_of(s, cands[0]) if len(cands) == 1 else None
    if phase == "prepare":
        return flow.next_preparer(s)
    return None


def _opt(label: str, action: dict[str, Any], key: str, default: bool = False, **args: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"label": label, "action": action, "text": key, "args": args}
    if default:
        out["default"] = True
    return out


def options_view(s: S) -> list[dict[str, Any]]:
    """Every option of the pending decision. Built from public information only (never hidden pips)."""
    phase = s["phase"]
    seat = pending_seat(s)
    if phase == "collect":
        return [_opt("Go on to Resolve", {"type": "advance"}, "option.advance", default=True)]
    if phase == "suffer":
        info = s["suffer"]
        return [_opt(f"{s['players'][seat_of(s, c)]['name']} loses {info['damage']} dice",
                     {"type": "suffer", "player": c}, "option.suffer", default=k == 0,
                     player=c, damage=info["damage"])
                for k, c in enumerate(info["candidates"])]
    if seat is None:
        return []
    me = st.pid(s, seat)
    name = s["players"][seat]["name"]
    if phase == "roll":
        return [_opt(f"Roll {name}'s dice for them (random)", {"type": "roll", "player": me}, "option.roll_random",
                     default=True, player=me)]
    if phase == "declare":
        return declare_options(s, me)
    if phase == "resolve":
        return resolve_options(s, seat)
    if phase == "prepare":
        free = flow.passable(s, seat)
        out = [_opt("Keep every die", {"type": "prepare", "player": me, "dice": []}, "option.prepare_none",
                    default=True)]
        if free:
            out.append(_opt(f"Pass all {len(free)} unused dice", {"type": "prepare", "player": me,
                            "dice": [d["id"] for d in free]}, "option.prepare_all", n=len(free)))
        if len(free) > 1:
            for d in free:
                out.append(_opt(f"Pass {d['id']} ({d['colour']} {d['pips']})",
                                {"type": "prepare", "player": me, "dice": [d["id"]]}, "option.prepare_one",
                                die=d["id"], colour=d["colour"], pips=d["pips"]))
        return out
    return []


def declare_options(s: S, me: str) -> list[dict[str, Any]]:
    taken = {d.get("value") for d in s["decl"].values()}
    casts = {(d.get("colour"), d.get("parity")) for d in s["decl"].values() if d["action"] == "cast"}
    out = []
    first = True
    for kind in st.VALUE_ACTIONS:
        for v in range(1, 7):
            if v in taken:
                continue
            out.append(_opt(f"{kind.capitalize()}, collect {v}", {"type": "declare", "player": me, "action": kind,
                                                                   "value": v}, f"option.declare_{kind}",
                            default=first, value=v))
            first = False
    for colour in st.COLOURS:
        for parity in st.PARITIES:
            if (colour, parity) in casts:
                continue
            out.append(_opt(f"Cast, collect {colour} {parity}", {"type": "declare", "player": me, "action": "cast",
                                                                  "colour": colour, "parity": parity},
                            "option.declare_cast", colour=colour, parity=parity))
    out.append(_opt("Animal companion", {"type": "declare", "player": me, "action": "companion"},
                    "option.declare_companion", default=first))
    return out


def resolve_options(s: S, seat: int) -> list[dict[str, Any]]:
    me = st.pid(s, seat)
    kind = st.action_of(s, seat)
    if kind == "companion":
        left = sum(1 for i in s["power"].get(me, []) if not st.die(s, i)["used"])
        done = _opt("Done helping", {"type": "resolve", "player": me}, "option.companion_done")
        nudges: list[tuple[int, dict[str, Any]]] = []
        if left:
            worth = {k: _worth(s, k) for k in range(len(s["players"]))}
            for k, p in enumerate(s["players"]):
                for d in st.pool(s, k):
                    if d["id"] not in s["power"][me] and not d["used"] and d["pips"] < 6:
                        gain = _worth(s, k, d["id"]) - worth[k]  # what would this player's action gain?
                        nudges.append((gain, _opt(f"+1 on {p['name']}'s {d['id']} ({d['colour']} {d['pips']})",
                                                  {"type": "nudge", "player": me, "die": d["id"]}, "option.nudge",
                                                  player=p["id"], die=d["id"], colour=d["colour"],
                                                  pips=d["pips"], gain=gain)))
        best = max(nudges, key=lambda g: g[0], default=(0, None))
        if best[0] > 0 and best[1] is not None:
            best[1]["default"] = True  # Next hands the pip where it helps most
        else:
            done["default"] = True
        return [done, *(o for _, o in nudges)]
    return [_opt("Resolve with the best sets", {"type": "resolve", "player": me}, f"option.resolve_{kind}",
                 default=True),
            _opt("Do nothing", {"type": "resolve", "player": me, "skip": True}, "option.skip")]


def _worth(s: S, seat: int, plus_one: str | None = None) -> int:
    """What a player still to resolve would achieve with the best sets now (damage, blocks, heals, spells
    count alike), with one die `plus_one` pip higher: how the engine judges where an animal companion's pip
    helps most. Reads the state only (snapshots may be built for several phones at once)."""
    if st.pid(s, seat) in s["resolved"]:
        return 0
    kind = st.action_of(s, seat)
    free = [{"colour": d["colour"], "pips": d["pips"] + (d["id"] == plus_one)}
            for d in st.pool(s, seat) if not d["used"]]
    values = [d["pips"] for d in free]
    pile = len(st.at(s, "wounded"))
    if kind == "attack":
        return 0 if s["defeated"] else len(sets.attack_groups(values, sum(s["snapshot"])))
    if kind == "block":
        return sum(sets.block_of([values[i] for i in g]) for g in sets.block_sets(values))
    if kind == "heal":
        return min(pile, sum(sets.heal_of([values[i] for i in g]) for g in sets.heal_runs(values, pile)))
    if kind == "cast":
        return sum(_spell_worth(s, colour, free, pile) for colour in st.COLOURS)
    return 0


def _spell_worth(s: S, colour: str, free: list[dict[str, Any]], pile: int) -> int:
    """What the spells of one colour achieve, each counted per die of the defence: red and black do nothing
    once the defence is defeated, one touch of death (black) or one ice (blue) is all that helps, and yellow
    heals no more dice than are wounded."""
    n = len(s["snapshot"])
    count = sets.spell_count([d["pips"] for d in free if d["colour"] == colour], s["snapshot"])
    if colour in ("red", "black") and s["defeated"]:
        return 0
    if colour == "black" or colour == "blue":
        return min(count, 1) * n
    if colour == "yellow":
        return min(count * n, pile)
    return count * n


def pending_view(s: S) -> dict[str, Any] | None:
    phase = s["phase"]
    if phase == "over":
        return None
    seat = pending_seat(s)
    who = s["players"][seat]["name"] if seat is not None else "The players"
    extra: dict[str, Any] = {}
    n = 0
    if phase == "roll" and seat is not None:
        mine = st.pool(s, seat)
        n = len(mine)
        extra["input"] = {"type": "dice", "count": n, "dice_sets": ["regidice"], "player": st.pid(s, seat),
                          "colours": sorted((d["colour"] for d in mine), key=st.COLOURS.index),
                          "hidden": True}
        extra["waiting"] = [st.pid(s, k) for k in st.turn_order(s) if st.pid(s, k) not in s["rolled"]]
    damage = s["suffer"]["damage"] if s["suffer"] else 0
    if phase == "suffer" and seat is None:
        who = " or ".join(s["players"][seat_of(s, c)]["name"] for c in s["suffer"]["candidates"])
    prompt = PHASE_PROMPTS[phase].format(who=who, n=n, damage=damage)
    kind = "suffer_choose" if phase == "suffer" and seat is None else phase
    return decision(st.pid(s, seat) if seat is not None else None, kind, prompt, options_view(s),
                    text=f"prompt.{kind}", args={"n": n, "damage": damage}, **extra)


def enemy_view(s: S) -> dict[str, Any]:
    dice = st.enemy_dice(s)
    pips = [d["pips"] for d in dice]
    return {"number": s["enemy"], "of": len(st.ENEMY_DICE), "dice": [{"id": d["id"], "pips": d["pips"]} for d in dice],
            "attack": len(dice) if dice else len(s["snapshot"]), "defence": sum(pips),
            "defence_round": sum(s["snapshot"]), "round_pips": list(s["snapshot"]),
            "to_defeat": 6 * len(pips) - sum(pips) if dice else 0, "defeated": s["defeated"]}


def odds_view(s: S, viewer: str | None) -> dict[str, Any]:
    """Chances that help declare, from public facts only: how many of the others' dice (whose pips nobody
    else has seen) may show each value, and how many of each colour they hold (odd or even is 1 in 2)."""
    if s["phase"] != "declare":
        return {}
    seat = pending_seat(s)
    if seat is None:
        return {}
    others = [d for k in range(len(s["players"])) if k != seat for d in st.pool(s, k)]
    n = len(others)
    return {"player": st.pid(s, seat), "others": n,
            "value_any": round(1 - (5 / 6) ** n, 3), "value_expected": round(n / 6, 2),
            "cast_expected": {c: round(sum(1 for d in others if d["colour"] == c) / 2, 1) for c in st.COLOURS}}


def snapshot(s: S, viewer: str | None) -> dict[str, Any]:
    if viewer not in player_ids(s):
        viewer = None
    seat = pending_seat(s) if s["phase"] != "over" else None
    revealed = s["phase"] not in HIDDEN_PHASES
    return {
        "phase": s["phase"], "round": s["round"], "active": st.pid(s, seat) if seat is not None else None,
        "viewer": viewer, "first": st.pid(s, s["first"]), "order": [st.pid(s, k) for k in st.turn_order(s)],
        "players": [player_view(s, k, viewer) for k in range(len(s["players"]))],
        "enemy": enemy_view(s),
        "wounded": [die_view(s, d, viewer) for d in st.at(s, "wounded")],
        "reserve": len(st.at(s, "reserve")),
        "taken": sorted(d["value"] for d in s["decl"].values() if d.get("value")),
        "collect": s["collect"] if revealed else [],
        "blocked": s["blocked"], "suffer": s["suffer"],
        "events": s["events"],
        "result": s["result"], "winner": "players" if s["result"] == "victory" else None,
        "dice_set": "regidice", "hidden": not revealed,
        "odds": odds_view(s, viewer),
        "pending": pending_view(s),
    }


def best_preview(s: S, seat: int) -> dict[str, Any]:
    """What the engine's best sets would give a player now (shown in Resolve, after the reveal)."""
    values = [d["pips"] for d in st.pool(s, seat) if not d["used"]]
    return {"attack": len(sets.attack_groups(values, sum(s["snapshot"]))),
            "block": sum(sets.block_of([values[i] for i in g]) for g in sets.block_sets(values)),
            "heal": sum(sets.heal_of([values[i] for i in g]) for g in sets.heal_runs(values))}
