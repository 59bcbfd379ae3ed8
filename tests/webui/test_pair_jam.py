"""Issue 32 finding 4, pairing no stranger can jam, tried as hostile phones on the LAN would: HTTP against a
real served box (the real table, store and pairing behind waitress), each stranger from its own loopback
address (127.0.0.N), the pairing's clock moved by the test."""

from __future__ import annotations

import http.client
import http.cookiejar
import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from pagekit import serve  # noqa: E402

from device.pairing import Pairing  # noqa: E402
from device.store import Store  # noqa: E402
from device.table import Table  # noqa: E402
from webui import create_app  # noqa: E402

CSRF = "X-Dicesight-CSRF"


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
            clock.now += 1
            asked[0] = strangers[0].call("POST", "/api/pair")[1]["request"]  # one asks again, just after
            clock.now += 1  # the owner walks to the box, presses Pair
            assert owner.call("GET", f"/api/pair/{rid}")[1]["status"] == "waiting"
            assert table.approve_pairing() == "granted"
            status, body = owner.call("GET", f"/api/pair/{rid}")
            assert status == 200 and body["status"] == "granted"
            assert len(table.pairing.phones()) == 1
            for stranger, srid in zip(strangers, asked, strict=True):
                assert stranger.call("GET", f"/api/pair/{srid}")[1].get("status") != "granted"
    finally:
        table.close()
