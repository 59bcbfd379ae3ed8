"""Teaching a dice set from real dice: one face at a time, the die alone on the tray.

`face_template(frame, mount)` gives the template of the single die in view (an ink map of its face, 48x48
float 0..1, the same representation the reader matches against). The caller stores it (vision opens no
files) and passes `{top_index: [template, ...]}` back to `read_dice(..., taught=...)`.
Templates are taught from the mount they will be read at: under the tray that is the face on the glass,
labelled with the face on top, so no opposite-face table is needed.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from .dicesets import DiceSet, DiceSetLike, get_set
from .faces import face_ink
from .reader import find_dice, read_dice
from .reading import Reading


class TeachError(ValueError):
    """The frame does not show exactly one readable die."""


def face_template(frame_bgr: np.ndarray, mount: str = "under", background: np.ndarray | None = None) -> np.ndarray:
    """Ink template of the one die in the frame; TeachError when there is none or several."""
    lab = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2Lab)
    blobs = find_dice(frame_bgr, mount, background, lab)
    if not blobs:
        raise TeachError("no die found on the tray")
    blobs.sort(key=lambda b: -b.area)
    if len(blobs) > 1 and blobs[1].area > 0.5 * blobs[0].area:
        raise TeachError("more than one die on the tray: leave only the die being taught")
    return face_ink(frame_bgr, lab, blobs[0])


def to_png_array(template: np.ndarray) -> np.ndarray:
    return np.clip(template * 255.0 + 0.5, 0, 255).astype(np.uint8)


def from_png_array(img: np.ndarray) -> np.ndarray:
    if img.ndim == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    return img.astype(np.float32) / 255.0


def glass_set(ds: DiceSet) -> DiceSet:
    """`ds` with no opposite map: read under the tray, its readings name the face lying on the glass."""
    return replace(ds, opposite={})


def seen_faces(frame_bgr: np.ndarray, dice_set: DiceSetLike,
               dice: list[tuple[float, float, float]]) -> list[int | None]:
    """For each die the caller knows is there (`(cx, cy, reach)` in px), the index of the face lying on the
    glass, as the reader names it with no opposite map, or None where no certain reading lies within reach.

    Why: teaching from below pairs this face with the top face a player confirms, and those pairs are the
    player's own dice's opposite map (device.opposites). Only certain readings count: a guess is no evidence.
    Taught faces and the box's memory are left out on purpose: they name the top face directly."""
    ds = glass_set(get_set(dice_set))
    readings = [r for r in read_dice(frame_bgr, ds, "under") if r.certain]
    out: list[int | None] = []
    for cx, cy, reach in dice:
        near = [r for r in readings if (r.center[0] - cx) ** 2 + (r.center[1] - cy) ** 2 <= reach ** 2]
        best = min(near, key=lambda r: (r.center[0] - cx) ** 2 + (r.center[1] - cy) ** 2, default=None)
        out.append(None if best is None else _index_of(ds, best))
    return out


def _index_of(ds: DiceSet, reading: Reading) -> int | None:
    """The face a reading names, when exactly one face of the set has its symbol and value."""
    hits = [f.index for f in ds.faces if f.name == reading.face and f.value == reading.value]
    return hits[0] if len(hits) == 1 else None
