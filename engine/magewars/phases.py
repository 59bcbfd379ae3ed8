"""The round of reference §4: the Ready stage run for the players (initiative, reset, channeling, upkeep as a
list they confirm), planning and deployment left to them, quickcast windows in initiative order, and
alternating activations with the pass rule, the end-of-action-phase steps and escape rolls.
"""

from __future__ import annotations

from typing import Any

from ..core import require
from ..kernel import player_ids
from . import dice as dm
from .attack import ESCAPE_MIN
from .stacking import applied
from .state import (
    CREATURE_KINDS,
    deal_damage,
    drop_orphans,
    finite_life,
    live,
    log,
    mage_of,
    obj,
    other,
    settle_victory,
    unactivated,
)

# Phases in round order; `initiative_roll` comes once before round 1 and `over` after the end.
ROUND = ("initiative", "reset", "channeling", "upkeep", "planning", "deployment", "first_quickcast", "actions",
         "final_quickcast")


def order_players(s: dict[str, Any]) -> list[str]:
    """The initiative player first (§11)."""
    first = s["initiative"]
    return [first, other(s, first)]


# -- the initiative roll (§3 step 7) -----------------------------------------------------------------------
def on_initiative_roll(s: dict[str, Any], pid: str, value: int) -> None:
    s["init_rolls"][pid] = value
    log(s, "log.init_roll", player=pid, roll=value)
    rolls = s["init_rolls"]
    if any(v is None for v in rolls.values()):
        return
    a, b = player_ids(s)
    if rolls[a] == rolls[b]:  # ties roll again (§3 [AMBIGUOUS], recommended)
        s["init_rolls"] = {a: None, b: None}
        log(s, "log.init_tie", roll=rolls[a])
        return
    s["initiative"] = a if rolls[a] > rolls[b] else b
    log(s, "log.initiative", player=s["initiative"])
    # Round 1 skips the Initiative, Reset and Upkeep steps: it starts at Channeling (§3 [AMBIGUOUS]).
    enter(s, "channeling")


def roller(s: dict[str, Any]) -> str | None:
    """Who rolls next for the initiative: the first player without a roll."""
    return next((pid for pid, v in s["init_rolls"].items() if v is None), None)


# -- entering phases --------------------------------------------------------------------------------------
def enter(s: dict[str, Any], phase: str) -> None:
    """Enter a phase and do its automatic part; phases with nothing for players to decide pass by themselves."""
    s["phase"] = phase
    s["step"] = None
    log(s, "log.phase", phase=phase, round=s["round"])
    if phase == "initiative":
        s["initiative"] = other(s, s["initiative"])  # the marker passes (§4 step 1)
        log(s, "log.initiative", player=s["initiative"])
        enter(s, "reset")
    elif phase == "reset":
        for o in live(s):
            o["activated"] = False
            o["attacked"] = False
            if o["kind"] == "mage":
                o["quickcast"] = True
            for d in o["defenses"]:
                d["used"] = 0
        enter(s, "channeling")
    elif phase == "channeling":
        s["list"] = channeling_list(s)
    elif phase == "upkeep":
        s["list"] = upkeep_list(s)
        s["list_index"] = 0
        if not s["list"]:
            enter(s, "planning")
    elif phase in ("first_quickcast", "final_quickcast"):
        s["quickcast_turns"] = [pid for pid in order_players(s) if mage_of(s, pid)["quickcast"]
                                and not mage_of(s, pid)["destroyed"]]
        if not s["quickcast_turns"]:
            _after_quickcast(s)
    elif phase == "actions":
        s["turn"] = s["initiative"]
        s["acting"] = None
        _next_turn(s, keep=True)


def next_phase(s: dict[str, Any]) -> None:
    """The `next` action: leave a phase whose work is the players' (planning, deployment) or confirm the
    channeling list."""
    phase = s["phase"]
    if phase == "channeling":
        apply_channeling(s)
        enter(s, "upkeep")
    elif phase == "planning":
        enter(s, "deployment")
    elif phase == "deployment":
        enter(s, "first_quickcast")
    else:
        require(False, "not_now", "This phase ends by itself when its decisions are made.")


def _after_quickcast(s: dict[str, Any]) -> None:
    if s["phase"] == "first_quickcast":
        enter(s, "actions")
    else:
        s["round"] += 1
        enter(s, "initiative")


def on_quickcast(s: dict[str, Any], pid: str, use: bool, cost: int) -> None:
    """Use or keep the quickcast marker (§4 steps 7 and 9, §11); a used marker may pay the spell's mana."""
    mage = mage_of(s, pid)
    if use:
        require(mage["quickcast"], "quickcast_used", f"{mage['name']} has already used its quickcast marker.")
        require(mage["mana"] >= cost, "no_mana", f"{mage['name']} has {mage['mana']} mana, not {cost}.")
        mage["quickcast"] = False
        mage["mana"] -= cost
        log(s, "log.quickcast", player=pid, name=mage["id"], cost=cost)
    else:
        log(s, "log.quickcast_pass", player=pid, name=mage["id"])
    if s["phase"] in ("first_quickcast", "final_quickcast"):
        s["quickcast_turns"].remove(pid)
        if not s["quickcast_turns"]:
            _after_quickcast(s)


# -- channeling and upkeep (§4 steps 3-4, §10) ---------------------------------------------------------------
def channeling_list(s: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"kind": "channeling", "object": o["id"], "amount": o["channeling"]}
            for pid in order_players(s) for o in live(s, pid) if o["channeling"] > 0]


def apply_channeling(s: dict[str, Any]) -> None:
    for item in s["list"]:
        o = s["objects"][item["object"]]
        o["mana"] += item["amount"]
        log(s, "log.channel", name=o["id"], amount=item["amount"], mana=o["mana"])
    s["list"] = []


def upkeep_list(s: dict[str, Any]) -> list[dict[str, Any]]:
    """Every upkeep effect, initiative player's objects first; per object Regenerate first (the reference's
    recommended default, §10), then Burn, Rot, Bleed, Dissipate and upkeep costs."""
    items: list[dict[str, Any]] = []
    for pid in order_players(s):
        for o in live(s, pid):
            c = o["conditions"]
            regenerate = applied(s, o)["regenerate"]  # the highest of its sources (§10)
            if regenerate and not finite_life(o):
                items.append({"kind": "regenerate", "object": o["id"], "amount": regenerate})
            if c.get("burn"):
                items.append({"kind": "burn", "object": o["id"], "amount": c["burn"]})
            if c.get("rot"):
                items.append({"kind": "rot", "object": o["id"], "amount": c["rot"]})
            if c.get("bleed"):
                items.append({"kind": "bleed", "object": o["id"], "amount": c["bleed"]})
            if o["dissipate"] is not None:
                items.append({"kind": "dissipate", "object": o["id"], "amount": 1})
            if o["upkeep_cost"]:
                items.append({"kind": "upkeep_cost", "object": o["id"], "amount": o["upkeep_cost"]})
    for item in items:
        item["done"] = False
    return items


def upkeep_waiting(s: dict[str, Any]) -> dict[str, Any] | None:
    """The upkeep item that waits for the players (burn dice or an upkeep payment), once started."""
    if s["phase"] != "upkeep" or s["step"] != "upkeep":
        return None
    return s["list"][s["list_index"]] if s["list_index"] < len(s["list"]) else None


def start_upkeep(s: dict[str, Any]) -> None:
    """The players confirmed the list: resolve it in order until an item needs dice or a choice."""
    require(s["phase"] == "upkeep" and s["step"] is None, "not_now", "The upkeep list is not waiting to start.")
    s["step"] = "upkeep"
    run_upkeep(s)


def run_upkeep(s: dict[str, Any]) -> None:
    while s["list_index"] < len(s["list"]):
        item = s["list"][s["list_index"]]
        o = s["objects"][item["object"]]
        drop_orphans(s)  # an enchantment whose object fell earlier in this upkeep has left play with it
        if o["destroyed"]:
            item["done"] = True
            item["result"] = "destroyed"
        elif item["kind"] in ("burn", "upkeep_cost") and not _upkeep_cost_automatic(s, item, o):
            return  # waits for burn dice or for the controller's choice to pay
        else:
            _resolve_item(s, item, o)
        s["list_index"] += 1
    settle_victory(s)  # both mages can fall in one upkeep: a draw (§7.2)
    if s["winner"] is None:
        enter(s, "planning")


def _upkeep_cost_automatic(s: dict[str, Any], item: dict[str, Any], o: dict[str, Any]) -> bool:
    """An upkeep cost nobody can pay destroys the object without asking (§13.5 U8)."""
    if item["kind"] != "upkeep_cost":
        return False
    return mage_of(s, o["owner"])["mana"] < item["amount"]


def _resolve_item(s: dict[str, Any], item: dict[str, Any], o: dict[str, Any]) -> None:
    kind = item["kind"]
    if kind == "regenerate":
        healed = min(item["amount"], o["damage"])
        o["damage"] -= healed
        item["result"] = healed
        log(s, "log.regenerate", name=o["id"], amount=healed)
    elif kind in ("rot", "bleed"):
        deal_damage(s, o, item["amount"], kind, settle=False)
        item["result"] = item["amount"]
    elif kind == "dissipate":
        o["dissipate"] -= 1
        item["result"] = o["dissipate"]
        log(s, "log.dissipate", name=o["id"], left=o["dissipate"])
        if o["dissipate"] <= 0:
            _destroy(s, o)
    elif kind == "upkeep_cost":
        item["result"] = "unpaid"
        log(s, "log.upkeep_unpaid", name=o["id"], amount=item["amount"])
        _destroy(s, o)
    item["done"] = True


def _destroy(s: dict[str, Any], o: dict[str, Any]) -> None:
    o["destroyed"] = True
    o["guard"] = False
    log(s, "log.destroyed", name=o["id"])


def on_burn_roll(s: dict[str, Any], faces: list[str]) -> None:
    """Burn (§9, §13.5 U1-U2): per marker, blank removes it; 1 or 2 (critical or not) is direct damage."""
    item = s["list"][s["list_index"]]
    o = s["objects"][item["object"]]
    points = [dm.FACES[f][0] for f in faces]
    removed = points.count(0)
    o["conditions"]["burn"] -= removed
    log(s, "log.burn", name=o["id"], faces=" ".join(faces), removed=removed, damage=sum(points))
    deal_damage(s, o, sum(points), "flame", settle=False)
    item.update(done=True, result={"faces": faces, "removed": removed, "damage": sum(points)})
    s["list_index"] += 1
    run_upkeep(s)


def on_upkeep_pay(s: dict[str, Any], pay: bool) -> None:
    item = s["list"][s["list_index"]]
    o = s["objects"][item["object"]]
    if pay:
        mage = mage_of(s, o["owner"])
        mage["mana"] -= item["amount"]
        item.update(done=True, result="paid")
        log(s, "log.upkeep_paid", name=o["id"], amount=item["amount"], mana=mage["mana"])
    else:
        _resolve_item(s, item, o)
    s["list_index"] += 1
    run_upkeep(s)


# -- activations (§4 step 8, §9 end-of-action-phase effects) --------------------------------------------------
def _next_turn(s: dict[str, Any], keep: bool = False) -> None:
    """Whose turn it is to activate next; the Action stage ends when every creature has acted."""
    if not keep:
        s["turn"] = other(s, s["turn"])
    if not unactivated(s, s["turn"]):
        s["turn"] = other(s, s["turn"])
    if not unactivated(s, s["turn"]):
        log(s, "log.actions_end")
        enter(s, "final_quickcast")


def may_pass(s: dict[str, Any], pid: str) -> bool:
    """A player may pass only while the opponent has more unactivated creatures (§4, the seed's example)."""
    return len(unactivated(s, other(s, pid))) > len(unactivated(s, pid))


def activate(s: dict[str, Any], oid: Any) -> None:
    o = obj(s, oid)
    require(o["owner"] == s["turn"], "not_your_turn", "It is the other player's turn to activate a creature.")
    require(o["kind"] in CREATURE_KINDS and not o["activated"], "already_activated",
            f"{o['name']} has already been activated this round.")
    o["activated"] = True
    o["attacked"] = False
    o["daze_gained"] = 0
    o["guard"] = False  # the guard marker goes when the creature is activated (§11, §13.6 C7)
    s["acting"] = o["id"]
    log(s, "log.activate", name=o["id"], player=o["owner"])
    if o["conditions"].get("slam"):  # Slam becomes one Daze on activation (§9, §13.6 C2)
        o["conditions"]["slam"] = 0
        o["conditions"]["daze"] = o["conditions"].get("daze", 0) + 1
        o["daze_gained"] = 1  # kept to the end of its next action phase (§14 item 7, recommended)
        log(s, "log.slam_daze", name=o["id"])


def pass_turn(s: dict[str, Any], pid: str) -> None:
    require(may_pass(s, pid), "must_activate",
            "You must activate a creature: the opponent does not have more unactivated creatures.")
    log(s, "log.pass", player=pid)
    _next_turn(s)


def end_activation(s: dict[str, Any]) -> None:
    """End of the acting creature's action phase: escape rolls first when it is Crippled or Stuck."""
    o = s["objects"][s["acting"]]
    markers = o["conditions"].get("cripple", 0) + o["conditions"].get("stuck", 0)
    if markers and not o["destroyed"]:
        s["step"] = "escape"
        return
    close_activation(s)


def escape_count(s: dict[str, Any]) -> int:
    o = s["objects"][s["acting"]]
    return o["conditions"].get("cripple", 0) + o["conditions"].get("stuck", 0)


def on_escape_roll(s: dict[str, Any], values: list[int]) -> None:
    """One escape roll per Cripple then Stuck marker: 7+ removes that marker (§9, §13.6 C4)."""
    o = s["objects"][s["acting"]]
    c = o["conditions"]
    kinds = ["cripple"] * c.get("cripple", 0) + ["stuck"] * c.get("stuck", 0)
    for kind, value in zip(kinds, values, strict=True):
        if value >= ESCAPE_MIN:
            c[kind] -= 1
    log(s, "log.escape", name=o["id"], rolls=" ".join(map(str, values)),
        left=c.get("cripple", 0) + c.get("stuck", 0))
    s["step"] = None
    close_activation(s)


def close_activation(s: dict[str, Any]) -> None:
    o = s["objects"][s["acting"]]
    c = o["conditions"]
    if not o["destroyed"]:
        if c.get("stun"):
            c["stun"] = 0  # Stun: all removed at the end of its action phase (§13.6 C1)
        if c.get("daze"):
            c["daze"] = min(c["daze"], o.get("daze_gained", 0))  # Daze gained during this phase stays
        if c.get("freeze"):
            c["freeze"] -= 1  # one Freeze leaves at the end of each activation (§9)
    o["daze_gained"] = 0
    log(s, "log.activation_end", name=o["id"])
    s["acting"] = None
    settle_victory(s)
    if s["winner"] is None:
        _next_turn(s)
