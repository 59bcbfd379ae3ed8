"""Shared helpers for the vision tests: rendered trays with truth, a few real photos. A module with its own
name (not conftest.py), so a test file imports it whatever other conftest.py files were collected first."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.dicesets import get_set
from vision.reader import read_dice
from vision.reading import Reading
from vision.render import DieSpec, ground_truth, render_tray
from vision.scoring import Score, score, yolo_truth


def _datasets() -> Path:
    """../shared/datasets beside the repository (the nearest one up the tree: a git worktree sits deeper)."""
    here = Path(__file__).resolve()
    for parent in here.parents[2:]:
        cand = parent / "shared" / "datasets"
        if cand.is_dir():
            return cand
    return here.parents[3] / "shared" / "datasets"


DATASETS = _datasets()
DATASET = DATASETS / "webcam-d6"


def layout(n: int, *, size: float = 56, dice_set: object = "d6", colours: list[str] | None = None,
           values: list[int] | None = None, seed: int = 0) -> list[DieSpec]:
    """n dice on a loose grid (no overlaps), poses and faces from a seed."""
    rng = np.random.default_rng(seed)
    colours = colours or ["white", "red", "yellow", "blue", "black", "green", "purple"]
    cols = max(1, min(n, 5))
    out = []
    for i in range(n):
        r, c = divmod(i, cols)
        x = 80 + c * 120 + rng.uniform(-12, 12)
        y = 90 + r * 120 + rng.uniform(-12, 12)
        v = values[i] if values else int(rng.integers(1, get_set(dice_set).n + 1))
        out.append(DieSpec(x, y, size * rng.uniform(0.85, 1.15), float(rng.uniform(0, 360)), v, dice_set,
                           colours[i % len(colours)]))
    return out


def read_and_score(dice: list[DieSpec], *, mount: str, dice_set: object = "d6", **kw) -> tuple[Score, list]:
    frame = render_tray(dice, mount=mount, **kw)
    readings = read_dice(frame, dice_set, mount)
    return score(ground_truth(dice, mount), readings, radius=30), readings


def real_photo(name: str):
    img = DATASET / "images" / f"{name}.jpg"
    if not img.exists():  # ../shared sits beside the repo (README, CI): its absence is an error, not a skip
        pytest.fail(f"real photo {img} is missing: clone the repo with ../shared beside it")
    frame = cv2.imread(str(img))
    h, w = frame.shape[:2]
    return frame, yolo_truth(DATASET / "labels" / f"{name}.txt", w, h)


def right_by_box(readings: list[Reading], dice: list[dict]) -> int:
    """Labelled dice (a fixture's JSON: each die's "box" cx, cy, w, h and its "top" value) whose reading, the
    first whose centre lies in the die's box, names its top face."""
    right = 0
    for d in dice:
        cx, cy, w, h = d["box"]
        near = [r for r in readings if abs(r.center[0] - cx) < w / 2 and abs(r.center[1] - cy) < h / 2]
        right += bool(near) and near[0].value == d["top"]
    return right
