"""Numeral faces (d12, d20...) read by a small CNN (`vision/models/numerals.onnx`, run by OpenCV's `cv2.dnn`).

The network sees the whole die cut out square around its blob (`die_square`), and learnt numbers upright
(within about a quarter of a right angle). A die lies at any angle, so the reader shows it the crop at eight
angles, 45 degrees apart (`looks`), and keeps the angle whose face it is surest of (`pick`); a 6 and a 9 are
then told apart only by the mark under them, as players do. A d12 is shown at its five vertex-up turns
instead (`faces.pentagon_angle`: its number stands upright towards a vertex), where they never meet. Seen
from below (the glass face, mirrored), the crop is flipped first, so one drawing per number is learnt.

Classes: the numerals "1".."20" and "none" (not a die: a part of a die, a cocked die, the room). A set is read
with the softmax over its own numerals and "none" only. The sidecar JSON holds the temperature and the
confidence above which the CNN alone is sure, both fitted on held-back photos and renders
(`training/numerals.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from .classify import FaceClassifier, crop_rect, normalise_batch, quarter_turns
from .classify import load as load_classifier
from .dicesets import DiceSet

SIZE = 40      # the network's input side
PAD = 0.8      # the crop's side over the die outline's: the middle of the die, where its top face's number is
NONE = "none"
LOOKS = 8      # angles a crop is shown at (two cuts, 45 degrees apart, each in its four quarter turns)
P_TURNS = 5    # a d12's turns (one per vertex)


def die_square(blob: Any) -> tuple[float, float, float]:
    """(cx, cy, side) of the square the CNN sees for a blob (a finder `Blob`): centred on the blob's centroid,
    as wide as its outline's longer side; training cuts its crops with this same function."""
    (rx, ry), (rw, rh), _ = blob.rect
    m = cv2.moments(blob.contour)
    cx, cy = (m["m10"] / m["m00"], m["m01"] / m["m00"]) if m["m00"] > 0 else (rx, ry)
    return float(cx), float(cy), float(max(rw, rh, 4.0))


def numeral_crop(img: np.ndarray, cx: float, cy: float, side: float, angle: float = 0.0,
                 mirror: bool = False, pad: float = PAD) -> np.ndarray:
    """The die's square (side px, turned by `angle` deg) scaled by `pad`, as SIZE x SIZE BGR uint8; `mirror`:
    flipped left-right (a face seen through the glass)."""
    c = crop_rect(img, ((cx, cy), (side, side), angle), pad, SIZE)
    return np.ascontiguousarray(c[:, ::-1]) if mirror else c


def numeral_faces(ds: DiceSet) -> dict[int, int]:
    """{numeral: face index} for a set whose faces carry plain numerals ("text:N", or "text:N_" underlined),
    else {}."""
    out = {}
    for f in ds.faces:
        n = f.glyph[5:].rstrip("_")
        if not f.glyph.startswith("text:") or not n.isdigit():
            return {}
        out[int(n)] = f.index
    return out


def unmarked_turns(ds: DiceSet) -> set[int]:
    """Numerals of the set that half a turn makes into another of its numerals, with no mark to tell them
    apart (a 6 and a 9 drawn without the underline): the CNN, which looks at every angle, is never sure of
    those alone."""
    glyphs = {f.glyph for f in ds.faces}
    return {n for n, m in ((6, 9), (9, 6)) if f"text:{n}" in glyphs and any(g.startswith(f"text:{m}") for g in glyphs)}


def looks(img: np.ndarray, cx: float, cy: float, side: float, mirror: bool = False, pad: float = PAD,
          upright: float | None = None) -> np.ndarray:
    """(LOOKS, SIZE, SIZE, 3): the die's square at 0, 90, 180, 270 and 45, 135, 225, 315 degrees; or, given
    `upright` (a d12's angle with a vertex straight up: its number is upright towards one of its five
    vertices), (P_TURNS, ...) at those five turns exactly."""
    if upright is not None:
        return np.stack([numeral_crop(img, cx, cy, side, upright + 360.0 * k / P_TURNS, mirror, pad)
                         for k in range(P_TURNS)])
    cuts = np.stack([numeral_crop(img, cx, cy, side, a, mirror, pad) for a in (0.0, 45.0)])
    return quarter_turns(cuts)


def pick(probs: np.ndarray, none: int, n_looks: int = LOOKS) -> np.ndarray:
    """Probabilities (n * n_looks, classes) of each crop's looks -> (n, classes): per crop, the look whose
    likeliest face (not "none") is likeliest."""
    p = probs.reshape(-1, n_looks, probs.shape[1])
    face = np.delete(p, none, axis=2).max(2)
    return p[np.arange(len(p)), face.argmax(1)]


@dataclass(frozen=True)
class NumeralGuess:
    index: int | None     # the face index the numeral names (None: "none", not a die)
    confidence: float     # calibrated probability of that answer
    sure: bool            # above the CNN's own certainty threshold


def classifier() -> FaceClassifier | None:
    """The shipped numeral CNN, or None when the package has none."""
    return load_classifier("numerals")


def read_numeral(clf: FaceClassifier, img: np.ndarray, blob: Any, ds: DiceSet, mirror: bool,
                 upright: float | None = None) -> NumeralGuess | None:
    """The CNN's reading of one blob of a numeral set: the face seen (on the glass when `mirror`), or None when
    the set's numerals are not all known to the model. `upright`: a d12's vertex-up angle (see `looks`)."""
    faces = numeral_faces(ds)
    if not faces or any(str(n) not in clf.classes for n in faces):
        return None
    allowed = np.array([c == NONE or (c.isdigit() and int(c) in faces) for c in clf.classes])
    cx, cy, side = die_square(blob)
    crops = looks(img, cx, cy, side, mirror, float(clf.meta.get("pad", PAD)), upright)
    probs, _ = clf.run(normalise_batch(crops), allowed)
    p = pick(probs, clf.classes.index(NONE), len(crops))[0]
    k = int(p.argmax())
    label = clf.classes[k]
    conf = float(p[k])
    if label == NONE:
        return NumeralGuess(None, conf, conf >= clf.certain_at)
    # at the d12's five turns a 6 is never half a turn from the 9
    ambiguous = upright is None and int(label) in unmarked_turns(ds)
    return NumeralGuess(faces[int(label)], conf, conf >= clf.certain_at and not ambiguous)


def combine(seen: int | None, conf: float, guess: NumeralGuess | None,
            templates_first: bool = False) -> tuple[int | None, float, bool]:
    """The drawn templates' reading (face seen, confidence; certain at 0.6) joined with the CNN's: (face seen,
    confidence, keep the blob). Both naming the same face: the surer of the two. The templates unsure and the
    CNN sure: the CNN's face. Both sure of different faces: unsure, the templates' guess shown. Both unsure:
    the likelier guess, or with `templates_first` (a d12, whose templates are cut by its own geometry) the
    templates' whenever they have one (on the d12 renders their unsure guesses are the better ones). The
    CNN sure that the blob is no die: dropped unless the templates are sure of a face (then unsure)."""
    if guess is None:
        return seen, conf, True
    if guess.index is None:
        if guess.sure:
            return seen, min(conf, 0.5), conf >= 0.6 and seen is not None
        return seen, conf, True
    if seen == guess.index:
        return seen, max(conf, guess.confidence if guess.sure else min(guess.confidence, 0.59)), True
    if conf >= 0.6 and seen is not None:
        return seen, 0.5 if guess.sure else conf, True
    if guess.sure:
        return guess.index, guess.confidence, True
    return (seen, conf, True) if seen is not None and (templates_first or conf >= min(guess.confidence, 0.59)) else \
        (guess.index, min(guess.confidence, 0.59), True)
