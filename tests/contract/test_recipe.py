"""The recipe for adding a game (docs/architecture.md, "Adding a game"), proved with the tiny test game Pig:
its folder (tests/contract/pig: rules, game.json, board.js) plus one registry line is all it takes for the
engine, the table, the store and the page to run it. A game without a board stops the start."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from device.store import Store
from device.table import Table
from engine.games import GAMES, describe_all, get_rules
from engine.kernel import GameRules
from webui import api, boards, create_app

from .pig import Pig

SETUP = {"players": [{"id": "ann"}, {"id": "bo"}]}
ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE = ROOT / "docs" / "architecture.md"


@pytest.fixture()
def with_pig(monkeypatch):
    """The one registry line (engine/games.py) a new game adds, here for the test's duration."""
    monkeypatch.setitem(GAMES, "pig", Pig())
    api._games_body.cache_clear()  # the page's game list is encoded once per process
    yield
    api._games_body.cache_clear()


def test_a_game_in_its_folder_plays_on_the_table_and_the_page(with_pig, tmp_path):
    assert get_rules("pig").name == "pig" and "pig" in [d["name"] for d in describe_all()]
    table = Table(Store(tmp_path / "state"), camera=None)
    try:
        table.new_game("pig", SETUP, seed=3)
        table.submit({"type": "roll", "dice": [5]})
        snap = table.submit({"type": "hold"})
        assert [p["score"] for p in snap["players"]] == [5, 0] and snap["active"] == "bo"
        client = create_app(table, secret_key="k", testing=True).test_client()
        pig = next(g for g in client.get("/api/games").get_json()["games"] if g["name"] == "pig")
        assert pig["board"]["css"] is None  # a board with no styles of its own
        served = client.get(pig["board"]["js"])
        assert served.status_code == 200 and b"export function render" in served.data
        assert client.get("/api/state").get_json()["game"] == "pig"
    finally:
        table.close()


class Boardless(GameRules):
    """A game whose folder (this test's) holds no board.js."""

    name = "boardless"

    def describe(self):  # pragma: no cover - never reached: the app refuses to start first
        raise AssertionError


def test_a_game_without_a_board_stops_the_start(monkeypatch, tmp_path):
    monkeypatch.setitem(GAMES, "boardless", Boardless())
    table = Table(Store(tmp_path / "state"), camera=None)
    try:
        with pytest.raises(boards.MissingBoard, match="boardless"):
            create_app(table, secret_key="k", testing=True)
    finally:
        table.close()


def test_the_recipe_is_written_down_and_names_only_files_that_exist():
    """docs/architecture.md is where a newcomer reads the recipe: every file it names exists (it went on naming
    webui/viewers.py and webui/static/games/ after both were gone); `<game>` stands for each registered game."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert "## Adding a game" in text and "## The engine (`engine/`)" in text
    named = re.findall(r"`((?:engine|webui|device|vision|tests|docs)/[^`\s]*)`", text)
    missing = sorted(path for path in {n.split("::")[0] for n in named} if not _exists(path))
    assert named and missing == []


def _exists(path: str) -> bool:
    """A path or pattern of the repository exists; with `<game>`, for some registered game (the free roll
    has no rules tests of its own); other placeholders are not paths."""
    if "<game>" in path:
        return any(_exists(path.replace("<game>", g)) for g in GAMES)
    return "<" in path or any(ROOT.glob(path.rstrip("/")))
