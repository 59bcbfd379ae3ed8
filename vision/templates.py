"""The face stage's templates: every symbol a dice set draws (or a player taught) at every turn, matched
against a face's ink by normalised correlation, and a d12's numbers at their five upright turns. Built once
per dice set and mount (`faces.FaceReader`). Read first: `SymbolTemplates.match`.
"""

from __future__ import annotations

import cv2
import numpy as np

from .corners import CornerReader
from .corners import M as CORNER_M
from .crop import INNER, P_INNER, N
from .dicesets import DiceSet
from .glyphs import NUMBER_IN_ICON_XY, corner_number, face_glyph, seen_mirrored, split_corner

NUMERAL_BLUR = 1.0  # px of blur before a d12 face is compared (its number's strokes are 2-3 px)
NUMERAL_CLOSE = 0.1  # faces (at a turn) matching this close to the best are compared again at a higher resolution
TURN_SLACK = 0.04  # a quarter turn whose symbol match is this close to the best one may be the face's turn
SELF_ALIKE = 0.8  # ... and so may every turn at which the symbol's drawing matches itself this well
ALIKE_SHIFT = 3   # ... shifted by up to this many pixels (of the 48 px face)
P_STEPS = 5  # a d12 face's number is upright towards one of its five vertices
LOOKALIKE = 0.85  # symbols whose templates correlate this well are told apart at a higher resolution
LOOKALIKE_CLOSE = 0.1  # ... those of them whose match is this close to the best one's


def _template_vec(g: np.ndarray) -> np.ndarray:
    """A drawing as the symbol match compares it: blurred, inside the face's rim, zero mean, unit norm."""
    t = cv2.GaussianBlur(np.ascontiguousarray(g, np.float32), (0, 0), 1.5)
    v = t.ravel()[INNER.ravel()].astype(np.float32)
    v = v - v.mean()
    return v / max(float(np.linalg.norm(v)), 1e-6)


def _drawings_window(glyphs: list[str]) -> tuple[tuple[float, float], float]:
    """The centre (upright face units) and half side of the square that holds every one of these drawings'
    ink, with a little room: where look-alike faces are compared."""
    ink = np.max([face_glyph(g, CORNER_M) for g in glyphs], 0) > 0.2
    ys, xs = np.nonzero(ink)
    x0, x1, y0, y1 = xs.min() / CORNER_M, (xs.max() + 1) / CORNER_M, ys.min() / CORNER_M, (ys.max() + 1) / CORNER_M
    return ((x0 + x1) / 2, (y0 + y1) / 2), 0.5 * max(x1 - x0, y1 - y0) + 0.03


Source = tuple[int, np.ndarray, tuple[int, ...]]  # a template's group, its drawing, the faces it stands for


def _unit_vector(t: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
    """A drawing as the symbol match compares it (blurred, inside the mask, zero mean, unit norm); None for
    a blank one."""
    t = cv2.GaussianBlur(np.ascontiguousarray(t, np.float32), (0, 0), 1.5)
    v = t.ravel()[mask].astype(np.float32)
    v = v - v.mean()
    nv = np.linalg.norm(v)
    if nv < 1e-6:
        return None
    return v / nv


def _add_alike_turns(alike: dict[int, set[int]], g: np.ndarray) -> None:
    """Add to `alike` (turn -> turns) each quarter turn at which drawing `g` matches itself at another turn,
    shifted by up to ALIKE_SHIFT pixels, at least SELF_ALIKE."""
    blurred = [cv2.GaussianBlur(np.ascontiguousarray(np.rot90(g, t), np.float32), (0, 0), 1.5) for t in range(4)]
    for t1 in range(4):
        padded = cv2.copyMakeBorder(blurred[t1], ALIKE_SHIFT, ALIKE_SHIFT, ALIKE_SHIFT, ALIKE_SHIFT,
                                    cv2.BORDER_CONSTANT, value=0.0)
        for t2 in range(4):
            if t2 != t1 and float(cv2.matchTemplate(padded, blurred[t2], cv2.TM_CCOEFF_NORMED).max()) >= SELF_ALIKE:
                alike.setdefault(t1, set()).add(t2)


class SymbolTemplates:
    """The symbol templates of one dice set at one mount, and the readers of the numbers that tell a
    symbol's faces apart (`CornerReader`). Groups are keyed by the top face index."""

    def __init__(self, ds: DiceSet, mount: str, taught: dict) -> None:
        """Templates of every symbol at every rotation. Drawn faces that share a symbol (differing only by a
        corner number) are one group with one template; the corner number is read afterwards (`corners`).
        Taught faces are each their own group."""
        self.ds = ds
        self.mount = mount
        self.taught = taught
        self.pentagon = ds.shape == "pentagon"
        # groups: (faces it may be, keyed by the top face index) and its templates
        self.groups: list[list[int]] = []
        self.corners: dict[int, CornerReader] = {}
        self.merged: set[int] = set()
        self.number_checks: dict[int, tuple[CornerReader, dict[int, int]]] = {}
        sources = self._taught_sources() if self.taught else self._drawn_sources()
        self.says = [frozenset(g) if self.taught else frozenset((self.ds.face(k).name, self.ds.face(k).value)
                                                                  for k in g) for g in self.groups]
        self._bank_templates(sources)
        # per group, the quarter turns at which one of its drawings looks like itself at another, give or
        # take a shift of a few pixels (a claw's three slanted strokes half a turn round are the same strokes
        # a little aside: a die's centre found 2-3 px off flipped its turn, and its corner number was then
        # looked for in the wrong corner): the symbol match cannot tell those turns apart, the number can
        self.alike_turns: dict[int, dict[int, set[int]]] = {}
        if not self.pentagon:
            for gi, g, _ in sources:
                _add_alike_turns(self.alike_turns.setdefault(gi, {}), g)

    def _taught_sources(self) -> list[Source]:
        """A group per taught face, each of its taught inks a template."""
        sources: list[Source] = []
        for idx, arrs in self.taught.items():
            self.groups.append([int(idx)])
            sources += [(len(self.groups) - 1, np.asarray(a, np.float32), (int(idx),)) for a in arrs]
        return sources

    def _drawn_sources(self) -> list[Source]:
        """A group per symbol the set draws (look-alikes merged), its drawing the template; and the readers
        of the numbers that tell the group's faces apart."""
        under, mirrored = self.mount == "under", seen_mirrored(self.mount)
        numbers = sorted({n for n in (corner_number(f.glyph) for f in self.ds.faces) if n is not None})
        by_symbol: dict[str, list[int]] = {}
        for f in self.ds.faces:
            if f.glyph != "blank":
                # the template shows what the camera sees: the glass face (under) keyed by the top face index
                top = self.ds.top_of(f.index) if under else f.index
                by_symbol.setdefault(split_corner(f.glyph)[0], []).append(top)
        drawn = {sym: cv2.resize(face_glyph(sym, 96, mirrored), (N, N), interpolation=cv2.INTER_AREA)
                 for sym in by_symbol}
        sources: list[Source] = []
        for members in self._lookalikes(by_symbol, drawn):
            tops = [t for sym in members for t in by_symbol[sym]]
            self.groups.append(tops)
            gi = len(self.groups) - 1
            sources += [(gi, drawn[sym], tuple(by_symbol[sym])) for sym in members]
            self._group_readers(gi, members, tops, numbers)
        return sources

    def _group_readers(self, gi: int, members: list[str], tops: list[int], numbers: list[str]) -> None:
        """The number readers of group `gi`: look-alike drawings compared at a higher resolution, faces that
        share a symbol told apart by their number, and the check of a face's corner number."""
        under, mirrored = self.mount == "under", seen_mirrored(self.mount)
        seen = {t: self.ds.face(self.ds.bottom_of(t) if under else t).glyph for t in tops}
        if len(members) > 1:
            # look-alike drawings (digits alone on a face): told apart at a higher resolution over
            # the window that holds them
            where, half = _drawings_window(list(seen.values()))
            self.corners[gi] = CornerReader(seen, mirrored, where, half=half, shared=False)
            self.merged.add(gi)
            return
        places = {split_corner(gl)[1] for gl in seen.values()}
        if places == {"corner"} and len(numbers) > 1 and not self.pentagon:
            self.number_checks[gi] = self._number_check(members[0], seen, numbers, mirrored)
        if len({(self.ds.face(t).name, self.ds.face(t).value) for t in tops}) > 1 and \
                len(places) == 1 and None not in places and not self.pentagon:
            self.corners[gi] = CornerReader(seen, mirrored) if places == {"corner"} else \
                CornerReader(seen, mirrored, NUMBER_IN_ICON_XY, half=0.22)

    def _bank_templates(self, sources: list[Source]) -> None:
        """Every source's drawing at every turn (a quarter turn; a d12's every 6 degrees) as a unit vector."""
        steps = range(0, 360, 6) if self.pentagon else (0, 90, 180, 270)
        mask = INNER.ravel()
        vecs, ids, turns, keys = [], [], [], []
        for gi, g, faces in sources:
            for a in steps:
                v = _unit_vector(self._turned(g, a), mask)
                if v is not None:
                    vecs.append(v)
                    ids.append(gi)
                    turns.append(0 if self.pentagon else a // 90)
                    keys.append(faces)
        self.bank = np.stack(vecs) if vecs else np.zeros((0, int(mask.sum())), np.float32)
        self.ids = ids
        self.turns = turns
        self.keys: list[tuple[int, ...]] = keys

    def _turned(self, g: np.ndarray, a: int) -> np.ndarray:
        """A drawing turned by `a` degrees (square faces by quarter turns)."""
        if self.pentagon:
            return cv2.warpAffine(g, cv2.getRotationMatrix2D((N / 2 - 0.5, N / 2 - 0.5), a, 1.0), (N, N))
        return np.rot90(g, a // 90)

    def _lookalikes(self, by_symbol: dict[str, list[int]], drawn: dict[str, np.ndarray]) -> list[list[str]]:
        """The symbols as groups: each alone, except look-alikes, merged. Why: at the symbol match's
        resolution and blur, digits drawn alone on a face are blobs of one size in the middle (King of
        Tokyo's 1, 2 and 3 correlate 0.88-0.90 with each other, so the right one beat the others by
        thousandths and now and then lost). Symbols that each name one face and whose drawings correlate at
        least LOOKALIKE at some quarter turn are one group; `CornerReader` then compares the candidates'
        drawings over the window that holds them, at a higher resolution, letting them shift a little."""
        syms = list(by_symbol)
        if self.pentagon or self.mount != "under":
            # (from above, an outline taken with its shadow, the higher-resolution comparison lost as many
            # dice as it won on the bench's renders: left as it was)
            return [[s] for s in syms]
        one = [len({(self.ds.face(t).name, self.ds.face(t).value) for t in by_symbol[s]}) == 1 for s in syms]
        vecs = [np.stack([_template_vec(np.rot90(drawn[s], k)) for k in range(4)]) for s in syms]
        parent = list(range(len(syms)))

        def root(i: int) -> int:
            while parent[i] != i:
                i = parent[i]
            return i

        for i in range(len(syms)):
            for j in range(i + 1, len(syms)):
                if one[i] and one[j] and float((vecs[i] @ vecs[j].T).max()) >= LOOKALIKE:
                    parent[root(j)] = root(i)
        out: dict[int, list[str]] = {}
        for i, s in enumerate(syms):
            out.setdefault(root(i), []).append(s)
        return list(out.values())

    def match(self, ink: np.ndarray) -> tuple[int | None, float, float, dict[int, set[int]]]:
        """(group, best NCC, margin to the best other group, per quarter turn within reach of the best the
        faces worth reading the number of there)."""
        if len(self.bank) == 0:
            return None, 0.0, 0.0, {}
        ink = cv2.GaussianBlur(np.ascontiguousarray(ink, np.float32), (0, 0), 1.5)
        v = ink.ravel()[INNER.ravel()].astype(np.float32)
        v = v - v.mean()
        nv = np.linalg.norm(v)
        if nv < 1e-6:
            return None, 0.0, 0.0, {}
        sc = (self.bank @ (v / nv)).tolist()
        best: dict[int, float] = {}
        for gi, s in zip(self.ids, sc, strict=True):
            if s > best.get(gi, -2.0):
                best[gi] = s
        ranked = sorted(best.items(), key=lambda t: -t[1])
        g1, s1 = ranked[0]
        # the runner-up is the best group that reads as something else (two look-alike sides whose tops
        # are the same face, like the attack die's two starbursts seen from below, are one answer)
        s2 = max((s for gi, s in ranked[1:] if self.says[gi] != self.says[g1]), default=-1.0)
        # the turns (and, in a group of look-alikes, the faces) close to the best: the number is read there
        # only, and at the turns where the symbol looks the same
        # (look-alikes are compared at each of their own near turns: their symmetries are no help there)
        slack = LOOKALIKE_CLOSE if g1 in self.merged else TURN_SLACK
        alike = self.alike_turns.get(g1, {}) if g1 not in self.merged else {}
        turns: dict[int, set[int]] = {}
        for gi, t, k, s in zip(self.ids, self.turns, self.keys, sc, strict=True):
            if gi == g1 and s >= s1 - slack:
                for t2 in (t, *alike.get(t, ())):
                    turns.setdefault(t2, set()).update(k)
        if g1 in self.merged:
            # look-alikes: at each turn left open, every one of them is compared again (at this resolution
            # they differ by a few hundredths: a die's centre 3 px off put the right digit more than
            # LOOKALIKE_CLOSE behind the others, and it was never compared)
            turns = {t: set(self.groups[g1]) for t in turns}
        return g1, s1, s1 - s2, turns

    @staticmethod
    def _number_check(symbol: str, seen: dict[int, str], numbers: list[str], mirrored: bool
                      ) -> tuple[CornerReader, dict[int, int]]:
        """A reader of the corner number beside `symbol` among every number the set prints (its faces'
        glyphs: keys are positions in `numbers`), and the number each face of the group should show there.

        Why: the symbol match alone made a face certain wherever the symbol was ahead of the set's others,
        also for a die the set's drawings do not describe (another printing, another hero's die: a monk's
        palm beside a 3 was read as the barbarian's lone pow, a 6, certain). The number is a second reader
        of the same face; a face stays certain only when both agree."""
        checker = CornerReader({i: f"{symbol}+corner:{n}" for i, n in enumerate(numbers)}, mirrored)
        own = {t: numbers.index(str(corner_number(gl))) for t, gl in seen.items()}
        return checker, own


class NumeralTemplates:
    """A pentagonal die's faces (a d12) as templates, each at its five upright turns, and the reader
    that compares close faces again at a higher resolution (under the tray)."""

    def __init__(self, ds: DiceSet, mount: str) -> None:
        """Templates of a pentagonal die's faces (seen from below: keyed by the top face), each at its five
        upright turns, over the pentagon's inside only."""
        self.ds = ds
        self.mount = mount
        self.detail: CornerReader | None = None
        under, mirrored = self.mount == "under", seen_mirrored(self.mount)
        vecs, keys, turns = [], [], []
        mask = P_INNER.ravel()
        for f in self.ds.faces:
            top = self.ds.top_of(f.index) if under else f.index
            g = cv2.resize(face_glyph(f.glyph, 96, mirrored), (N, N), interpolation=cv2.INTER_AREA)
            for k in range(P_STEPS):
                R = cv2.getRotationMatrix2D((N / 2 - 0.5, N / 2 - 0.5), -360.0 * k / P_STEPS, 1.0)
                t = cv2.GaussianBlur(cv2.warpAffine(g, R, (N, N)), (0, 0), NUMERAL_BLUR)
                v = t.ravel()[mask].astype(np.float32)
                v = v - v.mean()
                nv = float(np.linalg.norm(v))
                if nv > 1e-6:
                    vecs.append(v / nv)
                    keys.append(top)
                    turns.append(k)
        self.bank = np.stack(vecs) if vecs else np.zeros((0, int(mask.sum())), np.float32)
        self.keys = keys
        self.turns = turns
        if not under:
            return  # (from above: see `SymbolTemplates._lookalikes`)
        seen = {self.ds.top_of(f.index): f.glyph for f in self.ds.faces}
        where, half = _drawings_window(list(seen.values()))
        self.detail = CornerReader(seen, mirrored, where, half=half,
                                   angles=[-360.0 * k / P_STEPS for k in range(P_STEPS)], shared=False)

    def scores(self, ink: np.ndarray, t: float) -> tuple[int | None, float, float, dict[int, set[int]]]:
        """The best face key, its correlation, the best other face's, and per turn the faces whose match
        there is within NUMERAL_CLOSE of the best (the ones worth comparing again at a higher resolution)."""
        norm = cv2.GaussianBlur(np.clip(ink / max(2 * t, 1.0), 0, 1).astype(np.float32), (0, 0), NUMERAL_BLUR)
        v = norm.ravel()[P_INNER.ravel()]
        v = v - v.mean()
        nv = float(np.linalg.norm(v))
        if nv < 1e-6:
            return None, 0.0, 0.0, {}
        sc = (self.bank @ (v / nv)).tolist()
        best: dict[int, float] = {}
        for k, s in zip(self.keys, sc, strict=True):
            best[k] = max(best.get(k, -2.0), s)
        ranked = sorted(best.items(), key=lambda kv: -kv[1])
        key, s1 = ranked[0]
        close: dict[int, set[int]] = {}
        for k, turn, s in zip(self.keys, self.turns, sc, strict=True):
            if s >= s1 - NUMERAL_CLOSE:
                close.setdefault(turn, set()).add(k)
        return key, s1, (ranked[1][1] if len(ranked) > 1 else -1.0), close
