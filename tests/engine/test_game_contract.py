"""Every registered game describes itself completely (engine.core.GameDescription), so the page, the panel,
the CLI and the camera can offer, set up, show and read it without naming it (DESIGN.md: games describe
themselves)."""

from __future__ import annotations

import json

import pytest

from engine.core import LANGS
from engine.games import GAMES, get_rules

NAMES = sorted(GAMES)


@pytest.mark.parametrize("name", NAMES)
def test_description_is_plain_json_with_every_part(name: str) -> None:
    desc = get_rules(name).describe()
    assert json.loads(json.dumps(desc)) == desc  # plain JSON, shippable to phones as it is
    assert desc["name"] == name
    for key in ("title", "modes", "setup", "phases", "dice_sets", "catalogue", "texts", "hidden",
                "scoreboard"):
        assert key in desc, key
    assert desc["modes"], "a game offers at least one mode"
    for mode in desc["modes"]:
        low, high = mode["players"]
        assert 0 <= low <= high
    assert all(set(LANGS) <= set(desc["title"]) for _ in [0])


@pytest.mark.parametrize("name", NAMES)
def test_phases_name_their_panel_led_slot(name: str) -> None:
    for phase in get_rules(name).describe()["phases"]:
        assert phase["led"] is None or phase["led"] in range(5), phase
        assert phase["name"]["en"]


@pytest.mark.parametrize("name", NAMES)
def test_dice_sets_are_complete_with_symmetric_opposites(name: str) -> None:
    for set_id, spec in get_rules(name).describe()["dice_sets"].items():
        assert spec["id"] == set_id
        indexes = [f["index"] for f in spec["faces"]]
        assert indexes == list(range(1, len(indexes) + 1))
        for side, other in spec["opposite"].items():
            assert spec["opposite"][str(other)] == int(side), (set_id, side)
        assert spec["kind"] in ("pips", "icons", "numerals")


def test_dicethrone_offers_every_hero_with_its_dice_set() -> None:
    """Heroes reference: every hero has faces 1-6; the camera reads `dicethrone:<hero>` sets from the game."""
    desc = get_rules("dicethrone").describe()
    heroes = desc["catalogue"]["heroes"]
    assert len(heroes) == 16
    for row in heroes:
        spec = desc["dice_sets"][row["dice_set"]]
        assert [f["name"] for f in spec["faces"]] == row["faces"]
    assert {m["id"] for m in desc["modes"]} == {"1v1", "2v2", "koth"}


def test_a_pending_dice_input_names_a_described_dice_set() -> None:
    rules = get_rules("freeroll")
    snap = rules.snapshot(rules.setup({}, 1))
    assert set(snap["pending"]["input"]["dice_sets"]) <= set(rules.describe()["dice_sets"])


@pytest.mark.parametrize("name", NAMES)
def test_scoreboard_names_each_score_in_every_language(name: str) -> None:
    """The venue board (webui.scoreboard) shows each score by its name in the game's texts."""
    desc = get_rules(name).describe()
    board = desc["scoreboard"]
    assert set(board) <= {"scores", "turn", "winners", "everyone"}
    assert sum(bool(s.get("life")) for s in board["scores"]) <= 1
    for score in board["scores"]:
        assert set(desc["texts"][score["text"]]) >= set(LANGS), score
        assert set(score) <= {"key", "max", "text", "life"}
