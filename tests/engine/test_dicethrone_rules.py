"""Dice Throne rules checks, each naming the section of dice-throne-rules.md (or DESIGN.md) it tests."""

from __future__ import annotations

import json

import pytest
from dthelp import (
    RULES,
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
    set_health,
    snap,
    tokens,
)

from engine.core import IllegalAction, Rules
from engine.dicethrone import state as dts
from engine.dicethrone.damage import MODIFIER, PREVENT, final_damage
from engine.dicethrone.heroes import catalogue, hero, hero_ids
from engine.games import GAMES, get_rules
from engine.match import Match

REQUIRED = {"gunslinger", "cursed_pirate", "barbarian", "moon_elf", "pyromancer", "shadow_thief", "paladin",
            "monk", "ninja", "treant", "samurai"}


def next_turn(m: Match) -> Match:
    """End the active player's turn without an ability."""
    return go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 4, 4, 6, 2]}, {"type": "ability", "ability": None},
              {"type": "advance"})


# -- §1 setup ----------------------------------------------------------------------------------------


def test_registered_and_obeys_the_rules_protocol():
    """DESIGN contracts: the game is registered as "dicethrone" and is a core.Rules."""
    assert "dicethrone" in GAMES and isinstance(get_rules("dicethrone"), Rules)


@pytest.mark.parametrize("mode, n, start", [("1v1", 2, 50), ("2v2", 4, 50), ("koth", 3, 35)])
def test_setup_values(mode, n, start):
    """§1: health 50 (1v1), 50 per team (2v2), 35 (3 players); CP 2; 4 cards; heal cap start + 10 (§3)."""
    m = game(*["barbarian", "ninja", "treant", "samurai"][:n], mode=mode)
    s = snap(m)
    for p in s["players"]:
        assert (p["health"], p["health_max"], p["cp"], p["hand"], p["deck"]) == (start, start + 10, 2, 4, 28)
    assert len(s["teams"]) == (2 if mode == "2v2" else n)
    assert s["phase"] == "main1" and s["active"] == "p1" and kind(m) == "main"


def test_bad_setups_are_refused():
    """DESIGN: a bad setup raises IllegalAction("bad_setup") with a sentence."""
    for setup in ({"players": [{"hero": "barbarian"}]}, {"mode": "5p", "players": []},
                  {"players": [{"hero": "wizard"}, {"hero": "ninja"}]},
                  {"players": [{"hero": "ninja"}, {"hero": "ninja"}], "start": "zed"},
                  {"mode": "2v2", "players": [{"hero": "ninja", "team": "A"}] * 3 + [{"hero": "monk", "team": "B"}]}):
        with pytest.raises(IllegalAction) as err:
            RULES.setup(setup, 1)
        assert err.value.code == "bad_setup" and err.value.message


def test_start_roll_ties_reroll():
    """§1.4 [AMBIGUOUS 1]: without a named start player each rolls a die; tied highest roll again."""
    tied = 0
    for seed in range(60):
        s = RULES.setup({"mode": "koth", "players": [{"hero": "ninja"}, {"hero": "monk"}, {"hero": "treant"}]}, seed)
        rounds = s["start_roll"]
        for earlier in rounds[:-1]:
            best = max(earlier.values())
            assert list(earlier.values()).count(best) > 1
        last = rounds[-1]
        winner = max(last, key=last.get)
        assert list(last.values()).count(last[winner]) == 1
        assert s["players"][s["start"]]["id"] == winner
        tied += len(rounds) > 1
    assert tied > 0


def test_catalogue_lists_every_required_hero_in_three_languages():
    """Issue 3: at least the eleven heroes, with en names (zh-TW/ko where the reference gives them) and faces."""
    cat = {h["id"]: h for h in catalogue()}
    assert REQUIRED <= set(cat)
    for h in cat.values():
        assert h["name"]["en"] and len(h["faces"]) == 6 and h["dice_set"] == f"dicethrone:{h['id']}"
        assert set(h["faces"]) <= set(h["symbols"])
    assert cat["gunslinger"]["name"] == {"en": "Gunslinger", "zh-TW": "神槍手", "ko": "총잡이"}
    assert cat["cursed_pirate"]["name"]["ko"] == "저주받은 해적"
    assert cat["barbarian"]["faces"] == ["sword", "sword", "sword", "heart", "heart", "pow"]


def test_hero_data_is_consistent():
    """Heroes reference §1-§2: every ability, level, status and card in the data is usable by the engine."""
    from engine.dicethrone.data import statuses
    for hid in hero_ids():
        data = hero(hid)
        kinds = {a["kind"] for a in data["abilities"]}
        assert "ultimate" in kinds or hid == "cursed_pirate" or "ultimate" in kinds
        for sid in data["statuses"]:
            assert sid in statuses(), (hid, sid)
        for a in data["abilities"]:
            if a.get("slot"):
                assert a["slot"] in data["by_id"], (hid, a["id"])
            for lv in a["levels"]:
                for tier in lv.get("tiers", []):
                    for sym in tier.get("need", {}):
                        assert sym in data["faces"], (hid, a["id"], sym)
        ultimates = [a for a in data["abilities"] if a["kind"] == "ultimate"]
        assert len(ultimates) == 1
        rarest = data["faces"][5]
        assert ultimates[0]["levels"][0]["tiers"][0]["need"] == {rarest: 5}   # §5: five of the rarest symbol


# -- §2 turn structure --------------------------------------------------------------------------------


def test_phases_in_order_and_turns_alternate():
    """§2: upkeep, income, main 1, offensive roll, (targeting skipped in 1v1), defensive, main 2, discard."""
    m = game("gunslinger", "barbarian")
    phases = [snap(m)["phase"]]
    for a in ({"type": "advance"}, {"type": "roll", "dice": [1, 2, 3, 1, 4]}, {"type": "ability", "ability": "revolver"},
              {"type": "pass"}, {"type": "defense", "defense": "thick_skin"}, {"type": "roll", "dice": [1, 1, 1]},
              {"type": "resolve"}, {"type": "resolve"}):
        go(m, a)
        phases.append(snap(m)["phase"])
    assert phases == ["main1", "offensive", "offensive", "offensive", "defensive", "defensive", "defensive",
                      "defensive", "main2"]
    go(m, {"type": "advance"})
    assert snap(m)["active"] == "p2" and snap(m)["phase"] == "main1" and snap(m)["turn"] == 2
    events = m.last_events
    assert [e["type"] for e in events][:3] == ["turn", "income", "phase"]


def test_only_the_active_player_uses_main_phases():
    """§2.3: only the active player sells or plays Main Phase cards."""
    m = game("gunslinger", "barbarian")
    assert illegal(m, {"type": "sell", "player": "p2"}).code == "not_your_turn"
    assert illegal(m, {"type": "play", "player": "p2", "card": "Concuss!"}).code == "wrong_time"
    assert illegal(m, {"type": "advance", "player": "p2"}).code == "not_your_turn"


def test_roll_attempts_and_keeping():
    """§2.4: up to 3 attempts; kept dice stay; the roll's values fill the unkept dice in order."""
    m = game("gunslinger", "barbarian")
    go(m, {"type": "advance"})
    assert illegal(m, {"type": "ability", "ability": "revolver"}).code == "roll_first"
    assert illegal(m, {"type": "keep", "dice": [0]}).code == "bad_keep"
    go(m, {"type": "roll", "dice": [1, 2, 3, 4, 5]}, {"type": "keep", "dice": [0, 4]})
    err = illegal(m, {"type": "roll", "dice": [6, 6]})
    assert err.code == "wrong_dice_count" and "exactly 3 dice" in err.message
    go(m, {"type": "roll", "dice": [6, {"value": 6, "face": "bullseye", "colour": "black"}, 6], "source": "camera",
           "evidence": {"confidence": [0.9, 0.8, 0.99], "image": "rolls/7.jpg"}})
    assert [d["value"] for d in snap(m)["dice"]] == [1, 6, 6, 6, 5]
    assert [d["kept"] for d in snap(m)["dice"]] == [True, False, False, False, True]
    assert snap(m)["dice"][1]["face"] == "bullseye"
    assert "evidence" not in snap(m)["log"][-1]["action"]
    go(m, {"type": "roll", "keep": [1, 2, 3], "dice": [6, 2]})
    assert illegal(m, {"type": "roll"}).code == "no_attempts"
    assert illegal(m, {"type": "roll", "dice": [7]}).code in ("bad_dice", "no_attempts")
    assert [o["action"]["ability"] for o in pending(m)["options"] if o.get("default")] == ["deadeye"]


def test_bad_dice_values_are_refused():
    """DESIGN: a roll with faces outside 1-6 gets a clear sentence and changes nothing."""
    m = game("gunslinger", "barbarian")
    go(m, {"type": "advance"})
    for dice in ([1, 2, 3, 4, 9], [1, 2, 3, 4, True], "12345", [1, 2, 3, {"face": "dash"}, 4]):
        assert illegal(m, {"type": "roll", "dice": dice}).code == "bad_dice"


def test_seeded_rolls_are_reproducible():
    """DESIGN: randomness only from the seed kept in the state: same seed, same game."""
    a, b = game("ninja", "monk", seed=99), game("ninja", "monk", seed=99)
    for m in (a, b):
        go(m, {"type": "advance"}, {"type": "roll"}, {"type": "roll"})
    assert snap(a)["dice"] == snap(b)["dice"]


# -- §3 health ---------------------------------------------------------------------------------------


def test_heal_and_damage_in_one_batch_are_netted():
    """§2.1 [derived] / §3: a batch nets heals and damage before the defeat check and the cap."""
    s = RULES.setup({"players": [{"hero": "ninja"}, {"hero": "monk"}], "start": "p1"}, 1)
    s["teams"][0]["health"] = 3
    dts.apply_batch(s, {0: 5}, {0: 4})
    assert s["teams"][0]["health"] == 2 and s["winner"] is None
    s["teams"][0]["health"] = 58
    dts.apply_batch(s, {0: 4}, {0: 5})
    assert s["teams"][0]["health"] == 59


def test_health_floor_and_defeat():
    """§3: health never below 0; reaching 0 is defeat; the game then refuses every action but adjust."""
    m = game("barbarian", "gunslinger")
    set_health(m, "p2", 3)
    attack(m, [1, 2, 3, 4, 5], "reckless")
    go(m, {"type": "defense", "defense": None})
    end_roll_phase(m)
    s = snap(m)
    assert health(m, "p2") == 0 and s["winner"] == "p1" and s["pending"] is None and s["phase"] == "over"
    assert illegal(m, {"type": "advance"}).code == "game_over"


# -- §4 CP, §7 cards ------------------------------------------------------------------------------------


def test_card_timing():
    """§7.3: Main Phase cards in your own Main Phase, Roll Phase cards in a Roll Phase, Instants any time."""
    m = game("barbarian", "gunslinger")
    assert illegal(m, {"type": "play", "player": "p1", "card": "Six-It!", "die": 0}).code == "wrong_time"
    go(m, {"type": "play", "player": "p2", "card": "Getting Paid!"})          # instant, not her turn
    assert cp(m, "p2") == 4
    go(m, {"type": "advance"})
    assert illegal(m, {"type": "play", "player": "p1", "card": "Concuss!"}).code == "wrong_time"
    go(m, {"type": "roll", "dice": [1, 2, 3, 4, 4]}, {"type": "play", "player": "p1", "card": "Six-It!", "die": 4})
    assert snap(m)["dice"][4]["value"] == 6
    assert illegal(m, {"type": "play", "player": "p2", "card": "Six-It!", "die": 0}).code == "not_your_dice"


def test_cards_need_cp_and_cards_in_hand():
    """§4, §7: a card costs its CP; no cards in hand, no play; unknown cards need their cost."""
    m = game("barbarian", "gunslinger")
    assert illegal(m, {"type": "play", "player": "p1", "card": "Twice As Wild!"}).code in ("wrong_time", "not_enough_cp")
    assert illegal(m, {"type": "play", "player": "p1", "card": "Mystery Card!"}).code == "unknown_card"
    go(m, {"type": "play", "player": "p1", "card": "Mystery Card!", "cost": 1})
    assert cp(m, "p1") == 1 and player(m, "p1")["hand"] == 3 and "Mystery Card!" in snap(m)["notes"][-1]
    go(m, {"type": "adjust", "player": "p1", "hand": -3})
    assert illegal(m, {"type": "play", "player": "p1", "card": "Getting Paid!"}).code == "no_cards"


def test_raised_stack_limit_is_per_player():
    """§6.4: raising a limit (Fire Up!) affects only that player, for the rest of the game."""
    m = game("pyromancer", "pyromancer")
    go(m, {"type": "adjust", "player": "p1", "cp": 5}, {"type": "play", "player": "p1", "card": "Fire Up!"})
    give(m, "p1", fire_mastery=9)
    give(m, "p2", fire_mastery=9)
    assert tokens(m, "p1")["fire_mastery"] == 6 and tokens(m, "p2")["fire_mastery"] == 5
    assert {s["id"]: s["limit"] for s in player(m, "p1")["statuses"]}["fire_mastery"] == 6


# -- §6 statuses ---------------------------------------------------------------------------------------


def test_upkeep_statuses_burn_poison_fire_mastery():
    """§2.1, §6.6: Burn 2, Poison 1 per token in the holder's Upkeep; Fire Mastery cools off by 1."""
    m = game("barbarian", "pyromancer")
    give(m, "p2", burn=1, poison=3, fire_mastery=3)
    next_turn(m)
    assert health(m, "p2") == 45 and tokens(m, "p2")["fire_mastery"] == 2
    assert tokens(m, "p2")["burn"] == 1 and tokens(m, "p2")["poison"] == 3     # persistent


def test_delayed_poison_at_end_of_turn():
    """Heroes §2 (C15): Delayed Poison: removed at the end of the holder's turn, then 3 damage per token."""
    m = game("barbarian", "ninja")
    give(m, "p1", delayed_poison=2)
    next_turn(m)
    assert health(m, "p1") == 44 and "delayed_poison" not in tokens(m, "p1")


def test_shadows_no_damage_no_defense_then_expires():
    """Heroes §2: Shadows: no ORP damage and no defense; discarded after a full turn of its holder."""
    m = game("barbarian", "shadow_thief")
    give(m, "p2", shadows=1)
    attack(m, [1, 2, 3, 4, 4], "smack")
    assert kind(m) == "window"
    assert end_roll_phase(m)["damage"]["p2"] == 0
    go(m, {"type": "advance"})                                   # p2's turn starts with Shadows
    assert tokens(m, "p2")["shadows"] == 1
    next_turn(m)
    assert "shadows" not in tokens(m, "p2")


@pytest.mark.parametrize("v, hits", [(1, False), (2, False), (3, True)])
def test_blind(v, hits):
    """Heroes §2: Blind: at the end of the holder's ORP roll 1 die; on 1-2 the ability has no effect."""
    m = game("barbarian", "moon_elf")
    give(m, "p1", blind=1)
    attack(m, [1, 2, 3, 4, 4], "smack")
    assert kind(m) == "blind_roll"
    go(m, {"type": "roll", "dice": [v]})
    assert "blind" not in tokens(m, "p1")
    assert (kind(m) == "defense") is hits


def test_samurai_bushido_and_stand_tall():
    """Heroes §4.1: Bushido: Honor for the first player, and when fewer than 3 attempts were used."""
    m = game("samurai", "barbarian")
    assert tokens(m, "p1") == {"honor": 1}
    go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 1, 1, 4, 2]}, {"type": "ability", "ability": None},
       {"type": "advance"})
    assert tokens(m, "p1") == {"honor": 2}
    attack(m, [1, 2, 3, 4, 4], "smack")
    go(m, {"type": "defense", "defense": "stand_tall"}, {"type": "roll", "dice": [1, 1, 2]}, {"type": "resolve"})
    assert tokens(m, "p1")["shame"] == 1                          # no Kabuto, no Sun: Shame on herself
    assert end_roll_phase(m)["damage"] == {"p1": 4, "p2": 3}


def test_honor_and_shame_in_an_attack():
    """Heroes §2: Honor 2 for +3; the attacker's Shame takes 1 off and goes (attack modifiers, §8.1)."""
    m = game("samurai", "barbarian")
    give(m, "p1", honor=1, shame=1)
    attack(m, [1, 2, 3, 1, 4], "katana_slice")                    # 4 Katana: 6
    go(m, {"type": "defense", "defense": None}, {"type": "spend", "player": "p1", "status": "honor", "count": 2})
    assert end_roll_phase(m)["damage"]["p2"] == 6 + 3 - 1
    assert "shame" not in tokens(m, "p1")


# -- §8 damage types, §10 final damage -------------------------------------------------------------------


def test_damage_types_table():
    """§8: pure and collateral ignore attack modifiers but not prevention; ultimate ignores reductions."""
    mods = [(3, MODIFIER), (-2, PREVENT)]
    assert final_damage(5, "normal", mods)["taken"] == 6
    assert final_damage(5, "pure", mods)["taken"] == 3
    assert final_damage(5, "collateral", mods)["taken"] == 3
    assert final_damage(5, "ultimate", mods, halves=2, reflect=1, avoided=True) == {
        "total": 8, "halves": [], "taken": 8, "reflected": []}


def test_undefendable_damage_skips_the_defense():
    """§2.6, §8: no defensive ability against undefendable damage."""
    m = game("barbarian", "gunslinger")
    attack(m, [6, 6, 1, 2, 4], "sturdy_blow")
    assert kind(m) == "window" and attack_view(m)["type"] == "undefendable"


def test_accuracy_makes_the_attack_undefendable():
    """Heroes §2: Accuracy spent before the defense: the defense is skipped."""
    m = game("paladin", "barbarian")
    give(m, "p1", accuracy=1)
    attack(m, [1, 2, 3, 4, 6], "holy_attack")
    assert kind(m) == "defense"
    go(m, {"type": "spend", "player": "p1", "status": "accuracy"})
    assert kind(m) == "window" and attack_view(m)["type"] == "undefendable"


def test_defense_with_effects_done_by_hand_adds_a_note():
    """Heroes §8 unknowns: what the engine cannot apply (Thick Skin II's status prevention on 2 Hearts) becomes
    a note; players adjust by hand. (Nyra's health, the example here before, is tracked now: companions.)"""
    m = game("huntress", "barbarian")
    go(m, {"type": "adjust", "player": "p2", "upgrades": {"thick_skin": 2}})
    attack(m, [1, 1, 1, 3, 3], "animalistic")
    go(m, {"type": "defense", "defense": "thick_skin"}, {"type": "roll", "dice": [4, 4, 1, 1]}, {"type": "resolve"})
    assert kind(m) == "window" and "status" in snap(m)["notes"][-1]
    go(m, {"type": "prevent", "player": "p2", "amount": 2, "source": "by hand"})
    assert end_roll_phase(m)["damage"]["p2"] == 1


def test_maternal_bond_heals_nyra_and_claws_bite_while_she_stands():
    """Huntress Maternal Bond (hero data, ZG): heal Nyra 1 per Bond; each Claw deals 2 damage while Nyra
    stands (heroes §2: Nyra, 7 health). Bond, Bond, Claw: Nyra 3 -> 5, 2 damage back to the attacker."""
    m = game("barbarian", "huntress")
    go(m, {"type": "adjust", "player": "p2", "companions": {"nyra": -4}})
    attack(m, [1, 2, 3, 4, 4], "smack")
    go(m, {"type": "defense", "defense": "maternal_bond"}, {"type": "roll", "dice": [5, 5, 4]}, {"type": "resolve"})
    nyra = next(c for c in snap(m)["players"][1]["companions"] if c["id"] == "nyra")
    assert kind(m) == "window" and nyra["health"] == 5
    assert end_roll_phase(m)["damage"] == {"p2": 4, "p1": 2}


# -- decisions, snapshot ---------------------------------------------------------------------------------


def test_every_decision_has_one_default_and_next_alone_finishes_a_game():
    """Issue 3: every pending decision lists complete actions with one default; the Next button ends games."""
    for seed, heroes in ((1, ("gunslinger", "barbarian")), (2, ("ninja", "treant")), (3, ("samurai", "pyromancer"))):
        m = game(*heroes, seed=seed)
        while pending(m) is not None and len(m.entries) < 3000:
            options = pending(m)["options"]
            defaults = [o for o in options if o.get("default")]
            assert len(defaults) == 1, pending(m)
            go(m, defaults[0]["action"])
        assert pending(m) is None


def test_snapshot_shape_for_the_phone():
    """docs/actions.md snapshot: the keys the phone page is built against, JSON-able and small."""
    m = game("gunslinger", "barbarian", "ninja", "samurai", mode="2v2")
    go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 2, 1, 1, 6]})
    s = m.snapshot()
    for key in ("seq", "game", "phase", "active", "players", "teams", "dice", "dice_role", "dice_set", "attempts", "abilities",
                "odds", "roll_phase", "pending", "winner", "winners", "draw", "log", "can_undo", "can_redo"):
        assert key in s, key
    p = s["players"][0]
    for key in ("id", "name", "hero", "hero_name", "team", "health", "health_max", "cp", "cp_max", "hand",
                "deck", "discard", "statuses", "upgrades", "out", "active"):
        assert key in p, key
    assert p["statuses"] == [{"id": "reload", "name": {"en": "Reload", "zh-TW": "裝彈", "ko": "재장전"},
                              "count": 1, "limit": 2, "kind": "positive"}]
    assert s["dice"][0] == {"value": 1, "kept": False, "face": "bullet"}
    assert s["abilities"] == [{"id": "revolver", "name": {"en": "Revolver", "zh-TW": "左輪手槍", "ko": "리볼버"},
                               "level": 1, "tier": 1, "ultimate": False}]
    assert s["pending"]["input"] == {"type": "dice", "count": 5, "faces": [1, 2, 3, 4, 5, 6],
                                   "action": {"type": "roll", "player": "p1"}}
    assert len(json.dumps(s, ensure_ascii=False).encode()) < 12000


def test_adjust_is_logged_and_clamped():
    """Issue 3: a free adjust action for what the engine cannot see, logged, within the limits."""
    m = game("barbarian", "gunslinger")
    go(m, {"type": "adjust", "player": "p2", "health": 30, "cp": 40, "status": {"poison": 9}, "note": "spilled drink"})
    assert health(m, "p2") == 60 and cp(m, "p2") == 15 and tokens(m, "p2") == {"poison": 3}
    assert snap(m)["log"][-1]["action"]["type"] == "adjust" and "spilled drink" in snap(m)["notes"]
    assert illegal(m, {"type": "adjust", "player": "p2", "status": {"sparkles": 1}}).code == "bad_status"


def test_unknown_actions_are_refused_with_the_list():
    """DESIGN: an illegal action gets a code and a sentence and changes nothing."""
    m = game("barbarian", "gunslinger")
    err = illegal(m, {"type": "fly"})
    assert err.code == "unknown_action" and "advance" in err.message
    assert illegal(m, {"type": "roll"}).code == "wrong_time"


def test_king_of_the_hill_goes_on_after_a_fall():
    """§14 with §3: a player falling in their own Upkeep is out; the next living player takes the turn."""
    m = game("barbarian", "gunslinger", "ninja", mode="koth")
    set_health(m, "p2", 2)
    give(m, "p2", burn=1)
    next_turn(m)
    s = snap(m)
    assert s["players"][1]["out"] is True and s["winner"] is None
    assert s["active"] == "p3" and s["phase"] == "main1"
    next_turn(m)
    assert snap(m)["active"] == "p1"
    go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 2, 3, 4, 4]}, {"type": "ability", "ability": "smack"},
       {"type": "pass"})
    assert kind(m) == "defense" and snap(m)["roll_phase"]["target"] == "p3"   # the only opponent left


def test_better_d_gives_one_more_defensive_attempt():
    """Heroes §6 Better D!: one extra defensive roll attempt (keeping dice) before the defense resolves."""
    m = game("gunslinger", "barbarian")
    attack(m, [1, 2, 3, 4, 4], "revolver")
    go(m, {"type": "defense", "defense": "thick_skin"}, {"type": "roll", "dice": [4, 1, 1]},
       {"type": "play", "player": "p2", "card": "Better D!", "keep": [0]})
    assert kind(m) == "defense_roll" and pending(m)["input"]["count"] == 2
    go(m, {"type": "roll", "dice": [5, 4]}, {"type": "resolve"})
    assert snap(m)["roll_phase"]["heals"] == [{"to": "p2", "amount": 6}]


def test_helping_hand_targets_an_opponents_dice():
    """Heroes §6 Helping Hand!: an opponent rerolls one of their dice; not your own."""
    m = game("barbarian", "gunslinger")
    go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 2, 3, 4, 4]})
    assert illegal(m, {"type": "play", "player": "p1", "card": "Helping Hand!", "die": 0}).code == "not_opponent"
    go(m, {"type": "play", "player": "p2", "card": "Helping Hand!", "die": 0, "values": [6]})
    assert snap(m)["dice"][0]["value"] == 6


def test_two_v_two_either_opponent_answers_a_targeting_five():
    """§2.5: on a 5 the opposing team chooses the defender: either of them may answer."""
    m = game("gunslinger", "barbarian", "ninja", "samurai", mode="2v2")
    attack(m, [1, 2, 3, 1, 4], "revolver")
    go(m, {"type": "roll", "dice": [5]}, {"type": "resolve"})
    assert illegal(m, {"type": "target", "player": "p3", "target": "p2"}).code == "not_your_turn"
    go(m, {"type": "target", "player": "p4", "target": "p2"})
    assert snap(m)["roll_phase"]["target"] == "p2"


def test_status_cards_do_not_touch_companions_or_doubloons():
    """§6.5: companions are not status effects; Cursed Doubloons move only by the Pirate's board."""
    m = game("barbarian", "treant")
    give(m, "p2", burn=1, cursed_doubloon=2, spirit=1)
    go(m, {"type": "adjust", "player": "p1", "cp": 3},
       {"type": "play", "player": "p1", "card": "What Status Effects?", "target": "p2"})
    assert tokens(m, "p2") == {"spirit": 1, "cursed_doubloon": 2}
    go(m, {"type": "play", "player": "p1", "card": "Transference!", "target": "p2", "status": "spirit", "to": "p1"})
    assert tokens(m, "p2")["spirit"] == 1 and "spirit" not in tokens(m, "p1")


def test_blind_goes_even_when_no_ability_is_used():
    """Heroes §2: Blind acts at the end of the holder's next ORP, whatever happens in it."""
    m = game("barbarian", "moon_elf")
    give(m, "p1", blind=1)
    go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 4, 4, 6, 2]}, {"type": "ability", "ability": None})
    assert "blind" not in tokens(m, "p1")


def test_cards_change_an_abilitys_own_dice_before_they_are_read():
    """§2.4 (cards at the end of any step): Overpower's dice and Showdown's opposed dice wait for cards."""
    m = game("barbarian", "gunslinger")
    attack(m, [1, 2, 3, 6, 6], "overpower")
    go(m, {"type": "roll", "dice": [5, 4, 3]})
    assert kind(m) == "ability_resolve"
    go(m, {"type": "play", "player": "p1", "card": "Six-It!", "die": 2}, {"type": "resolve"})
    assert attack_view(m)["base"] == 15 and tokens(m, "p2")["concussion"] == 1       # 5 + 4 + 6 >= 14
    m = game("gunslinger", "barbarian")
    attack(m, [1, 2, 3, 4, 1], "showdown")
    go(m, {"type": "roll", "dice": [3, 5]})
    assert snap(m)["dice"][1]["owner"] == "p2"
    assert illegal(m, {"type": "play", "player": "p1", "card": "Six-It!", "die": 1}).code == "not_your_dice"
    go(m, {"type": "play", "player": "p1", "card": "Six-It!", "die": 0}, {"type": "resolve"})
    assert attack_view(m)["base"] == 7                                                # 6 >= 5: she wins


def test_a_defeat_in_the_middle_of_an_ability_ends_the_game_at_once():
    """§3: defeat the moment health reaches 0: an exploding keg mid-ability ends the game, nothing pends."""
    m = game("cursed_pirate", "barbarian")
    set_health(m, "p2", 3)
    give(m, "p2", powder_keg=1)
    attack(m, [1, 2, 3, 4, 6], "light_the_fuse")
    s = snap(m)
    assert s["winner"] == "p1" and s["pending"] is None and s["phase"] == "over" and s["roll_phase"] is None
