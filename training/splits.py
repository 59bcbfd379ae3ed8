"""How the real photos are split for training and measuring (no torch here: the benches import it)."""

from __future__ import annotations

import zlib
from pathlib import Path

from training.data import Photo

PHOTO_SETS = ("webcam-d6", "roboflow-d6")   # the sets the shipped photo networks learnt from
# every pip-d6 photo set in ../shared/datasets (the numeral sets have no pips): `--photo-sets` of the photo
# trainers may name any of them, to measure each set left out of the rest (46th session, docs/dice-sets.md)
PIP_PHOTO_SETS = (*PHOTO_SETS, "rune55-colour", "rune55-grey", "translucent-crops")
CLASSES = ["1", "2", "3", "4", "5", "6", "none"]
FOLDS = 2


def fold_of(photo: Photo) -> int:
    """Cross-validation fold of a photo: from its source photo's name, stable on every machine."""
    return zlib.crc32(f"{photo.dataset}/{photo.group}".encode()) % FOLDS


def is_calibration(photo: Photo) -> bool:
    """About one photo in seven of the training photos is held back for calibration."""
    return zlib.crc32(f"calib/{photo.dataset}/{photo.group}".encode()) % 7 == 0


def model_jobs(shipped: str, photos: list[Photo], out: Path, suite: bool, suite_out: Path,
               sets: tuple[str, ...] = PHOTO_SETS) -> list[tuple[str, list[Photo], Path, dict]]:
    """(name, photos to train on, folder, note for the model's JSON) of each model to train: the shipped one on
    every photo of `sets` and, with `suite`, one per cross-validation fold and one per left-out dataset for
    the benches, so that a bench never reads a photo with a model that trained on it. The pip classifier and
    the die finder split alike, so a bench can pair each fold's classifier with that fold's finder."""
    out_jobs = [(shipped, photos, out, {"photos": list(sets)})]
    if suite:
        for k in range(FOLDS):
            out_jobs.append((f"cv{k}", [p for p in photos if fold_of(p) != k], suite_out,
                             {"photos": list(sets), "held_out_fold": k, "folds": FOLDS}))
        for ds in sets:
            out_jobs.append((f"lodo-{ds}", [p for p in photos if p.dataset != ds], suite_out,
                             {"photos": [d for d in sets if d != ds], "left_out": ds}))
    return out_jobs


def photo_sets(arg: str) -> tuple[str, ...]:
    """The photo sets a trainer's `--photo-sets` names (comma-separated; empty: the shipped `PHOTO_SETS`),
    each one of `PIP_PHOTO_SETS`."""
    sets = tuple(name for name in arg.split(",") if name) or PHOTO_SETS
    unknown = [name for name in sets if name not in PIP_PHOTO_SETS]
    if unknown:
        raise SystemExit(f"not a pip-d6 photo set: {', '.join(unknown)} (known: {', '.join(PIP_PHOTO_SETS)})")
    return sets
