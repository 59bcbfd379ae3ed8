"""The worked examples of reference/regidice.md §10, played through the real actions (roll, declare, advance,
nudge, resolve, suffer, prepare) from stated positions. Each test names its section and row."""

from __future__ import annotations

import pytest
from rdhelp import RULES, apply, declare_all, enemy_pips, pool, pool_ids, roll_all, setup, to_resolve, where

from engine.core import IllegalAction
from engine.regidice import flow

ATTACK = {"action": "attack"}


def decl(action: str, value: int | None = None, **more: str) -> dict:
    out: dict = {"action": action, **more}
    if value is not None:
        out["value"] = value
    return out


def resolve(s: dict, player: str, **more) -> tuple[dict, list[dict]]:
    return apply(s, {"type": "resolve", "player": player, **more})


# -- §10.1 attack through the engine, and A7 the defence fixed for the round -----------------------------
def test_10_1_a1_attack_damages_the_enemy_by_the_groups_formed() -> None:
    s = to_resolve({"p1": ["R1", "R2", "B1", "B1", "Y1"], "p2": []}, {"p1": decl("attack", 5), "p2": decl("heal", 6)})
    s, _ = resolve(s, "p1")
    assert s["resolved"]["p1"]["damage"] == 2
    assert sum(enemy_pips(s)) == 3 + 2
    assert all(d["used"] for d in where(s, "pool:p1"))  # {1,2} and {1,1,1} use all five dice


def test_10_1_a7_defence_is_the_snapshot_of_the_start_of_the_round() -> None:
    s = to_resolve({"p1": ["R1", "R2", "B1", "B2"], "p2": ["Y1", "Y2"]},
                   {"p1": decl("attack", 5), "p2": decl("attack", 6)})
    s, _ = resolve(s, "p1", pips=[1, 2])
    assert enemy_pips(s) == [2, 2, 1]
    s, _ = resolve(s, "p2")  # 1 + 2 still hits: the defence stays 3 this round although the enemy shows 5
    assert s["resolved"]["p2"]["damage"] == 1
    assert sum(enemy_pips(s)) == 6
    assert s["phase"] == "suffer" and s["suffer"]["candidates"] == ["p1"]  # only p1 can lose 3 dice
    s, _ = apply(s, {"type": "suffer", "player": "p1"})
    assert RULES.snapshot(s)["enemy"]["defence_round"] == 6  # next round's defence


def test_attack_groups_named_by_the_player_must_sum_to_the_defence() -> None:
    s = to_resolve({"p1": ["R1", "R2", "B1", "B2"], "p2": []}, {"p1": decl("attack", 5), "p2": decl("heal", 6)})
    with pytest.raises(IllegalAction) as err:
        resolve(s, "p1", groups=[["R1", "B1"]])
    assert err.value.code == "bad_group"
    s, _ = resolve(s, "p1", groups=[["R1", "R2"]])
    assert s["resolved"]["p1"]["damage"] == 1
    assert {d["id"] for d in where(s, "pool:p1") if not d["used"]} == {"B1", "B2"}


# -- §10.4 cast ------------------------------------------------------------------------------------------
CAST_ENEMY = {"enemy_pips": [2, 2, 3]}


@pytest.mark.parametrize("dice, damage, block", [
    (["R2", "R2", "R3"], 3, 0),
    (["R2", "R2", "R3", "R2", "R2", "R3"], 6, 0),
    (["R2", "R3", "B2"], 0, 0),
    (["R2", "R2", "R2"], 0, 0),
    (["B2", "B2", "B3"], 0, 3),
])
def test_10_4_cast_sets_of_one_colour_matching_the_enemy(dice: list[str], damage: int, block: int) -> None:
    s = to_resolve({"p1": dice, "p2": []}, {"p1": decl("cast", colour="red", parity="even"), "p2": decl("attack", 5)},
                   **CAST_ENEMY)
    s, _ = resolve(s, "p1")
    assert s["resolved"]["p1"]["damage"] == damage
    assert s["resolved"]["p1"]["block"] == block
    assert sum(enemy_pips(s)) == 7 + damage


def test_10_4_holy_light_heals_one_die_per_die_capped_by_the_pile() -> None:
    s = to_resolve({"p1": ["Y2", "Y2", "Y3"], "p2": []}, {"p1": decl("cast", colour="yellow", parity="odd"),
                                                          "p2": decl("attack", 5)},
                   wounded=["R4", "B5"], **CAST_ENEMY)
    s, _ = resolve(s, "p1", take=["B1"])
    assert s["resolved"]["p1"]["healed"] == 2
    assert sorted(pool(s, "p1")) == ["B5", "R4", "Y2", "Y2", "Y3"]
    assert where(s, "wounded") == []


def test_10_4_touch_of_death_defeats_the_enemy_at_once() -> None:
    """§10.4 row K. Black dice reach pools only from defeated enemies, so a spell of as many black dice as the
    enemy is possible only against the third (5 needed of the 7 freed): the enemy shows 2 2 3 1 1 here."""
    s = to_resolve({"p1": ["K1", "K1", "K2", "K2", "K3"], "p2": []},
                   {"p1": decl("cast", colour="black", parity="odd"), "p2": decl("attack", 5)},
                   enemy=3, enemy_pips=[2, 2, 3, 1, 1])
    s, events = resolve(s, "p1")
    assert s["resolved"]["p1"]["death"] is True
    assert [e["how"] for e in events if e["type"] == "enemy_defeated"] == ["touch_of_death"]
    wounded_black = [d for d in where(s, "wounded") if d["colour"] == "black"]
    assert len(wounded_black) == 5  # never overkill (§11.5): the enemy's dice go to the wounded pile
    assert s["result"] == "victory"


def test_4_4_4_black_dice_only_come_from_defeated_enemies() -> None:
    with pytest.raises(IllegalAction) as err:
        setup(2, enemy=2, pools={"p1": ["K1", "K2", "K2", "K3"]})
    assert err.value.code == "bad_setup"


# -- §10.5 animal companion ------------------------------------------------------------------------------
def test_10_5_animal_companion_adds_a_pip_per_rolled_one() -> None:
    s = to_resolve({"p1": ["R1", "B1", "Y5"], "p2": ["R4", "B4", "Y3"], "p3": ["R1", "B1", "Y5"]},
                   {"p1": decl("attack", 2), "p2": decl("block", 4), "p3": decl("companion")})
    snap = RULES.snapshot(s)
    assert snap["active"] == "p3"  # companions first: their help only counts before the sets are formed
    p1_one = next(d["id"] for d in where(s, "pool:p1") if d["pips"] == 1)
    p2_three = next(d["id"] for d in where(s, "pool:p2") if d["pips"] == 3)
    s, _ = apply(s, {"type": "nudge", "player": "p3", "die": p1_one})
    s, _ = apply(s, {"type": "nudge", "player": "p3", "die": p2_three})
    with pytest.raises(IllegalAction) as err:
        apply(s, {"type": "nudge", "player": "p3", "die": p1_one})
    assert err.value.code == "no_power"
    s, _ = resolve(s, "p3")
    s, _ = resolve(s, "p1")
    assert s["resolved"]["p1"]["damage"] == 1  # 2 1 5 -> {2, 1}
    s, _ = resolve(s, "p2")
    assert s["resolved"]["p2"]["block"] == 1  # 4 4 4
    assert s["phase"] == "suffer" and s["suffer"]["damage"] == 2 and s["suffer"]["candidates"] == ["p2"]
    s, _ = apply(s, {"type": "suffer", "player": "p2"})
    assert s["phase"] == "prepare"
    ones = [d["id"] for d in where(s, "pool:p3") if d["pips"] == 1]
    with pytest.raises(IllegalAction) as err:  # the two 1s are used: they may not be passed (§4.6)
        apply(s, {"type": "prepare", "player": "p3", "dice": ones[:1]})
    assert err.value.code == "die_used"


# -- §10.6 collection ------------------------------------------------------------------------------------
ROLLS_10_6 = {
    "p1": ["R3", "R4", "B2", "B5", "Y1", "Y6"],
    "p2": ["R4", "R1", "B3", "B4", "Y4", "Y2"],
    "p3": ["R2", "R5", "B4", "B1", "Y3", "Y6"],
    "p4": ["R6", "R1", "B1", "B3", "Y4", "Y5"],
}


def test_10_6_collect_values_then_casts_a_die_moving_twice() -> None:
    s = roll_all(setup(4), ROLLS_10_6)
    s, events = declare_all(s, {"p1": decl("attack", 3), "p2": decl("block", 4),
                                "p3": decl("cast", colour="red", parity="even"), "p4": decl("companion")})
    assert s["phase"] == "collect"
    assert pool(s, "p1") == sorted(["R3", "B2", "B5", "Y1", "Y6", "B3", "Y3", "B3"])
    assert pool(s, "p2") == sorted(["R1", "B4", "Y4", "Y2", "B4", "Y4"])
    assert pool(s, "p3") == sorted(["R2", "R5", "B1", "Y6", "R4", "R4", "R6"])
    assert pool(s, "p4") == sorted(["R1", "B1", "Y5"])
    moves = next(e for e in events if e["type"] == "collected")["moves"]
    twice = [m["die"] for m in moves if m["die"] in {x["die"] for x in moves if x["from"] == "p1" and x["pips"] == 4}]
    assert len(twice) == 2  # p1's red 4: to p2 by value, then to p3 by the cast
    s, _ = apply(s, {"type": "advance"})
    s, _ = resolve(s, "p1")
    assert s["resolved"]["p1"]["damage"] == 5  # four 3s and 2 + 1
    s, _ = resolve(s, "p2")
    assert s["resolved"]["p2"]["block"] == 2  # four 4s


def test_10_6_an_animal_companion_keeps_its_ones() -> None:
    s = roll_all(setup(4), ROLLS_10_6)
    s, _ = declare_all(s, {"p1": decl("attack", 3), "p2": decl("block", 1),
                           "p3": decl("cast", colour="red", parity="even"), "p4": decl("companion")})
    assert sorted(m for m in pool(s, "p2") if m.endswith("1")) == ["B1", "R1", "Y1"]  # own R1, p1's Y1, p3's B1
    assert sorted(m for m in pool(s, "p4") if m.endswith("1")) == ["B1", "R1"]  # p4's 1s stay with it


# -- §10.7 suffer ----------------------------------------------------------------------------------------
def test_10_7_s1_unblocked_damage_hits_the_attacker() -> None:
    s = roll_all(setup(4), {"p1": ["R2", "R2", "B2", "B2", "Y2", "Y2"], "p2": ["R3", "R3", "B3", "B3", "Y3", "Y3"],
                            "p3": ["R4", "R4", "B4", "B4", "Y4", "Y4"], "p4": ["R5", "R5", "B5", "B5", "Y5", "Y5"]})
    s, _ = declare_all(s, {"p1": decl("attack", 1), "p2": decl("heal", 6),
                           "p3": decl("cast", colour="black", parity="even"), "p4": decl("companion")})
    s, _ = apply(s, {"type": "advance"})
    for p in ("p4", "p1", "p3", "p2"):
        s, _ = resolve(s, p)
    assert s["phase"] == "suffer" and s["suffer"]["damage"] == 3 and s["suffer"]["candidates"] == ["p1"]
    s, _ = apply(s, {"type": "suffer"})
    assert len(pool(s, "p1")) == 3 and len(where(s, "wounded")) == 3


def _blocker_round(p2_dice: list[str], **position) -> dict:
    s = to_resolve({"p1": [], "p2": p2_dice}, {"p1": decl("attack", 6), "p2": decl("block", 4)}, enemy=2,
                   **position)
    s, _ = resolve(s, "p1")
    s, _ = resolve(s, "p2")
    return s


def test_10_7_s2_the_blocker_takes_what_was_not_blocked() -> None:
    s = _blocker_round(["R4", "B4", "Y4", "R2", "B5"])
    assert s["suffer"]["blocked"] == 1 and s["suffer"]["damage"] == 3
    s, _ = apply(s, {"type": "suffer", "player": "p2"})
    assert len(pool(s, "p2")) == 2


def test_10_7_s3_a_target_without_enough_dice_loses_the_game() -> None:
    s = _blocker_round(["R4", "B4"])
    assert s["phase"] == "over" and s["result"] == "defeat"
    with pytest.raises(IllegalAction) as err:
        apply(s, {"type": "prepare", "player": "p1", "dice": []})
    assert err.value.code == "game_over"


def test_10_7_s4_paying_with_the_last_die_is_fine() -> None:
    s = _blocker_round(["R4", "B4", "Y4"])
    s, _ = apply(s, {"type": "suffer", "player": "p2"})
    assert pool(s, "p2") == [] and s["result"] is None
    assert s["phase"] != "over" and s["round"] == 2


def test_10_7_s5_ice_blocks_the_whole_attack() -> None:
    s = to_resolve({"p1": [], "p2": [], "p3": ["B2", "B2", "B3"]},
                   {"p1": decl("attack", 6), "p2": decl("heal", 5), "p3": decl("cast", colour="blue", parity="odd")},
                   **CAST_ENEMY)
    events: list[dict] = []
    for p in ("p1", "p3", "p2"):
        s, ev = resolve(s, p)
        events += ev
    suffered = [e for e in events if e["type"] == "suffered"]
    assert suffered == [{"type": "suffered", "damage": 0, "attack": 3, "blocked": 3}]
    assert where(s, "wounded") == []


def test_10_7_s6_two_blockers_choose_who_takes_it() -> None:
    s = to_resolve({"p1": ["R4", "B4", "Y4", "R1"], "p2": ["R5", "B5", "Y5", "R1"], "p3": []},
                   {"p1": decl("block", 4), "p2": decl("block", 5), "p3": decl("attack", 6)},
                   enemy=3, enemy_pips=[1, 1, 1, 1, 1])
    for p in ("p3", "p1", "p2"):
        s, _ = resolve(s, p)
    snap = RULES.snapshot(s)
    assert snap["pending"]["player"] is None
    assert [o["action"]["player"] for o in snap["pending"]["options"]] == ["p1", "p2"]
    with pytest.raises(IllegalAction) as err:
        apply(s, {"type": "suffer", "player": "p3"})
    assert err.value.code == "not_target"
    s, _ = apply(s, {"type": "suffer", "player": "p2"})
    assert len(pool(s, "p2")) == 1 and len(pool(s, "p1")) == 4


# -- §10.8 defeat and overkill ---------------------------------------------------------------------------
def test_10_8_d1_s7_exact_defeat_sends_the_dice_to_the_wounded_pile_and_skips_suffer() -> None:
    s = to_resolve({"p1": ["R6", "B6", "Y5"], "p2": []}, {"p1": decl("attack", 4), "p2": decl("heal", 1)},
                   enemy_pips=[6, 6, 5])
    s, events = resolve(s, "p1")
    assert [e["type"] for e in events].count("enemy_defeated") == 1
    assert s["enemy"] == 1 and enemy_pips(s) == []  # the next enemy comes at the end of Resolve
    s, _ = resolve(s, "p2")
    assert s["enemy"] == 2 and enemy_pips(s) == [1, 1, 1, 1]
    assert sorted(d["colour"] for d in where(s, "wounded")) == ["black"] * 3
    assert s["suffer"] is None and all(len(pool(s, p)) == n for p, n in (("p1", 3), ("p2", 0)))


def test_10_8_d2_overkill_gives_the_attacker_the_black_dice() -> None:
    nine = ["R6", "R6", "R5", "B6", "B6", "B5", "Y6", "Y6", "Y5"]
    s = to_resolve({"p1": nine, "p2": []}, {"p1": decl("attack", 4), "p2": decl("heal", 1)}, enemy_pips=[6, 6, 5])
    s, events = resolve(s, "p1")
    # dealt 3, needed 1: one pip fits, the rest is overkill. `resolved.damage` is the damage dealt, as the
    # damage event says (issue 33: it said 1, the pips placed); the pips placed are the event's `placed`
    assert s["resolved"]["p1"]["damage"] == 3
    damage = next(e for e in events if e["type"] == "damage")
    assert damage["amount"] == 3 and damage["placed"] == 1
    assert next(e for e in events if e["type"] == "enemy_defeated")["overkill"] == "p1"
    assert [m for m in pool(s, "p1") if m.startswith("K")] == ["K6", "K6", "K6"]
    assert where(s, "wounded") == []


def test_10_8_d3_fifteen_pips_defeat_the_first_enemy_exactly_at_the_fifteenth() -> None:
    s = setup(2)
    for k in range(1, 16):
        events: list = []
        flow._damage(s, 0, 1, None, events, "attack")
        assert s["defeated"] is (k == 15), k


def test_10_8_d4_touch_of_death_on_the_third_enemy_wins() -> None:
    s = to_resolve({"p1": ["K1", "K2", "K3", "K4", "K6"], "p2": []},
                   {"p1": decl("cast", colour="black", parity="odd"), "p2": decl("attack", 5)},
                   enemy=3, enemy_pips=[2, 3, 1, 6, 4])
    s, events = resolve(s, "p1")
    assert s["phase"] == "over" and s["result"] == "victory"
    assert RULES.snapshot(s)["winner"] == "players"


# -- §10.9 prepare and turn order ------------------------------------------------------------------------
def test_10_9_prepared_dice_skip_the_roll_cannot_be_collected_and_join_the_left_neighbour() -> None:
    s = to_resolve({"p1": ["B5", "Y6", "B2", "Y1"], "p2": ["R3", "R3", "R3"]},
                   {"p1": decl("attack", 4), "p2": decl("block", 3)})
    s, _ = resolve(s, "p1")
    s, _ = resolve(s, "p2")
    s, _ = apply(s, {"type": "suffer", "player": "p2"})
    used = [d["id"] for d in where(s, "pool:p1") if d["used"]]
    with pytest.raises(IllegalAction) as err:  # B2 and Y1 formed the attack group
        apply(s, {"type": "prepare", "player": "p1", "dice": used[:1]})
    assert err.value.code == "die_used"
    passing = [d["id"] for d in where(s, "pool:p1") if not d["used"]]
    s, _ = apply(s, {"type": "prepare", "player": "p1", "dice": passing})
    if s["phase"] == "prepare":
        s, _ = apply(s, {"type": "prepare", "player": "p2", "dice": []})
    assert s["phase"] == "roll" and s["first"] == 1  # round 2 starts with p2
    snap = RULES.snapshot(s, "p1")
    p1 = next(p for p in snap["players"] if p["id"] == "p1")
    assert p1["count"] == 2
    s, _ = apply(s, {"type": "roll", "player": "p2", "dice": ["R2"]})
    assert RULES.snapshot(s)["pending"]["input"]["count"] == 2  # p1 rolls without the prepared dice
    s, _ = apply(s, {"type": "roll", "player": "p1", "dice": ["B5", "Y5"]})
    s, events = declare_all(s, {"p2": decl("heal", 6), "p1": decl("attack", 5)})
    assert sorted(pool(s, "p2")) == ["B5", "R2", "Y6"]  # kept their faces; p1's attack 5 could not take B5
    assert sorted(pool(s, "p1")) == ["B5", "Y5"]


def test_10_9_first_player_moves_left_each_round() -> None:
    s = setup(4)
    firsts = []
    while len(firsts) < 5:
        if s["phase"] == "roll" and not s["rolled"]:
            firsts.append(s["players"][s["first"]]["id"])
        s, _ = apply(s, RULES.default_action(s))
        assert s["phase"] != "over"
    assert firsts == ["p1", "p2", "p3", "p4", "p1"]


# -- declarations (§4.2) ---------------------------------------------------------------------------------
def test_4_2_declarations_are_unique_in_turn_order_and_companions_name_no_value() -> None:
    s = setup(3)
    while s["phase"] == "roll":
        s, _ = apply(s, {"type": "roll"})
    with pytest.raises(IllegalAction) as err:
        apply(s, {"type": "declare", "player": "p2", "action": "attack", "value": 2})
    assert err.value.code == "not_your_turn"
    s, _ = apply(s, {"type": "declare", "player": "p1", "action": "attack", "value": 2})
    with pytest.raises(IllegalAction) as err:
        apply(s, {"type": "declare", "action": "heal", "value": 2})
    assert err.value.code == "value_taken"
    with pytest.raises(IllegalAction) as err:
        apply(s, {"type": "declare", "action": "companion", "value": 3})
    assert err.value.code == "bad_value"
    s, _ = apply(s, {"type": "declare", "action": "cast", "colour": "red", "parity": "even"})
    with pytest.raises(IllegalAction) as err:  # §11.3: an identical cast is refused
        apply(s, {"type": "declare", "action": "cast", "colour": "red", "parity": "even"})
    assert err.value.code == "cast_taken"
    s, _ = apply(s, {"type": "declare", "action": "cast", "colour": "red", "parity": "odd"})
    assert s["phase"] == "collect"


def test_4_1_a_roll_must_match_the_pool_colours_and_count() -> None:
    s = setup(2)
    with pytest.raises(IllegalAction) as err:
        apply(s, {"type": "roll", "player": "p1", "dice": ["R1"] * 9})
    assert err.value.code == "wrong_colours"
    with pytest.raises(IllegalAction) as err:
        apply(s, {"type": "roll", "player": "p1", "dice": ["R1"] * 3})
    assert err.value.code == "wrong_dice_count"
    with pytest.raises(IllegalAction) as err:
        apply(s, {"type": "roll", "player": "p1", "dice": [{"colour": "green", "value": 2}] * 9})
    assert err.value.code == "bad_colour"
    dice = [{"colour": c, "value": v} for c in ("red", "blue", "yellow") for v in (1, 2, 3)]
    s2, events = apply(s, {"type": "roll", "player": "p1", "dice": dice})
    assert events[0]["count"] == 9 and "pips" not in str(events) and "value" not in str(events)
    assert pool_ids(s2, "p1") == pool_ids(s, "p1")
    assert s2["rolled"] == ["p1"] and s["rolled"] == []  # the old state is untouched


def test_4_5_the_target_names_the_dice_it_loses() -> None:
    s = _blocker_round(["R4", "B4", "Y4", "R2", "B5"])
    with pytest.raises(IllegalAction) as err:
        apply(s, {"type": "suffer", "player": "p2", "dice": ["R2"]})
    assert err.value.code == "wrong_dice_count"
    keep = [d["id"] for d in where(s, "pool:p2") if d["pips"] == 4][:2]
    lose = [i for i in pool_ids(s, "p2") if i not in keep]
    s, _ = apply(s, {"type": "suffer", "player": "p2", "dice": lose})
    assert sorted(pool_ids(s, "p2")) == sorted(keep)
    assert sorted(d["id"] for d in where(s, "wounded")) == sorted(lose)


def test_2_setup_as_the_page_sheet_sends_it() -> None:
    """§2: the sheet sends the players with ids and names and `start` = the first player's id."""
    s = RULES.setup({"players": [{"id": "p1", "name": "Ann"}, {"id": "p2", "name": "Ben"}, {"id": "p3", "name": "Chen"}],
                     "start": "p3"}, 4)
    assert s["first"] == 2 and [p["name"] for p in s["players"]] == ["Ann", "Ben", "Chen"]
    counts = {p: sorted(d["colour"] for d in where(s, "pool:" + p)) for p in ("p1", "p2", "p3")}
    assert counts["p1"].count("red") == 3 and counts["p2"].count("blue") == 3 and counts["p3"].count("yellow") == 3
    with pytest.raises(IllegalAction) as err:
        RULES.setup({"players": 5}, 1)
    assert err.value.code == "bad_setup"


def test_4_4_5_next_hands_the_companions_pip_where_it_helps() -> None:
    """§10.5 again with the box's Next button: its default nudge turns the attacker's 1 1 5 into a group, then
    the blocker's 4 4 3 into a set; with no 1 left, Next ends the companion's turn."""
    s = to_resolve({"p1": ["R1", "B1", "Y5"], "p2": ["R4", "B4", "Y3"], "p3": ["R1", "B1", "Y5"]},
                   {"p1": decl("attack", 2), "p2": decl("block", 4), "p3": decl("companion")})
    first = RULES.default_action(s)
    assert first["type"] == "nudge" and s["dice"][s["index"][first["die"]]]["at"] in ("pool:p1", "pool:p2")
    s, _ = apply(s, first)
    second = RULES.default_action(s)
    assert second["type"] == "nudge"
    s, _ = apply(s, second)
    assert RULES.default_action(s) == {"type": "resolve", "player": "p3"}
    s, _ = apply(s, RULES.default_action(s))
    s, _ = resolve(s, "p1")
    s, _ = resolve(s, "p2")
    assert s["resolved"]["p1"]["damage"] == 1 and s["resolved"]["p2"]["block"] == 1


def test_4_4_5_resolve_nudges_may_name_one_die_twice_as_two_nudges_do() -> None:
    """G§4.4.5: a companion's pips stack, and several `nudge` actions on one die are accepted; docs/actions.md
    says `resolve.nudges` means "as several `nudge`". The list refused the same die twice (issue 33)."""
    pools = {"p1": ["R1", "B1", "Y5"], "p2": ["R4", "B4", "Y3"], "p3": ["R1", "B1", "Y5"]}
    decls = {"p1": decl("attack", 2), "p2": decl("block", 4), "p3": decl("companion")}
    s = to_resolve(pools, decls)
    one = next(d["id"] for d in where(s, "pool:p1") if d["pips"] == 1)
    by_list, _ = apply(s, {"type": "resolve", "player": "p3", "nudges": [one, one]})
    by_actions, _ = apply(s, {"type": "nudge", "player": "p3", "die": one})
    by_actions, _ = apply(by_actions, {"type": "nudge", "player": "p3", "die": one})
    by_actions, _ = resolve(by_actions, "p3")
    pips = [d["pips"] for d in where(by_list, "pool:p1")]
    assert pips == [d["pips"] for d in where(by_actions, "pool:p1")] and 3 in pips


def test_faces_name_dice_where_a_script_cannot_know_their_ids() -> None:
    """Issue 33: no script could name a die before reading the table. `nudge`, `suffer` and `prepare` also take
    a face as players read it, `{"colour", "pips"}`: a nudge when exactly one die of the pools shows it."""
    pools = {"p1": ["R1", "B1", "Y5"], "p2": ["R4", "B4", "Y3"], "p3": ["R1", "B1", "Y5"]}
    s = to_resolve(pools, {"p1": decl("attack", 2), "p2": decl("block", 4), "p3": decl("companion")})
    with pytest.raises(IllegalAction) as err:  # p1's red 1 and p3's red 1 (its power) - p1's is the only target
        apply(s, {"type": "nudge", "player": "p3", "die": {"colour": "yellow", "pips": 5}})
    assert err.value.code == "ambiguous_die"  # Y5 in p1's pool and in p3's
    s, _ = apply(s, {"type": "nudge", "player": "p3", "die": {"colour": "yellow", "pips": 3}})
    assert [d["pips"] for d in where(s, "pool:p2") if d["colour"] == "yellow"] == [4]
    with pytest.raises(IllegalAction) as err:
        apply(s, {"type": "nudge", "player": "p3", "die": {"colour": "red", "pips": 6}})
    assert err.value.code == "no_such_die"


def test_suffer_and_prepare_take_faces_too() -> None:
    """Issue 33: `suffer` and `prepare` name dice by face as players read them; alike dice are interchangeable."""
    s = to_resolve({"p1": ["R1", "B1", "Y5"], "p2": ["R4", "B4", "Y3"], "p3": ["R1", "B1", "Y5"]},
                   {"p1": decl("attack", 2), "p2": decl("block", 4), "p3": decl("companion")})
    for player in ("p3", "p1", "p2"):
        s, _ = resolve(s, player)
    assert s["phase"] == "suffer" and s["suffer"]["damage"] == 3
    s, _ = apply(s, {"type": "suffer", "player": "p2", "dice": [{"colour": "red", "pips": 4},
                                                               {"colour": "yellow", "pips": 3},
                                                               {"colour": "blue", "pips": 4}]})
    assert sorted(d["colour"] for d in where(s, "wounded")) == ["blue", "red", "yellow"]
    assert s["phase"] == "prepare"
    gift = next(d for d in where(s, "pool:p1") if not d["used"])
    s, _ = apply(s, {"type": "prepare", "player": "p1", "dice": [{"colour": gift["colour"], "pips": gift["pips"]}]})
    assert gift["id"] not in [d["id"] for d in where(s, "pool:p1")]
