"""Dice the set's data does not draw: each Dice Throne hero's dice read as another hero's set, under the tray
with a learned background, as the box reads. It stands in for a printing whose art differs from the drawn
templates (a reprint, or simply real dice against our drawings). The face names differ, so only values are
compared; any die read certain with a wrong value is a silent error (certain must mean right). Also prints
the heroes' own dice on the same frames.

    .venv/bin/python bench/vision_printings.py [--frames 12] [--step 1]

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from device.dice_sets import ids, spec  # noqa: E402
from vision.dicesets import get_set  # noqa: E402
from vision.reader import read_dice  # noqa: E402
from vision.render import random_dice, render_tray  # noqa: E402


def run(step: int, frames: int) -> tuple[int, int, int, int]:
    """(dice, read, certain, certain and wrong) of every hero's dice read as the hero `step` places on."""
    heroes = [i for i in ids() if i.startswith("dicethrone:")]
    dice_n = read_n = certain = wrong = 0
    for k, drawn in enumerate(heroes):
        look, read_as = get_set(spec(drawn)), spec(heroes[(k + step) % len(heroes)])
        rng = np.random.default_rng(k)
        for i in range(frames):
            dice = random_dice(rng, 5, dice_set=look, size=(50, 80), colours=["white"])
            img = render_tray(dice, mount="under", seed=i, room_seed=i)
            room = render_tray([], mount="under", seed=i + 7919, room_seed=i)
            readings = read_dice(img, read_as, "under", background=room)
            for d in dice:
                near = [r for r in readings if math.dist(r.center, (d.x, d.y)) < d.size / 2]
                dice_n += 1
                read_n += bool(near)
                if near and near[0].certain:
                    certain += 1
                    wrong += near[0].value != d.value
    return dice_n, read_n, certain, wrong


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=12, help="frames of 5 dice per hero")
    ap.add_argument("--step", type=int, default=1, help="read hero k's dice as hero k + step's set")
    args = ap.parse_args()
    for step, label in ((0, "own dice"), (args.step, f"read as the hero {args.step} on")):
        n, read, certain, wrong = run(step, args.frames)
        print(f"{label:24s} dice {n:5d}  read {100 * read / n:6.2f}%  certain {100 * certain / n:6.2f}%  "
              f"certain-and-wrong {wrong:4d} ({100 * wrong / n:.2f}%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
