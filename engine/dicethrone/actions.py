"""Action handlers: check who may do what now, then hand over to the phase code.

Every handler receives a private copy of the state (the kernel's dispatch, engine.kernel), so a handler that
raises IllegalAction halfway leaves the caller's state untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import checks
from ..core import IllegalAction, require
from ..kernel import seat_of
from . import asks, cards, combat, companions, flow, spend
from . import effects as fx
from . import state as st
from .damage import MODIFIER, PREVENT
from .data import statuses
from .rollphase import E, roll_for

ADJUST_MAX = 999   # the largest change one hand-entered number may make (health, CP, cards, damage)
ROLL_KINDS = ("offense", "ability_roll", "opposed_roll", "targeting_roll", "defense_roll", "keg_roll", "blind_roll",
              "status_roll")


def actor(s: st.S, action: dict[str, Any]) -> int:
    """Who acts: the action's `player`, else whoever the pending decision waits for, else the active player."""
    if action.get("player") is not None:
        return seat_of(s, action["player"])
    pending = s["pending"]
    if pending and pending.get("player") is not None:
        return pending["player"]
    return s["active"]


def expect(s: st.S, *kinds: str) -> dict[str, Any]:
    pending = s["pending"]
    if pending is None or pending["kind"] not in kinds:
        raise IllegalAction("wrong_time", f"That is not possible now: the game is waiting for {describe(s)}.")
    return pending


def describe(s: st.S) -> str:
    pending = s["pending"]
    if pending is None:
        return "nothing (the game is over)"
    who = s["players"][pending["player"]]["name"] if pending.get("player") is not None else "anyone"
    return f"{who} ({pending['kind'].replace('_', ' ')})"


def must_be(s: st.S, action: dict[str, Any], i: int | None) -> None:
    """Reject an explicit `player` that is not the one the decision waits for."""
    who = action.get("player")
    if i is None or who is None or s["players"][i]["id"] == who:  # ids are unique: the expected player
        return
    j = seat_of(s, who)
    if j != i:  # messages are built only when refusing: this check runs on nearly every action
        raise IllegalAction("not_your_turn",
                            f"It is {s['players'][i]['name']}'s decision, not {s['players'][j]['name']}'s.")


# -- handlers ----------------------------------------------------------------------------------------
def do_roll(s: st.S, a: dict[str, Any]) -> E:
    pending = expect(s, *ROLL_KINDS)
    kind = pending["kind"]
    if kind == "offense":
        if s["attempts"] >= s["attempts_max"]:
            raise IllegalAction("no_attempts",
                                f"All {s['attempts_max']} roll attempts are used: choose an ability or none.")
        if "keep" in a:
            set_keep(s, a["keep"])
        unkept = 0
        for d in s["dice"]:
            if not d["kept"]:
                unkept += 1
        require(unkept > 0, "all_kept", "Every die is kept: release one to roll, or choose an ability.")
        return combat.offense_roll(s, roll_for(s, a, unkept))
    if kind == "defense_roll":
        unkept = sum(1 for d in s["dice"] if not d["kept"])
        return combat.defense_rolled(s, roll_for(s, a, unkept))
    dice = roll_for(s, a, pending["dice"])
    if kind == "ability_roll":
        return combat.ability_rolled(s, dice)
    if kind == "opposed_roll":
        return combat.opposed_rolled(s, dice)
    if kind == "targeting_roll":
        return combat.targeting_rolled(s, dice[0])
    if kind == "keg_roll":
        return flow.keg_rolled(s, dice[0])
    if kind == "status_roll":
        return spend.status_rolled(s, dice[0])
    return combat.blind_rolled(s, dice[0])


def do_reroll(s: st.S, a: dict[str, Any]) -> E:
    """"You may reroll N of these dice": once, before an ability's or a defense's own dice are read."""
    pending = expect(s, "ability_resolve", "defense_resolve")
    must_be(s, a, pending["player"])
    n = pending.get("rerolls", 0)
    require(n > 0, "no_reroll", "Nothing lets these dice be rerolled now.")
    picks = a.get("dice")
    if picks is None and "die" in a:
        picks = [a["die"]]
    allowed = combat.rerollable(s)
    require(isinstance(picks, list) and 1 <= len(picks) <= n and len(set(map(repr, picks))) == len(picks)
            and all(type(k) is int and k in allowed for k in picks), "bad_die",
            f"Reroll up to {n} {'die' if n == 1 else 'different dice'} of your own, by position "
            f"({', '.join(map(str, allowed))}).")
    return combat.reroll(s, picks, roll_for(s, {"dice": a.get("values")}, len(picks)))


def set_keep(s: st.S, keep: Any) -> None:
    require(isinstance(keep, list) and all(isinstance(k, int) and not isinstance(k, bool) for k in keep),
            "bad_keep", "Choose the dice to keep on the tray (a list of dice, the first die is 0).")
    require(all(0 <= k < len(s["dice"]) for k in keep), "bad_keep",
            f"There are {len(s['dice'])} dice on the tray (the first die is 0).")
    require(s["attempts"] > 0 or not keep, "bad_keep", "Nothing can be kept before the first roll.")
    for k, d in enumerate(st.own_dice(s)):
        d["kept"] = k in keep


def do_keep(s: st.S, a: dict[str, Any]) -> E:
    pending = expect(s, "offense")
    must_be(s, a, pending["player"])
    set_keep(s, a.get("dice", a.get("keep")))
    return [{"type": "kept", "dice": [k for k, d in enumerate(s["dice"]) if d["kept"]]}]


def do_ability(s: st.S, a: dict[str, Any]) -> E:
    pending = expect(s, "offense")
    must_be(s, a, pending["player"])
    ability = a.get("ability")
    require(ability is None or isinstance(ability, str), "bad_action", "\"ability\" is an ability id or null.")
    return combat.declare(s, ability)


def do_pass(s: st.S, a: dict[str, Any]) -> E:
    expect(s, "confirm")
    if a.get("player") is not None:
        i = seat_of(s, a["player"])
        require(i != s["rp"]["attacker"], "not_yours", "The opponents decide whether to let the ability activate.")
    return combat.activate(s)


def do_target(s: st.S, a: dict[str, Any]) -> E:
    pending = expect(s, "target")
    if a.get("player") is not None:   # on a targeting 5 either opponent of the attacker's team may answer
        i = seat_of(s, a["player"])
        require(s["players"][i]["team"] == s["players"][pending["player"]]["team"], "not_your_turn",
                f"{s['players'][pending['player']]['name']} chooses the defender here.")
    j = seat_of(s, a.get("target"))
    if j not in pending["choices"]:
        raise IllegalAction("bad_target", f"{s['players'][j]['name']} cannot be targeted.")
    return combat.set_target(s, j)


def do_defense(s: st.S, a: dict[str, Any]) -> E:
    pending = expect(s, "defense")
    must_be(s, a, pending["player"])
    companion = a.get("companion")
    require(companion is None or isinstance(companion, str), "bad_action", "\"companion\" is a companion id.")
    return combat.choose_defense(s, a.get("defense"), companion)


def do_resolve(s: st.S, a: dict[str, Any]) -> E:
    pending = expect(s, "defense_resolve", "window", "targeting_resolve", "ability_resolve")
    if pending["kind"] == "ability_resolve":
        return combat.resolve_ability_roll(s)
    if pending["kind"] == "defense_resolve":
        return combat.resolve_defense(s)
    if pending["kind"] == "targeting_resolve":
        return combat.resolve_targeting(s)
    return combat.finish_roll_phase(s)


def do_choose(s: st.S, a: dict[str, Any]) -> E:
    pending = expect(s, "choice", "ask")
    must_be(s, a, pending["player"])
    k = a.get("option")
    require(isinstance(k, int) and not isinstance(k, bool), "bad_choice", "\"option\" is the number of a listed option.")
    if pending["kind"] == "ask":
        return asks.answer(s, k)
    return combat.defense_choice(s, k)


def do_advance(s: st.S, a: dict[str, Any]) -> E:
    pending = expect(s, "main")
    must_be(s, a, pending["player"])
    return flow.end_main(s)


def do_knockdown(s: st.S, a: dict[str, Any]) -> E:
    pending = expect(s, "knockdown")
    must_be(s, a, pending["player"])
    return flow.knockdown(s, bool(a.get("pay")))


def do_pass_keg(s: st.S, a: dict[str, Any]) -> E:
    pending = expect(s, "keg_pass")
    must_be(s, a, pending["player"])
    j = None if a.get("target") is None else seat_of(s, a["target"])
    require(j is None or j in pending["choices"], "bad_target", "Pass the keg to another player in the game.")
    return flow.pass_keg(s, j)


def do_sell(s: st.S, a: dict[str, Any]) -> E:
    """Sell a card for 1 CP (§2.3): in your own Main Phases and your Discard Phase."""
    pending = expect(s, "main", "discard")
    i = actor(s, a)
    must_be(s, a, pending["player"])
    p = s["players"][i]
    if a.get("card") is not None:
        card = cards.find(s, i, a["card"])
        require(not (card and card["type"] == "upgrade" and p["upgrades"].get(card["slot"], 1) >= card["level"]),
                "installed", "An upgrade on the board is no longer in hand and cannot be sold.")
    if p["hand"] <= 0:
        raise IllegalAction("no_cards", f"{p['name']} has no cards to sell.")
    p["hand"] -= 1
    p["discard"] += 1
    got = st.gain_cp(s, i, 1)
    events: E = [{"type": "sold", "player": p["id"], "cp": got}]
    if pending["kind"] == "discard" and p["hand"] <= st.HAND_LIMIT:
        events += flow.end_turn(s)
    return events


def do_play(s: st.S, a: dict[str, Any]) -> E:
    require(s["pending"] is not None, "game_over", "The game is over.")
    return cards.play(s, actor(s, a), a)


def do_spend(s: st.S, a: dict[str, Any]) -> E:
    require(s["pending"] is not None, "game_over", "The game is over.")
    return spend.spend(s, actor(s, a), a)


def do_buy_attempt(s: st.S, a: dict[str, Any]) -> E:
    """Constrict: buy back the lost roll attempt for 1 CP (§2, Constrict)."""
    pending = expect(s, "offense")
    i = pending["player"]
    require(st.has(s, i, "constrict"), "no_constrict", "Only a Constricted player buys back a roll attempt.")
    st.pay(s, i, 1, "Buying back a roll attempt")
    st.remove_status(s, i, "constrict")
    s["attempts_max"] += 1
    return [{"type": "attempt_bought", "player": s["players"][i]["id"]}]


def do_prevent(s: st.S, a: dict[str, Any]) -> E:
    """By hand: prevent `amount` (or half, `"half": true`) of a player's incoming damage this Roll Phase."""
    i = seat_of(s, a.get("player"))
    p = fx.incoming(s, i)
    require(p is not None, "no_damage", f"{s['players'][i]['name']} has no incoming damage to prevent.")
    require(p["type"] != "ultimate", "ultimate", "Ultimate damage cannot be reduced or prevented.")
    source = str(a.get("source", "by hand"))
    if a.get("half"):
        p["halves"].append(source)
    else:
        n = checks.whole(a.get("amount"), "\"amount\"", 0, ADJUST_MAX, "bad_amount")
        p["mods"].append([-n, PREVENT, source])
    return [{"type": "prevent", "player": s["players"][i]["id"], "amount": a.get("amount"), "half": bool(a.get("half")),
             "source": source}]


def do_bonus(s: st.S, a: dict[str, Any]) -> E:
    """By hand: add (or take away) damage to the attack in progress, as an attack modifier (§8.1)."""
    rp = s["rp"]
    require(rp is not None and rp["target"] is not None and rp["attack"]["amount"] > 0, "no_attack",
            "There is no attack in progress to modify.")
    n = a.get("amount")
    checks.whole(n, "\"amount\"", -ADJUST_MAX, ADJUST_MAX, "bad_amount")
    source = str(a.get("source", "by hand"))
    rp["attack"]["mods"].append([n, MODIFIER, source])
    return [{"type": "bonus", "amount": n, "source": source}]


def do_adjust(s: st.S, a: dict[str, Any]) -> E:
    """Anything the engine cannot see, by hand: deltas to health, CP, cards and statuses (logged). Each part
    is checked as it is applied, in the order below (a refusal changes nothing: the kernel's copy is dropped)."""
    i = seat_of(s, a.get("player"))
    p = s["players"][i]
    _adjust_counts(p, a)
    require(isinstance(a.get("status") or {}, dict), "bad_adjust", "\"status\" maps status ids to changes.")
    require(isinstance(a.get("upgrades") or {}, dict), "bad_adjust", "\"upgrades\" maps abilities to levels.")
    events = _adjust_statuses(s, i, a.get("status") or {})
    for slot, level in (a.get("upgrades") or {}).items():
        require(isinstance(level, int) and 1 <= level <= 3, "bad_adjust", "Upgrade levels are 1 to 3.")
        st.put(p, "upgrades", slot, level)
    events += _adjust_companions(s, i, a)
    events.append({"type": "adjusted", "player": p["id"],
                   **{k: a[k] for k in ("health", "cp", "hand", "deck", "discard", "status", "companions", "note")
                      if k in a}})
    if "health" in a and a["health"]:
        n = a["health"]
        events += st.apply_batch(s, {i: -n} if n < 0 else {}, {i: n} if n > 0 else {})
    if a.get("note"):
        st.note(s, str(a["note"]))
    return events


def _adjust_counts(p: dict[str, Any], a: dict[str, Any]) -> None:
    """CP and the card piles moved by their deltas, within their limits (health is a batch: do_adjust)."""
    for key in ("health", "cp", "hand", "deck", "discard"):
        if key in a:
            checks.whole(a[key], f"\"{key}\"", -ADJUST_MAX, ADJUST_MAX, "bad_adjust")
    if "cp" in a:
        p["cp"] = max(0, min(st.CP_CAP, p["cp"] + a["cp"]))
    for key in ("hand", "deck", "discard"):
        if key in a:
            p[key] = max(0, min(st.DECK_MAX, p[key] + a[key]))


def _adjust_statuses(s: st.S, i: int, changes: dict[str, Any]) -> E:
    """Tokens gained (as if from the active player) or removed, by status id."""
    events: E = []
    for sid, n in changes.items():
        require(sid in statuses(), "bad_status", f"There is no status \"{sid}\".")
        checks.whole(n, f"The \"{sid}\" change", -ADJUST_MAX, ADJUST_MAX, "bad_adjust")
        if n > 0:
            events += st.gain_status(s, i, sid, n, source=s["active"])
        else:
            st.remove_status(s, i, sid, -n)
    return events


def _adjust_companions(s: st.S, i: int, a: dict[str, Any]) -> E:
    """Companions healed or hurt by their deltas."""
    p = s["players"][i]
    require(isinstance(a.get("companions") or {}, dict), "bad_adjust", "\"companions\" maps companions to changes.")
    events: E = []
    for cid, n in (a.get("companions") or {}).items():
        require(cid in p.get("companions", {}), "bad_adjust", f"{p['name']} has no companion \"{str(cid)[:30]}\".")
        checks.whole(n, f"The \"{cid}\" health change", -ADJUST_MAX, ADJUST_MAX, "bad_adjust")
        events += companions.heal(s, i, cid, n) if n > 0 else companions.hurt(s, i, cid, -n)
    return events


HANDLERS: dict[str, Callable[[st.S, dict[str, Any]], E]] = {  # the kernel dispatches on these (engine.kernel)
    "roll": do_roll, "keep": do_keep, "ability": do_ability, "pass": do_pass, "target": do_target,
    "defense": do_defense, "resolve": do_resolve, "choose": do_choose, "advance": do_advance,
    "knockdown": do_knockdown, "pass_keg": do_pass_keg, "sell": do_sell, "play": do_play, "spend": do_spend,
    "buy_attempt": do_buy_attempt, "reroll": do_reroll, "adjust": do_adjust, "prevent": do_prevent, "bonus": do_bonus,
}

