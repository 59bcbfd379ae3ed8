"""The box learns its players' dice: a per-box memory of confirmed faces, used from the next roll on.

When a phone confirms or corrects a roll, the box keeps each die's crop and its confirmed top face (the
device stores them under its state directory; vision opens no files). `Memory.add(set_id, crop, face)` keeps
the crop as one example of that face; `read_dice(..., memory=m)` then compares each die with the examples:
no training happens on the Pi.

Why a picture of the face rather than the face CNN's embedding: the shipped CNN knows pips only, and its
penultimate layer hardly tells one icon from another (two different Dice Throne symbols come out 0.98
alike). An example is instead the die's face itself: the square of the face found in the crop, warped
upright to 48x48 grey (so the same face at any angle and any size lines up with itself), slightly blurred,
zero-mean, unit length, kept at its four quarter turns. A die's similarity to an example is their
normalised correlation at the best quarter turn. It sees what the players' own dice look like (their ink,
their corner numbers) and costs about a millisecond per die.

How it combines with the reader (certain must stay right):
- the examples vote: the closest example names a face; the vote is clear when it is close (similarity >=
  `close`) and every other face is `clear` times further (distance = 1 - similarity: a Dice Throne face's
  corner number moves the similarity by thousandths, so a fixed margin would never separate them);
- where the set has a CNN (pip d6) and the reader's reading agrees with a memory that knows every face and
  is `overrule` clear, the die is certain (two readers agree: the reader's own rule); where they disagree
  the die is uncertain (the page asks), with the memory's face as the best guess when the memory is sure;
  the memory never gives a CNN die a face of its own, certain;
- where the set has no CNN (icon and taught sets), a clear memory vote gives the face, certain only when
  every face of the set has at least `min_examples` confirmed examples (`covers`: a face never learnt
  looks like some learnt one, so until then the memory only guesses) and the k nearest all name it.

Typical use by the box:
    mem = Memory(mount="under")
    for crop, top_face_index in confirmed:          # crop_die() of dice from confirmed rolls
        mem.add(set_id, crop, top_face_index)
    readings = read_dice(frame, spec, "under", memory=mem)
    mem.counts(set_id)                               # {top face index: examples}, for the page
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import cv2
import numpy as np

from .classify import crop_patch

SIDE = 48            # an example's side in px (the corner numbers of icon dice must stay legible)
BLUR = 1.0           # px of blur before comparing: a pixel of misalignment must not matter
INSET = 0.92         # the part of the face's square compared (its rounded edge left out)
CROP_SIDE = 64       # crops are kept (and compared) at this size: small files, legible corner numbers
CROP_PAD = 1.10      # the reader's box grown by this (a larger crop leaves fewer pixels for the face)


def crop_die(frame: np.ndarray, center: tuple[float, float], box: tuple[int, int, int, int] | list) -> np.ndarray:
    """The crop of one read die as the memory keeps and compares it: the reader's box grown by CROP_PAD (the
    face and a little room around it, where the face's own square is found). The box keeps it from confirmed
    rolls; the reader cuts a new roll's dice alike. Its own constants, not the CNN's crop: kept crops must
    not change meaning when the CNN's input does."""
    return crop_patch(frame, (float(center[0]), float(center[1]), float(box[2]), float(box[3])), pad=CROP_PAD,
                      size=CROP_SIDE)


def _square(grey: np.ndarray) -> np.ndarray | None:
    """The corners of the die's face in a crop, or None when no square-ish face stands out. The face is what
    is brighter (or darker) than the crop's border, the room around the die, by half of what the middle
    of the crop is: a black die's face a little lighter than the dark room under the tray counts whole, its
    light symbol with it (a threshold between symbol and body would find the symbol only)."""
    h, w = grey.shape
    g = cv2.GaussianBlur(grey, (3, 3), 0).astype(np.float32)
    border = float(np.median(np.concatenate([g[0], g[-1], g[:, 0], g[:, -1]])))
    middle = float(np.median(g[int(0.2 * h):int(0.8 * h), int(0.2 * w):int(0.8 * w)]))
    if abs(middle - border) < 12:
        return None
    cut = (border + middle) / 2
    mask = ((g > cut) if middle > border else (g < cut)).astype(np.uint8) * 255
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    best = None
    for c in contours:
        if cv2.pointPolygonTest(c, (w / 2.0, h / 2.0), False) >= 0:
            best = c
            break
    if best is None:
        return None
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(best)
    if min(rw, rh) < 0.4 * min(h, w) or max(rw, rh) > 1.35 * min(rw, rh):
        return None
    return cv2.boxPoints(((cx, cy), (rw * INSET, rh * INSET), angle)).astype(np.float32)


def face_view(crop: np.ndarray) -> np.ndarray | None:
    """The die's face from a crop, warped upright (up to a quarter turn) to SIDE x SIDE grey, or None when no
    face stands out: the same face at any angle and any size in the frame then lines up with itself, so a
    pixel comparison works (a crop whose face is not found is not compared at all: unaligned, it would
    match whatever it happens to resemble)."""
    g = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    corners = _square(g)
    if corners is None:
        return None
    dst = np.array([[0, SIDE - 1], [0, 0], [SIDE - 1, 0], [SIDE - 1, SIDE - 1]], np.float32)
    m = cv2.getPerspectiveTransform(corners, dst)
    return cv2.warpPerspective(g.astype(np.float32), m, (SIDE, SIDE), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


def _describe(grey: np.ndarray) -> np.ndarray:
    """A SIDE x SIDE grey face, slightly blurred (a pixel of misalignment must not matter), zero-mean, unit
    length (a flat patch stays all zeros)."""
    v = cv2.GaussianBlur(grey, (0, 0), BLUR).ravel()
    v = v - v.mean()
    return (v / (np.linalg.norm(v) + 1e-3)).astype(np.float32)


def describe(crop: np.ndarray, quarter_turns: int = 0) -> np.ndarray:
    """The descriptor of a BGR crop of one die (any size), its face turned by `quarter_turns` x 90 degrees;
    all zeros (like nothing) when the crop shows no face."""
    view = face_view(crop)
    if view is None:
        return np.zeros(SIDE * SIDE, np.float32)
    return _describe(np.ascontiguousarray(np.rot90(view, quarter_turns)))


@dataclass
class Vote:
    face: int            # top face index the examples vote for
    similarity: float    # similarity of the closest example of that face
    margin: float        # how much closer than the closest example of any other face
    unanimous: bool      # the k closest examples all name this face
    support: int         # examples of this face in the memory

    @property
    def ratio(self) -> float:
        """How many times further the closest other face is than this face (1 - similarity as distance): the
        digit in a corner of a Dice Throne face moves the similarity by a few thousandths only, so a clear
        vote is one where the other faces are several times further, not a fixed amount further."""
        other = self.similarity - self.margin
        return (1.0 - other) / max(1.0 - self.similarity, 1e-4)


@dataclass
class Memory:
    """Examples of confirmed faces, per dice set id. `mount` is where the crops were seen from."""

    mount: str = "under"
    k: int = 2
    close: float = 0.80
    clear: float = 3.0      # other faces this many times further: a clear vote
    overrule: float = 6.0   # ...and this many times to overrule an unsure template reading, certain
    min_examples: int = 2
    _examples: dict[str, list[tuple[np.ndarray, int]]] = field(default_factory=dict)
    _stacked: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    # the box adds examples from a phone's request while its camera thread reads: one lock for both
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def embed(self, patches: list[np.ndarray]) -> np.ndarray:
        """Descriptors of BGR crops (one row each), as `vote` takes them."""
        if not patches:
            return np.zeros((0, SIDE * SIDE), np.float32)
        return np.stack([describe(p) for p in patches])

    def add(self, set_id: str, crop: np.ndarray, face: int) -> None:
        """Remember that `crop` (a BGR image of one die, as the reader boxed it) shows top face `face`."""
        if crop is None or crop.ndim != 3 or crop.shape[2] != 3 or min(crop.shape[:2]) < 4:
            raise ValueError("a crop must be a BGR image of one die, at least 4x4 px")
        if not isinstance(face, int) or isinstance(face, bool) or face < 1:
            raise ValueError("face must be the top face's index (1..n)")
        view = face_view(crop)
        turns = (np.stack([_describe(np.ascontiguousarray(np.rot90(view, q))) for q in range(4)]) if view is not None
                 else np.zeros((4, SIDE * SIDE), np.float32))  # counted, never matched
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

    def covers(self, set_id: str, n_faces: int) -> bool:
        """True when every face 1..n_faces has `min_examples` examples: only then does a vote's margin mean
        anything (a die of a face never learnt resembles some learnt face, e.g. a sword with another corner
        number), so only then may the memory make a die certain."""
        got = self.counts(set_id)
        return all(got.get(f, 0) >= self.min_examples for f in range(1, n_faces + 1))

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
        return v.similarity >= self.close and v.ratio >= self.clear

    def overrules(self, v: Vote) -> bool:
        """A vote sure enough to give a die a face the reader's templates did not see, certain (on renders of
        Dice Throne barbarian dice, clear votes at 2x that disagreed with the templates were wrong 7 times in
        85; at 3x and above none of 627 clear votes over five sets was wrong)."""
        return v.similarity >= self.close and v.ratio >= self.overrule
