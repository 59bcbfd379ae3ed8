"""Load on a running box: N watching phones on live-update streams plus M phones posting, on loopback only.

Starts the real `dicesight run` (demo tray off: `--camera replay` of nothing is not needed; the box runs with
`--camera none`-like settings through `--camera demo` and a free-roll game) in a throwaway state directory,
opens N `GET /api/events` streams (a watching phone each), pairs M phones the way the page does (ask, press
the virtual Pair of a `--gpio mock` box, collect the token), and has each poster submit rolls while a reader
times `GET /api/state`. It prints the API's p50/p99, how many events each watcher got and missed, how many
streams the box refused (and with which status), and the server process's threads, open files and memory
before and after. Request loops are bounded in count and time; everything stops by itself.

    .venv/bin/python bench/web_load.py [--watchers 200] [--posters 3] [--actions 30] [--state-seconds 10]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HOST = "127.0.0.1"  # loopback only, never a LAN address
ROOT = Path(__file__).resolve().parents[1]


def proc_stats(pid: int) -> dict[str, float]:
    """Threads, open file descriptors and resident memory (MiB) of a process, from /proc."""
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024
    threads = int(re.search(r"Threads:\s+(\d+)", status).group(1))
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    return {"threads": threads, "fds": fds, "rss_mib": round(rss, 1)}


class Watcher(threading.Thread):  # one phone in its own thread (bench/soak.py: a few phones come and go)
    """One watching phone: a live-update stream; records the seq of every snapshot it receives."""

    def __init__(self, port: int, stop: threading.Event, source: str | None = None) -> None:
        super().__init__(daemon=True)
        self.port, self.stop_event, self.source = port, stop, source
        self.seqs: set[int] = set()
        self.status: int | None = None
        self.ready = threading.Event()
        self.error: str | None = None

    def run(self) -> None:
        try:
            sock = socket.create_connection((HOST, self.port), timeout=30,
                                            source_address=(self.source, 0) if self.source else None)
            sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n"
                         "Accept: text/event-stream\r\n\r\n".encode())
            sock.settimeout(0.5)
            buf = b""
            while not self.stop_event.is_set():
                try:
                    chunk = sock.recv(65536)
                except TimeoutError:
                    continue
                if not chunk:
                    break
                buf += chunk
                if self.status is None and b"\r\n" in buf:
                    self.status = int(buf.split(b" ", 2)[1])
                    if self.status != 200:
                        break
                while b"\n\n" in buf:
                    block, buf = buf.split(b"\n\n", 1)
                    for line in block.split(b"\n"):
                        if line.startswith(b"id: "):
                            try:
                                self.seqs.add(int(line[4:]))
                            except ValueError:
                                pass
                            self.ready.set()
            sock.close()
        except OSError as exc:
            self.error = str(exc)
        finally:
            self.ready.set()


def phone_address(i: int) -> str:
    """A loopback address of its own for phone `i` (127.1.x.y): phones on a Wi-Fi each have one, and the box
    limits streams, connections and pair requests per address."""
    return f"127.1.{1 + i // 250}.{1 + i % 250}"


class WatcherPool(threading.Thread):
    """Many watching phones read by one thread (a selector over their sockets). Phones are other devices:
    200 reader threads in this process would take the box's CPU on a 2-core machine and be measured as
    the box's slowness. Each phone keeps `status`, `seqs`, `error` like a Watcher."""

    class Phone:
        def __init__(self) -> None:
            self.status: int | None = None
            self.seqs: set[int] = set()
            self.error: str | None = None
            self.buf = b""

    def __init__(self, port: int, sources: list[str], stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.stop_event = stop
        self.phones = [self.Phone() for _ in sources]
        self.selector = selectors.DefaultSelector()
        for phone, source in zip(self.phones, sources, strict=True):
            try:
                sock = socket.create_connection((HOST, port), timeout=30, source_address=(source, 0))
                sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
                             "Accept: text/event-stream\r\n\r\n".encode())
                sock.setblocking(False)
                self.selector.register(sock, selectors.EVENT_READ, phone)
            except OSError as exc:
                phone.error = str(exc)
        self.ready = threading.Event()

    def run(self) -> None:
        while not self.stop_event.is_set():
            for key, _ in self.selector.select(timeout=0.2):
                phone, sock = key.data, key.fileobj
                try:
                    chunk = sock.recv(65536)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError as exc:
                    phone.error = str(exc)
                    chunk = b""
                if not chunk:
                    self.selector.unregister(sock)
                    sock.close()
                    continue
                phone.buf += chunk
                if phone.status is None and b"\r\n" in phone.buf:
                    phone.status = int(phone.buf.split(b" ", 2)[1])
                while b"\n\n" in phone.buf:
                    block, phone.buf = phone.buf.split(b"\n\n", 1)
                    for line in block.split(b"\n"):
                        if line.startswith(b"id: "):
                            try:
                                phone.seqs.add(int(line[4:]))
                            except ValueError:
                                pass
            if all(p.status is not None or p.error for p in self.phones):
                self.ready.set()
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()
        self.ready.set()


def call(port: int, method: str, path: str, body: dict | None = None,
         headers: dict | None = None, source: str | None = None) -> tuple[int, dict | None, str | None, float]:
    """One request on a fresh connection: status, JSON answer, Set-Cookie and milliseconds taken."""
    conn = http.client.HTTPConnection(HOST, port, timeout=30, source_address=(source, 0) if source else None)
    data = None if body is None else json.dumps(body)
    hdrs = {"Host": f"{HOST}:{port}", **({"Content-Type": "application/json"} if body is not None else {}),
            **(headers or {})}
    start = time.perf_counter()
    conn.request(method, path, body=data, headers=hdrs)
    resp = conn.getresponse()
    payload = resp.read()
    ms = (time.perf_counter() - start) * 1000
    conn.close()
    try:
        answer = json.loads(payload) if payload else None
    except ValueError:
        answer = None
    return resp.status, answer, resp.getheader("Set-Cookie"), ms


def pair(port: int, source: str | None = None) -> dict[str, str]:
    """Pair one phone (from `source`) as the page does on a box with the virtual panel: ask, press the
    box's Pair (from the box itself), collect."""
    origin = {"Origin": f"http://{HOST}:{port}", "X-Dicesight-CSRF": "load"}
    status, body, _, _ = call(port, "POST", "/api/pair", {}, origin, source)
    if status != 202:
        raise RuntimeError(f"pair request refused: {status} {body}")
    call(port, "POST", "/api/panel/pair", {}, origin)
    for _ in range(50):
        status, answer, cookie, _ = call(port, "GET", f"/api/pair/{body['request']}", source=source)
        if answer and answer.get("status") == "granted":
            return {"Cookie": cookie.split(";", 1)[0], "X-Dicesight-CSRF": answer["csrf"],
                    "Origin": f"http://{HOST}:{port}"}
        time.sleep(0.1)
    raise RuntimeError(f"pairing was not granted: {answer}")


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))] if s else float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--watchers", type=int, default=200, help="phones holding live-update streams (max 500)")
    ap.add_argument("--posters", type=int, default=3, help="paired phones submitting rolls")
    ap.add_argument("--actions", type=int, default=30, help="rolls each poster submits")
    ap.add_argument("--state-seconds", type=float, default=10.0, help="how long GET /api/state is timed")
    args = ap.parse_args(argv)
    args.watchers = min(args.watchers, 500)

    tmp = tempfile.TemporaryDirectory(prefix="dicesight-load-")
    cmd = [sys.executable, "-m", "device.cli", "run", "--camera", "demo", "--gpio", "mock", "--host", HOST,
           "--port", "0", "--state-dir", tmp.name, "--demo-throw", "auto", "--json"]  # as before: throws keep the camera busy
    box = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = None
        deadline = time.monotonic() + 60
        while port is None and time.monotonic() < deadline:
            line = box.stdout.readline()
            if not line:
                break
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "started":
                port = int(event["port"])
        if port is None:
            print("the box did not start")
            return 1
        time.sleep(1.0)
        before = proc_stats(box.pid)
        stop = threading.Event()
        pool = WatcherPool(port, [phone_address(i) for i in range(args.watchers)], stop)
        pool.start()
        pool.ready.wait(60)
        watchers = pool.phones
        opened = sum(1 for w in watchers if w.status == 200)
        refused: dict[int, int] = {}
        for w in watchers:
            if w.status not in (None, 200):
                refused[w.status] = refused.get(w.status, 0) + 1
        during = proc_stats(box.pid)

        headers = [pair(port, phone_address(1000 + k)) for k in range(args.posters)]
        post_ms: list[float] = []
        post_errors = 0
        accepted: list[int] = []

        def poster(h: dict[str, str], k: int) -> None:
            nonlocal post_errors
            for i in range(args.actions):
                action = {"type": "roll", "dice": [1 + (i + k) % 6, 1 + (i * 5 + k) % 6], "source": "manual"}
                status, answer, _, ms = call(port, "POST", "/api/actions", action, h, phone_address(1000 + k))
                post_ms.append(ms)
                if status == 200 and answer:
                    accepted.append(int(answer["seq"]))
                else:
                    post_errors += 1

        state_ms: list[float] = []

        def reader() -> None:
            end = time.monotonic() + args.state_seconds
            while time.monotonic() < end:
                status, _, _, ms = call(port, "GET", "/api/state")
                if status == 200:
                    state_ms.append(ms)

        workers = [threading.Thread(target=poster, args=(h, k)) for k, h in enumerate(headers)]
        workers.append(threading.Thread(target=reader))
        for t in workers:
            t.start()
        for t in workers:
            t.join()
        time.sleep(1.5)  # let the last events reach every stream
        stop.set()
        pool.join(5)
        want = set(accepted)
        delivered = sum(len(w.seqs & want) for w in watchers if w.status == 200)
        missed = sum(len(want - w.seqs) for w in watchers if w.status == 200)
        time.sleep(2.0)  # streams closed by the clients: the box should let go of them
        after = proc_stats(box.pid)

        print(f"watchers asked {args.watchers}, streams opened {opened}, refused {refused or 0}, "
              f"errors {sum(1 for w in watchers if w.error)}")
        print(f"POST /api/actions: {len(post_ms)} sent, {post_errors} not accepted, "
              f"p50 {statistics.median(post_ms):.1f} ms, p99 {pct(post_ms, 99):.1f} ms")
        print(f"GET /api/state while streaming: {len(state_ms)} answered, p50 {statistics.median(state_ms):.1f} ms,"
              f" p99 {pct(state_ms, 99):.1f} ms")
        last = max(want) if want else 0
        final = sum(1 for w in watchers if w.status == 200 and last in w.seqs)
        print(f"events: {delivered} delivered, {missed} missed ({len(want)} actions x {opened} streams; a phone "
              f"that falls behind gets the newest snapshot, which is the whole state); newest seq {last} reached "
              f"{final}/{opened} streams")
        print(f"box process: before {before}; with streams {during}; after {after}")
        return 0
    finally:
        box.send_signal(signal.SIGTERM)
        try:
            box.wait(15)
        except subprocess.TimeoutExpired:
            box.kill()
        tmp.cleanup()


if __name__ == "__main__":
    raise SystemExit(main())
