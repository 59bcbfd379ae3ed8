"""The box's web server under load and abuse (issue 11, points 1 and 5), with small limits to stay fast.

A real waitress server (device.webserver.make_server) in front of the real web app and table, on loopback;
phones come from distinct loopback addresses (127.0.0.x), as phones on a Wi-Fi come from distinct
addresses.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest

from device.box import BoxOptions, run
from device.pairing import Pairing
from device.store import Store
from device.table import Table
from device.webserver import ServerLimits, answers, make_server
from webui import create_app, server_message, stop_streams
from webui.web import STREAMS

LIMITS = ServerLimits(max_streams=4, streams_per_address=2, request_threads=3, connections_per_address=8)


@pytest.fixture()
def box(tmp_path):
    table = Table(Store(tmp_path / "state"), camera=None, pairing=Pairing(tmp_path / "tokens.json"))
    app = create_app(table, secret_key="k", max_streams=LIMITS.max_streams,
                     streams_per_address=LIMITS.streams_per_address)
    server = make_server(app, "127.0.0.1", 0, LIMITS,
                         describe=lambda status, headers: server_message(app, status, headers))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield {"port": int(server.effective_port), "table": table, "app": app, "server": server}
    stop_streams(app)
    server.close()
    table.close()


def connect(port: int, source: str) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    return sock


def head(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and whatever body arrived with them."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    top, _, rest = data.partition(b"\r\n\r\n")
    lines = top.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, rest


def open_stream(port: int, source: str) -> tuple[socket.socket, int, dict[str, str], bytes]:
    sock = connect(port, source)
    sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    status, headers, rest = head(sock)
    if status == 200:
        while b"event: snapshot" not in rest:  # the snapshot on connect has arrived
            rest += sock.recv(65536)
    else:
        length = int(headers.get("content-length", "0"))
        while len(rest) < length:
            rest += sock.recv(65536)
    return sock, status, headers, rest


def get(port: int, path: str, source: str = "127.0.0.1") -> int:
    sock = connect(port, source)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
    status, _, _ = head(sock)
    sock.close()
    return status


def test_streams_beyond_the_limit_are_refused_and_the_api_still_answers(box) -> None:
    port = box["port"]
    held = []
    for i in range(LIMITS.max_streams):
        sock, status, _, _ = open_stream(port, f"127.0.0.{10 + i}")
        assert status == 200
        held.append(sock)
    sock, status, headers, body = open_stream(port, "127.0.0.50")
    assert status == 503 and int(headers["retry-after"]) > 0
    assert json.loads(body)["code"] == "too_many_streams" and json.loads(body)["message"]
    sock.close()
    # every stream place is taken, yet pages and the API are answered (their threads are kept)
    assert [get(port, "/api/state", f"127.0.0.{60 + i % 5}") for i in range(3 * LIMITS.request_threads)] == \
        [200] * (3 * LIMITS.request_threads)
    assert get(port, "/") == 200
    held.pop().close()  # a phone leaves: its place is freed and a new phone gets in
    deadline = time.monotonic() + 20
    while True:
        sock, status, _, _ = open_stream(port, "127.0.0.51")
        sock.close()
        if status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert status == 200
    for sock in held:
        sock.close()


def test_one_address_holds_only_its_share_of_streams(box) -> None:
    port = box["port"]
    mine = [open_stream(port, "127.0.0.20") for _ in range(LIMITS.streams_per_address)]
    assert [s[1] for s in mine] == [200] * LIMITS.streams_per_address
    sock, status, headers, body = open_stream(port, "127.0.0.20")
    assert status == 429 and int(headers["retry-after"]) > 0
    assert json.loads(body)["code"] == "too_many_streams_here"
    sock.close()
    other, status, _, _ = open_stream(port, "127.0.0.21")
    assert status == 200, "another phone still gets in"
    for s in [*mine, (other,)]:
        s[0].close()


def test_changes_reach_every_open_stream_through_the_server(box) -> None:
    port, table = box["port"], box["table"]
    streams = [open_stream(port, f"127.0.0.{80 + i}") for i in range(3)]
    for value in (1, 2, 3):
        table.submit({"type": "roll", "dice": [value]})
    last = f"id: {table.match.seq}\n".encode()
    for sock, _status, _headers, got in streams:
        while last not in got:
            got += sock.recv(65536)
        ids = [int(line[4:]) for line in got.split(b"\n") if line.startswith(b"id: ")]
        assert ids == sorted(ids) and ids[-1] == table.match.seq, ids
        sock.close()


def test_open_streams_end_at_once_when_the_box_stops(box) -> None:
    port = box["port"]
    streams = [open_stream(port, f"127.0.0.{70 + i}")[0] for i in range(3)]
    stop_streams(box["app"])
    for sock in streams:
        sock.settimeout(3)  # far below the 4 s an idle stream waits before it looks again
        tail = b""
        while not tail.endswith(b"0\r\n\r\n"):  # the last chunk of the chunked response
            chunk = sock.recv(65536)
            assert chunk, "closed without the end of the response"
            tail += chunk
        sock.close()
    deadline = time.monotonic() + 5
    while box["app"].extensions[STREAMS].stats()["open"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert box["app"].extensions[STREAMS].stats()["open"] == 0


def in_poll_loop(server, source: str) -> int:
    """How many of `source`'s connections waitress's poll loop looks at."""
    return sum(1 for ch in list(server._map.values())
               if isinstance(getattr(ch, "addr", None), tuple) and ch.addr[0] == source)


def wait_until(check, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_a_stream_leaves_the_poll_loop_while_it_lasts_and_is_closed_by_waitress_after(box) -> None:
    """Issue 11 #1: waitress's loop scanned every watching phone's connection on each turn (most of its work
    with 200 phones). A stream's connection is out of the loop while the hub writes it; changes still
    arrive, a phone that goes is still let go, and when the stream ends the connection is handed back:
    waitress ends the response and closes it as it always did (no connection is left open)."""
    port, table, server, app = box["port"], box["table"], box["server"], box["app"]
    app.config["DICESIGHT_HEARTBEAT_S"] = 0.3  # the hub looks for departed phones this often
    app.config["DICESIGHT_STREAM_MAX_S"] = 1.5
    staying, _, _, got = open_stream(port, "127.0.0.90")
    leaving = open_stream(port, "127.0.0.91")[0]
    assert wait_until(lambda: in_poll_loop(server, "127.0.0.90") == in_poll_loop(server, "127.0.0.91") == 0)
    table.submit({"type": "roll", "dice": [4]})
    while f"id: {table.match.seq}\n".encode() not in got:
        got += staying.recv(65536)
    leaving.close()
    gate = app.extensions[STREAMS]
    assert wait_until(lambda: gate.stats()["open"] == 1), "the departed phone's place was not freed"
    while True:  # the stream reaches its age: the response ends as usual, then the connection closes
        chunk = staying.recv(65536)
        if not chunk:
            break
        got += chunk
    assert got.endswith(b"0\r\n\r\n"), got[-40:]
    assert wait_until(lambda: not any(isinstance(ch.addr, tuple) and ch.addr[0].startswith("127.0.0.9")
                                      for ch in list(server.active_channels.values())))
    assert gate.stats()["open"] == 0
    staying.close()


def test_bodies_over_the_cap_are_refused_before_they_are_sent(box) -> None:
    """The server answers 413 on the headers alone: the 10 MiB it was promised are never buffered."""
    sock = connect(box["port"], "127.0.0.30")
    sock.sendall(f"POST /api/actions HTTP/1.1\r\nHost: 127.0.0.1:{box['port']}\r\nContent-Type: application/json"
                 f"\r\nContent-Length: {10 * 1024 * 1024}\r\nAccept-Language: ko\r\n\r\n".encode())
    status, headers, body = head(sock)
    while len(body) < int(headers.get("content-length", "0")):
        body += sock.recv(65536)
    sock.close()
    assert status == 413 and headers["content-type"].startswith("application/json")
    answer = json.loads(body)
    assert answer["code"] == "too_large" and answer["message"] == "요청이 너무 큽니다."


def test_one_address_cannot_fill_the_connection_table(box) -> None:
    port = box["port"]
    idle = [connect(port, "127.0.0.40") for _ in range(LIMITS.connections_per_address)]
    extra = connect(port, "127.0.0.40")
    extra.sendall(f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    try:
        got = extra.recv(100)
    except ConnectionResetError:
        got = b""
    assert got == b"", "the connection beyond the address's share is closed unanswered"
    assert get(port, "/api/state", "127.0.0.41") == 200
    for sock in [*idle, extra]:
        sock.close()
    # the server counts connections per address as they come and go: once they are closed, the address
    # has its whole share again
    assert wait_until(lambda: "127.0.0.40" not in box["server"].address_counts)
    again = [connect(port, "127.0.0.40") for _ in range(2)]
    again[0].sendall(f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
    assert head(again[0])[0] == 200
    for sock in again:
        sock.close()


def test_the_watchdog_is_fed_only_while_the_server_answers(tmp_path: Path, monkeypatch) -> None:
    """systemd's watchdog: a web thread that is alive but answers nobody must stop the WATCHDOG=1 pings."""
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = str(tmp_path / "notify.sock")
    notify.bind(path)
    notify.settimeout(0.2)
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    monkeypatch.setenv("WATCHDOG_USEC", "400000")  # a ping at least every 0.2 s, a probe gives up after 0.2 s
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    config = tmp_path / "config.toml"
    config.write_text('[gpio]\npin_factory = "mock"\n[web]\nhost = "127.0.0.1"\n')
    started, stop, box = threading.Event(), threading.Event(), {}

    def on_started(table):
        box["table"] = table
        started.set()

    thread = threading.Thread(target=lambda: box.update(code=run(
        BoxOptions(camera="demo", config=config, state_dir=tmp_path / "state", port=0),
        announce=lambda r: box.setdefault("records", []).append(r), stop=stop, on_started=on_started)),
        daemon=True)
    thread.start()
    assert started.wait(60)

    def pings(seconds: float, first: bool = False) -> int:
        """WATCHDOG=1 pings received in `seconds` (with first=True: stop at the first one)."""
        end, count = time.monotonic() + seconds, 0
        while time.monotonic() < end and not (first and count):
            try:
                count += notify.recv(4096).decode().split("\n").count("WATCHDOG=1")
            except TimeoutError:
                pass
        return count

    try:
        assert pings(30.0, first=True) >= 1
        stuck = threading.Event()
        real_health = box["table"].health
        monkeypatch.setattr(box["table"], "health", lambda: (stuck.wait(30), real_health())[1])
        pings(0.6)  # a ping already on its way
        # five ticks: a live thread that answers nobody must not feed the watchdog once
        assert pings(1.0) == 0, "the server's thread lives, but nobody is answered: no ping"
        stuck.set()
        assert pings(30.0, first=True) >= 1, "answering again: pinging again"
    finally:
        stop.set()
        thread.join(30)
        notify.close()
    assert box.get("code") == 0
    port = box["records"][0]["port"]
    assert not answers("127.0.0.1", port, timeout=1.0)  # stopped means not answering


def test_probe_reaches_a_server_listening_everywhere(box) -> None:
    assert answers("0.0.0.0", box["port"])  # the box listening on every address probes via loopback


def head_events(port: int, source: str) -> tuple[int, dict[str, str]]:
    sock = connect(port, source)
    sock.sendall(f"HEAD /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
    status, headers, _ = head(sock)
    sock.close()
    return status, headers


def test_a_page_can_ask_whether_a_stream_would_be_admitted_without_taking_a_place(box) -> None:
    """A browser's EventSource hides a refused stream's status and Retry-After, so the page asks with
    HEAD /api/events before it reconnects: the gate's answer, and no place taken."""
    port, gate = box["port"], box["app"].extensions[STREAMS]
    assert head_events(port, "127.0.0.40")[0] == 200
    assert gate.stats()["open"] == 0
    held = [open_stream(port, f"127.0.0.{41 + i}")[0] for i in range(LIMITS.max_streams)]
    status, headers = head_events(port, "127.0.0.40")
    assert status == 503 and int(headers["retry-after"]) >= 5
    assert gate.stats()["open"] == LIMITS.max_streams
    for sock in held:
        sock.close()
