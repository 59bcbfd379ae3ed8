"""The public snapshot phones receive, and the pending decision with every legal option as an action.

Options are complete actions, so the phone, a script or the box's single "Next" button (which submits the
option flagged `default`) can answer any decision without knowing Dice Throne.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from ..core import decision
from . import combat, companions
from . import state as st
from .abilities import level_of, odds
from .cards import find_for_hero
from .damage import resolve
from .data import spendable, statuses
from .heroes import hero
from .spend import can_spend
from .words import words

PHASE_LABEL = {"main1": "Main Phase (1)", "main2": "Main Phase (2)"}


def opt(label: str, action: dict[str, Any], default: bool = False, **extra: Any) -> dict[str, Any]:
    o = {"label": label, "action": action, **extra}
    if default:
        o["default"] = True
    return o


def pid(s: st.S, i: int | None) -> str | None:
    return None if i is None else s["players"][i]["id"]


def spend_options(s: st.S) -> list[dict[str, Any]]:
    out = []
    table = statuses()
    can = spendable()
    for i, p in enumerate(s["players"]):
        if p["out"]:
            continue
        for sid in p["statuses"]:
            if sid not in can:   # most tokens are never spent: skip them before any rule check
                continue
            row = table[sid]
            uses = ["prevent", "attack"] if sid == "chi" else [None]
            for use in uses:
                if can_spend(s, i, sid, use) is None:
                    action = {"type": "spend", "player": p["id"], "status": sid}
                    if use:
                        action["use"] = use
                    label = f"{p['name']}: spend {row['name']['en']}" + (f" ({use})" if use else "")
                    out.append(opt(label, action))
    return out


# Labels and kept-dice lists of the offense options, built once: the random games of the bench (and a
# phone refreshing during a roll) ask for these options after every roll.
_KEEP_LABELS = tuple((f"Keep die {k + 1}", f"Release die {k + 1}") for k in range(8))
_MASK_DICE = tuple([k for k in range(8) if mask >> k & 1] for mask in range(256))
_END_MAIN = {phase: f"End {label}" for phase, label in PHASE_LABEL.items()}


def options(s: st.S) -> list[dict[str, Any]]:
    """Every legal option of the pending decision (cards aside: hands are counts, see docs/actions.md)."""
    pending = s["pending"]
    if pending is None:
        return []
    kind = pending["kind"]
    i = pending.get("player")
    me = pid(s, i)
    if kind in combat_rolls:
        return [opt(combat_rolls[kind], {"type": "roll"}, True)]
    build = _OPTIONS_BY_KIND.get(kind)
    return [] if build is None else build(s, pending, i, me)


def _main_options(s: st.S, pending: dict[str, Any], i: int, me: str | None) -> list[dict[str, Any]]:
    """A main phase: ending it is the default; selling and the upgrades the player can afford need a hand."""
    p = s["players"][i]
    out = [{"label": _END_MAIN[s["phase"]], "action": {"type": "advance", "player": me}, "default": True}]
    if p["hand"]:
        out.append({"label": "Sell a card for 1 CP", "action": {"type": "sell", "player": me}})
        for _card, name, price in _affordable(p):
            out.append({"label": f"Play {name} ({price} CP)",
                        "action": {"type": "play", "player": me, "card": name}})
    return out + spend_options(s)


def _knockdown_options(s: st.S, pending: dict[str, Any], i: int, me: str | None) -> list[dict[str, Any]]:
    """Knocked down: paying 2 CP is the default when the player has them, else skipping the roll."""
    can = s["players"][i]["cp"] >= 2
    out = [opt("Pay 2 CP to remove Knockdown", {"type": "knockdown", "player": me, "pay": True}, True)] if can else []
    return out + [opt("Skip the Offensive Roll Phase", {"type": "knockdown", "player": me, "pay": False}, not can)]


def _kept_mask(dice: list[dict[str, Any]]) -> int:
    """The kept dice as bits (die k is bit k): the keep and release options are looked up by it."""
    mask = 0
    for k, d in enumerate(dice):
        if d["kept"]:
            mask |= 1 << k
    return mask


def _offense_options(s: st.S, pending: dict[str, Any], i: int, me: str | None) -> list[dict[str, Any]]:
    """The Offensive Roll: roll and keep while attempts are left, then the abilities the dice meet."""
    dice = s["dice"]
    attempts, most = s["attempts"], s["attempts_max"]
    mask = _kept_mask(dice)
    n = len(dice) - mask.bit_count()
    left = attempts < most and n > 0   # "Next" can still roll
    out = _roll_and_keep(dice, attempts, most, mask, me) if attempts < most else []
    met = combat.options_satisfied(s)
    out += _ability_options(met, me, left)
    if attempts:
        out.append(opt("No ability", {"type": "ability", "player": me, "ability": None}, not left and not met))
    return out


def _roll_and_keep(dice: list[dict[str, Any]], attempts: int, most: int, mask: int, me: str | None) -> list[dict[str, Any]]:
    """Rolling the dice not kept (the default), and after the first roll keeping or releasing each die."""
    out = []
    n = len(dice) - mask.bit_count()
    if n:
        out.append({"label": f"Roll {n} {'die' if n == 1 else 'dice'} (attempt {attempts + 1} of {most})",
                    "action": {"type": "roll"}, "default": True})
    if attempts:
        for k in range(len(dice)):
            out.append({"label": _KEEP_LABELS[k][mask >> k & 1],
                        "action": {"type": "keep", "player": me, "dice": list(_MASK_DICE[mask ^ 1 << k])}})
    return out


def _ability_options(met: list[dict[str, Any]], me: str | None, left: bool) -> list[dict[str, Any]]:
    """The abilities the dice meet. Once no roll is left "Next" uses the strongest (the board lists them
    weakest first, so the last)."""
    out = [{"label": f"{a['name']['en']} (level {a['level']})",
            "action": {"type": "ability", "player": me, "ability": a["id"]}} for a in met]
    if not left and out:
        out[-1]["default"] = True
    return out


def _confirm_options(s: st.S, pending: dict[str, Any], i: int, me: str | None) -> list[dict[str, Any]]:
    return [opt("Let it activate", {"type": "pass"}, True)]


def _target_options(s: st.S, pending: dict[str, Any], i: int, me: str | None) -> list[dict[str, Any]]:
    return [opt(f"Target {s['players'][j]['name']}", {"type": "target", "player": me, "target": pid(s, j)},
                k == 0) for k, j in enumerate(pending["choices"])]


def _defense_options(s: st.S, pending: dict[str, Any], i: int, me: str | None) -> list[dict[str, Any]]:
    """Defending: each defensive ability (the first is the default), passing the attack to a companion, or
    not defending; a player who may not defend can only take the attack (the default then)."""
    p = s["players"][i]
    can = pending.get("defend", True)
    out = [opt(f"Defend with {d['name']['en']} (level {level_of(p['upgrades'], d)['level']})",
               {"type": "defense", "player": me, "defense": d["id"]}, k == 0)
           for k, d in enumerate(hero(p["hero"])["defenses"])] if can else []
    if pending.get("companion"):
        out.append(_pass_to_companion(p, pending["companion"], me))
    last = opt("Do not defend", {"type": "defense", "player": me, "defense": None}) if can else \
        opt("Take the attack", {"type": "defense", "player": me, "defense": None}, True, text=words("take_attack"))
    return out + [last] + spend_options(s)


def _pass_to_companion(p: dict[str, Any], cid: str, me: str | None) -> dict[str, Any]:
    name = next(c["name"] for c in companions.defs(p["hero"]) if c["id"] == cid)
    return opt(f"Pass the attack to {name['en']}", {"type": "defense", "player": me, "defense": None,
                                                    "companion": cid},
               text=words("pass_to_companion", name=name))


_RESOLVE_LABEL = {"defense_resolve": "Resolve the defense", "targeting_resolve": "Use this targeting die",
                  "window": "Apply damage and end the Roll Phase", "ability_resolve": "Use these dice"}


def _resolve_options(s: st.S, pending: dict[str, Any], i: int, me: str | None) -> list[dict[str, Any]]:
    """A window before dice or damage count: resolving is the default; rerolls where a card granted them."""
    rerolls = [opt(f"Reroll die {k + 1}", {"type": "reroll", "player": me, "dice": [k]},
                   text=words("reroll_die", n=str(k + 1)))
               for k in combat.rerollable(s)] if pending.get("rerolls") else []
    return [opt(_RESOLVE_LABEL[pending["kind"]], {"type": "resolve"}, True)] + rerolls + spend_options(s)


def _ask_options(s: st.S, pending: dict[str, Any], i: int, me: str | None) -> list[dict[str, Any]]:
    """A question: its own words in every language travel with each option (`text`)."""
    return [opt(c["label"], {"type": "choose", "player": me, "option": k}, k == 0,
                **({"text": c["text"]} if c.get("text") else {}))
            for k, c in enumerate(pending["choices"])]


def _choice_options(s: st.S, pending: dict[str, Any], i: int, me: str | None) -> list[dict[str, Any]]:
    return [opt(label, {"type": "choose", "player": me, "option": k}, k == 0)
            for k, label in enumerate(pending["labels"])]


def _discard_options(s: st.S, pending: dict[str, Any], i: int, me: str | None) -> list[dict[str, Any]]:
    return [opt("Sell a card for 1 CP", {"type": "sell", "player": me}, True)]


def _keg_pass_options(s: st.S, pending: dict[str, Any], i: int, me: str | None) -> list[dict[str, Any]]:
    return [opt("Keep the Powder Keg", {"type": "pass_keg", "player": me, "target": None}, True)] + [
        opt(f"Pass it to {s['players'][j]['name']}", {"type": "pass_keg", "player": me, "target": pid(s, j)})
        for j in pending["choices"]]


_OPTIONS_BY_KIND = {
    "main": _main_options, "knockdown": _knockdown_options, "offense": _offense_options,
    "confirm": _confirm_options, "target": _target_options, "defense": _defense_options,
    **dict.fromkeys(_RESOLVE_LABEL, _resolve_options),
    "ask": _ask_options, "choice": _choice_options, "discard": _discard_options, "keg_pass": _keg_pass_options,
}


combat_rolls = {
    "ability_roll": "Roll for the ability", "opposed_roll": "Both players roll 1 die",
    "targeting_roll": "Roll the targeting die", "defense_roll": "Roll the defense",
    "keg_roll": "Roll for the Powder Keg", "blind_roll": "Roll for Blind", "status_roll": "Roll the token's die",
}

PROMPTS = {
    "main": "{who}: play cards, sell, or end the phase.",
    "knockdown": "{who} is knocked down: pay 2 CP or skip the Offensive Roll Phase.",
    "offense": "{who}: roll (up to {max} attempts), keep dice, then choose an ability.",
    "confirm": "{who}: change the dice, or let the ability activate.",
    "ability_roll": "Roll {dice} for the ability.",
    "opposed_roll": "Attacker and defender roll 1 die each (attacker's die first).",
    "targeting_roll": "Roll 1 die to find the defender.",
    "targeting_resolve": "Change the targeting die with a card, or use it.",
    "target": "{who}: choose the defender.",
    "defense": "{who}: choose a defensive ability.",
    "defense_roll": "{who}: roll the defense ({dice}).",
    "defense_resolve": "Change the defense dice with a card, or resolve the defense.",
    "ability_resolve": "Change the ability's dice with a card, or use them.",
    "choice": "{who}: choose one.",
    "window": "Last chance to spend status effects or play cards before damage.",
    "discard": "{who} has more than 6 cards: sell down to 6.",
    "keg_roll": "{who}: roll 1 die for the Powder Keg.",
    "keg_pass": "{who}: pass the Powder Keg to a chosen player, or keep it.",
    "blind_roll": "{who} is Blind: roll 1 die (1-2: the ability has no effect).",
    "status_roll": "{who}: roll 1 die for the spent token.",
}


def default_action(s: st.S) -> dict[str, Any] | None:
    """The option flagged `default` (what the box's Next button submits), without building every option."""
    pending = s["pending"]
    if pending is None:
        return None
    kind = pending["kind"]
    if kind in combat_rolls:
        return {"type": "roll"}
    make = _DEFAULTS.get(kind)
    return make(s, pending, pid(s, pending.get("player"))) if make is not None else None


def _offense_default(s: st.S, pending: dict[str, Any], me: Any) -> dict[str, Any]:
    """Roll while attempts and unkept dice are left; then the last ability the dice satisfy (or none)."""
    if s["attempts"] < s["attempts_max"] and any(not d["kept"] for d in s["dice"]):
        return {"type": "roll"}
    met = combat.options_satisfied(s)
    return {"type": "ability", "player": me, "ability": met[-1]["id"] if met else None}


def _defense_default(s: st.S, pending: dict[str, Any], me: Any) -> dict[str, Any]:
    """The hero's first defense, or none where the player may not defend."""
    p = s["players"][pending["player"]]
    defenses = hero(p["hero"])["defenses"] if pending.get("defend", True) else []
    return {"type": "defense", "player": me, "defense": defenses[0]["id"] if defenses else None}


def _resolve(s: st.S, pending: dict[str, Any], me: Any) -> dict[str, Any]:
    return {"type": "resolve"}


def _choose_first(s: st.S, pending: dict[str, Any], me: Any) -> dict[str, Any]:
    return {"type": "choose", "player": me, "option": 0}


# each decision's default (`default_action`) but the combat rolls':
# (state, pending, the acting player's id) -> the action
_DEFAULTS: dict[str, Callable[[st.S, dict[str, Any], Any], dict[str, Any]]] = {
    "main": lambda s, pending, me: {"type": "advance", "player": me},
    "knockdown": lambda s, pending, me: {"type": "knockdown", "player": me,
                                         "pay": s["players"][pending["player"]]["cp"] >= 2},
    "offense": _offense_default,
    "confirm": lambda s, pending, me: {"type": "pass"},
    "target": lambda s, pending, me: {"type": "target", "player": me,
                                      "target": pid(s, pending["choices"][0])},
    "defense": _defense_default,
    "defense_resolve": _resolve, "targeting_resolve": _resolve, "window": _resolve,
    "ability_resolve": _resolve,
    "choice": _choose_first, "ask": _choose_first,
    "discard": lambda s, pending, me: {"type": "sell", "player": me},
    "keg_pass": lambda s, pending, me: {"type": "pass_keg", "player": me, "target": None},
}


def pending_view(s: st.S) -> dict[str, Any] | None:
    pending = s["pending"]
    if pending is None:
        return None
    kind = pending["kind"]
    i = pending.get("player")
    who = s["players"][i]["name"] if i is not None else "Anyone"
    if kind == "confirm":
        who = s["players"][s["rp"]["attacker"]]["name"] + "'s opponents"
    n = pending.get("dice")
    if kind in ("offense", "defense_roll"):
        n = sum(1 for d in s["dice"] if not d["kept"])
    extra: dict[str, Any] = {}
    if kind == "ask":   # an effect's question: its own prompt, what it is about, who each option names
        prompt = pending["prompt"]
        extra["about"] = pending["about"]
        extra["labels"] = pending["labels"]
        extra["choices"] = [c.get("player") for c in pending["choices"]]
        return decision(pid(s, i), kind, prompt, options(s), **extra)
    prompt = PROMPTS[kind].format(who=who, max=s["attempts_max"], dice=f"{n} {'die' if n == 1 else 'dice'}")
    if kind == "choice":
        extra["labels"] = pending["labels"]
    if pending.get("rerolls"):   # "you may reroll N of these dice": how many dice one reroll may take
        extra["rerolls"] = pending["rerolls"]
    used_up = kind == "offense" and s["attempts"] >= s["attempts_max"]  # a roll now is refused (no_attempts)
    if kind in ("offense", *combat_rolls) and n and not used_up:
        # the action the dice answer, naming the roller so the log can say "Ana rolled 2 2 4 5 6"; none once
        # the attempts are used, so no tray throw or hand entry is offered that the roll would refuse
        extra["input"] = {"type": "dice", "count": n, "faces": [1, 2, 3, 4, 5, 6],
                          "action": {"type": "roll", "player": pid(s, i)}}
    return decision(pid(s, i), kind, prompt, options(s), **extra)


def upgrades_for(s: st.S, i: int) -> list[dict[str, Any]]:
    """Upgrade cards the player could afford now (by board data; the hand itself is unknown)."""
    return [{**card, "price": price} for card, _, price in _affordable(s["players"][i])]


def _affordable(p: dict[str, Any]) -> list[tuple[dict[str, Any], str, int]]:
    """(card, English name, price) of the upgrades player `p` could afford now (cards.upgrade_cost's prices)."""
    cp = p["cp"]
    installed = p["upgrades"]
    out = []
    for card, slot, level, cost, name, below in _upgrade_table(p["hero"]):
        have = installed.get(slot, 1)
        if level <= have or cost - 4 > cp:
            continue
        price = cost
        if have >= 2:
            under = below.get(have)
            if under is not None:
                price = max(0, cost - under)
        if price <= cp:
            out.append((card, name, price))
    return out


@cache
def _upgrade_table(hero_id: str) -> tuple[tuple[dict[str, Any], str, int, int, str, dict[int, int]], ...]:
    """Per hero: each upgrade card with its slot, level, cost, name and the cost of the card below it.

    `below[have]` is the cost of the installed level `have` (2 or 3) when the data knows that card, so laying
    III over II costs the difference (§7.2) without looking cards up by name for every option list.
    """
    rows = []
    for card in hero(hero_id)["upgrade_cards"]:
        below = {}
        for have in (2, 3):
            under = find_for_hero(hero_id, f"{card['slot']}_{have}")
            if under is not None:
                below[have] = under["cost"]
        rows.append((card, card["slot"], card["level"], card["cost"], card["name"]["en"], below))
    return tuple(rows)


def player_view(s: st.S, i: int) -> dict[str, Any]:
    p = s["players"][i]
    h = hero(p["hero"])
    team = s["teams"][p["team"]]
    return {
        "id": p["id"], "name": p["name"], "hero": p["hero"], "hero_name": h["name"], "team": team["id"],
        "health": team["health"], "health_start": s["start_health"], "health_max": s["cap"],
        "cp": p["cp"], "cp_max": st.CP_CAP, "hand": p["hand"], "deck": p["deck"], "discard": p["discard"],
        "hand_limit": st.HAND_LIMIT,
        "statuses": [{"id": sid, "name": statuses()[sid]["name"], "count": n, "limit": st.limit(s, i, sid),
                      "kind": statuses()[sid]["kind"]} for sid, n in p["statuses"].items()],
        "upgrades": {a["id"]: p["upgrades"].get(a["id"], 1) for a in h["abilities"] if not a.get("slot")},
        "out": p["out"], "active": i == s["active"],
        **({"companions": companions.view(s, i)} if "companions" in p else {}),
        **({"stages": companions.stages_view(s, i)} if companions.growth_of(p["hero"]) else {}),
    }


def roll_phase_view(s: st.S) -> dict[str, Any] | None:
    rp = s["rp"]
    if rp is None:
        return None
    atk = combat.attack_total(s)
    out: dict[str, Any] = {
        "attacker": pid(s, rp["attacker"]), "ability": rp["ability"], "level": rp["level"],
        "ultimate": rp["ultimate"], "target": pid(s, rp["target"]), "stage": rp["stage"],
        "defense": rp["defense"],
    }
    if atk is not None:
        r = resolve(atk)
        out["attack"] = {"base": atk["amount"], "type": atk["type"], "total": r["total"], "taken": r["taken"],
                         "avoided": atk["avoided"], "halves": len(atk["halves"]), "reflect": len(atk["reflect"]),
                         "mods": [{"amount": m[0], "kind": m[1], "source": m[2]} for m in atk["mods"]]}
    out["other_damage"] = [{"to": pid(s, p["to"]), "amount": p["amount"], "type": p["type"], "source": p["source"]}
                           for p in rp["packets"]]
    out["heals"] = [{"to": pid(s, j), "amount": n} for j, n in rp["heals"]]
    return out


def odds_view(s: st.S) -> list[dict[str, Any]]:
    """While the attacker rolls: each ability's chance with the attempts left (optimal keeping)."""
    if s["pending"] is None or s["pending"]["kind"] != "offense":
        return []
    p = s["players"][s["rp"]["attacker"]]
    values = [d["value"] for d in s["dice"]] if s["attempts"] else None
    return odds(p["hero"], p["upgrades"], values, s["attempts_max"] - s["attempts"])


def snapshot(s: st.S) -> dict[str, Any]:
    active = s["active"]
    tray = s["tray"]
    roller = _roller(s)
    roller_hero = s["players"][roller]["hero"] if roller is not None else None
    return {
        "mode": s["mode"], "turn": s["turn"], "phase": s["phase"], "active": pid(s, active),
        "start_player": pid(s, s["start"]), "order": [pid(s, k) for k in s["order"]],
        "players": [player_view(s, k) for k in range(len(s["players"]))],
        "teams": [{"id": t["id"], "health": t["health"], "members": [pid(s, m) for m in t["members"]]}
                  for t in s["teams"]],
        "dice": _dice_view(s, hero(roller_hero)["faces"] if roller_hero else None), "dice_role": tray,
        "dice_set": f"dicethrone:{roller_hero}" if roller_hero else None,
        "attempts": {"used": s["attempts"], "max": s["attempts_max"]},
        "abilities": _abilities_met(s),
        "odds": odds_view(s),
        "roll_phase": roll_phase_view(s),
        "pending": pending_view(s),
        "winner": s["winner"], "winners": _winners(s), "draw": s["draw"],
        "last_roll_phase": s.get("last"), "notes": list(s["notes"]),
        # what the last moves caused (box rolls, changed dice, damage) and the recap's totals: story.py
        "moves": s.get("moves", 0), "story": s.get("story", []), "stats": s.get("stats", {}),
    }


def _roller(s: st.S) -> int | None:
    """Whose hero dice are on the tray (the camera reads that hero's dice set), by what the tray is for."""
    tray = s["tray"]
    rp = s["rp"]
    if tray in ("offense", "ability", "targeting"):
        return rp["attacker"] if rp else s["active"]
    if tray == "defense" and rp:
        return rp["target"]
    if tray in ("keg", "blind"):
        return s["active"]
    if tray == "status":
        return s["pending"]["player"]
    return None


def _dice_view(s: st.S, faces: list[str] | None) -> list[dict[str, Any]]:
    """The tray's dice: a value (None before the roll), its face by the roller's hero, kept, whose die."""
    dice = []
    for d in s["dice"]:
        view = {"value": d["value"] or None, "kept": d["kept"]}
        if d["value"] and faces:
            view["face"] = faces[d["value"] - 1]
        if "owner" in d:
            view["owner"] = d["owner"]
        dice.append(view)
    return dice


def _winners(s: st.S) -> list[str] | None:
    """The ids of the winning team's players, once a team has won."""
    if s["winner"] is None:
        return None
    team = next(t for t in s["teams"] if t["id"] == s["winner"])
    return [s["players"][m]["id"] for m in team["members"]]


def _abilities_met(s: st.S) -> list[dict[str, Any]]:
    """The abilities the offensive dice meet, while the attacker may still pick one."""
    if not (s["rp"] and s["tray"] == "offense" and s["pending"]["kind"] in ("offense", "confirm")):
        return []
    return [{"id": a["id"], "name": a["name"], "level": a["level"], "tier": a["tier"],
             "ultimate": a["ultimate"]} for a in combat.options_satisfied(s)]
