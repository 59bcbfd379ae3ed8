"""A venue under load: N simulated boxes rolling R times a second through one local mosquitto, and the venue
board's delay.

Each box is the real table service (device.table.Table on a throwaway store, no camera, the free-roll game)
with its real MQTT publisher (device.mqtt.TablePublisher); a thread per box submits a roll R times a second
(staggered). The venue is `dicesight venue` in a child process of its own, as on a venue's machine, hearing a
mosquitto this bench starts on a free loopback port (Debian's, with a temporary config). One client holds the
venue page's event stream and notes when each box's new move arrives: the delay is from the roll being
submitted to its box to the venue page receiving that move, through the box's publisher thread, paho,
mosquitto, the venue's subscription and its stream.
(Timed from the call to `submit`, so it includes the store's write, on /dev/shm here: an upper bound.)

Bounded: a fixed time (`--seconds`, after a warm-up); it stops by itself. Figures, not a test.

    .venv/bin/python bench/mqtt_venue.py [--boxes 50] [--rate 2] [--seconds 30]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HOST = "127.0.0.1"  # loopback only
WARMUP_S = 3.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def start_broker(folder: Path) -> tuple[subprocess.Popen, int]:
    """Debian's mosquitto on a free loopback port with a temporary config (never the system service)."""
    port = free_port()
    lines = [f"listener {port} {HOST}", "allow_anonymous true", "persistence false", "log_dest none"]
    if os.geteuid() == 0:
        lines.append("user root")
    conf = folder / "mosquitto.conf"
    conf.write_text("\n".join(lines) + "\n")
    binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    proc = subprocess.Popen([binary, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_port(port)
    return proc, port


def wait_for_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing answers on port {port}")


def start_venue(broker_port: int) -> tuple[subprocess.Popen, int]:
    port = free_port()
    cmd = [sys.executable, "-m", "device.cli", "venue", "--broker", f"mqtt://{HOST}:{broker_port}", "--host", HOST,
           "--port", str(port), "--json"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_port(port)
    return proc, port


class Box:
    """One simulated box: a real table and publisher; rolls R times a second from its own thread."""

    def __init__(self, index: int, folder: Path, broker_port: int) -> None:
        from device.config import parse_broker
        from device.mqtt import MqttSettings, TablePublisher
        from device.store import Store
        from device.table import Table

        self.name = f"box-{index:02d}"
        self.table = Table(Store(folder / self.name), camera=None)
        self.publisher = TablePublisher(self.table, MqttSettings(parse_broker(f"mqtt://{HOST}:{broker_port}"),
                                                                 self.name, self.name))
        self.accepted: dict[int, float] = {}  # seq -> when its roll was submitted (monotonic)

    def play(self, rate: float, start: float, until: float, offset: float) -> None:
        """Roll at `rate` a second from `start + offset` to `until` (time.monotonic)."""
        k = 0
        while True:
            due = start + offset + k / rate
            if due >= until:
                return
            time.sleep(max(0.0, due - time.monotonic()))
            asked = time.monotonic()
            snap = self.table.submit({"type": "roll", "dice": [1 + (k + i) % 6 for i in range(5)]})
            self.accepted[snap["seq"]] = asked
            k += 1


class Screen(threading.Thread):
    """The venue page's event stream: when each (box, move) first arrived."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.arrived: dict[tuple[str, int], float] = {}
        self.events = 0

    def run(self) -> None:
        conn = http.client.HTTPConnection(HOST, self.port, timeout=60)
        conn.request("GET", "/api/events")
        resp = conn.getresponse()
        kind = None
        for raw in resp:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: ") and kind in ("table", "board"):
                now = time.monotonic()
                data = json.loads(line[6:])
                for row in data["tables"] if kind == "board" else [data]:
                    seq = (row.get("board") or {}).get("seq")
                    if seq is not None:
                        self.arrived.setdefault((row["box"], seq), now)
                self.events += 1


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boxes", type=int, default=50)
    parser.add_argument("--rate", type=float, default=2.0, help="rolls a second per box")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured time, after a warm-up")
    args = parser.parse_args()
    base = Path("/dev/shm") if Path("/dev/shm").is_dir() else None  # the stores' fsyncs are not what is measured
    with tempfile.TemporaryDirectory(prefix="mqtt-venue-", dir=base) as tmp:
        folder = Path(tmp)
        broker, broker_port = start_broker(folder)
        venue, venue_port = start_venue(broker_port)
        boxes: list[Box] = []
        try:
            boxes = [Box(i, folder, broker_port) for i in range(args.boxes)]
            for box in boxes:
                box.publisher.start()
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not all(b.publisher.connected for b in boxes):
                time.sleep(0.05)
            screen = Screen(venue_port)
            screen.start()
            time.sleep(1.0)
            start = time.monotonic()
            until = start + WARMUP_S + args.seconds
            cpu0 = {"venue": cpu_seconds(venue.pid), "mosquitto": cpu_seconds(broker.pid),
                    "boxes": time.process_time()}
            players = [threading.Thread(target=b.play, args=(args.rate, start, until, i / args.boxes / args.rate),
                                        daemon=True) for i, b in enumerate(boxes)]
            for t in players:
                t.start()
            for t in players:
                t.join()
            time.sleep(3.0)  # the last moves' way through
            cpu = {"venue": cpu_seconds(venue.pid) - cpu0["venue"],
                   "mosquitto": cpu_seconds(broker.pid) - cpu0["mosquitto"],
                   "boxes": time.process_time() - cpu0["boxes"]}
            delays, lost = [], 0
            for box in boxes:
                for seq, at in box.accepted.items():
                    if at < start + WARMUP_S:
                        continue
                    got = screen.arrived.get((box.name, seq))
                    if got is None:
                        lost += 1  # never shown as such: a later move of the box came in its place
                    else:
                        delays.append((got - at) * 1000)
            wall = 3.0 + WARMUP_S + args.seconds
            report = {
                "boxes": args.boxes, "rate": args.rate, "seconds": args.seconds,
                "rolls": sum(len(b.accepted) for b in boxes), "measured": len(delays) + lost,
                "shown": len(delays), "skipped": lost,
                "delay_ms": {"p50": round(statistics.median(delays), 1), "p99": round(percentile(delays, 99), 1),
                             "max": round(max(delays), 1)} if delays else None,
                "cpu_share": {k: round(v / wall, 2) for k, v in cpu.items()},
                "dropped_by_publishers": sum(b.publisher.counts["dropped"] for b in boxes),
                "stream_events": screen.events,
            }
            print(json.dumps(report))
            if delays:
                print(f"{args.boxes} boxes x {args.rate:g} rolls/s for {args.seconds:g} s: {len(delays)} moves shown "
                      f"on the venue page, {lost} skipped (a newer move came first); delay p50 "
                      f"{report['delay_ms']['p50']} ms, p99 {report['delay_ms']['p99']} ms, max "
                      f"{report['delay_ms']['max']} ms; CPU (cores): boxes {report['cpu_share']['boxes']}, "
                      f"mosquitto {report['cpu_share']['mosquitto']}, venue {report['cpu_share']['venue']}")
        finally:
            for box in boxes:
                box.publisher.close()
                box.table.close()
            venue.terminate()
            broker.terminate()
            venue.wait(10)
            broker.wait(10)


if __name__ == "__main__":
    main()
