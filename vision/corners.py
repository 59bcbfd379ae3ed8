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

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from .glyphs import CORNER_XY, face_glyph

M = 64          # side (px) of the high-resolution face crop the number is read in
HALF = 0.14     # half side of the window compared, in face units (the number is 0.22 high)
SLACK = 0.05    # how far (face units) the number may lie from where the outline puts it
TURN_CLEAR = 0.05  # a turn whose window fits this much better than every other's is the face's turn
SCALES = (0.92, 1.0)  # the face's drawing at these scales (an outline found with its shadow is too large)


def corner_centre(turn: int, mirrored: bool, where: tuple[float, float] = CORNER_XY) -> tuple[float, float]:
    """Where (face units, x right, y down) the number drawn at `where` lies on a face drawn turned `turn`
    quarter turns (as `np.rot90` turns an array), and flipped left-right if `mirrored`
    (`glyphs.seen_mirrored`)."""
    x, y = where
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

    def __init__(self, glyphs: Mapping[int, str], mirrored: bool, where: tuple[float, float] = CORNER_XY,
                 half: float = HALF, angles: Sequence[float] | None = None, shared: bool = True):
        """`where`: the number's centre on the upright face (a corner, or the middle of a symbol that has
        its number cut out of it); `half`: half the side of the window compared (face units); `angles`: the
        turns a face may lie at, in degrees about its centre as `cv2.getRotationMatrix2D` takes them (a
        d12's five vertex-up turns), instead of the four quarter turns; `shared`: the drawings share a
        symbol and differ by their numbers (False: they differ all over, as digits alone on a face do)."""
        self._shared = shared
        self.keys = list(glyphs)
        self.mirrored = mirrored
        self.where = where
        self.half = half
        self.angles = list(angles) if angles is not None else None
        h = int(round(half * M))
        self._h = h
        self._pad = int(round((half + SLACK) * M)) + 1
        # the drawing of each face at each turn, cut around where its number sits, and per turn where the
        # drawings differ (the numbers; a symbol reaching into the corner is the same in all)
        self._windows: dict[tuple[int, int, float], np.ndarray] = {}
        self._differ: dict[int, np.ndarray] = {}
        # (dict assignment is atomic: readers in two threads at worst blur a window twice)
        self._blur_cache: dict[tuple, Any] = {}  # blurred windows, and their differing pixels (`_differing`)
        for turn in range(len(self.angles) if self.angles is not None else 4):
            cx, cy = self._centre(turn)
            x, y = int(round(cx * M - 0.5)), int(round(cy * M - 0.5))
            for key, glyph in glyphs.items():
                t = self._turned(face_glyph(glyph, M, mirrored), turn)
                for sc in SCALES:
                    # the face drawn a little smaller or larger about its centre (the outline's side is
                    # found to a few percent: a shadow or the die's edge in it)
                    A = cv2.getRotationMatrix2D((M / 2 - 0.5, M / 2 - 0.5), 0.0, sc)
                    ts = cv2.warpAffine(t, A, (M, M)) if sc != 1.0 else t
                    tp = cv2.copyMakeBorder(ts, h, h, h, h, cv2.BORDER_CONSTANT, value=0.0)
                    self._windows[(key, turn, sc)] = tp[y:y + 2 * h + 1, x:x + 2 * h + 1].copy()
            ws = [self._windows[(k, turn, 1.0)] for k in self.keys]
            spread = np.max(ws, 0) - np.min(ws, 0)
            self._differ[turn] = cv2.dilate((spread > 0.2).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0

    def _turned(self, g: np.ndarray, turn: int) -> np.ndarray:
        """A drawing at one of the reader's turns."""
        if self.angles is None:
            return np.ascontiguousarray(np.rot90(g, turn), np.float32)
        R = cv2.getRotationMatrix2D((M / 2 - 0.5, M / 2 - 0.5), self.angles[turn], 1.0)
        return cv2.warpAffine(np.ascontiguousarray(g, np.float32), R, (M, M))

    def _centre(self, turn: int) -> tuple[float, float]:
        """Where the number lies on a face at one of the reader's turns (face units)."""
        if self.angles is None:
            return corner_centre(turn, self.mirrored, self.where)
        x, y = self.where
        if self.mirrored:
            x = 1.0 - x
        a = np.radians(self.angles[turn])
        c, s = float(np.cos(a)), float(np.sin(a))
        return 0.5 + c * (x - 0.5) + s * (y - 0.5), 0.5 - s * (x - 0.5) + c * (y - 0.5)

    def read(self, ink: np.ndarray, side_px: float, turns: Sequence[int],
             only: Mapping[int, Collection[int]] | None = None, scales: Sequence[float] = SCALES) -> CornerMatch | None:
        """`ink`: the face's ink (M x M, 0..1) cut along its outline as the symbol match saw it; `side_px`:
        the face's side in the frame (small faces are blurrier: the drawings are blurred alike); `turns`:
        the quarter turns the symbol match left possible; `only` (if given): per turn, the keys compared
        there (the others were far off in the symbol match); `scales`: the drawing's sizes tried (of
        SCALES; one when the face's side was found from its own edges). None when nothing can be compared.

        Each drawing is first placed where it fits the window best (the whole window: the symbol's part
        helps to align), then scored by the correlation over the pixels where the drawings differ only."""
        if ink.shape != (M, M) or not turns or len(self.keys) < 2:
            return None
        sigma = round(max(0.7, 0.45 * M / max(side_px, 1.0)), 1)  # (rounded: its blurred drawings are kept)
        regions = self._regions(ink, turns)
        placer = _Placer(regions)
        if len(regions) > 1 and self._shared:
            regions = self._clear_turn(regions, only, sigma, placer)
        scores, fits = self._scores(regions, only, scales, sigma, placer)
        if not scores:
            return None
        if len(fits) > 1 and not self._shared:
            # drawings that differ all over (look-alike digits): the turn whose best drawing fits best,
            # when clearly so
            clear = _clear_winner(fits)
            if clear is not None:
                scores = {kt: v for kt, v in scores.items() if kt[1] == clear}
        (key, turn), best = max(scores.items(), key=lambda kv: kv[1])
        other = max((s for (k, _), s in scores.items() if k != key), default=-1.0)
        return CornerMatch(key, turn, best, best - other)

    def _regions(self, ink: np.ndarray, turns: Sequence[int]) -> dict[int, np.ndarray]:
        """Per turn, the window of the (lightly blurred, padded) ink where that turn puts the number; a turn
        whose window is blank is left out."""
        p = self._pad
        obs = cv2.copyMakeBorder(cv2.GaussianBlur(ink.astype(np.float32), (0, 0), 0.7), p, p, p, p,
                                 cv2.BORDER_CONSTANT, value=0.0)
        r = int(round((self.half + SLACK) * M))
        regions = {}
        for turn in turns:
            cx, cy = self._centre(turn)
            x, y = int(round(cx * M - 0.5)) + p, int(round(cy * M - 0.5)) + p
            region = obs[y - r:y + r + 1, x - r:x + r + 1]
            if float(cv2.meanStdDev(region)[1][0, 0]) >= 1e-3:  # (numpy's std: several times the time)
                regions[turn] = region
        return regions

    def _clear_turn(self, regions: dict[int, np.ndarray], only: Mapping[int, Collection[int]] | None,
                    sigma: float, placer: _Placer) -> dict[int, np.ndarray]:
        """Several turns left open (a symbol that looks alike turned): the whole window, the symbol's part and
        the number's clear patch, says which, when it says so clearly (one drawing is enough for that: they
        differ by their numbers only); the numbers are then read there only (a claw's stroke in the wrong
        corner looked like a 1). The regions kept."""
        fits = {}
        for turn in regions:
            keys = self.keys if only is None else sorted(only.get(turn, ()))
            w = self._blurred(keys[0], turn, 1.0, sigma) if keys else None
            if w is not None:
                fits[turn] = placer.place(keys[0], turn, 1.0, w)[0]
        clear = _clear_winner(fits)
        return regions if clear is None else {clear: regions[clear]}

    def _scores(self, regions: dict[int, np.ndarray], only: Mapping[int, Collection[int]] | None,
                scales: Sequence[float], sigma: float, placer: _Placer
                ) -> tuple[dict[tuple[int, int], float], dict[int, float]]:
        """(each (key, turn)'s score: the correlation where the drawings differ, at the scale that placed it
        best; each turn's best placing fit)."""
        n = 2 * self._h + 1
        scores: dict[tuple[int, int], float] = {}
        fits: dict[int, float] = {}
        for turn, region in regions.items():
            differ = self._differ[turn]
            for key in (self.keys if only is None else only.get(turn, ())):
                fit, best = -2.0, 0.0
                for sc in scales:
                    w = self._blurred(key, turn, sc, sigma)
                    if w is None:
                        continue
                    f, (lx, ly) = placer.place(key, turn, sc, w)
                    if f > fit:
                        wd, wn = self._differing(key, turn, sc, sigma)
                        fit, best = f, _ncc_with(region[ly:ly + n, lx:lx + n][differ], wd, wn)
                if fit > -2.0:
                    scores[(key, turn)] = best
                    fits[turn] = max(fits.get(turn, -2.0), fit)
        return scores, fits

    def _differing(self, key: int, turn: int, sc: float, sigma: float) -> tuple[np.ndarray, float]:
        """A blurred drawing's pixels where the drawings differ, less their mean, and their norm (kept)."""
        k = (key, turn, sc, sigma, "differ")
        hit = self._blur_cache.get(k)
        if hit is None:
            w = self._blurred(key, turn, sc, sigma)
            v = w[self._differ[turn]].astype(np.float32) if w is not None else np.zeros(1, np.float32)
            v = v - v.mean()
            hit = (v, float(np.sqrt((v * v).sum())))
            self._blur_cache[k] = hit
        return hit

    def _blurred(self, key: int, turn: int, sc: float, sigma: float) -> np.ndarray | None:
        """A drawing's window blurred by `sigma` (None when it is flat), kept for the next die."""
        k = (key, turn, sc, sigma)
        if k not in self._blur_cache:
            if len(self._blur_cache) > 4096:
                self._blur_cache.clear()
            w = cv2.GaussianBlur(self._windows[(key, turn, sc)], (0, 0), sigma)
            self._blur_cache[k] = w if float(w.std()) >= 1e-3 else None
        return self._blur_cache[k]


def _ncc_with(a: np.ndarray, b: np.ndarray, b_norm: float) -> float:
    """Normalised correlation of two equally long pixel lists, `b` already less its mean and of norm
    `b_norm` (kept per drawing: `CornerReader._differing`); 0 when either is flat."""
    a = a - a.mean()
    d = float(np.sqrt((a * a).sum())) * b_norm
    return float((a * b).sum()) / d if d > 1e-9 else 0.0


class _Placer:
    """Each drawing's best place in a turn's window and its fit there, kept: (key, turn, scale) -> (fit,
    (x, y)). Why: the turn's check and the numbers' scores place the same drawing at most once."""

    def __init__(self, regions: dict[int, np.ndarray]):
        self.regions = regions
        self.placed: dict[tuple[int, int, float], tuple[float, tuple[int, int]]] = {}

    def place(self, key: int, turn: int, sc: float, w: np.ndarray) -> tuple[float, tuple[int, int]]:
        hit = self.placed.get((key, turn, sc))
        if hit is None:
            _, f, _, loc = cv2.minMaxLoc(cv2.matchTemplate(self.regions[turn], w, cv2.TM_CCOEFF_NORMED))
            hit = self.placed[(key, turn, sc)] = (float(f), loc)
        return hit


def _clear_winner(fits: dict[int, float]) -> int | None:
    """The turn that fits at least TURN_CLEAR better than every other, if one does (and there are others)."""
    ranked = sorted(fits.items(), key=lambda kv: -kv[1])
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] >= TURN_CLEAR:
        return ranked[0][0]
    return None
