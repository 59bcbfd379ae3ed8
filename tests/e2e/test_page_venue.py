"""The venue board in Debian's Chromium at 390x844: two boxes on a real mosquitto (started by the test), the
venue (`dicesight venue`'s parts: device.venue and webui.venue) hearing them; the page shows both tables live
(game, players, whose turn, life and VP, the last roll, a hidden Regidice roll as colours only), a move
reaches it, then one box goes and its table shows as offline ("just now", then for how long); a box that shares
photos has its camera roll's thumbnail beside that roll. Screenshots: test-artifacts/screenshots/venue-*."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from pagekit import serve, shot
from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "device"))

from brokerkit import Mosquitto, wait_until  # noqa: E402
from realbox import demo_table, make_table, throw_demo  # noqa: E402

from device.config import parse_broker  # noqa: E402
from device.mqtt import MqttSettings, TablePublisher  # noqa: E402
from device.play_cmd import script_lines  # noqa: E402
from device.venue import Board, VenueClient  # noqa: E402
from webui.venue import create_venue_app, stop_venue_streams  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.slow(12)]

EXAMPLES = ROOT / "docs" / "examples"
REGIDICE = {"players": [{"id": "p1", "name": "Ann"}, {"id": "p2", "name": "Ben"}], "first": 0}
ANN_ROLL = ["R6", "R3", "R6", "B1", "B4", "B5", "Y5", "Y5", "Y5"]


def box(tmp_path: Path, broker: Mosquitto, name: str, title: str, opened: list):
    table = make_table(tmp_path / name, camera=None)
    opened.append(table)
    pub = TablePublisher(table, MqttSettings(parse_broker(broker.url), name, title, keepalive_s=5))
    pub.start()
    opened.append(pub)
    return table, pub


def test_the_venue_board_shows_two_tables_live_and_one_going_offline(tmp_path, phone) -> None:
    broker = Mosquitto(tmp_path / "broker").start()
    opened: list = [broker]
    try:
        board = Board("dicesight", broker.url)
        venue = VenueClient(board, MqttSettings(parse_broker(broker.url), "venue", "venue"))
        venue.start()
        opened.append(venue)
        kot, _ = box(tmp_path, broker, "table-1", "Table 1 · window", opened)
        setup = json.loads((EXAMPLES / "kingoftokyo-4-monsters.setup.json").read_text())
        kot.new_game("kingoftokyo", setup, setup["seed"])
        script = [a for _n, a in script_lines(EXAMPLES / "kingoftokyo-4-monsters.jsonl")]
        for action in script[:30]:
            kot.submit(action)
        rd, rd_pub = box(tmp_path, broker, "table-2", "Table 2 · back room", opened)
        rd.new_game("regidice", REGIDICE, 13)
        rd.submit({"type": "roll", "player": "p1", "dice": ANN_ROLL})  # hidden until Collect
        wait_until(lambda: ((board.table("table-2") or {}).get("board") or {}).get("seq") == 1)
        wait_until(lambda: ((board.table("table-1") or {}).get("board") or {}).get("seq") == 30)

        app = create_venue_app(board)
        with serve(app, stop_app=stop_venue_streams) as url:
            page = phone()
            page.goto(url + "/")
            page.locator("#live.on").wait_for()
            one = page.locator('article[data-box="table-1"]')
            two = page.locator('article[data-box="table-2"]')
            expect(one).to_have_attribute("data-status", "online")
            expect(two).to_have_attribute("data-status", "online")
            expect(page.locator("#count")).to_have_text("2 of 2 tables online")
            expect(one.locator("h2")).to_have_text("Table 1 · window")
            expect(one.locator(".game b")).to_have_text("King of Tokyo")
            live = kot.snapshot()
            for p in live["players"]:
                row = one.locator(f'li[data-player="{p["id"]}"]')
                expect(row.locator('[data-score="health"] b')).to_have_text(f'{p["health"]}/{p["max_health"]}')
                expect(row.locator('[data-score="vp"] b')).to_have_text(str(p["vp"]))
            expect(one.locator(f'li[data-player="{live["active"]}"]')).to_have_class("turn")
            roll = [a for a in script[:30] if a["type"] == "roll"][-1]
            expect(one.locator(".roll .die")).to_have_count(len(roll["dice"]))
            # the hidden roll: its colours, never its pips
            expect(two.locator(".game b")).to_have_text("Regidice")
            expect(two.locator(".roll .die")).to_have_count(len(ANN_ROLL))
            assert set(two.locator(".roll .die").evaluate_all("ds => ds.map(d => d.dataset.value)")) == {""}
            assert not any(c in two.inner_text() for c in "3456")  # no pips (the only digit: Dice count)
            shot(page, "venue-two-tables", full=True)

            kot.submit(script[30])  # a move reaches the board live
            after = kot.snapshot()["players"]
            for p in after:
                expect(one.locator(f'li[data-player="{p["id"]}"] [data-score="vp"] b')).to_have_text(str(p["vp"]))

            rd_pub.close()  # the back room's box stops: its table shows as offline
            expect(two).to_have_attribute("data-status", "offline")
            expect(two.locator(".status")).to_have_text("Offline just now")
            expect(one).to_have_attribute("data-status", "online")
            expect(page.locator("#count")).to_have_text("1 of 2 tables online")
            shot(page, "venue-one-offline", full=True)
            expect(two.locator(".status")).to_have_text(re.compile(r"Offline for \d+ s"), timeout=10000)

            page.goto(url + "/?lang=ko")
            expect(page.locator("h1")).to_contain_text("매장 보드")
            expect(page.locator('article[data-box="table-2"] .status')).to_contain_text("오프라인")
            shot(page, "venue-ko", full=True)
            page.goto(url + "/?lang=zh-TW")
            expect(page.locator("h1")).to_contain_text("全場看板")
            shot(page, "venue-zh-TW")
            assert page.js_errors == []
    finally:
        for thing in reversed(opened):
            thing.close()


def test_a_shared_photo_is_shown_beside_its_roll(tmp_path, phone) -> None:
    """A box with the demo tray and `mqtt.share_photos`: its camera roll's thumbnail beside the roll, loaded
    from the venue itself; a roll typed in has none, and the earlier photo is not shown beside it."""
    broker = Mosquitto(tmp_path / "broker").start()
    opened: list = [broker]
    try:
        board = Board("dicesight", broker.url)
        venue = VenueClient(board, MqttSettings(parse_broker(broker.url), "venue", "venue"))
        venue.start()
        opened.append(venue)
        table = demo_table(tmp_path / "cam", seed=3)
        opened.append(table)
        pub = TablePublisher(table, MqttSettings(parse_broker(broker.url), "table-3", "Table 3 · bar",
                                                 keepalive_s=5, share_photos=True))
        pub.start()
        opened.append(pub)
        wait_until(lambda: pub.connected)
        other, _ = box(tmp_path, broker, "table-4", "Table 4 · no camera", opened)
        other.submit({"type": "roll", "dice": [{"value": 6}, {"value": 1}]})
        throw_demo(table)
        seq = table.match.seq
        wait_until(lambda: ((board.table("table-3") or {}).get("photo") or {}).get("seq") == seq)

        app = create_venue_app(board)
        with serve(app, stop_app=stop_venue_streams) as url:
            page = phone()
            page.goto(url + "/")
            card = page.locator('article[data-box="table-3"]')
            img = card.locator(f'.roll[data-seq="{seq}"] img.rollphoto')
            expect(img).to_have_attribute("alt", "Photo of this roll")
            assert img.evaluate("i => i.decode().then(() => [i.naturalWidth, i.naturalHeight])") == [160, 120]
            assert img.get_attribute("src").startswith("/tables/table-3/photo.jpg?v=")
            expect(page.locator('article[data-box="table-4"] img')).to_have_count(0)  # shares none
            box_ = img.bounding_box()
            assert box_["x"] + box_["width"] <= 390 and box_["width"] > 60  # beside the dice, on the screen
            shot(page, "venue-photo", full=True)

            table.submit({"type": "roll", "dice": [{"value": 2}, {"value": 5}]})  # typed in: no photo
            expect(card.locator(f'.roll[data-seq="{seq + 1}"]')).to_be_visible()
            expect(card.locator("img")).to_have_count(0)
            throw_demo(table)
            expect(card.locator(f'.roll[data-seq="{seq + 2}"] img.rollphoto')).to_be_visible()

            page.goto(url + "/?lang=ko")
            expect(card.locator("img.rollphoto")).to_have_attribute("alt", "이 굴림의 사진")
            page.goto(url + "/?lang=zh-TW")
            expect(card.locator("img.rollphoto")).to_have_attribute("alt", "這次擲骰的照片")
            shot(page, "venue-photo-zh-TW")
            assert page.js_errors == []
    finally:
        for thing in reversed(opened):
            thing.close()
