"""A full house (issue 32, finding 5): every live-update place taken, a late phone is refused its stream.
It says so, keeps the game current by asking for it every few seconds, and joins live when a place frees:
it never shows a stale game as if it were current."""

from __future__ import annotations

import http.client

import pytest
from pagekit import serve, shot
from playwright.sync_api import expect

from device.pairing import Pairing
from device.store import Store
from device.table import Table
from webui import create_app

pytestmark = pytest.mark.e2e

SETUP = {"players": [{"id": "p1", "name": "Ann"}, {"id": "p2", "name": "Ben"}], "first": 0}
BANNER = {"en-US": "updates every 3 s", "ko-KR": "3초마다 갱신", "zh-TW": "每 3 秒更新"}


@pytest.fixture()
def table(tmp_path):
    table = Table(Store(tmp_path / "state"), camera=None, pairing=Pairing(tmp_path / "tokens.json"))
    yield table
    table.close()


def hold_stream(url: str) -> http.client.HTTPResponse:
    """Someone else's phone takes the box's only live-update place and keeps it."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10, source_address=("127.0.0.3", 0))
    conn.request("GET", "/api/events")
    resp = conn.getresponse()
    assert resp.status == 200
    resp.read1(64)  # the first bytes: the stream is open
    return resp  # kept: a response dropped closes its socket


@pytest.mark.parametrize("locale", ["en-US", "ko-KR", "zh-TW"])
def test_a_late_phone_stays_current_and_joins_when_a_place_frees(table, phone, locale):
    app = create_app(table, secret_key="e2e", max_streams=1)
    app.config["DICESIGHT_HEARTBEAT_S"] = 0.5  # a departed stream is noticed at its next heartbeat
    with serve(app) as url:
        other = hold_stream(url)
        page = phone(locale)
        page.goto(url)
        banner = page.locator("#banner")
        expect(banner).to_contain_text(BANNER[locale], timeout=15000)
        table.new_game("regidice", SETUP, 13)  # the game moves on while this phone has no stream
        expect(page.locator("body")).to_contain_text("Ann", timeout=15000)
        shot(page, f"70-full-house-polling-{locale}")
        other.close()  # a place frees: the page joins live
        expect(page.locator("#live.on")).to_be_visible(timeout=60000)
        expect(banner).not_to_contain_text(BANNER[locale])
        table.submit({"type": "roll", "player": "p1", "dice": ["R6", "R3", "R6", "B1", "B4", "B5", "Y5", "Y5",
                                                                 "Y5"], "source": "hand"})
        shot(page, f"71-full-house-live-{locale}")
        assert page.js_errors == []
