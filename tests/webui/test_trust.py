"""Issue 32, trust between phones, tried as a hostile phone on the LAN would: HTTP against a real served
box (the real table, store and pairing behind waitress), Regidice with its hidden rolls.

- a paired phone unpairs a seated player's phone and sits down as that player: refused (409 seat_held)
  until someone presses Pair on the box;
- a phone that starts a game with a chosen seed: refused (403 seed_refused) unless the box's config allows;
- a camera roll's photo (no player named) in a hidden round: served to nobody until the reveal."""

from __future__ import annotations

import http.client
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


class _From(urllib.request.HTTPHandler):
    """Connect from one loopback address (127.0.0.N): each hostile phone is its own address to the box."""

    def __init__(self, address: str) -> None:
        super().__init__()
        self.address = address

    def http_open(self, req):
        def connect(host, **kw):
            return http.client.HTTPConnection(host, source_address=(self.address, 0), **kw)
        return self.do_open(connect, req)


class Clock:
    """The pairing's clock, moved by the test: no test waits in real time."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Phone:
    """A phone on the Wi-Fi: its own cookies, the CSRF value the box gave it, plain HTTP."""

    def __init__(self, url: str, address: str = "127.0.0.1") -> None:
        self.url = url
        self.csrf = "x"
        self.http = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()),
                                                _From(address))

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
    assert Pairing(table.pairing.path)._held, "a restart of the box frees no seat"
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


@pytest.mark.parametrize("hostile", [1, 2, 10])
def test_strangers_asking_to_pair_do_not_jam_the_owners_press(tmp_path, hostile):
    """Issue 32 finding 4: strangers keep pair requests waiting (asking twice a minute, some polling, some
    not); the owner's phone asks, the owner presses Pair once: the owner's phone is in, no stranger is."""
    clock = Clock()
    table = Table(Store(tmp_path / "state"), camera=None, pairing=Pairing(tmp_path / "tokens.json", clock=clock))
    try:
        with serve(create_app(table, secret_key="k"), threads=4) as url:
            strangers = [Phone(url, f"127.0.0.{10 + i}") for i in range(hostile)]
            asked = [s.call("POST", "/api/pair")[1]["request"] for s in strangers]
            for _ in range(10):  # they hold their requests: the polling half keeps theirs alive
                clock.now += 1
                for i, (stranger, rid) in enumerate(zip(strangers, asked, strict=True)):
                    if i % 2 == 0:
                        stranger.call("GET", f"/api/pair/{rid}")
            owner = Phone(url, "127.0.0.2")
            rid = owner.call("POST", "/api/pair")[1]["request"]
            clock.now += 2  # walks to the box, presses Pair
            assert owner.call("GET", f"/api/pair/{rid}")[1]["status"] == "waiting"
            assert table.approve_pairing() == "granted"
            status, body = owner.call("GET", f"/api/pair/{rid}")
            assert status == 200 and body["status"] == "granted"
            assert len(table.pairing.phones()) == 1
            for stranger, srid in zip(strangers, asked, strict=True):
                assert stranger.call("GET", f"/api/pair/{srid}")[1].get("status") != "granted"
    finally:
        table.close()
