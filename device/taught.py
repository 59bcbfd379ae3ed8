"""Faces taught on this box (`dicesight teach SET`): where they are kept and how the reader gets them back.

Kept apart from the teach command so the table's tray service and `dicesight read` can load taught faces
without importing a CLI module. Layout: `STATE_DIR/dice/<set>/<mount>/face-<index>-<n>.png`.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.teach import from_png_array


def set_folder(name: str) -> str:
    """A dice set's id as a folder name under STATE_DIR/dice (taught faces, learnt crops, opposite faces): ids
    of a game's sets (game:hero) hold characters a file system may refuse."""
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


def taught_dir(state_dir: Path, dice_set: str, mount: str) -> Path:
    """The folder of one set's faces taught for one mount."""
    return Path(state_dir) / "dice" / set_folder(dice_set) / mount


def load_taught(state_dir: Path, dice_set: str, mount: str) -> dict[int, list[np.ndarray]] | None:
    """Taught templates {top face index: [template, ...]} or None when the set was never taught."""
    d = taught_dir(state_dir, dice_set, mount)
    if not d.is_dir():
        return None
    out: dict[int, list[np.ndarray]] = {}
    for p in sorted(d.glob("face-*.png")):
        try:
            idx = int(p.stem.split("-")[1])
        except (IndexError, ValueError):
            continue
        img = cv2.imdecode(np.frombuffer(p.read_bytes(), np.uint8), cv2.IMREAD_GRAYSCALE)
        if img is not None:
            out.setdefault(idx, []).append(from_png_array(img))
    return out or None
