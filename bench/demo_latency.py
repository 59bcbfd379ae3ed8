"""Prints how long after the demo tray's dice come to rest the roll is recorded and published.

The demo tray's throws follow a fixed timetable (device.camera.demo), so the moment the dice stop is known
exactly; the table publishes a snapshot when the reader has voted the settled roll into the log. This is
the delay a player sees between the dice stopping and the page showing them.

    .venv/bin/python bench/demo_latency.py [--throws 6] [--settle 0.3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from device.camera.demo import CYCLE_S, EMPTY_S, THROW_S, DemoTray  # noqa: E402
from device.store import Store  # noqa: E402
from device.table import Table  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--throws", type=int, default=6)
    parser.add_argument("--settle", type=float, default=0.3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        demo = DemoTray(seed=3)
        table = Table(Store(Path(tmp)), camera=demo, settle_s=args.settle)
        sub = table.subscribe()
        table.start()
        delays, right, seen = [], 0, 0
        deadline = demo._t0 + CYCLE_S * (args.throws + 0.5)
        while seen < args.throws and time.monotonic() < deadline:
            snap = sub.get(timeout=0.5)
            if snap is None or snap.get("count", 0) <= seen:
                continue
            now = time.monotonic()
            seen = snap["count"]
            throw = int((now - demo._t0) // CYCLE_S)
            rested = demo._t0 + throw * CYCLE_S + EMPTY_S + THROW_S
            delays.append(now - rested)
            shown = Counter(d["value"] for d in snap["rolls"][0]["dice"])
            right += shown == Counter(demo.values(throw))
        table.close()
    if not delays:
        print("no roll was recorded")
        return
    print(f"throws recorded: {len(delays)}/{args.throws}, read right: {right}/{len(delays)}, "
          f"settle window {args.settle * 1000:.0f} ms")
    print(f"dice at rest -> roll on the page: median {statistics.median(delays) * 1000:.0f} ms, "
          f"max {max(delays) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
