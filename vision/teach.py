"""Teaching a dice set from real dice: one face at a time, the die alone on the tray.

`face_template(frame, mount)` gives the template of the single die in view (an ink map of its face, 48x48
float 0..1, the same representation the reader matches against). The caller stores it (vision opens no
files) and passes `{top_index: [template, ...]}` back to `read_dice(..., taught=...)`.
Templates are taught from the mount they will be read at: under the tray that is the face on the glass,
labelled with the face on top, so no opposite-face table is needed.
"""

from __future__ import annotations

import cv2
import numpy as np

from .faces import face_ink
from .reader import find_dice


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
