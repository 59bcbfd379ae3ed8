"""The recipe for adding a game (docs/architecture.md, "Adding a game"), proved with the tiny test game Pig:
its folder (tests/contract/pig: rules, game.json, board.js) plus one registry line is all it takes for the
engine, the table, the store and the page to run it. A game without a board stops the start."""

from __future__ import annotations

import pytest

from device.store import Store
from device.table import Table
from engine.games import GAMES, describe_all, get_rules
from engine.kernel import GameRules
from webui import api, boards, create_app

from .pig import Pig

SETUP = {"players": [{"id": "ann"}, {"id": "bo"}]}


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
