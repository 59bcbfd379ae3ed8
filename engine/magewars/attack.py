"""The attack sequence of reference §6 driven by dice read from the tray.

An attack is a small state machine kept in `s["attack"]`: for each strike the Daze check (§9), the
defender's one defense (§8), the attack dice with the effect die (§7), then damage and effects; after the
strikes, the damage barrier (§6 step 6) and the counterstrike (§6 step 7) run as follow-up attacks of their
own. Each step that needs a die or a choice becomes the pending decision; everything else is computed.
"""

from __future__ import annotations

from typing import Any

from ..checks import text, whole
from ..core import IllegalAction, require
from . import dice as dm
from .stacking import as_rules_see
from .state import (
    DAMAGE_TYPES,
    conditions,
    deal_damage,
    incapacitated,
    log,
    obj,
    place_condition,
    restrained,
    settle_victory,
    target,
)

ESCAPE_MIN = 7  # Cripple and Stuck escape rolls (§9)


def parse_attack(raw: Any) -> dict[str, Any]:
    """An attack bar as the players describe it on the phone (§1): checked and normalised."""
    require(isinstance(raw, dict), "bad_attack", "An attack is described by an object (dice, range, traits...).")
    rng = raw.get("range", "melee")
    require(rng in ("melee", "ranged"), "bad_attack", "An attack is melee or ranged.")
    action = raw.get("action", "quick")
    require(action in ("quick", "full"), "bad_attack", "An attack is a quick or a full action.")
    kind = raw.get("type")
    require(kind is None or kind in DAMAGE_TYPES, "bad_attack",
            "The damage type is one of " + ", ".join(DAMAGE_TYPES) + ".")
    vs = raw.get("vs") or []
    require(isinstance(vs, list) and all(isinstance(v, dict) and isinstance(v.get("trait"), str) for v in vs),
            "bad_attack", "VS bonuses are like [{\"trait\": \"nonliving\", \"bonus\": 2}].")
    flags = {}
    for key in ("critical", "ethereal", "unavoidable", "zone", "spell", "counterstrike"):
        value = raw.get(key, False)
        require(isinstance(value, bool), "bad_attack", f"\"{key}\" is true or false.")
        flags[key] = value
    out = {
        # an attack left unnamed keeps no name, not an English word: each phone names it in its language
        "name": text(raw["name"], "An attack's name", 40, "bad_attack") if raw.get("name") else "",
        "dice": whole(raw.get("dice"), "The attack's dice", 0, dm.MAX_DICE, "bad_attack"),
        "range": rng, "action": action, "type": kind,
        "piercing": whole(raw.get("piercing", 0), "Piercing", 0, 20, "bad_attack"),
        "strikes": whole(raw.get("strikes", 1), "Strikes", 1, 3, "bad_attack"),
        "melee_bonus": whole(raw.get("melee_bonus", 0), "Melee +X", 0, 10, "bad_attack"),
        "ranged_bonus": whole(raw.get("ranged_bonus", 0), "Ranged +X", 0, 10, "bad_attack"),
        "vs": [{"trait": v["trait"], "bonus": whole(v.get("bonus"), "A VS bonus", -6, 6, "bad_attack")} for v in vs],
        "effects": dm.parse_effects(raw.get("effects"), set(conditions())),
        **flags,
    }
    if out["zone"]:
        out["unavoidable"] = True  # zone attacks are Unavoidable (§6)
    return out


# -- reading dice from a roll action -------------------------------------------------------------------------
def _is_d12(die: Any) -> bool:
    return isinstance(die, dict) and die.get("set") == "d12"


def d12_values(action: dict[str, Any], count: int) -> list[int]:
    """`count` effect-die results from a roll: dice marked `"set": "d12"`, bare numbers or {"value": n}."""
    raw = action.get("dice")
    require(isinstance(raw, list) and len(raw) == count, "bad_dice",
            f"This roll needs {count} effect {'die' if count == 1 else 'dice'} (1-12).")
    out = []
    for die in raw:
        value = die.get("value") if isinstance(die, dict) else die
        out.append(whole(value, "An effect die", 1, 12, "bad_dice"))
    return out


def attack_roll(action: dict[str, Any], count: int, need_effect: bool) -> tuple[list[str], int | None]:
    """Attack dice faces and the effect die of one throw. By hand: `"dice"` holds the attack faces and
    `"effect"` the d12; from the camera the d12 is the die whose reading says `"set": "d12"`."""
    raw = action.get("dice")
    require(isinstance(raw, list), "bad_dice", "A roll needs its dice as a list.")
    d12 = [d for d in raw if _is_d12(d)]
    faces_raw = [d for d in raw if not _is_d12(d)]
    effect = action.get("effect")
    if d12:
        require(len(d12) == 1 and effect is None, "bad_dice", "One throw holds one effect die.")
        effect = d12[0].get("value")
    require(len(faces_raw) == count, "bad_dice",
            f"This attack rolls {count} attack {'die' if count == 1 else 'dice'}; the roll has {len(faces_raw)}.")
    faces = [dm.parse_face(d) for d in faces_raw]
    if need_effect:
        require(effect is not None, "bad_dice", "Roll the effect die (d12) with the attack dice.")
        return faces, whole(effect, "The effect die", 1, 12, "bad_dice")
    return faces, None


# -- the sequence --------------------------------------------------------------------------------------------
def start(s: dict[str, Any], attacker: dict[str, Any], target: dict[str, Any], spec: dict[str, Any],
          kind: str = "attack") -> None:
    """Begin an attack (kind "attack"), a counterstrike ("counter") or a damage barrier ("barrier")."""
    s["attack"] = {"kind": kind, "attacker": attacker["id"], "target": target["id"], "spec": spec,
                   "strike": 1, "step": None, "strikes": [], "defense": None}
    log(s, f"log.{kind}", attacker=attacker["id"], target=target["id"], attack=spec["name"])
    _begin_strike(s)


def _current(s: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    a = s["attack"]
    return a, s["objects"][a["attacker"]], s["objects"][a["target"]]


def usable_defenses(s: dict[str, Any]) -> list[int]:
    """Indexes of the target's defenses it may use against the current strike (§8)."""
    a, _att, tgt = _current(s)
    spec = a["spec"]
    if a["kind"] == "barrier" or spec["unavoidable"] or incapacitated(tgt):
        return []
    return [i for i, d in enumerate(tgt["defenses"])
            if d["used"] < d["uses"] and d["range"] in (None, spec["range"])]


def defense_penalty(s: dict[str, Any], o: dict[str, Any]) -> int:
    """-2 while Restrained; -2 per Daze marker, or -2 flat with the setting "daze_defense": "flat" (§8, §12)."""
    daze = o["conditions"].get("daze", 0)
    per_daze = 2 * daze if s["settings"]["daze_defense"] == "per_marker" else (2 if daze else 0)
    return (2 if restrained(o) else 0) + per_daze


def strike_dice(s: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    a, att, tgt = _current(s)
    return dm.dice_count(a["spec"], att, as_rules_see(s, tgt), first_strike=a["strike"] == 1,
                         barrier=a["kind"] == "barrier")


def _begin_strike(s: dict[str, Any]) -> None:
    a, att, _tgt = _current(s)
    if a["kind"] == "attack" and att["conditions"].get("daze"):
        a["step"] = "daze"  # the Daze check, once per strike, at the end of the declare step (§9)
        return
    _defense_step(s)


def _defense_step(s: dict[str, Any]) -> None:
    a = s["attack"]
    a["step"] = "defense" if usable_defenses(s) else "roll"


def on_daze_roll(s: dict[str, Any], value: int) -> None:
    a, att, _tgt = _current(s)
    if value <= 6:
        log(s, "log.daze_miss", attacker=att["id"], roll=value)
        a["strikes"].append({"strike": a["strike"], "hit": False, "missed": "daze", "daze_roll": value})
        _end_strike(s)
    else:
        log(s, "log.daze_pass", attacker=att["id"], roll=value)
        _defense_step(s)


def on_defend(s: dict[str, Any], index: Any) -> None:
    a, _att, tgt = _current(s)
    if index is None:
        log(s, "log.no_defense", target=tgt["id"])
        a["step"] = "roll"
        return
    require(index in usable_defenses(s), "bad_defense", f"{tgt['name']} cannot use that defense now.")
    a["defense"] = index
    a["step"] = "defense_roll"


def on_defense_roll(s: dict[str, Any], value: int) -> None:
    a, _att, tgt = _current(s)
    d = tgt["defenses"][a["defense"]]
    d["used"] += 1
    penalty = defense_penalty(s, tgt)
    avoided = value - penalty >= d["min"]
    log(s, "log.defense", target=tgt["id"], roll=value, penalty=penalty, need=d["min"],
        result="avoided" if avoided else "failed")
    a["defense"] = None
    if avoided:
        a["strikes"].append({"strike": a["strike"], "hit": False, "missed": "defense", "defense_roll": value})
        _end_strike(s)
    else:
        a["step"] = "roll"


def on_attack_roll(s: dict[str, Any], faces: list[str], d12: int | None) -> None:
    """Damage (§7.2) then the effect (§7.4) of one strike, with a breakdown the page shows step by step."""
    a, att, tgt = _current(s)
    spec = a["spec"]
    n, terms = strike_dice(s)
    dmg = dm.damage(faces, spec, tgt)
    result: dict[str, Any] = {"strike": a["strike"], "hit": True, "faces": faces, "dice_terms": terms, **dmg}
    # the hit is told before what it caused (damage, destruction, the effect), as the players say it
    log(s, "log.strike", attacker=att["id"], target=tgt["id"], faces=" ".join(faces),
        normal=dmg["normal"], critical=dmg["critical"], armor=dmg["armor"], damage=dmg["damage"], rule=dmg["rule"])
    deal_damage(s, tgt, dmg["damage"], spec.get("type") or "physical", settle=False)
    if d12 is not None and dmg["rule"] != "immune":
        adjusted, eterms = dm.adjust_effect_roll(d12, spec, as_rules_see(s, tgt))
        row = dm.lookup_effect(spec["effects"], adjusted)
        result.update(effect_roll=d12, effect_terms=eterms, effect_adjusted=adjusted)
        if row and not tgt["destroyed"]:
            outcome = place_condition(s, tgt, row["condition"], row["count"], spec)
            result.update(effect=row["condition"], effect_count=row["count"], effect_outcome=outcome)
            log(s, "log.effect", target=tgt["id"], condition=row["condition"], count=row["count"],
                outcome=outcome, roll=d12, adjusted=adjusted)
    a["strikes"].append(result)
    s["last_strike"] = {"attacker": att["id"], "target": tgt["id"], "attack": spec["name"], **result}
    _end_strike(s)


def _end_strike(s: dict[str, Any]) -> None:
    a, att, tgt = _current(s)
    settle_victory(s)
    if s["winner"] is not None:
        return
    if a["strike"] < a["spec"]["strikes"] and not att["destroyed"] and not tgt["destroyed"]:
        a["strike"] += 1  # Doublestrike / Triplestrike: steps 2-4 again (§6 step 5)
        _begin_strike(s)
        return
    _finish(s)


def can_counterstrike(s: dict[str, Any], o: dict[str, Any]) -> list[int]:
    """Indexes of `o`'s saved attacks it may counterstrike with (§6 step 7): a quick melee attack with
    Counterstrike, or any quick melee attack while guarding (§11)."""
    if o["destroyed"] or incapacitated(o):
        return []
    return [i for i, atk in enumerate(o["attacks"])
            if atk["range"] == "melee" and atk["action"] == "quick" and (atk["counterstrike"] or o["guard"])]


def _finish(s: dict[str, Any]) -> None:
    """After the strikes: the damage barrier, then the counterstrike, then the attack ends (§6 steps 6-8)."""
    a, att, tgt = _current(s)
    spec = a["spec"]
    first = a["strikes"][0] if a["strikes"] else {"hit": False}
    follow: list[dict[str, Any]] = []
    if spec["range"] == "melee" and a["kind"] in ("attack", "counter"):
        if first["hit"] and tgt["barrier"] and not tgt["destroyed"] and not att["destroyed"]:
            follow.append({"kind": "barrier", "attacker": tgt["id"], "target": att["id"]})
        if a["kind"] == "attack" and not att["destroyed"] and can_counterstrike(s, tgt):
            follow.append({"kind": "counter_offer", "attacker": tgt["id"], "target": att["id"]})
        if a["kind"] == "attack":
            s["guard_hit"].append(tgt["id"])  # the guard marker goes after this attack (§11, §13.6 C6)
    log(s, "log.attack_end", attacker=att["id"], target=tgt["id"])
    s["followups"] = follow + s["followups"]
    s["attack"] = None
    next_followup(s)


def next_followup(s: dict[str, Any]) -> None:
    """Start the next damage barrier or counterstrike offer, or end the whole attack."""
    while s["followups"] and s["winner"] is None:
        f = s["followups"][0]
        att, tgt = s["objects"][f["attacker"]], s["objects"][f["target"]]
        if att["destroyed"] or tgt["destroyed"]:
            s["followups"].pop(0)
            continue
        if f["kind"] == "barrier":
            s["followups"].pop(0)
            start(s, att, tgt, att["barrier"], "barrier")
        return  # a counterstrike offer waits for its owner's choice
    for oid in s["guard_hit"]:
        s["objects"][oid]["guard"] = False
    s["guard_hit"] = []


def on_counterstrike(s: dict[str, Any], index: Any) -> None:
    f = s["followups"][0]
    defender, target = s["objects"][f["attacker"]], s["objects"][f["target"]]
    s["followups"].pop(0)
    if index is None:
        log(s, "log.no_counter", name=defender["id"])
        next_followup(s)
        return
    require(index in can_counterstrike(s, defender), "bad_counter",
            f"{defender['name']} has no such attack to counterstrike with.")
    start(s, defender, target, defender["attacks"][index], "counter")


def begin(s: dict[str, Any], action: dict[str, Any]) -> None:
    """The `attack` action: the acting creature attacks a target with a saved or a described attack."""
    require(s["attack"] is None and not s["followups"], "attack_running", "Finish the attack in progress first.")
    require(s["acting"] is not None, "not_acting", "Only the creature taking its action phase can attack.")
    # its action phase is over once it ended it; only its escape rolls are left (§9; issue 33, ruling 4)
    require(s.get("step") != "escape", "activation_over",
            f"{obj(s, s['acting'])['name']}'s action phase is over: roll its escape dice.")
    att = obj(s, s["acting"])
    if action.get("object") is not None:
        require(action["object"] == att["id"], "not_acting", f"It is {att['name']}'s action phase.")
    require(not incapacitated(att), "incapacitated", f"{att['name']} is incapacitated and cannot attack.")
    require(not att["attacked"], "already_attacked", f"{att['name']} has already attacked this action phase.")
    tgt = target(s, action.get("target"))
    require(tgt["id"] != att["id"], "bad_target", "A creature does not attack itself.")
    if "saved" in action:
        names = [a["name"] for a in att["attacks"]]
        require(action["saved"] in names, "unknown_attack",
                f"{att['name']} has no saved attack \"{action['saved']}\" (saved: {', '.join(names) or 'none'}).")
        spec = att["attacks"][names.index(action["saved"])]
    else:
        spec = parse_attack(action.get("attack"))
    att["attacked"] = True
    start(s, att, tgt, spec)


def on_roll(s: dict[str, Any], action: dict[str, Any]) -> None:
    """A roll answering the attack's current step."""
    a = s["attack"]
    step = a["step"]
    if step == "daze":
        on_daze_roll(s, d12_values(action, 1)[0])
    elif step == "defense_roll":
        on_defense_roll(s, d12_values(action, 1)[0])
    elif step == "roll":
        n, _ = strike_dice(s)
        faces, d12 = attack_roll(action, n, bool(a["spec"]["effects"]))
        on_attack_roll(s, faces, d12)
    else:
        raise IllegalAction("not_rolling", "The attack waits for a choice, not for dice.")
