"""Training and measuring data: labelled dice from the real photos in ../shared/datasets, the photometric noise
that training adds, the renders' colours (the dice are cut out and augmented in `training/canvas.py`).

Every die becomes a whole-die box (cx, cy, w, h) and a face class, the same box the finder gives the reader:
- webcam-d6 (MIT, matteop65/Dice_Detection_Recognition): labels box the pip pattern only, so the die is that
  box grown to 1.7x (measured on the photos: the pips span about 0.56-0.6 of the face);
- roboflow-d6 (CC BY 4.0, Epanemu/GameDiceRecognition, a Roboflow export): labels box the whole die.
Photos are grouped by source photo so that cross-validation never trains on a test photo.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

WEBCAM_DIE_PER_PIPBOX = 1.7

# each photo set's licence and source, as its LICENSE and SOURCE.txt in ../shared/datasets ask to be credited
# wherever it is used (a trained network's JSON names the sets it learnt from so)
ATTRIBUTION = {
    "webcam-d6": "MIT, matteop65/Dice_Detection_Recognition",
    "roboflow-d6": "CC BY 4.0, Epanemu/GameDiceRecognition, Roboflow export",
    "rune55-colour": "CC BY 4.0, 'Rune55' v3, Roboflow Universe rune-zkmvl, via N3VERS4YDIE/dice-recognition",
    "rune55-grey": "CC BY 4.0, 'Rune55' v3, Roboflow Universe rune-zkmvl, via N3VERS4YDIE/dice-recognition",
    "translucent-crops": "MIT, chaseelliottpatterson/dice-reader",
}


def photo_sources(sets: tuple[str, ...] | list[str]) -> str:
    """The credit line of the photo sets a network learnt from: "name (licence, source); ..."."""
    return "; ".join(f"{name} ({ATTRIBUTION[name]})" for name in sets)


def datasets_root() -> Path:
    """../shared/datasets beside the repository (searched up the tree: a git worktree sits deeper)."""
    here = Path(__file__).resolve()
    for parent in here.parents[1:]:
        cand = parent / "shared" / "datasets"
        if cand.is_dir():
            return cand
    raise FileNotFoundError("../shared/datasets not found beside the repository")


@dataclass(frozen=True)
class Die:
    value: int
    box: tuple[float, float, float, float]   # cx, cy, w, h of the whole die, px


@dataclass(frozen=True)
class Photo:
    dataset: str
    path: Path
    group: str
    dice: tuple[Die, ...]
    mount: str = "over"


def load_photos(name: str) -> list[Photo]:
    root = datasets_root() / name
    out: list[Photo] = []
    if name == "webcam-d6":
        for img in sorted((root / "images").glob("*.jpg")):
            lab = root / "labels" / f"{img.stem}.txt"
            if not lab.exists():
                continue
            w, h = 640.0, 480.0
            rows = [[float(v) for v in line.split()] for line in lab.read_text().split("\n") if len(line.split()) == 5]
            # a 1's label boxes its single pip: its die is as large as the photo's other dice, or (alone)
            # 2.8x its pip box (the median ratio on photos that show both)
            others = [max(r[3] * w, r[4] * h) for r in rows if int(r[0]) != 0]
            dice = []
            for c, cx, cy, bw, bh in rows:
                pipbox = max(bw * w, bh * h)
                if int(c) == 0:
                    pipbox = float(np.median(others)) if others else 2.8 * pipbox
                side = WEBCAM_DIE_PER_PIPBOX * pipbox
                dice.append(Die(int(c) + 1, (cx * w, cy * h, side, side)))
            out.append(Photo(name, img, img.stem, tuple(dice)))
    else:
        for img in sorted((root / "images").glob("*.jpg")):
            lab = root / "labels" / f"{img.stem}.json"
            if not lab.exists():
                continue
            meta = json.loads(lab.read_text())
            dice = tuple(Die(int(d["value"]), (float(d["cx"]), float(d["cy"]), float(d["w"]), float(d["h"])))
                         for d in meta["dice"])
            out.append(Photo(name, img, str(meta.get("source_image") or img.stem), dice))
    return out


# ----------------------------------------------------------------------------- crops and augmentation

def photometric_noise(patch: np.ndarray, rng: np.random.Generator, small_dice: bool = False) -> np.ndarray:
    """Blur, gain, offset, noise and JPEG; with `small_dice` (a die's patch, not a whole frame) also, for dice
    the photos show larger than unseen photos will (webcam-d6's dice are about 60 px, a phone photo of a
    table holds many of 20-35 px), the patch shrunk to as few as 10 px and grown back, and hot pixels (salt
    and pepper, as in roboflow-d6's exports)."""
    if small_dice and rng.random() < 0.3:
        side = int(rng.integers(10, 24))
        small = cv2.resize(patch, (side, side), interpolation=cv2.INTER_AREA)
        patch = cv2.resize(small, (patch.shape[1], patch.shape[0]), interpolation=cv2.INTER_LINEAR)
    p = patch.astype(np.float32)
    if rng.random() < 0.3:
        p = cv2.GaussianBlur(p, (0, 0), float(rng.uniform(0.3, 1.2)))
    gain = rng.uniform(0.6, 1.4, 3) if rng.random() < 0.5 else np.full(3, rng.uniform(0.6, 1.4))
    p = p * gain + rng.uniform(-30, 30)
    if rng.random() < 0.5:
        p += rng.normal(0, rng.uniform(1, 8), p.shape)
    p = np.clip(p, 0, 255).astype(np.uint8)
    if small_dice and rng.random() < 0.15:
        hot = rng.random(p.shape[:2]) < rng.uniform(0.005, 0.03)
        p[hot] = np.where(rng.random((int(hot.sum()), 1)) < 0.5, 0, 255).astype(np.uint8)
    return jpeg_again(p, rng, 0.3)


def jpeg_again(img: np.ndarray, rng: np.random.Generator, chance: float, worst: int = 30) -> np.ndarray:
    """`img` saved as a JPEG of quality `worst`..89 and read back, with probability `chance` (phone photos
    and the camera's stills carry its blocks and ringing); the draws are made in the same order every time, so
    a seeded training set does not change with it."""
    if rng.random() < chance:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(worst, 90))])
        if ok:
            return cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img


def overlaps_any(box: tuple[float, float, float, float], dice: tuple[Die, ...], frac: float) -> bool:
    cx, cy, w, h = box
    for d in dice:
        dx, dy, dw, dh = d.box
        if abs(cx - dx) < frac * (w + dw) / 2 and abs(cy - dy) < frac * (h + dh) / 2:
            return True
    return False


# ----------------------------------------------------------------------------- renders

RENDER_COLOURS = ["white", "ivory", "red", "yellow", "blue", "green", "purple", "black", "orange"]

