"""`dicesight teach SET --photos DIR --labels DIR --state-dir S [--mount over|under]`: teach from labelled photos.

The same path as a phone's confirmation (`device.learnt.LearntDice.keep`): each labelled die's crop, cut as the
tray cuts a die it read (`vision.memory.crop_die`), is kept with its confirmed top face, and `dicesight read
--state-dir S` (or the box started on that state directory) reads with it from then on. Labels are the JSON
of `../shared/datasets/` (`{"dice": [{"value", "cx", "cy", "w", "h"}]}` in pixels, one file per photo with the
photo's name); `value` is the top face: a number, or the set's face name for symbol dice.

Under the tray each die also tells which face lay on the glass against the top face the label gives (read
with no opposite map, `vision.teach.seen_faces`): those pairs teach the box the opposite map of these very
dice (device.opposites), reported as `opposite` (learnt so far, faces still `unpaired`, `contradictions`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2

from vision.dicesets import DiceSet, get_set
from vision.memory import crop_die
from vision.teach import seen_faces

from .dice_file import DiceFileError, is_file_name, load
from .dice_sets import spec, use_files
from .learnt import Confirmed, LearntDice, colour_of, face_index

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


def confirmed_in(photo: Path, dice: list[dict[str, Any]], set_id: str, mount: str = "over") -> list[Confirmed]:
    """The photo's labelled dice as confirmed dice of `set_id` (a die naming no face of the set is skipped);
    under the tray each with the face seen on the glass, where the reader is sure of it; each with its labelled
    `colour` where the set tells dice apart by colour and has that one."""
    frame = cv2.imread(str(photo), cv2.IMREAD_COLOR)
    if frame is None:
        return []
    ds = get_set(spec(set_id))
    kept = [(k, colour_of(ds, d)) for d in dice if (k := _labelled(d, ds)) is not None]
    glass = seen_faces(frame, ds, [(cx, cy, max(w, h) / 2) for (_, (cx, cy, w, h)), _ in kept]) \
        if mount == "under" and kept else [None] * len(kept)
    return [Confirmed(set_id, crop_die(frame, (cx, cy), (int(cx - w / 2), int(cy - h / 2), int(w), int(h))),
                      face, seen, colour)
            for ((face, (cx, cy, w, h)), colour), seen in zip(kept, glass, strict=True)]


def _labelled(d: dict[str, Any], ds: DiceSet) -> tuple[int, tuple[float, float, float, float]] | None:
    """(top face index, (cx, cy, w, h)) of a labelled die, or None when it names no face of the set or no box."""
    try:
        cx, cy, w, h = (float(d[k]) for k in ("cx", "cy", "w", "h"))
    except (KeyError, TypeError, ValueError):
        return None
    face = face_index(ds, d.get("value"))
    return None if face is None or w < 4 or h < 4 else (face, (cx, cy, w, h))


def _set_id(name: str, mount: str, emit: Emit) -> str | None:
    """The set SET names: an id the games describe, or a dice-set file (read as the box's set of that id, so
    everything taught is filed under it); None after saying why it cannot be used."""
    try:
        if is_file_name(name):
            found = load(name, mount)
            use_files([found])
            return found.id
        return get_set(spec(name)).id
    except (DiceFileError, KeyError) as err:
        code = "bad_dice_file" if isinstance(err, DiceFileError) else "unknown_dice_set"
        emit({"error": {"code": code, "message": str(err).strip(chr(34) + chr(39))}})
        return None


def run(set_id: str, photos: Path, labels: Path, state_dir: Path, mount: str, emit: Emit) -> int:
    if not photos.is_dir() or not labels.is_dir():
        emit({"error": {"code": "no_photos", "message": f"{photos} and {labels} must both be folders."}})
        return 2
    found = _set_id(set_id, mount, emit)
    if found is None:
        return 2
    set_id = found
    learnt = LearntDice(state_dir, mount)
    taught = skipped = 0
    for photo in sorted(p for p in photos.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
        dice = labelled_dice(photo, labels)
        if dice is None:
            skipped += 1
            continue
        confirmed = confirmed_in(photo, dice, set_id, mount)
        taught += learnt.keep(confirmed)
    counts = learnt.counts().get(set_id, {})
    emit({"event": "taught", "set": set_id, "mount": mount, "dice": taught, "photos_without_labels": skipped,
          "faces": counts.get("faces", {}), **({"colours": counts["colours"]} if "colours" in counts else {}),
          "state_dir": str(state_dir),
          **({"opposite": learnt.opposites.report(get_set(spec(set_id)))} if mount == "under" else {})})
    return 0 if taught else 1
