"""Are the d6 dice from below the face network is sure and wrong of the ones under the LED ring's mirror
image?

    .venv/bin/python bench/vision_undertray_spots.py --seeds 1079-1106,1108,1131-1184 [--wide-tophat 21]

Given each die's true box (the finder's part taken out, the network's turns as the reader takes them), the
dice are parted by whether the learned room's reflection spots (`vision.reflections.reflection_spots` of the
frame's empty tray) fall in the middle 80% of the box, and each part is counted certain and right, certain and
wrong at the shipped level and at stricter levels for the dice under spots. Why: the dice a person sees read
wrong and sure from below often lie under a ring of bright spots the plate mirrors (docs/dice-sets.md, 53rd
session); a stricter level there would be a cheap rule, if the spot finder found those dice. The same dice by
their distance from the frame's middle too, where the mirror image of the whole ring round the lens lies, and
(`--wide-tophat K`) by whether a top-hat of K px of the empty tray passes 30 grey levels over a fifth of the
box's middle (the ring's whole image is wider than an LED's spot). Printed, never asserted.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vision_undertray as vu  # noqa: E402

from training.blender_canvases import seed_list  # noqa: E402
from vision.reflections import reflection_spots  # noqa: E402

MIDDLE = 0.4   # half the side of the box's middle looked at for spots, in box sides
LEVELS = (0.95, 0.97, 0.99, 0.995)
NEAR_MIDDLE = (0.25, 0.5, 1.0)   # distances from the frame's middle, in die sides
WIDE_LEVEL, WIDE_SHARE = 30, 0.2


def wide_tophat(empty: np.ndarray, side: int) -> np.ndarray:
    """1 where the empty tray's top-hat of `side` px passes WIDE_LEVEL (0 everywhere for side 0)."""
    if not side:
        return np.zeros(empty.shape[:2], np.uint8)
    grey = cv2.cvtColor(cv2.medianBlur(empty, 3), cv2.COLOR_BGR2GRAY)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))
    return (cv2.morphologyEx(grey, cv2.MORPH_TOPHAT, kernel) > WIDE_LEVEL).astype(np.uint8)


def share_in_middle(mask: np.ndarray, box: tuple, middle: float = 0.3) -> float:
    """The share of the box's middle (`middle` of its sides each way) that `mask` marks."""
    cx, cy, w, h = box
    x0, y0 = max(0, int(cx - middle * w)), max(0, int(cy - middle * h))
    part = mask[y0:int(cy + middle * h), x0:int(cx + middle * w)]
    return float(part.mean()) if part.size else 0.0


def spots_in_middle(spots: np.ndarray, box: tuple) -> int:
    """Spot pixels in the middle of the box (cx, cy, w, h)."""
    cx, cy, w, h = box
    x0, x1 = max(0, int(cx - MIDDLE * w)), int(cx + MIDDLE * w)
    y0, y1 = max(0, int(cy - MIDDLE * h)), int(cy + MIDDLE * h)
    return int(spots[y0:y1, x0:x1].sum())


class Die(NamedTuple):
    """One d6 die from below as the network read it at its true box, and where it lies."""
    under_spots: bool
    right: bool
    confidence: float
    turns_sure: bool      # sure by the turns' mean (`Prediction.turns_sure`)
    off_middle: float     # distance from the frame's middle, in die sides
    on_wide_tophat: bool

    def sure(self, level: float, shipped: float) -> bool:
        """Certain at `level`; the turns' mean makes a die sure only at the shipped level."""
        return self.confidence >= level or (self.turns_sure and level <= shipped)


def dice_read(seeds: str, wide: int = 0) -> list[Die]:
    """Every d6 die of `seeds`, read by the shipped network at its true box."""
    clf = vu.classifier_for(vu.get_set("d6"), "under")
    out = []
    for s in seed_list(seeds):
        folder = vu.FRAMES / f"s{s}"
        for row in vu.read_rows(folder):
            img, empty = vu.camera_frame(folder, row), vu.camera_frame(folder, row, empty=True)
            if img is None or empty is None or row.get("cut"):
                continue
            spots, ring = reflection_spots(empty).max(2) > 0, wide_tophat(empty, wide)
            (W, H), boxes = row["size"], [tuple(d["box"]) for d in row["dice"]]
            for box, d, p in zip(boxes, row["dice"], clf.predict(img, boxes, turns=True), strict=True):
                off = math.hypot(box[0] - W / 2, box[1] - H / 2) / max(box[2], box[3])
                out.append(Die(spots_in_middle(spots, box) > 0, p.index + 1 == int(d["glass"]), p.confidence,
                               p.turns_sure, off, share_in_middle(ring, box) > WIDE_SHARE))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", required=True)
    ap.add_argument("--wide-tophat", type=int, default=0, metavar="K",
                    help="also part the dice by a top-hat of K px of the empty tray")
    args = ap.parse_args()
    dice = dice_read(args.seeds, args.wide_tophat)
    shipped = vu.classifier_for(vu.get_set("d6"), "under").certain_at
    for under in (False, True):
        part = [d for d in dice if d.under_spots == under]
        right = sum(d.right for d in part)
        for level in LEVELS if under else (shipped,):
            sure_right = sum(d.right and d.sure(level, shipped) for d in part)
            sure_wrong = sum(not d.right and d.sure(level, shipped) for d in part)
            print(f"{'under spots' if under else 'no spots':<11} dice {len(part):5d}  right "
                  f"{100 * right / max(len(part), 1):6.2f}%  at level {level:.3f}: certain and right "
                  f"{sure_right:5d}, certain and wrong {sure_wrong:3d}")
    groups = [(f"within {r:g} sides of the middle", lambda d, r=r: d.off_middle < r) for r in NEAR_MIDDLE]
    if args.wide_tophat:
        groups.append((f"on the {args.wide_tophat} px top-hat", lambda d: d.on_wide_tophat))
    for name, near in groups:
        print(group_line(name, [d for d in dice if near(d)], [d for d in dice if not near(d)], shipped))
    return 0


def group_line(name: str, inside: list[Die], outside: list[Die], level: float) -> str:
    """Dice, right, and certain (right / wrong) at the shipped level in a group and outside it."""
    def count(dice: list[Die], right: bool) -> int:
        return sum(1 for d in dice if d.sure(level, level) and d.right == right)

    right = 100 * sum(d.right for d in inside) / max(len(inside), 1)
    elsewhere = count(outside, True) + count(outside, False)
    return (f"{name:<32} dice {len(inside):5d}  right {right:6.2f}%  certain and right "
            f"{count(inside, True):5d}, certain and wrong {count(inside, False):3d};  elsewhere certain and "
            f"wrong {count(outside, False)} of {elsewhere}")


if __name__ == "__main__":
    raise SystemExit(main())
