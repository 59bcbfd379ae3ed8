"""Issue 32 #3, as a hostile phone on the LAN would try it: take a player's seat to read their hidden dice,
predict every roll by choosing the seed, fetch the photo of someone else's hidden throw."""

from __future__ import annotations

import json

import numpy as np
import pytest

from device.pairing import Pairing
from device.store import Store
from device.table import Table
from vision.reading import Reading
from webui import create_app

CSRF = "X-Dicesight-CSRF"
SETUP = {"players": [{"id": "p1", "name": "Ann"}, {"id": "p2", "name": "Ben"}], "first": 0}
ANN_ROLL = ["R6", "R3", "R6", "B1", "B4", "B5", "Y5", "Y5", "Y5"]


@pytest.fixture()
def table(tmp_path):
    table = Table(Store(tmp_path / "state"), camera=None, pairing=Pairing(tmp_path / "tokens.json"))
    table.new_game("regidice", SETUP, 13)
    yield table
    table.close()


def paired_phone(app, table, address: str, seat: str | None = None):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    rid = client.post("/api/pair", headers={CSRF: "x"}).get_json()["request"]
    table.approve_pairing()
    client.environ_base["HTTP_X_DICESIGHT_CSRF"] = client.get(f"/api/pair/{rid}").get_json()["csrf"]
    if seat is not None:
        assert client.post("/api/seat", json={"player": seat}).status_code == 200
    return client


def ann_pips(client) -> list:
    snap = json.loads(client.get("/api/state").data)
    return [d.get("pips") for d in next(p for p in snap["players"] if p["id"] == "p1")["pool"]]


def test_unpairing_a_player_and_sitting_down_does_not_show_their_dice(table):
    """Any paired phone could unpair a player's phone and sit down as that player: it read all 6 of that
    player's hidden pips. The seat stays its phone's: only a press on the box gives it to another."""
    app = create_app(table, secret_key="k", testing=True)
    ann = paired_phone(app, table, "10.0.0.2", "p1")
    assert ann.post("/api/actions", json={"type": "roll", "player": "p1", "dice": ANN_ROLL}).status_code == 200
    mallory = paired_phone(app, table, "10.0.0.66")
    ann_id = next(p["id"] for p in mallory.get("/api/pair/phones").get_json()["phones"] if p.get("seat"))
    assert mallory.delete(f"/api/pair/phones/{ann_id}").status_code == 200  # Ann's phone unpaired
    r = mallory.post("/api/seat", json={"player": "p1"})
    assert r.status_code == 409 and r.get_json()["code"] == "seat_press_pair"
    assert ann_pips(mallory) == [None] * len(ann_pips(mallory))  # nothing of Ann's throw
    # the person at the box means it: the press gives the seat (Ann's new phone, say)
    assert table.approve_pairing() == "seat"
    assert ann_pips(mallory)[0] == 6


def test_a_seat_held_by_a_phone_needs_the_box_or_the_holder(table):
    app = create_app(table, secret_key="k", testing=True)
    ann = paired_phone(app, table, "10.0.0.2", "p1")
    ben = paired_phone(app, table, "10.0.0.3")
    assert ben.post("/api/seat", json={"player": "p1"}).get_json()["code"] == "seat_press_pair"
    assert ann.post("/api/seat", json={"player": None}).status_code == 200  # Ann leaves it: her consent
    assert ben.post("/api/seat", json={"player": "p1"}).status_code == 200


def test_a_phone_cannot_choose_the_seed(table):
    """The phone that starts a game with a chosen seed predicted every seeded roll (7 of 7)."""
    app = create_app(table, secret_key="k", testing=False, allow_seed=False)
    app.config["DICESIGHT_HOST_NAMES"] = app.config["DICESIGHT_HOST_NAMES"] | {"localhost"}
    phone = paired_phone(app, table, "10.0.0.5")
    r = phone.post("/api/games", json={"game": "regidice", "setup": SETUP, "seed": 13})
    assert r.status_code == 403 and r.get_json()["code"] == "seed_not_allowed"
    assert phone.post("/api/games", json={"game": "regidice", "setup": SETUP}).status_code == 200
    allowed = create_app(table, secret_key="k", testing=False, allow_seed=True)
    allowed.config["DICESIGHT_HOST_NAMES"] = allowed.config["DICESIGHT_HOST_NAMES"] | {"localhost"}
    phone = paired_phone(allowed, table, "10.0.0.6")
    assert phone.post("/api/games", json={"game": "regidice", "setup": SETUP, "seed": 13}).status_code == 200


def test_new_games_draw_their_seed_from_the_os(table):
    seeds = set()
    for _ in range(5):
        table.new_game("regidice", SETUP)
        seeds.add(table.store.load_game(table.game_id).seed)
    assert len(seeds) == 5


def test_the_photo_of_a_hidden_camera_throw_is_its_rollers_only(table):
    """Camera rolls carried no player, so the photo's owner check passed for anyone who had its name."""
    app = create_app(table, secret_key="k", testing=True)
    ann = paired_phone(app, table, "10.0.0.2", "p1")
    ben = paired_phone(app, table, "10.0.0.3", "p2")
    table.tray.set_tray("settled", [], needs_confirmation=False, private_to="p1")
    dice = [Reading(v, str(v), c, 0.99, (60.0 + 40 * i, 60.0), (40 + 40 * i, 40, 36, 36), True)
            for i, (v, c) in enumerate([(6, "red"), (3, "red"), (6, "red"), (1, "blue"), (4, "blue"), (5, "blue"),
                                        (5, "yellow"), (5, "yellow"), (5, "yellow")])]
    frame = np.full((240, 480, 3), 90, np.uint8)
    table.tray.record_roll(dice, [d.to_dict() for d in dice], frame)
    entry = table.match.entries[-1].action
    assert entry.get("player") == "p1" and entry.get("image")
    name = entry["image"]
    assert ann.get(f"/api/images/{name}").status_code == 200
    assert ben.get(f"/api/images/{name}").status_code == 403
    assert app.test_client().get(f"/api/images/{name}").status_code == 403
