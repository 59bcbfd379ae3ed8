"""Fan-out of the phone page: N phones on server-sent events, on loopback only.

Serves the real web app (webui.create_app) with waitress, as `dicesight run` does, around the real table
service (device.table.Table on a throwaway store, no camera) playing the free-roll game. N clients hold
`GET /api/events` open; a paired client submits actions through `POST /api/actions`; for each accepted
action the bench measures, on every phone, the time from sending the POST (so it includes the store's
fsync) to that phone receiving the snapshot with the action's seq: an upper bound of "accepted -> shown".
Then it hammers `GET /api/state` from a few threads for a fixed time and prints requests per second.

Bounded: a fixed number of actions and a fixed time for the state test; it stops by itself.

    .venv/bin/python bench/web_fanout.py [--phones 50] [--actions 100] [--state-seconds 5] [--game dicethrone]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

HOST = "127.0.0.1"  # loopback only, never a LAN address


class Phone(threading.Thread):
    """One phone: an SSE connection; records when each seq arrived."""

    def __init__(self, port: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.stop_event = stop
        self.arrived: dict[int, float] = {}
        self.connected = threading.Event()
        self.error: str | None = None

    def run(self) -> None:
        try:
            sock = socket.create_connection((HOST, self.port), timeout=30)
            sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: {HOST}\r\nAccept: text/event-stream\r\n\r\n".encode())
            sock.settimeout(1.0)
            buf = b""
            while not self.stop_event.is_set():
                try:
                    chunk = sock.recv(65536)
                except TimeoutError:
                    continue
                if not chunk:
                    break
                now = time.perf_counter()
                buf += chunk
                while b"\n\n" in buf:
                    block, buf = buf.split(b"\n\n", 1)
                    for line in block.split(b"\n"):
                        if line.startswith(b"id: "):
                            try:
                                seq = int(line[4:])
                            except ValueError:
                                continue
                            self.arrived.setdefault(seq, now)
                            self.connected.set()
            sock.close()
        except OSError as exc:
            self.error = str(exc)
            self.connected.set()


def request(port: int, method: str, path: str, body: dict | None = None, headers: dict | None = None,
            conn: http.client.HTTPConnection | None = None):
    own = conn is None
    conn = conn or http.client.HTTPConnection(HOST, port, timeout=30)
    data = None if body is None else json.dumps(body)
    hdrs = {"Content-Type": "application/json", **(headers or {})} if body is not None else dict(headers or {})
    conn.request(method, path, body=data, headers=hdrs)
    resp = conn.getresponse()
    payload = resp.read()
    cookie = resp.getheader("Set-Cookie")
    if own:
        conn.close()
    return resp.status, (json.loads(payload) if payload else None), cookie


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    k = min(len(s) - 1, max(0, int(round(p / 100 * (len(s) - 1)))))
    return s[k]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--phones", type=int, default=50)
    ap.add_argument("--actions", type=int, default=100)
    ap.add_argument("--state-seconds", type=float, default=5.0)
    ap.add_argument("--state-threads", type=int, default=4)
    ap.add_argument("--threads", type=int, default=64 + 16, help="waitress worker threads")
    ap.add_argument("--game", choices=["freeroll", "dicethrone"], default="freeroll",
                    help="dicethrone: a 1v1 game, actions are corrections (bigger snapshots)")
    args = ap.parse_args(argv)

    from waitress.server import create_server

    from device.pairing import Pairing
    from device.store import Store
    from device.table import Table
    from webui import create_app

    tmp = tempfile.TemporaryDirectory(prefix="dicesight-bench-")
    table = Table(Store(Path(tmp.name) / "state"), camera=None, pairing=Pairing())
    if args.game == "dicethrone":
        table.new_game("dicethrone", {"mode": "1v1", "start": "p1", "players": [
            {"id": "p1", "name": "Ana", "hero": "barbarian"}, {"id": "p2", "name": "Bo", "hero": "gunslinger"}]}, 1)
    app = create_app(table, secret_key="bench")
    server = create_server(app, host=HOST, port=0, threads=max(args.threads, args.phones + 8),
                           channel_timeout=120, ident="bench")
    port = server.effective_port
    stop = threading.Event()
    serving = threading.Event()

    def loop() -> None:  # server.run() with a way out, so closing never races the select loop
        while not serving.is_set():
            server.asyncore.loop(timeout=0.1, map=server._map, count=1)

    web = threading.Thread(target=loop, daemon=True)
    web.start()
    phones = [Phone(port, stop) for _ in range(args.phones)]
    try:
        for ph in phones:
            ph.start()
        for ph in phones:
            ph.connected.wait(30)
        errors = [ph.error for ph in phones if ph.error]
        if errors:
            print(f"{len(errors)} phones failed to connect: {errors[0]}")
            return 1

        # Pair one controlling phone the way the page does.
        status, body, _ = request(port, "POST", "/api/pair", {}, {"X-Dicesight-CSRF": "bench"})
        table.press("pair")
        status, body, cookie = request(port, "GET", f"/api/pair/{body['request']}")
        token = cookie.split(";", 1)[0]
        headers = {"X-Dicesight-CSRF": body["csrf"], "Cookie": token}

        latencies: list[float] = []
        per_action_max: list[float] = []
        missing = 0
        conn = http.client.HTTPConnection(HOST, port, timeout=30)
        for i in range(args.actions):
            sent = time.perf_counter()
            if args.game == "dicethrone":
                action = {"type": "adjust", "player": "p2", "cp": 1 if i % 2 == 0 else -1}
            else:
                action = {"type": "roll", "dice": [1 + i % 6, 1 + (i * 5) % 6], "source": "manual"}
            status, snap, _ = request(port, "POST", "/api/actions", action, headers, conn)
            assert status == 200, (status, snap)
            seq = snap["seq"]
            deadline = time.perf_counter() + 5.0
            while time.perf_counter() < deadline and not all(seq in ph.arrived for ph in phones):
                time.sleep(0.0005)
            got = [ph.arrived[seq] - sent for ph in phones if seq in ph.arrived]
            missing += len(phones) - len(got)
            latencies += got
            if got:
                per_action_max.append(max(got))
            time.sleep(0.01)  # actions at a human-ish pace, not a flood
        conn.close()

        ms = [x * 1000 for x in latencies]
        print(f"web fan-out on {HOST}: {args.game}, {args.phones} phones on SSE, {args.actions} actions "
              f"(cpus: {os.cpu_count()}, waitress threads: {max(args.threads, args.phones + 8)})")
        print(f"  action -> event on every phone: p50 {pct(ms, 50):.1f} ms, p99 {pct(ms, 99):.1f} ms, "
              f"max {max(ms):.1f} ms, mean {statistics.fmean(ms):.1f} ms ({len(ms)} deliveries, {missing} missing)")
        last = [x * 1000 for x in per_action_max]
        print(f"  slowest phone per action: p50 {pct(last, 50):.1f} ms, p99 {pct(last, 99):.1f} ms")

        # GET /api/state throughput, keep-alive connections, while the 50 phones stay connected.
        counts = [0] * args.state_threads
        end = time.perf_counter() + args.state_seconds

        def hammer(k: int) -> None:
            c = http.client.HTTPConnection(HOST, port, timeout=30)
            while time.perf_counter() < end:
                c.request("GET", "/api/state")
                r = c.getresponse()
                r.read()
                counts[k] += 1
            c.close()

        t0 = time.perf_counter()
        workers = [threading.Thread(target=hammer, args=(k,)) for k in range(args.state_threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        took = time.perf_counter() - t0
        size = len(json.dumps(table.snapshot()))
        print(f"  GET /api/state: {sum(counts) / took:.0f} req/s over {took:.1f} s with {args.state_threads} "
              f"client threads (snapshot {size} bytes, {args.phones} phones still connected)")
        return 0
    finally:
        stop.set()
        app.extensions["dicesight"].stopping.set()
        time.sleep(0.8)
        serving.set()
        web.join(timeout=5)
        server.close()
        table.close()
        tmp.cleanup()


if __name__ == "__main__":
    raise SystemExit(main())
