"""Cut the under-tray test dice of a symbol set into one small picture for CI (tests/vision/data).

    .venv/bin/python -m training.undertray_fixture [--seeds 200-201] [--dice 36]
    .venv/bin/python -m training.undertray_fixture --seeds 400-401 --name dicethrone_under --held-out-heroes --tile 128

CI has no renders (build/ is not in the repository), yet it must test that the shipped symbol face network
reads dice from below as the bench measured (`tests/vision/test_symbolnet_shipped.py`). This takes every
`--step`-th die of the held-out seeds' frames (never trained or calibrated on), as the camera gives it (its
faults applied), cuts each die's box grown `REACH` times into a `TILE` px square, and lays them in a grid; the
JSON beside the picture holds each tile's box in the picture, the die's set, and the face on the glass and the
top face. `--held-out-heroes`: only Dice Throne dice of the heroes drawn in no training seed (what a network
for every hero must read).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from training import undertray_data as ud
from training.blender_undertray_factors import DT_HELD_OUT
from vision.classify import crop_patch

TILE = 64       # px, a tile's side (--tile: Dice Throne's 128, so its corner numbers stay as the bench reads them)
REACH = 1.8     # the die's box grown this much fills the tile (its neighbours and the room around it show)
OUT = Path(__file__).resolve().parents[1] / "tests" / "vision" / "data"


def wanted(die: dict, held_out_heroes: bool) -> bool:
    """A symbol die, and with `held_out_heroes` one of a Dice Throne hero no training seed holds."""
    if die.get("set", "d6") == "d6":
        return False
    return not held_out_heroes or str(die["set"]).removeprefix("dicethrone:") in DT_HELD_OUT


def tiles(seeds: str, count: int, held_out_heroes: bool = False, tile: int = TILE) -> tuple[list[np.ndarray], list[dict]]:
    dice = [(f, row, d) for f, row in ud.frames(seeds) for d in row["dice"] if wanted(d, held_out_heroes)]
    step = max(1, len(dice) // count)
    out, labels = [], []
    for f, row, d in dice[::step][:count]:
        img = ud.camera_frame(f, row)
        cx, cy, w, h = d["box"]
        side = max(w, h) * REACH
        out.append(crop_patch(img, (cx, cy, side, side), pad=1.0, size=tile))
        labels.append({"set": d["set"], "glass": d["glass"], "top": d["top"], "glass_face": d["glass_face"], "top_face": d["top_face"],
                       "printing": d["printing"], "touching": d["touching"], "tilted": d["tilted"],
                       "frame": f"{f.name}/{row['image']}", "scale": tile / side, "w": w, "h": h})
    return out, labels


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default=ud.SYMBOL_TEST_SEEDS)
    ap.add_argument("--dice", type=int, default=36)
    ap.add_argument("--name", default="kingoftokyo_under")
    ap.add_argument("--held-out-heroes", action="store_true", help="only the held-out Dice Throne heroes' dice")
    ap.add_argument("--tile", type=int, default=TILE, help="a tile's side (px)")
    args = ap.parse_args(argv)
    t = args.tile
    pics, labels = tiles(args.seeds, args.dice, args.held_out_heroes, t)
    cols = 6
    rows = -(-len(pics) // cols)
    sheet = np.zeros((rows * t, cols * t, 3), np.uint8)
    for i, (pic, lab) in enumerate(zip(pics, labels, strict=True)):
        y, x = divmod(i, cols)
        sheet[y * t:(y + 1) * t, x * t:(x + 1) * t] = pic
        k = lab.pop("scale")
        lab["box"] = [x * t + t / 2, y * t + t / 2, round(lab.pop("w") * k, 2), round(lab.pop("h") * k, 2)]
    cv2.imwrite(str(OUT / f"{args.name}.jpg"), sheet, [cv2.IMWRITE_JPEG_QUALITY, 92])   # noisy: a PNG is 6x larger
    (OUT / f"{args.name}.json").write_text(json.dumps({"seeds": args.seeds, "tile": t, "columns": cols, "dice": labels}, indent=1) + "\n",
                                           encoding="utf-8")
    print(f"wrote {OUT / args.name}.jpg: {len(pics)} dice")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
