"""Property tests over random Mage Wars duels (hypothesis picks seeds, mages and creatures; a seeded random
player answers every pending decision from its options, throwing random dice where dice are asked for).

Invariants a player would check: damage never negative and never a destroyed creature acting; nothing whose
effective damage reaches its life left on the table; mana never
negative; the duel over exactly when a mage has fallen.
What every game keeps (replay == live, undo/redo, refusals change nothing, no mutation, dump/load, offered
options legal, no hidden leak) is the contract kit's, run over every game: tests/contract.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mwhelp import RULES

from engine.magewars.state import effective_damage, mages
from engine.match import Match

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])  # replays cost more
FACES = ["blank", "blank", "1", "2", "1*", "2*"]


def random_roll(inp: dict[str, Any], r: random.Random) -> dict[str, Any]:
    sets = inp["sets"]
    dice: list[Any] = [r.choice(FACES) for _ in range(sets.get("magewars-attack", 0))]
    d12 = [r.randint(1, 12) for _ in range(sets.get("d12", 0))]
    if dice:
        dice += [{"set": "d12", "value": v} for v in d12]
    else:
        dice = d12
    return {"type": "roll", "dice": dice}


def random_action(s: dict[str, Any], r: random.Random) -> dict[str, Any]:
    pend = RULES.snapshot(s)["pending"]
    if pend.get("input"):
        return random_roll(pend["input"], r)
    options = [o["action"] for o in pend["options"]]
    attacks = [a for a in options if a["type"] == "attack"]
    if attacks and r.random() < 0.8:  # keep duels short: creatures mostly attack
        return r.choice(attacks)
    return r.choice(options)


setups = st.tuples(
    st.integers(0, 2**31),
    st.sampled_from(sorted(mages())), st.sampled_from(sorted(mages())),
    st.lists(st.fixed_dictionaries({
        "owner": st.sampled_from(["p1", "p2"]), "life": st.integers(3, 15), "armor": st.integers(0, 3),
        "dice": st.integers(1, 5), "strikes": st.integers(1, 2), "barrier": st.booleans(),
        "effects": st.sampled_from(["", "8+ = Daze", "7-11 = Burn; 12 = 2 Burn", "4-8 = Daze, 9+ = Stun",
                                    "9+ = Slam", "6+ = Corrode", "5+ = Bleed", "10+ = Cripple", "11+ = Sleep"]),
        "defense": st.booleans(), "traits": st.sampled_from([{}, {"nonliving": True}, {"resilient": True},
                                                             {"incorporeal": True}, {"tough": 2}]),
    }), min_size=1, max_size=4))


def build(seed: int, m1: str, m2: str, creatures: list[dict]) -> dict[str, Any]:
    objects = []
    for i, c in enumerate(creatures):
        row = {"name": f"C{i}", "owner": c["owner"], "life": c["life"], "armor": c["armor"], "ready": True,
               "traits": c["traits"],
               "attacks": [{"name": "Hit", "dice": c["dice"], "strikes": c["strikes"], "effects": c["effects"],
                            "counterstrike": i % 2 == 0}]}
        if c["barrier"]:
            row["barrier"] = {"dice": 1, "type": "flame"}
        if c["defense"]:
            row["defenses"] = [{"min": 8, "uses": 1}]
        objects.append(row)
    mage_attacks = [{"name": "Staff", "dice": 3, "effects": "10+ = Daze"}]
    return {"players": [{"name": "A", "mage": m1, "attacks": mage_attacks},
                        {"name": "B", "mage": m2, "attacks": mage_attacks}],
            "initiative": "p1" if seed % 2 else "p2", "objects": objects}


def check(s: dict[str, Any]) -> None:
    for o in s["objects"].values():
        assert o["damage"] >= 0 and o["mana"] >= 0
        assert all(v >= 0 for v in o["conditions"].values()), o["conditions"]
        if o["destroyed"] and o["kind"] != "mage":
            assert s["acting"] != o["id"]
        # §10, §7.2 (issue 33, ruling 3): nothing whose effective damage reaches its life stays on the table
        assert o["destroyed"] or effective_damage(o) < o["life"], (o["name"], effective_damage(o), o["life"])
    fallen = [p["id"] for p in s["players"] if effective_damage(s["objects"][p["id"]]) >= s["objects"][p["id"]]["life"]]
    assert (s["winner"] is not None) == bool(fallen) or s["phase"] == "upkeep"  # upkeep settles at its end
    assert (RULES.snapshot(s)["pending"] is None) == (s["winner"] is not None)


def play(args: tuple, limit: int = 600) -> Match:
    seed, m1, m2, creatures = args
    r = random.Random(seed)
    m = Match(RULES, build(seed, m1, m2, creatures), seed)
    while m.state["winner"] is None and len(m.entries) < limit:
        action = random_action(m.state, r)
        m.submit(action)  # every option and every random throw of the asked dice is legal
        check(m.state)
        if len(m.entries) % 7 == 0:
            assert len(json.dumps(RULES.snapshot(m.state))) < 40_000
    return m


@SETTINGS
@given(setups)
def test_random_duels_keep_the_invariants_and_end(args):
    m = play(args, limit=3000)
    assert m.state["winner"] is not None, "a duel of attacking creatures ends"


