"""How the real photos are split for training and measuring (no torch here: the benches import it)."""

from __future__ import annotations

import zlib

from training.data import Photo

PHOTO_SETS = ("webcam-d6", "roboflow-d6")
CLASSES = ["1", "2", "3", "4", "5", "6", "none"]
FOLDS = 2


def fold_of(photo: Photo) -> int:
    """Cross-validation fold of a photo: from its source photo's name, stable on every machine."""
    return zlib.crc32(f"{photo.dataset}/{photo.group}".encode()) % FOLDS


def is_calibration(photo: Photo) -> bool:
    """About one photo in seven of the training photos is held back for calibration."""
    return zlib.crc32(f"calib/{photo.dataset}/{photo.group}".encode()) % 7 == 0
