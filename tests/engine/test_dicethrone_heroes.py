"""Hero data choices where the sources conflict (dice-throne-heroes.md §7, C1-C26), one test per choice."""

from __future__ import annotations

import pytest
from dthelp import attack, attack_view, end_roll_phase, game, go, tokens

from engine.dicethrone.abilities import effects_of, satisfied
from engine.dicethrone.data import statuses
from engine.dicethrone.heroes import hero


def damage_of(hero_id: str, ability: str, level: int = 1, tier: int = 0) -> list[int]:
    return [e["amount"] for e in effects_of(hero_id, ability, level, tier) if e["do"] == "damage"]


def test_c1_revolver_is_3_4_5():
    """C1: Revolver 3/4/5 (RB24 wins over the RB22 OCR 3/5/5)."""
    assert [damage_of("gunslinger", "revolver", 1, t) for t in range(3)] == [[3], [4], [5]]


def test_c2_showdown_7_else_5():
    """C2: Showdown: your die >= theirs 7, else 5 (RB24, BOT)."""
    for mine, theirs, dmg in ((4, 4, 7), (3, 5, 5)):
        m = game("gunslinger", "barbarian")
        attack(m, [1, 2, 3, 4, 1], "showdown")
        go(m, {"type": "roll", "dice": [mine, theirs]}, {"type": "resolve"})
        assert attack_view(m)["base"] == dmg


def test_c3_to_c6_gunslinger_counts():
    """C3 Take Cover 5; C4 Quick Draw 1 Reload; C5 Fill 'Em With Lead! 1 Evasive; C6 Bounty Hunter 1 Bounty."""
    assert damage_of("gunslinger", "take_cover") == [5]
    m = game("gunslinger", "barbarian")
    assert tokens(m, "p1") == {"reload": 1}
    attack(m, [6, 6, 6, 6, 6], "fill_em_with_lead")
    assert tokens(m, "p1") == {"reload": 1, "evasive": 1}
    bounty = [e for e in effects_of("gunslinger", "bounty_hunter", 1, 0) if e["do"] == "inflict"]
    assert bounty == [{"do": "inflict", "status": "bounty"}]


def test_c7_c8_duel_prevents_half_or_deals_3_undefendable():
    """C7: Duel's prevention is half (up); C8: its damage is undefendable."""
    m = game("barbarian", "gunslinger")
    attack(m, [1, 2, 3, 1, 2], "smack")                           # 8
    go(m, {"type": "defense", "defense": "duel"}, {"type": "roll", "dice": [6, 1]}, {"type": "resolve"},
       {"type": "choose", "option": 0})
    assert [p["type"] for p in m.snapshot()["roll_phase"]["other_damage"]] == ["undefendable"]
    assert end_roll_phase(m)["damage"] == {"p2": 8, "p1": 3}


def test_c9_c10_c11_pirate_statuses():
    """C9 Powder Keg limit 1; C10 Cursed Doubloon is unique; C11 Bounty and Wither are attack modifiers."""
    table = statuses()
    assert table["powder_keg"]["limit"] == 1
    assert table["cursed_doubloon"]["kind"] == "unique"
    assert table["bounty"]["modifier"] and table["wither"]["modifier"]


def test_c12_c13_samurai():
    """C12 Katana Slice 5/6/7; C13 Wakizashi needs 2 Katana + 2 Rising Sun (BOT card text)."""
    assert [damage_of("samurai", "katana_slice", 1, t) for t in range(3)] == [[5], [6], [7]]
    assert {a["id"] for a in satisfied("samurai", {}, [1, 2, 6, 6, 4])} == {"wakizashi"}
    assert "wakizashi" not in {a["id"] for a in satisfied("samurai", {}, [1, 4, 6, 6, 5])}


def test_c14_smoke_screen_requirement():
    """C14: Smoke Screen needs Ninjato + 2 Shuriken + Mask (BOT), not Ninjato + Shuriken + Mask."""
    assert "smoke_screen" in {a["id"] for a in satisfied("ninja", {}, [1, 4, 5, 6, 2])}
    assert "smoke_screen" not in {a["id"] for a in satisfied("ninja", {}, [1, 4, 6, 2, 2])}


def test_c15_delayed_poison_3():
    """C15: Delayed Poison deals 3 (the long rules text), flagged for a sheet check."""
    assert "3 damage" in statuses()["delayed_poison"]["text"]["en"]


def test_c16_sturdy_blow_iii_costs_1():
    """C16: Sturdy Blow III costs 1 (BOT, the only legible source)."""
    assert hero("barbarian")["cards_by_name"]["sturdyblowiii"]["cost"] == 1


def test_c17_c18_barbarian():
    """C17 War Cry needs 2 Sword + 2 Heart; C18 Overpower II stays normal damage."""
    assert {a["id"] for a in satisfied("barbarian", {"overpower": 2}, [1, 2, 4, 5, 6])} >= {"war_cry"}
    assert all(e.get("type", "normal") == "normal" for e in effects_of("barbarian", "overpower", 2, 0)
               if e["do"] == "damage")


def test_c19_pyromancer_ph_values():
    """C19: Fireball 4/6/8; Scorch the Earth! 12 plus 2 collateral (PH, photo-checked)."""
    assert [damage_of("pyromancer", "fireball", 1, t) for t in range(3)] == [[4], [6], [8]]
    effects = effects_of("pyromancer", "scorch_the_earth", 1, 0)
    assert [(e["amount"], e.get("type", "normal")) for e in effects if e["do"] == "damage"] == [(12, "normal"), (2, "collateral")]


def test_c20_c21_ninja_treant():
    """C20 Poison Blade 5; C21 Overgrowth 2 + 4 per Spirit removed (up to 2)."""
    assert damage_of("ninja", "poison_blade") == [5]
    m = game("treant", "barbarian")
    go(m, {"type": "adjust", "player": "p1", "status": {"spirit": 2}})      # 3 with Fertilize's
    attack(m, [1, 2, 4, 4, 5], "overgrowth")
    assert attack_view(m)["base"] == 2 + 4 * 2 and tokens(m, "p1")["spirit"] == 1


def test_c22_c23_moon_elf():
    """C22 Exploding Arrow uses the LJ roll-5 formula [U]; C23 the hero id is moon_elf (one file)."""
    m = game("moon_elf", "barbarian")
    attack(m, [1, 6, 6, 6, 2], "exploding_arrow")
    go(m, {"type": "roll", "dice": [1, 4, 6, 6, 2]}, {"type": "resolve"})   # 2 Arrows, 1 Foot, 2 Moons
    assert attack_view(m)["base"] == 3 + 3
    assert m.snapshot()["players"][1]["cp"] == 0 and tokens(m, "p2") == {"blind": 1}


@pytest.mark.parametrize("level, undef", [(1, 3), (2, 4)])
def test_c24_shade_shift_once_then_per_ninjato(level, undef):
    """C24: 'on Ninjato 1' once at level I, 1 per Ninjato at II (EX-17)."""
    m = game("gunslinger", "ninja")
    go(m, {"type": "adjust", "player": "p2", "upgrades": {"shade_shift": level}})
    attack(m, [1, 2, 3, 4, 4], "revolver")
    go(m, {"type": "defense", "defense": "shade_shift"}, {"type": "roll", "dice": [1, 2, 4]}, {"type": "resolve"})
    assert end_roll_phase(m)["damage"]["p1"] == undef


def test_c25_the_shivering_needs_3_skulls_and_c26_stun_rerolled_text():
    """C25: ZG's card data settles The Shivering (Cursed side of Shiver Me Timbers) at Cutlass + 3 Skull, so
    DD's 4 Skull was a data error; C26: Stun uses the Rerolled text."""
    cursed = next(lv for lv in hero("cursed_pirate")["by_id"]["shiver_me_timbers"]["levels"] if lv.get("form") == "cursed")
    assert cursed["name"]["en"] == "The Shivering" and cursed["tiers"][0]["need"] == {"cutlass": 1, "skull": 3}
    assert "extra Offensive Roll Phase" in statuses()["stun"]["text"]["en"]


def test_every_upgrade_card_has_its_board_text():
    """Heroes §5 (issue 12): no upgrade card is left with a known cost but unknown text any more."""
    from engine.dicethrone.heroes import hero_ids
    for hid in hero_ids():
        data = hero(hid)
        assert not data.get("upgrade_costs"), hid
        assert not [c["id"] for c in data["upgrade_cards"] if c.get("unknown_effect")], hid


def test_compiled_requirements_agree_with_the_readable_check():
    """abilities._satisfied checks compiled tiers (counts per number) and shares results between upgrade
    combinations; on every hero, level and roll of 5 dice it must agree with `tier_met` on the hero data."""
    from itertools import combinations_with_replacement

    from engine.dicethrone.abilities import level_of, tier_met
    from engine.dicethrone.dice import symbol_counts
    from engine.dicethrone.heroes import hero, hero_ids

    for hid in hero_ids():
        data = hero(hid)
        slots = {a.get("slot") or a["id"] for a in data["offensive"]}
        for installed in (1, 2, 3):
            upgrades = {slot: installed for slot in slots}
            for roll in combinations_with_replacement(range(1, 7), 5):
                values = list(roll)
                counts = symbol_counts(values, data["faces"])
                expected = []
                for ability in data["offensive"]:
                    level = level_of(upgrades, ability)
                    if level is None:
                        continue
                    met = [k for k, tier in enumerate(level["tiers"]) if tier_met(tier, values, counts)]
                    if met:
                        expected.append((ability["id"], level["level"], met[-1]))
                got = [(a["id"], a["level"], a["tier"]) for a in satisfied(hid, upgrades, values[::-1])]
                assert got == expected, (hid, upgrades, roll)
