"""Values the rules stack in their own way, entered as the players read them off each card (issue 33): Aegis
and Regenerate take the highest source (reference mage-wars.md §7.1, §10), Tough adds its sources up (a
decision: the reference sets no limit), "Tough -3" may be typed as printed, and enchantments (Ward, Hex,
Curse...) are registered as what they are: attached to an object, granting values, paying upkeep (§10, U8),
leaving play with their object."""

from __future__ import annotations

import pytest
from mwhelp import RULES, act, attack_with, by_name, creature, duel, roll
from test_magewars_examples import _to_upkeep

from engine.core import IllegalAction


def _enchant(on: str, owner: str = "p2", **kw: object) -> dict[str, object]:
    return {"type": "register", "object": {"name": "Ward", "owner": owner, "kind": "enchantment", "on": on, **kw}}


def _attack_dice(s: dict) -> int:
    return RULES.snapshot(s)["attack"]["dice"]


def test_7_1_aegis_1_and_aegis_2_apply_the_highest_only():
    s = duel([creature("Orc", "p1"), creature("Target", "p2", traits={"aegis": [1, 2]})])
    s = attack_with(s, "Orc", "Target", dice=5)
    assert _attack_dice(s) == 3
    terms = RULES.snapshot(s)["attack"]["dice_terms"]
    assert {"term": "aegis", "n": -2} in terms


def test_7_1_an_enchantments_aegis_stacks_with_the_creatures_by_the_highest():
    s = duel([creature("Orc", "p1"), creature("Target", "p2", traits={"aegis": 1})])
    target = by_name(s, "Target")["id"]
    s = act(s, _enchant(target, grants={"aegis": 2}))
    view = next(o for o in RULES.snapshot(s)["objects"] if o["name"] == "Target")
    assert view["applied"]["aegis"] == 2
    assert _attack_dice(attack_with(s, "Orc", "Target", dice=5)) == 3
    s = act(s, {"type": "remove", "object": by_name(s, "Ward")["id"]})
    assert _attack_dice(attack_with(s, "Orc", "Target", dice=5)) == 4


def test_10_regenerate_1_and_regenerate_3_heal_3_in_upkeep():
    s = _to_upkeep(duel([creature("Troll", "p2", 20, damage=8, regenerate=[1, 3])]))
    s = act(s, {"type": "upkeep"})
    assert by_name(s, "Troll")["damage"] == 5


def test_10_regenerate_from_an_enchantment_counts_when_it_is_the_highest():
    s = duel([creature("Troll", "p2", 20, damage=8, regenerate=1)])
    s = act(s, _enchant(by_name(s, "Troll")["id"], grants={"regenerate": 2}))
    s = act(_to_upkeep(s), {"type": "upkeep"})
    assert by_name(s, "Troll")["damage"] == 6


@pytest.mark.parametrize("printed", [-2, 2, [-2]], ids=["as printed", "magnitude", "list"])
def test_7_4_step_2_tough_is_taken_as_printed(printed):
    """Reference §13.3 E1: Tough -2 turns an effect roll of 9 into 7, below `8+ = Daze`."""
    s = duel([creature("Orc", "p1"), creature("Target", "p2", 30, traits={"tough": printed})])
    s = roll(attack_with(s, "Orc", "Target", dice=1, effects="8+ = Daze"), ["blank"], effect=9)
    assert by_name(s, "Target")["conditions"].get("daze", 0) == 0
    assert s["last_strike"]["effect_adjusted"] == 7


def test_7_4_step_2_two_tough_sources_add_up():
    s = duel([creature("Orc", "p1"), creature("Target", "p2", 30, traits={"tough": -1})])
    s = act(s, _enchant(by_name(s, "Target")["id"], grants={"tough": -2}))
    s = roll(attack_with(s, "Orc", "Target", dice=1, effects="8+ = Daze"), ["blank"], effect=10)
    assert s["last_strike"]["effect_adjusted"] == 7


def test_13_5_U8_an_enchantment_whose_upkeep_nobody_pays_is_destroyed():
    s = duel([creature("Bear", "p1")], p2={"mana": 0, "channeling": 0})
    s = act(s, _enchant(by_name(s, "Bear")["id"], upkeep=1, grants={"aegis": 1}))
    s = act(_to_upkeep(s), {"type": "upkeep"})
    assert by_name(s, "Ward")["destroyed"]
    assert RULES.snapshot(s)["objects"][2]["applied"]["aegis"] == 0


def test_an_enchantment_leaves_play_with_its_object():
    s = duel([creature("Orc", "p1"), creature("Target", "p2", 3)])
    s = act(s, _enchant(by_name(s, "Target")["id"], owner="p1", grants={"regenerate": 1}))
    s = roll(attack_with(s, "Orc", "Target", dice=4), ["2", "2", "blank", "blank"])
    assert by_name(s, "Target")["destroyed"] and by_name(s, "Ward")["destroyed"]


@pytest.mark.parametrize("action", [
    {"type": "damage", "amount": 2}, {"type": "heal", "amount": 1},
    {"type": "condition", "condition": "burn", "change": 1}, {"type": "adjust", "field": "damage", "value": 1}])
def test_an_enchantment_has_no_life_to_damage_heal_or_mark(action):
    s = duel([creature("Bear", "p1")])
    s = act(s, _enchant(by_name(s, "Bear")["id"]))
    with pytest.raises(IllegalAction) as refused:
        act(s, {**action, "object": by_name(s, "Ward")["id"]})
    assert refused.value.code == "bad_target"


def test_an_enchantment_is_never_offered_as_an_attack_target():
    s = duel([creature("Orc", "p1", attacks=[{"name": "Claw", "dice": 2}]), creature("Wolf", "p2")])
    s = act(s, _enchant(by_name(s, "Wolf")["id"]))
    s = act(s, {"type": "activate", "object": by_name(s, "Orc")["id"]})
    labels = [o["label"] for o in RULES.snapshot(s)["pending"]["options"]]
    assert "Claw -> Wolf" in labels and not any("Ward" in label for label in labels)
    with pytest.raises(IllegalAction) as refused:
        act(s, {"type": "attack", "target": by_name(s, "Ward")["id"], "saved": "Claw"})
    assert refused.value.code == "bad_target"


@pytest.mark.parametrize("bad", [{"on": "o99"}, {"grants": {"armor": 2}}, {"grants": {"aegis": 11}},
                                 {"grants": {"aegis": [1] * 7}}])
def test_an_enchantment_that_cannot_be_is_refused(bad):
    s = duel([creature("Bear", "p1")])
    with pytest.raises(IllegalAction) as refused:
        act(s, _enchant(by_name(s, "Bear")["id"]) | {"object": {**_enchant("p1")["object"], **bad}})
    assert refused.value.code == "bad_object"


def test_a_game_saved_with_single_numbers_still_stacks():
    """Games saved before sources were kept as lists hold one number for Aegis, Tough and Regenerate."""
    s = duel([creature("Orc", "p1"), creature("Target", "p2", 20, damage=4, traits={"aegis": 2}, regenerate=2)])
    target = by_name(s, "Target")
    target["traits"]["aegis"], target["regenerate"] = 2, 2
    assert _attack_dice(attack_with(s, "Orc", "Target", dice=5)) == 3
