"""The worked examples of reference mage-wars.md §13, each checked through the engine as the players would
drive it (activate, attack, roll the dice read from the tray), or through the dice arithmetic where the
example is about the formula alone. Test names carry the example's id."""

from __future__ import annotations

from fractions import Fraction

import pytest
from mwhelp import RULES, act, attack_with, by_name, creature, d12, duel, roll

from engine.core import IllegalAction
from engine.magewars import dice as dm

# -- §13.1 damage ------------------------------------------------------------------------------------------
D_ROLL = ["2*", "1", "blank", "2"]
DAMAGE_CASES = [
    ("D1", D_ROLL, {"armor": 2}, {}, 3),
    ("D2", D_ROLL, {"armor": 0}, {}, 5),
    ("D3", D_ROLL, {"armor": 3}, {}, 2),
    ("D4", D_ROLL, {"armor": 5}, {}, 2),
    ("D5", D_ROLL, {"armor": 2}, {"piercing": 1}, 4),
    ("D6", D_ROLL, {"armor": 2}, {"piercing": 3}, 5),
    ("D7", D_ROLL, {"armor": 2, "traits": {"resilient": True}}, {}, 2),
    ("D8", D_ROLL, {"armor": 2}, {"critical": True}, 5),
    ("D9", D_ROLL, {"traits": {"incorporeal": True}}, {}, 1),
    ("D10", ["1*", "1", "2", "2*"], {"traits": {"incorporeal": True}}, {}, 2),
    ("D11", ["1*", "1", "2", "2*"], {"traits": {"incorporeal": True}}, {"ethereal": True}, 6),
    ("D12", ["blank"] * 4, {"armor": 0}, {}, 0),
    ("D13", ["1*"] * 3, {"armor": 10}, {}, 3),
    ("D14", ["2", "2"], {"armor": 2, "conditions": {"corrode": 2}}, {}, 4),
    ("D15", ["2*", "2*"], {"traits": {"immune": ["flame"]}}, {"type": "flame", "effects": "7+ = Burn"}, 0),
]


@pytest.mark.parametrize("case", DAMAGE_CASES, ids=[c[0] for c in DAMAGE_CASES])
def test_13_1_damage_through_an_attack(case):
    """§13.1 / §7.2: damage = max(normal - armor_eff, 0) + critical, and the traits that change it."""
    _id, faces, defender, spec, expected = case
    s = duel([creature("Orc", "p1", 20, **{"armor": 0}), creature("Target", "p2", 30, **defender)])
    s = attack_with(s, "Orc", "Target", dice=len(faces), **spec)
    s = roll(s, faces, 12 if spec.get("effects") else None)
    target = by_name(s, "Target")
    assert target["damage"] == expected
    assert s["last_strike"]["damage"] == expected
    if _id == "D15":
        assert target["conditions"].get("burn", 0) == 0  # immune: no Burn either


# -- §13.2 number of dice ----------------------------------------------------------------------------------
def test_13_2_N1_N2_weak_takes_a_die_each_but_never_below_one():
    for weak, expected in ((1, 3), (5, 1)):
        s = duel([creature("Orc", "p1", conditions={"weak": weak}), creature("Target", "p2")])
        s = attack_with(s, "Orc", "Target", dice=4)
        assert RULES.snapshot(s)["attack"]["dice"] == expected
        assert RULES.snapshot(s)["pending"]["input"]["sets"] == {"magewars-attack": expected}


def test_13_2_N3_aegis_on_the_defender():
    s = duel([creature("Orc", "p1"), creature("Target", "p2", traits={"aegis": 2})])
    s = attack_with(s, "Orc", "Target", dice=3)
    assert RULES.snapshot(s)["attack"]["dice"] == 1


@pytest.mark.parametrize("mod,expected", [(-2, 2), (2, 6)], ids=["N4-resistance", "N5-weakness"])
def test_13_2_N4_N5_damage_type_modifier(mod, expected):
    s = duel([creature("Orc", "p1"), creature("Target", "p2", traits={"type_mods": {"flame": mod}})])
    s = attack_with(s, "Orc", "Target", dice=4, type="flame")
    assert RULES.snapshot(s)["attack"]["dice"] == expected


def test_13_2_N6_melee_bonus_on_the_first_strike_only():
    s = duel([creature("Orc", "p1"), creature("Target", "p2", 40)])
    s = attack_with(s, "Orc", "Target", dice=3, strikes=2, melee_bonus=1)
    assert RULES.snapshot(s)["attack"]["dice"] == 4
    s = roll(s, ["blank"] * 4)
    assert s["attack"]["strike"] == 2
    assert RULES.snapshot(s)["attack"]["dice"] == 3
    s = roll(s, ["blank"] * 3)
    assert s["attack"] is None


def test_13_2_N7_weak_does_not_touch_attack_spells():
    s = duel([creature("Target", "p2")], p1={"conditions": {"weak": 2}})
    s = attack_with(s, "Wizard", "Target", dice=3, spell=True, range="ranged")
    assert RULES.snapshot(s)["attack"]["dice"] == 3


# -- §13.3 the effect die ----------------------------------------------------------------------------------
EFFECT_CASES = [
    ("E1", "8+ = Daze", {"traits": {"tough": 2}}, {}, 9, None),
    ("E2", "8+ = Daze", {"traits": {"tough": 2}}, {}, 10, "daze"),
    ("E3", "7+ = Burn", {"traits": {"type_mods": {"flame": -2}}}, {"type": "flame"}, 8, None),
    ("E4", "7+ = Burn", {"traits": {"type_mods": {"flame": 2}}}, {"type": "flame"}, 5, "burn"),
    ("E5", "7+ = Burn", {"traits": {"burnproof": True}}, {}, 12, None),
    ("E6", "4-8 = Daze, 9+ = Stun", {}, {}, 9, "stun"),
    ("E7", "9+ = Slam", {"traits": {"unmovable": True}}, {}, 11, "daze"),
    ("E8", "6+ = Corrode", {"armor": 0}, {}, 6, None),
    ("E9", "5+ = Bleed", {"traits": {"nonliving": True}}, {}, 10, None),
    ("E10", "7+ = Burn", {"traits": {"incorporeal": True}}, {}, 12, None),
]


@pytest.mark.parametrize("case", EFFECT_CASES, ids=[c[0] for c in EFFECT_CASES])
def test_13_3_effect_die(case):
    """§13.3 / §7.4: adjust the d12, look the range up, then place the condition unless it cannot be."""
    _id, table, defender, spec, roll_value, placed = case
    s = duel([creature("Orc", "p1"), creature("Target", "p2", 30, **defender)])
    s = attack_with(s, "Orc", "Target", dice=1, effects=table, **spec)
    s = roll(s, ["blank"] * RULES.snapshot(s)["attack"]["dice"], roll_value)
    target = by_name(s, "Target")
    shown = {k: v for k, v in target["conditions"].items() if v}
    assert shown == ({placed: 1} if placed else {})
    if _id == "E8":
        assert target["damage"] == 1  # Corrode on armor 0 becomes 1 direct acid damage
    if _id in ("E1", "E2"):
        assert s["last_strike"]["effect_adjusted"] == roll_value - 2


def test_7_4_step_3_a_closed_range_does_not_catch_values_above_it():
    """§7.4 step 3: the adjusted value must lie in a range; only an upper-open range ("9+") catches
    values above 12, so "9-12 = Stun" places nothing on 13 (issue 33, ruling 2)."""
    rows = dm.parse_effects("4-8 = Daze; 9-12 = Stun", {"daze", "stun"})
    assert dm.lookup_effect(rows, 13) is None
    assert dm.lookup_effect(rows, 12)["condition"] == "stun"
    assert dm.lookup_effect(rows, 3) is None
    open_rows = dm.parse_effects("4-8 = Daze; 9+ = Stun", {"daze", "stun"})
    assert open_rows[1]["max"] is None and dm.lookup_effect(open_rows, 14)["condition"] == "stun"


# -- §13.4 defense and Daze --------------------------------------------------------------------------------
def _defended(**target_kw):
    return duel([creature("Orc", "p1", 20),
                 creature("Target", "p2", 20, defenses=[{"min": 7, "uses": 1}], **target_kw)])


def test_13_4_F1_F2_a_used_defense_is_gone_for_the_round():
    s = attack_with(_defended(), "Orc", "Target", dice=2)
    assert s["attack"]["step"] == "defense"
    s = act(s, {"type": "defend", "defense": 0})
    s = d12(s, 7)
    assert s["attack"] is None and by_name(s, "Target")["damage"] == 0  # F1: avoided
    assert by_name(s, "Target")["defenses"][0]["used"] == 1
    # F2: a second attack this round finds no defense to use: straight to the roll
    s = act(s, {"type": "end_activation"})
    s = act(s, {"type": "activate", "object": "p2"}, {"type": "end_activation"})
    s = act(s, {"type": "register", "object": creature("Wolf", "p1", 8)})
    s = attack_with(s, "Wolf", "Target", dice=2)
    assert s["attack"]["step"] == "roll"


def test_13_4_F3_daze_takes_two_from_the_defense_roll():
    s = attack_with(_defended(conditions={"daze": 1}), "Orc", "Target", dice=2)
    s = act(s, {"type": "defend", "defense": 0})
    s = d12(s, 8)
    assert s["attack"]["step"] == "roll"  # 8 - 2 = 6 < 7: the defense fails


def test_13_4_F4_restrained_takes_two():
    s = attack_with(_defended(conditions={"cripple": 1}), "Orc", "Target", dice=2)
    s = act(s, {"type": "defend", "defense": 0})
    s = d12(s, 9)
    assert s["attack"] is None  # 9 - 2 = 7: avoided


def test_13_4_F5_no_defense_against_unavoidable():
    s = attack_with(_defended(), "Orc", "Target", dice=2, unavoidable=True)
    assert s["attack"]["step"] == "roll"
    with pytest.raises(IllegalAction):
        RULES.apply(s, {"type": "defend", "defense": 0})


def test_13_4_F6_dazed_attacker_misses_no_barrier_but_counterstrike():
    s = duel([creature("Orc", "p1", 20, conditions={"daze": 1}),
              creature("Guard", "p2", 20, barrier={"dice": 2, "type": "flame"},
                       attacks=[{"name": "Bite", "dice": 2, "counterstrike": True}])])
    s = attack_with(s, "Orc", "Guard", dice=3)
    assert s["attack"]["step"] == "daze"
    s = d12(s, 6)
    assert s["attack"] is None
    assert by_name(s, "Guard")["damage"] == 0
    pend = RULES.snapshot(s)["pending"]
    assert pend["kind"] == "counterstrike" and pend["player"] == "p2"  # no barrier, a counterstrike offered
    s = act(s, {"type": "counterstrike", "attack": 0})
    s = roll(s, ["2", "2"])
    assert by_name(s, "Orc")["damage"] == 4


def test_13_4_F7_F8_daze_even_against_unavoidable_and_seven_goes_on():
    s = duel([creature("Orc", "p1", 20, conditions={"daze": 2}), creature("Target", "p2", 20)])
    s7 = attack_with(s, "Orc", "Target", dice=2, unavoidable=True)
    assert d12(s7, 5)["attack"] is None  # F7: misses anyway
    s8 = d12(s7, 7)
    assert s8["attack"]["step"] == "roll"  # F8: goes on


# -- §13.5 upkeep and life -----------------------------------------------------------------------------------
def _to_upkeep(s):
    """On to the next round's upkeep list (or its planning, when the list is empty): everyone activates,
    nobody quickcasts."""
    start = s["round"]
    for _ in range(200):
        if s["round"] > start and (s["phase"] == "planning" or s["phase"] == "upkeep" and s["step"] is None):
            return s
        action = RULES.default_action(s)
        s = act(s, action if action is not None else RULES.options(s)[0])
    raise AssertionError("the round did not end")


def test_13_5_U1_U2_burn_rolls():
    s = _to_upkeep(duel(p2={"conditions": {"burn": 2}}))
    s = act(s, {"type": "upkeep"})
    pend = RULES.snapshot(s)["pending"]
    assert pend["kind"] == "burn_roll" and pend["input"]["sets"] == {"magewars-attack": 2}
    s = roll(s, ["blank", "2*"])
    mage = s["objects"]["p2"]
    assert mage["conditions"]["burn"] == 1 and mage["damage"] == 2  # U1
    s = _to_upkeep(s)
    s = act(s, {"type": "upkeep"})
    s = roll(s, ["1"])
    assert s["objects"]["p2"]["conditions"]["burn"] == 1 and s["objects"]["p2"]["damage"] == 3  # U2


def test_13_5_U3_U4_rot_and_bleed():
    s = _to_upkeep(duel([creature("Troll", "p2", 20, damage=5, conditions={"bleed": 2})],
                        p1={"conditions": {"rot": 3}}))
    s = act(s, {"type": "upkeep"})
    assert s["objects"]["p1"]["damage"] == 3
    assert by_name(s, "Troll")["damage"] == 7
    assert s["phase"] == "planning"


def test_13_5_U5_healing_cancels_bleed():
    s = duel([creature("Troll", "p2", 20, damage=7, conditions={"bleed": 2})])
    troll = by_name(s, "Troll")
    s = act(s, {"type": "heal", "object": troll["id"], "amount": 3, "cancel_bleed": 2})
    assert by_name(s, "Troll")["damage"] == 6 and by_name(s, "Troll")["conditions"]["bleed"] == 0


@pytest.mark.parametrize("nonliving,after", [(False, 3), (True, 5)], ids=["U6", "U7"])
def test_13_5_U6_U7_regenerate_and_finite_life(nonliving, after):
    traits = {"nonliving": True} if nonliving else {}
    s = _to_upkeep(duel([creature("Troll", "p2", 20, damage=5, regenerate=2, traits=traits)]))
    if s["phase"] == "upkeep":  # Finite Life: no Regenerate item, so no list to resolve at all
        s = act(s, {"type": "upkeep"})
    assert by_name(s, "Troll")["damage"] == after


def test_13_5_U8_unpayable_upkeep_destroys():
    s = _to_upkeep(duel([creature("Aura", "p2", 5, kind="conjuration", upkeep=1)], p2={"mana": 0, "channeling": 0}))
    s = act(s, {"type": "upkeep"})
    assert by_name(s, "Aura")["destroyed"]


def test_13_5_upkeep_cost_is_a_choice_when_payable():
    s = _to_upkeep(duel([creature("Aura", "p2", 5, kind="conjuration", upkeep=1)]))
    s = act(s, {"type": "upkeep"})
    pend = RULES.snapshot(s)["pending"]
    assert pend["kind"] == "upkeep_cost" and pend["player"] == "p2"
    mana = s["objects"]["p2"]["mana"]
    s = act(s, {"type": "pay", "pay": True})
    assert s["objects"]["p2"]["mana"] == mana - 1 and not by_name(s, "Aura")["destroyed"]


def test_13_5_U9_dissipate_three_upkeeps():
    s = _to_upkeep(duel([creature("Cloud", "p1", 5, kind="conjuration", dissipate=3)]))
    for left in (2, 1):
        s = act(s, {"type": "upkeep"})
        assert by_name(s, "Cloud")["dissipate"] == left and not by_name(s, "Cloud")["destroyed"]
        s = _to_upkeep(s)
    s = act(s, {"type": "upkeep"})
    assert by_name(s, "Cloud")["destroyed"]


def test_13_5_U10_channeling():
    s = _to_upkeep(duel(p1={"mana": 3}))
    assert s["objects"]["p1"]["mana"] == 13


def test_13_5_U11_tainted_counts_three_and_is_not_healed():
    s = duel([creature("Troll", "p2", 10, damage=4, conditions={"tainted": 1})])
    troll = by_name(s, "Troll")
    s = act(s, {"type": "heal", "object": troll["id"], "amount": 5})
    snap = {o["name"]: o for o in RULES.snapshot(s)["objects"]}
    assert snap["Troll"]["damage"] == 0 and snap["Troll"]["effective_damage"] == 3 and snap["Troll"]["left"] == 7


def test_13_5_U12_freeze_on_living():
    s = duel([creature("Troll", "p2", 8, damage=3, conditions={"freeze": 2})])
    snap = {o["name"]: o for o in RULES.snapshot(s)["objects"]}
    assert snap["Troll"]["effective_damage"] == 7 and snap["Troll"]["left"] == 1


def test_13_5_U13_freeze_and_burn_cancel():
    s = duel([creature("Troll", "p2", 8, conditions={"freeze": 2})])
    troll = by_name(s, "Troll")
    s = act(s, {"type": "condition", "object": troll["id"], "condition": "burn", "change": 1})
    assert {k: v for k, v in by_name(s, "Troll")["conditions"].items() if v} == {"freeze": 1}


def test_13_5_U14_a_mage_at_its_life_loses():
    s = duel(p2={"mage": "wizard", "damage": 30})
    s = act(s, {"type": "damage", "object": "p2", "amount": 2})
    assert s["objects"]["p2"]["destroyed"] and s["winner"] == "p1" and s["phase"] == "over"
    assert RULES.snapshot(s)["pending"] is None


# -- §13.6 conditions over time ------------------------------------------------------------------------------
def test_13_6_C1_stun_leaves_at_the_end_of_its_action_phase():
    s = duel([creature("Orc", "p1", conditions={"stun": 2})])
    s = act(s, {"type": "activate", "object": by_name(s, "Orc")["id"]})
    with pytest.raises(IllegalAction) as err:
        RULES.apply(s, {"type": "attack", "target": "p2", "attack": {"dice": 2}})
    assert err.value.code == "incapacitated"
    s = act(s, {"type": "end_activation"})
    assert by_name(s, "Orc")["conditions"]["stun"] == 0


def test_13_6_C2_slam_becomes_daze_on_activation_and_stays_through_it():
    s = duel([creature("Orc", "p1", conditions={"slam": 1})])
    s = act(s, {"type": "activate", "object": by_name(s, "Orc")["id"]})
    assert by_name(s, "Orc")["conditions"] == {"slam": 0, "daze": 1}
    s = act(s, {"type": "end_activation"})
    assert by_name(s, "Orc")["conditions"]["daze"] == 1  # §14 item 7: until its next action phase ends


def test_13_6_C3_damage_wakes_a_sleeper_into_daze():
    s = duel([creature("Orc", "p2", 10, conditions={"sleep": 1})])
    s = act(s, {"type": "damage", "object": by_name(s, "Orc")["id"], "amount": 1})
    orc = by_name(s, "Orc")
    assert orc["conditions"]["sleep"] == 0 and orc["conditions"]["daze"] == 1


def test_13_6_C4_escape_rolls():
    s = duel([creature("Orc", "p1", conditions={"cripple": 2})])
    s = act(s, {"type": "activate", "object": by_name(s, "Orc")["id"]}, {"type": "end_activation"})
    pend = RULES.snapshot(s)["pending"]
    assert pend["kind"] == "escape_roll" and pend["input"]["sets"] == {"d12": 2}
    s = d12(s, 7, 4)
    assert by_name(s, "Orc")["conditions"]["cripple"] == 1 and s["acting"] is None


def test_13_6_C5_teleport_removes_stuck():
    s = duel([creature("Orc", "p1", conditions={"stuck": 2})])
    s = act(s, {"type": "teleport", "object": by_name(s, "Orc")["id"]})
    assert by_name(s, "Orc")["conditions"]["stuck"] == 0


def test_13_6_C6_guard_goes_after_a_melee_attack_on_it():
    s = duel([creature("Orc", "p1", 20), creature("Knight", "p2", 20)])
    s = act(s, {"type": "activate", "object": by_name(s, "Orc")["id"]}, {"type": "end_activation"})
    s = act(s, {"type": "activate", "object": by_name(s, "Knight")["id"]}, {"type": "guard"},
            {"type": "end_activation"})
    assert by_name(s, "Knight")["guard"]
    s = attack_with(s, "Wizard", "Knight", dice=1)
    s = roll(s, ["blank"])
    assert not by_name(s, "Knight")["guard"]


def test_13_6_C7_guard_goes_when_activated():
    s = duel([creature("Knight", "p1", 20)])
    knight = by_name(s, "Knight")
    s = act(s, {"type": "activate", "object": knight["id"]}, {"type": "guard"}, {"type": "end_activation"})
    assert by_name(s, "Knight")["guard"]
    s = _to_upkeep(s)
    while s["phase"] != "actions":
        s = act(s, RULES.default_action(s))
    s = act(s, {"type": "activate", "object": "p2"}, {"type": "end_activation"})  # round 2: p2 first
    assert by_name(s, "Knight")["guard"]
    s = act(s, {"type": "activate", "object": knight["id"]})
    assert not by_name(s, "Knight")["guard"]


# -- §13.7 damage distributions ------------------------------------------------------------------------------
@pytest.mark.parametrize("n,armor,probs", [
    (1, 0, ["1/3", "1/3", "1/3"]),
    (2, 0, ["1/9", "2/9", "1/3", "2/9", "1/9"]),
    (3, 0, ["1/27", "1/9", "2/9", "7/27", "2/9", "1/9", "1/27"]),
    (3, 2, ["19/108", "13/54", "11/36", "37/216", "19/216", "1/72", "1/216"]),
])
def test_13_7_damage_distributions(n, armor, probs):
    dist = dm.damage_distribution(n, {}, {"armor": armor, "traits": {}, "conditions": {}})
    assert [dist[k] for k in range(len(probs))] == [Fraction(p) for p in probs]
    if (n, armor) == (3, 2):
        assert sum(k * p for k, p in dist.items()) == Fraction(49, 27)


# -- §13.8 round flow ----------------------------------------------------------------------------------------
def test_13_8_round_flow_initiative_alternates():
    s = RULES.setup({"players": [{"name": "A", "mage": "wizard"}, {"name": "B", "mage": "warlock"}]}, 7)
    s = d12(s, 9)
    s = d12(s, 4)
    assert s["initiative"] == "p1" and s["phase"] == "channeling"
    s = act(s, {"type": "next"})
    assert s["objects"]["p1"]["mana"] == 20  # §3: a channeling-10 mage plans round 1 with 20 mana
    assert s["phase"] == "planning"
    s = act(s, {"type": "next"}, {"type": "next"})
    assert s["phase"] == "first_quickcast" and RULES.snapshot(s)["pending"]["player"] == "p1"
    s = act(s, {"type": "quickcast", "use": False})
    assert RULES.snapshot(s)["pending"]["player"] == "p2"
    s = act(s, {"type": "quickcast", "use": False})
    assert s["phase"] == "actions" and s["turn"] == "p1"
    s = act(s, {"type": "activate", "object": "p1"}, {"type": "end_activation"})
    assert s["turn"] == "p2"
    s = act(s, {"type": "activate", "object": "p2"}, {"type": "end_activation"})
    assert s["phase"] == "final_quickcast" and RULES.snapshot(s)["pending"]["player"] == "p1"
    s = act(s, {"type": "quickcast", "use": False}, {"type": "quickcast", "use": False})
    assert s["round"] == 2 and s["initiative"] == "p2" and s["phase"] == "channeling"


def test_initiative_ties_roll_again():
    """§3 [AMBIGUOUS], recommended: a tied initiative roll is rolled again."""
    s = RULES.setup({"players": [{"mage": "wizard"}, {"mage": "druid"}]}, 7)
    s = d12(s, 5)
    s = d12(s, 5)
    assert s["phase"] == "initiative_roll" and s["init_rolls"] == {"p1": None, "p2": None}


@pytest.mark.parametrize("attack", [{"type": "acid"}, {"type": "acid", "ethereal": True}],
                         ids=["acid", "ethereal acid"])
def test_7_4_step_4_corrode_cannot_affect_an_incorporeal_creature(attack):
    """§7.4 step 4 before step 5, §9 Corrode "cannot affect: Incorporeal": an acid attack's 6+ = Corrode on an
    Incorporeal creature with armor 0 places nothing and deals no acid damage, even from an Ethereal attack
    (which Incorporeal does not otherwise ignore) (issue 33, ruling 1)."""
    s = duel([creature("Orc", "p1"), creature("Ghost", "p2", 30, traits={"incorporeal": True})])
    s = attack_with(s, "Orc", "Ghost", dice=1, effects="6+ = Corrode", **attack)
    s = roll(s, ["blank"] * RULES.snapshot(s)["attack"]["dice"], 9)
    ghost = by_name(s, "Ghost")
    assert not {k: v for k, v in ghost["conditions"].items() if v} and ghost["damage"] == 0


def test_10_destruction_is_checked_when_a_condition_raises_effective_damage():
    """§10 life accounting (effective damage = damage + 3 x Tainted + 2 x Freeze on a Living object) and §7.2:
    a Living creature with life 10 and 6 damage takes 2 damage and then a Freeze from the attack's effect:
    effective damage 10 reaches its life, so it is destroyed, though the Freeze dealt no damage itself; it
    cannot activate any more (issue 33, ruling 3)."""
    s = duel([creature("Orc", "p1", 20), creature("Deer", "p2", 10, damage=6)])
    s = attack_with(s, "Orc", "Deer", dice=1, effects="1+ = Freeze")
    s = roll(s, ["2"], 5)
    deer = by_name(s, "Deer")
    assert deer["conditions"].get("freeze") == 1 and deer["damage"] == 8
    assert deer["destroyed"], "effective damage 10 of life 10 leaves nothing on the table"
    with pytest.raises(IllegalAction):
        RULES.apply(s, {"type": "activate", "object": deer["id"]})


@pytest.mark.parametrize("marker", ["cripple", "stuck"])
def test_9_a_restrained_creature_waiting_for_its_escape_roll_cannot_attack(marker):
    """§9 Cripple / Stuck: the escape rolls come at the end of the creature's action phase. Once it has ended
    its activation and only the escape roll is left, it cannot declare an attack any more (issue 33,
    ruling 4); the escape roll then closes the activation as before."""
    s = duel([creature("Orc", "p1", 20, conditions={marker: 1}), creature("Target", "p2", 20)])
    orc = by_name(s, "Orc")
    s = act(s, {"type": "activate", "object": orc["id"]}, {"type": "end_activation"})
    assert s["step"] == "escape"
    with pytest.raises(IllegalAction) as err:
        RULES.apply(s, {"type": "attack", "target": by_name(s, "Target")["id"], "attack": {"name": "Bite", "dice": 2}})
    assert err.value.code == "activation_over"
    s = d12(s, 8)
    assert s["step"] != "escape" and not by_name(s, "Orc")["conditions"].get(marker)
