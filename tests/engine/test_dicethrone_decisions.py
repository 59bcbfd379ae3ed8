"""Decisions the engine used to leave to the players by hand (issue 12), now pending decisions any client
can answer: "a chosen player" (rules §6.1, §2.5), declining a Cursed Doubloon (rules §6 table, EX-31),
"you may reroll one of these dice" (hero boards). Every question is a pending decision of kind `ask`
(or a `rerolls` offer on a resolve decision) whose options are complete actions.
"""

from __future__ import annotations

import pytest

from engine.core import IllegalAction
from engine.dicethrone import effects as fx
from engine.dicethrone import state as dts
from engine.games import get_rules
from engine.match import Match

RULES = get_rules("dicethrone")


def position(a_hero, b_hero, *, phase="offensive", a=None, b=None, mode="1v1", extra_players=()):
    players = [{"id": "ann", "name": "Ann", "hero": a_hero, **(a or {})},
               {"id": "bo", "name": "Bo", "hero": b_hero, **(b or {})}, *extra_players]
    return Match(RULES, {"mode": mode, "start": "ann", "turn": 3, "phase": phase, "players": players}, 5)


def go(m, *actions):
    for action in actions:
        m.submit(action)
    return m.snapshot()


def player(snap, pid):
    return next(p for p in snap["players"] if p["id"] == pid)


def tokens(snap, pid):
    return {t["id"]: t["count"] for t in player(snap, pid)["statuses"]}


def test_a_chosen_player_gains_and_takes_damage():
    """Rules §6.1 (gain: on yourself or a chosen player) and §2.5 (a chosen player skips the targeting roll):
    the Seraph's Take Flight asks who gains Flight and takes 3 undefendable damage; both go to that player."""
    m = position("seraph", "barbarian", a={"upgrades": {"glorious": 2}})
    snap = go(m, {"type": "roll", "dice": [1, 4, 4, 5, 6]}, {"type": "ability", "ability": "take_flight"},
              {"type": "pass"})
    ask = snap["pending"]
    assert ask["kind"] == "ask" and ask["player"] == "ann"
    assert ask["choices"] == ["ann", "bo"] and ask["about"]["status"] == "flight"
    assert [o["action"] for o in ask["options"]] == [
        {"type": "choose", "player": "ann", "option": 0}, {"type": "choose", "player": "ann", "option": 1}]
    snap = go(m, {"type": "choose", "option": 1})
    assert tokens(snap, "bo") == {"flight": 1} and "flight" not in tokens(snap, "ann")
    assert player(snap, "bo")["health"] == 47 and player(snap, "ann")["health"] == 50
    assert snap["pending"]["kind"] == "main" and snap["phase"] == "main2"   # the interrupted decision is back


def test_the_default_answer_is_the_owner_as_before():
    """Heaven's Blessing: a chosen player gains 2 Cleanse and 2 Flight; Next (option 0) picks the Seraph."""
    m = position("seraph", "barbarian", a={"upgrades": {"archangels_will": 2}})
    snap = go(m, {"type": "roll", "dice": [1, 5, 5, 4, 6]}, {"type": "ability", "ability": "heavens_blessing"},
              {"type": "pass"})
    assert snap["pending"]["kind"] == "ask"
    snap = go(m, RULES.default_action(m.state))
    assert tokens(snap, "ann") == {"cleanse": 2, "flight": 2} and tokens(snap, "bo") == {}


def test_only_the_asked_player_answers_and_only_listed_options():
    m = position("seraph", "barbarian", a={"upgrades": {"glorious": 2}})
    go(m, {"type": "roll", "dice": [1, 4, 4, 5, 6]}, {"type": "ability", "ability": "take_flight"}, {"type": "pass"})
    for action, code in [({"type": "choose", "option": 2}, "bad_choice"),
                         ({"type": "choose", "player": "bo", "option": 0}, "not_your_turn"),
                         ({"type": "advance"}, "wrong_time")]:
        with pytest.raises(IllegalAction) as err:
            m.submit(action)
        assert err.value.code == code
    assert m.snapshot()["pending"]["kind"] == "ask"                 # a refusal changed nothing


@pytest.mark.parametrize("answer, held", [(0, 2), (1, 0)])
def test_the_pirate_may_decline_a_cursed_doubloon(answer, held):
    """Rules §6 status table and EX-31: "Whenever the Pirate would gain one she may decline." Pirate's Touch!
    gives her 2 Doubloons: she is asked, and declining leaves her with none (she starts this position with none)."""
    m = position("cursed_pirate", "barbarian", a={"statuses": {}})
    snap = go(m, {"type": "roll", "dice": [6, 6, 6, 6, 6]}, {"type": "ability", "ability": "pirates_touch"})
    for _ in range(6):                                 # Next through the roll phase until the question
        if snap["pending"]["kind"] == "ask":
            break
        snap = go(m, RULES.default_action(m.state))
    ask = snap["pending"]
    assert ask["player"] == "ann" and ask["about"] == {"effect": "may_decline", "status": "cursed_doubloon", "count": 2}
    assert ask["labels"] == ["Take 2 Cursed Doubloon", "Decline"]
    snap = go(m, {"type": "choose", "option": answer})
    assert tokens(snap, "ann").get("cursed_doubloon", 0) == held


def test_doubloons_for_anyone_else_are_not_asked():
    """EX-31: only the Pirate may decline; the Gunslinger simply gets the token (limit 3 on others)."""
    m = position("gunslinger", "cursed_pirate")
    s2 = dts.clone(m.state)
    ctx = {"owner": 1, "other": 0, "role": "card", "roll": None, "final": None, "faces": ["a"] * 6, "source": "t"}
    fx.apply(s2, {"do": "inflict", "status": "cursed_doubloon"}, ctx)
    assert "asks" not in s2 and s2["players"][0]["statuses"] == {"cursed_doubloon": 1}


def test_you_may_reroll_one_of_these_dice_once():
    """Seraph's Angelic Mantle II ("you may reroll the die once"): after the defensive roll the defender may
    reroll its die once before it resolves; the reroll's value is what resolves (wing: prevent 1 -> pendant:
    prevent 3 of Smack's 4)."""
    m = position("barbarian", "seraph", b={"upgrades": {"angelic_mantle": 2}})
    snap = go(m, {"type": "roll", "dice": [1, 1, 1, 4, 5]}, {"type": "ability", "ability": "smack"},
              {"type": "pass"}, {"type": "defense", "defense": "angelic_mantle"}, {"type": "roll", "dice": [4]})
    pending = snap["pending"]
    assert pending["kind"] == "defense_resolve" and pending["rerolls"] == 1
    assert {"type": "reroll", "player": "bo", "dice": [0]} in [o["action"] for o in pending["options"]]
    snap = go(m, {"type": "reroll", "dice": [0], "values": [6]})
    assert snap["dice"][0]["value"] == 6 and "rerolls" not in snap["pending"]
    with pytest.raises(IllegalAction) as err:
        m.submit({"type": "reroll", "dice": [0], "values": [1]})
    assert err.value.code == "no_reroll"
    snap = go(m, {"type": "resolve"}, {"type": "resolve"})
    assert player(snap, "bo")["health"] == 49                         # 4 - 3 prevented


def test_no_reroll_without_the_upgrade():
    m = position("barbarian", "seraph")
    snap = go(m, {"type": "roll", "dice": [1, 1, 1, 4, 5]}, {"type": "ability", "ability": "smack"},
              {"type": "pass"}, {"type": "defense", "defense": "angelic_mantle"}, {"type": "roll", "dice": [4]})
    assert "rerolls" not in snap["pending"]
    with pytest.raises(IllegalAction) as err:
        m.submit({"type": "reroll", "dice": [0]})
    assert err.value.code == "no_reroll"


def test_chosen_players_by_kind_in_2v2():
    """Rules §13: "a chosen teammate" is your partner, "a chosen opponent" either living opponent, "a chosen
    player" anyone standing, you first and then in turn order (A1, B1, A2, B2)."""
    players = [{"id": "a1", "hero": "treant", "team": "A"}, {"id": "b1", "hero": "ninja", "team": "B"},
               {"id": "a2", "hero": "monk", "team": "A"}, {"id": "b2", "hero": "samurai", "team": "B"}]
    s = RULES.setup({"mode": "2v2", "start": "a1", "players": players}, 1)
    ids = [p["id"] for p in s["players"]]
    names = {to: [ids[j] for j in fx.choices_for(s, 0, to)] for to in ("chosen", "opponent", "teammate")}
    assert names == {"chosen": ["a1", "b1", "a2", "b2"], "opponent": ["b1", "b2"], "teammate": ["a2"]}


def test_a_single_possible_player_is_not_asked():
    """A chosen teammate in 2v2 is the one partner: no question; in 1v1 there is none and nothing happens."""
    players = [{"id": "a1", "hero": "treant", "team": "A"}, {"id": "b1", "hero": "ninja", "team": "B"},
               {"id": "a2", "hero": "monk", "team": "A"}, {"id": "b2", "hero": "samurai", "team": "B"}]
    s = RULES.setup({"mode": "2v2", "start": "a1", "players": players}, 1)
    ctx = {"owner": 0, "other": None, "role": "card", "roll": None, "final": None, "faces": ["a"] * 6, "source": "t"}
    fx.apply(s, {"do": "gain", "status": "wellspring", "to": "teammate"}, ctx)
    assert "asks" not in s and s["players"][2]["statuses"] == {"wellspring": 1}
    s1 = RULES.setup({"players": [{"hero": "treant"}, {"hero": "ninja"}], "start": "p1"}, 1)
    fx.apply(s1, {"do": "gain", "status": "wellspring", "to": "teammate"}, ctx)
    assert "asks" not in s1 and all("wellspring" not in p["statuses"] for p in s1["players"])


# -- "choose one" / "you may" inside an ability ---------------------------------------------------------
def test_you_may_spend_a_token_to_make_the_attack_undefendable_before_the_defense():
    """Vampire Lord's Blood Magic (hero data, ZG): "you may spend 1 Mesmerize to make this attack
    undefendable". The ability stops at the choice (§2.4: its effects resolve in order), so the answer comes
    before the Defensive Roll Phase (§2.6): spent, the Barbarian gets no defense decision."""
    m = position("vampire_lord", "barbarian", a={"statuses": {"mesmerize": 1}})
    snap = go(m, {"type": "roll", "dice": [1, 2, 3, 4, 5]}, {"type": "ability", "ability": "blood_magic"},
              {"type": "pass"})
    ask = snap["pending"]
    assert ask["kind"] == "ask" and ask["about"]["effect"] == "choose"
    assert ask["labels"] == ["Keep Mesmerize", "Spend 1 Mesmerize: the attack becomes undefendable"]
    assert ask["about"]["labels"][1]["ko"]                            # every language for the page
    snap = go(m, {"type": "choose", "option": 1})
    assert snap["pending"]["kind"] == "window" and "mesmerize" not in tokens(snap, "ann")
    assert snap["roll_phase"]["attack"]["type"] == "undefendable"


def test_keeping_the_token_lets_the_defender_defend():
    m = position("vampire_lord", "barbarian", a={"statuses": {"mesmerize": 1}})
    go(m, {"type": "roll", "dice": [1, 2, 3, 4, 5]}, {"type": "ability", "ability": "blood_magic"}, {"type": "pass"})
    snap = go(m, {"type": "choose", "option": 0})
    assert snap["pending"]["kind"] == "defense" and tokens(snap, "ann")["mesmerize"] == 1


def test_an_option_that_needs_a_token_is_not_offered_without_it():
    """Treant's Splinter ("you may discard 1 Spirit to inflict Barbed Vine"): with no Spirit there is
    nothing to choose, so nobody is asked."""
    m = position("treant", "barbarian", a={"statuses": {}})
    snap = go(m, {"type": "roll", "dice": [1, 2, 3, 4, 4]}, {"type": "ability", "ability": "splinter"},
              {"type": "pass"})
    assert snap["pending"]["kind"] == "defense"
    m = position("treant", "barbarian", a={"statuses": {"spirit": 2}})
    go(m, {"type": "roll", "dice": [1, 2, 3, 4, 4]}, {"type": "ability", "ability": "splinter"}, {"type": "pass"})
    snap = go(m, {"type": "choose", "option": 1})
    assert tokens(snap, "ann") == {"spirit": 1} and tokens(snap, "bo") == {"barbed_vine": 1}


def test_an_abilitys_own_roll_may_be_rerolled_once():
    """Ninja's Walk the Line II ("you may reroll one die"): the ability's 2 dice, one rerolled once before
    they are read; damage = their total (2 + 6 -> 5 + 6 = 11)."""
    m = position("ninja", "barbarian", a={"upgrades": {"walk_the_line": 2}})
    snap = go(m, {"type": "roll", "dice": [4, 4, 4, 4, 1]}, {"type": "ability", "ability": "walk_the_line"},
              {"type": "pass"}, {"type": "roll", "dice": [2, 6]})
    assert snap["pending"]["kind"] == "ability_resolve" and snap["pending"]["rerolls"] == 1
    with pytest.raises(IllegalAction) as err:
        m.submit({"type": "reroll", "dice": [0, 1]})                 # one die only
    assert err.value.code == "bad_die"
    snap = go(m, {"type": "reroll", "die": 0, "values": [5]}, {"type": "resolve"})
    assert snap["roll_phase"]["attack"]["base"] == 11


def test_a_second_chosen_opponent_may_be_the_same_one():
    """Ninja's Kuji-Kiri: 4 pure damage, and 4 more to a chosen opponent (the same one allowed): in 1v1 the
    one opponent takes both, nobody is asked."""
    m = position("ninja", "barbarian", a={"upgrades": {"smoke_screen": 2}})
    snap = go(m, {"type": "roll", "dice": [4, 4, 4, 6, 6]}, {"type": "ability", "ability": "kuji_kiri"},
              {"type": "pass"})
    assert snap["pending"]["kind"] == "window"                     # pure damage: no defense, nobody asked
    snap = go(m, {"type": "resolve"})
    assert player(snap, "bo")["health"] == 42


def test_every_option_the_engine_words_itself_comes_in_three_languages():
    """Issue 12 (every word in three languages): options whose words the engine writes (a question's
    options, passing an attack to Nyra, rerolls) carry `text` in en, zh-TW and ko beside the English label."""
    m = position("cursed_pirate", "barbarian", a={"statuses": {}})
    snap = go(m, {"type": "roll", "dice": [6, 6, 6, 6, 6]}, {"type": "ability", "ability": "pirates_touch"})
    for _ in range(6):
        if snap["pending"]["kind"] == "ask":
            break
        snap = go(m, RULES.default_action(m.state))
    texts = [o["text"] for o in snap["pending"]["options"]]
    assert texts[1] == {"en": "Decline", "zh-TW": "拒絕", "ko": "거절"}
    assert texts[0]["en"] == "Take 2 Cursed Doubloon" and "詛咒金幣" in texts[0]["zh-TW"] and "저주받은 금화" in texts[0]["ko"]
    m = position("barbarian", "huntress")
    snap = go(m, {"type": "roll", "dice": [1, 1, 1, 4, 5]}, {"type": "ability", "ability": "smack"}, {"type": "pass"})
    passing = next(o for o in snap["pending"]["options"] if o["action"].get("companion"))
    assert passing["text"] == {"en": "Pass the attack to Nyra", "zh-TW": "將攻擊轉給妮拉", "ko": "니라에게 공격 넘기기"}


def test_spend_as_much_cp_as_you_choose():
    """Pyromancer's Warm Up! (hero card, ZG): gain Fire Mastery, +1 more per CP you choose to spend. With 3 CP
    the options are 0-3 CP (an option needs the CP it spends); 2 CP -> 3 Fire Mastery, 1 CP left."""
    m = position("pyromancer", "barbarian", phase="main1", a={"cp": 3, "statuses": {}})
    snap = go(m, {"type": "play", "player": "ann", "card": "Warm Up!"})
    assert snap["pending"]["kind"] == "ask"
    assert [o["text"]["en"] for o in snap["pending"]["options"]] == [
        "Spend no CP", "Spend 1 CP: +1 Fire Mastery", "Spend 2 CP: +2 Fire Mastery", "Spend 3 CP: +3 Fire Mastery"]
    snap = go(m, {"type": "choose", "option": 2})
    assert tokens(snap, "ann") == {"fire_mastery": 3} and player(snap, "ann")["cp"] == 1
    assert snap["pending"]["kind"] == "main"                          # back to the Main Phase


def test_the_pirate_removes_as_many_doubloons_as_she_likes():
    """Cursed Pirate's Shiver Me Timbers (hero data, ZG): "you may remove any number of your Cursed
    Doubloons": one option per number she holds (3 at the start), asked inside the ability."""
    m = position("cursed_pirate", "barbarian")
    snap = go(m, {"type": "roll", "dice": [1, 6, 6, 6, 4]}, {"type": "ability", "ability": "shiver_me_timbers"},
              {"type": "pass"})
    assert snap["pending"]["kind"] == "ask" and len(snap["pending"]["options"]) == 4   # keep, 1, 2, 3
    snap = go(m, {"type": "choose", "option": 2})
    assert tokens(snap, "ann") == {"cursed_doubloon": 1}
