"""Playing a card: pay its CP, check its timing (§7), do what the engine knows of it, discard it.

Hands and decks are counts (the engine cannot see cards), so a card is named in the action. Known cards
(hero upgrades, the generic deck, hero actions in the data) act on the game; an unknown card may still
be played with its `cost`, and players adjust its effect by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import IllegalAction, require
from ..kernel import seat_of
from . import combat
from . import effects as fx
from . import state as st
from .damage import PREVENT
from .data import generic_cards, statuses
from .heroes import hero, norm
from .rollphase import E, pend, roll_for


def find(s: st.S, i: int, name: Any) -> dict[str, Any] | None:
    return find_for_hero(s["players"][i]["hero"], name)


def find_for_hero(hero_id: str, name: Any) -> dict[str, Any] | None:
    """A card in that hero's deck (hero cards, its upgrades, the generic cards) by loose name or id."""
    key = norm(str(name))
    return hero(hero_id)["cards_by_name"].get(key) or generic_cards().get(key)


def upgrade_cost(s: st.S, i: int, card: dict[str, Any]) -> int:
    """Full price, or only the difference when laying III over an installed II (§7.2)."""
    p = s["players"][i]
    have = p["upgrades"].get(card["slot"], 1)
    require(card["level"] > have, "already_upgraded",
            f"{card['name']['en']} is not above the level already on the board.")
    if have >= 2:
        below = find(s, i, f"{card['slot']}_{have}")
        if below is not None:
            return max(0, card["cost"] - below["cost"])
    return card["cost"]


def play(s: st.S, i: int, action: dict[str, Any]) -> E:
    p = s["players"][i]
    if p["hand"] <= 0:
        raise IllegalAction("no_cards", f"{p['name']} has no cards in hand.")
    require(not st.has(s, i, "stun"), "stunned", "A stunned player can take no action.")
    card = find(s, i, action.get("card"))
    if card is None:
        cost = action.get("cost")
        require(isinstance(cost, int) and cost >= 0, "unknown_card",
                f"The engine does not know \"{action.get('card')}\"; give its \"cost\" to play it anyway.")
        card = {"id": norm(str(action.get("card"))), "name": {"en": str(action.get("card"))}, "cost": cost,
                "type": action.get("when", "instant"), "manual": True}
    kind = card["type"]
    rp = s["rp"]
    if kind in ("main", "upgrade"):
        if not (s["active"] == i and s["phase"] in ("main1", "main2") and s["pending"]["kind"] == "main"):
            raise IllegalAction("wrong_time", f"{card['name']['en']} is played in your own Main Phase only.")
    elif kind == "roll":
        if rp is None:
            raise IllegalAction("wrong_time", f"{card['name']['en']} is played during a Roll Phase only.")
    if rp is not None and rp["ultimate"] and rp["stage"] != "roll":
        require(s["players"][i]["team"] == s["players"][rp["attacker"]]["team"], "ultimate",
                "Nobody may act against an ultimate until the Roll Phase ends.")
    cost = upgrade_cost(s, i, card) if kind == "upgrade" else card["cost"]
    st.pay(s, i, cost, card["name"]["en"])
    p["hand"] -= 1
    events: E = [{"type": "played", "player": p["id"], "card": card["name"]["en"], "cost": cost}]
    if kind == "upgrade":
        st.put(p, "upgrades", card["slot"], card["level"])
        events.append({"type": "upgraded", "player": p["id"], "ability": card["slot"], "level": card["level"]})
        if card.get("unknown_effect"):
            st.note(s, f"{card['name']['en']}: its board text is unknown; apply its changes by hand.")
        return events
    p["discard"] += 1
    if card.get("manual"):
        st.note(s, f"{p['name']} played {card['name']['en']}: resolve it by hand." +
                (f" ({card['text']['en'] if isinstance(card['text'], dict) else card['text']})"
                 if card.get("text") else ""))
        return events
    if "act" in card:
        return events + act(s, i, card, action)
    return events + run_effects(s, i, card, action)


def target_of(s: st.S, i: int, action: dict[str, Any], *, opponent: bool = True) -> int | None:
    """The chosen player of a card: `target` in the action, else the only opponent (1v1)."""
    if action.get("target") is not None:
        return seat_of(s, action["target"])
    if opponent:
        opp = st.opponents(s, i)
        if len(opp) == 1:
            return opp[0]
    return None


def run_effects(s: st.S, i: int, card: dict[str, Any], action: dict[str, Any]) -> E:
    """A card written in the effect language; its rolls use `roll` from the action or seeded dice."""
    given = action.get("roll")
    ctx: dict[str, Any] = {"owner": i, "other": target_of(s, i, action), "role": "card", "roll": None,
                           "final": None, "faces": hero(s["players"][i]["hero"])["faces"],
                           "source": card["id"]}
    events: E = []
    for eff in card["effects"]:
        if eff["do"] == "roll":
            n = eff["dice"]
            ctx["roll"] = roll_for(s, {"dice": given} if given is not None else {}, n)
            events.append({"type": "rolled", "purpose": "card", "dice": ctx["roll"]})
            continue
        events += fx.apply(s, eff, ctx)
    return events


def _die(s: st.S, k: Any, own: str | None = None) -> dict[str, Any]:
    """Die k of the tray; with `own` (a player id) it must be that player's die where dice have owners."""
    require(isinstance(k, int) and not isinstance(k, bool) and 0 <= k < len(s["dice"]), "bad_die",
            f"Pick one of the {len(s['dice'])} dice on the tray first." if s["dice"] else "There are no dice on the tray.")
    d = s["dice"][k]
    require(d["value"] > 0, "bad_die", "That die has not been rolled yet.")
    require(own is None or d.get("owner", own) == own, "not_your_dice", "This card changes your own dice only.")
    return d


def _may_change_dice(s: st.S, i: int, own: bool, opponent: bool = False) -> None:
    require(bool(s["dice"]) and s["tray"] in ("offense", "defense", "targeting", "opposed", "ability"), "no_dice",
            "There are no dice on the tray that a card can change now.")
    require(s["tray"] not in ("ability", "opposed") or s["pending"]["kind"] == "ability_resolve", "wrong_time",
            "Those dice have not been rolled yet.")
    rp = s["rp"]
    require(not (s["tray"] == "targeting" and rp and rp["ultimate"]), "ultimate",
            "The targeting die of an ultimate cannot be changed.")
    require(not (s["tray"] == "offense" and s["pending"]["kind"] not in ("offense", "confirm")), "wrong_time",
            "The offensive dice can only be changed before the ability activates.")
    owner = _owner(s)
    if own:
        require(owner is None or owner == i, "not_your_dice", "This card changes your own dice only.")
    if opponent and owner is not None:
        require(s["players"][owner]["team"] != s["players"][i]["team"], "not_opponent",
                "This card makes an opponent reroll one of their dice.")


def _owner(s: st.S) -> int | None:
    rp = s["rp"]
    if s["tray"] in ("offense", "targeting", "ability"):
        return rp["attacker"]
    if s["tray"] == "defense":
        return rp["target"]
    return None


def untouchable(sid: str) -> str | None:
    """Why a status card cannot touch this token (§6.5), or None."""
    if sid == "cursed_doubloon":
        return "Only the Cursed Pirate's board removes or moves Cursed Doubloons."
    if statuses()[sid]["kind"] == "companion":
        return "Companions are not status effects; status cards do not affect them."
    return None


def act(s: st.S, i: int, card: dict[str, Any], action: dict[str, Any]) -> E:
    """Cards that act on dice, rolls or tokens rather than on damage alone (`act` names what the card does)."""
    play = _ACTS.get(card["act"])
    if play is None:
        raise IllegalAction("unknown_card", f"The engine cannot play {card['name']['en']} yet.")
    return play(s, i, card, action)


def _change_dice(s: st.S, i: int, card: dict[str, Any], action: dict[str, Any]) -> E:
    """A card that changes dice on the tray, when a card may; the change is told as the dice before and after,
    and offensive dice that changed are checked against the abilities again."""
    _may_change_dice(s, i, card.get("own", False), card.get("opponent", False))
    st.own_dice(s)  # the card changes dice in place below (`_die`)
    before = [d["value"] for d in s["dice"]]
    mine = s["players"][i]["id"] if card.get("own") else None
    _DICE_CHANGES[card["act"]](s, card, action, mine)
    after = [d["value"] for d in s["dice"]]
    events: E = [{"type": "dice_changed", "by": s["players"][i]["id"], "card": card["name"]["en"],
                  "before": before, "after": after}]
    if s["tray"] == "offense" and before != after:
        events += combat.dice_changed(s)
    return events


def _set_die(s: st.S, card: dict[str, Any], action: dict[str, Any], mine: str | None) -> None:
    _die(s, action.get("die"), mine)["value"] = card["value"]


def _set_dice(s: st.S, card: dict[str, Any], action: dict[str, Any], mine: str | None) -> None:
    """Up to `max` dice set to the values the player names (`changes`, or one `die` and `value`)."""
    changes = action.get("changes") or ([{"die": action.get("die"), "value": action.get("value")}]
                                       if "die" in action else [])
    require(1 <= len(changes) <= card["max"], "bad_die", f"{card['name']['en']} sets up to {card['max']} dice.")
    for c in changes:
        v = c.get("value")
        require(isinstance(v, int) and 1 <= v <= 6, "bad_dice", "A die shows a number from 1 to 6.")
        _die(s, c.get("die"))["value"] = v


def _tip(s: st.S, card: dict[str, Any], action: dict[str, Any], mine: str | None) -> None:
    delta = action.get("delta")
    require(delta in (1, -1), "bad_die", "Tip It! raises or lowers a die by 1 (delta 1 or -1).")
    d = _die(s, action.get("die"))
    require(1 <= d["value"] + delta <= 6, "bad_die", "A die cannot go below 1 or above 6.")
    d["value"] += delta


def _samesies(s: st.S, card: dict[str, Any], action: dict[str, Any], mine: str | None) -> None:
    _die(s, action.get("die"), mine)["value"] = _die(s, action.get("to"), mine)["value"]


def _reroll(s: st.S, card: dict[str, Any], action: dict[str, Any], mine: str | None) -> None:
    """Up to `max` dice rolled again (`dice`, or one `die`); `values` from the tray, else seeded dice."""
    picks = action.get("dice")
    if picks is None:
        picks = [action.get("die")]
    require(isinstance(picks, list) and 1 <= len(picks) <= card["max"], "bad_die",
            f"{card['name']['en']} rerolls up to {card['max']} {'die' if card['max'] == 1 else 'dice'}.")
    given = action.get("values")
    vals = roll_for(s, {"dice": given} if given is not None else {}, len(picks))
    for k, v in zip(picks, vals, strict=True):
        _die(s, k)["value"] = v


_DICE_CHANGES: dict[str, Callable[[st.S, dict[str, Any], dict[str, Any], str | None], None]] = {
    "set_die": _set_die, "set_dice": _set_dice, "tip": _tip, "samesies": _samesies, "reroll": _reroll,
}


def _extra_attempt(s: st.S, i: int, card: dict[str, Any], action: dict[str, Any]) -> E:
    rp = s["rp"]
    require(rp is not None and s["pending"]["kind"] in ("offense", "confirm"), "wrong_time",
            "One More Time! is played during an Offensive Roll Phase.")
    s["attempts_max"] += 1
    return [{"type": "extra_attempt", "player": s["players"][rp["attacker"]]["id"]}] + \
        (combat.dice_changed(s) if s["pending"]["kind"] == "confirm" else [])


def _extra_defense_attempt(s: st.S, i: int, card: dict[str, Any], action: dict[str, Any]) -> E:
    """The defender rolls again the dice not in `keep` (the attacker's dice on the tray stay kept)."""
    rp = s["rp"]
    require(s["pending"]["kind"] == "defense_resolve", "wrong_time",
            "Better D! is played after a defensive roll, before it resolves.")
    keep = action.get("keep", [])
    for k, d in enumerate(st.own_dice(s)):
        d["kept"] = k in keep if d.get("owner") == s["players"][rp["target"]]["id"] else True
    unkept = sum(1 for d in s["dice"] if not d["kept"])
    pend(s, "defense_roll", rp["target"], dice=unkept)
    return [{"type": "extra_defense_attempt"}]


def _prevent(s: st.S, i: int, card: dict[str, Any], action: dict[str, Any]) -> E:
    """Damage prevented for the target (the player themselves when none is named); never an ultimate's."""
    j = target_of(s, i, action, opponent=False)
    j = i if j is None else j
    p = fx.incoming(s, j)
    require(p is not None, "wrong_time", f"{card['name']['en']} needs incoming damage to prevent.")
    require(p["type"] != "ultimate", "ultimate", "Ultimate damage cannot be prevented.")
    p["mods"].append([-card["amount"], PREVENT, card["id"]])
    return [{"type": "prevent", "player": s["players"][j]["id"], "amount": card["amount"]}]


def _remove_all_status(s: st.S, i: int, card: dict[str, Any], action: dict[str, Any]) -> E:
    """Every token of the target a status card may touch is removed."""
    j = _status_target(s, i, card, action)
    removed = [k for k in list(s["players"][j]["statuses"]) if untouchable(k) is None]
    for k in removed:
        st.remove_status(s, j, k)
    return [{"type": "statuses_removed", "player": s["players"][j]["id"], "statuses": removed}]


def _remove_status(s: st.S, i: int, card: dict[str, Any], action: dict[str, Any]) -> E:
    """One token of the named status taken from the target; a token no card may touch has no effect."""
    j = _status_target(s, i, card, action)
    sid = action.get("status")
    require(sid in statuses(), "bad_status", f"{card['name']['en']} needs the \"status\" to remove.")
    why = untouchable(sid)
    if why:
        return [{"type": "no_effect", "why": why}]
    require(st.has(s, j, sid), "bad_status", f"{s['players'][j]['name']} holds no {sid}.")
    st.remove_status(s, j, sid, 1)
    events: E = [{"type": "status_removed", "player": s["players"][j]["id"], "status": sid}]
    if card["act"] == "move_status":
        to = seat_of(s, action.get("to"))
        events += st.gain_status(s, to, sid, 1)
    return events


def _status_target(s: st.S, i: int, card: dict[str, Any], action: dict[str, Any]) -> int:
    j = target_of(s, i, action, opponent=False)
    if j is None:
        raise IllegalAction("need_target", f"{card['name']['en']} needs a \"target\" player.")
    return j


# What a card with `act` does (every other card: effects, run_effects).
_ACTS: dict[str, Callable[[st.S, int, dict[str, Any], dict[str, Any]], E]] = {
    **dict.fromkeys(_DICE_CHANGES, _change_dice),
    "extra_attempt": _extra_attempt, "extra_defense_attempt": _extra_defense_attempt, "prevent": _prevent,
    "remove_status": _remove_status, "move_status": _remove_status, "remove_all_status": _remove_all_status,
}

