"""Dice colours as the reader names them (Regidice tells its dice apart by colour: red, blue, yellow, black);
prints figures.

Renders of the `regidice` set (the game's description) in its four colours, both mounts, every lighting the
renderer draws: per die, colour right and certain, unsure (the die is flagged for the players), silent (certain
with a wrong colour: must stay near 0), and missed. The real photos in ../shared/datasets carry no colour
labels, so colour accuracy on them is not measured here.

    python bench/vision_colours.py [--throws N]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Run as a script, bench/ is sys.path[0], where bench/engine.py would shadow the engine package.
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    sys.path[0] = str(REPO)

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from engine.games import get_rules  # noqa: E402
from vision.reader import read_dice  # noqa: E402
from vision.render import LIGHTING_GAIN, ground_truth, random_dice, render_tray  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--throws", type=int, default=40, help="rendered throws per mount and lighting")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    spec = get_rules("regidice").describe()["dice_sets"]["regidice"]
    colours = list(spec["colours"])
    for mount in ("under", "over"):
        for lighting in LIGHTING_GAIN:
            tally: Counter = Counter()
            confusion: Counter = Counter()
            for seed in range(args.throws):
                rng = np.random.default_rng([seed, len(lighting)])
                dice = random_dice(rng, int(rng.integers(3, 8)), dice_set=spec, colours=colours)
                frame = render_tray(dice, mount=mount, lighting=lighting, seed=seed, room_seed=seed)
                readings = read_dice(frame, spec, mount)
                for truth in ground_truth(dice, mount):
                    tally["dice"] += 1
                    near = [r for r in readings if abs(r.center[0] - truth["center"][0]) < 0.5 * truth["box"][2]
                            and abs(r.center[1] - truth["center"][1]) < 0.5 * truth["box"][3]]
                    if not near:
                        tally["missed"] += 1
                        continue
                    r = near[0]
                    confusion[(truth["colour"], r.colour)] += 1
                    if not r.certain:
                        tally["unsure"] += 1
                    elif r.colour == truth["colour"]:
                        tally["right"] += 1
                    else:
                        tally["silent"] += 1
            n = max(tally["dice"], 1)
            wrong = ", ".join(f"{a}->{b} {c}" for (a, b), c in confusion.most_common() if a != b) or "none"
            print(f"render regidice ({mount}, {lighting:<8}) dice {tally['dice']:4d}  colour right "
                  f"{100 * tally['right'] / n:5.1f}%  unsure (value or colour) {100 * tally['unsure'] / n:5.1f}%  silent "
                  f"{100 * tally['silent'] / n:4.1f}%  missed {100 * tally['missed'] / n:4.1f}%  "
                  f"named wrong: {wrong}", flush=True)


if __name__ == "__main__":
    main()
