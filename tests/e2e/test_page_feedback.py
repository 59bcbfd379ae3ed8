"""What the page says when something goes wrong, in a colour that says so (issue 34, point 8): a lost
connection is a warning, not a green success; a pairing that failed is said where the player looks (a toast,
and the Pair card brought into view); a cooperative game the players lost is not shown in the victory
banner's green; and on a PC the box's Pair button is offered right under the countdown, not only in the
panel at the foot of the page. Screenshots: test-artifacts/screenshots/feedback-*.png."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pagekit import pair_with_box, shot
from playwright.sync_api import expect
from realbox import Clock, make_table

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
DEFEAT = ROOT / "docs" / "examples" / "regidice-2p-defeat"


@pytest.fixture()
def clock():
    return Clock()


@pytest.fixture()
def table(tmp_path, clock):
    table = make_table(tmp_path, camera=None, clock=clock)
    yield table
    table.close()


@pytest.fixture()
def box(table, serve_table):
    return serve_table(table)


def toast_classes(page) -> list[str]:
    page.locator("#toast").wait_for(state="visible")
    return page.locator("#toast").evaluate("n => [...n.classList]")


def test_a_lost_connection_is_a_warning_not_a_success(phone, box, table):
    table.new_game("freeroll", {})
    page = phone("en-US")
    page.goto(box)
    pair_with_box(page, table)
    page.route("**/api/actions", lambda route: route.abort())  # the connection is cut
    try:
        page.evaluate("() => { document.getElementById('toast').hidden = true; }")
        page.locator("#entrypad [data-add='3']").click()
        page.locator("#entrysubmit").click()
        assert "warn" in toast_classes(page)
        expect(page.locator("#toast")).to_contain_text("reconnecting")
        shot(page, "feedback-offline-warning")
    finally:
        page.unroute("**/api/actions")  # the phone goes back to the pool for other tests


def test_a_failed_pairing_is_said_where_the_player_looks(phone, box, table, clock):
    page = phone("ko-KR")
    page.goto(box)
    page.locator("#live.on").wait_for()
    page.locator("#pair").click()
    page.wait_for_function("() => /\\d/.test(document.getElementById('pairmsg').textContent)")
    expect(page.locator("#pairpress")).to_be_visible()  # the box's Pair button, offered under the countdown
    shot(page, "feedback-pair-waiting-ko", at="#pairbox")
    clock.sleep(120)  # nobody presses Pair: the request expires
    assert "bad" in toast_classes(page)
    assert page.locator("#pairmsg").evaluate(
        "n => { const r = n.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }")
    expect(page.locator("#pairpress")).to_be_hidden()
    shot(page, "feedback-pair-failed-ko")


def test_the_pair_button_under_the_countdown_pairs_this_phone(phone, box, table):
    page = phone("en-US")
    page.goto(box)
    page.locator("#live.on").wait_for()
    page.locator("#pair").click()
    page.locator("#pairpress").click()
    page.locator("#pairbox").wait_for(state="hidden")
    assert page.evaluate("() => window.dicesight.session.paired")


def test_a_lost_cooperative_game_is_not_shown_as_a_victory(phone, box, table):
    setup = json.loads(DEFEAT.with_suffix(".setup.json").read_text(encoding="utf-8"))
    table.new_game("regidice", setup, setup.get("seed"))
    for line in DEFEAT.with_suffix(".jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            table.submit(json.loads(line))
    assert table.snapshot()["result"] == "defeat"
    page = phone("zh-TW")
    page.goto(box)
    page.locator("#winner").wait_for(state="visible")
    assert "lost" in page.locator("#winner").evaluate("n => [...n.classList]")
    expect(page.locator("#winnertext")).to_contain_text("敗")
    shot(page, "feedback-regidice-defeat-zh-TW")
