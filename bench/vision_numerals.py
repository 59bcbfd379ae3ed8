"""Reading numeral dice (Mage Wars' d12 effect die and its kin) on real photos and on renders; prints figures.

The reader joins two readers of numeral faces: drawn templates (`vision/faces.py`) and a CNN
(`vision/numerals.py`, trained by `training/numerals.py`). `--reader` measures either alone or both joined
(the reader's own way).

Real photos:
- ../shared/datasets/d20-numerals: single d20s photographed from above (MIT labels over CC0 photos by Mario
  Lurig, relabelled by rsandrini; see that folder's LICENSE and SOURCE.txt). The CNN trained on most of its
  "train" photos: only the held-back ones (its "test" split and every fifth train photo, as
  training/numerals.py holds them back) are measured, and they calibrated the CNN's certainty;
- ../shared/datasets/polyhedral-numerals: one numeral die per photo in a black tray, d12 and d20 used here
  (burksbuilds/dicetower-dev, MIT; see that folder's LICENSE and SOURCE.txt). Never trained on.
Renders: the d12 effect die (engine/magewars describes it) alone and thrown with attack dice, both mounts
(seeds 0..N-1: the CNN's training renders come from other random streams).

For each die, the reading nearest its labelled centre (within its box): right (certain, the label), uncertain
(flagged for the players), silent (certain and wrong: the figure that must stay near 0) and missed (no
reading there). Certain readings elsewhere in a photo are counted apart (phantom).

    python bench/vision_numerals.py [--limit N] [--reader both|templates|cnn]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Run as a script, bench/ is sys.path[0], where bench/engine.py would shadow the engine package.
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    sys.path[0] = str(REPO)

import cv2  # noqa: E402
import numpy as np  # noqa: E402

import vision.faces  # noqa: E402
from engine.games import get_rules  # noqa: E402
from training.data import datasets_root  # noqa: E402
from vision.mixed import read_mixed  # noqa: E402
from vision.reader import face_reader, read_dice  # noqa: E402
from vision.render import DieSpec, ground_truth, render_tray  # noqa: E402

DATA = datasets_root()


def numerals(n: int, shape: str) -> dict:
    return {"id": f"d{n}", "name": {"en": f"d{n}"}, "kind": "numerals", "shape": shape,
            "faces": [{"index": i, "name": str(i), "value": i, "glyph": f"text:{i}"} for i in range(1, n + 1)],
            "opposite": {str(i): n + 1 - i for i in range(1, n + 1)}}


class Tally:
    def __init__(self, name: str) -> None:
        self.name, self.dice, self.right, self.uncertain, self.silent, self.missed, self.ms = name, 0, 0, 0, 0, 0, []
        self.guess_right, self.phantom = 0, 0

    def add(self, readings: list, truth: str | None, ms: float, at: tuple[float, float, float] | None = None) -> None:
        """`at` (cx, cy, radius): the labelled die; the reading nearest it within the radius is its reading."""
        self.dice += 1
        self.ms.append(ms)
        if at is not None:
            cx, cy, rad = at
            near = [r for r in readings if np.hypot(r.center[0] - cx, r.center[1] - cy) < rad]
            self.phantom += sum(r.certain for r in readings if r not in near)
            readings = sorted(near, key=lambda r: np.hypot(r.center[0] - cx, r.center[1] - cy))[:1]
        if not readings:
            self.missed += 1
            return
        best = max(readings, key=lambda r: r.confidence)
        if best.face == truth and best.certain:
            self.right += 1
        elif not best.certain:  # the players are asked; a right best guess is only shown to them
            self.uncertain += 1
            self.guess_right += best.face == truth
        else:
            self.silent += 1

    def line(self) -> str:
        n = max(self.dice, 1)
        return (f"{self.name:<34} dice {self.dice:4d}  right {100 * self.right / n:5.1f}%  uncertain "
                f"{100 * self.uncertain / n:5.1f}% (best guess right {100 * self.guess_right / n:4.1f}%)  silent {100 * self.silent / n:4.1f}%  missed "
                f"{100 * self.missed / n:4.1f}%  phantom {self.phantom:3d}  median {np.median(self.ms) if self.ms else 0:6.1f} ms")


def photos(folder: str, dies: set[str], limit: int, held_back: bool = False) -> list[tuple[Path, str, str, tuple]]:
    """(image, die, value, (cx, cy, radius)); `held_back`: only the photos training/numerals.py holds back."""
    out = []
    for i, label in enumerate(sorted((DATA / folder / "labels").glob("*.json"))):
        data = json.loads(label.read_text())
        if len(data["dice"]) != 1 or data["dice"][0]["die"] not in dies:
            continue
        if held_back and not (data.get("split") == "test" or i % 5 == 0):
            continue
        image = DATA / folder / "images" / (label.stem + ".jpg")
        d = data["dice"][0]
        if image.exists():
            out.append((image, d["die"], str(d["value"]), (d["cx"], d["cy"], 0.6 * max(d["w"], d["h"]))))
    step = max(1, len(out) // limit) if limit else 1
    return out[::step]


def bench_photos(limit: int) -> list[Tally]:
    sets = {"d20": numerals(20, "triangle"), "d12": numerals(12, "pentagon")}
    tallies = []
    for folder, dies, held in (("d20-numerals", {"d20"}, True), ("polyhedral-numerals", {"d12", "d20"}, False)):
        tally = Tally(f"photos {folder}{' held back' if held else ''} (over)")
        for image, die, value, at in photos(folder, dies, limit, held):
            frame = cv2.imread(str(image))
            t0 = time.perf_counter()
            readings = read_dice(frame, sets[die], "over")
            tally.add(readings, value, 1000 * (time.perf_counter() - t0), at)
        tallies.append(tally)
    return tallies


# where the rendered d12 lies: off the frame's centre, where a reading from below is never certain (the plate
# mirrors the lens there: `reader.on_lens`); at the centre every d12 under the tray was read unsure
D12_AT = (400.0, 250.0)


def bench_renders(count: int) -> list[Tally]:
    desc = get_rules("magewars").describe()["dice_sets"]
    d12, attack = desc["d12"], desc["magewars-attack"]
    tallies = []
    for mount in ("under", "over"):
        alone, mixed = Tally(f"render d12 alone ({mount})"), Tally(f"render d12 thrown with attack dice ({mount})")
        for seed in range(count):
            rng = np.random.default_rng(seed)
            die = DieSpec(*D12_AT, float(rng.uniform(50, 70)), float(rng.uniform(0, 360)),
                          int(rng.integers(1, 13)), d12, str(rng.choice(["blue", "red", "white", "black"])))
            frame = render_tray([die], mount=mount, seed=seed)
            truth = ground_truth([die], mount)[0]["face"]
            t0 = time.perf_counter()
            alone.add(read_dice(frame, d12, mount), truth, 1000 * (time.perf_counter() - t0))
            others = [DieSpec(x, y, 60, float(rng.uniform(0, 90)), int(rng.integers(1, 7)), attack, "ivory")
                      for x, y in ((110, 110), (530, 110), (110, 370))]
            frame = render_tray([die, *others], mount=mount, seed=seed)
            t0 = time.perf_counter()
            found = [r for r in read_mixed(frame, {"magewars-attack": attack, "d12": d12}, mount)
                     if r.set == "d12" and math.dist(r.center, D12_AT) < 40]
            mixed.add(found, truth, 1000 * (time.perf_counter() - t0))
        tallies += [alone, mixed]
    return tallies


def bench_speed(count: int) -> str:
    """ms of one core per d12 read alone under the tray with the learned background (the box's case), with
    and without the CNN, interleaved frame by frame (the load of a shared machine hits both alike)."""
    d12 = get_rules("magewars").describe()["dice_sets"]["d12"]
    fr = face_reader(d12, "under")
    cnn = fr._numeral_cnn
    times: dict[bool, list[float]] = {False: [], True: []}
    for seed in range(count):
        rng = np.random.default_rng(10_000 + seed)
        die = DieSpec(*D12_AT, float(rng.uniform(40, 80)), float(rng.uniform(0, 360)),
                      int(rng.integers(1, 13)), d12, str(rng.choice(["blue", "red", "white", "black"])))
        frame = render_tray([die], mount="under", seed=seed, room_seed=seed)
        empty = render_tray([], mount="under", seed=seed + 7919, room_seed=seed)
        for with_cnn in (False, True, False, True):
            fr._numeral_cnn = cnn if with_cnn else None
            t0 = time.perf_counter()
            read_dice(frame, d12, "under", background=empty)
            times[with_cnn].append(1000 * (time.perf_counter() - t0))
    fr._numeral_cnn = cnn
    return (f"speed, one d12 under the tray with the learned background ({count} frames, median ms): templates "
            f"alone {np.median(times[False]):.2f}, with the CNN {np.median(times[True]):.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=0, help="at most about N photos per dataset (0: all)")
    ap.add_argument("--renders", type=int, default=60, help="rendered throws per mount")
    ap.add_argument("--speed", type=int, default=0, help="also time N frames of one d12, with and without the CNN")
    ap.add_argument("--reader", choices=("both", "templates", "cnn"), default="both",
                    help="numeral faces read by both joined (the reader's way), the templates alone or the CNN alone")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    if args.reader == "templates":
        vision.faces.numeral_classifier = lambda: None
    elif args.reader == "cnn":  # the templates read nothing: the reader asks the CNN of every die
        vision.faces.FaceReader._read_numeral = lambda self, *a, **k: (None, 0.1)
        vision.faces.FaceReader._read_icon = lambda self, *a, **k: (None, 0.1)
    for tally in bench_photos(args.limit) + bench_renders(args.renders):
        if tally.dice:
            print(tally.line(), flush=True)
    if args.speed:
        print(bench_speed(args.speed))


if __name__ == "__main__":
    main()
