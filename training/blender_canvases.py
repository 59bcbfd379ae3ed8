"""Canvases of the pip dice Blender renders (`training/blender_dice.py`), and the runs that make them.

The frames are made once, outside training, by Blender's own Python (`make blender-dice`, or `ensure` below): a
folder of 100 frames (about 335 dice) takes about 9 minutes on one core, so the folders are kept under
build/blender-dice/s<seed>/ (finished when it holds `done`) and only cut into canvases here, as the photos' dice
are (`canvas.canvas`: the labelled box grown 3x), with the JPEG a phone would add now and then.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from training.canvas import Canvases, canvas
from training.data import jpeg_again
from training.provenance import REPO

FRAMES = REPO / "build" / "blender-dice"
SCRIPT = REPO / "training" / "blender_dice.py"
UPRIGHT_TILT = 12.0   # degrees off the vertical beyond which a die keeps its top face up (as cubes.py)
SOURCE = 7            # Canvases.source of a Blender die


def ensure(seeds: list[int], frames: int = 100, root: Path = FRAMES) -> list[Path]:
    """The folders of `seeds`, rendering the ones not finished (needs Blender on the PATH)."""
    out = []
    for seed in seeds:
        folder = root / f"s{seed}"
        if not (folder / "done").exists():
            blender = shutil.which("blender")
            if blender is None:
                raise FileNotFoundError("Blender renders asked for but `blender` is not installed "
                                        "(Debian: apt-get install blender)")
            subprocess.run([blender, "-b", "--factory-startup", "-noaudio", "-P", str(SCRIPT), "--",
                            "--out", str(folder), "--frames", str(frames), "--seed", str(seed)],
                           check=True, stdout=subprocess.DEVNULL)
        out.append(folder)
    return out


def blender_canvases(folders: list[Path], side: int, rng: np.random.Generator) -> Canvases:
    """Every labelled die of the folders' frames as a canvas (class = face-up value - 1)."""
    xs, ys, up = [], [], []
    for folder in folders:
        for line in (folder / "labels.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            img = cv2.imread(str(folder / row["image"]))
            if img is None:
                continue
            for die in row["dice"]:
                xs.append(jpeg_again(canvas(img, tuple(die["box"]), side), rng, 0.5))
                ys.append(int(die["value"]) - 1)
                up.append(float(row.get("tilt", 90.0)) > UPRIGHT_TILT)
    n = len(ys)
    return Canvases(np.asarray(xs, np.uint8).reshape(n, side, side, 3), np.asarray(ys, np.int64),
                    np.asarray(up, bool), np.full(n, SOURCE, np.int64))


def blender_frames(folders: list[Path]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The folders' frames whole (BGR) and their dice boxes (n, 4: cx, cy, w, h), as the die finder trains on
    photos (`train_finder --blender`). A die the frame's edge cuts has no label (`blender_dice.box_of`), so a
    frame with one is left out: its unlabelled part would teach the finder that a die there is floor."""
    imgs, boxes = [], []
    for folder in folders:
        for line in (folder / "labels.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("cut", 0):
                continue
            img = cv2.imread(str(folder / row["image"]))
            if img is None:
                continue
            imgs.append(img)
            boxes.append(np.array([d["box"] for d in row["dice"]], np.float32).reshape(-1, 4))
    return imgs, boxes


def seed_list(spec: str) -> list[int]:
    """'1-4,9' -> [1, 2, 3, 4, 9]."""
    out: list[int] = []
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a), int(b) + 1))
        elif part.strip():
            out.append(int(part))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Render the Blender dice folders that are missing (make blender-dice)")
    ap.add_argument("--seeds", default="1-30", help="folder seeds, e.g. 1-30 (100 frames, about 335 dice each)")
    ap.add_argument("--jobs", type=int, default=2, help="Blender processes at once (each renders on one thread)")
    args = ap.parse_args(argv)
    seeds = seed_list(args.seeds)
    with ThreadPoolExecutor(args.jobs) as pool:
        for folder in pool.map(lambda s: ensure([s])[0], seeds):
            print(f"{folder}: {sum(len(json.loads(r)['dice']) for r in (folder / 'labels.jsonl').open())} dice",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
