"""Whole random Regidice games (hypothesis): every die is in exactly one place at every step, and no phone
ever receives another player's hidden pips before the Collect phase reveals them (checked on the JSON bytes of
every snapshot for every viewer, by Regidice's own rule for what is hidden when).
What every game keeps (replay == live, undo/redo, refusals change nothing, no mutation, dump/load, offered
options legal, no hidden leak) is the contract kit's, run over every game: tests/contract."""

from __future__ import annotations

import ast
import json
import random
import re
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as hs
from rdhelp import RULES

from engine.describe import untranslated
from engine.kernel import seat_of
from engine.match import Match
from engine.regidice import state as st

LOCATION = re.compile(r"^(pool:|prep:)(p[1-4])$|^(wounded|enemy|reserve|box)$")


def random_action(rng: random.Random, s: dict) -> dict:
    """A legal-looking action: an option of the pending decision, sometimes with a player's own choices."""
    options = RULES.options(s)
    action = dict(rng.choice(options))
    if action["type"] == "roll" and rng.random() < 0.5:
        seat = seat_of(s, action["player"])
        action["dice"] = [{"colour": d["colour"], "value": rng.randint(1, 6)} for d in st.pool(s, seat)]
    if action["type"] == "prepare" and rng.random() < 0.5:
        free = [d["id"] for d in st.pool(s, seat_of(s, action["player"])) if not d["used"]]
        action["dice"] = rng.sample(free, rng.randint(0, len(free)))
    return action


def play(seed: int, players: int, steps: int = 400) -> Match:
    rng = random.Random(seed)
    match = Match(RULES, {"players": players, "first": seed % players}, seed)
    for _ in range(steps):
        if match.state["phase"] == "over":
            break
        match.submit(random_action(rng, match.state))
        check_conserved(match.state, players)
    return match


def check_conserved(s: dict, players: int) -> None:
    dice = s["dice"]
    ids = [d["id"] for d in dice]
    assert len(ids) == len(set(ids))
    colours = Counter(d["colour"] for d in dice)
    assert colours["black"] == st.BLACK_TOTAL
    assert colours["red"] + colours["blue"] + colours["yellow"] == sum(map(sum, st.DISTRIBUTION[players]))
    for d in dice:
        assert LOCATION.match(d["at"]), d
        assert 1 <= d["pips"] <= 6
    assert len([d for d in dice if d["at"] == "enemy"]) in (0, *st.ENEMY_DICE)
    assert [d["id"] for d in dice if d["at"] == "enemy"] == s["enemy_dice"] or s["phase"] == "over"


@settings(max_examples=25, deadline=None)
@given(hs.integers(0, 10**6), hs.integers(2, 4))
def test_dice_are_conserved(seed: int, players: int) -> None:
    """Every die is somewhere, once, whatever is played (checked after every action by `play`); replay,
    undo and dump/load are the contract kit's (tests/contract)."""
    play(seed, players)


def _hidden_values(s: dict) -> dict[str, list[tuple[str, int]]]:
    """Per player, the (die id, pips) they rolled this round, while these are still hidden."""
    if s["phase"] not in ("roll", "declare"):
        return {}
    out: dict[str, list[tuple[str, int]]] = {}
    for d in s["dice"]:
        if d["at"].startswith("pool:") and d["rolled"]:
            out.setdefault(d["at"][5:], []).append((d["id"], d["pips"]))
    return out


@settings(max_examples=25, deadline=None)
@given(hs.integers(0, 10**6), hs.integers(2, 4))
def test_no_phone_receives_another_players_hidden_pips_before_the_reveal(seed: int, players: int) -> None:
    """Every snapshot for every viewer (each seat and the shared screen) over a whole game, as JSON bytes:
    a hidden die appears only as its id and colour (pips null) except on its owner's phone, and the log
    and events carry no pips of a roll."""
    rng = random.Random(seed)
    match = Match(RULES, {"players": players}, seed)
    viewers = [None, *[f"p{k + 1}" for k in range(players)]]
    for _ in range(300):
        s = match.state
        if s["phase"] == "over":
            break
        hidden = _hidden_values(s)
        before = json.dumps(s, sort_keys=True)
        for viewer in viewers:
            raw = json.dumps(match.snapshot(viewer=viewer), sort_keys=True)
            snap = json.loads(raw)
            shown = {d["id"]: d["pips"] for p in snap["players"] for d in p["pool"]}
            for owner, dice in hidden.items():
                for die_id, pips in dice:
                    if owner == viewer:
                        assert shown[die_id] == pips
                    else:
                        assert shown[die_id] is None
                        # the die's id is never followed by its pips anywhere in the bytes
                        assert f'"id": "{die_id}", "pips": {pips}' not in raw
            for entry in snap["log"]:
                if entry["action"]["type"] == "roll":
                    assert all(set(d) <= {"colour"} for d in entry["action"].get("dice", []))
            for event in snap["events"]:
                if event["type"] == "rolled":
                    assert set(event) == {"type", "player", "count", "colours"}
            if s["phase"] in ("roll", "declare"):
                opts = json.dumps(snap["pending"])
                assert '"pips"' not in opts
        RULES.options(s)
        RULES.default_action(s)
        assert json.dumps(s, sort_keys=True) == before  # snapshots and options only read the state
        match.submit(random_action(rng, s))
        for event in match.last_events:
            if event["type"] == "rolled":
                assert "pips" not in json.dumps(event) and "value" not in json.dumps(event)


def test_the_shared_screen_sees_counts_and_colours_only_during_the_roll() -> None:
    match = Match(RULES, {"players": 2}, 5)
    match.submit({"type": "roll", "player": "p1", "dice": ["R6", "R6", "R6", "B6", "B6", "B6", "Y6", "Y6", "Y6"]})
    shared = match.snapshot()
    p1 = shared["players"][0]
    assert p1["count"] == 9 and p1["colours"] == {"red": 3, "blue": 3, "yellow": 3}
    assert {d["pips"] for d in p1["pool"]} == {None}
    assert '"R6"' not in json.dumps(shared["log"]) and "6" not in json.dumps(shared["log"][-1]["action"])
    mine = match.snapshot(viewer="p1")
    assert {d["pips"] for d in mine["players"][0]["pool"]} == {6}
    assert shared["pending"]["input"] == {"type": "dice", "count": 9, "dice_sets": ["regidice"], "player": "p2",
                                          "colours": ["red"] * 3 + ["blue"] * 3 + ["yellow"] * 3, "hidden": True}


# -- describe --------------------------------------------------------------------------------------------
def test_describe_names_the_coloured_pip_dice_and_is_hidden() -> None:
    desc = RULES.describe()
    assert desc["hidden"] is True
    spec = desc["dice_sets"]["regidice"]
    assert spec["colours"] == ["red", "blue", "yellow", "black"] and spec["kind"] == "pips"
    assert [p["id"] for p in desc["phases"]] == ["roll", "declare", "collect", "resolve", "suffer", "prepare", "over"]
    assert desc["modes"][0]["players"] == [2, 4]
    assert [e["dice"] for e in desc["catalogue"]["enemies"]] == list(st.ENEMY_DICE)


def test_every_word_is_translated() -> None:
    """The title stays "Regidice" in zh-TW as the seed writes it; every other string is translated."""
    assert untranslated(RULES.describe()) == ["title[zh-TW]", "dice_sets.regidice.name[zh-TW]"]


def test_every_refusal_and_prompt_has_a_text() -> None:
    texts = RULES.describe()["texts"]
    codes = set()
    for path in Path(st.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                arg = {"require": 1, "IllegalAction": 0}.get(node.func.id)
                if arg is not None and len(node.args) > arg and isinstance(node.args[arg], ast.Constant):
                    codes.add(node.args[arg].value)
    missing = sorted(c for c in codes if f"refusal.{c}" not in texts)
    assert "refusal.value_taken" in texts and "refusal.wrong_colours" in texts
    assert missing == [], missing
    for phase in ("roll", "declare", "collect", "resolve", "suffer", "prepare", "over"):
        assert f"prompt.{phase}" in texts
