"""The Mage Wars companion's state: mages, registered creatures and conjurations, and what happens to them.

The state is one plain dict (JSON as it is, so checkpoints are `dump` = identity). Objects are dicts keyed by
id in `objects`; a mage is an object of kind "mage" owned by its player. Damage, healing and conditions go
through the functions here so every path (attacks, upkeep, hand corrections) obeys the same rules of §7.2,
§9 and §10: immunities, Finite Life, Sleep waking into Daze, Freeze and Burn cancelling, destruction.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from ..checks import text, whole
from ..core import IllegalAction, require
from ..kernel import player_ids
from .dice import effective_armor, immune_to, is_living
from .stacking import orphans, parse_grants, parse_values

LOG_KEEP = 60  # log lines kept in the state for the page; the store keeps every action
MAX_OBJECTS = 60
CREATURE_KINDS = ("mage", "creature")
KINDS = ("mage", "creature", "conjuration", "enchantment")
BOOL_TRAITS = ("nonliving", "incorporeal", "resilient", "burnproof", "unmovable", "uncontainable", "plant",
               "elusive", "flying")
STACKED_TRAITS = ("tough", "aegis")  # one value per card; engine/magewars/stacking.py applies them
DAMAGE_TYPES = ("physical", "flame", "acid", "lightning", "poison", "psychic", "frost", "holy", "dark", "wind",
                "hydro", "light", "arcane")


@cache
def _data(name: str) -> dict[str, Any]:
    return json.loads(resources.files(__package__).joinpath(name).read_text(encoding="utf-8"))


def conditions() -> dict[str, dict[str, Any]]:
    """Condition markers by id (conditions.json)."""
    return {row["id"]: row for row in _data("conditions.json")["conditions"]}


def mages() -> dict[str, dict[str, Any]]:
    """Mage statistics by id (mages.json)."""
    return {row["id"]: row for row in _data("mages.json")["mages"]}


def mage_defaults() -> dict[str, Any]:
    data = _data("mages.json")
    return {"channeling": data["channeling"], "mana": data["mana"], "apprentice": data["apprentice"]}


# -- reading the state -------------------------------------------------------------------------------------
def obj(s: dict[str, Any], oid: Any) -> dict[str, Any]:
    """A live object by id, or a refusal naming the problem."""
    o = s["objects"].get(oid) if isinstance(oid, str) else None
    require(o is not None, "unknown_object", f"There is no creature or object \"{oid}\" in this game.")
    assert o is not None
    require(not o["destroyed"], "destroyed", f"{o['name']} has been destroyed.")
    return o


def target(s: dict[str, Any], oid: Any) -> dict[str, Any]:
    """A live object that can be attacked, damaged, healed or given conditions: not an enchantment, which has
    no life of its own."""
    o = obj(s, oid)
    require(o["kind"] != "enchantment", "bad_target",
            f"{o['name']} is an enchantment: it cannot be attacked, damaged, healed or given conditions.")
    return o


def other(s: dict[str, Any], pid: str) -> str:
    return next(p for p in player_ids(s) if p != pid)


def mage_of(s: dict[str, Any], pid: str) -> dict[str, Any]:
    return s["objects"][pid]


def live(s: dict[str, Any], owner: str | None = None) -> list[dict[str, Any]]:
    """Objects in play (registration order), optionally of one player."""
    return [s["objects"][i] for i in s["order"]
            if not s["objects"][i]["destroyed"] and (owner is None or s["objects"][i]["owner"] == owner)]


def unactivated(s: dict[str, Any], pid: str) -> list[dict[str, Any]]:
    """Creatures of a player (its mage included) whose action marker is still ready (§4)."""
    return [o for o in live(s, pid) if o["kind"] in CREATURE_KINDS and not o["activated"]]


def incapacitated(o: dict[str, Any]) -> bool:
    """Stun, Sleep or Slam: no actions, defenses, counterstrike or guard (§9)."""
    c = o["conditions"]
    return bool(c.get("stun") or c.get("sleep") or c.get("slam"))


def restrained(o: dict[str, Any]) -> bool:
    c = o["conditions"]
    return bool(c.get("cripple") or c.get("stuck"))


def effective_damage(o: dict[str, Any]) -> int:
    """Damage plus 3 per Tainted and 2 per Freeze on a Living object (§10 life accounting)."""
    c = o["conditions"]
    extra = 3 * c.get("tainted", 0) + (2 * c.get("freeze", 0) if is_living(o) else 0)
    return o["damage"] + extra


def finite_life(o: dict[str, Any]) -> bool:
    """Nonliving objects (Incorporeal ones too) cannot be healed or regenerate (§7.2, §10)."""
    return bool(o["traits"].get("nonliving") or o["traits"].get("incorporeal"))


def log(s: dict[str, Any], key: str, **args: Any) -> None:
    """A log line as a text key and its arguments; the page words it in the reader's language."""
    s["log"].append({"n": s["moves"], "key": key, "args": args})
    if len(s["log"]) > LOG_KEEP:
        del s["log"][: len(s["log"]) - LOG_KEEP]


# -- changing the state ------------------------------------------------------------------------------------
def check_destroyed(s: dict[str, Any], o: dict[str, Any]) -> bool:
    """Destroy an object whose effective damage reached its life (§7.2); a mage's end is settled by
    `settle_victory` so that two mages falling together can be a draw."""
    if not o["destroyed"] and o["life"] is not None and effective_damage(o) >= o["life"]:
        o["destroyed"] = True
        o["guard"] = False
        log(s, "log.destroyed", name=o["id"])
        return True
    return False


def drop_orphans(s: dict[str, Any]) -> None:
    """Enchantments leave play with the object they are attached to."""
    for e in orphans(s):
        e["destroyed"] = True
        log(s, "log.destroyed", name=e["id"])


def settle_victory(s: dict[str, Any]) -> None:
    """A mage whose damage reaches its life loses; both at once is a draw (§7.2 [AMBIGUOUS], recommended)."""
    if s["winner"] is not None:
        return
    fallen = [pid for pid in player_ids(s) if mage_of(s, pid)["destroyed"]]
    if not fallen:
        return
    s["winner"] = "draw" if len(fallen) == len(s["players"]) else other(s, fallen[0])
    s["phase"] = "over"
    s["attack"] = None
    s["followups"] = []
    s["step"] = None
    log(s, "log.draw" if s["winner"] == "draw" else "log.winner", player=s["winner"])


def deal_damage(s: dict[str, Any], o: dict[str, Any], amount: int, cause: str, *, settle: bool = True) -> None:
    """Put damage on an object; a sleeping creature wakes into one Daze on any damage (§9, §13.6 C3)."""
    if amount <= 0 or o["destroyed"]:
        return
    o["damage"] += amount
    log(s, "log.damage", name=o["id"], amount=amount, cause=cause)
    if o["conditions"].get("sleep"):
        o["conditions"]["sleep"] = 0
        add_marker(o, "daze", 1, s)
        log(s, "log.woke", name=o["id"])
    check_destroyed(s, o)
    if settle:
        settle_victory(s)


def heal(s: dict[str, Any], o: dict[str, Any], amount: int, cancel_bleed: int = 0) -> int:
    """Heal (§10): nothing on Finite Life; each point given up removes one Bleed (§9, §13.5 U5). Returns the
    damage actually removed."""
    require(not finite_life(o), "finite_life", f"{o['name']} is Nonliving: it cannot be healed.")
    cancel = min(cancel_bleed, amount, o["conditions"].get("bleed", 0))
    if cancel:
        o["conditions"]["bleed"] -= cancel
    removed = min(amount - cancel, o["damage"])
    o["damage"] -= removed
    log(s, "log.healed", name=o["id"], amount=removed, bleed=cancel)
    return removed


def add_marker(o: dict[str, Any], cond: str, count: int, s: dict[str, Any]) -> None:
    """Add markers; Freeze and Burn on one object cancel one for one (§9, §13.5 U13); Daze gained during the
    creature's own action phase stays past its end (§9)."""
    c = o["conditions"]
    opposite = {"burn": "freeze", "freeze": "burn"}.get(cond)
    if opposite and c.get(opposite):
        cancel = min(count, c[opposite])
        c[opposite] -= cancel
        count -= cancel
    if count <= 0:
        return
    c[cond] = c.get(cond, 0) + count
    if cond == "daze" and s.get("acting") == o["id"]:
        o["daze_gained"] = o.get("daze_gained", 0) + count


def place_condition(s: dict[str, Any], o: dict[str, Any], cond: str, count: int,
                    attack: dict[str, Any] | None = None) -> str:
    """Place condition markers from an effect (§7.4 step 4-5, §9), unless the object cannot receive them.
    Returns what happened: "placed", "daze" (Slam on Unmovable), "acid" (Corrode past 0 armor) or the reason
    it was blocked, for the breakdown the page shows."""
    spec = conditions()[cond]
    traits = o["traits"]
    if attack is not None and traits.get("incorporeal") and not attack.get("ethereal"):
        return "incorporeal"
    if spec["type"] and immune_to(o, spec["type"]):
        return "immune"
    # the condition's own "cannot affect" traits (§9), even from an Ethereal attack: Corrode on Incorporeal
    blocked = next((t for t in spec.get("cannot_affect", []) if traits.get(t)), None)
    if blocked is not None:
        return {"burn": "burnproof", "bleed": "not_living"}.get(cond, blocked)  # the outcomes game.json words
    if spec["creatures_only"] and o["kind"] not in CREATURE_KINDS:
        return "not_creature"
    if cond == "bleed" and not is_living(o):
        return "not_living"
    if cond == "slam" and traits.get("unmovable"):
        add_marker(o, "daze", count, s)
        return "daze"
    if cond == "corrode":
        acid = 0
        for _ in range(count):
            if effective_armor(o) > 0:
                o["conditions"]["corrode"] = o["conditions"].get("corrode", 0) + 1
            else:
                acid += 1
        if acid:
            deal_damage(s, o, acid, "acid", settle=False)
            return "acid" if acid == count else "placed"
        return "placed"
    add_marker(o, cond, count, s)
    return "placed"


def _host(s: dict[str, Any], raw: Any) -> str | None:
    """The object an enchantment is attached to: one in play, or none (an enchantment on a zone)."""
    if raw is None:
        return None
    host = s["objects"].get(raw) if isinstance(raw, str) else None
    require(host is not None and not host["destroyed"] and host["kind"] != "enchantment", "bad_object",
            f"An enchantment goes on a creature, conjuration or mage in play, not \"{raw}\".")
    assert host is not None
    return host["id"]


# -- building objects --------------------------------------------------------------------------------------
def _traits(raw: Any) -> dict[str, Any]:
    require(raw is None or isinstance(raw, dict), "bad_object", "Traits are an object like {\"nonliving\": true}.")
    out: dict[str, Any] = {}
    for key, value in (raw or {}).items():
        if key in BOOL_TRAITS:
            require(isinstance(value, bool), "bad_object", f"The trait \"{key}\" is true or false.")
            if value:
                out[key] = True
        elif key in STACKED_TRAITS:
            values = parse_values(value, f"The trait \"{key}\"")
            if values:
                out[key] = values
        elif key == "immune":
            require(isinstance(value, list) and all(v in DAMAGE_TYPES for v in value), "bad_object",
                    "Immunities are a list of damage types (" + ", ".join(DAMAGE_TYPES) + ").")
            out[key] = sorted(set(value))
        elif key == "type_mods":
            require(isinstance(value, dict) and all(k in DAMAGE_TYPES for k in value), "bad_object",
                    "Weaknesses and resistances are like {\"flame\": 2} or {\"flame\": -2}.")
            out[key] = {k: whole(v, f"The {k} modifier", -6, 6, "bad_object") for k, v in value.items() if v}
        else:
            raise IllegalAction("bad_object", f"\"{key}\" is not a trait the companion knows.")
    return out


def _defenses(raw: Any) -> list[dict[str, Any]]:
    require(raw is None or isinstance(raw, list) and len(raw) <= 4, "bad_object", "Defenses are a list (at most 4).")
    out = []
    for d in raw or []:
        require(isinstance(d, dict), "bad_object", "A defense is like {\"min\": 7, \"uses\": 1}.")
        rng = d.get("range")
        require(rng in (None, "melee", "ranged"), "bad_object", "A defense's range is melee, ranged or either.")
        out.append({"min": whole(d.get("min"), "A defense's roll", 1, 13, "bad_object"),
                     "uses": whole(d.get("uses", 1), "A defense's uses", 1, 9, "bad_object"),
                     "range": rng, "used": 0})
    return out


def new_object(s: dict[str, Any], spec: Any, *, owner: str, kind: str, oid: str | None = None) -> dict[str, Any]:
    """A mage, creature, conjuration or enchantment from the numbers the players enter (§1: registered by
    name). An enchantment has no life: it stays until removed, unpaid, or its object leaves play."""
    require(isinstance(spec, dict), "bad_object", "A creature is described by an object with its numbers.")
    require(kind in KINDS, "bad_object", "A registered object is a creature, a conjuration or an enchantment.")
    require(len(s["order"]) < MAX_OBJECTS, "too_many", f"A game holds at most {MAX_OBJECTS} objects.")
    name = text(spec.get("name"), "A creature's name", 40, "bad_object")
    life = None if kind == "enchantment" else whole(spec.get("life"), f"{name}'s life", 1, 99, "bad_object")
    o: dict[str, Any] = {
        "id": oid or f"o{s['next_id']}", "name": name, "owner": owner, "kind": kind, "life": life,
        "damage": whole(spec.get("damage", 0), f"{name}'s damage", 0, life or 0, "bad_object"),
        "armor": whole(spec.get("armor", 0), f"{name}'s armor", 0, 20, "bad_object"),
        "mana": whole(spec.get("mana", 0), f"{name}'s mana", 0, 99, "bad_object"),
        "channeling": whole(spec.get("channeling", 0), f"{name}'s channeling", 0, 30, "bad_object"),
        "level": whole(spec.get("level", 6 if kind == "mage" else 1), f"{name}'s level", 0, 9, "bad_object"),
        "traits": _traits(spec.get("traits")),
        "conditions": {},
        "defenses": _defenses(spec.get("defenses")),
        "attacks": [],
        "barrier": None,
        "regenerate": parse_values(spec.get("regenerate", 0), f"{name}'s Regenerate"),
        "upkeep_cost": whole(spec.get("upkeep", 0), f"{name}'s Upkeep", 0, 10, "bad_object"),
        "dissipate": (whole(spec["dissipate"], f"{name}'s Dissipate", 1, 10, "bad_object")
                      if spec.get("dissipate") is not None else None),
        "guard": False, "activated": kind != "mage" and not spec.get("ready", False),
        "quickcast": kind == "mage", "destroyed": False, "daze_gained": 0, "attacked": False,
    }
    if kind == "enchantment":
        o.update(on=_host(s, spec.get("on")), grants=parse_grants(spec.get("grants")))
    raw_conditions = spec.get("conditions") or {}
    require(isinstance(raw_conditions, dict), "bad_object", "Conditions are like {\"burn\": 2}.")
    for cond, n in raw_conditions.items():
        require(cond in conditions(), "bad_object", f"\"{cond}\" is not a condition.")
        count = whole(n, f"{name}'s {cond}", 0, 20, "bad_object")
        if count:
            o["conditions"][cond] = count
    if oid is None:
        s["next_id"] += 1
    return o
