"""The box learns its players' dice: a per-box memory of confirmed faces, used from the next roll on.

When a phone confirms or corrects a roll, the box keeps each die's crop and its confirmed top face (the
device stores them under its state directory; vision opens no files). `Memory.add(set_id, crop, face)` keeps
the crop as one example of that face; `read_dice(..., memory=m)` then compares each die with the examples:
no training happens on the Pi.

Why a picture of the face rather than the face CNN's embedding: the shipped CNN knows pips only, and its
penultimate layer hardly tells one icon from another (two different Dice Throne symbols come out 0.98
alike). An example is instead the die's grey face itself (the middle of the crop, zero-mean, unit length),
kept at every 10 degrees of rotation, so a die that lands turned matches its example at the best angle;
the similarity of a die to an example is their normalised correlation at that angle. It sees what the
players' own dice look like (their ink, their corner numbers), and it is cheap: a few ms per die with a
hundred examples.

How it combines with the reader (certain must stay right):
- the examples vote (the k most similar); a vote counts only when it is close and clear (similarity >=
  `close`, and the best example of any other face clearly less similar);
- where the set has a CNN and both agree, the die keeps the CNN's certainty; where they disagree the die is
  uncertain (the page asks), with the memory's face as the best guess when the memory is sure;
- where the set has no CNN (icon and taught sets), a clear memory vote gives the face, certain only when at
  least `min_examples` examples of that face were confirmed and the k nearest all name it.

Typical use by the box:
    mem = Memory(mount="under")
    for crop, top_face_index in confirmed:          # crops kept from confirmed rolls
        mem.add(set_id, crop, top_face_index)
    readings = read_dice(frame, spec, "under", memory=mem)
    mem.counts(set_id)                               # {top face index: examples}, for the page
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import cv2
import numpy as np

from .classify import PAD, crop_patch

SIDE = 48            # an example's side in px (the corner numbers of icon dice must stay legible)
RADIUS = 0.40        # the disc compared, as a fraction of the side: the face, not the room around it
STEP_DEG = 10        # examples are kept at every STEP_DEG degrees of rotation

_yy, _xx = np.mgrid[:SIDE, :SIDE]
_DISC = ((_xx - (SIDE - 1) / 2) ** 2 + (_yy - (SIDE - 1) / 2) ** 2) <= (SIDE * RADIUS) ** 2


CROP_SIDE = 64       # crops are kept (and compared) at this size: small files, legible corner numbers


def crop_die(frame: np.ndarray, center: tuple[float, float], box: tuple[int, int, int, int] | list) -> np.ndarray:
    """The crop of one read die as the memory keeps and compares it (the reader's box grown as the CNN's
    crop is): the box keeps it from confirmed rolls and the reader cuts the dice of a new roll the same way."""
    return crop_patch(frame, (float(center[0]), float(center[1]), float(box[2]), float(box[3])), pad=PAD,
                      size=CROP_SIDE)


def _grey(crop: np.ndarray) -> np.ndarray:
    g = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    return cv2.resize(g.astype(np.float32), (SIDE, SIDE), interpolation=cv2.INTER_AREA)


def _describe(grey: np.ndarray) -> np.ndarray:
    """The disc of a SIDE x SIDE grey face, zero-mean and unit length (a flat patch stays all zeros)."""
    v = grey[_DISC]
    v = v - v.mean()
    return (v / (np.linalg.norm(v) + 1e-3)).astype(np.float32)


def describe(crop: np.ndarray, angle: float = 0.0) -> np.ndarray:
    """The descriptor of a BGR crop of one die (any size: it is resized), turned by `angle` degrees."""
    g = _grey(crop)
    if angle:
        m = cv2.getRotationMatrix2D(((SIDE - 1) / 2, (SIDE - 1) / 2), angle, 1.0)
        g = cv2.warpAffine(g, m, (SIDE, SIDE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return _describe(g)


@dataclass
class Vote:
    face: int            # top face index the examples vote for
    similarity: float    # similarity of the closest example of that face
    margin: float        # how much closer than the closest example of any other face
    unanimous: bool      # the k closest examples all name this face
    support: int         # examples of this face in the memory


@dataclass
class Memory:
    """Examples of confirmed faces, per dice set id. `mount` is where the crops were seen from."""

    mount: str = "under"
    k: int = 3
    close: float = 0.80
    clear: float = 0.04
    min_examples: int = 2
    _examples: dict[str, list[tuple[np.ndarray, int]]] = field(default_factory=dict)
    _stacked: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    # the box adds examples from a phone's request while its camera thread reads: one lock for both
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def embed(self, patches: list[np.ndarray]) -> np.ndarray:
        """Descriptors of BGR crops (one row each), as `vote` takes them."""
        if not patches:
            return np.zeros((0, int(_DISC.sum())), np.float32)
        return np.stack([describe(p) for p in patches])

    def add(self, set_id: str, crop: np.ndarray, face: int) -> None:
        """Remember that `crop` (a BGR image of one die, as the reader boxed it) shows top face `face`."""
        if crop is None or crop.ndim != 3 or crop.shape[2] != 3 or min(crop.shape[:2]) < 4:
            raise ValueError("a crop must be a BGR image of one die, at least 4x4 px")
        if not isinstance(face, int) or isinstance(face, bool) or face < 1:
            raise ValueError("face must be the top face's index (1..n)")
        turns = np.stack([describe(crop, a) for a in range(0, 360, STEP_DEG)])
        with self._lock:
            self._examples.setdefault(set_id, []).append((turns, face))
            self._stacked.pop(set_id, None)

    def forget(self, set_id: str) -> None:
        with self._lock:
            self._examples.pop(set_id, None)
            self._stacked.pop(set_id, None)

    def counts(self, set_id: str) -> dict[int, int]:
        out: dict[int, int] = {}
        with self._lock:
            examples = list(self._examples.get(set_id, []))
        for _, f in examples:
            out[f] = out.get(f, 0) + 1
        return dict(sorted(out.items()))

    def sets(self) -> list[str]:
        return sorted(s for s, ex in self._examples.items() if ex)

    def __len__(self) -> int:
        return sum(len(v) for v in self._examples.values())

    def knows(self, set_id: str) -> bool:
        return bool(self._examples.get(set_id))

    def _matrix(self, set_id: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(every example's every turn as rows, each example's face), stacked once per change."""
        with self._lock:
            got = self._stacked.get(set_id)
            ex = self._examples.get(set_id)
            if got is None and ex:
                got = (np.concatenate([t for t, _ in ex]), np.array([f for _, f in ex]))
                self._stacked[set_id] = got
            return got

    def vote(self, set_id: str, embedding: np.ndarray) -> Vote | None:
        """The memory's opinion on one die (its descriptor), or None when it knows no face of the set."""
        got = self._matrix(set_id)
        if got is None:
            return None
        rows, faces = got
        sims = (rows @ embedding).reshape(len(faces), -1).max(1)  # each example at its best turn
        order = np.argsort(-sims)
        best_face = int(faces[order[0]])
        others = sims[faces != best_face]
        nearest_other = float(others.max()) if len(others) else -1.0
        top_k = faces[order[:self.k]]
        support = int((faces == best_face).sum())
        return Vote(best_face, float(sims[order[0]]), float(sims[order[0]]) - nearest_other,
                    bool((top_k == best_face).all()), support)

    def is_clear(self, v: Vote) -> bool:
        return v.similarity >= self.close and v.margin >= self.clear
