"""Per-viewer snapshots on the real table (device.table.Table) with a hidden-information game (Regidice:
rolls hidden until Collect, reference/regidice.md §4.1): the bytes each phone receives, in the API answer,
`GET /api/state` and the event stream, never hold another player's hidden pips."""

from __future__ import annotations

import json
import re

import pytest

from device.pairing import Pairing
from device.store import Store
from device.table import Table
from webui import create_app

CSRF = "X-Dicesight-CSRF"
SETUP = {"players": [{"id": "p1", "name": "Ann"}, {"id": "p2", "name": "Ben"}], "first": 0}
ANN_ROLL = ["R6", "R3", "R6", "B1", "B4", "B5", "Y5", "Y5", "Y5"]
PIPS = re.compile(rb'"colour":"(?:red|blue|yellow)","pips":\d')  # a player die with its pips (enemy dice are public)


@pytest.fixture()
def table(tmp_path):
    table = Table(Store(tmp_path / "state"), camera=None, pairing=Pairing(tmp_path / "tokens.json"))
    table.new_game("regidice", SETUP, 13)
    yield table
    table.close()


@pytest.fixture()
def app(table):
    return create_app(table, secret_key="k", testing=True)


def paired_phone(app, table, seat: str | None):
    """A test client paired the way a phone is (ask, Pair pressed, collect), bound to `seat`."""
    client = app.test_client()
    rid = client.post("/api/pair", headers={CSRF: "x"}).get_json()["request"]
    table.approve_pairing()
    csrf = client.get(f"/api/pair/{rid}").get_json()["csrf"]
    client.environ_base["HTTP_X_DICESIGHT_CSRF"] = csrf
    if seat is not None:
        r = client.post("/api/seat", json={"player": seat})
        assert r.status_code == 200 and r.get_json()["session"]["seat"] == seat
    return client


def first_event(client) -> bytes:
    resp = client.get("/api/events", buffered=False)
    buf = b""
    for chunk in resp.response:
        buf += chunk if isinstance(chunk, bytes) else chunk.encode()
        if b"\n\n" in buf.split(b"retry: 2000\n", 1)[-1]:
            break
    resp.close()
    return buf


def pool(body: bytes, player: str) -> list:
    snap = json.loads(body)
    return next(p for p in snap["players"] if p["id"] == player)["pool"]


def test_a_hidden_roll_reaches_only_its_owner(app, table):
    ann = paired_phone(app, table, "p1")
    ben = paired_phone(app, table, "p2")
    watcher = app.test_client()

    answer = ann.post("/api/actions", json={"type": "roll", "player": "p1", "dice": ANN_ROLL})
    assert answer.status_code == 200
    # Ann's own answer, state and stream show her pips
    assert [d["pips"] for d in pool(answer.data, "p1")] == [6, 3, 6, 1, 4, 5, 5, 5, 5]
    assert [d["pips"] for d in pool(ann.get("/api/state").data, "p1")] == [6, 3, 6, 1, 4, 5, 5, 5, 5]
    assert json.loads(ann.get("/api/state").data)["viewer"] == "p1"
    assert PIPS.search(first_event(ann))
    # Ben, and anyone watching, get no pips at all: not in the pool, not in the log, not in the stream
    for client in (ben, watcher):
        state = client.get("/api/state").data
        assert not PIPS.search(state), state
        assert [d["colour"] for d in pool(state, "p1")][:3] == ["red", "red", "red"]
        assert not PIPS.search(first_event(client))
    assert json.loads(watcher.get("/api/state").data)["viewer"] is None


def test_a_phone_acts_only_for_its_seat_and_a_seat_has_one_phone(app, table):
    ann = paired_phone(app, table, "p1")
    ben = paired_phone(app, table, "p2")
    r = ben.post("/api/actions", json={"type": "roll", "player": "p1", "dice": ANN_ROLL})
    assert r.status_code == 403 and r.get_json()["code"] == "not_your_seat"
    assert table.snapshot()["seq"] == 0  # nothing changed
    r = ben.post("/api/seat", json={"player": "p1"})
    assert r.status_code == 409 and r.get_json()["code"] == "seat_press_pair"
    r = ben.post("/api/seat", json={"player": "p9"})
    assert r.status_code == 400 and r.get_json()["code"] == "bad_seat"
    assert ann.post("/api/seat", json={"player": None}).get_json()["session"]["seat"] is None
    assert ben.post("/api/seat", json={"player": "p1"}).status_code == 200
    # an unpaired phone cannot take a seat
    assert app.test_client().post("/api/seat", json={"player": "p1"}, headers={CSRF: "x"}).status_code == 401


def test_a_new_game_starts_with_every_phone_unbound(app, table):
    ann = paired_phone(app, table, "p1")
    table.new_game("regidice", SETUP, 14)
    assert ann.get("/api/session").get_json()["seat"] is None
    ann.post("/api/actions", json={"type": "roll", "player": "p1", "dice": ANN_ROLL})
    assert not PIPS.search(ann.get("/api/state").data)


def test_the_tray_of_a_hidden_roll_shows_colours_only_to_its_roller(table):
    """The tray's owner is decided once, when the throw settles: the player the game waits for."""
    table.tray.set_tray("settled", [{"value": 6, "face": "6", "colour": "red", "certain": True}])
    roller = table.hidden_roller()
    assert roller in ("p1", "p2")
    other = "p2" if roller == "p1" else "p1"
    for viewer in (None, other):
        tray = table.snapshot(viewer=viewer)["tray"]
        assert [d["value"] for d in tray["dice"]] == [None] and tray["dice"][0]["colour"] == "red"
    assert table.snapshot(viewer=roller)["tray"]["dice"][0]["value"] == 6
    assert table.seen_by(table.snapshot(), other)["tray"]["dice"][0]["value"] is None


def test_a_throw_the_hidden_game_does_not_wait_for_shows_no_one_its_faces(table):
    """Regidice waits for no throw once every roll is in: dice lying there then are nobody's to see."""
    table.submit({"type": "roll", "player": "p1", "dice": ANN_ROLL})
    table.submit({"type": "roll", "player": "p2", "dice": ANN_ROLL})
    if table.hidden_roller() == "":
        table.tray.set_tray("settled", [{"value": 6, "face": "6", "colour": "red", "certain": True}])
        for viewer in (None, "p1", "p2"):
            assert table.snapshot(viewer=viewer)["tray"]["dice"][0]["value"] is None


def test_games_without_hidden_information_send_one_snapshot_to_all(tmp_path):
    table = Table(Store(tmp_path / "state"), camera=None, pairing=Pairing(tmp_path / "tokens.json"))
    try:
        snap = table.snapshot()
        assert table.seen_by(snap, "p1") is snap  # the same object: its event is encoded once
        assert table.snapshot(viewer="p1")["viewer"] is None  # a seat changes nothing a phone sees
    finally:
        table.close()


def test_a_seated_phones_roll_without_a_player_is_its_own(app, table):
    """Issue 14: a player enters a hidden roll on their own phone only; a roll sent with no player from Ben's
    phone is Ben's roll (players may roll in any order), never the roll of whoever the box asks first."""
    ann = paired_phone(app, table, "p1")
    ben = paired_phone(app, table, "p2")
    r = ben.post("/api/actions", json={"type": "roll", "dice": ANN_ROLL})
    assert r.status_code == 200
    assert all(d["pips"] is not None for d in pool(ben.get("/api/state").data, "p2"))
    assert all(d["pips"] is None for d in pool(ann.get("/api/state").data, "p1"))  # Ann has not rolled


def test_a_hidden_rolls_photo_is_its_players_own_until_the_reveal(app, table):
    """Issue 14: roll photos of hidden rolls are kept, but served only to their owner until the reveal."""
    import cv2
    import numpy as np

    ann = paired_phone(app, table, "p1")
    ben = paired_phone(app, table, "p2")
    jpeg = cv2.imencode(".jpg", np.full((48, 64, 3), 90, np.uint8))[1].tobytes()
    table.submit({"type": "roll", "player": "p1", "dice": ANN_ROLL, "source": "camera"}, image=jpeg)
    name = table.match.entries[-1].action["image"]
    assert ann.get(f"/api/images/{name}").status_code == 200
    for other in (ben, app.test_client()):
        r = other.get(f"/api/images/{name}")
        assert r.status_code == 403 and r.get_json()["code"] == "hidden_photo"
