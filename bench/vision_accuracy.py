"""Reader accuracy: the real webcam-d6 photos and large rendered sets (every dice set, both mounts).

Prints, per set: per-die accuracy, right-and-certain rate, uncertain rate, silent error rate (wrong and
reported certain), missed and phantom dice, colour accuracy (renders). Photos are scored by matching each
labelled centre to the nearest reading (their boxes enclose the top face's pips).

    .venv/bin/python bench/vision_accuracy.py [--frames N] [--photos PATH] [--sets d6,dicethrone:barbarian,...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from device.dice_sets import spec  # noqa: E402
from vision.reader import read_dice  # noqa: E402
from vision.render import ground_truth, random_dice, render_tray  # noqa: E402
from vision.scoring import Score, score, yolo_truth  # noqa: E402

DEFAULT_PHOTOS = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "webcam-d6"
SETS = ["d6", "dicethrone:barbarian", "dicethrone:gunslinger"]  # ids resolved through the games' descriptions
BACKGROUNDS = ["wood", "felt", "white", "grey", "black", "blue", "red"]
LIGHTS = ["neutral", "warm", "cold", "dim", "glare"]


def photos(root: Path) -> tuple[Score, int, int, list[float]]:
    total = Score()
    images = sorted((root / "images").glob("*.jpg"))
    multiset_ok = 0
    ms = []
    for img in images:
        frame = cv2.imread(str(img))
        if frame is None:
            continue
        h, w = frame.shape[:2]
        truth = yolo_truth(root / "labels" / f"{img.stem}.txt", w, h)
        t0 = time.perf_counter()
        readings = read_dice(frame, "d6", "over")
        ms.append((time.perf_counter() - t0) * 1000)
        radius = max(40.0, 0.9 * max((max(g["size"]) for g in truth), default=40.0))
        total.add(score(truth, readings, radius, tag=img.stem))
        got = sorted(r.value for r in readings if r.certain)
        multiset_ok += int(got == sorted(g["value"] for g in truth))
    return total, multiset_ok, len(images), ms


def renders(set_id: str, mount: str, frames: int, seed: int = 1) -> Score:
    dice_set = spec(set_id)
    rng = np.random.default_rng(seed)
    total = Score()
    for i in range(frames):
        n = int(rng.integers(1, 9))
        dice = random_dice(rng, n, dice_set=dice_set, size=(30, 90))
        bg = BACKGROUNDS[i % len(BACKGROUNDS)] if mount == "over" else None
        frame = render_tray(dice, mount=mount, background=bg, lighting=LIGHTS[i % len(LIGHTS)], seed=i,
                            room_seed=i // 5, noise=float(rng.uniform(2, 7)))
        total.add(score(ground_truth(dice, mount), read_dice(frame, dice_set, mount), radius=30,
                        tag=f"{set_id} {mount} #{i}"))
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=40, help="rendered frames per set and mount (1-8 dice each)")
    ap.add_argument("--photos", type=Path, default=DEFAULT_PHOTOS)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--no-photos", action="store_true")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    print("dicesight vision accuracy (acc = right value; certain-right = right and reported certain;")
    print("silent = wrong AND certain; uncertain = flagged for the player to confirm)")
    if not args.no_photos and (args.photos / "images").is_dir():
        s, mset, n, ms = photos(args.photos)
        print(s.line("photos webcam-d6 (over)"))
        print(f"{'':28} images {n}, all certain values right per image: {100.0 * mset / max(n, 1):.1f}%, "
              f"read time median {np.median(ms):.1f} ms")
    for ds in args.sets.split(","):
        for mount in ("over", "under"):
            s = renders(ds, mount, args.frames)
            print(s.line(f"render {ds} ({mount})"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
