"""What each of the last moves caused, and each player's totals, kept in the state for the page.

Why: the game's log holds actions only, and what an action caused lives in its events, which no snapshot
carries: the die the box rolled for Blind or Evasive, the dice a card changed (4 -> 3), the damage a Roll
Phase dealt and what prevented part of it. The page needs them to write a log people read and a recap at
the end. Kept in the state (not beside it) so undo, redo and replay give back exactly the story of the
position they reach. Every list and dict here is replaced whole, never changed in place (state.clone).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import combat
from . import state as st
from .damage import MODIFIER, resolve

KEEP = 12   # moves remembered: the page's log shows the last twenty actions, a few KB at most

# events the page words in its log: kept compact, in the order they happened
KINDS = ("rolled", "dice_changed", "played", "spent", "blind", "targeting", "target", "roll_phase_end", "keg_exploded",
         "defeated", "manual")   # manual: an effect players do by hand, its text in three languages (effects.do_manual)


def _who(s: st.S, i: int | None) -> str | None:
    return None if i is None else s["players"][i]["id"]


def _roller(before: st.S) -> str | None:
    """Whose dice a roll of this move were: the pending decision's player, else the attacker, else active."""
    pending = before["pending"] or {}
    if pending.get("player") is not None:
        return _who(before, pending["player"])
    rp = before["rp"]
    if rp is not None:
        return _who(before, rp["attacker"])
    return _who(before, before["active"])


def _compact(before: st.S, e: dict[str, Any]) -> dict[str, Any]:
    if e["type"] == "rolled":
        return {"type": "rolled", "purpose": e.get("purpose"), "dice": list(e.get("dice") or []),
                "player": _roller(before)}
    if e["type"] == "roll_phase_end":
        rp = before["rp"] or {}
        defense = rp.get("defense")
        return {"type": "roll_phase_end", "ability": e.get("ability"), "attacker": _who(before, rp.get("attacker")),
                "defense": defense.get("id") if isinstance(defense, dict) else defense, "packets": e.get("packets", []), "damage": e.get("damage", {}),
                "heal": e.get("heal", {}), **({"note": e["note"]} if e.get("note") else {}),
                **({"attack": _attack(before)} if before["rp"] is not None and e.get("ability") else {})}
    if e["type"] == "targeting" and before["rp"] is not None:
        return {**e, "attacker": _who(before, before["rp"]["attacker"])}
    if e["type"] == "blind":
        return {**e, "player": _roller(before)}
    return dict(e)


def _attack(before: st.S) -> dict[str, Any] | None:
    """The attack as it stood when the Roll Phase ended: what came in (base and attack modifiers), what the
    defender prevented (flat prevention, halves, an avoided attack) and what was taken."""
    atk = combat.attack_total(before)
    if atk is None:
        return None
    incoming = max(0, atk["amount"] + sum(m[0] for m in atk["mods"] if m[1] == MODIFIER))
    taken = resolve(atk)["taken"]
    return {"to": _who(before, atk["to"]), "incoming": incoming, "taken": taken,
            "prevented": max(0, incoming - taken), "avoided": bool(atk["avoided"])}


def _health(before: st.S, e: dict[str, Any]) -> dict[str, Any]:
    """A team's health change, with its members (in 1v1 and King of the Hill the team is the player)."""
    members = next((t["members"] for t in before["teams"] if t["id"] == e["team"]), [])
    return {"type": "health", "players": [_who(before, m) for m in members], "before": e["before"],
            "after": e["after"], "damage": e["damage"], "heal": e["heal"]}


def record(before: st.S, s: st.S, events: list[dict[str, Any]]) -> None:
    """After one action: count the move, keep what it caused, add it to the players' totals."""
    move = before.get("moves", 0) + 1
    s["moves"] = move
    kept = [_compact(before, e) for e in events if e["type"] in KINDS]
    # health that moved outside a Roll Phase's end and not by a correction (Burn, Poison, a keg, a card)
    if not any(e["type"] in ("roll_phase_end", "adjusted") for e in events):
        kept += [_health(before, e) for e in events if e["type"] == "health"]
    if kept:
        s["story"] = ([*before.get("story", []), {"move": move, "events": kept}])[-KEEP:]
    stats = _tally(before, kept, events)
    if stats is not None:
        s["stats"] = stats


def _blank() -> dict[str, Any]:
    return {"dealt": 0, "taken": 0, "healed": 0, "abilities": {}, "dice": 0, "faces": [0] * 6}


def _tally(before: st.S, kept: list[dict[str, Any]], events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The recap's totals with this move's events added; None when nothing counts."""
    activated = [e for e in events if e["type"] == "activated"]
    if not kept and not activated:
        return None
    old = before.get("stats", {})
    out = {pid: {**row, "abilities": dict(row["abilities"]), "faces": list(row["faces"])} for pid, row in old.items()}
    team = {p["id"]: p["team"] for p in before["players"]}
    for e in activated:
        if e.get("player") is not None:
            r = _row(out, e["player"])
            r["abilities"][e["ability"]] = r["abilities"].get(e["ability"], 0) + 1
    for e in kept:
        count = _COUNTS.get(e["type"])
        if count is not None:
            count(out, e, team)
    return out


def _row(out: dict[str, Any], pid: str) -> dict[str, Any]:
    """A player's totals, started blank the first time they count."""
    return out.setdefault(pid, _blank())


def _count_rolled(out: dict[str, Any], e: dict[str, Any], team: dict[str, Any]) -> None:
    """The dice a player rolled, by face (a roll of no player counts for nobody)."""
    if e["player"] is None:
        return
    r = _row(out, e["player"])
    for v in e["dice"]:
        if 1 <= v <= 6:
            r["dice"] += 1
            r["faces"][v - 1] += 1


def _count_health(out: dict[str, Any], e: dict[str, Any], team: dict[str, Any]) -> None:
    """Damage taken and heals of one player outside a Roll Phase."""
    if len(e["players"]) == 1:
        _row(out, e["players"][0])["taken"] += e["damage"]
        _row(out, e["players"][0])["healed"] += e["heal"]


def _count_roll_phase(out: dict[str, Any], e: dict[str, Any], team: dict[str, Any]) -> None:
    """A Roll Phase's damage (dealt by the attacker unless to a teammate) and heals."""
    for pid, n in e["damage"].items():
        _row(out, pid)["taken"] += n
        attacker = e["attacker"]
        if attacker is not None and team.get(attacker) != team.get(pid):
            _row(out, attacker)["dealt"] += n
    for pid, n in e["heal"].items():
        _row(out, pid)["healed"] += n


# What each kind of kept event adds to the totals.
_COUNTS: dict[str, Callable[[dict[str, Any], dict[str, Any], dict[str, Any]], None]] = {
    "rolled": _count_rolled, "health": _count_health, "roll_phase_end": _count_roll_phase,
}
