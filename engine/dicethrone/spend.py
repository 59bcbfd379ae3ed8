"""Spending consumable status tokens (§6.3) at the moment their text allows.

Each spend resolves at once and cannot be interrupted. Dice a spend rolls come in the action's `value`
(the camera's or the player's reading) or from the seeded stream.
"""

from __future__ import annotations

from collections.abc import Callable
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
    why = _may_spend_at_all(s, i, sid, row)
    if why is not None:
        return why
    when = row["spend"]
    if sid == "chi":   # Chi is spent either way: on the player's attack, or against incoming damage
        when = "attack" if use == "attack" else "incoming"
        if use == "attack" and s["players"][i]["gained"].get("chi") == s["turn"]:
            return "Chi cannot add damage in the turn it was gained."
    check = _WINDOWS.get(when)
    return None if check is None else check(s, i, sid, row)


def _may_spend_at_all(s: st.S, i: int, sid: str, row: dict[str, Any]) -> str | None:
    """Why player i cannot spend the token whatever the moment: none held, never spent, stunned, or an
    opponent's ultimate on its way."""
    if not st.has(s, i, sid):
        return f"{s['players'][i]['name']} holds no {row['name']['en']}."
    if row.get("spend") is None:
        return f"{row['name']['en']} cannot be spent."
    if st.has(s, i, "stun"):
        return "A stunned player can take no action."
    rp = s["rp"]
    if rp is not None and rp["ultimate"] and rp["stage"] != "roll" and i != rp["attacker"]:
        if s["players"][i]["team"] != s["players"][rp["attacker"]]["team"]:
            return "Nobody may act against an ultimate until the Roll Phase ends."
    return None


def _against_incoming(s: st.S, i: int, sid: str, row: dict[str, Any]) -> str | None:
    """A token against damage: there must be some it can act on (never an ultimate's)."""
    p = fx.incoming(s, i)
    if p is None or p["type"] == "ultimate":
        return f"{row['name']['en']} needs incoming damage it can act on."
    if sid == "retribution" and not p["attack"]:
        return "Retribution answers an attack only."
    if sid == "back_strike" and not p["orp"]:
        return "Back Strike answers damage from an opponent's Offensive Roll Phase only."
    return None


def _on_own_attack(s: st.S, i: int, sid: str, row: dict[str, Any]) -> str | None:
    """A token for the player's own attack, while it is being made (Crit: of 5 damage or more; Accuracy:
    before the defense)."""
    if not attacking(s, i):
        return f"{row['name']['en']} is spent on your own attack."
    if sid == "crit":
        if damage.resolve(combat.attack_total(s))["total"] < 5:
            return "Crit needs an attack of at least 5 damage."
    if sid == "accuracy" and s["pending"]["kind"] not in ("confirm", "defense", "ability_roll", "target",
                                                          "targeting_roll", "targeting_resolve"):
        return "Accuracy is spent before the defense."
    return None


def _in_own_main(s: st.S, i: int, sid: str, row: dict[str, Any]) -> str | None:
    if s["active"] != i or s["phase"] not in ("main1", "main2"):
        return f"{row['name']['en']} is spent in your own Main Phase."
    return None


# When a token may be spent (its row's `spend`), checked by these; any other moment: whenever the player may act.
_WINDOWS: dict[str, Callable[[st.S, int, str, dict[str, Any]], str | None]] = {
    "incoming": _against_incoming, "attack": _on_own_attack, "main": _in_own_main,
}


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
    """What a spent token does (its die from `value`, or seeded); `ev` is the spend's event, which the token
    completes (the die it rolled, whether the damage was avoided, what was removed)."""
    effect = _SPENT.get(sid)
    if effect is not None:
        return effect(s, i, count, action, ev)
    healed = companions.healed_by(s, i, sid)   # e.g. Nyra's Bond: heal Nyra 2
    if healed:
        cid, n = healed
        return [ev] + companions.heal(s, i, cid, n)
    st.note(s, f"{s['players'][i]['name']} spent {statuses()[sid]['name']['en']}: resolve its effect by hand.")
    return [ev]


def _rolled(s: st.S, action: dict[str, Any], ev: dict[str, Any]) -> int:
    """The token's die, told in its event."""
    v = die_value(s, action)
    ev["value"] = v
    return v


def _attack(s: st.S) -> dict[str, Any]:
    return s["rp"]["attack"]


def _evade(most: int) -> Callable[..., E]:
    """Evasive (1-2) and Smoke Bomb (1-3): a die of at most `most` avoids the incoming damage."""
    def effect(s: st.S, i: int, count: int, action: dict[str, Any], ev: dict[str, Any]) -> E:
        incoming = fx.incoming(s, i)
        v = die_value(s, action)
        ok = v <= most
        ev.update(value=v, avoided=ok)
        if ok:
            incoming["avoided"] = True
        return [ev]
    return effect


def _protect(s: st.S, i: int, count: int, action: dict[str, Any], ev: dict[str, Any]) -> E:
    fx.incoming(s, i)["halves"].append("protect")
    return [ev]


def _retribution(s: st.S, i: int, count: int, action: dict[str, Any], ev: dict[str, Any]) -> E:
    fx.incoming(s, i)["reflect"].append("retribution")
    return [ev]


def _back_strike(s: st.S, i: int, count: int, action: dict[str, Any], ev: dict[str, Any]) -> E:
    """Half the die back at whoever dealt the damage, undefendable."""
    incoming = fx.incoming(s, i)
    v = _rolled(s, action, ev)
    s["rp"]["packets"].append(packet(incoming["from"], i, half_up(v), "undefendable", source="back_strike"))
    return [ev]


def _chi(s: st.S, i: int, count: int, action: dict[str, Any], ev: dict[str, Any]) -> E:
    """Each Chi adds 1 damage to the player's attack, or prevents 1."""
    if action.get("use") == "attack":
        _attack(s)["mods"].append([count, MODIFIER, "chi"])
    else:
        fx.incoming(s, i)["mods"].append([-count, PREVENT, "chi"])
    return [ev]


def _add_to_attack(amount: Callable[[int], int], name: str, rolls: bool = True) -> Callable[..., E]:
    """A token that adds to the player's attack: `amount` of its die (or of the tokens spent when it rolls
    none)."""
    def effect(s: st.S, i: int, count: int, action: dict[str, Any], ev: dict[str, Any]) -> E:
        n = _rolled(s, action, ev) if rolls else count
        _attack(s)["mods"].append([amount(n), MODIFIER, name])
        return [ev]
    return effect


def _accuracy(s: st.S, i: int, count: int, action: dict[str, Any], ev: dict[str, Any]) -> E:
    """The attack becomes undefendable; spent while the defender chooses, it skips the defense."""
    s["rp"]["undefendable"] = True
    atk = _attack(s)
    if atk["type"] == "normal":
        atk["type"] = "undefendable"
    if s["pending"]["kind"] == "defense":
        return [ev] + combat.open_window(s)
    return [ev]


def _cleanse(s: st.S, i: int, count: int, action: dict[str, Any], ev: dict[str, Any]) -> E:
    """Removes the token the player names (`remove`), else every negative one."""
    wanted = action.get("remove")
    if wanted:
        require(wanted != "cursed_doubloon", "cannot_spend", "Only the Cursed Pirate's board removes Doubloons.")
        require(st.has(s, i, wanted), "cannot_spend", f"{s['players'][i]['name']} holds no {wanted}.")
        st.remove_status(s, i, wanted, 1)
        ev["removed"] = wanted
    else:
        ev["removed"] = fx.cleanse(s, i)
    return [ev]


def _wellspring(s: st.S, i: int, count: int, action: dict[str, Any], ev: dict[str, Any]) -> E:
    st.apply_batch(s, {}, {i: half_up(_rolled(s, action, ev))})
    return [ev]


# What each spent token does; a token not here is a companion's (companions.healed_by) or resolved by hand.
_SPENT: dict[str, Callable[..., E]] = {
    "evasive": _evade(2), "smoke_bomb": _evade(3), "protect": _protect, "retribution": _retribution,
    "back_strike": _back_strike, "chi": _chi,
    "reload": _add_to_attack(half_up, "reload"),
    "sneak_attack": _add_to_attack(lambda v: v, "sneak_attack"),
    "ninjutsu": _add_to_attack(lambda v: 1 if v <= 3 else 2, "ninjutsu"),
    "crit": _add_to_attack(lambda n: 4, "crit", rolls=False),
    "honor": _add_to_attack(lambda n: 1 if n == 1 else 3, "honor", rolls=False),
    "accuracy": _accuracy, "cleanse": _cleanse, "wellspring": _wellspring,
}
