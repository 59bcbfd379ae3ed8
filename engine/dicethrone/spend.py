"""Spending consumable status tokens (§6.3) at the moment their text allows.

Each spend resolves at once and cannot be interrupted. Dice a spend rolls come in the action's `value`
(the camera's or the player's reading) or from the seeded stream.
"""

from __future__ import annotations

from typing import Any

from .. import rng
from ..core import require
from . import combat, companions, damage
from . import effects as fx
from . import state as st
from .damage import MODIFIER, PREVENT, packet
from .data import statuses
from .dice import half_up

E = list[dict[str, Any]]


def die_value(s: st.S, action: dict[str, Any]) -> int:
    v = action.get("value")
    if v is None:
        return rng.roll(s, 1)[0]
    require(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6, "bad_dice",
            "A die shows a number from 1 to 6.")
    return v


def attacking(s: st.S, i: int) -> bool:
    """Player i is making an attack in their own ORP right now (needed by attack modifiers, §8.1)."""
    rp = s["rp"]
    return (rp is not None and rp["attacker"] == i and rp["ability"] is not None and rp["stage"] != "roll"
            and rp["target"] is not None and rp["attack"]["amount"] > 0)


def can_spend(s: st.S, i: int, sid: str, use: str | None = None) -> str | None:
    """None if player i may spend `sid` now, else the reason (a sentence)."""
    row = statuses().get(sid)
    if row is None:
        return f"There is no status called \"{sid}\"."
    if not st.has(s, i, sid):
        return f"{s['players'][i]['name']} holds no {row['name']['en']}."
    when = row.get("spend")
    if when is None:
        return f"{row['name']['en']} cannot be spent."
    if st.has(s, i, "stun"):
        return "A stunned player can take no action."
    rp = s["rp"]
    if rp is not None and rp["ultimate"] and rp["stage"] != "roll" and i != rp["attacker"]:
        if s["players"][i]["team"] != s["players"][rp["attacker"]]["team"]:
            return "Nobody may act against an ultimate until the Roll Phase ends."
    if sid == "chi":
        when = "attack" if use == "attack" else "incoming"
        if use == "attack" and s["players"][i]["gained"].get("chi") == s["turn"]:
            return "Chi cannot add damage in the turn it was gained."
    if when == "incoming":
        p = fx.incoming(s, i)
        if p is None or p["type"] == "ultimate":
            return f"{row['name']['en']} needs incoming damage it can act on."
        if sid == "retribution" and not p["attack"]:
            return "Retribution answers an attack only."
        if sid == "back_strike" and not p["orp"]:
            return "Back Strike answers damage from an opponent's Offensive Roll Phase only."
        return None
    if when == "attack":
        if not attacking(s, i):
            return f"{row['name']['en']} is spent on your own attack."
        if sid == "crit":
            if damage.resolve(combat.attack_total(s))["total"] < 5:
                return "Crit needs an attack of at least 5 damage."
        if sid == "accuracy" and s["pending"]["kind"] not in ("confirm", "defense", "ability_roll", "target",
                                                              "targeting_roll", "targeting_resolve"):
            return "Accuracy is spent before the defense."
        return None
    if when == "main":
        if s["active"] != i or s["phase"] not in ("main1", "main2"):
            return f"{row['name']['en']} is spent in your own Main Phase."
    return None


def spend(s: st.S, i: int, action: dict[str, Any]) -> E:
    sid = str(action.get("status", "")).lower().replace(" ", "_").replace("'", "")
    use = action.get("use")
    reason = can_spend(s, i, sid, use)
    require(reason is None, "cannot_spend", reason or "")
    p = s["players"][i]
    count = 1
    if sid in ("honor", "chi"):
        count = int(action.get("count", 1))
        require(1 <= count <= st.has(s, i, sid), "cannot_spend", f"{p['name']} holds {st.has(s, i, sid)} {sid}.")
        require(sid != "honor" or count <= 2, "cannot_spend", "Honor is spent 1 or 2 at a time.")
    st.remove_status(s, i, sid, count)
    ev: dict[str, Any] = {"type": "spent", "player": p["id"], "status": sid, "count": count}
    if statuses()[sid].get("roll") and action.get("value") is None and action.get("await_roll"):
        # The player rolls the token's die into the tray: the next roll action (camera or by hand) resolves it.
        s["pending"] = {"kind": "status_roll", "player": i, "dice": 1, "status": sid,
                        "spend": {k: v for k, v in action.items() if k != "evidence"},
                        "back": s["pending"], "tray_back": [s["tray"], [dict(d) for d in s["dice"]]]}
        s["tray"] = "status"
        s["dice"] = [{"value": 0, "kept": False, "owner": p["id"]}]
        return [{**ev, "awaiting_roll": True}]
    return resolve(s, i, sid, count, action, ev)


def status_rolled(s: st.S, v: int) -> E:
    """The die of a spent token arrived (camera or by hand): restore the tray, then resolve the spend."""
    pending = s["pending"]
    s["pending"] = pending["back"]
    s["tray"] = pending["tray_back"][0]
    s["dice"] = [dict(d) for d in pending["tray_back"][1]]  # the saved dicts belong to older states too
    action = {**pending["spend"], "value": v}
    i = pending["player"]
    ev = {"type": "spent", "player": s["players"][i]["id"], "status": pending["status"], "count": 1}
    return resolve(s, i, pending["status"], 1, action, ev)


def resolve(s: st.S, i: int, sid: str, count: int, action: dict[str, Any], ev: dict[str, Any]) -> E:
    """What a spent token does (its die from `value`, or seeded)."""
    p = s["players"][i]
    rp = s["rp"]
    use = action.get("use")
    incoming = fx.incoming(s, i)
    atk = rp["attack"] if rp else None
    if sid in ("evasive", "smoke_bomb"):
        v = die_value(s, action)
        ok = v <= (2 if sid == "evasive" else 3)
        ev.update(value=v, avoided=ok)
        if ok:
            incoming["avoided"] = True
    elif sid == "protect":
        incoming["halves"].append("protect")
    elif sid == "retribution":
        incoming["reflect"].append("retribution")
    elif sid == "back_strike":
        v = die_value(s, action)
        ev["value"] = v
        rp["packets"].append(packet(incoming["from"], i, half_up(v), "undefendable", source="back_strike"))
    elif sid == "chi" and use == "attack":
        atk["mods"].append([count, MODIFIER, "chi"])
    elif sid == "chi":
        incoming["mods"].append([-count, PREVENT, "chi"])
    elif sid == "reload":
        v = die_value(s, action)
        ev["value"] = v
        atk["mods"].append([half_up(v), MODIFIER, "reload"])
    elif sid == "sneak_attack":
        v = die_value(s, action)
        ev["value"] = v
        atk["mods"].append([v, MODIFIER, "sneak_attack"])
    elif sid == "ninjutsu":
        v = die_value(s, action)
        ev["value"] = v
        atk["mods"].append([1 if v <= 3 else 2, MODIFIER, "ninjutsu"])
    elif sid == "crit":
        atk["mods"].append([4, MODIFIER, "crit"])
    elif sid == "honor":
        atk["mods"].append([1 if count == 1 else 3, MODIFIER, "honor"])
    elif sid == "accuracy":
        rp["undefendable"] = True
        if atk["type"] == "normal":
            atk["type"] = "undefendable"
        if s["pending"]["kind"] == "defense":
            return [ev] + combat.open_window(s)
    elif sid == "cleanse":
        wanted = action.get("remove")
        if wanted:
            require(wanted != "cursed_doubloon", "cannot_spend", "Only the Cursed Pirate's board removes Doubloons.")
            require(st.has(s, i, wanted), "cannot_spend", f"{p['name']} holds no {wanted}.")
            st.remove_status(s, i, wanted, 1)
            ev["removed"] = wanted
        else:
            ev["removed"] = fx.cleanse(s, i)
    elif sid == "wellspring":
        v = die_value(s, action)
        ev["value"] = v
        st.apply_batch(s, {}, {i: half_up(v)})
    elif healed := companions.healed_by(s, i, sid):   # e.g. Nyra's Bond: heal Nyra 2
        cid, n = healed
        return [ev] + companions.heal(s, i, cid, n)
    else:
        st.note(s, f"{p['name']} spent {statuses()[sid]['name']['en']}: resolve its effect by hand.")
    return [ev]
