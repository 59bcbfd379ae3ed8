"""The finder alone: does a candidate box land on every die, and how many boxes does the classifier pay for?

    nice -n 10 env OMP_NUM_THREADS=1 .venv/bin/python bench/vision_finder.py [--models DIR] [--limit N]

Datasets: the real photos in ../shared/datasets (roboflow-d6: CC BY 4.0, Epanemu/GameDiceRecognition via
Roboflow; webcam-d6: MIT, matteop65/Dice_Detection_Recognition), read from above with no learned background,
and renders of pip d6 under the tray (with and without the learned empty-tray background) and over it.

A labelled die is *found* when some candidate's centre lies inside the die's box and the candidate's side is
0.6-1.6x the die's side (sides: the larger of width and height of axis-aligned boxes; webcam-d6 labels box
only the pips, and its die sides are estimated from them (training/data.py), so read its any-size recall).
Columns:
- recall: found dice (and found whatever the candidate's size; and by the cue that found them: `outline`, the
  foreground against a fitted or learned floor; `pips`, clusters of pips); precision: candidates that find
  some die (several candidates per die are the classifier's to sort out, so this is low by design);
  cands/photo; CPU ms/photo (the finder only, one thread);
- then the dice the whole reader misses (no reading within half a die side of its centre, after the enlarged
  second look; close to the accuracy bench's `missed`), and why: `finder` (no candidate centred on the die,
  whatever its size), `none` (the classifier called every candidate on it "not a die"), `later` (a face was
  named, but the reader kept no reading there: suppressed by another box, or too unsure);
- recall by die side (px) and by die body (dark / mid / light lightness, and its colour name).
Photos use the cross-validation models (a photo is classified by the fold model that never saw it, and its
dice found by the learned finder's fold model that never saw it: build/finder-models/cv<k>, from
`python -m training.train_finder --suite`; `--finder-models none`: the hand-made cues alone); renders the
shipped models. `learned finder alone` lines: the learned finder's own boxes (above its threshold), their recall
and precision (here a box that finds no die is a phantom the classifier must reject). Prints figures; asserts
nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from training.data import load_photos  # noqa: E402
from training.splits import FOLDS, fold_of  # noqa: E402
from vision.classify import FaceClassifier  # noqa: E402
from vision.classify import load as load_classifier  # noqa: E402
from vision.detector import DieDetector  # noqa: E402
from vision.detector import load as load_detector  # noqa: E402
from vision.faces import classify_colour  # noqa: E402
from vision.finder import body_colour  # noqa: E402
from vision.reader import find_candidates, read_dice  # noqa: E402
from vision.render import random_dice, render_tray  # noqa: E402

MODELS = Path(__file__).resolve().parents[1] / "build" / "reader-models"
FINDERS = Path(__file__).resolve().parents[1] / "build" / "finder-models"
SIDES = (0, 25, 50, 10_000)
BACKGROUNDS = ["wood", "felt", "white", "grey", "black", "blue", "red"]
LIGHTS = ["neutral", "warm", "cold", "dim", "glare"]


def found_by(truth: tuple[float, float, float, float], boxes: list[tuple[float, float, float, float]]) -> list[int]:
    """Indices of the candidate boxes that find the die `truth` (cx, cy, w, h)."""
    cx, cy, w, h = truth
    side = max(w, h)
    return [i for i, (bx, by, bw, bh) in enumerate(boxes)
            if abs(bx - cx) <= 0.5 * w and abs(by - cy) <= 0.5 * h and 0.6 * side <= max(bw, bh) <= 1.6 * side]


class Tally:
    def __init__(self) -> None:
        self.dice = self.found = self.near = self.cands = self.useful = self.frames = 0
        self.src: dict[str, int] = defaultdict(int)
        self.lost: dict[str, int] = defaultdict(int)
        self.by: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        self.ms: list[float] = []

    def line(self, name: str) -> str:
        n = max(self.dice, 1)
        lost = "  ".join(f"{k} {100 * self.lost[k] / n:5.2f}%" for k in ("finder", "none", "later", "missed"))
        src = " ".join(f"{k} {100 * v / n:.1f}%" for k, v in sorted(self.src.items()))
        return (f"{name:<24} dice {self.dice:5d}  recall {100 * self.found / n:6.2f}% (any size "
                f"{100 * self.near / n:5.1f}%; by source: {src})  precision "
                f"{100 * self.useful / max(self.cands, 1):5.1f}%  cands/photo {self.cands / max(self.frames, 1):5.1f}"
                f"  {np.median(self.ms) if self.ms else 0:6.1f} CPU ms/photo  | lost: {lost}")

    def buckets(self) -> str:
        parts = []
        for k in sorted(self.by, key=_bucket_order):
            n, f = self.by[k]
            parts.append(f"{k} {100 * f / max(n, 1):5.1f}% of {n}")
        return "    " + "  ".join(parts)


def _bucket_order(k: str) -> tuple[int, str]:
    if k.startswith("side"):
        return (0, f"{int(k.split()[1].split('-')[0]):05d}")
    return (1 if k in ("dark", "mid", "light") else 2, k)


def side_bucket(side: float) -> str:
    for lo, hi in zip(SIDES, SIDES[1:], strict=False):
        if side < hi:
            return f"side {lo}-{hi if hi < 10_000 else ''}"
    return "side ?"


def body_of(img: np.ndarray, box: tuple[float, float, float, float]) -> tuple[str, str]:
    """(dark/mid/light, colour name) of the die's body: the median of its middle (pips are a minority)."""
    bgr = body_colour(img, box)
    lum = float(cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2Lab)[0, 0, 0])
    return ("dark" if lum < 90 else "light" if lum > 170 else "mid"), classify_colour(bgr)


def count_die(t: Tally, die: tuple[float, float, float, float], boxes: list, useful: set[int]) -> list[int]:
    """Count one labelled die as found (some box finds it) or near (a box's centre is on it); the boxes that
    find it are added to `useful` and returned."""
    hits = found_by(die, boxes)
    useful.update(hits)
    t.dice += 1
    t.found += bool(hits)
    t.near += any(abs(b[0] - die[0]) <= 0.5 * die[2] and abs(b[1] - die[1]) <= 0.5 * die[3] for b in boxes)
    return hits


def learned_alone(t: Tally, img: np.ndarray, truth: list[tuple[float, float, float, float]],
                  det: DieDetector) -> None:
    """The learned finder's own boxes: recall and precision (a box is useful when it finds some die)."""
    t0 = time.thread_time()
    boxes = [d.box for d in det.detect(img)]
    t.ms.append((time.thread_time() - t0) * 1000)
    t.frames += 1
    t.cands += len(boxes)
    useful: set[int] = set()
    for die in truth:
        hits = count_die(t, die, boxes, useful)
        t.by[side_bucket(max(die[2:]))][0] += 1
        t.by[side_bucket(max(die[2:]))][1] += bool(hits)
    t.useful += len(useful)


def measure(t: Tally, img: np.ndarray, truth: list[tuple[float, float, float, float]], mount: str,
            background: np.ndarray | None, clf: FaceClassifier | None, with_reader: bool,
            det: DieDetector | None = None) -> None:
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2Lab) if background is None else None
    t0 = time.thread_time()
    cands, _ = find_candidates(img, lab, mount, background, det if background is None else None)
    t.ms.append((time.thread_time() - t0) * 1000)
    boxes = [c.box for c in cands]
    preds = clf.predict(img, boxes) if clf is not None and boxes else []
    none = clf.classes.index("none") if clf is not None else -1
    readings = read_dice(img, "d6", mount, background=background, classifier=clf, detector=det) \
        if with_reader else []
    t.frames += 1
    t.cands += len(boxes)
    useful: set[int] = set()
    for die in truth:
        hits = count_die(t, die, boxes, useful)
        for src in {cands[i].source for i in hits}:
            t.src[src] += 1
        for key in (side_bucket(max(die[2:])), *body_of(img, die)):
            t.by[key][0] += 1
            t.by[key][1] += bool(hits)
        half = 0.5 * max(die[2:])
        read = any(math.hypot(r.center[0] - die[0], r.center[1] - die[1]) <= half for r in readings)
        if with_reader and not read:
            # why the reader kept no reading on this die: no candidate on it (whatever its size), every
            # candidate on it called "not a die", or something later (suppressed, too unsure)
            on = [i for i, b in enumerate(boxes) if abs(b[0] - die[0]) <= 0.5 * die[2] and
                  abs(b[1] - die[1]) <= 0.5 * die[3]]
            t.lost["missed"] += 1
            t.lost["finder" if not on else "none" if all(preds[i].index == none for i in on) else "later"] += 1
    t.useful += len(useful)


def fold_detectors(finders: Path | None, prefix: str = "cv") -> dict:
    """The learned finder's fold models by fold (`prefix` "cv": {k: cv<k>}; "lodo-": {dataset: lodo-<dataset>})."""
    if finders is None:
        return {}
    names = {k: f"cv{k}" for k in range(FOLDS)} if prefix == "cv" else \
        {p.stem[len(prefix):]: p.stem for p in sorted(finders.glob(f"{prefix}*.onnx"))}
    return {k: DieDetector(finders / f"{n}.onnx", json.loads((finders / f"{n}.json").read_text()))
            for k, n in names.items()}


def photos(name: str, models: Path, limit: int | None, with_reader: bool,
           finders: Path | None) -> tuple[Tally, Tally]:
    cv = {k: FaceClassifier(models / f"cv{k}.onnx", json.loads((models / f"cv{k}.json").read_text()))
          for k in range(FOLDS)}
    dets = fold_detectors(finders)
    t, alone = Tally(), Tally()
    for ph in load_photos(name)[:limit]:
        img = cv2.imread(str(ph.path))
        if img is not None:
            det = dets.get(fold_of(ph))
            truth = [d.box for d in ph.dice]
            measure(t, img, truth, "over", None, cv[fold_of(ph)], with_reader, det)
            if det is not None:
                learned_alone(alone, img, truth, det)
    return t, alone


def renders(mount: str, learned: bool, frames: int, with_reader: bool, size: tuple[float, float],
            use_detector: bool) -> Tally:
    rng = np.random.default_rng(1)
    clf = load_classifier("pips")
    det = load_detector() if use_detector else None
    t = Tally()
    for i in range(frames):
        dice = random_dice(rng, int(rng.integers(1, 7)), dice_set="d6", size=size)
        bg = BACKGROUNDS[i % len(BACKGROUNDS)] if mount == "over" else None
        light = LIGHTS[i % len(LIGHTS)]
        frame = render_tray(dice, mount=mount, background=bg, lighting=light, seed=i, room_seed=i)
        empty = render_tray([], mount=mount, background=bg, lighting=light, seed=i + 7919, room_seed=i) \
            if learned else None
        # the axis-aligned box of the die turned on the tray
        truth = []
        for d in dice:
            a = math.radians(d.angle)
            s = d.size * (abs(math.cos(a)) + abs(math.sin(a)))
            truth.append((float(d.x), float(d.y), s, s))
        measure(t, frame, truth, mount, empty, clf, with_reader, det)
    return t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, default=MODELS, help="folder of the cross-validation models (cv<k>)")
    ap.add_argument("--limit", type=int, default=None, help="photos per dataset (default: all)")
    ap.add_argument("--frames", type=int, default=60, help="rendered frames per mount")
    ap.add_argument("--no-reader", action="store_true", help="skip the whole reader (no 'later'/'missed')")
    ap.add_argument("--photo-sets", default="roboflow-d6,webcam-d6")
    ap.add_argument("--no-renders", action="store_true")
    ap.add_argument("--finder-models", default=str(FINDERS),
                    help="folder of the learned finder's fold models (cv<k>), or 'none' (hand-made cues alone)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    rd = not args.no_reader
    finders = None if args.finder_models == "none" else Path(args.finder_models)
    print(f"learned finder: {finders or 'none (hand-made cues alone)'}")
    for name in [s for s in args.photo_sets.split(",") if s]:
        t, alone = photos(name, args.models, args.limit, rd, finders)
        print(t.line(name))
        print(t.buckets())
        if alone.frames:
            print(alone.line("  learned finder alone"))
            print(alone.buckets())
    if args.no_renders:
        return 0
    for mount, learned, size in (("under", True, (16, 90)), ("under", False, (30, 90)), ("over", False, (30, 90))):
        t = renders(mount, learned, args.frames, rd, size, finders is not None)
        print(t.line(f"renders {mount}{' learned bg' if learned else ''}"))
        print(t.buckets())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
