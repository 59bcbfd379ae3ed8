"""Issue 32, trust between phones, tried as a hostile phone on the LAN would: HTTP against a real served
box (the real table, store and pairing behind waitress), Regidice with its hidden rolls.

- a paired phone unpairs a seated player's phone and sits down as that player: refused (409 seat_held)
  until someone presses Pair on the box;
- a phone that starts a game with a chosen seed: refused (403 seed_refused) unless the box's config allows;
- a camera roll's photo (no player named) in a hidden round: served to nobody until the reveal."""

from __future__ import annotations

import http.cookiejar
import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

import cv2
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from pagekit import serve  # noqa: E402

from device.pairing import Pairing  # noqa: E402
from device.store import Store  # noqa: E402
from device.table import Table  # noqa: E402
from webui import create_app  # noqa: E402

CSRF = "X-Dicesight-CSRF"
SETUP = {"players": [{"id": "p1", "name": "Ann"}, {"id": "p2", "name": "Ben"}], "first": 0}
ANN_ROLL = ["R6", "R3", "R6", "B1", "B4", "B5", "Y5", "Y5", "Y5"]


class Phone:
    """A phone on the Wi-Fi: its own cookies, the CSRF value the box gave it, plain HTTP."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.csrf = "x"
        self.http = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict | bytes]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={CSRF: self.csrf, "Content-Type": "application/json"})
        try:
            with self.http.open(req, timeout=10) as resp:
                status, raw, kind = resp.status, resp.read(), resp.headers.get("Content-Type", "")
        except urllib.error.HTTPError as err:
            status, raw, kind = err.code, err.read(), err.headers.get("Content-Type", "")
        return status, json.loads(raw) if "json" in kind else raw

    def pair(self, table: Table) -> Phone:
        """Ask, the owner presses Pair on the box, collect the token."""
        rid = self.call("POST", "/api/pair")[1]["request"]
        table.approve_pairing()
        self.csrf = self.call("GET", f"/api/pair/{rid}")[1]["csrf"]
        return self


@pytest.fixture()
def table(tmp_path):
    table = Table(Store(tmp_path / "state"), camera=None, pairing=Pairing(tmp_path / "tokens.json"))
    table.new_game("regidice", SETUP, 13)
    yield table
    table.close()


@pytest.fixture()
def box(table):
    with serve(create_app(table, secret_key="k"), threads=4) as url:
        yield url


def test_a_stranger_cannot_take_a_seated_players_seat(table, box):
    ann = Phone(box).pair(table)
    assert ann.call("POST", "/api/seat", {"player": "p1"})[0] == 200
    table.submit({"type": "roll", "player": "p1", "dice": ANN_ROLL, "source": "hand"})
    mallory = Phone(box).pair(table)
    phones = mallory.call("GET", "/api/pair/phones")[1]["phones"]
    victim = next(p["id"] for p in phones if (p.get("seat") or {}).get("player") == "p1")
    assert mallory.call("DELETE", f"/api/pair/phones/{victim}")[0] == 200  # any paired phone may unpair another
    status, body = mallory.call("POST", "/api/seat", {"player": "p1"})
    assert status == 409 and body["code"] == "seat_held"
    snap = mallory.call("GET", "/api/state")[1]
    assert next(p for p in snap["players"] if p["id"] == "p1")["pool"] != ANN_ROLL
    # Ann, with her phone paired again, asks the owner: a press on the box frees her seat
    ann = Phone(box).pair(table)
    table.approve_pairing()  # nobody asking: the press frees seats whose phone is gone
    assert ann.call("POST", "/api/seat", {"player": "p1"})[0] == 200


def test_a_seat_left_by_its_own_phone_is_free(table, box):
    ann, ben = Phone(box).pair(table), Phone(box).pair(table)
    assert ann.call("POST", "/api/seat", {"player": "p1"})[0] == 200
    assert ann.call("POST", "/api/seat", {"player": None})[0] == 200
    assert ben.call("POST", "/api/seat", {"player": "p1"})[0] == 200


def test_a_phone_cannot_choose_the_seed(table, box):
    mallory = Phone(box).pair(table)
    status, body = mallory.call("POST", "/api/games", {"game": "regidice", "setup": SETUP, "seed": 7})
    assert status == 403 and body["code"] == "seed_refused"
    assert mallory.call("POST", "/api/games", {"game": "regidice", "setup": SETUP})[0] == 200


def test_a_box_configured_for_replays_takes_a_chosen_seed(table):
    with serve(create_app(table, secret_key="k", chosen_seeds=True), threads=4) as url:
        phone = Phone(url).pair(table)
        assert phone.call("POST", "/api/games", {"game": "regidice", "setup": SETUP, "seed": 7})[0] == 200


def test_a_camera_rolls_photo_in_a_hidden_round_is_nobodys_until_the_reveal(table, box):
    ann, ben = Phone(box).pair(table), Phone(box).pair(table)
    assert ann.call("POST", "/api/seat", {"player": "p1"})[0] == 200
    jpeg = cv2.imencode(".jpg", np.full((48, 64, 3), 90, np.uint8))[1].tobytes()
    table.submit({"type": "roll", "dice": ANN_ROLL, "source": "camera"}, image=jpeg)
    name = table.match.entries[-1].action["image"]
    for phone in (ben, Phone(box)):
        status, body = phone.call("GET", f"/api/images/{name}")
        assert status == 403 and body["code"] == "hidden_photo"
