"""Training and measuring data: labelled dice from the real photos in ../shared/datasets, and renders.

Every die becomes a whole-die box (cx, cy, w, h) and a face class, the same box the finder gives the reader:
- webcam-d6 (MIT, matteop65/Dice_Detection_Recognition): labels box the pip pattern only, so the die is that
  box grown to 1.7x (measured on the photos: the pips span about 0.56-0.6 of the face);
- roboflow-d6 (CC BY 4.0, Epanemu/GameDiceRecognition, a Roboflow export): labels box the whole die.
Photos are grouped by source photo so that cross-validation never trains on a test photo.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.classify import PAD, SIZE, normalise_patch
from vision.dicesets import PIP_D6
from vision.finder import outline_candidates, pip_candidates
from vision.reader import find_dice
from vision.render import DieSpec, ground_truth, render_tray

WEBCAM_DIE_PER_PIPBOX = 1.7


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

def aug_patch(img: np.ndarray, box: tuple[float, float, float, float], rng: np.random.Generator,
              angle: float = 0.0, shift: tuple[float, float] = (0.0, 0.0), scale: float = 1.0,
              photometric: bool = True) -> np.ndarray:
    """The classifier's patch of `box`, rotated by `angle` degrees about its centre, shifted by `shift` (in box
    sizes) and scaled; photometric noise (blur, gain, noise, JPEG) when asked. Returns the normalised patch."""
    cx, cy, w, h = box
    cx += shift[0] * w
    cy += shift[1] * h
    w, h = w * PAD * scale, h * PAD * scale
    a = math.radians(angle)
    # output pixel (u, v) -> source: centre + R * ((u - S/2) * w/S, (v - S/2) * h/S)
    R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    A = R @ np.diag([w / SIZE, h / SIZE])
    t = np.array([cx, cy]) - A @ np.array([SIZE / 2, SIZE / 2])
    M = np.hstack([A, t[:, None]])
    Minv = cv2.invertAffineTransform(M.astype(np.float64))
    src = img
    shrink = min(w, h) / SIZE
    if shrink > 1.6:  # average before sampling (as the reader's INTER_AREA does)
        k = shrink / 1.2
        src = cv2.GaussianBlur(img, (0, 0), 0.5 * k)
    patch = cv2.warpAffine(src, Minv, (SIZE, SIZE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if photometric:
        patch = photometric_noise(patch, rng, small_dice=True)
    return normalise_patch(patch)


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
    if rng.random() < 0.3:
        ok, buf = cv2.imencode(".jpg", p, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 90))])
        if ok:
            p = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return p


def _overlaps(box: tuple[float, float, float, float], dice: tuple[Die, ...], frac: float) -> bool:
    cx, cy, w, h = box
    for d in dice:
        dx, dy, dw, dh = d.box
        if abs(cx - dx) < frac * (w + dw) / 2 and abs(cy - dy) < frac * (h + dh) / 2:
            return True
    return False


def photo_samples(photos: list[Photo], rng: np.random.Generator, per_die: int = 6,
                  negatives_per_die: float = 1.5) -> tuple[np.ndarray, np.ndarray]:
    """Augmented patches of every labelled die (class value-1) and of what is not a die (class 6): empty
    patches at the dice's scale, half dice (shifted by >= 0.55 of a die), a part of a face (zoomed in) and a
    die lost in a box much too large."""
    xs: list[np.ndarray] = []
    ys: list[int] = []
    for ph in photos:
        img = cv2.imread(str(ph.path))
        if img is None:
            continue
        H, W = img.shape[:2]
        for d in ph.dice:
            for _ in range(per_die):
                # small rotations only: in an oblique photo the top face is the upper one, and turning the
                # crop over would teach the side faces as the answer
                xs.append(aug_patch(img, d.box, rng, angle=float(rng.normal(0, 12)),
                                    shift=(float(rng.normal(0, 0.05)), float(rng.normal(0, 0.05))),
                                    scale=float(rng.uniform(0.9, 1.2))))
                ys.append(d.value - 1)
        n_neg = int(round(negatives_per_die * len(ph.dice)))
        for k in range(n_neg):
            d = ph.dice[int(rng.integers(0, len(ph.dice)))]
            kind = k % 4
            if kind == 0:  # background at the dice's scale
                for _ in range(20):
                    side = min(max(d.box[2], d.box[3]) * float(rng.uniform(0.8, 1.3)), 0.9 * min(W, H))
                    box = (float(rng.uniform(side / 2, W - side / 2)), float(rng.uniform(side / 2, H - side / 2)),
                           side, side)
                    if not _overlaps(box, ph.dice, 0.9):
                        xs.append(aug_patch(img, box, rng, angle=float(rng.uniform(0, 360))))
                        ys.append(6)
                        break
            elif kind == 1:  # half a die
                ang = rng.uniform(0, 2 * math.pi)
                r = rng.uniform(0.55, 0.8)
                xs.append(aug_patch(img, d.box, rng, angle=float(rng.uniform(0, 360)),
                                    shift=(r * math.cos(ang), r * math.sin(ang))))
                ys.append(6)
            elif kind == 2:  # a part of the face, zoomed in (a pip or two looks like a small face)
                ang = rng.uniform(0, 2 * math.pi)
                r = rng.uniform(0.15, 0.3)
                xs.append(aug_patch(img, d.box, rng, angle=float(rng.uniform(0, 360)),
                                    shift=(r * math.cos(ang), r * math.sin(ang)), scale=float(rng.uniform(0.3, 0.5))))
                ys.append(6)
            else:  # a box far too large
                xs.append(aug_patch(img, d.box, rng, angle=float(rng.uniform(0, 360)),
                                    scale=float(rng.uniform(2.3, 3.5))))
                ys.append(6)
    if not xs:
        return np.zeros((0, SIZE, SIZE, 3), np.float32), np.zeros(0, np.int64)
    return np.asarray(xs, np.float32), np.asarray(ys, np.int64)


def real_patches(photos: list[Photo]) -> tuple[np.ndarray, np.ndarray, list[tuple[str, int]]]:
    """Un-augmented patches of every labelled die (what the reader sees given a true box), for calibration."""
    xs, ys, ids = [], [], []
    rng = np.random.default_rng(0)
    for ph in photos:
        img = cv2.imread(str(ph.path))
        if img is None:
            continue
        for i, d in enumerate(ph.dice):
            xs.append(aug_patch(img, d.box, rng, photometric=False))
            ys.append(d.value - 1)
            ids.append((ph.group, i))
    return np.asarray(xs, np.float32), np.asarray(ys, np.int64), ids


# ----------------------------------------------------------------------------- renders

RENDER_COLOURS = ["white", "ivory", "red", "yellow", "blue", "green", "purple", "black", "orange"]


def render_samples(n_frames: int, rng: np.random.Generator, dice_set=PIP_D6,
                   none_class: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """Patches of rendered dice (any colour, material, light, both mounts, blur, noise, JPEG), cocked dice
    as "not a die", the set's face index - 1 as the class of a flat die (the face the camera sees)."""
    xs, ys = [], []
    for _ in range(n_frames):
        mount = "under" if rng.random() < 0.5 else "over"
        n = int(rng.integers(2, 7))
        dice, oblique = [], []
        for k in range(n):
            x = 70 + (k % 3) * 200 + rng.uniform(-25, 25)
            y = 110 + (k // 3) * 230 + rng.uniform(-25, 25)
            colour = RENDER_COLOURS[int(rng.integers(0, len(RENDER_COLOURS)))]
            tilt = float(rng.uniform(0.35, 0.9)) if rng.random() < 0.12 else 0.0
            angle = float(rng.uniform(0, 360))
            # a die seen from an oblique camera (a phone photo of a table): its top face foreshortened, a side
            # face below it in the picture; it reads as its top face (a cocked die is "not a die")
            slanted = mount == "over" and tilt == 0.0 and rng.random() < 0.25
            if slanted:
                tilt, angle = float(rng.uniform(0.15, 0.55)), float(rng.normal(0, 12))
            oblique.append(slanted)
            dice.append(DieSpec(x, y, float(rng.uniform(22, 90)), angle,
                                int(rng.integers(1, dice_set.n + 1)), dice_set, colour, tilt=tilt,
                                material=str(rng.choice(["plain", "plain", "marbled", "speckled", "translucent"]))))
        bg = None if mount == "under" else str(rng.choice(["wood", "felt", "white", "grey", "black", "blue", "red"]))
        frame = render_tray(dice, mount=mount, background=bg,
                            lighting=str(rng.choice(["neutral", "warm", "cold", "dim", "glare"])),
                            seed=int(rng.integers(0, 1 << 30)), room_seed=int(rng.integers(0, 1 << 30)),
                            noise=float(rng.uniform(2, 9)))
        frame = photometric_noise(frame, rng) if rng.random() < 0.5 else frame
        for d, g, slanted in zip(dice, ground_truth(dice, mount), oblique, strict=True):
            side = d.size * (1.0 + 0.4 * abs(math.sin(math.radians(2 * d.angle))))
            box = (d.x, d.y, side, side)
            # an oblique view keeps its side face below (small turns, as the photos' crops get)
            turn = float(rng.normal(0, 12)) if slanted else float(rng.uniform(0, 360))
            xs.append(aug_patch(frame, box, rng, angle=turn,
                                shift=(float(rng.normal(0, 0.05)), float(rng.normal(0, 0.05))),
                                scale=float(rng.uniform(0.9, 1.2)), photometric=slanted))
            ys.append(none_class if d.tilt > 0 and not slanted else g["seen_index"] - 1)
    return np.asarray(xs, np.float32), np.asarray(ys, np.int64)


def empty_samples(n_frames: int, rng: np.random.Generator, none_class: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """"Not a die" patches where the reader itself would look on trays with no dice: the finder's own
    candidates (outlines against the fitted floor or a learned empty frame, pip clusters) on empty renders of
    both mounts, some with a hand. Why: the photos' backgrounds teach "not a die" for tables, not for the room
    seen from under the glass (out-of-focus lamps, shapes, sleeves), and a model trained with oblique dice
    as faces read such a lamp as a 6."""
    xs: list[np.ndarray] = []
    for _ in range(n_frames):
        mount = "under" if rng.random() < 0.6 else "over"
        bg = None if mount == "under" else str(rng.choice(["wood", "felt", "white", "grey", "black", "blue", "red"]))
        light = str(rng.choice(["neutral", "warm", "cold", "dim", "glare"]))
        room = int(rng.integers(0, 1 << 30))
        hand = (float(rng.uniform(100, 540)), float(rng.uniform(100, 380)), float(rng.uniform(120, 260))) \
            if rng.random() < 0.3 else None
        frame = render_tray([], mount=mount, background=bg, lighting=light, seed=int(rng.integers(0, 1 << 30)),
                            room_seed=room, hand=hand, noise=float(rng.uniform(2, 9)))
        learned = render_tray([], mount=mount, background=bg, lighting=light, seed=int(rng.integers(0, 1 << 30)),
                              room_seed=room) if mount == "under" and rng.random() < 0.5 else None
        lab = cv2.cvtColor(frame, cv2.COLOR_BGR2Lab)
        cands = outline_candidates(find_dice(frame, mount, learned, lab))
        if learned is None:
            cands += pip_candidates(lab)
        for c in cands[:8]:
            xs.append(aug_patch(frame, c.box, rng, angle=float(rng.uniform(0, 360)),
                                shift=(float(rng.normal(0, 0.05)), float(rng.normal(0, 0.05))),
                                scale=float(rng.uniform(0.9, 1.2)), photometric=False))
    return np.asarray(xs, np.float32).reshape(-1, SIZE, SIZE, 3), np.full(len(xs), none_class, np.int64)
