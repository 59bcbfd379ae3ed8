"""Dice cut out once as "canvases", so that training can crop, turn, shift and scale them on the fly (torch).

A canvas is the die's box grown `REACH` times (each side on its own: a stretched, oblique box stays stretched
as the reader's crop stretches it), resampled to `side` x `side` uint8 BGR: the box fills the middle third.
Why canvases and not finished patches: the crop's size, padding and augmentation become settings of the
training run instead of a re-read of every photo; and sampling a fresh turn, shift and scale every epoch
gives more variety than a fixed handful of augmented patches per die.

Also here: "not a die" canvases (the photos' own background at the dice's scale; the reader's own candidates
on empty renders) and rendered dice of every colour and material, both mounts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from training.data import RENDER_COLOURS, Photo, overlaps_any
from vision.dicesets import PIP_D6
from vision.finder import outline_candidates, pip_candidates
from vision.reader import find_dice
from vision.render import DieSpec, ground_truth, render_tray

REACH = 3.0   # canvas side in box sides


@dataclass
class Canvases:
    """`x` (n, side, side, 3) uint8; `y` class (0-5 faces, 6 none); `upright` (a die seen obliquely keeps its
    top face up: only small turns); `source` (0 photo die, 1 photo background, 2 render, 3 empty render, 4 cube,
    5 a finder's false box on a photo (`negatives.py`), 6 a cube scene's background, 7 a die Blender rendered
    (`blender_canvases.py`))."""

    x: np.ndarray
    y: np.ndarray
    upright: np.ndarray
    source: np.ndarray

    def __len__(self) -> int:
        return len(self.y)

    @staticmethod
    def join(parts: list[Canvases]) -> Canvases:
        return Canvases(np.concatenate([p.x for p in parts]), np.concatenate([p.y for p in parts]),
                        np.concatenate([p.upright for p in parts]), np.concatenate([p.source for p in parts]))


def canvas(img: np.ndarray, box: tuple[float, float, float, float], side: int) -> np.ndarray:
    """The box (cx, cy, w, h) grown REACH times, as side x side uint8 (averaged first when shrinking, so a
    large die is not aliased; outside the frame the border is replicated)."""
    cx, cy, w, h = box
    w, h = max(w, 2.0) * REACH, max(h, 2.0) * REACH
    sx, sy = w / side, h / side
    shrink = min(sx, sy)
    src = img
    if shrink > 1.3:
        # blur only the region the canvas covers (plus a margin), not the whole frame
        H, W = img.shape[:2]
        m = 3 * shrink
        x0, y0 = max(0, int(cx - w / 2 - m)), max(0, int(cy - h / 2 - m))
        x1, y1 = min(W, int(cx + w / 2 + m) + 1), min(H, int(cy + h / 2 + m) + 1)
        if x1 - x0 >= 2 and y1 - y0 >= 2:
            src = cv2.GaussianBlur(img[y0:y1, x0:x1], (0, 0), 0.45 * shrink)
            cx, cy = cx - x0, cy - y0
    M = np.array([[sx, 0, cx - sx * side / 2], [0, sy, cy - sy * side / 2]], np.float64)
    return cv2.warpAffine(src, M, (side, side), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def photo_canvases(photos: list[Photo], side: int, rng: np.random.Generator,
                   background_per_die: float = 0.5) -> Canvases:
    """Every labelled die (upright: the photos are oblique views) and some background boxes at the dice's
    scale that hold no die (class none)."""
    xs, ys, src = [], [], []
    for ph in photos:
        img = cv2.imread(str(ph.path))
        if img is None:
            continue
        H, W = img.shape[:2]
        for d in ph.dice:
            xs.append(canvas(img, d.box, side))
            ys.append(d.value - 1)
            src.append(0)
        for _ in range(int(round(background_per_die * len(ph.dice)))):
            d = ph.dice[int(rng.integers(0, len(ph.dice)))]
            for _ in range(20):
                s = min(max(d.box[2], d.box[3]) * float(rng.uniform(0.8, 1.3)), 0.9 * min(W, H))
                box = (float(rng.uniform(s / 2, W - s / 2)), float(rng.uniform(s / 2, H - s / 2)), s, s)
                if not overlaps_any(box, ph.dice, 1.3):
                    xs.append(canvas(img, box, side))
                    ys.append(6)
                    src.append(1)
                    break
    n = len(ys)
    return Canvases(np.asarray(xs, np.uint8).reshape(n, side, side, 3), np.asarray(ys, np.int64),
                    np.asarray([s == 0 for s in src], bool), np.asarray(src, np.int64))


def render_canvases(n_frames: int, side: int, rng: np.random.Generator, dice_set=PIP_D6,
                    none_class: int = 6, under_share: float = 0.5) -> Canvases:
    """Rendered dice (any colour, material, light, both mounts; a quarter of the dice over the tray seen
    obliquely, which keep their top face up); cocked dice are "not a die"."""
    xs, ys, up = [], [], []
    for _ in range(n_frames):
        mount = "under" if rng.random() < under_share else "over"
        n = int(rng.integers(2, 7))
        dice, oblique = [], []
        for k in range(n):
            x = 70 + (k % 3) * 200 + rng.uniform(-25, 25)
            y = 110 + (k // 3) * 230 + rng.uniform(-25, 25)
            colour = RENDER_COLOURS[int(rng.integers(0, len(RENDER_COLOURS)))]
            tilt = float(rng.uniform(0.35, 0.9)) if rng.random() < 0.12 else 0.0
            angle = float(rng.uniform(0, 360))
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
        for d, g, slanted in zip(dice, ground_truth(dice, mount), oblique, strict=True):
            s = d.size * (1.0 + 0.4 * abs(math.sin(math.radians(2 * d.angle))))
            xs.append(canvas(frame, (d.x, d.y, s, s), side))
            ys.append(none_class if d.tilt > 0 and not slanted else g["seen_index"] - 1)
            up.append(slanted)
    n = len(ys)
    return Canvases(np.asarray(xs, np.uint8).reshape(n, side, side, 3), np.asarray(ys, np.int64),
                    np.asarray(up, bool), np.full(n, 2, np.int64))


def empty_canvases(n_frames: int, side: int, rng: np.random.Generator, none_class: int = 6) -> Canvases:
    """"Not a die" where the reader itself looks on trays with no dice: the finder's candidates on empty
    renders of both mounts, some with a hand (the room under the glass: lamps, shapes, sleeves)."""
    xs = []
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
        xs += [canvas(frame, c.box, side) for c in cands[:8]]
    n = len(xs)
    return Canvases(np.asarray(xs, np.uint8).reshape(n, side, side, 3), np.full(n, none_class, np.int64),
                    np.zeros(n, bool), np.full(n, 3, np.int64))
