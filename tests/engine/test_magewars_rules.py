"""Mage Wars rules beyond the worked examples: the attack sequence's later steps (§6 steps 5-7), the pass
rule of the Action stage (§4, the seed's example), the companion's own bookkeeping actions, and refusals."""

from __future__ import annotations

import json

import pytest
from mwhelp import RULES, act, attack_with, by_name, creature, d12, duel, roll

from engine.core import IllegalAction
from engine.describe import untranslated


def test_6_step6_damage_barrier_after_a_successful_melee_attack():
    """§6 step 6: after a melee hit, the defender's barrier attacks with steps 4-5 only (no defense)."""
    s = duel([creature("Orc", "p1", 20, defenses=[{"min": 5, "uses": 2}]),
              creature("Imp", "p2", 20, barrier={"dice": 2, "type": "flame", "effects": "10+ = Burn"})])
    s = attack_with(s, "Orc", "Imp", dice=2)
    s = roll(s, ["blank", "1"])  # a hit, even a small one, triggers the barrier
    assert s["attack"]["kind"] == "barrier" and s["attack"]["step"] == "roll"  # no defense step
    assert RULES.snapshot(s)["pending"]["input"]["sets"] == {"magewars-attack": 2, "d12": 1}
    s = roll(s, ["2*", "1"], 11)
    orc = by_name(s, "Orc")
    assert orc["damage"] == 3 and orc["conditions"]["burn"] == 1
    assert s["attack"] is None


def test_6_step6_no_barrier_after_a_ranged_attack():
    s = duel([creature("Imp", "p2", 20, barrier={"dice": 2})])
    s = attack_with(s, "Wizard", "Imp", dice=2, range="ranged")
    s = roll(s, ["2", "2"])
    assert s["attack"] is None and s["objects"]["p1"]["damage"] == 0


def test_6_step5_doublestrike_barrier_triggers_once():
    s = duel([creature("Orc", "p1", 30), creature("Imp", "p2", 30, barrier={"dice": 1})])
    s = attack_with(s, "Orc", "Imp", dice=1, strikes=2)
    s = roll(s, ["1"])
    assert s["attack"]["kind"] == "attack" and s["attack"]["strike"] == 2
    s = roll(s, ["1"])
    assert s["attack"]["kind"] == "barrier"
    s = roll(s, ["2"])
    assert s["attack"] is None and by_name(s, "Orc")["damage"] == 2


def test_6_step7_counterstrike_is_offered_and_cannot_be_countered():
    s = duel([creature("Orc", "p1", 30, attacks=[{"name": "Axe", "dice": 3, "counterstrike": True}]),
              creature("Knight", "p2", 30, attacks=[{"name": "Sword", "dice": 2, "counterstrike": True}])])
    s = attack_with(s, "Orc", "Knight", dice=3)
    s = roll(s, ["blank"] * 3)
    pend = RULES.snapshot(s)["pending"]
    assert pend["kind"] == "counterstrike" and [o["label"] for o in pend["options"]] == ["Sword", "No counterstrike"]
    s = act(s, {"type": "counterstrike", "attack": 0})
    s = roll(s, ["2", "2"])
    assert by_name(s, "Orc")["damage"] == 4
    assert s["attack"] is None and not s["followups"]  # no counterstrike against a counterstrike
    assert RULES.snapshot(s)["pending"]["kind"] == "act"


def test_11_a_guarding_creature_counterstrikes_with_a_quick_melee_attack():
    s = duel([creature("Orc", "p1", 30), creature("Knight", "p2", 30, attacks=[{"name": "Sword", "dice": 2}])])
    s = act(s, {"type": "activate", "object": by_name(s, "Orc")["id"]}, {"type": "end_activation"})
    s = act(s, {"type": "activate", "object": by_name(s, "Knight")["id"]}, {"type": "guard"},
            {"type": "end_activation"})
    s = attack_with(s, "Wizard", "Knight", dice=1)
    s = roll(s, ["blank"])
    assert RULES.snapshot(s)["pending"]["kind"] == "counterstrike"
    s = act(s, {"type": "counterstrike", "attack": None})
    assert not by_name(s, "Knight")["guard"]  # and the guard marker is gone after the attack (§13.6 C6)


def test_4_pass_only_while_the_opponent_has_more_creatures_left():
    """§4 and the seed's example: A has 2 unactivated, B has 1; B may pass, then must activate."""
    s = duel([creature("Wolf", "p1")], extra={"initiative": "p2"})
    assert s["turn"] == "p2"
    s = act(s, {"type": "pass"})
    assert s["turn"] == "p1"
    s = act(s, {"type": "activate", "object": "p1"}, {"type": "end_activation"})
    assert s["turn"] == "p2"
    with pytest.raises(IllegalAction) as err:
        RULES.apply(s, {"type": "pass"})
    assert err.value.code == "must_activate"


def test_summoned_creatures_enter_activated():
    """§4: a creature summoned this round already shows a used action marker."""
    s = duel()
    s = act(s, {"type": "register", "object": {"name": "Bear", "owner": "p1", "life": 9}})
    assert by_name(s, "Bear")["activated"]


def test_a_destroyed_creature_takes_no_actions():
    s = duel([creature("Orc", "p1", 20), creature("Rat", "p2", 2)])
    s = attack_with(s, "Orc", "Rat", dice=2)
    s = roll(s, ["2", "2"])
    assert by_name(s, "Rat")["destroyed"]
    with pytest.raises(IllegalAction) as err:
        RULES.apply(s, {"type": "heal", "object": by_name(s, "Rat")["id"], "amount": 1})
    assert err.value.code == "destroyed"
    s = act(s, {"type": "end_activation"})
    assert all(o["action"].get("object") != by_name(s, "Rat")["id"] for o in RULES.snapshot(s)["pending"]["options"])


def test_quickcast_pays_mana_and_is_once_per_round():
    s = duel(p1={"mana": 5})
    s = act(s, {"type": "quickcast", "cost": 3})
    assert s["objects"]["p1"]["mana"] == 2 and not s["objects"]["p1"]["quickcast"]
    with pytest.raises(IllegalAction):
        RULES.apply(s, {"type": "quickcast", "cost": 0})


def test_removal_costs_are_paid_from_the_controllers_mana():
    """§9: removing a condition by its cost pays the number on the marker (Cripple 4)."""
    s = duel(p1={"conditions": {"cripple": 1}, "mana": 6})
    s = act(s, {"type": "condition", "object": "p1", "condition": "cripple", "change": -1, "pay": True})
    assert s["objects"]["p1"]["mana"] == 2 and s["objects"]["p1"]["conditions"]["cripple"] == 0
    with pytest.raises(IllegalAction):
        RULES.apply(duel(p1={"conditions": {"stagger": 1}}),
                    {"type": "condition", "object": "p1", "condition": "stagger", "change": -1, "pay": True})


def test_saved_attacks_are_offered_and_used_by_name():
    s = duel([creature("Orc", "p1", 20, attacks=[{"name": "Axe", "dice": 3, "effects": "10+ = Daze"}])])
    s = act(s, {"type": "activate", "object": by_name(s, "Orc")["id"]})
    labels = [o["label"] for o in RULES.snapshot(s)["pending"]["options"]]
    assert "Axe -> Warlock" in labels
    s = act(s, {"type": "attack", "saved": "Axe", "target": "p2"})
    s = roll(s, ["2", "1*", "blank"], 10)
    assert s["objects"]["p2"]["damage"] == 3 and s["objects"]["p2"]["conditions"]["daze"] == 1
    assert "3 dice: 2 1* blank -> 2 normal - 0 armor + 1 critical = 3 damage; effect 10 = 10: 1 daze" \
        in RULES.snapshot(s)["last_strike"]["text"]


@pytest.mark.parametrize("bad", [
    {"players": [{"mage": "wizard"}]},
    {"players": [{"mage": "wizard"}, {"mage": "nobody"}]},
    {"players": [{"mage": "wizard", "life": "32"}, {"mage": "druid"}]},
    {"players": [{"mage": "wizard", "life": float("nan")}, {"mage": "druid"}]},
    {"players": [{"mage": "wizard", "life": 1e300}, {"mage": "druid"}]},
    {"players": [{"mage": "wizard", "name": "\ud800"}, {"mage": "druid"}]},
    {"players": [{"mage": "wizard"}, {"mage": "druid"}], "objects": [{"name": "X", "owner": "p3", "life": 3}]},
    {"players": [{"mage": "wizard"}, {"mage": "druid"}], "initiative": "p9"},
    "not a setup",
])
def test_bad_setups_are_refused_clearly(bad):
    with pytest.raises(IllegalAction) as err:
        RULES.setup(bad, 1)
    assert err.value.code == "bad_setup" and err.value.message


@pytest.mark.parametrize("bad", [
    {"type": "attack", "target": "p2", "attack": {"dice": "3"}},
    {"type": "attack", "target": "p2", "attack": {"dice": 3, "effects": "7- = Burn"}},
    {"type": "attack", "target": "p2", "attack": {"dice": 3, "effects": "7+ = Sneeze"}},
    {"type": "attack", "target": "nobody", "attack": {"dice": 3}},
    {"type": "roll", "dice": [1, 2]},
    {"type": "defend", "defense": 0},
    {"type": "fly"},
    {"type": "mana", "object": "p1", "change": -999},
])
def test_illegal_actions_change_nothing(bad):
    s = act(duel(), {"type": "activate", "object": "p1"})
    before = json.dumps(s, sort_keys=True)
    with pytest.raises(IllegalAction) as err:
        RULES.apply(s, bad)
    assert err.value.message
    assert json.dumps(s, sort_keys=True) == before


def test_the_description_is_translated_and_reads_both_dice():
    desc = RULES.describe()
    assert untranslated(desc) == []
    assert set(desc["dice_sets"]) == {"magewars-attack", "d12"}
    assert [f["name"] for f in desc["dice_sets"]["magewars-attack"]["faces"]] == \
        ["blank", "blank", "1", "2", "1*", "2*"]
    keys = {line["key"] for line in _all_log_lines()}
    assert keys <= set(desc["texts"]), keys - set(desc["texts"])


def _all_log_lines():
    """Log lines of a short scripted duel, to check every key has words in the description."""
    s = duel([creature("Orc", "p1", 20, attacks=[{"name": "Axe", "dice": 2, "counterstrike": True}]),
              creature("Imp", "p2", 3, barrier={"dice": 1}, conditions={"burn": 1})])
    s = attack_with(s, "Orc", "Imp", dice=2, effects="1+ = Stun")
    s = roll(s, ["1", "blank"], 5)
    s = roll(s, ["1"])
    s = act(s, {"type": "end_activation"})
    lines = list(s["log"])
    s = d12(RULES.setup({"players": [{"mage": "wizard"}, {"mage": "druid"}]}, 1), 3)
    return lines + s["log"]


def test_hand_entry_numbers_are_the_attack_dies_sides():
    """The page's entry pad sends sides 1-6 of the set (describe: blank, blank, 1, 2, 1*, 2*)."""
    s = duel([creature("Rat", "p2", 20)])
    s = attack_with(s, "Wizard", "Rat", dice=4)
    assert RULES.snapshot(s)["pending"]["input"]["faces"] == [1, 2, 3, 4, 5, 6]
    s = act(s, {"type": "roll", "dice": [1, 4, 5, 6]})
    assert s["last_strike"]["faces"] == ["blank", "2", "1*", "2*"] and by_name(s, "Rat")["damage"] == 5


def test_removing_the_acting_creature_ends_its_action_phase():
    s = duel([creature("Orc", "p1", 10), creature("Wolf", "p2", 10)])
    orc = by_name(s, "Orc")
    s = act(s, {"type": "activate", "object": orc["id"]}, {"type": "remove", "object": orc["id"]})
    assert s["acting"] is None and s["turn"] == "p2"
    assert RULES.snapshot(s)["pending"]["kind"] == "activate"
