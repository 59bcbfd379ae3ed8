"""The under-tray renders (`training/blender_undertray.py`) as the box's camera would deliver them, and their
canvases; `make blender-undertray` renders the missing folders.

Blender renders clean frames; the camera's faults (white-balance error, blur, sensor noise, JPEG) are added
here, drawn per frame by `blender_undertray_factors` and kept in the frame's labels row, so that the same clean
render can be degraded again without Blender and a bench can hold out a noise level as any other factor.
Folders: build/blender-undertray/s<seed>/ (finished when they hold `done`); each frame has its empty tray.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path

import cv2
import numpy as np

from training.blender_canvases import seed_list
from training.blender_undertray_factors import read_rows, seed_kind
from training.blender_undertray_glyphs import write_atlases, write_dicethrone_atlases
from training.canvas import canvas
from training.provenance import REPO
from training.sensor import Camera, bayer_faults

FRAMES = REPO / "build" / "blender-undertray"
SCRIPT = REPO / "training" / "blender_undertray.py"


SENSOR = "plain"   # every trainer's camera; "bayer": `training.sensor`'s held-out one (the bench's --sensor)


def camera_faults(img: np.ndarray, draws: dict, seed: int) -> np.ndarray:
    """The clean render as a cheap camera gives it: white-balance error, blur, noise, then JPEG."""
    if "sensor" in draws:   # a trainer's Bayer variant (`train_reader_undertray --sensor-variants`)
        return bayer_faults(img, draws, seed, Camera(**draws["sensor"]))
    if SENSOR == "bayer":
        return bayer_faults(img, draws, seed)
    out = img.astype(np.float32) * np.asarray(draws["wb_error"], np.float32)[::-1]   # BGR order
    if draws["blur"] > 0:
        out = cv2.GaussianBlur(out, (0, 0), draws["blur"])
    out += np.random.default_rng(seed).normal(0.0, draws["noise"], out.shape).astype(np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(draws["jpeg"])])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else out


def camera_frame(folder: Path, row: dict, empty: bool = False, look: int = 0) -> np.ndarray | None:
    """A row's frame (or its empty tray) with the camera's faults; None when the picture is missing. `look`: the
    same scene with another draw of the sensor's noise and the JPEG (a later frame of a still tray; look 0 is the
    frame every trainer and bench has read)."""
    name = row["empty"] if empty else row["image"]
    img = cv2.imread(str(folder / name)) if name else None
    if img is None:
        return None
    return camera_faults(img, row["draws"], row["seed"] * 1_000 + row["index"] * 2 + int(empty) + LOOK_SEEDS * look)


LOOK_SEEDS = 100_000  # apart from every frame's own noise seed (seed * 1000 + index * 2 + empty)


def undertray_canvases(folders: list[Path], side: int) -> tuple[np.ndarray, np.ndarray]:
    """Every labelled die as a canvas of the face on the glass (class = glass face - 1), for the face network
    trained for `--mount under`."""
    xs, ys = [], []
    for folder in folders:
        for row in read_rows(folder):
            img = camera_frame(folder, row)
            if img is None:
                continue
            for die in row["dice"]:
                if die.get("set", "d6") != "d6":   # symbol dice (seeds >= 200): glass is another set's index
                    continue
                xs.append(canvas(img, tuple(die["box"]), side))
                ys.append(int(die["glass"]) - 1)
    return np.asarray(xs, np.uint8).reshape(len(ys), side, side, 3), np.asarray(ys, np.int64)


def ensure(seed: int, frames: int, samples: int, root: Path = FRAMES, scale: int = 0) -> Path:
    """The folder of `seed`, rendering what is missing (resumable; needs Blender on the PATH). A symbol seed's
    folder gets the printings' atlases first (Blender's Python cannot draw them): King of Tokyo's, or for a
    Dice Throne seed (`seed_kind`) every hero's in every Dice Throne printing. `scale`: frames this many times
    320x240 (0: by seed, `frame_scale`), into a root of their own."""
    folder = root / f"s{seed}"
    if not (folder / "done").exists():
        if seed_kind(seed) == "dicethrone":
            write_dicethrone_atlases(folder)
        elif seed_kind(seed) == "kingoftokyo":
            write_atlases(folder)
        blender = shutil.which("blender")
        if blender is None:
            raise FileNotFoundError("`blender` is not installed (Debian: apt-get install blender)")
        subprocess.run([blender, "-b", "--factory-startup", "-noaudio", "-P", str(SCRIPT), "--", "--out",
                        str(folder), "--frames", str(frames), "--seed", str(seed), "--samples", str(samples),
                        "--scale", str(scale)], check=True, stdout=subprocess.DEVNULL)
    return folder


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Render the missing under-tray folders (make blender-undertray)")
    ap.add_argument("--seeds", default="1-10")
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--samples", type=int, default=12)
    ap.add_argument("--root", type=Path, default=FRAMES,
                    help="the seed folders' folder (e.g. build/undertray-s64 for renders at 64 samples, "
                    "which the bench reads with its own --root)")
    ap.add_argument("--scale", type=int, default=0,
                    help="frames this many times 320x240 (0: by seed; 2: 640x480, the same scenes with "
                    "twice the pixels a die, e.g. --root build/undertray-x2, which the bench reads at "
                    "480x360 with --scale 0.75 as the box reads the Pi camera's frame)")
    args = ap.parse_args(argv)
    for seed in seed_list(args.seeds):   # one Blender at a time: the machine is shared
        folder = ensure(seed, args.frames, args.samples, args.root, args.scale)
        rows = read_rows(folder)
        print(f"{folder}: {len(rows)} frames, {sum(len(r['dice']) for r in rows)} dice", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
