"""The under-tray renders (`training/blender_undertray.py`) as a camera would deliver them: sensor and truth.

Blender gives clean light; a Pi camera adds what this module draws on top, seeded per frame so a frame always
comes out the same: shot noise that grows with brightness plus read noise, a little defocus or motion blur,
white balance off by a few percent per channel, and JPEG. Kept out of the Blender script so one render serves
several sensors and the bench can hold the sensor out as a factor too. No Blender here: this runs in the
package's Python (numpy, OpenCV), in tests and benches.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

FACTOR_KEYS = ("build", "plate", "plate_mm", "plate_wear", "leds", "led_colour", "room", "over")
DIE_KEYS = ("material", "colour", "touching", "tilted")


@dataclass(frozen=True)
class Scene:
    """One rendered scene: its frame with dice, its empty frame, its factors and its dice's truth."""

    folder: Path
    image: str
    empty: str
    factors: dict
    dice: list[dict]
    cut: int

    def truth(self) -> list[dict]:
        """Truth in `vision.scoring.score`'s shape: the top face is what the reader must name."""
        return [{"value": d["top"], "center": (d["box"][0], d["box"][1]), "size": (d["box"][2], d["box"][3]),
                 **{k: d[k] for k in DIE_KEYS}} for d in self.dice]


def scenes(folders: list[Path]) -> Iterator[Scene]:
    """Every finished scene of the folders (a folder still rendering gives the scenes written so far)."""
    for folder in folders:
        labels = folder / "labels.jsonl"
        if not labels.exists():
            continue
        for line in labels.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if (folder / row["image"]).exists() and (folder / row["empty"]).exists():
                yield Scene(folder, row["image"], row["empty"], row["factors"], row["dice"], row.get("cut", 0))


def sensor(img: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """The frame as a small camera module delivers it (see the module doc); `strength` 0 gives it back as is."""
    if strength <= 0:
        return img
    out = img.astype(np.float32) / 255.0
    out *= 1.0 + rng.uniform(-0.08, 0.08, size=3).astype(np.float32) * strength  # white balance off
    if rng.random() < 0.5 * strength:
        k = int(rng.choice([3, 5]))
        out = cv2.GaussianBlur(out, (k, k), rng.uniform(0.4, 1.2))
    shot = rng.uniform(0.0005, 0.006) * strength
    read = rng.uniform(0.001, 0.006) * strength
    noise = rng.standard_normal(out.shape).astype(np.float32)
    out = out + noise * np.sqrt(np.clip(out, 0, 1) * shot + read * read)
    out = np.clip(out * 255.0, 0, 255).astype(np.uint8)
    quality = int(rng.integers(55, 92))
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else out


def frames(scene: Scene, seed: int, strength: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """(the frame with dice, the empty frame) through the sensor, each with its own noise draw."""
    rng = np.random.default_rng([seed, *[ord(c) for c in scene.image]])
    with_dice = cv2.imread(str(scene.folder / scene.image), cv2.IMREAD_COLOR)
    empty = cv2.imread(str(scene.folder / scene.empty), cv2.IMREAD_COLOR)
    return sensor(with_dice, rng, strength), sensor(empty, rng, strength)
