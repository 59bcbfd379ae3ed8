"""`dicesight teach SET --photos DIR --labels DIR --state-dir S [--mount over|under]`: teach from labelled photos.

The same path as a phone's confirmation (`device.learnt.LearntDice.keep`): each labelled die's crop, cut as the
tray cuts a die it read (`vision.memory.crop_die`), is kept with its confirmed top face, and `dicesight read
--state-dir S` (or the box started on that state directory) reads with it from then on. Labels are the JSON
of `../shared/datasets/` (`{"dice": [{"value", "cx", "cy", "w", "h"}]}` in pixels, one file per photo with the
photo's name); `value` is the top face: a number, or the set's face name for symbol dice.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2

from vision.dicesets import get_set
from vision.memory import crop_die

from .dice_sets import spec
from .learnt import Confirmed, LearntDice, face_index

Emit = Callable[[dict[str, Any]], None]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


def labelled_dice(photo: Path, labels: Path) -> list[dict[str, Any]] | None:
    """The photo's labelled dice, or None when it has no readable label file."""
    path = labels / (photo.stem + ".json")
    try:
        dice = json.loads(path.read_text(encoding="utf-8")).get("dice")
    except (OSError, ValueError, AttributeError):
        return None
    return [d for d in dice if isinstance(d, dict)] if isinstance(dice, list) else None


def confirmed_in(photo: Path, dice: list[dict[str, Any]], set_id: str) -> list[Confirmed]:
    """The photo's labelled dice as confirmed dice of `set_id` (a die naming no face of the set is skipped)."""
    frame = cv2.imread(str(photo), cv2.IMREAD_COLOR)
    if frame is None:
        return []
    ds = get_set(spec(set_id))
    out = []
    for d in dice:
        face = face_index(ds, d.get("value"))
        try:
            cx, cy, w, h = (float(d[k]) for k in ("cx", "cy", "w", "h"))
        except (KeyError, TypeError, ValueError):
            continue
        if face is None or w < 4 or h < 4:
            continue
        box = (int(cx - w / 2), int(cy - h / 2), int(w), int(h))
        out.append(Confirmed(set_id, crop_die(frame, (cx, cy), box), face))
    return out


def run(set_id: str, photos: Path, labels: Path, state_dir: Path, mount: str, emit: Emit) -> int:
    if not photos.is_dir() or not labels.is_dir():
        emit({"error": {"code": "no_photos", "message": f"{photos} and {labels} must both be folders."}})
        return 2
    learnt = LearntDice(state_dir, mount)
    taught = skipped = 0
    for photo in sorted(p for p in photos.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
        dice = labelled_dice(photo, labels)
        if dice is None:
            skipped += 1
            continue
        taught += learnt.keep(confirmed_in(photo, dice, set_id))
    counts = learnt.counts().get(set_id, {})
    emit({"event": "taught", "set": set_id, "mount": mount, "dice": taught, "photos_without_labels": skipped,
          "faces": counts.get("faces", {}), "state_dir": str(state_dir)})
    return 0 if taught else 1
