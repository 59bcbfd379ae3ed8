"""Companions with rules of their own (issue 12: Nyra's separate health, the Treant's growth stages), checked
against the heroes reference §2 (companions table: Nyra, Seedling / Sapling / Dryad Spirit)."""

from __future__ import annotations

import pytest

from engine.core import IllegalAction
from engine.dicethrone import asks
from engine.dicethrone import effects as fx
from engine.games import get_rules
from engine.match import Match

RULES = get_rules("dicethrone")


def position(a_hero, b_hero, *, a=None, b=None, phase="offensive"):
    players = [{"id": "ann", "name": "Ann", "hero": a_hero, **(a or {})},
               {"id": "bo", "name": "Bo", "hero": b_hero, **(b or {})}]
    return Match(RULES, {"mode": "1v1", "start": "ann", "turn": 3, "phase": phase, "players": players}, 5)


def go(m, *actions):
    for action in actions:
        m.submit(action)
    return m.snapshot()


def player(snap, pid):
    return next(p for p in snap["players"] if p["id"] == pid)


def nyra(snap, pid="bo"):
    return next(c for c in player(snap, pid)["companions"] if c["id"] == "nyra")


# -- Nyra ----------------------------------------------------------------------------------------------
def test_nyra_has_her_own_health_from_the_start():
    """Heroes §2: Nyra, max 7 health (she starts at full health: an assumption the data notes)."""
    snap = position("barbarian", "huntress").snapshot()
    assert nyra(snap) == {"id": "nyra", "name": {"en": "Nyra", "zh-TW": "妮拉", "ko": "니라"}, "health": 7,
                          "health_max": 7, "active": True}
    assert "companions" not in player(snap, "ann")


def test_the_huntress_may_pass_an_attack_to_nyra():
    """Heroes §2 Nyra: while she stands the Huntress may pass the full damage of an attack to her instead of
    defending; the Huntress's own health does not move. Smack 4 -> Nyra 7 -> 3."""
    m = position("barbarian", "huntress")
    snap = go(m, {"type": "roll", "dice": [1, 1, 1, 4, 5]}, {"type": "ability", "ability": "smack"}, {"type": "pass"})
    actions = [o["action"] for o in snap["pending"]["options"]]
    assert snap["pending"]["kind"] == "defense"
    assert {"type": "defense", "player": "bo", "defense": None, "companion": "nyra"} in actions
    assert any(a.get("defense") == "maternal_bond" for a in actions)      # she may still defend instead
    snap = go(m, {"type": "defense", "defense": None, "companion": "nyra"}, {"type": "resolve"})
    assert player(snap, "bo")["health"] == 50 and nyra(snap)["health"] == 3
    assert snap["last_roll_phase"]["damage"] == {"bo": 0}


def test_nyra_takes_the_whole_attack_and_falls_at_zero():
    """"Pass the full damage": Nyra at 3 takes Smack's 4 and is down (0, not standing); nothing spills over
    to the Huntress. A fallen Nyra is not offered again."""
    m = position("barbarian", "huntress", b={"companions": {"nyra": 3}})
    go(m, {"type": "roll", "dice": [1, 1, 1, 4, 5]}, {"type": "ability", "ability": "smack"}, {"type": "pass"},
       {"type": "defense", "companion": "nyra"})
    snap = go(m, {"type": "resolve"})
    assert nyra(snap)["health"] == 0 and nyra(snap)["active"] is False and player(snap, "bo")["health"] == 50
    m2 = position("barbarian", "huntress", b={"companions": {"nyra": 0}})
    snap = go(m2, {"type": "roll", "dice": [1, 1, 1, 4, 5]}, {"type": "ability", "ability": "smack"}, {"type": "pass"})
    assert all("companion" not in o["action"] for o in snap["pending"]["options"])
    with pytest.raises(IllegalAction) as err:
        m2.submit({"type": "defense", "companion": "nyra"})
    assert err.value.code == "bad_companion"


def test_an_undefendable_attack_may_go_to_nyra_but_not_be_defended():
    """Sturdy Blow is undefendable (no defensive roll, §8.2), yet Nyra may take it: the decision offers only
    passing it or taking it, and a defense is refused."""
    m = position("barbarian", "huntress")
    snap = go(m, {"type": "roll", "dice": [1, 1, 6, 6, 4]}, {"type": "ability", "ability": "sturdy_blow"},
              {"type": "pass"})
    labels = [o["label"] for o in snap["pending"]["options"] if o["action"]["type"] == "defense"]
    assert labels == ["Pass the attack to Nyra", "Take the attack"]
    with pytest.raises(IllegalAction) as err:
        m.submit({"type": "defense", "defense": "maternal_bond"})
    assert err.value.code == "undefendable"
    snap = go(m, {"type": "defense", "companion": "nyra"}, {"type": "resolve"})
    assert nyra(snap)["health"] == 3 and player(snap, "bo")["health"] == 50


def test_an_ultimate_cannot_be_passed_to_nyra():
    """Heroes §2 Nyra: "not ultimates"; §9: nobody may respond to an ultimate."""
    m = position("barbarian", "huntress")
    snap = go(m, {"type": "roll", "dice": [6, 6, 6, 6, 6]}, {"type": "ability", "ability": "rage"}, {"type": "pass"})
    assert snap["pending"]["kind"] != "defense"


def test_spending_nyras_bond_heals_her_2():
    """Heroes §2 Nyra's Bond: spend any time to heal Nyra 2 (up to her 7)."""
    m = position("huntress", "barbarian", phase="main1", a={"companions": {"nyra": 4}, "statuses": {"nyras_bond": 1}})
    snap = go(m, {"type": "spend", "player": "ann", "status": "nyras_bond"})
    assert nyra(snap, "ann")["health"] == 6
    snap = go(m, {"type": "adjust", "player": "ann", "companions": {"nyra": 5}})
    assert nyra(snap, "ann")["health"] == 7                    # never above her maximum


def test_a_position_states_nyras_health_within_her_maximum():
    with pytest.raises(IllegalAction) as err:
        position("barbarian", "huntress", b={"companions": {"nyra": 8}})
    assert err.value.code == "bad_setup" and "nyra" in err.value.message


# -- the Treant's Spirits --------------------------------------------------------------------------------
def treant(statuses, stages=None):
    b = {"statuses": statuses, **({"stages": stages} if stages is not None else {})}
    return position("barbarian", "treant", phase="main1", b=b)


def grow(m, n):
    """Run a grow effect for the Treant (bo) as its abilities will, then present the question as apply does."""
    s = m.state
    ctx = {"owner": 1, "other": None, "role": "upkeep", "roll": None, "final": None, "faces": ["a"] * 6, "source": "t"}
    s = {**s, "players": [dict(p) for p in s["players"]]}
    events = fx.apply(s, {"do": "grow", "count": n}, ctx)
    asks.present(s)
    return s, events


def stages(s):
    return RULES.snapshot(s)["players"][1]["stages"]


def test_a_spirit_grows_as_the_player_chooses():
    """Heroes §2 (open point 7): whether growing adds a Seedling or promotes one is unknown, so the Treant's
    player is asked each time; option 0 (a new Seedling) is what the engine did before."""
    m = treant({"spirit": 2})
    s, _ = grow(m, 1)
    pending = s["pending"]
    assert pending["kind"] == "ask" and pending["about"]["effect"] == "grow"
    assert pending["labels"] == ["A new Seedling", "A Seedling grows into a Sapling"]
    s, _ = RULES.apply(s, {"type": "choose", "option": 1})
    assert stages(s) == {"seedling": 1, "sapling": 1, "dryad": 0} and s["players"][1]["statuses"]["spirit"] == 2
    assert s["pending"]["kind"] == "main"


def test_growing_two_asks_twice_with_the_options_of_the_moment():
    m = treant({"spirit": 1}, {})
    s, _ = grow(m, 2)
    s, _ = RULES.apply(s, {"type": "choose", "option": 1})          # Seedling -> Sapling
    assert s["pending"]["kind"] == "ask"
    assert s["pending"]["labels"] == ["A new Seedling", "A Sapling grows into a Dryad Spirit"]
    s, _ = RULES.apply(s, {"type": "choose", "option": 1})          # Sapling -> Dryad
    assert stages(s) == {"seedling": 0, "sapling": 0, "dryad": 1} and s["pending"]["kind"] == "main"


def test_stage_limits_and_a_full_grove():
    """Heroes §2: at most 3 Seedlings, 2 Saplings, 1 Dryad Spirit; with all six nothing can grow."""
    m = treant({"spirit": 6}, {"sapling": 2, "dryad": 1})
    s, events = grow(m, 1)
    assert "asks" not in s and s["pending"]["kind"] == "main" and events == []
    assert stages(s) == {"seedling": 3, "sapling": 2, "dryad": 1}
    m = treant({"spirit": 5}, {"sapling": 2})
    s, _ = grow(m, 1)                                 # Seedlings and Saplings full: only Sapling -> Dryad
    assert stages(s) == {"seedling": 3, "sapling": 1, "dryad": 1} and s["pending"]["kind"] == "main"


def test_removed_spirits_are_taken_from_the_first_stage_first():
    """Spending Spirits (Overgrowth's "remove up to 2") leaves the grown ones as long as possible."""
    m = treant({"spirit": 3}, {"sapling": 1, "dryad": 1})
    snap = go(m, {"type": "adjust", "player": "bo", "status": {"spirit": -2}})
    assert player(snap, "bo")["stages"] == {"seedling": 0, "sapling": 0, "dryad": 1}


@pytest.mark.parametrize("b", [{"statuses": {"spirit": 1}, "stages": {"sapling": 2}},
                               {"statuses": {"spirit": 4}},
                               {"stages": {"sapling": 1}},
                               {"statuses": {"spirit": 2}, "stages": {"oak": 1}}])
def test_impossible_stages_are_refused(b):
    with pytest.raises(IllegalAction) as err:
        position("barbarian", "treant", b=b)
    assert err.value.code == "bad_setup"
