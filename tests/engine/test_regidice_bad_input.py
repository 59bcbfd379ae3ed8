"""Bad input of any kind (setups and actions, hypothesis-generated JSON) gets an IllegalAction with a code
that has a text, and changes nothing: no other exception escapes the rules."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as hs
from rdhelp import RULES

from engine.core import IllegalAction

JSON = hs.recursive(hs.none() | hs.booleans() | hs.integers(-10, 40) | hs.text(max_size=4)
                    | hs.sampled_from(["R3", "K6", "p1", "p2", "red", "even", "attack", "cast", "companion"]),
                    lambda inner: hs.lists(inner, max_size=5) | hs.dictionaries(hs.text(max_size=6), inner, max_size=4),
                    max_leaves=12)
KEYS = ["type", "player", "dice", "action", "value", "colour", "parity", "die", "groups", "sets", "runs", "spells",
        "pips", "take", "nudges", "skip"]
TYPES = ["roll", "declare", "advance", "nudge", "resolve", "suffer", "prepare", "undo", "jump", ""]


def refused_cleanly(call) -> None:
    texts = RULES.describe()["texts"]
    try:
        call()
    except IllegalAction as err:
        assert f"refusal.{err.code}" in texts or err.code == "bad_action", err.code
        assert err.message


@settings(max_examples=200, deadline=None)
@given(hs.dictionaries(hs.sampled_from(["players", "first", "start", "position", "seed"]), JSON, max_size=4),
       hs.dictionaries(hs.sampled_from(["enemy", "enemy_pips", "pools", "prepared", "wounded", "round"]), JSON,
                       max_size=4))
def test_any_setup_is_a_game_or_a_clear_refusal(config: dict, position: dict) -> None:
    refused_cleanly(lambda: RULES.setup(config, 1))
    refused_cleanly(lambda: RULES.setup({"players": 3, "position": position}, 1))


@settings(max_examples=60, deadline=None)
@given(hs.integers(0, 10**6), hs.lists(hs.tuples(hs.sampled_from(TYPES),
                                                  hs.dictionaries(hs.sampled_from(KEYS), JSON, max_size=4)),
                                        min_size=1, max_size=6))
def test_any_action_is_applied_or_refused_without_change(seed: int, junk: list) -> None:
    rng = random.Random(seed)
    s = RULES.setup({"players": rng.randint(2, 4)}, seed)
    for _ in range(rng.randint(0, 40)):  # somewhere in a game
        if s["phase"] == "over":
            break
        s, _ = RULES.apply(s, rng.choice(RULES.options(s)))
    for kind, fields in junk:
        before = json.dumps(s, sort_keys=True)
        action = {**fields, "type": kind}
        try:
            s, _ = RULES.apply(s, action)
        except IllegalAction as err:
            assert err.message and (f"refusal.{err.code}" in RULES.describe()["texts"] or err.code == "bad_action")
            assert json.dumps(s, sort_keys=True) == before
