"""What the box's memory of confirmed dice (vision/memory.py, fed by device/learnt.py) does to reading.

    nice -n 10 env OMP_NUM_THREADS=1 .venv/bin/python bench/vision_memory.py [--k 3] [--limit N] [--frames N]

As on a game night: some throws are read and confirmed by the players (each read die matched to its
labelled die, and its crop kept with the true face, at most k per face); the other throws are then read
with and without that memory, and scored alike (vision.scoring: acc = right value certain or not; certain-
right; uncertain; silent = wrong but certain; missed; phantom).

- Real photos (../shared/datasets, read from above with the shipped reader; webcam-d6: MIT,
  matteop65/Dice_Detection_Recognition; roboflow-d6: CC BY 4.0, Epanemu/GameDiceRecognition via
  Roboflow): one photo in five teaches, the others are read. Pip d6 have a CNN, so the memory can only
  make a die uncertain where it disagrees (it never makes a CNN die certain).
- Renders of symbol sets under the tray (the box's own case: one room, the box's learnt background, one
  colour of dice per set): `--teach` throws of 4 dice teach, `--frames` other throws are read. These sets
  have no CNN: the memory can make dice certain once every face has 2 examples.
Prints figures and the machine's load; asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from device.dice_sets import spec  # noqa: E402
from training.data import load_photos  # noqa: E402
from vision.dicesets import get_set  # noqa: E402
from vision.memory import Memory, crop_die  # noqa: E402
from vision.reader import read_dice  # noqa: E402
from vision.render import ground_truth, random_dice, render_tray  # noqa: E402
from vision.scoring import Score, score  # noqa: E402

SYMBOL_SETS = [("dicethrone:barbarian", "white"), ("dicethrone:monk", "white"), ("dicethrone:ninja", "black"),
               ("kingoftokyo", "black"), ("d6", "red"), ("d6", "white"), ("d6", "black")]


def matched(truth: list[dict], readings, radius: float) -> list[tuple[int, object]]:
    """(truth index, reading) pairs, nearest first, each at most once (as vision.scoring pairs them)."""
    pairs = sorted((math.hypot(r.center[0] - g["center"][0], r.center[1] - g["center"][1]), i, j)
                   for i, g in enumerate(truth) for j, r in enumerate(readings))
    ti, rj, out = set(), set(), []
    for d, i, j in pairs:
        if d > radius or i in ti or j in rj:
            continue
        ti.add(i)
        rj.add(j)
        out.append((i, readings[j]))
    return out


def head_line(mem: Memory, set_id: str) -> str:
    """How the memory learns this set: its network head's fit time and pull, or pictures."""
    if mem.network(set_id) is None:
        return "pictures"
    t0 = time.perf_counter()
    head = mem.head(set_id)
    return f"network head fitted in {1000 * (time.perf_counter() - t0):.0f} ms, pull {head.pull if head else '-'}"


def run(teach, test, set_spec, mount: str, k: int) -> tuple[Score, Score, Counter, float, float]:
    """teach/test: lists of (frame, truth dicts, top face index per truth, background, radius)."""
    ds = get_set(set_spec)
    mem = Memory(mount=mount)
    kept: Counter = Counter()
    for frame, truth, faces, bg, radius in teach:
        for i, r in matched(truth, read_dice(frame, set_spec, mount, background=bg), radius):
            if kept[faces[i]] < k:  # the players confirm (or fix) the die: its crop, its true face
                mem.add(ds.id, crop_die(frame, r.center, r.box), faces[i])
                kept[faces[i]] += 1
    print(f"  memory of {ds.id}: {head_line(mem, ds.id)}")
    without, with_ = Score(), Score()
    t_without = t_with = 0.0
    for frame, truth, _faces, bg, radius in test:
        t0 = time.perf_counter()
        plain = read_dice(frame, set_spec, mount, background=bg)
        t1 = time.perf_counter()
        learnt = read_dice(frame, set_spec, mount, background=bg, memory=mem)
        t2 = time.perf_counter()
        t_without += t1 - t0
        t_with += t2 - t1
        without.add(score(truth, plain, radius))
        with_.add(score(truth, learnt, radius))
    n = max(len(test), 1)
    return without, with_, kept, 1000 * t_without / n, 1000 * t_with / n


def photo_rows(name: str, limit: int | None):
    rows = []
    for ph in load_photos(name)[:limit]:
        frame = cv2.imread(str(ph.path))
        if frame is None or not ph.dice:
            continue
        truth = [{"value": d.value, "center": (d.box[0], d.box[1])} for d in ph.dice]
        radius = max(12.0, 0.5 * float(np.median([max(d.box[2], d.box[3]) for d in ph.dice])))
        rows.append((frame, truth, [d.value for d in ph.dice], None, radius))
    return rows


def render_rows(set_id: str, colour: str, n: int, seed: int, room: int):
    """Throws of 4 dice of one set and colour in one box (one room under the tray, its empty frame learnt)."""
    rng = np.random.default_rng(seed)
    bg = render_tray([], mount="under", seed=seed, room_seed=room)
    rows = []
    for i in range(n):
        dice = random_dice(rng, 4, dice_set=spec(set_id), size=(48, 80), colours=[colour])
        frame = render_tray(dice, mount="under", seed=seed * 1000 + i, room_seed=room)
        rows.append((frame, ground_truth(dice, "under"), [d.value for d in dice], bg, 30.0))
    return rows


def line(name: str, s: Score) -> str:
    n = max(s.dice, 1)
    return (f"{name:34s} dice {s.dice:5d}  acc {100 * s.correct / n:6.2f}%  certain-right "
            f"{100 * s.right_certain / n:6.2f}%  uncertain {100 * s.uncertain / n:6.2f}%  silent "
            f"{100 * s.silent / n:5.2f}% ({s.silent})  missed {100 * s.missed / n:5.2f}%")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", type=int, default=3, help="confirmed crops kept per face (the box keeps up to 200)")
    ap.add_argument("--limit", type=int, default=None, help="photos per dataset (default: all)")
    ap.add_argument("--teach", type=int, default=12, help="rendered throws that teach, per set")
    ap.add_argument("--frames", type=int, default=40, help="rendered throws read, per set")
    ap.add_argument("--skip-photos", action="store_true")
    ap.add_argument("--sets", default="", help="comma-separated rendered sets (default: all)")
    args = ap.parse_args()
    print(f"load average at start: {' '.join(f'{v:.2f}' for v in os.getloadavg())} ({os.cpu_count()} cores)")
    if not args.skip_photos:
        print(f"== real photos, from above: one photo in five teaches (k={args.k} per face), the rest are read")
        for name in ("webcam-d6", "roboflow-d6"):
            rows = photo_rows(name, args.limit)
            teach = [r for i, r in enumerate(rows) if i % 5 == 0]
            test = [r for i, r in enumerate(rows) if i % 5 != 0]
            without, with_, kept, ms0, ms1 = run(teach, test, "d6", "over", args.k)
            print(f"  taught {sum(kept.values())} crops {dict(sorted(kept.items()))}; read {len(test)} photos")
            print(line(f"{name} without memory", without), f" {ms0:.1f} ms/photo")
            print(line(f"{name} with memory", with_), f" {ms1:.1f} ms/photo")
    print(f"== renders under the tray: {args.teach} throws of 4 dice teach (k={args.k} per face), "
          f"{args.frames} other throws are read")
    for n, (set_id, colour) in enumerate(SYMBOL_SETS):
        if args.sets and set_id not in args.sets.split(","):
            continue
        # seeds and rooms other than those the memory's thresholds were chosen on (11 + n, 5 + n)
        rows = render_rows(set_id, colour, args.teach + args.frames, seed=101 + n, room=50 + n)
        without, with_, kept, ms0, ms1 = run(rows[:args.teach], rows[args.teach:], spec(set_id), "under", args.k)
        print(f"  {set_id} ({colour}): taught {sum(kept.values())} crops {dict(sorted(kept.items()))}")
        print(line(f"{set_id} {colour} without memory", without), f" {ms0:.1f} ms/frame")
        print(line(f"{set_id} {colour} with memory", with_), f" {ms1:.1f} ms/frame")
    print(f"load average at end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
