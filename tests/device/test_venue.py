"""A venue on a real broker (Debian's mosquitto, started here; tests/device/brokerkit.py): two boxes, one in
this process and one `dicesight run` child publishing through its config's [mqtt], a broker that asks for
passwords and restarts in the middle, and the venue board (device.venue) hearing it all and serving it
(webui.venue); a box that vanishes shows as offline within seconds, by its last will."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "webui"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from brokerkit import BoxProcess, Mosquitto, wait_until  # noqa: E402
from realbox import demo_table, make_table, throw_demo  # noqa: E402

from device.config import ConfigError, MqttConfig, parse_broker  # noqa: E402
from device.mqtt import MqttSettings, TablePublisher  # noqa: E402
from device.play_cmd import script_lines  # noqa: E402
from device.venue import Board, VenueClient, VenueOptions, settings_for  # noqa: E402
from webui.venue import create_venue_app  # noqa: E402

EXAMPLES = ROOT / "docs" / "examples"
USERS = {"table-1": "one", "table-2": "two", "venue": "board"}


def row(board: Board, box: str) -> dict | None:
    return board.table(box)


def at_seq(board: Board, box: str, seq: int):
    return lambda: (row(board, box) or {}).get("board") and row(board, box)["board"]["seq"] == seq


def read_events(client, wanted, then=None, limit: int = 200) -> list[tuple[str, dict]]:
    """Server-sent events of the venue's stream until `wanted(kind, data)` is true. `then()` runs once the
    stream's first event (the whole board) has come: a change made before the stream opened is in that board
    and never comes as a change of its own (a loaded CI run submitted the move first and waited in vain)."""
    resp = client.get("/api/events", buffered=False)
    seen: list[tuple[str, dict]] = []
    buf = b""
    try:
        for chunk in resp.response:
            buf += chunk
            while b"\n\n" in buf:
                block, buf = buf.split(b"\n\n", 1)
                fields = dict(line.split(": ", 1) for line in block.decode().splitlines() if ": " in line)
                if "event" in fields:
                    seen.append((fields["event"], json.loads(fields["data"])))
                    if then is not None and len(seen) == 1:
                        then()
                    if wanted(*seen[-1]) or len(seen) >= limit:
                        return seen
    finally:
        resp.close()
    return seen


@pytest.mark.slow(15)
def test_two_boxes_a_broker_restart_and_a_box_that_vanishes(tmp_path) -> None:
    broker = Mosquitto(tmp_path / "broker", users=USERS).start()
    opened: list = [broker]
    try:
        (tmp_path / "venue-password").write_text("board\n")
        settings = settings_for(VenueOptions(broker=broker.url, username="venue",
                                             password_file=str(tmp_path / "venue-password")))
        board = Board(settings.prefix, settings.broker.url())
        venue = VenueClient(board, settings)
        venue.start()
        opened.append(venue)
        wait_until(lambda: board.broker().get("connected"))  # subscribed: events are not retained
        app = create_venue_app(board)
        page = app.test_client()

        # box 1: a table in this process, playing King of Tokyo
        table = make_table(tmp_path / "t1", camera=None)
        opened.append(table)
        pub = TablePublisher(table, MqttSettings(parse_broker(broker.url), "table-1", "Table 1",
                                                 username="table-1", password="one", keepalive_s=5))
        pub.start()
        opened.append(pub)
        # connected before the game's first moves: a box away from its broker drops its events by design (a
        # loaded CI run played all 12 moves before the box had connected, and no event came)
        wait_until(lambda: pub.connected)
        setup = json.loads((EXAMPLES / "kingoftokyo-4-monsters.setup.json").read_text())
        table.new_game("kingoftokyo", setup, setup["seed"])
        script = [a for _n, a in script_lines(EXAMPLES / "kingoftokyo-4-monsters.jsonl")]
        for action in script[:12]:
            table.submit(action)

        # box 2: `dicesight run` with the demo tray, its password in a file named by its config
        (tmp_path / "t2-password").write_text("two\n")
        box2 = BoxProcess(tmp_path / "t2", {"broker": broker.url, "box": "table-2", "name": "Table 2",
                                            "username": "table-2", "password_file": str(tmp_path / "t2-password"),
                                            "keepalive_s": 5})
        opened.append(box2)

        wait_until(at_seq(board, "table-1", 12))
        # the events come in messages of their own, after the board's (a loaded full run asked between them)
        wait_until(lambda: (row(board, "table-1") or {}).get("events"))
        wait_until(lambda: (row(board, "table-2") or {}).get("status") == "online", timeout=20)
        wait_until(lambda: ((row(board, "table-2") or {}).get("board") or {}).get("last_roll"), timeout=30)
        view = page.get("/api/board").get_json()
        assert [t["name"] for t in view["tables"]] == ["Table 1", "Table 2"] and view["broker"]["connected"]
        one = view["tables"][0]
        assert one["status"] == "online" and one["board"]["game"] == "kingoftokyo"
        live = table.snapshot()
        assert [(p["name"], p["scores"]) for p in one["board"]["players"]] == \
            [(p["name"], {"health": p["health"], "vp": p["vp"]}) for p in live["players"]]
        assert one["board"]["turn"] == live["active"]
        assert one["board"]["last_roll"]["dice"] and one["events"]
        two = row(board, "table-2")
        assert two["board"]["game"] == "freeroll" and all("value" in d for d in two["board"]["last_roll"]["dice"])
        health = page.get("/healthz").get_json()
        assert health["tables"] == 2 and health["online"] == 2

        # the page's stream: the whole board, then each change of a table
        seen = read_events(page, lambda kind, data: kind == "table" and data["box"] == "table-1"
                           and data["board"]["seq"] == 13, then=lambda: table.submit(script[12]))
        assert seen[0][0] == "board" and seen[-1][1]["board"]["seq"] == 13

        # the broker restarts in the middle of the game: the boxes play on and come back with their latest
        broker.stop()
        wait_until(lambda: not board.broker()["connected"])
        for action in script[13:30]:
            table.submit(action)
        assert page.get("/api/board").get_json()["broker"]["connected"] is False
        broker.start()
        wait_until(lambda: board.broker()["connected"], timeout=15)
        wait_until(at_seq(board, "table-1", 30), timeout=15)
        assert row(board, "table-1")["status"] == "online"
        wait_until(lambda: row(board, "table-2")["status"] == "online", timeout=15)
        seq2 = row(board, "table-2")["board"]["seq"]
        wait_until(lambda: row(board, "table-2")["board"]["seq"] > seq2, timeout=30)  # still rolling

        # a box that vanishes (no goodbye): the broker's last will says so within seconds
        box2.kill()
        wait_until(lambda: row(board, "table-2")["status"] == "offline", timeout=10)
        assert row(board, "table-2")["since"] is not None
        assert row(board, "table-1")["status"] == "online"
        pub.close()  # a box that stops says so itself
        wait_until(lambda: row(board, "table-1")["status"] == "offline", timeout=10)
    finally:
        for thing in reversed(opened):
            thing.close()


def test_the_board_takes_only_what_it_can_use() -> None:
    board = Board("dicesight", "mqtt://b:1883", clock=lambda: 100.0)
    good = json.dumps({"box": "t", "name": "Table", "board": {"game": "freeroll", "game_id": 1, "seq": 2,
                       "last_roll": {"seq": 2, "dice": [{"value": 5}]}, "players": []}}).encode()
    assert board.receive("dicesight/t/state", good)
    assert board.receive("dicesight/t/status", b"online")
    for topic, payload in [("dicesight/t/status", b"maybe"), ("dicesight/t/state", b"{not json"),
                           ("dicesight/t/state", b"[1, 2]"), ("dicesight/t/events", b'{"no": "type"}'),
                           ("dicesight/a+b/state", good), ("dicesight/t/other", good), ("other/t/state", good),
                           ("dicesight/t/x/state", good), ("dicesight/t/state", b"[" * 100000),
                           ("dicesight/big/state", b" " * (300 * 1024))]:
        assert not board.receive(topic, payload), (topic, payload[:20])
    t = board.table("t")
    assert (t["name"], t["status"], t["since"], t["board"]["seq"]) == ("Table", "online", 100.0, 2)
    # a newer state whose log no longer holds the roll keeps showing the last one
    assert board.receive("dicesight/t/state", json.dumps({"board": {"game": "freeroll", "game_id": 1, "seq": 9,
                                                                    "last_roll": None}}).encode())
    assert board.table("t")["board"]["last_roll"]["dice"] == [{"value": 5}]
    assert board.table("t")["name"] == "t"  # no name: the box's
    assert [r["box"] for r in board.view()["tables"]] == ["t"]


def test_a_state_without_a_board_is_read_from_its_snapshot() -> None:
    board = Board()
    snap = {"game": "freeroll", "game_id": 3, "seq": 1, "players": [],
            "log": [{"seq": 1, "action": {"type": "roll", "dice": [2, 3]}}]}
    assert board.receive("dicesight/old/state", json.dumps({"snapshot": snap}).encode())
    assert board.table("old")["board"]["last_roll"]["dice"] == [{"value": 2}, {"value": 3}]


def photo_message(seq: int, game_id: int | None = 1, jpeg: bytes = b"\xff\xd8\xff\xe0 a tiny jpeg", **kw) -> bytes:
    import base64

    return json.dumps({"box": "t", "game_id": game_id, "seq": seq, "width": 160, "height": 120,
                       "jpeg": base64.b64encode(jpeg).decode(), **kw}).encode()


def state_message(seq: int, roll: int | None, game_id: int = 1) -> bytes:
    return json.dumps({"board": {"game": "freeroll", "game_id": game_id, "seq": seq, "players": [],
                                 "last_roll": {"seq": roll, "dice": [{"value": 5}]} if roll else None}}).encode()


def test_the_board_shows_a_photo_only_beside_its_own_roll() -> None:
    board = Board("dicesight")
    client = create_venue_app(board).test_client()
    assert board.receive("dicesight/t/state", state_message(4, 4))
    assert board.receive("dicesight/t/photo", photo_message(4))
    shown = board.table("t")["photo"]
    assert (shown["seq"], shown["width"], shown["height"]) == (4, 160, 120)
    got = client.get(f"/tables/t/photo.jpg?v={shown['tag']}")
    assert got.status_code == 200 and got.mimetype == "image/jpeg" and got.data == b"\xff\xd8\xff\xe0 a tiny jpeg"
    assert client.get("/tables/t/photo.jpg?v=other").status_code == 404  # an address of another photo
    assert client.get("/api/board").get_json()["tables"][0]["photo"] == shown

    assert board.receive("dicesight/t/state", state_message(5, 5))  # a new roll, its photo not here yet
    assert board.table("t")["photo"] is None and client.get("/tables/t/photo.jpg").status_code == 404
    assert board.receive("dicesight/t/photo", photo_message(5))
    assert board.table("t")["photo"]["seq"] == 5
    assert board.receive("dicesight/t/state", state_message(1, 1, game_id=2))  # a new game: seq 1 again
    assert board.receive("dicesight/t/photo", photo_message(1, game_id=1))  # the old game's move 1: not it
    assert board.table("t")["photo"] is None
    assert board.receive("dicesight/t/photo", photo_message(1, game_id=2))
    assert board.table("t")["photo"]["seq"] == 1
    assert board.receive("dicesight/t/photo", b"")  # the box took its photo back
    assert board.table("t")["photo"] is None

    for bad in [b"{not json", photo_message(True), photo_message(1, game_id="2"), photo_message(1, jpeg=b"<svg>"),
                photo_message(1, jpeg=b"\xff\xd8\xff" + bytes(70 * 1024)),
                json.dumps({"seq": 1, "game_id": 2, "jpeg": "not base64!"}).encode()]:
        assert not board.receive("dicesight/t/photo", bad), bad[:40]
    assert board.receive("dicesight/t/photo", photo_message(1, game_id=2, width=10**6, height="x"))
    assert (board.table("t")["photo"]["width"], board.table("t")["photo"]["height"]) == (None, None)


@pytest.mark.slow(8)
def test_a_box_s_shared_photo_reaches_the_venue_for_its_roll(tmp_path) -> None:
    """A box with the demo tray and `share_photos`, on a real broker: the venue shows the thumbnail of the
    camera roll its board shows, from its own HTTP; after a typed-in roll, none (the earlier one is stale)."""
    import cv2
    import numpy as np

    broker = Mosquitto(tmp_path / "broker").start()
    opened: list = [broker]
    try:
        board = Board("dicesight", broker.url)
        venue = VenueClient(board, MqttSettings(parse_broker(broker.url), "venue", "venue"))
        venue.start()
        opened.append(venue)
        page = create_venue_app(board).test_client()
        table = demo_table(tmp_path / "cam", seed=3)
        opened.append(table)
        pub = TablePublisher(table, MqttSettings(parse_broker(broker.url), "cam", "Camera table", keepalive_s=5,
                                                 share_photos=True))
        pub.start()
        opened.append(pub)
        wait_until(lambda: pub.connected)

        throw_demo(table)
        seq = table.match.seq
        shown = wait_until(lambda: (row(board, "cam") or {}).get("photo"))
        assert shown["seq"] == seq == row(board, "cam")["board"]["last_roll"]["seq"]
        got = page.get(f"/tables/cam/photo.jpg?v={shown['tag']}")
        thumb = cv2.imdecode(np.frombuffer(got.data, np.uint8), cv2.IMREAD_COLOR)
        assert got.mimetype == "image/jpeg" and max(thumb.shape[:2]) <= 160 and len(got.data) < 12 * 1024
        assert (shown["width"], shown["height"]) == (thumb.shape[1], thumb.shape[0])

        table.submit({"type": "roll", "dice": [{"value": 2}, {"value": 5}]})  # typed in: no photo
        wait_until(at_seq(board, "cam", seq + 1))
        assert row(board, "cam")["photo"] is None and page.get("/tables/cam/photo.jpg").status_code == 404
        throw_demo(table)
        assert wait_until(lambda: (row(board, "cam") or {}).get("photo"))["seq"] == seq + 2
    finally:
        for thing in reversed(opened):
            thing.close()


def test_the_venue_page_speaks_three_languages_and_names_its_broker(tmp_path) -> None:
    board = Board("dicesight", "mqtt://venue.lan:1883")
    client = create_venue_app(board).test_client()
    for lang, word in (("en", "Venue board"), ("zh-TW", "全場看板"), ("ko", "매장 보드")):
        page = client.get("/", headers={"Accept-Language": lang})
        assert page.status_code == 200 and word in page.get_data(as_text=True)
        assert "default-src 'self'" in page.headers["Content-Security-Policy"]
    assert client.get("/static/venue.js").status_code == 200 and client.get("/static/venue.css").status_code == 200
    assert client.get("/api/board").get_json()["broker"] == {"url": "mqtt://venue.lan:1883", "connected": False,
                                                              "error": None}
    with pytest.raises(ConfigError, match="--broker"):
        settings_for(VenueOptions())
    config = tmp_path / "c.toml"
    config.write_text('[mqtt]\nbroker = "mqtts://venue.lan"\nusername = "v"\npassword = "p"\ntopic_prefix = "club"\n')
    s = settings_for(VenueOptions(config=config))
    assert (s.broker.tls, s.username, s.password, s.prefix) == (True, "v", "p", "club")
    assert settings_for(VenueOptions(config=config, broker="mqtt://other")).broker.host == "other"
    assert MqttConfig().broker == ""


@pytest.mark.slow(5)
def test_dicesight_venue_serves_the_board_of_its_broker(tmp_path, capsys) -> None:
    """The command as a user runs it: a child process on a free port, talking to a real broker."""
    import subprocess
    import urllib.request

    from device.cli import main

    assert main(["venue", "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["message"].startswith("--broker: name the broker")
    assert main(["venue", "--broker", "http://x", "--json"]) == 2
    assert "mqtt.broker" in json.loads(capsys.readouterr().out)["error"]["message"]

    broker = Mosquitto(tmp_path / "broker").start()
    proc = subprocess.Popen([sys.executable, "-m", "device.cli", "venue", "--broker", broker.url, "--host",
                             "127.0.0.1", "--port", "0", "--json"], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        started = json.loads(proc.stdout.readline())
        assert started["event"] == "venue" and started["broker"] == broker.url and started["prefix"] == "dicesight"
        url = started["urls"][0]

        def connected():
            with urllib.request.urlopen(url + "/api/board", timeout=5) as resp:
                return json.load(resp)["broker"]["connected"]
        wait_until(connected)
        with urllib.request.urlopen(url + "/", timeout=5) as resp:
            assert "Venue board" in resp.read().decode()
        proc.terminate()
        assert json.loads(proc.stdout.readline())["event"] == "stopped" and proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        broker.stop()
