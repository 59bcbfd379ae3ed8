"""How fast the store appends durable actions on this disk (WAL, synchronous=FULL: one fsync each).

    python bench/store.py [--actions 2000] [--dir DIR] [--json]

Each append is one committed, fsynced transaction, exactly as the table service does it, so the figure
is the most actions per second the box could ever accept. A game needs a few per minute; the point is
the margin, and to see how slow the SD card (or this disk) is at fsync. Use --dir to measure a particular
disk (the default is a temporary folder, usually on the same disk as /tmp).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Run as a script, bench/ is sys.path[0], where bench scripts named like our packages (engine.py...)
# would shadow them: the repository root goes there instead.
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    sys.path[0] = str(REPO)
elif str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def measure(state_dir: Path, actions: int) -> dict[str, float]:
    from device.store import Store
    from engine.match import Entry

    store = Store(state_dir)
    try:
        gid = store.new_game("freeroll", {"title": "bench"}, 1)
        action = {"type": "roll", "dice": [3, 1, 6, 6, 2], "source": "camera"}
        evidence = {"readings": [{"value": v, "confidence": 0.97, "center": [100, 120]} for v in (3, 1, 6, 6, 2)]}
        latencies = []
        start = time.perf_counter()
        for seq in range(1, actions + 1):
            t0 = time.perf_counter()
            store.append(gid, Entry(seq, action), evidence if seq % 2 else None)
            latencies.append(time.perf_counter() - t0)
        elapsed = time.perf_counter() - start
        t0 = time.perf_counter()
        rec = store.load_game(gid)
        load_s = time.perf_counter() - t0
        assert len(rec.entries) == actions
    finally:
        store.close()
    latencies.sort()
    return {
        "actions": actions,
        "seconds": elapsed,
        "appends_per_s": actions / elapsed,
        "median_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[int(len(latencies) * 0.99) - 1] * 1000,
        "max_ms": latencies[-1] * 1000,
        "load_ms": load_s * 1000,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=2000)
    parser.add_argument("--dir", type=Path, help="folder on the disk to measure (default: a temp folder)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.dir is not None:
        args.dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="dicesight-store-bench-", dir=args.dir) as tmp:
        figures = measure(Path(tmp), args.actions)
        figures["dir"] = tmp
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"store: {figures['appends_per_s']:.0f} durable appends/s (WAL, synchronous=FULL, one fsync each) "
              f"in {figures['dir']}; per append median {figures['median_ms']:.2f} ms, "
              f"p99 {figures['p99_ms']:.2f} ms, max {figures['max_ms']:.2f} ms; "
              f"loading the {figures['actions']}-action log {figures['load_ms']:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
