"""What phones see of a Mage Wars game: the pending decision (any client can answer it from its options or
its dice input), the mages and registered objects, the attack in progress with its odds, the last strike
worked out step by step, the channeling/upkeep list and the log.
"""

from __future__ import annotations

from typing import Any

from ..core import decision
from . import dice as dm
from .attack import can_counterstrike, strike_dice, usable_defenses
from .phases import escape_count, may_pass, roller, upkeep_waiting
from .stacking import applied, as_rules_see
from .state import effective_damage, incapacitated, live, unactivated

ATTACK_SET = "magewars-attack"
EFFECT_SET = "d12"


def _dice_input(player: str | None, sets: dict[str, int]) -> dict[str, Any]:
    """A dice input (engine.core): `sets` says how many dice of each set the throw holds; `faces` are the
    numbers hand entry offers for a throw of one set (the attack die's sides 1-6, or the d12's 1-12)."""
    out = {"type": "dice", "count": sum(sets.values()), "dice_sets": list(sets), "sets": sets, "player": player}
    if len(sets) == 1:
        out["faces"] = list(range(1, 13)) if EFFECT_SET in sets else list(range(1, 7))
    return out


def pending(s: dict[str, Any]) -> dict[str, Any] | None:
    """The decision the game waits for (engine.core.decision), derived from the state."""
    phase = s["phase"]
    if phase == "over":
        return None
    if phase == "initiative_roll":
        pid = roller(s)
        return decision(pid, "initiative_roll", "Roll the effect die for the initiative.", [],
                        input=_dice_input(pid, {EFFECT_SET: 1}))
    if phase == "channeling":
        return decision(None, "channeling", "Channeling: confirm the mana each mage gains.",
                        [{"label": "Confirm", "action": {"type": "next"}}], items=s["list"])
    if phase == "upkeep":
        return _upkeep_decision(s)
    if phase in ("planning", "deployment"):
        return decision(None, phase, f"{phase.capitalize()}: the players do this at the table; go on when ready.",
                        [{"label": "Next phase", "action": {"type": "next"}}])
    if phase in ("first_quickcast", "final_quickcast"):
        pid = s["quickcast_turns"][0]
        return decision(pid, "quickcast", "Use the quickcast marker?",
                        [{"label": "Quickcast", "action": {"type": "quickcast", "player": pid, "use": True}},
                         {"label": "Pass", "action": {"type": "quickcast", "player": pid, "use": False}}])
    return _action_decision(s)


def _upkeep_decision(s: dict[str, Any]) -> dict[str, Any]:
    if s["step"] is None:
        return decision(None, "upkeep", "Upkeep: check the list, then resolve it.",
                        [{"label": "Resolve upkeep", "action": {"type": "upkeep"}}], items=s["list"])
    item = upkeep_waiting(s)
    assert item is not None
    o = s["objects"][item["object"]]
    if item["kind"] == "burn":
        return decision(o["owner"], "burn_roll", f"Burn on {o['name']}: roll {item['amount']} attack dice.", [],
                        input=_dice_input(o["owner"], {ATTACK_SET: item["amount"]}), item=item, items=s["list"])
    return decision(o["owner"], "upkeep_cost", f"Pay {item['amount']} mana to keep {o['name']}?",
                    [{"label": "Pay", "action": {"type": "pay", "pay": True}},
                     {"label": "Let it go", "action": {"type": "pay", "pay": False}}], item=item, items=s["list"])


def _action_decision(s: dict[str, Any]) -> dict[str, Any]:
    """The action phase waits for, most urgent first: the attack in progress, a counterstrike, an escape
    roll, the acting creature, else the player whose turn it is activating one."""
    if s["attack"] is not None:
        return _attack_decision(s, s["attack"])
    if s["followups"]:
        return _counterstrike_decision(s, s["followups"][0])
    if s["step"] == "escape":
        o = s["objects"][s["acting"]]
        n = escape_count(s)
        return decision(o["owner"], "escape_roll", f"{o['name']}: roll {n} escape {'die' if n == 1 else 'dice'} "
                        "(7+ frees one marker).", [], input=_dice_input(o["owner"], {EFFECT_SET: n}))
    if s["acting"] is not None:
        return _acting_decision(s, s["objects"][s["acting"]])
    pid = s["turn"]
    opts = [{"label": o["name"], "action": {"type": "activate", "object": o["id"]}} for o in unactivated(s, pid)]
    if may_pass(s, pid):
        opts.append({"label": "Pass", "action": {"type": "pass", "player": pid}})
    return decision(pid, "activate", "Activate a creature.", opts)


def _attack_decision(s: dict[str, Any], a: dict[str, Any]) -> dict[str, Any]:
    """An attack's step: a Dazed attacker's effect die, the defense and its roll, else the attack roll."""
    att, tgt = s["objects"][a["attacker"]], s["objects"][a["target"]]
    if a["step"] == "daze":
        return decision(att["owner"], "daze_roll", f"{att['name']} is Dazed: roll the effect die (1-6 misses).",
                        [], input=_dice_input(att["owner"], {EFFECT_SET: 1}))
    if a["step"] == "defense":
        opts = [{"label": f"Defense {tgt['defenses'][i]['min']}+",
                 "action": {"type": "defend", "defense": i}} for i in usable_defenses(s)]
        opts.append({"label": "No defense", "action": {"type": "defend", "defense": None}})
        return decision(tgt["owner"], "defense", f"{tgt['name']} is attacked: use a defense?", opts)
    if a["step"] == "defense_roll":
        return decision(tgt["owner"], "defense_roll", f"{tgt['name']}: roll the effect die for the defense.",
                        [], input=_dice_input(tgt["owner"], {EFFECT_SET: 1}))
    n, _ = strike_dice(s)
    sets = {ATTACK_SET: n}
    if a["spec"]["effects"]:
        sets[EFFECT_SET] = 1
    return decision(att["owner"], "attack_roll", f"{att['name']}: roll {n} attack dice"
                    + (" and the effect die." if a["spec"]["effects"] else "."), [],
                    input=_dice_input(att["owner"], sets))


def _counterstrike_decision(s: dict[str, Any], f: dict[str, Any]) -> dict[str, Any]:
    d = s["objects"][f["attacker"]]
    opts = [{"label": d["attacks"][i]["name"], "action": {"type": "counterstrike", "attack": i}}
            for i in can_counterstrike(s, d)]
    opts.append({"label": "No counterstrike", "action": {"type": "counterstrike", "attack": None}})
    return decision(d["owner"], "counterstrike", f"{d['name']} may counterstrike.", opts)


def _acting_decision(s: dict[str, Any], o: dict[str, Any]) -> dict[str, Any]:
    """The acting creature: its attacks on every enemy object that can be attacked (unless it attacked or
    cannot act), guarding, ending its action phase."""
    able = not incapacitated(o)
    opts = _attack_options(s, o) if able and not o["attacked"] else []
    if able and not o["guard"]:
        opts.append({"label": "Guard", "action": {"type": "guard"}})
    opts.append({"label": "End action phase", "action": {"type": "end_activation"}})
    if o["attacked"] or not able:  # its attack is used (or it cannot attack): none is offered
        return decision(o["owner"], "act", f"{o['name']} acts: guard, or end its action phase.", opts,
                        prompt_key="prompt.act_attacked")
    return decision(o["owner"], "act", f"{o['name']} acts: attack, guard, or end its action phase.", opts)


def _attack_options(s: dict[str, Any], o: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"label": f"{atk['name']} -> {t['name']}",
             "action": {"type": "attack", "saved": atk["name"], "target": t["id"]}}
            for atk in o["attacks"] for t in live(s) if t["owner"] != o["owner"] and t["kind"] != "enchantment"]


def object_view(s: dict[str, Any], o: dict[str, Any]) -> dict[str, Any]:
    eff = effective_damage(o)
    left = None if o["life"] is None else max(o["life"] - eff, 0)
    return {**o, "conditions": {k: v for k, v in o["conditions"].items() if v},
            "effective_damage": eff, "left": left, "armor_now": dm.effective_armor(o), "applied": applied(s, o),
            "incapacitated": incapacitated(o), "acting": s["acting"] == o["id"]}


def attack_view(s: dict[str, Any]) -> dict[str, Any] | None:
    """The attack in progress: who, with what, how many dice and why, and the battle calculator (§7.3)."""
    a = s["attack"]
    if a is None:
        return None
    att, tgt = s["objects"][a["attacker"]], s["objects"][a["target"]]
    n, terms = strike_dice(s)
    out = {**a, "dice": n, "dice_terms": terms, "attacker_name": att["name"], "target_name": tgt["name"]}
    if n <= dm.ODDS_MAX_DICE:
        out["odds"] = dm.odds(n, a["spec"], as_rules_see(s, tgt), tgt["life"] - effective_damage(tgt))
    return out


def strike_text(r: dict[str, Any]) -> str:
    """The last strike in English, step by step ("3 dice: 2 1* blank -> 2 normal - 1 armor + 1 critical = 2
    damage; effect 9 + 2 flame weakness = 11: Burn"); the page words the same fields in every language."""
    if not r.get("hit"):
        return "missed (Daze)" if r.get("missed") == "daze" else "avoided by a defense"
    faces = " ".join(r["faces"]) or "no dice"
    rule = r["rule"]
    if rule == "standard":
        calc = f"{r['normal']} normal - {r['armor']} armor + {r['critical']} critical = {r['damage']} damage"
    else:
        calc = f"{rule.replace('_', ' ')}: {r['damage']} damage"
    text = f"{len(r['faces'])} dice: {faces} -> {calc}"
    if "effect_roll" in r:
        mods = "".join(f" {t['n']:+d} {t['term']}" for t in r["effect_terms"])
        text += f"; effect {r['effect_roll']}{mods} = {r['effect_adjusted']}"
        if r.get("effect"):
            text += f": {r['effect_count']} {r['effect']} ({r['effect_outcome']})"
        else:
            text += ": no effect"
    return text


def snapshot(s: dict[str, Any]) -> dict[str, Any]:
    last = s.get("last_strike")
    wait = pending(s)
    inp = (wait or {}).get("input") or {}
    return {
        # whose dice the tray shows (DESIGN: a game may set `dice_set`): the set a single-set throw holds
        "dice_set": inp["dice_sets"][0] if len(inp.get("dice_sets", [])) == 1 else None,
        "phase": s["phase"], "round": s["round"], "turn": s["round"], "initiative": s["initiative"],
        "turn_player": s.get("turn"),
        "acting": s["acting"], "winner": s["winner"], "moves": s["moves"],
        "active": (wait or {}).get("player"),
        "players": [{**p, "mage": object_view(s, s["objects"][p["id"]])} for p in s["players"]],
        "objects": [object_view(s, s["objects"][i]) for i in s["order"]],
        "attack": attack_view(s),
        "last_strike": {**last, "text": strike_text(last)} if last else None,
        "list": s["list"],
        "pending": wait,
        "story": list(reversed(s["log"][-30:])),  # "log" is the match's action log (engine.match)
        "settings": s["settings"],
    }
