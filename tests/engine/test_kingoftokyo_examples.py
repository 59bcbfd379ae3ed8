"""The worked examples of the King of Tokyo reference (/work/shared/reference/king-of-tokyo.md §14), one test
per row or example, named by section."""

from __future__ import annotations

import pytest
from kothelp import R, act, answer, end, faces, game, p, turn

from engine.core import IllegalAction

# -- §14.1 scoring -------------------------------------------------------------------------------------------
SCORING = [
    ("1 1 1", 1), ("1 1 1 1", 2), ("1 1 1 1 1", 3), ("1 1 1 1 1 1", 4),
    ("2 2 2", 2), ("2 2 2 2", 3), ("2 2 2 2 2", 4), ("2 2 2 2 2 2", 5),
    ("3 3 3", 3), ("3 3 3 3", 4), ("3 3 3 3 3", 5), ("3 3 3 3 3 3", 6),
    ("1 1 1 3 3 3", 4), ("1 1 1 2 2 2", 3), ("2 2 2 3 3 3", 5),
    ("1 1", 0), ("1 1 2 2 3 3", 0), ("1 2 3", 0),
]


@pytest.mark.parametrize(("numbers", "vp"), SCORING)
def test_14_1_scoring_numbers(numbers: str, vp: int) -> None:
    """§5.1/§14.1: three of a kind scores the number, +1 per extra die; pairs score nothing."""
    dice = numbers.split()
    dice += ["E"] * (6 - len(dice))  # energy faces never score VP
    s = game({}, {"location": "city"})
    s = turn(s, " ".join(dice))
    assert p(s, "p1")["vp"] == vp
    assert p(s, "p1")["energy"] == dice.count("E")


def test_14_1_seven_ones_with_extra_head() -> None:
    """§14.1: seven 1s (Extra Head's green die) score 1 + 4 = 5."""
    s = game({"cards": ["extra_head"]}, {"location": "city"})
    assert [d["colour"] for d in s["dice"]] == ["black"] * 6 + ["green"]
    s = turn(s, "1 1 1 1 1 1 1")
    assert p(s, "p1")["vp"] == 5


# -- §14.2 single-roll vectors -------------------------------------------------------------------------------
def test_14_2_energy() -> None:
    s = turn(game({}, {"location": "city"}), "E E E 1 2 3")
    assert (p(s, "p1")["energy"], p(s, "p1")["vp"]) == (3, 0)


@pytest.mark.parametrize(("health", "cards", "after"), [(5, [], 8), (9, [], 10), (9, ["even_bigger"], 12)])
def test_14_2_heal_outside_and_caps(health: int, cards: list[str], after: int) -> None:
    """§5.4: hearts heal outside Tokyo up to 10, or 12 with Even Bigger."""
    s = turn(game({"health": health, "cards": cards}, {"location": "city"}), "H H H 1 2 3")
    assert p(s, "p1")["health"] == after


def test_14_2_no_healing_in_tokyo() -> None:
    s = turn(game({"health": 5, "location": "city"}, {}), "H H H 1 2 3")
    assert p(s, "p1")["health"] == 5


def test_14_2_claws_from_outside_hit_tokyo_and_allow_yield() -> None:
    s = turn(game({}, {"location": "city"}, {}), "C C 1 2 3 E")
    assert (p(s, "p2")["health"], p(s, "p3")["health"]) == (8, 10)
    assert s["pending"]["kind"] == "yield" and s["pending"]["player"] == 1
    snap = R.snapshot(s)
    assert snap["pending"]["player"] == "p2" and snap["pending"]["damage"] == 2


def test_14_2_claws_from_tokyo_hit_everyone_outside_no_yield() -> None:
    s = turn(game({"location": "city"}, {}, {}), "C C C 1 2 E")
    assert (p(s, "p2")["health"], p(s, "p3")["health"]) == (7, 7)
    assert s["pending"] is None and s["phase"] == "buy"


def test_14_2_first_turn_nobody_hit_and_first_player_enters() -> None:
    s = turn(game({}, {}, {}), "C C C 1 2 3")
    assert all(p(s, x)["health"] == 10 for x in ("p2", "p3"))
    assert p(s, "p1")["loc"] == "city" and p(s, "p1")["vp"] == 1


def test_14_2_forced_entry_without_claws() -> None:
    s = turn(game({}, {}), "1 1 2 2 3 3")
    assert p(s, "p1")["loc"] == "city" and p(s, "p1")["vp"] == 1


def test_14_2_start_in_tokyo_scores_2_before_rolling() -> None:
    s = game({}, {}, {}, {}, {"location": "bay", "vp": 4}, first="p5")
    assert p(s, "p5")["vp"] == 6 and s["rolls"] == 0


# -- §14.3 Gigazaur's roll (seed example) --------------------------------------------------------------------
@pytest.mark.parametrize("cyber_kitty_yields", [False, True])
def test_14_3_gigazaur_roll(cyber_kitty_yields: bool) -> None:
    s = game({"monster": "gigazaur"}, {"monster": "cyber_kitty", "location": "city"})
    s = act(s, {"type": "roll", "dice": faces("3 3 1 H E 2")})
    s = act(s, {"type": "roll", "keep": [0, 1], "dice": faces("2 2 2 C")})
    assert [d["face"] for d in s["dice"]] == faces("3 3 2 2 2 C")
    s = act(s, {"type": "roll", "keep": [2, 3, 4], "dice": faces("2 E C")})  # third roll resolves by itself
    assert sorted(d["face"] for d in s["dice"]) == sorted(faces("2 2 2 2 E C"))
    assert (p(s, "p1")["vp"], p(s, "p1")["energy"], p(s, "p1")["health"]) == (3, 1, 10)
    assert p(s, "p2")["health"] == 9
    s = answer(s, "yield", {"type": "yield" if cyber_kitty_yields else "stay", "player": "p2"})
    assert p(s, "p1")["vp"] == (4 if cyber_kitty_yields else 3)
    assert p(s, "p1")["loc"] == ("city" if cyber_kitty_yields else "out")


# -- §14.4 five-player round (seed example) ------------------------------------------------------------------
def test_14_4_five_player_round() -> None:
    s = game({"monster": "meka_dragon"}, {"monster": "gigazaur", "location": "city", "health": 8},
             {"monster": "space_penguin", "location": "bay"}, {"monster": "the_king"}, {"monster": "cyber_kitty"})
    md, gz, sp, tk, ck = "p1", "p2", "p3", "p4", "p5"
    s = turn(s, "C C C C 1 2")  # 1: Meka Dragon
    assert (p(s, gz)["health"], p(s, sp)["health"]) == (4, 6)
    s = answer(s, "yield", {"type": "yield", "player": gz})  # each decides, in seat order from Meka Dragon
    s = answer(s, "yield", {"type": "yield", "player": sp})
    assert p(s, md)["loc"] == "city" and p(s, md)["vp"] == 1 and s["bay"] is None
    s = end(s)
    s = turn(s, "C 1 1 2 2 3")  # 2: Gigazaur
    assert p(s, md)["health"] == 9
    s = answer(s, "yield", {"type": "stay", "player": md})
    assert p(s, gz)["loc"] == "bay" and p(s, gz)["vp"] == 1
    s = end(s)
    s = turn(s, "C 1 1 2 2 3")  # 3: Space Penguin
    assert (p(s, gz)["health"], p(s, md)["health"]) == (3, 8)
    s = answer(s, "yield", {"type": "stay", "player": md})
    s = answer(s, "yield", {"type": "yield", "player": gz})
    assert p(s, sp)["loc"] == "bay" and p(s, sp)["vp"] == 1
    s = end(s)
    s = end(turn(s, "1 1 2 2 3 3"))  # 4: The King
    s = end(turn(s, "1 1 2 2 3 3"))  # 5: Cyber Kitty
    assert p(s, md)["vp"] == 3  # 6: Meka Dragon starts in Tokyo: +2
    s = turn(s, "C C C 1 2 3")
    assert not p(s, gz)["alive"] and p(s, gz)["health"] == 0
    assert (p(s, tk)["health"], p(s, ck)["health"]) == (7, 7)
    assert p(s, sp)["health"] == 6 and p(s, sp)["loc"] == "out" and not s["bay_open"]
    assert p(s, md)["loc"] == "city" and p(s, md)["health"] == 8 and p(s, md)["vp"] == 3
    assert (p(s, sp)["vp"], p(s, tk)["vp"], p(s, ck)["vp"]) == (1, 0, 0)


# -- §14.5 Tokyo Bay and elimination vectors -----------------------------------------------------------------
def five(**over: dict) -> dict:
    rows = [dict(over.get(f"p{k}", {})) for k in range(1, 6)]
    return game(*rows, first="p2")


def test_14_5_bay_entry_city_stays() -> None:
    s = turn(five(p1={"location": "city"}), "C C 1 2 3 E")
    s = answer(s, "yield", {"type": "stay"})
    assert p(s, "p1")["health"] == 8 and p(s, "p2")["loc"] == "bay" and p(s, "p2")["vp"] == 1


def test_14_5_bay_entry_city_yields() -> None:
    s = turn(five(p1={"location": "city"}), "C C 1 2 3 E")
    s = answer(s, "yield", {"type": "yield"})
    assert p(s, "p1")["loc"] == "out" and p(s, "p2")["loc"] == "city" and p(s, "p2")["vp"] == 1
    assert s["bay"] is None


def test_14_5_four_players_no_bay() -> None:
    s = game({"location": "city"}, {}, {}, {}, first="p2")
    s = answer(turn(s, "C 1 2 3 E E"), "yield", {"type": "stay"})
    assert p(s, "p2")["loc"] == "out" and not s["bay_open"]


def test_14_5_bay_closes_when_four_are_left() -> None:
    s = game({"location": "city"}, {"location": "bay"}, {"health": 1}, {}, {})
    s = turn(s, "C 1 2 3 E E")
    assert not p(s, "p3")["alive"]
    assert p(s, "p2")["loc"] == "out" and not s["bay_open"] and s["city"] == 0


def test_14_5_bay_promoted_to_an_empty_city() -> None:
    s = five(p1={"location": "city", "health": 2}, p3={"location": "bay"})
    s = act(s, {"type": "roll", "dice": faces("C C 1 2 3 E"), "player": "p2"})
    s = act(s, {"type": "resolve"})
    assert not p(s, "p1")["alive"]
    s = answer(s, "yield", {"type": "stay", "player": "p3"})
    assert p(s, "p3")["loc"] == "city" and p(s, "p3")["vp"] == 0 and p(s, "p3")["health"] == 8
    assert p(s, "p2")["loc"] == "out"


def test_14_5_elimination_cleanup() -> None:
    s = game({"location": "city", "health": 1, "energy": 7, "poison": 2,
              "cards": ["alien_origin", "gourmet", "herbivore"]}, {}, {}, first="p2")
    discard = len(s["discard"])
    s = turn(s, "C 1 2 3 E E")
    a = p(s, "p1")
    assert not a["alive"] and a["cards"] == [] and a["energy"] == 0 and a["poison"] == 0
    assert len(s["discard"]) == discard + 3 and a["loc"] == "out"


def test_14_5_simultaneous_elimination_no_winner() -> None:
    s = game({"health": 2, "energy": 4}, {"health": 3, "location": "city"},
             market=["high_altitude_bombing", "heal", "tank"])
    s = turn(s, "1 1 2 2 3 3")
    s = act(s, {"type": "buy", "slot": 0})
    assert s["over"] and s["winners"] == []
    assert R.snapshot(s)["pending"] is None


def test_14_5_last_standing_wins_at_once() -> None:
    s = game({"location": "city"}, {"health": 2}, {"health": 1})
    s = turn(s, "C C 1 2 3 E")
    assert s["over"] and s["winners"] == ["p1"] and s["phase"] == "over"


def test_14_5_20_vp_needs_survival() -> None:
    s = game({"vp": 18, "health": 3, "energy": 5}, {"location": "city"}, {}, market=["jet_fighters", "heal", "tank"])
    s = act(turn(s, "1 1 2 2 3 3"), {"type": "buy", "slot": 0})
    assert not p(s, "p1")["alive"] and not s["over"]


def test_14_5_20_vp_wins_at_the_end_of_the_turn() -> None:
    s = game({"vp": 18, "health": 5}, {"location": "city"}, {})
    s = turn(s, "2 2 2 1 E E")
    assert p(s, "p1")["vp"] == 20 and not s["over"]
    s = end(s)
    assert s["over"] and s["winners"] == ["p1"]


def test_14_5_20_vp_but_poisoned() -> None:
    s = game({"vp": 18, "health": 2, "poison": 2}, {"location": "city"}, {})
    s = end(turn(s, "2 2 2 1 1 3"))
    assert not p(s, "p1")["alive"] and not s["over"] and s["winners"] == []


# -- §14.6 card and token vectors ----------------------------------------------------------------------------
def test_14_6_sweep_and_buy() -> None:
    s = game({"monster": "space_penguin", "energy": 10}, {"location": "city"},
             market=["skyscraper", "energize", "mimic"], deck_top=["corner_store", "tank", "heal", "jets"])
    s = turn(s, "1 1 2 2 3 3")
    s = act(s, {"type": "sweep"})
    assert s["market"] == ["corner_store", "tank", "heal"] and p(s, "p1")["energy"] == 8
    s = act(s, {"type": "buy", "slot": 0})
    assert p(s, "p1")["energy"] == 5 and s["market"] == ["jets", "tank", "heal"]


def test_14_6_card_damage_allows_no_yield() -> None:
    s = game({"energy": 3}, {"location": "city", "health": 8}, market=["flame_thrower", "heal", "tank"])
    s = act(turn(s, "1 1 2 2 3 3"), {"type": "buy", "slot": 0})
    assert p(s, "p2")["health"] == 6 and s["pending"] is None and p(s, "p2")["loc"] == "city"


def test_14_6_poison_at_end_of_turn() -> None:
    s = end(turn(game({"health": 6, "poison": 2}, {"location": "city"}), "1 1 2 2 3 E"))
    assert p(s, "p1")["health"] == 4


def test_14_6_poison_removed_by_hearts_outside() -> None:
    s = turn(game({"health": 6, "poison": 2}, {"location": "city"}), "H H 1 2 3 E")
    opts = R.options(s)
    assert {"type": "cure", "player": "p1", "poison": 2, "shrink": 0} in opts
    s = act(s, {"type": "cure", "poison": 2, "shrink": 0})
    assert p(s, "p1")["poison"] == 0 and p(s, "p1")["health"] == 6


def test_14_6_poison_stays_in_tokyo() -> None:
    s = turn(game({"health": 6, "poison": 2, "location": "city"}, {}), "H H 1 2 3 E")
    assert p(s, "p1")["poison"] == 2 and p(s, "p1")["health"] == 6 and s["pending"] is None


def test_14_6_shrink_rolls_fewer_dice() -> None:
    s = game({"shrink": 2}, {"location": "city"})
    assert len(s["dice"]) == 4
    snap = R.snapshot(s)
    assert snap["pending"]["input"]["count"] == 4


def test_14_6_poison_spit() -> None:
    s = five(p2={"cards": ["poison_spit"]}, p1={"location": "city"}, p3={"location": "bay"})
    s = turn(s, "C 1 2 3 E E")
    for x in ("p1", "p3"):
        assert p(s, x)["health"] == 9 and p(s, x)["poison"] == 1


def test_14_6_fire_breathing_four_players() -> None:
    s = game({"cards": ["fire_breathing"]}, {}, {"location": "city"}, {})
    s = turn(s, "C 1 2 3 E E")
    assert [p(s, x)["health"] for x in ("p2", "p3", "p4")] == [9, 9, 9]
    assert s["pending"]["kind"] == "yield" and s["pending"]["player"] == 2


def test_14_6_fire_breathing_two_players() -> None:
    s = turn(game({"cards": ["fire_breathing"]}, {"location": "city"}), "C 1 2 3 E E")
    assert p(s, "p2")["health"] == 8


def test_14_6_death_from_above() -> None:
    s = game({"vp": 3, "energy": 5}, {"location": "city"}, {}, {}, market=["death_from_above", "heal", "tank"])
    s = act(turn(s, "1 1 2 2 3 E"), {"type": "buy", "slot": 0})
    assert p(s, "p1")["vp"] == 6 and p(s, "p1")["loc"] == "city"
    assert p(s, "p2")["loc"] == "out" and p(s, "p2")["health"] == 10


def test_14_6_mimic_on_even_bigger() -> None:
    s = game({"health": 8, "energy": 8}, {"cards": ["even_bigger"], "location": "city"}, market=["mimic", "heal", "tank"])
    s = act(turn(s, "1 1 2 2 3 E"), {"type": "buy", "slot": 0})
    uid = p(s, "p2")["cards"][0]["uid"]
    s = answer(s, "mimic", {"type": "mimic", "target": uid})
    assert R.snapshot(s)["players"][0]["max_health"] == 12 and p(s, "p1")["health"] == 10


def test_14_6_metamorph_sells_for_the_printed_cost() -> None:
    s = game({"energy": 7, "cards": ["alien_origin", "metamorph"]}, {"location": "city"},
             market=["mimic", "heal", "tank"])
    s = act(turn(s, "1 1 2 2 3 3"), {"type": "buy", "slot": 0})
    assert p(s, "p1")["energy"] == 0
    s = act(s, {"type": "pass"})  # nothing to copy but its own cards: leave the token for later
    s = end(s)
    mimic = next(c for c in p(s, "p1")["cards"] if c["id"] == "mimic")
    s = answer(s, "metamorph", {"type": "sell", "uid": mimic["uid"]})
    assert p(s, "p1")["energy"] == 8
    s = answer(s, "metamorph", {"type": "pass"})
    assert s["active"] == 1


# -- §2 setup ------------------------------------------------------------------------------------------------
def test_2_roll_off_most_claws_starts_ties_roll_again() -> None:
    s = R.setup({"players": ["gigazaur", "the_king", "alienoid"]}, 3)
    assert s["phase"] == "rolloff" and R.snapshot(s)["pending"]["input"]["count"] == 6
    s = act(s, {"type": "roll", "dice": faces("C C 1 2 3 H")})
    s = act(s, {"type": "roll", "dice": faces("C 1 1 2 3 H")})
    s = act(s, {"type": "roll", "dice": faces("C C E 2 3 H")})  # tie between p1 and p3
    assert s["phase"] == "rolloff" and s["rolloff"]["contenders"] == [0, 2]
    s = act(s, {"type": "roll", "player": "p1", "dice": faces("1 1 1 2 3 H")})
    s = act(s, {"type": "roll", "player": "p3", "dice": faces("C 1 1 2 3 H")})
    assert s["phase"] == "roll" and s["active"] == 2 and all(x["vp"] == 0 for x in s["players"])


def test_2_setup_from_the_page_sheet() -> None:
    """The page's setup sheet sends {mode, players: [{id, name, monster}], start}."""
    s = R.setup({"mode": "bay", "start": "p2", "players": [
        {"id": f"p{k}", "name": f"N{k}", "monster": m} for k, m in enumerate(
            ["gigazaur", "the_king", "alienoid", "meka_dragon", "space_penguin"], start=1)]}, 1)
    assert s["active"] == 1 and s["bay_open"] and s["players"][0]["name"] == "N1"
    with pytest.raises(IllegalAction):
        R.setup({"mode": "city", "players": ["gigazaur", "the_king", "alienoid", "meka_dragon", "space_penguin"]}, 1)
    with pytest.raises(IllegalAction):
        R.setup({"players": ["gigazaur", "gigazaur"]}, 1)


def test_recap_counts_the_story() -> None:
    """The recap at the end: hearts taken from others, hearts lost, cards bought, turns begun in Tokyo."""
    s = game({"energy": 3}, {"location": "city"}, market=["corner_store", "heal", "tank"])
    s = turn(s, "C C 1 2 3 E")
    s = answer(s, "yield", {"type": "yield", "player": "p2"})
    s = end(act(s, {"type": "buy", "slot": 0}))
    assert s["stats"]["p1"]["damage"] == 2 and s["stats"]["p2"]["taken"] == 2
    assert s["stats"]["p1"]["cards"] == 1 and s["stats"]["p1"]["entered"] == 1
    s = end(turn(s, "1 1 2 2 3 3"))
    assert s["stats"]["p1"]["tokyo_turns"] == 1 and R.snapshot(s)["stats"] == s["stats"]
