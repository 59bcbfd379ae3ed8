"""Clean copies of the under-tray renders: every Blender frame (and its empty tray) through Intel's Open Image
Denoise, beside the grainy ones, for the trainers' clean variants and the bench's "clean renders" group.

    .venv/bin/python -m training.denoise_undertray --seeds 1-3,20-21 [--out build/undertray-denoised]

Why. Debian's Blender (3.4) is built without a denoiser, and at the 12-16 samples a frame can afford on this
machine its frames are far grainier than a camera's: a dark die's pips drown in Cycles' speckle, while the LED
ring's mirrored spots and the plate's scratches stay crisp. A reader trained only on that grain was measured
on nothing else; renders made with more samples or a denoiser (as anyone else's Blender makes them) look like
these copies. The camera's own faults (white balance, blur, sensor noise, JPEG) are added on top as before
(`blender_undertray_canvases.camera_frame`). The colour is denoised alone (no albedo or normal passes: the
frames on disk have none), in linear light.

Needs `pyoidn` (the `train` extra); never in CI. A seed's copy is written once (its `done` file is copied last).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import cv2
import numpy as np

from training.blender_undertray_canvases import FRAMES
from training.undertray_data import DENOISED, folders

GAMMA = 2.2   # the frames are 8-bit sRGB-ish (Blender's "Standard" view); OIDN wants linear light


def denoised_image(bgr: np.ndarray) -> np.ndarray:
    """One 8-bit BGR render denoised (colour only, linear light) and back to 8-bit BGR."""
    import pyoidn  # the train extra only: the box never denoises

    linear = np.ascontiguousarray((bgr[:, :, ::-1].astype(np.float32) / 255.0) ** GAMMA)
    clean = np.clip(pyoidn.denoise(linear), 0.0, 1.0) ** (1.0 / GAMMA)
    return np.ascontiguousarray((clean * 255.0 + 0.5).astype(np.uint8)[:, :, ::-1])


def copy_seed(folder: Path, out: Path) -> bool:
    """Write `folder`'s denoised copy under `out` (PNGs denoised, labels and atlases copied); False if done."""
    target = out / folder.name
    if (target / "done").exists():
        return False
    target.mkdir(parents=True, exist_ok=True)
    for png in sorted(folder.glob("*.png")):
        cv2.imwrite(str(target / png.name), denoised_image(cv2.imread(str(png))))
    for item in folder.iterdir():
        if item.is_dir():
            shutil.copytree(item, target / item.name, dirs_exist_ok=True)
        elif item.suffix != ".png" and item.name != "done":
            shutil.copy(item, target / item.name)
    shutil.copy(folder / "done", target / "done")
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", required=True, help="render seeds, e.g. 1-3,20-21 (finished folders only)")
    ap.add_argument("--root", type=Path, default=FRAMES, help="the grainy renders' folder")
    ap.add_argument("--out", type=Path, default=DENOISED)
    args = ap.parse_args(argv)
    for folder in folders(args.seeds, root=args.root, finished=True, tables=True):
        print(f"{folder.name}: {'denoised' if copy_seed(folder, args.out) else 'already there'}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
