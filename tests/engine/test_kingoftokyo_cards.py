"""Every power card's effect as the rules automate it (reference §12.3; §12.2 for the seven the seed prints).
Each test names its card. Setups start at p1's turn with p2 holding Tokyo City unless said otherwise."""

from __future__ import annotations

import pytest
from kothelp import R, act, answer, end, faces, game, p, turn

from engine.core import IllegalAction
from engine.kingoftokyo import state as st


def buy(s: dict, card: str, energy: int = 20, **p1: object) -> dict:
    """p1 (outside, `energy`) buys `card` from the market after a roll that does nothing."""
    fillers = [c for c in ("heal", "tank", "corner_store") if c != card][:2]
    s = game({"energy": energy, **p1}, {"location": "city"}, {}, market=[card, *fillers])
    return act(turn(s, "1 1 2 2 3 3"), {"type": "buy", "slot": 0})


# -- discard cards -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("card", "vp", "energy_left", "health"), [
    ("apartment_building", 3, 15, 10), ("commuter_train", 2, 16, 10), ("corner_store", 1, 17, 10),
    ("skyscraper", 4, 14, 10), ("energize", 0, 12 + 9, 10), ("jet_fighters", 5, 15, 6),
    ("national_guard", 2, 17, 8), ("tank", 4, 16, 7), ("nuclear_power_plant", 2, 14, 10), ("heal", 0, 17, 8),
])
def test_discard_cards_on_the_buyer(card: str, vp: int, energy_left: int, health: int) -> None:
    start = 6 if card == "heal" else (7 if card == "nuclear_power_plant" else 10)
    s = buy({}, card, health=start)
    a = p(s, "p1")
    assert (a["vp"], a["energy"], a["health"]) == (vp, energy_left, health)
    assert card in s["discard"] and all(c["id"] != card for c in a["cards"])


@pytest.mark.parametrize(("card", "others_health", "self_health"), [
    ("flame_thrower", 8, 10), ("gas_refinery", 7, 10), ("high_altitude_bombing", 7, 7)])
def test_discard_cards_that_hurt(card: str, others_health: int, self_health: int) -> None:
    s = buy({}, card)
    assert p(s, "p2")["health"] == others_health and p(s, "p3")["health"] == others_health
    assert p(s, "p1")["health"] == self_health and s["pending"] is None  # card damage: nobody may yield


def test_evacuation_orders_and_vast_storm() -> None:
    s = game({"energy": 20}, {"location": "city", "vp": 3, "energy": 5}, {"vp": 7, "energy": 1},
             market=["evacuation_orders", "vast_storm", "tank"])
    s = act(turn(s, "1 1 2 2 3 3"), {"type": "buy", "slot": 0})
    assert (p(s, "p2")["vp"], p(s, "p3")["vp"]) == (0, 2)
    s = act(s, {"type": "buy", "slot": 1})
    assert (p(s, "p2")["energy"], p(s, "p3")["energy"], p(s, "p1")["vp"]) == (3, 1, 2)


def test_frenzy_ends_the_turn_and_gives_another() -> None:
    s = buy({}, "frenzy", poison=1)
    assert s["active"] == 0 and s["phase"] == "roll" and s["turn"] == 2
    assert p(s, "p1")["health"] == 10  # the turn ended at once: no end-of-turn Poison


# -- keep cards: dice and claws ------------------------------------------------------------------------------
@pytest.mark.parametrize(("card", "dice", "claws"), [
    ("acid_attack", "1 1 2 2 3 3", 1), ("spiked_tail", "C 1 2 2 3 3", 2), ("spiked_tail", "1 1 2 2 3 3", 0),
    ("poison_quills", "2 2 2 1 3 E", 2),
])
def test_extra_claws_from_outside(card: str, dice: str, claws: int) -> None:
    s = turn(game({"cards": [card]}, {"location": "city"}), dice)
    assert p(s, "p2")["health"] == 10 - claws


@pytest.mark.parametrize(("card", "dice", "claws"), [("urbavore", "C 1 2 2 3 3", 2), ("burrowing", "1 1 2 2 3 E", 1)])
def test_extra_claws_in_tokyo(card: str, dice: str, claws: int) -> None:
    s = game({"cards": [card], "location": "city"}, {})
    assert p(s, "p1")["vp"] == (3 if card == "urbavore" else 2)  # Urbavore: +1 VP at the start in Tokyo
    s = turn(s, dice)
    assert p(s, "p2")["health"] == 10 - claws


def test_nova_breath_hits_everyone() -> None:
    s = turn(game({"cards": ["nova_breath"]}, {"location": "city"}, {}), "C C 1 2 3 E")
    assert (p(s, "p2")["health"], p(s, "p3")["health"]) == (8, 8)


def test_alpha_monster_complete_destruction_detritivore_gourmet() -> None:
    s = turn(game({"cards": ["alpha_monster", "complete_destruction", "detritivore"]}, {"location": "city"}),
             "1 2 3 H E C")
    assert p(s, "p1")["vp"] == 1 + 9 + 2
    s = turn(game({"cards": ["gourmet"]}, {"location": "city"}), "1 1 1 2 3 E")
    assert p(s, "p1")["vp"] == 1 + 2


def test_extra_head_and_giant_brain() -> None:
    s = game({"cards": ["extra_head", "extra_head", "giant_brain"]}, {"location": "city"})
    assert len(s["dice"]) == 8 and s["rolls_max"] == 4


def test_freeze_time_gives_a_turn_with_one_die_fewer() -> None:
    s = end(turn(game({"cards": ["freeze_time"]}, {"location": "city"}), "1 1 1 2 3 E"))
    assert s["active"] == 0 and len(s["dice"]) == 5
    s = end(turn(s, "2 2 3 3 E"))
    assert s["active"] == 1


def test_background_dweller_rerolls_threes_with_no_rolls_left() -> None:
    s = game({"cards": ["background_dweller"]}, {"location": "city"})
    s = act(s, {"type": "roll", "dice": faces("1 1 1 2 2 3")})
    s = act(s, {"type": "roll", "keep": [0, 1, 2, 3, 4], "dice": faces("3")})
    s = act(s, {"type": "roll", "keep": [0, 1, 2, 3, 4], "dice": faces("3")})
    assert s["phase"] == "roll" and s["rolls"] == 3
    s = act(s, {"type": "roll", "keep": [0, 1, 2, 3, 4], "dice": faces("2")})  # the 3 again, beyond three rolls
    assert s["phase"] == "buy" and p(s, "p1")["vp"] == 1 + 2  # 1 1 1 and now 2 2 2


def test_energy_drink_and_smoke_cloud_buy_rolls() -> None:
    s = game({"cards": ["energy_drink", "smoke_cloud"], "energy": 1}, {"location": "city"})
    for dice in ("1 1 1 1 1 1", "1", "1"):
        s = act(s, {"type": "roll", "keep": [0, 1, 2, 3, 4] if s["rolls"] else [], "dice": faces(dice)})
    assert s["phase"] == "roll"
    s = act(s, {"type": "extra_roll", "card": "energy_drink"})
    s = act(s, {"type": "roll", "dice": faces("2")})
    assert p(s, "p1")["energy"] == 0 and s["phase"] == "roll"
    for _ in range(3):
        s = act(s, {"type": "extra_roll", "card": "smoke_cloud"})
        s = act(s, {"type": "roll", "dice": faces("2")})
    assert all(c["id"] != "smoke_cloud" for c in p(s, "p1")["cards"])  # out of Smoke: discarded
    assert s["phase"] == "buy"


def test_herd_culler_plot_twist_stretchy_change_dice() -> None:
    s = game({"cards": ["herd_culler", "plot_twist", "stretchy"], "energy": 2}, {"location": "city"})
    s = act(s, {"type": "roll", "dice": faces("1 1 2 E E E")})
    s = act(s, {"type": "change_die", "card": "herd_culler", "die": 2})
    with pytest.raises(IllegalAction):
        R.apply(s, {"type": "change_die", "card": "herd_culler", "die": 3})
    s = act(s, {"type": "change_die", "card": "plot_twist", "die": 3, "face": "1"})
    s = act(s, {"type": "change_die", "card": "stretchy", "die": 4, "face": "claw"})
    s = act(s, {"type": "resolve"})
    assert p(s, "p1")["vp"] == 2 and p(s, "p2")["health"] == 9 and p(s, "p1")["energy"] == 1
    assert [c["id"] for c in p(s, "p1")["cards"]] == ["herd_culler", "stretchy"]


def test_psychic_probe_rerolls_one_die_and_is_lost_on_a_heart() -> None:
    s = game({}, {"location": "city", "cards": ["psychic_probe"]})
    s = act(s, {"type": "roll", "dice": faces("C C C 1 2 3")})
    s = act(s, {"type": "resolve"})
    s = answer(s, "probe", {"type": "probe", "player": "p2", "die": 0, "dice": ["heart"]})
    assert p(s, "p2")["health"] == 8 and p(s, "p2")["cards"] == []


# -- keep cards: health, energy, VP --------------------------------------------------------------------------
def test_armor_plating_ignores_a_single_heart() -> None:
    s = turn(game({}, {"location": "city", "cards": ["armor_plating"]}), "C 1 2 3 E E")
    assert p(s, "p2")["health"] == 10 and s["pending"] is None  # no heart lost: no yield either
    s = turn(game({}, {"location": "city", "cards": ["armor_plating"]}), "C C 1 2 3 E")
    assert p(s, "p2")["health"] == 8


def test_camouflage_cancels_a_heart_per_heart_rolled() -> None:
    s = turn(game({}, {"location": "city", "cards": ["camouflage"]}), "C C C 1 2 E")
    assert s["pending"]["kind"] == "defend" and R.snapshot(s)["pending"]["input"]["count"] == 3
    s = act(s, {"type": "defend", "with": "camouflage", "dice": ["heart", "heart", "claw"]})
    assert p(s, "p2")["health"] == 9


def test_wings_pay_2_and_lose_nothing_this_turn() -> None:
    s = turn(game({}, {"location": "city", "cards": ["wings"], "energy": 2}), "C C C 1 2 E")
    s = act(s, {"type": "defend", "with": "wings"})
    assert p(s, "p2")["health"] == 10 and p(s, "p2")["energy"] == 0


def test_jets_yield_before_the_damage() -> None:
    s = turn(game({}, {"location": "city", "cards": ["jets"]}), "C C C 1 2 E")
    assert s["pending"]["kind"] == "yield" and s["pending"]["jets"] and s["pending"]["damage"] == 3
    s = act(s, {"type": "yield", "player": "p2"})
    assert p(s, "p2")["health"] == 10 and p(s, "p2")["loc"] == "out" and p(s, "p1")["loc"] == "city"


def test_burrowing_hurts_the_monster_taking_its_place() -> None:
    s = turn(game({}, {"location": "city", "cards": ["burrowing"]}), "C 1 2 3 E E")
    s = act(s, {"type": "yield", "player": "p2"})
    assert p(s, "p1")["loc"] == "city" and p(s, "p1")["health"] == 9


def test_regeneration_friend_of_children_stronger() -> None:
    s = turn(game({"health": 5, "cards": ["regeneration", "friend_of_children"]}, {"location": "city"}),
             "H H E 1 2 3")
    assert p(s, "p1")["health"] == 8 and p(s, "p1")["energy"] == 2
    s = turn(game({}, {"location": "city", "cards": ["were_only_making_it_stronger"]}), "C C 1 2 3 E")
    assert p(s, "p2")["energy"] == 1


def test_healing_ray_heals_another_for_energy() -> None:
    s = game({"cards": ["healing_ray"]}, {"location": "city", "health": 5, "energy": 3})
    s = turn(s, "H H 1 2 3 E")
    s = answer(s, "healing_ray", {"type": "heal_other", "target": "p2"})
    s = answer(s, "healing_ray", {"type": "pass"})
    assert p(s, "p2")["health"] == 6 and p(s, "p2")["energy"] == 1 and p(s, "p1")["energy"] == 3


def test_rapid_healing_at_any_time() -> None:
    s = game({"cards": ["rapid_healing"], "energy": 2, "health": 4}, {"location": "city"})
    s = act(s, {"type": "rapid_heal", "player": "p1"})
    assert p(s, "p1")["health"] == 5 and p(s, "p1")["energy"] == 0


def test_even_bigger_when_bought() -> None:
    s = buy({}, "even_bigger", health=9)
    assert p(s, "p1")["health"] == 11 and R.snapshot(s)["players"][0]["max_health"] == 12


def test_battery_monster_pays_2_a_turn_then_goes() -> None:
    s = buy({}, "battery_monster", energy=3)
    assert p(s, "p1")["cards"][0]["counters"] == 6
    s = game({"cards": ["battery_monster"]}, {"location": "city"})
    for turn_no in (1, 2, 3):
        assert s["active"] == 0 and p(s, "p1")["energy"] == 2 * turn_no
        s = end(turn(end(turn(s, "1 1 2 2 3 3")), "1 1 2 2 3 3"))
    assert all(c["id"] != "battery_monster" for c in p(s, "p1")["cards"])


def test_end_of_turn_cards() -> None:
    s = end(turn(game({"cards": ["energy_hoarder", "herbivore"], "energy": 13}, {"location": "city"}),
                 "1 1 2 2 3 3"))
    assert p(s, "p1")["vp"] == 2 + 1
    s = end(turn(game({"cards": ["solar_powered", "rooting_for_the_underdog"]}, {"location": "city", "vp": 1}),
                 "1 1 2 2 3 3"))
    assert p(s, "p1")["energy"] == 1 and p(s, "p1")["vp"] == 1


def test_media_friendly_and_alien_origin() -> None:
    s = buy({}, "corner_store", energy=2, cards=["media_friendly", "alien_origin"])
    assert p(s, "p1")["energy"] == 0 and p(s, "p1")["vp"] == 2


def test_eater_of_the_dead_and_it_has_a_child() -> None:
    s = game({"location": "city"}, {"health": 1, "cards": ["it_has_a_child"], "vp": 9}, {"cards": ["eater_of_the_dead"]},
             {"health": 1})
    s = turn(s, "C 1 2 3 E E")
    b = p(s, "p2")
    assert b["alive"] and b["health"] == 10 and b["vp"] == 0 and b["cards"] == []
    assert not p(s, "p4")["alive"] and p(s, "p3")["vp"] == 6


def test_made_in_a_lab_and_parasitic_tentacles() -> None:
    s = game({"cards": ["made_in_a_lab", "parasitic_tentacles"], "energy": 10},
             {"location": "city", "cards": ["gourmet"]},
             market=["heal", "tank", "skyscraper"], deck_top=["corner_store"])
    s = turn(s, "1 1 2 2 3 3")
    assert R.snapshot(s)["deck_top"] == "corner_store"
    s = act(s, {"type": "buy", "top": True})
    uid = p(s, "p2")["cards"][0]["uid"]
    s = act(s, {"type": "buy", "from": "p2", "uid": uid})
    assert p(s, "p1")["energy"] == 3 and p(s, "p2")["energy"] == 4 and p(s, "p1")["vp"] == 1
    assert [c["id"] for c in p(s, "p1")["cards"]][-1] == "gourmet"


def test_opportunist_buys_a_revealed_card_on_another_turn() -> None:
    s = game({"energy": 6}, {"location": "city", "cards": ["opportunist"], "energy": 6},
             market=["corner_store", "heal", "tank"], deck_top=["skyscraper", "commuter_train"])
    s = act(turn(s, "1 1 2 2 3 3"), {"type": "buy", "slot": 0})
    s = answer(s, "opportunist", {"type": "pass", "player": "p2"})
    assert s["market"][0] == "skyscraper"
    s = act(s, {"type": "buy", "slot": 1})  # Heal: Commuter Train is revealed
    s = answer(s, "opportunist", {"type": "buy", "player": "p2"})
    assert p(s, "p2")["vp"] == 2 and p(s, "p2")["energy"] == 2


def test_mimic_moves_at_the_start_of_a_turn_for_1_energy() -> None:
    s = game({"cards": ["mimic"], "energy": 1}, {"location": "city", "cards": ["giant_brain", "extra_head"]})
    brain = p(s, "p2")["cards"][0]["uid"]
    s = act(s, {"type": "mimic", "target": brain})
    assert p(s, "p1")["energy"] == 0
    s = end(turn(s, "1 1 2 2 3 3"))
    assert s["active"] == 1


def test_poison_spit_and_shrink_ray_tokens_and_cures() -> None:
    s = turn(game({"cards": ["poison_spit", "shrink_ray"]}, {"location": "city"}), "C 1 2 3 E E")
    assert (p(s, "p2")["poison"], p(s, "p2")["shrink"]) == (1, 1)


def test_rapid_healing_before_a_killing_loss() -> None:
    """Rapid Healing "also to avoid reaching 0": a loss that would take the last heart stops for it."""
    s = turn(game({}, {"location": "city", "cards": ["rapid_healing"], "energy": 4, "health": 2}), "C C 1 2 3 E")
    assert s["pending"]["kind"] == "defend" and s["pending"]["rapid_healing"]
    s = act(s, {"type": "defend", "with": "rapid_healing"})  # health 3: the 2 claws no longer kill
    assert p(s, "p2")["alive"] and p(s, "p2")["health"] == 1 and p(s, "p2")["energy"] == 2
    assert s["pending"]["kind"] == "yield"
    s = turn(game({}, {"location": "city", "cards": ["rapid_healing"], "energy": 4, "health": 1}), "C C 1 2 3 E")
    s = act(s, {"type": "defend", "with": "rapid_healing"})
    assert s["pending"]["kind"] == "defend" and p(s, "p2")["health"] == 2  # still a killing loss: asked again
    s = act(s, {"type": "defend", "with": "none"})
    assert not p(s, "p2")["alive"]
    s = turn(game({}, {"location": "city", "cards": ["rapid_healing"], "energy": 4, "health": 5}), "C C 1 2 3 E")
    assert s["pending"]["kind"] == "yield"  # not a killing loss: no question before it


def test_mimic_uses_its_own_counters_and_loses_the_copy_when_the_card_goes() -> None:
    """§12.2 Mimic: a copied card with counters uses Mimic's own (2011 FAQ); if the copied card is discarded,
    Mimic loses its effect and the token comes back."""
    s = game({"energy": 8}, {"location": "city", "cards": ["battery_monster"]}, market=["mimic", "heal", "tank"])
    s = act(turn(s, "1 1 2 2 3 3"), {"type": "buy", "slot": 0})
    battery = p(s, "p2")["cards"][0]["uid"]
    s = answer(s, "mimic", {"type": "mimic", "target": battery})
    mimic = next(c for c in p(s, "p1")["cards"] if c["id"] == "mimic")
    assert mimic["counters"] == 6 and p(s, "p2")["cards"][0]["counters"] == 6
    s = end(s)  # p2's turn: its own Battery pays it 2
    assert p(s, "p2")["energy"] == 2 and p(s, "p2")["cards"][0]["counters"] == 4
    s = end(turn(s, "1 1 2 2 3 3"))  # p1's turn: Mimic's copy pays p1 from its own counters
    assert p(s, "p1")["energy"] == 2 and next(c for c in p(s, "p1")["cards"] if c["id"] == "mimic")["counters"] == 4
    # the copied card leaves play: the copy is lost, the Mimic card stays
    st.remove_card(s, 1, p(s, "p2")["cards"][0], [])  # the rules' own way a card leaves play
    assert next(c for c in p(s, "p1")["cards"] if c["id"] == "mimic")["copy"] is None


def test_two_opportunists_ask_clockwise_from_the_active_monster() -> None:
    """§12.2 Opportunist: with two in play (one through Mimic), the first owner clockwise from the active
    monster gets the first chance."""
    s = game({"energy": 5}, {"location": "city", "cards": ["opportunist"], "energy": 9},
             {"cards": ["mimic"], "energy": 9}, first="p1",
             market=["corner_store", "heal", "tank"], deck_top=["skyscraper"])
    s["players"][2]["cards"][0]["copy"] = s["players"][1]["cards"][0]["uid"]  # p3's Mimic copies it
    s = act(turn(s, "1 1 2 2 3 3"), {"type": "buy", "slot": 0})
    assert s["pending"]["kind"] == "opportunist" and s["pending"]["player"] == 1
    s = act(s, {"type": "pass"})
    assert s["pending"]["kind"] == "opportunist" and s["pending"]["player"] == 2
    s = act(s, {"type": "buy"})
    assert p(s, "p3")["vp"] == 4 and p(s, "p3")["energy"] == 3
