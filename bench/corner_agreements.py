"""How often the two judges of a numbered die agree and are wrong: the templates' unsure readings beside their
corner number, at each level of the number's probability, on Blender's frames from below.

    .venv/bin/python bench/corner_agreements.py --seeds 402-404,408-431 --looks 0-3

Why: `vision.corner_numbers` makes an unsure die certain where the corner number agrees with the templates at
a level (`AGREED_AT`, `AGREED_APART_AT`); a level is chosen where no agreement above it was wrong on the dev
seeds, and judged on seeds read fresh. Every call of `with_corner_number` in a merged read (the frame with its
room and without, `bench/vision_undertray.py --modes merged`) is matched to the labelled die it lies on and
sorted by kind: the number names the templates' own face (exact) or another face that carries the same icon
on the glass (icon), in an outline shaped as one die (`find.die_shaped`) or another, or in a box only the
learned finder saw. Prints counts; asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import vision_undertray as bench  # noqa: E402

import vision.corner_numbers as cn  # noqa: E402
import vision.reader  # noqa: E402
from training.blender_canvases import seed_list  # noqa: E402
from training.blender_undertray_canvases import FRAMES, camera_frame  # noqa: E402
from training.blender_undertray_factors import read_rows  # noqa: E402
from vision.dicesets import DiceSet  # noqa: E402
from vision.find import die_shaped  # noqa: E402
from vision.reading import UNNAMED, Reading  # noqa: E402

LEVELS = (0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999)


class Calls:
    """`with_corner_number` as the reader calls it, each call kept: (templates' reading, number, p, where,
    set), where "finder's box", "one-die outline" (shaped as one die, `find.die_shaped`) or "other
    outline"."""

    def __init__(self) -> None:
        self.calls: list[tuple[Reading, int, float, str, DiceSet]] = []
        self._read = cn.CornerReader.read
        self._judge = cn.with_corner_number
        self._last: tuple[int, float] | None = None

    def install(self) -> None:
        def read(reader, img, rect, mirrored=False, nudge=True):
            self._last = self._read(reader, img, rect, mirrored, nudge)
            return self._last

        def judge(img, rect, r, ds, mount, named_anyway=False, outlined=True, contour=None, measured=False):
            self._last = None
            out = self._judge(img, rect, r, ds, mount, named_anyway, outlined, contour, measured)
            if self._last is not None and not r.certain and r.face != UNNAMED:
                self.calls.append((r, *self._last, where_read(outlined, contour), ds))
            return out

        cn.CornerReader.read = read
        vision.reader.with_corner_number = judge


def where_read(outlined: bool, contour) -> str:
    """Where a die was read: a box only the learned finder saw, or an outline shaped as one die or not."""
    if not outlined:
        return "finder's box"
    return "one-die outline" if contour is None or die_shaped(contour) else "other outline"


def kind(r: Reading, number: int, ds: DiceSet) -> str | None:
    """"exact" where the number names the templates' face, "icon" where another with its icon on the glass."""
    face = cn.top_face(ds, number, "under")
    if (face.name, face.value) == (r.face, r.value):
        return "exact"
    return "icon" if cn.same_icon(ds, r, number, "under") else None


def tally(seeds: str, looks: list[int], calls: Calls) -> Counter:
    """(kind, where, level, right) counts of the unsure readings' agreements on every frame of `seeds`."""
    counts: Counter = Counter()
    for look in looks:
        bench.LOOK = look
        for seed in seed_list(seeds):
            folder = FRAMES / f"s{seed}"
            for row in read_rows(folder):
                img = camera_frame(folder, row, look=look)
                empty = camera_frame(folder, row, empty=True, look=look)
                if img is None or empty is None or row.get("cut"):
                    continue
                ds = bench.set_of(row)
                calls.calls.clear()
                bench.read_frame(img, empty, "merged", bench.Models(), ds)
                radius = bench.radius_of(row)
                for r, number, p, where, dset in calls.calls:
                    die = min(row["dice"], key=lambda d: math.dist(d["center"], r.center))
                    agreed = kind(r, number, dset)
                    if agreed is None or math.dist(die["center"], r.center) > radius:
                        continue
                    right = cn.top_face(dset, number, "under").value == bench.truth_of(die, ds)["value"]
                    for level in LEVELS:
                        if p >= level:
                            counts[(agreed, where, level, right)] += 1
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="402-404,408-431",
                    help="Blender seeds of numbered dice (dev: 402-404, 408-431)")
    ap.add_argument("--looks", default="0", help="draws of each frame's sensor noise and JPEG, e.g. 0-3")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    calls = Calls()
    calls.install()
    counts = tally(args.seeds, seed_list(args.looks), calls)
    print(f"seeds {args.seeds}, looks {args.looks}: unsure readings whose corner number agrees, "
          "at p >= level")
    for agreed in ("exact", "icon"):
        for where in ("one-die outline", "other outline", "finder's box"):
            cells = [f"{lv}: {counts[(agreed, where, lv, True)]}/{counts[(agreed, where, lv, False)]}"
                     for lv in LEVELS]
            print(f"  {agreed:<5} {where:<15} (right/wrong) " + "  ".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
