"""Hero data checked against the heroes reference (dice-throne-heroes.md §1-§4) and against itself: every
symbol, status and level a hero file names exists, every hero has a board, a defense, an ultimate and cards,
and the Season Two values where DD (reference §3-§4) and ZG's card data agree are the values played."""

from __future__ import annotations

from typing import Any

import pytest
from dthelp import attack, attack_view, end_roll_phase, game, go, tokens

from engine.dicethrone.abilities import effects_of
from engine.dicethrone.data import statuses
from engine.dicethrone.heroes import hero, hero_ids

SIXTEEN = {"artificer", "barbarian", "cursed_pirate", "gunslinger", "huntress", "monk", "moon_elf", "ninja",
           "paladin", "pyromancer", "samurai", "seraph", "shadow_thief", "tactician", "treant", "vampire_lord"}


def _effects(data: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for ability in data["abilities"]:
        for level in ability["levels"]:
            out += level.get("effects", []) + level.get("upkeep", []) + level.get("end_turn", [])
            for tier in level.get("tiers", []):
                out += tier["effects"]
    for card in data.get("cards", []):
        out += card.get("effects", [])
    return out


def test_sixteen_heroes_ship():
    """Reference §1: the sixteen Season One and Two heroes."""
    assert set(hero_ids()) == SIXTEEN


@pytest.mark.parametrize("hid", sorted(SIXTEEN))
def test_every_name_a_hero_file_uses_exists(hid):
    """Requirements and per-symbol effects name the hero's own faces; statuses exist in the status table."""
    data = hero(hid)
    faces = set(data["faces"])
    table = statuses()
    for ability in data["abilities"]:
        for level in ability["levels"]:
            for tier in level.get("tiers", []):
                assert set(tier.get("need", {})) <= faces, (ability["id"], tier)
    for eff in _effects(data):
        if "status" in eff:
            assert eff["status"] in table, eff
        for key in ("per", "per_final"):
            syms = eff.get(key)
            if syms is not None:
                assert set(syms if isinstance(syms, list) else [syms]) <= faces, eff
        cond = eff.get("if") or {}
        for key in ("on", "not_on"):
            if key in cond:
                assert cond[key] in faces, eff
        for key in ("count", "final_count"):
            assert set(cond.get(key, {})) <= faces, eff
        assert set(cond.get("none_of", [])) <= faces, eff
    assert set(data["statuses"]) <= set(table)


@pytest.mark.parametrize("hid", sorted(SIXTEEN))
def test_every_hero_has_a_board_a_defense_an_ultimate_and_cards(hid):
    """Rules §5: a hero board has offensive abilities, one ultimate (5 of the face printed once), a defense;
    every hero brings its own cards (the six heroes with none before issue 12 included)."""
    data = hero(hid)
    ults = [a for a in data["abilities"] if a["kind"] == "ultimate"]
    assert len(ults) == 1
    need = ults[0]["levels"][0]["tiers"][0]["need"]
    assert list(need.values()) == [5] and data["faces"].count(next(iter(need))) == 1
    assert data["defenses"] and data.get("complete") is not False
    assert len(data.get("cards", [])) >= 5, "hero action cards"
    for card in data["upgrade_cards"]:
        assert card["cost"] >= 0 and card["level"] in (2, 3)


def test_season_two_values_where_dd_and_zg_agree():
    """Reference §4.3-§4.6 (DD) against ZG's card data: the fixed values both give."""
    assert [e for e in effects_of("artificer", "schematics", 1, 0)] == [
        {"do": "draw", "count": 2}, {"do": "heal", "amount": 2}, {"do": "gain", "status": "synth", "count": 4}]
    assert [(e["amount"], e.get("type")) for e in effects_of("artificer", "overclock", 1, 0) if e["do"] == "damage"] == [(6, "undefendable")]
    assert [e["amount"] for e in effects_of("vampire_lord", "blood_thirst", 1, 0) if e["do"] == "damage"] == [5]
    assert [e["amount"] for e in effects_of("huntress", "jungle_fury", 1, 0) if e["do"] == "damage"] == [12]
    assert [e["amount"] for e in effects_of("seraph", "split_the_heavens", 1, 0) if e["do"] == "damage"] == [13]
    assert [e["amount"] for e in effects_of("tactician", "higher_ground", 1, 0) if e["do"] == "damage"] == [12]
    assert [e["amount"] for e in effects_of("cursed_pirate", "black_spot", 1, 0) if e["do"] == "damage"] == [7]


def test_c27_light_the_fuse_small_straight_8():
    """C27 (new): Light the Fuse on a small straight deals 8 as DD and EX-30 read (ZG reads 7), 9 on a large."""
    assert [[e["amount"] for e in effects_of("cursed_pirate", "light_the_fuse", 1, t) if e["do"] == "damage"]
            for t in (0, 1)] == [[8], [9]]


def test_spanner_strike_bonus_die_adds_by_face():
    """Artificer Spanner Strike (ZG): 3 Wrenches deal 3, then 1 die: Nut +2 (DD's estimate of 5)."""
    m = game("artificer", "barbarian")
    attack(m, [1, 2, 3, 6, 5], "spanner_strike")
    go(m, {"type": "roll", "dice": [4]}, {"type": "resolve"})
    assert attack_view(m)["base"] == 5


def test_countermeasures_deal_damage_per_pair_of_sabres():
    """Tactician Countermeasures I (ZG): 4 dice; 1 damage per pair of Sabres, prevent 1 per Banner."""
    m = game("barbarian", "tactician")
    attack(m, [1, 2, 3, 4, 5], "smack")                                   # 3 Swords: 4 damage
    go(m, {"type": "defense", "defense": "countermeasures"}, {"type": "roll", "dice": [1, 2, 3, 4]},
       {"type": "resolve"})
    assert end_roll_phase(m)["damage"] == {"p2": 3, "p1": 1}


def test_black_spot_doubloon_goes_to_the_pirate():
    """Cursed Pirate Black Spot (ZG): the Doubloon is gained by the Pirate; Parlay goes to the target. The
    Pirate is asked first, since she may decline a Doubloon (rules §6); she takes it (option 0)."""
    m = game("cursed_pirate", "barbarian")
    attack(m, [6, 6, 6, 6, 1], "black_spot")
    assert m.snapshot()["pending"]["about"]["effect"] == "may_decline"
    go(m, {"type": "choose", "option": 0})
    assert tokens(m, "p1") == {"cursed_doubloon": 3 + 1} and tokens(m, "p2") == {"parlay": 1}


def test_pirate_starts_with_3_doubloons_and_flips_when_none_is_left():
    """Cursed Pirate (RB22 setup, ZG passive 'Cursed'): she starts with 3 Doubloons; at the end of each of her
    turns one is removed; at an end of turn with none left the board turns to the Cursed side for good."""
    from engine.dicethrone.abilities import satisfied
    m = game("cursed_pirate", "barbarian")
    assert tokens(m, "p1") == {"cursed_doubloon": 3}
    go(m, {"type": "adjust", "player": "p1", "status": {"cursed_doubloon": -3}})      # adjust takes deltas
    go(m, {"type": "advance"}, {"type": "roll", "dice": [4, 4, 5, 5, 1]}, {"type": "ability", "ability": None})
    while m.snapshot()["active"] == "p1":
        go(m, {"type": "advance"})
    upgrades = m.snapshot()["players"][0]["upgrades"]
    assert upgrades["cutlass_strike"] == 2 and upgrades["cursed"] == 2
    names = {a["name"]["en"] for a in satisfied("cursed_pirate", upgrades, [1, 2, 3, 1, 2])}
    assert names == {"Soul Cutlass"}


def test_shifty_strike_deals_half_the_cp_after_gaining_3():
    """Shadow Thief Shifty Strike (ZG 'Pickpocket'): gain 3 CP, then deal half your CP rounded up."""
    m = game("shadow_thief", "barbarian")
    go(m, {"type": "adjust", "player": "p1", "cp": 2})                   # 2 at the start + 2 = 4
    attack(m, [1, 2, 3, 4, 1], "shifty_strike")
    assert attack_view(m)["base"] == 4 and m.snapshot()["players"][0]["cp"] == 7


def test_shadow_defense_two_shadows_take_no_damage():
    """Shadow Thief Shadow Defense (ZG): 2 Shadows gain Shadows and Sneak Attack and ignore the damage."""
    m = game("barbarian", "shadow_thief")
    attack(m, [1, 2, 3, 4, 5], "smack")
    go(m, {"type": "defense", "defense": "shadow_defense"}, {"type": "roll", "dice": [6, 6, 1, 1]},
       {"type": "resolve"})
    result = end_roll_phase(m)
    assert result["damage"].get("p2", 0) == 0
    assert tokens(m, "p2") == {"shadows": 1, "sneak_attack": 1} and tokens(m, "p1") == {"poison": 1}


def _nyra(m: Any, pid: str = "p2") -> int:
    return next(c["health"] for c in m.snapshot()["players"][int(pid[1]) - 1]["companions"] if c["id"] == "nyra")


def test_maternal_bond_heals_nyra_per_bond_and_claws_bite_while_she_stands():
    """Huntress Maternal Bond I (ZG 'Kindred Bond'): 1 damage per Spear, heal Nyra 1 per Bond, 2 damage per
    Claw while Nyra stands. Faces 1-2 Spear, 3-4 Claw, 5 Bond: Spear, Claw, Bond -> 1 + 2 back, Nyra +1."""
    m = game("barbarian", "huntress")
    go(m, {"type": "adjust", "player": "p2", "companions": {"nyra": -3}})
    attack(m, [1, 2, 3, 4, 5], "smack")
    go(m, {"type": "defense", "defense": "maternal_bond"}, {"type": "roll", "dice": [1, 3, 5]}, {"type": "resolve"})
    result = end_roll_phase(m)
    assert result["damage"].get("p1") == 3 and _nyra(m) == 5


def test_resuscitate_heals_nyra_3():
    """Huntress Resuscitate I (ZG): 2 Bond -> gain Nyra's Bond and heal Nyra 3 (up to her 7)."""
    m = game("huntress", "barbarian")
    go(m, {"type": "adjust", "player": "p1", "companions": {"nyra": -5}})
    attack(m, [5, 5, 1, 1, 3], "resuscitate")                         # no damage: nothing to defend
    assert _nyra(m, "p1") == 5 and tokens(m, "p1").get("nyras_bond") == 1


def test_odds_after_a_roll_advise_which_dice_to_keep():
    """The page's keep advice: each ability the dice do not make yet carries the dice to keep for its chance
    (engine.odds.best_keep). Barbarian 1 4 2 5 6 (Sword Heart Sword Heart Pow), 2 rolls left: Smack (3 Swords)
    keeps the two Swords, Fortitude (hearts) the two Hearts; nothing before the first roll."""
    m = game("barbarian", "gunslinger")
    go(m, {"type": "advance"})
    assert all("keep" not in o for o in m.snapshot()["odds"])
    go(m, {"type": "roll", "dice": [1, 4, 2, 5, 6]})
    odds = {o["id"]: o for o in m.snapshot()["odds"]}
    assert odds["smack"]["keep"] == [0, 2] and odds["fortitude"]["keep"] == [1, 3]
    assert all(o["keep"] == sorted(set(o["keep"])) for o in odds.values() if "keep" in o)


def test_a_by_hand_effect_reaches_the_story_in_three_languages():
    """What the engine cannot do reaches the page's log (story 'manual' events) in en/zh-TW/ko: Thick Skin II
    on 2 Hearts (status prevention by hand)."""
    m = game("huntress", "barbarian")
    go(m, {"type": "adjust", "player": "p2", "upgrades": {"thick_skin": 2}})
    attack(m, [1, 1, 1, 3, 3], "animalistic")
    go(m, {"type": "defense", "defense": "thick_skin"}, {"type": "roll", "dice": [4, 4, 1, 1]}, {"type": "resolve"})
    told = [e for move in m.snapshot()["story"] for e in move["events"] if e["type"] == "manual"]
    assert told and set(told[-1]["text"]) == {"en", "zh-TW", "ko"} and "status" in told[-1]["text"]["en"]
