"""The reader in the box's own condition: Blender's under-tray renders, by factor, with and without the room.

    .venv/bin/python bench/vision_undertray.py [--folders build/undertray/s1 ...] [--errors] [--debug-out DIR]

Each scene (training/blender_undertray.py) is read as the box reads a settled tray (`read_dice`, d6, mount
under): without a learned room, and with the room (the same scene's empty frame, through its own sensor noise).
None of these pictures was ever trained on: every factor here is held out from the reader. Figures per build,
plate, wear, LED ring, room, what hangs over the tray, and per die material, colour, touching and tilted.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from training.undertray import DIE_KEYS, FACTOR_KEYS, frames, scenes  # noqa: E402
from vision.debug import draw_readings  # noqa: E402
from vision.reader import read_dice  # noqa: E402
from vision.room import Room, merge  # noqa: E402
from vision.scoring import Score, score  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


MODES = {"still": "without a room", "room": "with the room as the old watcher used it (the empty frame alone)",
         "merged": "the watcher's way: the room learned from the empty frame, both reads merged (vision.room)"}


def read_scene(scene, seed: int, mode: str):
    image, empty = frames(scene, seed)
    if mode == "still":
        return image, read_dice(image, "d6", "under")
    if mode == "room":
        return image, read_dice(image, "d6", "under", background=empty)
    room = Room()
    room.add_empty([empty, frames(scene, seed + 1000)[1]])
    plain = read_dice(image, "d6", "under")
    return image, merge(plain, read_dice(image, "d6", "under", background=room.image), image, room)


def per_die_scores(truth: list[dict], readings, tag: str) -> tuple[Score, dict[tuple[str, str], Score]]:
    """The frame's score, and one score per die attribute value (a die's own material, colour...)."""
    radius = max(max(t["size"]) for t in truth) * 0.6 if truth else 20.0
    whole = score(truth, readings, radius, tag)
    by_attr: dict[tuple[str, str], Score] = {}
    for i, t in enumerate(truth):
        one = score([t], readings, radius, tag)
        one.phantom = 0
        for key in DIE_KEYS:
            by_attr.setdefault((key, str(t[key])), Score()).add(one)
        del i
    return whole, by_attr


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--folders", nargs="*", type=Path,
                    default=sorted((ROOT / "build" / "undertray").glob("s*")))
    ap.add_argument("--seed", type=int, default=1, help="the sensor's noise draws")
    ap.add_argument("--errors", action="store_true")
    ap.add_argument("--modes", nargs="*", default=list(MODES), choices=list(MODES))
    ap.add_argument("--summary", action="store_true", help="one line per mode, no factors")
    ap.add_argument("--debug-out", type=Path, help="write each frame with its readings drawn")
    args = ap.parse_args(argv)
    found = list(scenes(args.folders))
    print(f"== {len(found)} under-tray scenes from {', '.join(str(f) for f in args.folders)}; d6, mount under")
    ap_modes = args.modes
    for mode in ap_modes:
        total = Score()
        groups: dict[tuple[str, str], Score] = defaultdict(Score)
        for scene in found:
            truth = scene.truth()
            image, readings = read_scene(scene, args.seed, mode)
            whole, by_attr = per_die_scores(truth, readings, scene.image)
            total.add(whole)
            for key in FACTOR_KEYS:
                groups[(key, str(scene.factors[key]))].add(whole)
            for k, s in by_attr.items():
                groups[k].add(s)
            if args.debug_out:
                args.debug_out.mkdir(parents=True, exist_ok=True)
                name = f"{mode}-{scene.folder.name}-{scene.image}"
                cv2.imwrite(str(args.debug_out / name), draw_readings(image, readings))
        print(f"-- {MODES[mode]}")
        print(total.line("all"))
        for (key, value) in sorted(groups) if not args.summary else []:
            print(groups[(key, value)].line(f"  {key}={value}"))
        if args.errors:
            for e in total.errors[:40]:
                print("   ", e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
