"""Pairing from the page on the real table (issue 11, point 2): two phones asking at once are both told
that nobody was paired; a paired phone lists the paired phones and unpairs one, not all."""

from __future__ import annotations

import http.client
import json

import pytest
from pagekit import serve, shot
from playwright.sync_api import expect

from device.pairing import Pairing
from device.store import Store
from device.table import Table
from webui import create_app

pytestmark = pytest.mark.e2e


@pytest.fixture()
def table(tmp_path):
    # a request is not dropped as stale here: on a loaded CI machine the page's tab can go unscheduled for
    # seconds between polls
    table = Table(Store(tmp_path / "state"), camera=None, pairing=Pairing(tmp_path / "tokens.json", stale_s=60.0))
    yield table
    table.close()


@pytest.fixture()
def box(table):
    with serve(create_app(table, secret_key="e2e")) as url:
        yield url


def ask(page) -> None:
    """The page's "Pair this phone"; the box's Pair button is pressed by the test."""
    page.locator("#pair").click()
    expect(page.locator("#pairmsg")).to_contain_text("Pair button")


def ask_from(url: str, source: str) -> str:
    """Another phone (a script at another address) asks to pair; returns its request id."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10, source_address=(source, 0))
    conn.request("POST", "/api/pair", body="{}", headers={"Content-Type": "application/json",
                                                         "X-Dicesight-CSRF": "x"})
    answer = json.loads(conn.getresponse().read())
    conn.close()
    return answer["request"]


def test_two_phones_asking_at_once_are_told_nobody_was_paired(box, table, phone):
    page = phone("ko-KR")
    page.goto(box)
    page.locator("#live.on").wait_for()
    page.locator("#pair").click()
    # the page's request is held once it shows the countdown (the line holds a hint before the click)
    expect(page.locator("#pairmsg")).to_contain_text("페어링 버튼을 누르세요")
    other = ask_from(box, "127.0.0.2")  # someone else asks at the same moment
    assert table.pairing.status()["waiting"] == 2
    assert table.approve_pairing() == "conflict"  # the box's Pair button
    expect(page.locator("#pairmsg")).to_contain_text("아무것도 연결하지 않았습니다")
    expect(page.locator("#pairbox")).to_be_visible()
    assert table.pairing.poll(other)[0] == "conflict"
    assert table.pairing.phones() == []
    assert not page.js_errors
    shot(page, "60-pair-conflict-ko", at="#pairbox")


def test_a_paired_phone_unpairs_another_from_the_list(box, table, phone):
    mine, guest = phone("en-US"), phone("en-US")
    for page in (mine, guest):
        page.goto(box)
        page.locator("#live.on").wait_for()
        ask(page)
        table.approve_pairing()
        expect(page.locator("#pairedline")).to_be_visible()
    mine.locator("#phones").click()
    rows = mine.locator("#phonelist li.phone")
    expect(rows).to_have_count(2)
    expect(rows.filter(has_text="this phone")).to_have_count(1)
    shot(mine, "61-paired-phones")
    rows.filter(has_not_text="this phone").locator("button").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("this phone")
    assert len(table.pairing.phones()) == 1
    assert guest.evaluate("fetch('/api/session').then(r => r.json()).then(s => s.paired)") is False
    assert mine.evaluate("fetch('/api/session').then(r => r.json()).then(s => s.paired)") is True
    assert not mine.js_errors and not guest.js_errors
