"""Synthetic table scenes for the learned die finder: many small dice in packed rows, heaps and scatters.

Why: on photos of unseen tables the finder misses most where dice are small (under 25 px: found about half the
time) or packed together (a row of dice touching, a heap), and the real training photos hold few such scenes
(webcam-d6: a few large white dice on one desk). Here the perspective cubes of `training/cubes.py` (any body
and pip colour, marbled, speckled, translucent, rounded, seen from above at a slant, lit from one side) are
drawn many to a scene on a random floor, and every die's silhouette box is its label, as the photos' labels
box a whole die. The scenes are drawn once per training run (seeded) and augmented afresh like the photos.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from training.cubes import SCENE, _style, draw_cube, floor

Box = tuple[float, float, float, float]


def _layout(kind: str, n: int, size: float, rng: np.random.Generator) -> list[tuple[float, float]]:
    """Centres of `n` dice of face side about `size` px in the scene: a packed grid of rows (touching or
    nearly), a heap (dice close around a point), or a scatter."""
    out: list[tuple[float, float]] = []
    if kind == "rows":
        gap = size * rng.uniform(1.25, 1.6)     # a silhouette is about 1.2-1.5 faces wide
        cols = max(1, int(rng.integers(2, 9)))
        x0, y0 = rng.uniform(0.1, 0.5) * SCENE, rng.uniform(0.1, 0.5) * SCENE
        a = rng.normal(0, 0.15)
        for i in range(n):
            r, c = divmod(i, cols)
            x = x0 + c * gap * math.cos(a) - r * gap * math.sin(a) + rng.normal(0, 0.05 * size)
            y = y0 + c * gap * math.sin(a) + r * gap * math.cos(a) + rng.normal(0, 0.05 * size)
            out.append((x, y))
    elif kind == "heap":
        cx, cy = rng.uniform(0.25, 0.75, 2) * SCENE
        spread = size * rng.uniform(1.2, 2.5)
        for _ in range(n):
            out.append((cx + rng.normal(0, spread), cy + rng.normal(0, spread)))
    else:
        out = [(float(x), float(y)) for x, y in rng.uniform(0.05, 0.95, (n, 2)) * SCENE]
    return out


def scene(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One scene (SCENE x SCENE uint8 BGR) and its dice boxes (n, 4: cx, cy, w, h of each silhouette). A die
    whose centre another die's silhouette covers is left out of the labels only if it could not be drawn;
    dice are drawn back to front (the camera looks from the scene's top edge), so a nearer die hides the
    farther one's lower part, as in a heap on a table."""
    img = floor(rng)
    kind = str(rng.choice(["rows", "rows", "heap", "heap", "scatter"]))
    # face sides log-uniform, small dice favoured: 8-48 px in the scene (the finder shrinks a photo by about a
    # half, so 4-24 px at its input), some scenes of larger dice (whose pip groups must not read as small
    # dice), and in some scenes sizes mixed (a big die beside small ones)
    size = float(math.exp(rng.uniform(math.log(8), math.log(48)))) if rng.random() < 0.6 else \
        float(rng.uniform(40, 110))
    mixed = rng.random() < 0.3
    n = int(np.clip(rng.integers(3, 40) * (20.0 / size) ** 1.2, 2, 60))
    slant = math.radians(float(rng.uniform(0, 45)))
    az, el = rng.uniform(0, 2 * math.pi), rng.uniform(0.5, 1.4)
    light = np.array([math.cos(az) * math.cos(el), math.sin(az) * math.cos(el), math.sin(el)])
    one_set = rng.random() < 0.4
    first = _style(rng)
    centres = _layout(kind, n, size, rng)
    # no two dice in the same place: a die closer than 0.9 of a face to one already placed is dropped
    placed: list[tuple[float, float, float]] = []
    for x, y in centres:
        s = size * (math.exp(rng.uniform(-0.7, 0.7)) if mixed else rng.uniform(0.85, 1.15))
        if not (0.5 * s <= x <= SCENE - 0.5 * s and 0.5 * s <= y <= SCENE - 0.5 * s):
            continue
        if any(math.hypot(x - px, y - py) < 0.9 * max(s, ps) for px, py, ps in placed):
            continue
        placed.append((x, y, s))
    boxes = []
    for x, y, s in sorted(placed, key=lambda p: p[1]):
        # a soft shadow under the die, away from the light
        if rng.random() < 0.7:
            sh = np.zeros(img.shape[:2], np.float32)
            cv2.circle(sh, (int(x - 0.3 * s * light[0]), int(y + 0.25 * s)), max(1, int(0.7 * s)), 1.0, -1)
            img *= 1 - cv2.GaussianBlur(sh, (0, 0), max(0.5, 0.15 * s))[..., None] * rng.uniform(0.1, 0.4)
        style = _style(rng, first["body"], first["pip"]) if one_set else _style(rng)
        box, _ = draw_cube(img, (x, y), s, int(rng.integers(1, 7)), rng, slant, light, style)
        boxes.append(box)
    img *= rng.uniform(0.8, 1.15, 3).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    return out, np.array(boxes, np.float32).reshape(-1, 4)


def scenes(n: int, seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """`n` scenes and their boxes, reproducible from `seed`."""
    rng = np.random.default_rng(seed)
    imgs, boxes = [], []
    for _ in range(n):
        im, b = scene(rng)
        imgs.append(im)
        boxes.append(b)
    return imgs, boxes


__all__ = ["scene", "scenes"]
