"""Dice sets are data: faces, values, opposite faces, hero dice from the engine's hero catalogue."""

from __future__ import annotations

import pytest

from vision.dicesets import get_set, names


def test_known_sets():
    for name in ("d6", "kingoftokyo", "magewars-attack", "d12", "dicethrone:barbarian"):
        assert name in names()
        ds = get_set(name)
        assert ds.n == len(ds.faces)
        for f in ds.faces:  # the opposite table is an involution
            assert ds.top_of(ds.bottom_of(f.index)) == f.index


def test_d6_opposites_sum_to_seven_and_d12_to_thirteen():
    d6, d12 = get_set("d6"), get_set("d12")
    assert all(d6.top_of(i) == 7 - i for i in range(1, 7))
    assert all(d12.top_of(i) == 13 - i for i in range(1, 13))


def test_magewars_attack_faces_have_game_values():
    ds = get_set("magewars-attack")
    assert [f.value for f in ds.faces] == [0, 0, 1, 2, 1, 2]
    assert [f.name for f in ds.faces] == ["blank", "blank", "1", "2", "1-critical", "2-critical"]


def test_king_of_tokyo_faces():
    assert [f.name for f in get_set("kingoftokyo").faces] == ["1", "2", "3", "energy", "claw", "heart"]


def test_dice_throne_hero_faces_come_from_the_hero_data():
    ds = get_set("dicethrone:barbarian")
    assert [f.name for f in ds.faces] == ["sword", "sword", "sword", "heart", "heart", "pow"]
    assert [f.value for f in ds.faces] == [1, 2, 3, 4, 5, 6]


def test_unknown_set_is_a_clear_error():
    with pytest.raises(KeyError, match="unknown dice set"):
        get_set("d7")
    with pytest.raises(KeyError, match="unknown Dice Throne hero"):
        get_set("dicethrone:nobody")
