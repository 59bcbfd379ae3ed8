"""Mage Wars companion rules (engine.core.Rules): setup, the action table, options and the Next button.

The box keeps what players get wrong and what slows them down (reference §1): the attack sequence from the
dice on the tray, conditions over time, upkeep, mana and channeling, and victory. The arena and the
spellbooks stay on the table; players register creatures and conjurations by their printed numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..checks import seed as check_seed
from ..checks import text, whole
from ..core import Action, Event, GameDescription, IllegalAction, require
from ..kernel import GameRules
from . import attack as atk
from . import dice as dm
from . import phases as ph
from .describe import description
from .state import (
    DAMAGE_TYPES,
    check_destroyed,
    conditions,
    deal_damage,
    drop_orphans,
    heal,
    incapacitated,
    log,
    mage_defaults,
    mages,
    new_object,
    obj,
    place_condition,
    settle_victory,
    target,
)
from .view import pending, snapshot

SEATS = ("p1", "p2")
REGISTERED_KINDS = ("creature", "conjuration", "enchantment")  # mages come with the setup
ADJUSTABLE = {"life": (1, 99), "damage": (0, 99), "mana": (0, 99), "channeling": (0, 30), "armor": (0, 20)}


def setup_state(config: Any) -> dict[str, Any]:
    """The first state from a setup (docs/actions.md, Mage Wars): two mages, optional registered objects,
    optional initiative (else the effect-die roll of §3 step 7), and mid-game numbers for rules tests."""
    require(isinstance(config, dict), "bad_setup", "A Mage Wars setup is an object with two \"players\".")
    players = config.get("players")
    require(isinstance(players, list) and len(players) == 2, "bad_setup", "Mage Wars is a duel: two players.")
    mode = config.get("mode", "arena")
    require(mode in ("arena", "apprentice"), "bad_setup", "The mode is \"arena\" or \"apprentice\".")
    daze = config.get("daze_defense", "per_marker")
    require(daze in ("per_marker", "flat"), "bad_setup", "\"daze_defense\" is \"per_marker\" or \"flat\".")
    s: dict[str, Any] = {
        "round": 1, "phase": "initiative_roll", "initiative": None, "players": [], "objects": {}, "order": [],
        "next_id": 1, "turn": None, "acting": None, "attack": None, "followups": [], "guard_hit": [],
        "step": None, "list": [], "list_index": 0, "quickcast_turns": [], "init_rolls": {},
        "winner": None, "log": [], "moves": 0, "last_strike": None, "settings": {"daze_defense": daze, "mode": mode},
    }
    defaults = mage_defaults()
    catalogue = mages()
    for seat, row in zip(SEATS, players, strict=True):
        require(isinstance(row, dict), "bad_setup", "Each player is an object with a \"name\" and a \"mage\".")
        pname = text(row.get("name", seat.upper()), "A player's name", 40)
        mage_id = row.get("mage", "wizard")
        require(mage_id in catalogue, "bad_setup",
                f"There is no mage \"{mage_id}\" (known: {', '.join(sorted(catalogue))}).")
        base = catalogue[mage_id]
        life = defaults["apprentice"]["life"] if mode == "apprentice" else base["life"]
        spec = {"name": row.get("mage_name") or base["name"]["en"], "life": row.get("life", life),
                "channeling": row.get("channeling", defaults["channeling"]), "mana": row.get("mana", defaults["mana"]),
                "damage": row.get("damage", 0), "armor": row.get("armor", 0), "traits": row.get("traits"),
                "conditions": row.get("conditions"), "defenses": row.get("defenses", base.get("defenses")),
                "regenerate": row.get("regenerate", 0)}
        try:
            mage = new_object(s, spec, owner=seat, kind="mage", oid=seat)
        except IllegalAction as exc:
            raise IllegalAction("bad_setup", exc.message) from None
        mage["mage"] = mage_id
        mage["attacks"] = [_setup_call(atk.parse_attack, a) for a in _list(row.get("attacks"), "attacks")]
        s["objects"][seat] = mage
        s["order"].append(seat)
        s["players"].append({"id": seat, "name": pname, "mage_id": mage_id})
    for raw in _list(config.get("objects"), "objects"):
        _setup_call(lambda r: register(s, r), raw)
    first = config.get("initiative", config.get("start"))  # "start": who begins, as the page's setup sheet says
    if first is None:
        s["init_rolls"] = {seat: None for seat in SEATS}
    else:
        require(first in SEATS, "bad_setup", "\"initiative\" (or \"start\") is \"p1\" or \"p2\".")
        s["initiative"] = first
        ph.enter(s, "channeling")
    start = config.get("phase")
    if start is not None:  # a mid-game position: the numbers given are the ones on the table
        require(first is not None and start in ("planning", "actions"), "bad_setup",
                "A setup may start at \"planning\" or \"actions\" (with \"initiative\" given).")
        s["list"] = []
        ph.enter(s, start)
    s["log"] = []
    return s


def _list(raw: Any, what: str) -> list[Any]:
    require(raw is None or isinstance(raw, list) and len(raw) <= 40, "bad_setup", f"\"{what}\" is a list.")
    return raw or []


def _setup_call(fn: Callable[[Any], Any], raw: Any) -> Any:
    try:
        return fn(raw)
    except IllegalAction as exc:
        raise IllegalAction("bad_setup", exc.message) from None


def register(s: dict[str, Any], raw: Any) -> dict[str, Any]:
    """Register a creature, conjuration or enchantment by its printed numbers, with its saved attacks and
    damage barrier (an enchantment: the object it is on and the values it grants)."""
    require(isinstance(raw, dict), "bad_object", "A creature is described by an object with its numbers.")
    owner = raw.get("owner")
    require(owner in SEATS, "bad_object", "A registered object belongs to \"p1\" or \"p2\".")
    kind = raw.get("kind", "creature")
    require(kind in REGISTERED_KINDS, "bad_object", "A registered object is a " + ", ".join(REGISTERED_KINDS) + ".")
    o = new_object(s, raw, owner=owner, kind=kind)
    o["attacks"] = [atk.parse_attack(a) for a in _attack_list(raw.get("attacks"))]
    names = [a["name"] for a in o["attacks"]]
    require(len(set(names)) == len(names), "bad_object", "Two saved attacks of one creature share a name.")
    if raw.get("barrier") is not None:
        o["barrier"] = atk.parse_attack({"name": "Damage barrier", **_dict(raw["barrier"])})
    s["objects"][o["id"]] = o
    s["order"].append(o["id"])
    log(s, "log.register", name=o["id"], player=owner, kind=o["kind"])
    return o


def _attack_list(raw: Any) -> list[Any]:
    require(raw is None or isinstance(raw, list) and len(raw) <= 8, "bad_object", "Attacks are a list (at most 8).")
    return raw or []


def _dict(raw: Any) -> dict[str, Any]:
    require(isinstance(raw, dict), "bad_attack", "A damage barrier is described like an attack.")
    return raw


# -- actions ---------------------------------------------------------------------------------------------------
def _expect_player(s: dict[str, Any], action: Action) -> None:
    """An action may name its player; when it does, it must be the one the game waits for."""
    who = action.get("player")
    if who is None:
        return
    waiting = (pending(s) or {}).get("player")
    require(waiting is None or who == waiting, "not_your_turn", "The game waits for the other player.")


def _no_attack(s: dict[str, Any]) -> None:
    require(s["attack"] is None and not s["followups"] and s["step"] is None, "attack_running",
            "Finish the attack or roll in progress first.")


def _a_roll(s: dict[str, Any], action: Action) -> None:
    phase = s["phase"]
    if phase == "initiative_roll":
        ph.on_initiative_roll(s, ph.roller(s), atk.d12_values(action, 1)[0])
    elif phase == "upkeep" and ph.upkeep_waiting(s) and ph.upkeep_waiting(s)["kind"] == "burn":
        item = ph.upkeep_waiting(s)
        faces, _ = atk.attack_roll(action, item["amount"], False)
        ph.on_burn_roll(s, faces)
    elif s["attack"] is not None:
        atk.on_roll(s, action)
    elif s["step"] == "escape":
        ph.on_escape_roll(s, atk.d12_values(action, ph.escape_count(s)))
    else:
        raise IllegalAction("not_rolling", "The game is not waiting for dice now.")


def _a_next(s: dict[str, Any], action: Action) -> None:
    ph.next_phase(s)


def _a_upkeep(s: dict[str, Any], action: Action) -> None:
    ph.start_upkeep(s)


def _a_pay(s: dict[str, Any], action: Action) -> None:
    item = ph.upkeep_waiting(s)
    require(item is not None and item["kind"] == "upkeep_cost", "not_now", "No upkeep cost is waiting to be paid.")
    require(isinstance(action.get("pay"), bool), "bad_action", "\"pay\" is true or false.")
    ph.on_upkeep_pay(s, action["pay"])


def _a_quickcast(s: dict[str, Any], action: Action) -> None:
    use = action.get("use", True)
    require(isinstance(use, bool), "bad_action", "\"use\" is true or false.")
    cost = whole(action.get("cost", 0), "The spell's cost", 0, 99, "bad_action")
    if s["phase"] in ("first_quickcast", "final_quickcast"):
        ph.on_quickcast(s, s["quickcast_turns"][0], use, cost)
        return
    require(s["phase"] == "actions", "not_now", "Quickcast in a quickcast phase or around your creature's action.")
    _no_attack(s)
    pid = s["objects"][s["acting"]]["owner"] if s["acting"] else s["turn"]
    require(use, "bad_action", "Outside the quickcast phases, only using the marker is an action.")
    ph.on_quickcast(s, pid, True, cost)


def _in_actions(s: dict[str, Any]) -> None:
    require(s["phase"] == "actions", "not_now", "Creatures act in the Action stage.")


def _a_activate(s: dict[str, Any], action: Action) -> None:
    _in_actions(s)
    _no_attack(s)
    require(s["acting"] is None, "acting", "Another creature is still taking its action phase.")
    ph.activate(s, action.get("object"))


def _a_pass(s: dict[str, Any], action: Action) -> None:
    _in_actions(s)
    _no_attack(s)
    require(s["acting"] is None, "acting", "End the acting creature's action phase first.")
    ph.pass_turn(s, s["turn"])


def _a_attack(s: dict[str, Any], action: Action) -> None:
    _in_actions(s)
    atk.begin(s, action)


def _a_defend(s: dict[str, Any], action: Action) -> None:
    require(s["attack"] is not None and s["attack"]["step"] == "defense", "not_now", "No defense is asked for now.")
    index = action.get("defense")
    require(index is None or isinstance(index, int) and not isinstance(index, bool), "bad_action",
            "\"defense\" is the number of a defense, or null for none.")
    atk.on_defend(s, index)


def _a_counterstrike(s: dict[str, Any], action: Action) -> None:
    require(s["attack"] is None and s["followups"], "not_now", "No counterstrike is offered now.")
    index = action.get("attack")
    require(index is None or isinstance(index, int) and not isinstance(index, bool), "bad_action",
            "\"attack\" is the number of a saved attack, or null for none.")
    atk.on_counterstrike(s, index)


def _a_guard(s: dict[str, Any], action: Action) -> None:
    _in_actions(s)
    _no_attack(s)
    require(s["acting"] is not None, "not_acting", "Only the acting creature can guard.")
    o = s["objects"][s["acting"]]
    require(not incapacitated(o), "incapacitated", f"{o['name']} is incapacitated and cannot guard.")
    o["guard"] = True
    log(s, "log.guard", name=o["id"])


def _a_end_activation(s: dict[str, Any], action: Action) -> None:
    _in_actions(s)
    _no_attack(s)
    require(s["acting"] is not None, "not_acting", "No creature is taking its action phase.")
    ph.end_activation(s)


def _a_register(s: dict[str, Any], action: Action) -> None:
    _no_attack(s)
    register(s, action.get("object"))


def _a_save_attack(s: dict[str, Any], action: Action) -> None:
    o = obj(s, action.get("object"))
    spec = atk.parse_attack(action.get("attack"))
    require(len(o["attacks"]) < 8, "too_many", "A creature keeps at most 8 saved attacks.")
    o["attacks"] = [a for a in o["attacks"] if a["name"] != spec["name"]] + [spec]
    log(s, "log.save_attack", name=o["id"], attack=spec["name"])


def _a_remove(s: dict[str, Any], action: Action) -> None:
    _no_attack(s)
    o = obj(s, action.get("object"))
    require(o["kind"] != "mage", "bad_action", "A mage leaves the game only when destroyed.")
    o["destroyed"] = True  # an acting creature's action phase then ends in `apply`, as for any destroyed one
    o["guard"] = False
    log(s, "log.removed", name=o["id"])


def _a_mana(s: dict[str, Any], action: Action) -> None:
    o = obj(s, action.get("object"))
    change = whole(action.get("change"), "The mana change", -99, 99, "bad_action")
    require(o["mana"] + change >= 0, "no_mana", f"{o['name']} has {o['mana']} mana, not {-change}.")
    o["mana"] = min(o["mana"] + change, 99)
    log(s, "log.mana", name=o["id"], change=change, mana=o["mana"])


def _a_damage(s: dict[str, Any], action: Action) -> None:
    """Direct damage from a spell or ability: ignores armor, not an attack (§7.2); immunity still holds."""
    _no_attack(s)
    o = target(s, action.get("object"))
    kind = action.get("kind")
    require(kind is None or kind in DAMAGE_TYPES, "bad_action", "\"kind\" names a damage type, or is left out.")
    if dm.immune_to(o, kind):
        log(s, "log.immune", name=o["id"], kind=kind)
        return
    deal_damage(s, o, whole(action.get("amount"), "Damage", 1, 99, "bad_action"), kind or "direct")


def _a_heal(s: dict[str, Any], action: Action) -> None:
    _no_attack(s)
    o = target(s, action.get("object"))
    amount = whole(action.get("amount"), "Healing", 1, 99, "bad_action")
    heal(s, o, amount, whole(action.get("cancel_bleed", 0), "Bleed given up", 0, 20, "bad_action"))


def _a_condition(s: dict[str, Any], action: Action) -> None:
    """Place or remove markers by hand (a spell or ability did it); removal may pay the marker's cost (§9)."""
    _no_attack(s)
    o = target(s, action.get("object"))
    cond = action.get("condition")
    require(cond in conditions(), "bad_action", f"\"{cond}\" is not a condition.")
    change = whole(action.get("change"), "The change", -20, 20, "bad_action")
    require(change != 0, "bad_action", "Add or remove at least one marker.")
    if change > 0:
        outcome = place_condition(s, o, cond, change)
        log(s, "log.condition", name=o["id"], condition=cond, change=change, outcome=outcome)
        return
    have = o["conditions"].get(cond, 0)
    require(have >= -change, "bad_action", f"{o['name']} has {have} {cond}.")
    if action.get("pay"):
        cost = conditions()[cond]["cost"] if cond != "sleep" else o["level"]
        require(cost is not None, "no_removal_cost", f"{cond} has no removal cost.")
        payer = s["objects"][o["owner"]]
        total = cost * -change
        require(payer["mana"] >= total, "no_mana", f"{payer['name']} has {payer['mana']} mana, not {total}.")
        payer["mana"] -= total
    o["conditions"][cond] = have + change
    log(s, "log.condition", name=o["id"], condition=cond, change=change, outcome="removed")


def _a_teleport(s: dict[str, Any], action: Action) -> None:
    o = obj(s, action.get("object"))
    o["conditions"]["stuck"] = 0  # a teleport removes every Stuck marker (§9, §13.6 C5)
    log(s, "log.teleport", name=o["id"])


def _a_adjust(s: dict[str, Any], action: Action) -> None:
    """Correct a number to what the table shows (one undo step per correction)."""
    o = obj(s, action.get("object"))
    field = action.get("field")
    require(o["kind"] != "enchantment" or field == "mana", "bad_target", f"{o['name']} is an enchantment: it has no {field}.")
    require(field in ADJUSTABLE, "bad_action", "You can correct " + ", ".join(ADJUSTABLE) + ".")
    low, high = ADJUSTABLE[field]
    o[field] = whole(action.get("value"), field.capitalize(), low, high, "bad_action")
    log(s, "log.adjust", name=o["id"], field=field, value=o[field])
    check_destroyed(s, o)
    settle_victory(s)


HANDLERS: dict[str, Callable[[dict[str, Any], Action], None]] = {
    "roll": _a_roll, "next": _a_next, "upkeep": _a_upkeep, "pay": _a_pay, "quickcast": _a_quickcast,
    "activate": _a_activate, "pass": _a_pass, "attack": _a_attack, "defend": _a_defend,
    "counterstrike": _a_counterstrike, "guard": _a_guard, "end_activation": _a_end_activation,
    "register": _a_register, "save_attack": _a_save_attack, "remove": _a_remove, "mana": _a_mana,
    "damage": _a_damage, "heal": _a_heal, "condition": _a_condition, "teleport": _a_teleport, "adjust": _a_adjust,
}




def _destroy_what_reached_its_life(s: dict[str, Any]) -> None:
    """§10 and §7.2 after every action, not only when damage is dealt: effective damage also grows with a
    Tainted or Freeze placed, and an object left at or past its life would go on acting (issue 33, ruling 3)."""
    fell = [o for o in s["objects"].values() if check_destroyed(s, o)]
    drop_orphans(s)
    if fell and s["phase"] != "upkeep":  # upkeep settles the duel at its end: two mages may fall together
        settle_victory(s)
class MageWars(GameRules):
    """Rules object for the Mage Wars companion (see engine.core.Rules; the dispatch is the kernel's)."""

    name = "magewars"
    title = "Mage Wars"
    handlers = HANDLERS
    over_message = "The duel is over."

    def setup(self, config: dict[str, Any], seed: int) -> dict[str, Any]:
        check_seed(seed)
        return setup_state(config)

    def before(self, s: dict[str, Any], kind: str, action: Action) -> None:
        _expect_player(s, action)
        s["moves"] += 1

    def after(self, old: dict[str, Any], s: dict[str, Any], action: Action, events: list[Event]) -> list[Event]:
        """After every action: destruction (§10), and an activation that its creature's end closed; the
        action's events are the log lines it wrote."""
        _destroy_what_reached_its_life(s)
        if s["acting"] and s["objects"][s["acting"]]["destroyed"] and s["attack"] is None \
                and not s["followups"] and s["winner"] is None:
            ph.close_activation(s)  # a creature destroyed in its own action phase ends it there
        return [{"type": "log", **line} for line in s["log"][len(old["log"]):]]

    def describe(self) -> GameDescription:
        return description()

    def snapshot(self, state: dict[str, Any], viewer: str | None = None) -> dict[str, Any]:
        return snapshot(state)

    def options(self, state: dict[str, Any]) -> list[Action]:
        """The pending decision's options; for dice inputs, a few sample throws (random players and tests)."""
        p = pending(state)
        if p is None:
            return []
        if p.get("input"):
            return _sample_rolls(p["input"])
        return [o["action"] for o in p["options"]]

    def default_action(self, state: dict[str, Any]) -> Action | None:
        """The box's Next button: confirm lists and phases, pass a quickcast, pay upkeep, decline a defense or
        a counterstrike, end the acting creature's action phase."""
        p = pending(state)
        if p is None or p.get("input"):
            return None
        preferred = {"channeling": "next", "upkeep": "upkeep", "planning": "next", "deployment": "next",
                     "upkeep_cost": "pay", "act": "end_activation"}
        kind = p["kind"]
        if kind in preferred:
            return next(o["action"] for o in p["options"] if o["action"]["type"] == preferred[kind])
        if kind in ("quickcast", "defense", "counterstrike"):
            return p["options"][-1]["action"]  # pass / no defense / no counterstrike
        return None


def _sample_rolls(inp: dict[str, Any]) -> list[Action]:
    """Three throws for the dice the game waits for: all blank/low, mixed, all critical 2s/high."""
    sets = inp["sets"]
    n = sets.get("magewars-attack", 0)
    e = sets.get("d12", 0)
    out = []
    for faces, d12 in ((["blank"] * n, 1), ((["1", "2*", "blank", "2", "1*"] * n)[:n], 7), (["2*"] * n, 12)):
        dice: list[Any] = list(faces)
        if n == 0:
            dice = [d12] * e
        elif e:
            dice.append({"set": "d12", "value": d12})
        out.append({"type": "roll", "dice": dice})
    return out
