"""The small corner number of a face that shares its symbol with other faces of the same die.

A Dice Throne hero die carries one symbol on several faces (three swords, two hearts) and tells them apart
only by a number printed small in a corner. On the reader's 48 px face crop, blurred for the symbol match,
that number moves the correlation by thousandths, so the symbol match alone cannot name the face. Once the
symbol is known, its match also gives the face's quarter turn, which says in which corner the number sits.
This second stage cuts the face again at a higher resolution and compares only the window around that
corner with each candidate face's drawing (symbol and number, so a symbol reaching into the corner is the
same in every candidate), letting the number shift by a few pixels (the outline's centre and side are
found to a pixel or two).

The digits a set carries are its faces' glyphs (`corner:N`), plain data handed to the reader: nothing
here knows a game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from .glyphs import CORNER_XY, face_glyph

M = 64          # side (px) of the high-resolution face crop the number is read in
HALF = 0.14     # half side of the window compared, in face units (the number is 0.22 high)
SLACK = 0.05    # how far (face units) the number may lie from where the outline puts it


def corner_centre(turn: int, mirrored: bool) -> tuple[float, float]:
    """Where (face units, x right, y down) the corner number lies on a face drawn turned `turn` quarter turns
    (as `np.rot90` turns an array) and, under the tray, mirrored (seen through the glass)."""
    x, y = CORNER_XY
    if mirrored:
        x = 1.0 - x
    for _ in range(turn % 4):
        x, y = y, 1.0 - x
    return x, y


@dataclass(frozen=True)
class CornerMatch:
    """The corner number's verdict: the face key it names, at which quarter turn, its correlation, and the
    margin to the best face with another number."""

    key: int
    turn: int
    score: float
    margin: float


class CornerReader:
    """Compares a face's corner with the drawings of the faces that share its symbol (keys: the reader's own
    face keys, e.g. top-face indices; values: their glyphs)."""

    def __init__(self, glyphs: Mapping[int, str], mirrored: bool):
        self.keys = list(glyphs)
        self.mirrored = mirrored
        h = int(round(HALF * M))
        self._h = h
        self._pad = int(round((HALF + SLACK) * M)) + 1
        # the drawing of each face at each quarter turn, cut around the corner where its number sits
        self._windows: dict[tuple[int, int], np.ndarray] = {}
        for key, glyph in glyphs.items():
            g = face_glyph(glyph, M, mirrored)
            for turn in range(4):
                t = np.ascontiguousarray(np.rot90(g, turn), np.float32)
                cx, cy = corner_centre(turn, mirrored)
                x, y = int(round(cx * M - 0.5)), int(round(cy * M - 0.5))
                tp = cv2.copyMakeBorder(t, h, h, h, h, cv2.BORDER_CONSTANT, value=0.0)
                self._windows[(key, turn)] = tp[y:y + 2 * h + 1, x:x + 2 * h + 1].copy()

    def read(self, ink: np.ndarray, side_px: float, turns: Sequence[int]) -> CornerMatch | None:
        """`ink`: the face's ink (M x M, 0..1) cut along its outline as the symbol match saw it; `side_px`:
        the face's side in the frame (small faces are blurrier: the drawings are blurred alike); `turns`:
        the quarter turns the symbol match left possible. None when nothing can be compared."""
        if ink.shape != (M, M) or not turns or len(self.keys) < 2:
            return None
        sigma = max(0.7, 0.45 * M / max(side_px, 1.0))
        p = self._pad
        obs = cv2.copyMakeBorder(cv2.GaussianBlur(ink.astype(np.float32), (0, 0), 0.7), p, p, p, p,
                                 cv2.BORDER_CONSTANT, value=0.0)
        r = int(round((HALF + SLACK) * M))
        scores: dict[tuple[int, int], float] = {}
        for turn in turns:
            cx, cy = corner_centre(turn, self.mirrored)
            x, y = int(round(cx * M - 0.5)) + p, int(round(cy * M - 0.5)) + p
            region = obs[y - r:y + r + 1, x - r:x + r + 1]
            if float(region.std()) < 1e-3:
                continue
            for key in self.keys:
                w = cv2.GaussianBlur(self._windows[(key, turn)], (0, 0), sigma)
                if float(w.std()) < 1e-3:
                    continue
                scores[(key, turn)] = float(cv2.matchTemplate(region, w, cv2.TM_CCOEFF_NORMED).max())
        if not scores:
            return None
        (key, turn), best = max(scores.items(), key=lambda kv: kv[1])
        other = max((s for (k, _), s in scores.items() if k != key), default=-1.0)
        return CornerMatch(key, turn, best, best - other)
