"""Regidice engine figures: random 4-player games per second through Match, the cost and size of the
per-viewer snapshots a change sends (one per seat plus the shared screen), and the attack-group search on
large pools. Prints figures, asserts nothing. Run: `.venv/bin/python bench/regidice.py [--seconds S]`.

A "random game" picks uniformly among the pending decision's options (seeded), which mostly loses, so games
are short; the snapshot figures are taken over the same games.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.games import get_rules  # noqa: E402
from engine.match import Match  # noqa: E402
from engine.regidice import sets  # noqa: E402

RULES = get_rules("regidice")


def games(seconds: float) -> dict:
    """Complete random games through Match for `seconds`; snapshots for every viewer after each action."""
    played = actions = snaps = 0
    snap_time = 0.0
    sizes: list[int] = []
    results: dict[str, int] = {}
    start = time.perf_counter()
    seed = 0
    while time.perf_counter() - start < seconds:
        rng = random.Random(seed)
        match = Match(RULES, {"players": 4}, seed)
        viewers = [None, "p1", "p2", "p3", "p4"]
        while match.state["phase"] != "over" and actions < 10**7:
            match.submit(rng.choice(RULES.options(match.state)))
            actions += 1
            if actions % 5 == 0:  # every 5th change: what the box would encode for 5 phones
                t = time.perf_counter()
                for viewer in viewers:
                    sizes.append(len(json.dumps(match.snapshot(viewer=viewer)).encode()))
                snap_time += time.perf_counter() - t
                snaps += len(viewers)
            if match.state["round"] > 60:
                break
        results[match.state["result"] or "unfinished"] = results.get(match.state["result"] or "unfinished", 0) + 1
        played += 1
        seed += 1
    elapsed = time.perf_counter() - start - snap_time
    sizes.sort()
    return {"games": played, "games_per_s": round(played / elapsed, 1), "actions_per_s": round(actions / elapsed),
            "results": results, "snapshot_ms": round(1000 * snap_time / max(1, snaps), 3),
            "snapshot_bytes_p50": sizes[len(sizes) // 2] if sizes else 0,
            "snapshot_bytes_max": sizes[-1] if sizes else 0}


def attack_search() -> dict:
    """Mean and worst time of the attack-group search over 300 random pools of 15-35 dice (caches cleared each
    time: the first search of a round on a big pool)."""
    rng = random.Random(7)
    worst = total = 0.0
    for _ in range(300):
        sets._best_groups.cache_clear()
        sets._tails.cache_clear()
        values = [rng.randint(1, 6) for _ in range(rng.randint(15, 35))]
        defence = rng.randint(3, 29)
        t = time.perf_counter()
        sets.attack_groups(values, defence)
        dt = time.perf_counter() - t
        worst, total = max(worst, dt), total + dt
    return {"attack_search_mean_ms": round(1000 * total / 300, 2), "attack_search_worst_ms": round(1000 * worst, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out = {**games(args.seconds), **attack_search()}
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k}: {v}")


if __name__ == "__main__":
    main()
