"""Dice Throne setup validation (issue 11 point 7, engine side) and mid-game positions (issue 9).

Untrusted setups (a phone, a script, a fuzzer) must end in IllegalAction("bad_setup", a sentence naming the
field) or a valid game: never another exception, never a state the rules cannot play. Rules §3 (health and
the heal cap), §4 (CP cap 15), §6.4 (stack limits) give the bounds.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from engine import checks
from engine.core import IllegalAction
from engine.games import get_rules

RULES = get_rules("dicethrone")


def base(**extra):
    return {"mode": "1v1", "start": "ann",
            "players": [{"id": "ann", "name": "Ann", "hero": "gunslinger"},
                        {"id": "bo", "name": "Bo", "hero": "barbarian"}], **extra}


def with_player(field, value, k=0):
    setup = base()
    setup["players"][k] = {**setup["players"][k], field: value}
    return setup


def refused(setup, seed=1):
    with pytest.raises(IllegalAction) as err:
        RULES.setup(setup, seed)
    assert err.value.code == "bad_setup"
    assert err.value.message.endswith(".") and len(err.value.message) < 300
    json.dumps(err.value.to_dict())        # the message is plain JSON text (no surrogate leaks into it)
    return err.value.message


BAD_NUMBERS = ["40", 40.5, math.nan, math.inf, -math.inf, [40], {"n": 40}, 1e300, True, None, 10 ** 30]


@pytest.mark.parametrize("value", BAD_NUMBERS, ids=repr)
def test_starting_health_must_be_a_whole_number_in_range(value):
    assert "health" in refused(base(health=value))


@pytest.mark.parametrize("field", ["health", "cp", "hand", "discard", "deck"])
@pytest.mark.parametrize("value", BAD_NUMBERS, ids=repr)
def test_player_numbers_must_be_whole_numbers_in_range(field, value):
    assert field in refused(with_player(field, value))


@pytest.mark.parametrize("setup, word", [
    (base(health=0), "health"),
    (base(health=100), "health"),
    (with_player("health", 0), "health"),            # a position starts with everyone standing
    (with_player("health", 61), "health"),           # above the heal cap: start 50 + 10 (§3)
    (with_player("cp", -1), "cp"),
    (with_player("cp", 16), "cp"),                    # CP cap 15 (§4)
    (with_player("hand", 33), "hand"),                # more cards than the deck holds
    (with_player("deck", 3), "deck"),                 # the opening hand is 4 cards
    (with_player("statuses", {"evasive": 4}), "evasive"),   # stack limit 3 (§6.4)
    (with_player("statuses", {"evasive": -1}), "evasive"),
    (with_player("statuses", {"not_a_status": 1}), "not_a_status"),
    (with_player("statuses", ["evasive"]), "statuses"),
    (with_player("upgrades", {"revolver": 0}), "revolver"),
    (with_player("upgrades", {"fly": 2}), "fly"),
    (base(turn=0), "turn"),
    (base(turn="3"), "turn"),
    (base(phase="combat"), "phase"),
    (base(active="zed"), "active"),
    (base(start=["ann"]), "start"),
    (base(mode=["1v1"]), "mode"),
    (base(heath=40), "heath"),                        # a typo is named, not silently ignored
    (with_player("team", "A"), "team"),
])
def test_out_of_bounds_setups_name_the_field(setup, word):
    assert word in refused(setup)


@pytest.mark.parametrize("seed", [2 ** 63, -(2 ** 63) - 1, 10 ** 40, "7", 7.0, math.nan, [7], None])
def test_seeds_must_fit_a_signed_64_bit_integer(seed):
    assert "seed" in refused(base(), seed)


def test_seed_bounds_themselves_are_accepted():
    for seed in (checks.SEED_MIN, checks.SEED_MAX, 0):
        assert RULES.setup(base(), seed)["pending"]["kind"] == "main"


@pytest.mark.parametrize("field", ["name", "id"])
@pytest.mark.parametrize("value", ["\ud800", "Ann\udfff", "", "   ", "a\x00b", "x" * 41, 12, ["Ann"]], ids=repr)
def test_names_and_ids_must_be_short_valid_text(field, value):
    message = refused(with_player(field, value))
    assert field in message
    message.encode("utf-8")                           # the refusal itself never carries the surrogate


def test_names_in_any_script_are_kept():
    setup = base()
    setup["players"][0]["name"] = "安娜"
    setup["players"][1]["name"] = "보라 👩‍👩‍👧"
    s = RULES.setup(setup, 1)
    assert [p["name"] for p in s["players"]] == ["安娜", "보라 👩‍👩‍👧"]


def test_teammates_state_one_shared_health():
    """Rules §13: a 2v2 team shares one health dial, so a position gives teammates the same number."""
    players = [{"id": f"p{k}", "hero": h, "team": t} for k, (h, t) in
               enumerate([("ninja", "A"), ("monk", "B"), ("samurai", "A"), ("treant", "B")])]
    players[0]["health"], players[2]["health"] = 30, 31
    assert "same" in refused({"mode": "2v2", "players": players})
    players[2]["health"] = 30
    s = RULES.setup({"mode": "2v2", "players": players}, 1)
    assert [t["health"] for t in s["teams"]] == [30, 50] and s["cap"] == 60


def test_stated_tokens_replace_the_heroes_setup_tokens():
    """Absolute values: a player's stated `statuses` are all their tokens (the Gunslinger's first Upkeep
    Reload from Quick Draw still comes, since play starts at the start of the turn)."""
    plain = RULES.setup(base(), 1)
    stated = RULES.setup(with_player("statuses", {"bounty": 1}, k=1), 1)
    assert "bounty" not in plain["players"][1]["statuses"]
    assert stated["players"][1]["statuses"] == {"bounty": 1}


json_values = hs.recursive(
    hs.none() | hs.booleans() | hs.integers() | hs.floats() | hs.text(max_size=8),
    lambda inner: hs.lists(inner, max_size=3) | hs.dictionaries(hs.text(max_size=6), inner, max_size=3),
    max_leaves=6)
FIELDS = ["mode", "players", "start", "health", "turn", "active", "phase"]
PLAYER_FIELDS = ["id", "name", "hero", "team", "deck", "health", "cp", "hand", "discard", "statuses", "upgrades"]


@settings(max_examples=300, deadline=None)
@given(top=hs.dictionaries(hs.sampled_from(FIELDS), json_values, max_size=3),
       player=hs.dictionaries(hs.sampled_from(PLAYER_FIELDS), json_values, max_size=3),
       seed=hs.integers(-(2 ** 70), 2 ** 70))
def test_any_junk_in_a_setup_is_refused_cleanly_or_plays(top, player, seed):
    """Property: junk in any field gives bad_setup (with a JSON-able message) or a game waiting for a decision."""
    setup = {**base(), **top}
    if isinstance(setup.get("players"), list) and len(setup["players"]) == 2 \
            and isinstance(setup["players"][0], dict):
        setup["players"] = [{**setup["players"][0], **player}, setup["players"][1]]
    try:
        s = RULES.setup(setup, seed)
    except IllegalAction as err:
        assert err.code == "bad_setup"
        json.dumps(err.to_dict()).encode("utf-8")
        return
    assert s["pending"] is not None and 1 <= min(t["health"] for t in s["teams"])
    assert all(0 <= p["cp"] <= 15 for p in s["players"])
    json.dumps(RULES.dump(s)).encode("utf-8")


@pytest.mark.parametrize("action", [
    {"type": "adjust", "player": "ann", "hand": 10 ** 30},
    {"type": "adjust", "player": "ann", "cp": math.nan},
    {"type": "adjust", "player": "ann", "health": "5"},
    {"type": "adjust", "player": "ann", "discard": [1]},
    {"type": "adjust", "player": "ann", "status": {"burn": 1e300}},
    {"type": "adjust", "player": "ann", "deck": True},
], ids=repr)
def test_hand_entered_numbers_are_checked_like_setup_numbers(action):
    """Bad input loses nothing (DESIGN quality bar): a by-hand change with a number that is not a whole number
    within +-999 is refused with the field named, and the state is untouched."""
    s = RULES.setup(base(), 1)
    before = json.dumps(RULES.dump(s), sort_keys=True)
    with pytest.raises(IllegalAction) as err:
        RULES.apply(s, action)
    assert err.value.code == "bad_adjust" and "999" in err.value.message
    assert json.dumps(RULES.dump(s), sort_keys=True) == before
