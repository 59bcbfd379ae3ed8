"""The worked examples of ../shared/reference/dice-throne-examples.md, one test (or more) per EX number.

Each test names its example and drives the game through `Match` the way a table would.
"""

from __future__ import annotations

import itertools

import pytest
from dthelp import (
    attack,
    attack_view,
    cp,
    end_roll_phase,
    game,
    give,
    go,
    health,
    illegal,
    kind,
    pending,
    player,
    set_cp,
    set_health,
    snap,
    tokens,
)

from engine.dicethrone.abilities import satisfied
from engine.dicethrone.damage import MODIFIER, PREVENT, final_damage

# -- A. Damage totals ------------------------------------------------------------------------------


def test_ex01_barbarian_vs_paladin_final_damage():
    """EX-01 [RB] (rules §10): 18 - 3 + 5 - 3 = 17; each halving of 17 is 9; Paladin 0, Barbarian 9."""
    m = game("barbarian", "paladin")
    give(m, "p2", protect=1, retribution=1)
    go(m, {"type": "adjust", "player": "p2", "upgrades": {"divine_defense": 3}})
    attack(m, [1, 2, 3, 6, 6], "overpower")                     # 3 Swords + 2 Pow
    go(m, {"type": "roll", "dice": [6, 6, 6]}, {"type": "resolve"})  # 1. Overpower: incoming 18
    assert attack_view(m)["base"] == 18
    assert tokens(m, "p2")["concussion"] == 1                   # sum >= 14 rider
    go(m, {"type": "spend", "player": "p2", "status": "retribution"},   # 2.
       {"type": "spend", "player": "p2", "status": "protect"},          # 3.
       {"type": "defense", "defense": "divine_defense"},                # 4. prevent 3, gain Protect:
       {"type": "roll", "dice": [3, 4, 3, 6]}, {"type": "resolve"})     #    3 Helms and a Prayer (ZG dice)
    assert tokens(m, "p2")["protect"] == 1
    go(m, {"type": "play", "player": "p1", "card": "Get Some!", "roll": [1, 2, 3, 1, 2]},  # 5. +5
       {"type": "play", "player": "p2", "card": "Absolution!", "roll": [3]},             # 6. prevent 3 (Helm)
       {"type": "spend", "player": "p2", "status": "protect"})                           # 7.
    view = attack_view(m)
    assert view["total"] == 17 and view["halves"] == 2 and view["reflect"] == 1
    summary = end_roll_phase(m)
    assert summary["damage"] == {"p2": 0, "p1": 9}
    assert health(m, "p2") == 50 and health(m, "p1") == 41
    assert tokens(m, "p2") == {"concussion": 1}


def test_ex01_protect_gained_while_held_is_lost():
    """EX-01 stack check (rules §6.4): a Protect gained while one is held is discarded (limit 1)."""
    m = game("barbarian", "paladin")
    give(m, "p2", protect=1)
    go(m, {"type": "adjust", "player": "p2", "upgrades": {"divine_defense": 3}})
    attack(m, [1, 2, 3, 6, 6], "overpower")
    go(m, {"type": "roll", "dice": [6, 6, 6]}, {"type": "resolve"}, {"type": "defense", "defense": "divine_defense"},
       {"type": "roll", "dice": [3, 4, 3, 6]}, {"type": "resolve"})
    assert tokens(m, "p2")["protect"] == 1


EX01_EFFECTS = {
    1: ("base", 18), 2: ("reflect", None), 3: ("half", None), 4: ("mod", (-3, PREVENT)),
    5: ("mod", (5, MODIFIER)), 6: ("mod", (-3, PREVENT)), 7: ("half", None),
}


def _total(order):
    base, mods, halves, reflect = 0, [], 0, 0
    for k in order:
        what, value = EX01_EFFECTS[k]
        if what == "base":
            base = value
        elif what == "mod":
            mods.append(value)
        elif what == "half":
            halves += 1
        else:
            reflect += 1
    return final_damage(base, "normal", mods, halves, reflect)


def test_ex02_order_independence_and_chaining_trap():
    """EX-02 [R] (rules §10): order 5, 6, 4, 1, 7, 2, 3 gives the same 0 / 9; chaining would give 4."""
    r = _total([5, 6, 4, 1, 7, 2, 3])
    assert r["taken"] == 0 and r["reflected"] == [9]
    for order in itertools.permutations(range(1, 8)):
        assert _total(order) == r
    chained = 17 - (17 + 1) // 2
    chained = chained - (chained + 1) // 2
    assert chained == 4 and r["taken"] != 4


def test_ex03_targeted_then_protect():
    """EX-03 [R][H] (rules §10): 8 + 2 Targeted = 10; Protect halves 10 -> takes 5; Targeted stays."""
    m = game("barbarian", "gunslinger")
    give(m, "p2", targeted=1, protect=1)
    attack(m, [1, 1, 2, 2, 3], "smack")                         # 5 Swords: 8
    go(m, {"type": "defense", "defense": None}, {"type": "spend", "player": "p2", "status": "protect"})
    assert end_roll_phase(m)["damage"]["p2"] == 5
    assert tokens(m, "p2")["targeted"] == 1


def test_ex04_flat_prevention_before_halving():
    """EX-04 [R][H] (rules §10): 9 - 2 Chi = 7; Protect prevents 4; takes 3; tokens spent."""
    m = game("barbarian", "monk")
    give(m, "p2", chi=2, protect=1)
    attack(m, [1, 2, 3, 4, 6], "mighty_blow")                   # small straight: 9
    go(m, {"type": "defense", "defense": None},
       {"type": "spend", "player": "p2", "status": "chi", "count": 2, "use": "prevent"},
       {"type": "spend", "player": "p2", "status": "protect"})
    assert end_roll_phase(m)["damage"]["p2"] == 3
    assert tokens(m, "p2") == {}


def test_ex05_two_halvings_one_reflected():
    """EX-05 [R][H] (rules §10): 11 with Protect and Retribution: defender takes 5, attacker 6."""
    m = game("barbarian", "paladin")
    give(m, "p2", protect=1, retribution=1)
    attack(m, [1, 2, 3, 4, 6], "mighty_blow")
    go(m, {"type": "bonus", "amount": 2, "source": "a +2 card"},
       {"type": "defense", "defense": None},
       {"type": "spend", "player": "p2", "status": "protect"},
       {"type": "spend", "player": "p2", "status": "retribution"})
    assert end_roll_phase(m)["damage"] == {"p2": 5, "p1": 6}


def test_ex07_negative_totals_clamp_to_zero():
    """EX-07 [RB] (rules §10.4): total 4 with 6 prevented is 0 damage, never a heal."""
    assert final_damage(4, "normal", [(-6, PREVENT)])["taken"] == 0
    m = game("barbarian", "gunslinger")
    attack(m, [1, 2, 3, 4, 4], "smack")                         # 3 Swords: 4
    go(m, {"type": "defense", "defense": None}, {"type": "play", "player": "p2", "card": "Not This Time!"})
    assert end_roll_phase(m)["damage"]["p2"] == 0
    assert health(m, "p2") == 50


# -- B. Gunslinger -----------------------------------------------------------------------------------


def _duel(level: int, mine: int, theirs: int, *, damage_dice=(1, 1, 2, 2, 3)):
    m = game("barbarian", "gunslinger")
    if level == 2:
        go(m, {"type": "adjust", "player": "p2", "upgrades": {"duel": 2}})
    attack(m, list(damage_dice), "smack")
    go(m, {"type": "defense", "defense": "duel"}, {"type": "roll", "dice": [mine, theirs]})
    return m


def test_ex08_duel_interrupted_by_so_wild():
    """EX-08 [RB] (rules §11): lose 1 vs 4, So Wild! sets her die to 6, she wins; CP 2 -> 0."""
    for option, gun_takes, barb_takes in ((0, 8, 3), (1, 4, 0)):
        m = _duel(1, 1, 4)
        go(m, {"type": "play", "player": "p2", "card": "So Wild!", "die": 0, "value": 6},
           {"type": "resolve"})
        assert cp(m, "p2") == 0
        assert kind(m) == "choice"
        go(m, {"type": "choose", "option": option})
        assert end_roll_phase(m)["damage"] == {"p2": gun_takes, **({"p1": barb_takes} if barb_takes else {})}
    m = _duel(1, 1, 4)                                           # without the card: she loses
    go(m, {"type": "resolve"})
    assert end_roll_phase(m)["damage"] == {"p2": 8, "p1": 1}
    m = _duel(1, 1, 6)                                           # attacker 6: 6 > 6 is false
    go(m, {"type": "play", "player": "p2", "card": "So Wild!", "die": 0, "value": 6}, {"type": "resolve"})
    assert end_roll_phase(m)["damage"] == {"p2": 8, "p1": 1}


@pytest.mark.parametrize("mine, theirs, win1, win2", [(5, 2, True, True), (3, 3, False, True),
                                                      (6, 6, False, True), (2, 5, False, False)])
def test_ex09_duel_comparison_table(mine, theirs, win1, win2):
    """EX-09 [H: BOT] (C7, C8): Duel I wins only on greater, Duel II on greater or equal."""
    for level, win in ((1, win1), (2, win2)):
        m = _duel(level, mine, theirs)
        go(m, {"type": "resolve"})
        if win:
            assert kind(m) == "choice"
            assert len(pending(m)["options"]) == 2      # 3 undefendable OR prevent half, never both
        else:
            assert kind(m) == "window"
            assert end_roll_phase(m)["damage"]["p1"] == 1


@pytest.mark.parametrize("bonus, takes", [(3, 3), (-3, 0), (6, 5)])
def test_ex10_duel_prevent_half_amounts(bonus, takes):
    """EX-10 [H] (C7): totals 7 / 1 / 10 -> Duel prevents 4 / 1 / 5 -> takes 3 / 0 / 5."""
    m = _duel(1, 6, 1, damage_dice=(1, 2, 3, 4, 4))             # Smack 3 Swords: 4
    go(m, {"type": "bonus", "amount": bonus}, {"type": "resolve"}, {"type": "choose", "option": 1})
    assert end_roll_phase(m)["damage"]["p2"] == takes


@pytest.mark.parametrize("r, total", [(1, 6), (2, 6), (3, 7), (4, 7), (5, 8), (6, 8)])
def test_ex11_reload(r, total):
    """EX-11 [RB][H]: Revolver 5 Bullets = 5, plus half (up) of the Reload die."""
    m = game("gunslinger", "barbarian")                          # Quick Draw gave her a Reload
    attack(m, [1, 2, 3, 1, 2], "revolver")
    go(m, {"type": "defense", "defense": None}, {"type": "spend", "player": "p1", "status": "reload", "value": r})
    assert end_roll_phase(m)["damage"]["p2"] == total


def test_ex11_reload_with_wild_west_and_limits():
    """EX-11: Wild West! reroll 1 -> 5 gives 5 + 3 + 1 = 9; no Reload on collateral or in another turn."""
    m = game("gunslinger", "barbarian")
    attack(m, [1, 2, 3, 1, 2], "revolver")
    go(m, {"type": "defense", "defense": None},
       {"type": "play", "player": "p1", "card": "Wild West!"},
       {"type": "spend", "player": "p1", "status": "reload", "value": 5},
       {"type": "bonus", "amount": 1, "source": "Wild West! reroll"})
    assert end_roll_phase(m)["damage"]["p2"] == 9
    m = game("barbarian", "gunslinger")                          # the Barbarian's turn
    give(m, "p2", reload=1)
    attack(m, [1, 2, 3, 4, 4], "smack")
    err = illegal(m, {"type": "spend", "player": "p2", "status": "reload"})
    assert err.code == "cannot_spend"
    m = game("pyromancer", "gunslinger")                          # collateral only: not an attack
    give(m, "p1", reload=1)
    attack(m, [5, 5, 1, 2, 3], "burning_soul")
    assert illegal(m, {"type": "spend", "player": "p1", "status": "reload"}).code == "cannot_spend"


def test_ex12_bounty():
    """EX-12 [RB]: 4 + 1 = 5 and the attacker gains 1 CP; Bounty stays; collateral gets neither."""
    m = game("gunslinger", "barbarian")
    give(m, "p2", bounty=1)
    attack(m, [1, 2, 3, 1, 4], "revolver")                      # 4 Bullets: 4
    go(m, {"type": "defense", "defense": None})
    assert end_roll_phase(m)["damage"]["p2"] == 5
    assert cp(m, "p1") == 3 and tokens(m, "p2")["bounty"] == 1
    m = game("pyromancer", "barbarian")
    give(m, "p2", bounty=1)
    attack(m, [5, 5, 1, 2, 3], "burning_soul")                  # 2 Fiery Souls: 2 collateral
    assert end_roll_phase(m)["damage"]["p2"] == 2
    assert cp(m, "p1") == 2


@pytest.mark.parametrize("rolls, takes", [((4, 2), 0), ((4, 5), 7)])
def test_ex13_evasive_several_tokens_one_source(rolls, takes):
    """EX-13 [RB]: two Evasives against 7 + Entangle: one success avoids the damage, Entangle still lands."""
    m = game("moon_elf", "gunslinger")
    give(m, "p2", evasive=2)
    attack(m, [1, 2, 3, 4, 4], "entangling_shot")
    go(m, {"type": "defense", "defense": None})
    for v in rolls:
        go(m, {"type": "spend", "player": "p2", "status": "evasive", "value": v})
    assert end_roll_phase(m)["damage"]["p2"] == takes
    assert tokens(m, "p2") == {"entangle": 1, "reload": 1} or tokens(m, "p2") == {"entangle": 1}


# -- C. Dice recognition -----------------------------------------------------------------------------


@pytest.mark.parametrize("dice, names", [
    ([1, 2, 3, 6, 6], {"smack": 0, "sturdy_blow": 0, "overpower": 0}),
    ([6, 6, 6, 6, 6], {"rage": 0, "crit_bash": 0}),
    ([4, 4, 5, 5, 5], {"fortitude": 2}),
    ([1, 2, 3, 4, 5], {"smack": 0, "mighty_blow": 0, "reckless": 0}),
    ([1, 4, 4, 6, 2], {}),
])
def test_ex15_symbol_requirements_are_minimum_counts(dice, names):
    """EX-15 [H: BOT] (rules §5): which Barbarian abilities the dice meet, with the tier paid."""
    met = {a["id"]: a["tier"] for a in satisfied("barbarian", {}, dice)}
    assert met == names


@pytest.mark.parametrize("dice, damage, undefendable", [
    ([1, 1, 1, 1, 4], 7, True), ([1, 2, 3, 1, 1], 9, False), ([1, 2, 3, 3, 3], 9, False), ([2, 2, 2, 2, 2], 9, True)])
def test_ex16_of_a_kind_uses_numbers(dice, damage, undefendable):
    """EX-16 [RB][H] (rules §5): Smack II 5/7/9, undefendable on four of a kind (by number; AMB: at least 4)."""
    m = game("barbarian", "gunslinger")
    go(m, {"type": "adjust", "player": "p1", "upgrades": {"smack": 2}})
    attack(m, dice, "smack")
    view = snap(m)["roll_phase"]["attack"]
    assert view["base"] == damage
    assert (view["type"] == "undefendable") is undefendable
    assert (kind(m) == "defense") is not undefendable


def test_ex17_on_versus_multiplier():
    """EX-17 [RB][H] (rules §7.4): 'on X' counts once, 'N x X' per die."""
    m = game("gunslinger", "barbarian")                          # Thick Skin: heal 2 x Heart
    attack(m, [1, 2, 3, 4, 4], "revolver")
    go(m, {"type": "defense", "defense": "thick_skin"}, {"type": "roll", "dice": [4, 5, 1]}, {"type": "resolve"})
    assert snap(m)["roll_phase"]["heals"] == [{"to": "p2", "amount": 4}]
    for level, undef in ((1, 3), (2, 4)):                        # Shade Shift: Ninjato, Ninjato, Shuriken
        m = game("gunslinger", "ninja")
        go(m, {"type": "adjust", "player": "p2", "upgrades": {"shade_shift": level}})
        attack(m, [1, 2, 3, 4, 4], "revolver")
        go(m, {"type": "defense", "defense": "shade_shift"}, {"type": "roll", "dice": [1, 2, 4]}, {"type": "resolve"})
        assert end_roll_phase(m)["damage"]["p1"] == undef
    m = game("treant", "barbarian")                              # Call of the Wild bonus roll
    attack(m, [1, 2, 3, 4, 5], "call_of_the_wild")
    go(m, {"type": "roll", "dice": [4, 5, 1, 6]}, {"type": "resolve"})   # Leaf, Leaf, Branch, Spirit
    assert snap(m)["pending"]["about"]["effect"] == "grow"          # the Spirit grows: new or promoted?
    go(m, {"type": "choose", "option": 0})                           # a new Seedling
    assert attack_view(m)["base"] == 9
    assert tokens(m, "p1") == {"wellspring": 1, "spirit": 2}     # 1 from Fertilize at Upkeep, 1 grown


# -- D. Health, CP, cards ----------------------------------------------------------------------------


@pytest.mark.parametrize("before, heal, after", [(57, 6, 60), (60, 2, 60), (30, 5, 35)])
def test_ex18_heal_cap_1v1(before, heal, after):
    """EX-18 [RB] (rules §3): healing stops at start + 10 (60 in 1v1)."""
    m = game("barbarian", "gunslinger")
    set_health(m, "p1", before)
    go(m, {"type": "adjust", "player": "p1", "health": heal})
    assert health(m, "p1") == after


def test_ex18_heal_cap_other_modes():
    """EX-18 [RB][R]: 3-player 44 + 4 -> 45; 2v2 team dial 58 + 5 -> 60 (Fortitude heals the team)."""
    m = game("barbarian", "gunslinger", "ninja", mode="koth")
    set_health(m, "p1", 44)
    go(m, {"type": "adjust", "player": "p1", "health": 4})
    assert health(m, "p1") == 45
    m = game("barbarian", "gunslinger", "ninja", "samurai", mode="2v2")
    set_health(m, "p3", 58)                                      # p1 and p3 are team A
    attack(m, [4, 4, 5, 5, 1], "fortitude")                      # 4 Hearts: heal 5
    end_roll_phase(m)
    assert health(m, "p1") == 60 and health(m, "p3") == 60


def test_ex19_cp_cap():
    """EX-19 [RB] (rules §4): CP never exceeds 15; selling at 15 still discards the card."""
    m = game("barbarian", "gunslinger")
    set_cp(m, "p2", 14)
    go(m, {"type": "advance"}, {"type": "roll"}, {"type": "ability", "ability": None}, {"type": "advance"})
    assert cp(m, "p2") == 15                                     # 14 + Income
    m = game("barbarian", "gunslinger")
    set_cp(m, "p2", 15)
    go(m, {"type": "advance"}, {"type": "roll"}, {"type": "ability", "ability": None}, {"type": "advance"})
    assert cp(m, "p2") == 15                                     # 15 + Income
    for start in (13, 14):
        m = game("barbarian", "gunslinger")
        set_cp(m, "p1", start)
        go(m, {"type": "play", "player": "p1", "card": "Getting Paid!"})
        assert cp(m, "p1") == 15
    m = game("barbarian", "gunslinger")
    set_cp(m, "p1", 15)
    go(m, {"type": "sell"})
    assert cp(m, "p1") == 15 and player(m, "p1")["hand"] == 3 and player(m, "p1")["discard"] == 1
    go(m, {"type": "play", "player": "p1", "card": "Triple Up!"})
    assert cp(m, "p1") == 13                                     # pay 2


def test_ex20_start_player_skips_first_income():
    """EX-20 [RB] (rules §2.2): at Main (1): A 2 CP 4 cards; B 3/5; A 3/5; B 4/6."""
    m = game("barbarian", "gunslinger")
    seen = []
    for _turn in range(4):
        active = snap(m)["active"]
        seen.append((active, cp(m, active), player(m, active)["hand"]))
        go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 4, 4, 6, 2]}, {"type": "ability", "ability": None},
           {"type": "advance"})
    assert seen == [("p1", 2, 4), ("p2", 3, 5), ("p1", 3, 5), ("p2", 4, 6)]


@pytest.mark.parametrize("cards, cp0, sold, cp1", [(8, 5, 2, 7), (6, 5, 0, 5), (9, 14, 3, 15)])
def test_ex21_discard_phase(cards, cp0, sold, cp1):
    """EX-21 [RB] (rules §2.7): sell down to 6 at the end of the turn, 1 CP each (capped)."""
    m = game("barbarian", "gunslinger")
    go(m, {"type": "adjust", "player": "p1", "hand": cards - 4})
    set_cp(m, "p1", cp0)
    go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 4, 4, 6, 2]}, {"type": "ability", "ability": None},
       {"type": "advance"})
    assert player(m, "p1")["hand"] == cards                      # 7+ in Main (2) was legal
    for _ in range(sold):
        assert kind(m) == "discard"
        go(m, {"type": "sell"})
    assert player(m, "p1")["hand"] == min(cards, 6) and cp(m, "p1") == cp1
    assert snap(m)["active"] == "p2"


def test_ex22_upgrade_costs():
    """EX-22 [RB][H: BOT costs] (rules §7.2): II then III pays the difference; III straight pays in full."""
    m = game("barbarian", "gunslinger")
    set_cp(m, "p1", 10)
    go(m, {"type": "play", "player": "p1", "card": "Smack II"})
    assert cp(m, "p1") == 8 and player(m, "p1")["upgrades"]["smack"] == 2
    go(m, {"type": "play", "player": "p1", "card": "Smack III"})
    assert cp(m, "p1") == 7 and player(m, "p1")["upgrades"]["smack"] == 3
    assert illegal(m, {"type": "sell", "card": "Smack III"}).code == "installed"
    m = game("barbarian", "gunslinger")
    set_cp(m, "p1", 10)
    go(m, {"type": "play", "player": "p1", "card": "Smack III"})
    assert cp(m, "p1") == 7
    m = game("gunslinger", "barbarian")
    set_cp(m, "p1", 10)
    go(m, {"type": "play", "player": "p1", "card": "Showdown II"}, {"type": "play", "player": "p1", "card": "Showdown III"})
    assert cp(m, "p1") == 10 - 2 - 1
    go(m, {"type": "advance"})                                   # the Roll Phase: upgrades are illegal
    assert illegal(m, {"type": "play", "player": "p1", "card": "Revolver II"}).code == "wrong_time"


def test_ex23_steal():
    """EX-23 [RB] (rules §7.4, §4 AMB): steal 2 CP from 1 -> +1 / 0; steal 3 health from 10 -> 7."""
    from engine.dicethrone import effects as fx
    from engine.dicethrone import state as st
    s = st.setup({"players": [{"hero": "barbarian"}, {"hero": "gunslinger"}], "start": "p1"}, 1)
    s["players"][1]["cp"] = 1
    ctx = {"owner": 0, "other": 1, "role": "card", "roll": None, "final": None, "faces": ["x"] * 6}
    fx.apply(s, {"do": "steal_cp", "amount": 2}, ctx)
    assert (s["players"][0]["cp"], s["players"][1]["cp"]) == (3, 0)
    s["teams"][1]["health"] = 10
    s["teams"][0]["health"] = 58
    fx.apply(s, {"do": "steal_health", "amount": 3}, ctx)
    assert s["teams"][1]["health"] == 7 and s["teams"][0]["health"] == 60    # heal cap [AMB]


def test_ex24_empty_deck_reshuffles_discard():
    """EX-24 [RB] (rules §2.2): deck 0, discard 12 -> shuffle, draw 1 -> deck 11."""
    m = game("barbarian", "gunslinger")
    go(m, {"type": "adjust", "player": "p2", "deck": -28, "discard": 12})
    hand = player(m, "p2")["hand"]
    go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 4, 4, 6, 2]}, {"type": "ability", "ability": None},
       {"type": "advance"})
    p2 = player(m, "p2")
    assert (p2["deck"], p2["discard"], p2["hand"]) == (11, 0, hand + 1)


# -- E. Turn-flow statuses ---------------------------------------------------------------------------


def _to_p2_main(m):
    go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 4, 4, 6, 2]}, {"type": "ability", "ability": None},
       {"type": "advance"})


def test_ex25_knockdown():
    """EX-25 [RB] (rules §6.6): pay 2 CP or skip the ORP; the token goes either way (e: declining is allowed, AMB)."""
    m = game("barbarian", "gunslinger")                          # a: 3 CP, pay
    give(m, "p2", knockdown=1)
    set_cp(m, "p2", 2)
    _to_p2_main(m)
    assert cp(m, "p2") == 3
    go(m, {"type": "advance"})
    assert kind(m) == "knockdown"
    go(m, {"type": "knockdown", "pay": True})
    assert cp(m, "p2") == 1 and "knockdown" not in tokens(m, "p2") and kind(m) == "offense"
    m = game("barbarian", "gunslinger")                          # b: 1 CP, Income -> 2, pay
    give(m, "p2", knockdown=1)
    set_cp(m, "p2", 1)
    _to_p2_main(m)
    go(m, {"type": "advance"}, {"type": "knockdown", "pay": True})
    assert cp(m, "p2") == 0 and kind(m) == "offense"
    m = game("barbarian", "gunslinger")                          # c: 0 CP, Concussion, sell 2 in Main (1)
    give(m, "p2", knockdown=1, concussion=1)
    set_cp(m, "p2", 0)
    go(m, {"type": "adjust", "player": "p2", "hand": -1})
    _to_p2_main(m)
    assert cp(m, "p2") == 0 and player(m, "p2")["hand"] == 3
    go(m, {"type": "sell"}, {"type": "sell"}, {"type": "advance"}, {"type": "knockdown", "pay": True})
    assert cp(m, "p2") == 0 and player(m, "p2")["hand"] == 1 and kind(m) == "offense"
    m = game("barbarian", "gunslinger")                          # d: cannot pay
    give(m, "p2", knockdown=1, concussion=1)
    set_cp(m, "p2", 0)
    go(m, {"type": "adjust", "player": "p2", "hand": -4})
    _to_p2_main(m)
    go(m, {"type": "advance"})
    assert [o["action"] for o in pending(m)["options"]] == [{"type": "knockdown", "player": "p2", "pay": False}]
    assert illegal(m, {"type": "knockdown", "pay": True}).code == "not_enough_cp"
    go(m, {"type": "knockdown", "pay": False})
    assert snap(m)["phase"] == "main2" and "knockdown" not in tokens(m, "p2")
    m = game("barbarian", "gunslinger")                          # e: 4 CP, declines
    give(m, "p2", knockdown=1)
    set_cp(m, "p2", 3)
    _to_p2_main(m)
    go(m, {"type": "advance"}, {"type": "knockdown", "pay": False})
    assert cp(m, "p2") == 4 and snap(m)["phase"] == "main2"


def test_ex26_concussion():
    """EX-26 [RB][H]: Concussion skips the next Income and goes; the following Income is normal."""
    m = game("barbarian", "gunslinger")
    give(m, "p2", concussion=1)
    set_cp(m, "p2", 4)
    go(m, {"type": "adjust", "player": "p2", "hand": 1})
    _to_p2_main(m)
    assert (cp(m, "p2"), player(m, "p2")["hand"]) == (4, 5) and "concussion" not in tokens(m, "p2")
    go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 4, 4, 6, 2]}, {"type": "ability", "ability": None},
       {"type": "advance"})
    _to_p2_main(m)
    assert (cp(m, "p2"), player(m, "p2")["hand"]) == (5, 6)


def test_ex27_stun():
    """EX-27 [H: BOT, SE] (rules §6.6): Stun first, no spends or cards, takes 5, then an extra ORP."""
    m = game("barbarian", "gunslinger")
    give(m, "p2", evasive=2)
    attack(m, [6, 6, 6, 6, 1], "crit_bash")
    assert tokens(m, "p2")["stun"] == 1
    assert illegal(m, {"type": "spend", "player": "p2", "status": "evasive", "value": 1}).code == "cannot_spend"
    assert illegal(m, {"type": "play", "player": "p2", "card": "So Wild!", "die": 0, "value": 1}).code == "stunned"
    assert end_roll_phase(m)["damage"]["p2"] == 5
    assert tokens(m, "p2")["evasive"] == 2 and "stun" not in tokens(m, "p2")
    s = snap(m)
    assert s["phase"] == "offensive" and s["active"] == "p1" and s["attempts"] == {"used": 0, "max": 3}
    go(m, {"type": "roll", "dice": [1, 2, 3, 4, 4]}, {"type": "ability", "ability": "smack"}, {"type": "pass"})
    assert snap(m)["roll_phase"]["target"] == "p2"
    go(m, {"type": "defense", "defense": None}, {"type": "spend", "player": "p2", "status": "evasive", "value": 1})
    assert end_roll_phase(m)["damage"]["p2"] == 0               # acts normally in the extra ORP
    assert snap(m)["phase"] == "main2"


def test_ex28_roll_attempt_counting():
    """EX-28 [H: SE]: Entangle -> 2; + One More Time! -> 3; Constrict -> 2, 3 after paying 1 CP."""
    m = game("barbarian", "gunslinger")
    give(m, "p1", entangle=1)
    go(m, {"type": "advance"})
    assert snap(m)["attempts"]["max"] == 2
    go(m, {"type": "play", "player": "p1", "card": "One More Time!"})
    assert snap(m)["attempts"]["max"] == 3
    m = game("barbarian", "gunslinger")
    give(m, "p1", constrict=1)
    go(m, {"type": "advance"})
    assert snap(m)["attempts"]["max"] == 2
    go(m, {"type": "buy_attempt"})
    assert snap(m)["attempts"]["max"] == 3 and cp(m, "p1") == 1


@pytest.mark.parametrize("attempts, damage", [(3, 2), (1, 0), (4, 2)])
def test_ex28_barbed_vine(attempts, damage):
    """EX-28: Barbed Vine: 1 damage per attempt beyond the first, at most 2; removed at the end."""
    m = game("barbarian", "gunslinger")
    give(m, "p1", barbed_vine=1)
    go(m, {"type": "advance"})
    if attempts == 4:
        go(m, {"type": "play", "player": "p1", "card": "One More Time!"})
    for _ in range(attempts):
        go(m, {"type": "roll", "dice": [1, 4, 4, 6, 2][:sum(1 for d in snap(m)["dice"] if not d["kept"])]})
    go(m, {"type": "ability", "ability": None})
    assert health(m, "p1") == 50 - damage and "barbed_vine" not in tokens(m, "p1")


def test_ex29_redeclare_after_helping_hand():
    """EX-29 [RB] (rules §2.4.3): after Helping Hand! breaks Smack, declare again or use the third attempt."""
    m = game("barbarian", "gunslinger")
    go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 1, 2, 4, 4]}, {"type": "keep", "dice": [0, 1, 3, 4]},
       {"type": "roll", "dice": [3]}, {"type": "ability", "ability": "smack"})
    assert kind(m) == "confirm"
    go(m, {"type": "play", "player": "p2", "card": "Helping Hand!", "die": 2, "values": [6]})
    assert kind(m) == "offense" and snap(m)["abilities"] == []
    actions = [o["action"] for o in pending(m)["options"]]
    assert {"type": "roll"} in actions
    assert illegal(m, {"type": "ability", "ability": "smack"}).code == "not_satisfied"
    go(m, {"type": "roll", "dice": [3]}, {"type": "ability", "ability": "smack"}, {"type": "pass"})
    assert snap(m)["roll_phase"]["ability"] == "smack"
    m = game("barbarian", "gunslinger")                           # all 3 attempts used: no ability
    go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 1, 2, 4, 4]}, {"type": "roll", "dice": [1, 1, 2, 4, 4]},
       {"type": "roll", "dice": [1, 1, 3, 4, 4]}, {"type": "ability", "ability": "smack"},
       {"type": "play", "player": "p2", "card": "Helping Hand!", "die": 2, "values": [6]})
    assert [o["action"] for o in pending(m)["options"]] == [{"type": "ability", "player": "p1", "ability": None}]
    go(m, {"type": "ability", "ability": None})
    assert snap(m)["phase"] == "main2"


def test_ex29_same_ability_may_be_redeclared():
    """Rules §2.4.3 [AMBIGUOUS, recommended yes]: the original ability may be kept if it still qualifies."""
    m = game("barbarian", "gunslinger")
    go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 1, 3, 3, 4]}, {"type": "ability", "ability": "smack"},
       {"type": "play", "player": "p2", "card": "Tip It!", "die": 4, "delta": -1},
       {"type": "ability", "ability": "smack"}, {"type": "pass"})
    assert attack_view(m)["base"] == 8                            # 4 Swords became 5


# -- F. Cursed Pirate statuses -----------------------------------------------------------------------


@pytest.mark.parametrize("v, exploded", [(1, True), (2, True), (3, False), (5, False)])
def test_ex30_powder_keg_upkeep(v, exploded):
    """EX-30 [RB] (C9): Upkeep die 1-2 explodes for 3 undefendable; 3-5 nothing."""
    m = game("barbarian", "gunslinger")
    give(m, "p2", powder_keg=1)
    go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 4, 4, 6, 2]}, {"type": "ability", "ability": None},
       {"type": "advance"})
    assert kind(m) == "keg_roll"
    go(m, {"type": "roll", "dice": [v]})
    assert health(m, "p2") == (47 if exploded else 50)
    assert ("powder_keg" in tokens(m, "p2")) is not exploded
    assert kind(m) == "main"


def test_ex30_keg_pass_on_six_and_second_keg():
    """EX-30 [RB]: on a 6 the keg may be passed; a second keg explodes the held one at once (limit 1)."""
    m = game("barbarian", "gunslinger")
    give(m, "p2", powder_keg=1)
    _to_p2_main_from_keg = [{"type": "advance"}, {"type": "roll", "dice": [1, 4, 4, 6, 2]},
                            {"type": "ability", "ability": None}, {"type": "advance"}]
    go(m, *_to_p2_main_from_keg, {"type": "roll", "dice": [6]})
    assert kind(m) == "keg_pass"
    go(m, {"type": "pass_keg", "target": "p1"})
    assert tokens(m, "p1") == {"powder_keg": 1} and "powder_keg" not in tokens(m, "p2")
    give(m, "p1", powder_keg=1)                                  # a second keg
    assert health(m, "p1") == 47 and tokens(m, "p1") == {"powder_keg": 1}


def test_ex30_keg_exploding_during_an_attack_is_separate():
    """EX-30 [AMB]: Light the Fuse on a keg holder: 3 at once, then the 8 goes through defense normally."""
    m = game("cursed_pirate", "barbarian")
    give(m, "p2", powder_keg=1)
    attack(m, [1, 2, 3, 4, 6], "light_the_fuse")
    assert health(m, "p2") == 47
    go(m, {"type": "defense", "defense": "thick_skin"}, {"type": "roll", "dice": [1, 1, 1]}, {"type": "resolve"})
    assert end_roll_phase(m)["damage"]["p2"] == 8
    assert health(m, "p2") == 39


def test_ex31_cursed_doubloon():
    """EX-31 [RB] (C10): 3 Doubloons cost the Gunslinger 3 per Upkeep; the Pirate holds 5 at no cost; 4th lost."""
    m = game("cursed_pirate", "gunslinger")
    give(m, "p2", cursed_doubloon=4)
    assert tokens(m, "p2")["cursed_doubloon"] == 3
    give(m, "p1", cursed_doubloon=5)
    assert tokens(m, "p1")["cursed_doubloon"] == 5
    _to_p2_main(m)
    assert health(m, "p2") == 47
    go(m, {"type": "play", "player": "p2", "card": "Get That Outta Here!", "target": "p2", "status": "cursed_doubloon"})
    assert tokens(m, "p2")["cursed_doubloon"] == 3
    _to_p2_main_turn = [{"type": "advance"}, {"type": "roll", "dice": [1, 4, 4, 6, 2]},
                        {"type": "ability", "ability": None}, {"type": "advance"}]
    go(m, *_to_p2_main_turn)
    assert health(m, "p1") == 50                                 # the Pirate's Upkeep: no damage


def test_ex32_wither():
    """EX-32 [RB] (C11): 3 - 2 Wither = 1; with Bounty 2 and +1 CP; an ultimate is not reduced; Wither stays."""
    m = game("gunslinger", "barbarian")
    give(m, "p1", wither=2)
    attack(m, [1, 2, 3, 4, 4], "revolver")
    go(m, {"type": "defense", "defense": None})
    assert end_roll_phase(m)["damage"]["p2"] == 1
    assert tokens(m, "p1")["wither"] == 2
    m = game("gunslinger", "barbarian")
    give(m, "p1", wither=2)
    give(m, "p2", bounty=1)
    attack(m, [1, 2, 3, 4, 4], "revolver")
    go(m, {"type": "defense", "defense": None})
    assert end_roll_phase(m)["damage"]["p2"] == 2 and cp(m, "p1") == 3
    m = game("barbarian", "gunslinger")
    give(m, "p1", wither=2)
    attack(m, [6, 6, 6, 6, 6], "rage")
    assert end_roll_phase(m)["damage"]["p2"] == 15               # an ultimate is never reduced
    m = game("gunslinger", "barbarian")
    give(m, "p1", wither=2)
    attack(m, [6, 6, 6, 6, 6], "fill_em_with_lead")
    # EX-32 prints 10; Fill 'Em With Lead! inflicts Bounty on its own target first, and Bounty applies to
    # the attack it was inflicted by (EX-47), so 10 + 1; Wither takes nothing off either way.
    assert end_roll_phase(m)["damage"]["p2"] == 11


def test_ex33_parlay():
    """EX-33 [RB]: with Parlay, Bounty Hunter still inflicts Bounty but deals 0; Parlay goes at the end."""
    m = game("gunslinger", "barbarian")
    give(m, "p1", parlay=1)
    attack(m, [1, 2, 6, 6, 4], "bounty_hunter")
    assert tokens(m, "p2")["bounty"] == 1
    assert end_roll_phase(m)["damage"]["p2"] == 0
    assert "parlay" not in tokens(m, "p1")
    go(m, {"type": "advance"})                                   # end of p1's turn
    _to_p2_main(m)                                               # p2's turn passes
    attack(m, [1, 2, 3, 4, 4], "revolver")
    go(m, {"type": "defense", "defense": None})
    assert end_roll_phase(m)["damage"]["p2"] == 4                # 3 + Bounty: damage is normal again


def test_ex33_parlay_does_not_stop_an_ultimate():
    """Rules §9 [AMBIGUOUS 7]: Parlay does not reduce ultimate damage."""
    m = game("gunslinger", "barbarian")
    give(m, "p1", parlay=1)
    attack(m, [6, 6, 6, 6, 6], "fill_em_with_lead")
    assert end_roll_phase(m)["damage"]["p2"] == 11               # 10 + the Bounty it just inflicted


# -- G. Multiplayer ----------------------------------------------------------------------------------


@pytest.mark.parametrize("healths, target, draws", [
    ((20, 35, 30), "p2", True), ((20, 35, 30), "p3", False), ((20, 30, 30), "p2", True),
    ((20, 30, 30), "p3", True), ((30, 30, 20), "p2", True), ((30, 30, 20), "p3", False),
    ((35, 30, 20), "p2", False), ((35, 30, 20), "p3", False), ((35, 35, 35), "p3", True)])
def test_ex34_king_of_the_hill_leader_draw(healths, target, draws):
    """EX-34 [RB] (rules §14): attacking a leader (ties included) draws 1 card as soon as the target is chosen."""
    m = game("gunslinger", "barbarian", "ninja", mode="koth")
    for k, h in enumerate(healths):
        set_health(m, f"p{k + 1}", h)
    attack(m, [1, 2, 6, 6, 4], "bounty_hunter")                  # Bounty, then 1 undefendable
    assert kind(m) == "target"
    hand = player(m, "p1")["hand"]
    go(m, {"type": "target", "target": target})
    assert player(m, "p1")["hand"] == hand + (1 if draws else 0)
    assert tokens(m, target)["bounty"] == 1


def test_ex34_no_draw_for_a_targeted_ability_without_damage():
    """Rules §14 [AMBIGUOUS 6, recommended no]: Mark the Target is not an attack: no leader draw."""
    m = game("gunslinger", "barbarian", "ninja", mode="koth")
    go(m, {"type": "adjust", "player": "p1", "upgrades": {"take_cover": 2}})
    set_health(m, "p1", 20)
    attack(m, [4, 4, 5, 1, 6], "mark_the_target")
    hand = player(m, "p1")["hand"]
    go(m, {"type": "target", "target": "p2"})
    assert player(m, "p1")["hand"] == hand and tokens(m, "p2")["bounty"] == 1


def test_ex35_two_v_two_targeting_roll():
    """EX-35 [RB] (rules §2.5): die 3 -> right; Tip It! to 2 -> left; an ultimate's die cannot be changed."""
    m = game("gunslinger", "barbarian", "ninja", "samurai", mode="2v2")  # A: p1, p3; B: p2, p4
    assert snap(m)["order"] == ["p1", "p2", "p3", "p4"]
    attack(m, [1, 2, 3, 1, 4], "revolver")
    assert kind(m) == "targeting_roll"
    go(m, {"type": "roll", "dice": [3]}, {"type": "play", "player": "p2", "card": "Tip It!", "die": 0, "delta": -1},
       {"type": "resolve"})
    assert snap(m)["roll_phase"]["target"] == "p2"               # left = next opponent in turn order
    m = game("gunslinger", "barbarian", "ninja", "samurai", mode="2v2")
    attack(m, [1, 2, 3, 1, 4], "revolver")
    go(m, {"type": "roll", "dice": [3]}, {"type": "resolve"})
    assert snap(m)["roll_phase"]["target"] == "p4"
    m = game("gunslinger", "barbarian", "ninja", "samurai", mode="2v2")
    attack(m, [6, 6, 6, 6, 6], "fill_em_with_lead")
    go(m, {"type": "roll", "dice": [3]})
    assert illegal(m, {"type": "play", "player": "p2", "card": "Tip It!", "die": 0, "delta": -1}).code == "ultimate"


@pytest.mark.parametrize("v, chooser", [(5, "p2"), (6, "p1")])
def test_ex35_targeting_five_and_six(v, chooser):
    """EX-35: 5 -> the opposing team chooses; 6 -> the attacker chooses."""
    m = game("gunslinger", "barbarian", "ninja", "samurai", mode="2v2")
    attack(m, [1, 2, 3, 1, 4], "revolver")
    go(m, {"type": "roll", "dice": [v]}, {"type": "resolve"})
    assert kind(m) == "target" and pending(m)["player"] == chooser
    go(m, {"type": "target", "target": "p4"})
    assert snap(m)["roll_phase"]["target"] == "p4"


def test_ex36_collateral_to_a_team():
    """EX-36 [RB][H] (rules §8, §13): Will o' Wisp!: 1 collateral to each opponent -> team dial 48."""
    m = game("treant", "barbarian", "ninja", "samurai", mode="2v2")
    go(m, {"type": "play", "player": "p1", "card": "Will o' Wisp!", "roll": [1, 4, 6]})
    assert health(m, "p2") == 48 and health(m, "p4") == 48
    go(m, {"type": "choose", "option": 0})                       # the Spirit grows: a new Seedling
    assert tokens(m, "p1") == {"spirit": 2, "wellspring": 1}    # Fertilize + the grown Spirit
    m = game("pyromancer", "barbarian", "ninja", "samurai", mode="2v2")
    attack(m, [6, 6, 6, 6, 1], "meteorite")                      # 2 collateral to every opponent
    go(m, {"type": "roll", "dice": [1]}, {"type": "resolve"})
    summary = end_roll_phase(m)
    collateral = [p for p in summary["packets"] if p["type"] == "collateral"]
    assert len(collateral) == 2 and all(p["taken"] == 2 for p in collateral)


def test_ex37_shared_health_batches():
    """EX-37 [RB][H] (rules §13): 4 pure to each of two teammates in one batch -> -8; two batches -3, -5."""
    from engine.dicethrone import state as st
    s = st.setup({"mode": "2v2", "players": [{"hero": "ninja"}, {"hero": "barbarian"}, {"hero": "monk"},
                                             {"hero": "samurai"}], "start": "p1"}, 1)
    st.apply_batch(s, {1: 4, 3: 4}, {})
    assert s["teams"][1]["health"] == 42
    st.apply_batch(s, {1: 3}, {})
    st.apply_batch(s, {3: 5}, {})
    assert s["teams"][1]["health"] == 34


def test_ex38_protecting_a_teammate():
    """EX-38 [RB] (rules §13): Not This Time! on a teammate prevents 6 of 9; her own Protect cannot help."""
    m = game("barbarian", "gunslinger", "ninja", "paladin", mode="2v2")
    give(m, "p4", protect=1)
    attack(m, [1, 2, 3, 4, 6], "mighty_blow")                    # 9
    go(m, {"type": "roll", "dice": [1]}, {"type": "resolve"})    # left opponent: p2
    go(m, {"type": "defense", "defense": None})
    assert illegal(m, {"type": "spend", "player": "p4", "status": "protect"}).code == "cannot_spend"
    go(m, {"type": "play", "player": "p4", "card": "Not This Time!", "target": "p2"})
    assert end_roll_phase(m)["damage"]["p2"] == 3
    assert health(m, "p4") == 47


# -- H. End of game ----------------------------------------------------------------------------------


def test_ex39_simultaneous_death_is_a_draw():
    """EX-39 [RB] (rules §3): Paladin 10 takes 10, Retribution sends 5 to the Barbarian at 5: draw."""
    m = game("barbarian", "paladin")
    set_health(m, "p1", 5)
    set_health(m, "p2", 10)
    give(m, "p2", retribution=1)
    attack(m, [1, 2, 3, 6, 6], "overpower")
    go(m, {"type": "roll", "dice": [4, 3, 3]}, {"type": "resolve"}, {"type": "defense", "defense": None},
       {"type": "spend", "player": "p2", "status": "retribution"})
    end_roll_phase(m)
    s = snap(m)
    assert s["draw"] is True and s["winner"] is None and s["pending"] is None
    assert health(m, "p1") == 0 and health(m, "p2") == 0


@pytest.mark.parametrize("evasive, draw", [(None, True), (1, False)])
def test_ex39_reckless_variant(evasive, draw):
    """EX-39 [H: BOT]: Reckless at 4 vs 15: both 0, draw; if the damage is avoided, no recoil."""
    m = game("barbarian", "gunslinger")
    set_health(m, "p1", 4)
    set_health(m, "p2", 15)
    give(m, "p2", evasive=1)
    attack(m, [1, 2, 3, 4, 5], "reckless")
    go(m, {"type": "defense", "defense": None})
    if evasive:
        go(m, {"type": "spend", "player": "p2", "status": "evasive", "value": evasive})
    end_roll_phase(m)
    assert snap(m)["draw"] is draw
    assert health(m, "p1") == (0 if draw else 4)


def test_ex40_upkeep_batching():
    """EX-40 [RB] (rules §2.1): Burn 2 + 2 Poison at 4 health -> 0 at the end of the Upkeep: defeated."""
    m = game("barbarian", "gunslinger")
    set_health(m, "p2", 4)
    give(m, "p2", burn=1, poison=2)
    _to_p2_main(m)
    s = snap(m)
    assert health(m, "p2") == 0 and s["winner"] == "p1" and s["winners"] == ["p1"]


@pytest.mark.parametrize("bounty, takes", [(False, 15), (True, 16)])
def test_ex41_ultimate_cannot_be_reduced(bounty, takes):
    """EX-41 [RB][H] (rules §9): Rage! ignores Protect, Retribution, Absolution!; Bounty still adds."""
    m = game("barbarian", "paladin")
    give(m, "p2", protect=1, retribution=1, **({"bounty": 1} if bounty else {}))
    attack(m, [6, 6, 6, 6, 6], "rage")
    assert kind(m) == "window"                                   # no defense
    for action in ({"type": "spend", "player": "p2", "status": "protect"},
                   {"type": "spend", "player": "p2", "status": "retribution"},
                   {"type": "play", "player": "p2", "card": "Absolution!"}):
        illegal(m, action)
    assert end_roll_phase(m)["damage"]["p2"] == takes
    assert cp(m, "p1") == (3 if bounty else 2)
    assert snap(m)["phase"] == "offensive"                       # Stun: the extra ORP


def test_ex42_blessing_of_divinity():
    """EX-42 [H: SE]: at 6 with Blessing, taking 10 leaves 1 and removes it; the next lethal hit kills."""
    m = game("barbarian", "paladin")
    set_health(m, "p2", 6)
    give(m, "p2", blessing_of_divinity=1)
    attack(m, [1, 2, 3, 6, 6], "overpower")
    go(m, {"type": "roll", "dice": [4, 3, 3]}, {"type": "resolve"}, {"type": "defense", "defense": None})
    end_roll_phase(m)
    assert health(m, "p2") == 1 and "blessing_of_divinity" not in tokens(m, "p2")
    go(m, {"type": "adjust", "player": "p2", "health": -5})
    assert health(m, "p2") == 0 and snap(m)["winner"] == "p1"


# -- J. Timing ---------------------------------------------------------------------------------------


def test_ex46_active_player_priority():
    """EX-46 [RB] (rules §11, v2.4): your Buh, Bye! removes their Evasive first; theirs cannot stop your Reload."""
    m = game("barbarian", "gunslinger")
    give(m, "p2", evasive=1)
    attack(m, [1, 2, 3, 4, 4], "smack")
    go(m, {"type": "defense", "defense": None},
       {"type": "play", "player": "p1", "card": "Buh, Bye!", "target": "p2", "status": "evasive"})
    assert illegal(m, {"type": "spend", "player": "p2", "status": "evasive", "value": 1}).code == "cannot_spend"
    assert end_roll_phase(m)["damage"]["p2"] == 4
    m = game("gunslinger", "barbarian")
    attack(m, [1, 2, 3, 4, 4], "revolver")
    go(m, {"type": "defense", "defense": None}, {"type": "spend", "player": "p1", "status": "reload", "value": 6})
    assert illegal(m, {"type": "play", "player": "p2", "card": "Buh, Bye!", "target": "p1",
                       "status": "reload"}).code == "bad_status"
    assert end_roll_phase(m)["damage"]["p2"] == 6


def test_ex47_then_pause_bounty_applies_to_its_own_attack():
    """EX-47 [RB][H: BOT]: Bounty Hunter inflicts Bounty, then 1 undefendable becomes 2 and +1 CP."""
    m = game("gunslinger", "barbarian")
    attack(m, [1, 2, 6, 6, 4], "bounty_hunter")
    assert tokens(m, "p2")["bounty"] == 1
    assert kind(m) == "window"                                   # undefendable: no defense
    assert end_roll_phase(m)["damage"]["p2"] == 2
    assert cp(m, "p1") == 3
