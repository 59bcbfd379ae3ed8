"""The story the page reads (engine/dicethrone/story.py): what the last moves caused, kept in the state so
undo gives back the story of the position it reaches. Each test names the rule whose result it shows."""

from __future__ import annotations

import json
import random

from dthelp import attack, end_roll_phase, game, give, go, health, kind, random_action, snap

from engine.core import IllegalAction
from engine.dicethrone.story import KEEP


def last_events(m) -> list[dict]:
    return snap(m)["story"][-1]["events"]


def test_the_box_rolls_for_blind_and_the_story_shows_its_die():
    """Heroes §2, Blind: the box rolls the die (no dice given); its value and the miss (1-2) are in the story."""
    m = game("barbarian", "moon_elf")
    give(m, "p1", blind=1)
    attack(m, [1, 2, 3, 4, 4], "smack")
    go(m, {"type": "roll"})   # the box's own seeded die
    blind = next(e for e in last_events(m) if e["type"] == "blind")
    assert 1 <= blind["value"] <= 6 and blind["player"] == "p1"
    assert blind["missed"] is (blind["value"] <= 2)
    assert (kind(m) == "defense") is (not blind["missed"])


def test_an_attack_tells_who_took_how_much_and_undo_takes_it_back():
    """§2.6.6: the damage applied at the end of the Roll Phase is what the story and the recap's totals say."""
    m = game("barbarian", "moon_elf")
    attack(m, [1, 2, 3, 4, 4], "smack")
    go(m, {"type": "defense", "defense": "missed_me"}, {"type": "roll", "dice": [1, 1, 1, 1, 1]}, {"type": "resolve"})
    before = health(m, "p2")
    moves = snap(m)["moves"]
    last = end_roll_phase(m)
    end = next(e for e in last_events(m) if e["type"] == "roll_phase_end")
    assert end["attacker"] == "p1" and end["ability"] == "smack" and end["defense"] == "missed_me"
    assert end["damage"] == last["damage"] and end["damage"]["p2"] == before - health(m, "p2") > 0
    packet = end["packets"][0]
    assert packet["to"] == "p2" and packet["taken"] == end["damage"]["p2"] and packet["total"] >= packet["taken"]
    hit = end["attack"]
    assert hit["to"] == "p2" and hit["taken"] == packet["taken"] and hit["incoming"] - hit["prevented"] == hit["taken"]
    stats = snap(m)["stats"]
    assert stats["p1"]["dealt"] == stats["p2"]["taken"] == end["damage"]["p2"]
    assert stats["p1"]["abilities"] == {"smack": 1}
    assert stats["p1"]["dice"] == 5 and stats["p1"]["faces"] == [1, 1, 1, 2, 0, 0]
    assert snap(m)["moves"] == moves + 1
    go(m, {"type": "undo"})
    assert snap(m)["moves"] == moves and snap(m)["stats"].get("p2", {}).get("taken", 0) == 0
    assert all(e["type"] != "roll_phase_end" for e in last_events(m))


def test_tip_it_shows_the_die_before_and_after():
    """§7 cards: Tip It! moves a die by one; the story keeps the dice before and after (4 -> 3)."""
    m = game("barbarian", "moon_elf")
    go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 2, 4, 5, 6]},
       {"type": "play", "player": "p1", "card": "Tip It!", "die": 2, "delta": -1})
    changed = next(e for e in last_events(m) if e["type"] == "dice_changed")
    assert changed["before"][2] == 4 and changed["after"][2] == 3 and changed["by"] == "p1"
    assert any(e["type"] == "played" and e["card"] == "Tip It!" for e in last_events(m))


def test_the_story_stays_short_in_a_long_game():
    """DESIGN, Snapshot: small enough to push whole: at most KEEP moves, whatever the game's length."""
    r = random.Random(5)
    m = game("pyromancer", "shadow_thief", seed=5)
    for _ in range(300):
        if snap(m)["phase"] == "over":
            break
        try:
            m.submit(random_action(m, r))
        except IllegalAction:   # a random card or spend the rules refuse: the game goes on
            continue
        story = snap(m)["story"]
        assert len(story) <= KEEP
        assert [x["move"] for x in story] == sorted({x["move"] for x in story})
    assert len(json.dumps(snap(m)["story"])) < 6000


def test_the_targeting_die_names_the_defender_it_picked():
    """§2.5 (2 vs 2): the targeting die, 1-2 the left opponent: the story names the die and the defender."""
    m = game("barbarian", "moon_elf", "pyromancer", "monk", mode="2v2")
    go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 2, 3, 4, 4]}, {"type": "ability", "ability": "smack"},
       {"type": "pass"})
    assert kind(m) == "targeting_roll"
    go(m, {"type": "roll", "dice": [2]}, {"type": "resolve"})
    events = last_events(m)
    targeting = next(e for e in events if e["type"] == "targeting")
    target = next(e for e in events if e["type"] == "target")
    assert targeting["value"] == 2 and targeting["attacker"] == "p1"
    assert target["defender"] == snap(m)["roll_phase"]["target"] == "p2"   # seats alternate teams: p2 is on the left


def test_burn_at_upkeep_is_in_the_story_and_the_recap():
    """Heroes §2, Burn: 2 damage at the holder's Upkeep, outside any Roll Phase: the story and totals show it."""
    m = game("barbarian", "moon_elf")
    give(m, "p2", burn=1)
    go(m, {"type": "advance"}, {"type": "roll", "dice": [1, 1, 4, 4, 2]}, {"type": "ability", "ability": None},
       {"type": "advance"})   # Ana's turn ends; Ben's Upkeep burns
    hit = next(e for e in last_events(m) if e["type"] == "health")
    assert hit == {"type": "health", "players": ["p2"], "before": 50, "after": 48, "damage": 2, "heal": 0}
    assert health(m, "p2") == 48 and snap(m)["stats"]["p2"]["taken"] == 2
    go(m, {"type": "adjust", "player": "p2", "health": -1})   # a correction is its own log line, not story
    assert snap(m)["story"][-1]["move"] < snap(m)["moves"] and snap(m)["stats"]["p2"]["taken"] == 2
