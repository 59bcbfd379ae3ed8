"""Do two versions of the reader read alike? Writes every reading of a fixed set of frames to a JSON file, or
compares the readings of this tree with such a file.

    .venv/bin/python bench/vision_same.py --out build/readings-before.json      # on the code before a change
    .venv/bin/python bench/vision_same.py --compare build/readings-before.json  # on the code after it

Why: a change made for speed must not change what the box reads; the accuracy benches score readings, so a
change that moves one die right and another wrong can leave their figures as they were. This compares the
readings themselves (value, face, colour, certainty, box, confidence to 1e-4).

Frames: renders of every dice set the games describe (vision/render.py), under the tray with the room learned
from an empty frame (as the box reads), under it without, and from above on a floor; and real photos of
webcam-d6 (MIT, matteop65/Dice_Detection_Recognition) and roboflow-d6 (CC BY 4.0, Epanemu/GameDiceRecognition,
Roboflow export) from ../shared/datasets, read with the shipped models. `--blender SEEDS` adds the d6 frames
Blender rendered from below (`training.blender_undertray_canvases`), read with the room learnt from each
frame's empty tray and without: the frames the reader's figures come from, with their grain and glare.
Prints counts; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from device.dice_sets import ids, spec  # noqa: E402
from training.data import load_photos  # noqa: E402
from vision.reader import read_dice  # noqa: E402
from vision.render import random_dice, render_tray  # noqa: E402

BACKGROUNDS = ["wood", "felt", "white", "grey", "black", "blue", "red"]
LIGHTS = ["neutral", "warm", "cold", "dim", "glare"]
MOUNTS = (("under", True), ("under", False), ("over", False))


def reading_rows(readings) -> list[list]:
    return [[r.value, r.face, r.colour, r.certain, list(r.box), round(float(r.confidence), 4)] for r in readings]


def render_readings(seeds: list[int], frames: int) -> dict[str, list]:
    """Every dice set, each mount, `frames` frames a seed (1 to 6 dice of 30-90 px, the set's colours)."""
    out: dict[str, list] = {}
    for seed in seeds:
        for set_id in ids():
            dice_set = spec(set_id)
            for mount, learned in MOUNTS:
                rng = np.random.default_rng([seed, len(out)])
                for i in range(frames):
                    dice = random_dice(rng, int(rng.integers(1, 7)), dice_set=dice_set, size=(30, 90),
                                       colours=dice_set.get("colours") or None)
                    bg = BACKGROUNDS[i % len(BACKGROUNDS)] if mount == "over" else None
                    light = LIGHTS[i % len(LIGHTS)]
                    frame = render_tray(dice, mount=mount, background=bg, lighting=light, seed=i, room_seed=i)
                    empty = render_tray([], mount=mount, background=bg, lighting=light, seed=i + 7919,
                                        room_seed=i) if learned else None
                    key = f"{set_id} {mount}{' learned' if learned else ''} seed {seed} #{i}"
                    out[key] = reading_rows(read_dice(frame, dice_set, mount, background=empty))
    return out


def photo_readings(every: int) -> dict[str, list]:
    """One photo in `every` of each real dataset, read from above as `dicesight read` reads it."""
    out: dict[str, list] = {}
    for name in ("webcam-d6", "roboflow-d6"):
        for p in load_photos(name)[::every]:
            img = cv2.imread(str(p.path))
            out[f"{name}/{p.path.name}"] = reading_rows(read_dice(img, "d6", "over"))
    return out


def blender_readings(seeds: str) -> dict[str, list]:
    """The d6 frames from below of the Blender seeds `seeds` that are rendered, each read with its empty tray
    as the room and without one."""
    from training.blender_canvases import seed_list
    from training.blender_undertray_canvases import FRAMES as RENDERS
    from training.blender_undertray_canvases import camera_frame
    from training.blender_undertray_factors import read_rows, seed_kind
    out: dict[str, list] = {}
    for seed in seed_list(seeds):
        folder = RENDERS / f"s{seed}"
        if seed_kind(seed) not in ("d6", "table") or not (folder / "labels.jsonl").exists():
            continue
        for row in read_rows(folder):
            frame, empty = camera_frame(folder, row), camera_frame(folder, row, empty=True)
            if frame is None or empty is None:
                continue
            for room in (empty, None):
                key = f"blender s{seed} #{row['index']}{' learned' if room is not None else ''}"
                out[key] = reading_rows(read_dice(frame, "d6", "under", background=room))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write the readings here")
    ap.add_argument("--compare", type=Path, help="compare this tree's readings with this file")
    ap.add_argument("--seeds", default="1,2", help="render seeds (comma-separated)")
    ap.add_argument("--frames", type=int, default=10, help="frames per set, mount and seed")
    ap.add_argument("--photo-every", type=int, default=8, help="one photo in this many (0: no photos)")
    ap.add_argument("--blender", default="", help="also Blender's d6 frames from below of these seeds")
    args = ap.parse_args()
    if not args.out and not args.compare:
        ap.error("say --out FILE or --compare FILE")
    cv2.setNumThreads(1)
    t0 = time.process_time()
    now = render_readings([int(s) for s in args.seeds.split(",")], args.frames)
    if args.photo_every:
        now |= photo_readings(args.photo_every)
    if args.blender:
        now |= blender_readings(args.blender)
    dice = sum(len(v) for v in now.values())
    print(f"{len(now)} frames, {dice} readings, {time.process_time() - t0:.0f} CPU s "
          f"(load {os.getloadavg()[0]:.1f})")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(now, indent=0))
    if args.compare:
        before = json.loads(args.compare.read_text())
        differ = [k for k in sorted(set(before) | set(now)) if before.get(k) != now.get(k)]
        for k in differ[:20]:
            print(f"  {k}:\n    before {before.get(k)}\n    now    {now.get(k)}")
        tally: dict[str, int] = {}
        for k in differ:  # by set and mount ("d12 under learned"), or by dataset for photos
            sep = " seed " if " seed " in k else " #" if " #" in k else "/"
            group = k.split(sep)[0]
            tally[group] = tally.get(group, 0) + 1
        for group, n in sorted(tally.items(), key=lambda kv: -kv[1]):
            print(f"  {n:4d} frames differ: {group}")
        print(f"{len(differ)} of {len(now)} frames read differently")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
