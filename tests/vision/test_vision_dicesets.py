"""Dice sets are data handed to the reader: the DiceSetSpec dicts of the games' descriptions parse, bad ones
are refused with a sentence, and only the generic pip d6 is known by name."""

from __future__ import annotations

import ast
import copy
from pathlib import Path

import pytest
from vision_specs import ALL, ATTACK, NUMERALS12, SYMBOLS

import vision
from engine import games
from vision.dicesets import PIP_D6, DiceSet, DiceSetError, get_set
from vision.reader import read_dice
from vision.render import DieSpec, render_tray


def test_fixture_specs_parse_with_involutive_opposites():
    for spec in ALL:
        ds = get_set(spec)
        assert ds.id == spec["id"] and ds.n == len(spec["faces"])
        for f in ds.faces:  # the opposite table is an involution
            assert ds.top_of(ds.bottom_of(f.index)) == f.index
        assert DiceSet.from_spec(ds.to_spec()) == ds


def test_generic_d6_opposites_sum_to_seven_and_d12_to_thirteen():
    d6, d12 = get_set("d6"), get_set(NUMERALS12)
    assert d6 is PIP_D6 and d6.kind == "pips"
    assert all(d6.top_of(i) == 7 - i for i in range(1, 7))
    assert all(d12.top_of(i) == 13 - i for i in range(1, 13))
    assert d12.shape == "pentagon" and d12.kind == "numerals"


def test_faces_keep_their_game_values():
    ds = get_set(ATTACK)
    assert [f.value for f in ds.faces] == [0, 0, 1, 2, 1, 2]
    assert [f.name for f in get_set(SYMBOLS).faces] == ["1", "2", "3", "energy", "claw", "heart"]


def test_every_set_a_registered_game_describes_is_readable():
    """The box hands the reader the games' own descriptions: each parses, renders, and reads."""
    specs = [s for desc in games.describe_all() for s in desc["dice_sets"].values()]
    assert specs
    for spec in specs:
        ds = get_set(spec)
        assert ds.id == spec["id"] and [f.name for f in ds.faces] == [f["name"] for f in spec["faces"]]
        frame = render_tray([DieSpec(320, 240, 80, 10.0, 1, spec, "white")], mount="under", seed=1)
        readings = read_dice(frame, spec, "under")
        assert all(r.face in {f.name for f in ds.faces} | {"?"} for r in readings)


def test_unknown_name_and_bad_descriptions_are_clear_errors():
    with pytest.raises(KeyError, match="unknown dice set 'd7'"):
        get_set("d7")
    with pytest.raises(DiceSetError, match="knows only the plain pip d6"):
        get_set("dicethrone:barbarian")  # names are the caller's business
    bad = copy.deepcopy(SYMBOLS)
    bad["opposite"] = {"1": 4, "4": 2}
    with pytest.raises(DiceSetError, match="not symmetric"):
        get_set(bad)
    bad = copy.deepcopy(SYMBOLS)
    bad["kind"] = "runes"
    with pytest.raises(DiceSetError, match="'kind' must be one of"):
        get_set(bad)
    bad = copy.deepcopy(SYMBOLS)
    del bad["faces"][2]["name"]
    with pytest.raises(DiceSetError, match="face 3 needs a string 'name'"):
        get_set(bad)
    with pytest.raises(DiceSetError, match="must be a dict"):
        get_set(["1", "2"])  # type: ignore[arg-type]


def test_vision_imports_nothing_of_ours():
    """vision/ takes frames and plain data: no module of it imports engine, device or webui."""
    root = Path(vision.__file__).parent
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
            for name in names:
                assert name.split(".")[0] not in ("engine", "device", "webui"), f"{path.name} imports {name}"
