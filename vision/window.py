"""A die found only in part, read again in a window the size of the frame's other dice (issue 31, box placement).

Under the tray the reader's boxes come from outlines against the room or the frame's own edges. Where a die's body
is as light or as dark as the room behind it (a white die under a white ceiling, a black die in a dark room), its
outline holds only a part of the face: one pip, a half, a corner; the face network, shown that part, names the
wrong face or "not a die". The window step places a square as large as the dice the network reads surely in the
same frame around each such part, at a grid of positions that keep the part inside, and keeps the position where
the network names a face most surely: beside the part's own candidate, and the one reading per die keeps the
better (`decide.candidate_order`, `finder.suppress`). A window is certain only from WINDOW_SURE, and read
only with the room (`reader.WINDOWS_WITH_ROOM`). In the analysis that led to it (Blender's under-tray seeds 42-49,
with the room, the best window of every part) the 61 dice found only in part went from 26 named right to 58; as
the watcher reads, the same seeds' certain-right dice went from 52.63% to 54.59%, none certain and wrong
(docs/dice-sets.md, "Windows around a part").

A whole die whose face the network names without being sure of it is nudged the same way (`nudged`): its box
read again at a grid of small shifts, the best kept only where the network is sure of it there (WINDOW_SURE),
since a box a few px off a die costs the network its certainty more than a box of the wrong size. Nudges are read
with the room and without it (docs/dice-sets.md, "Nudged boxes").
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from .decide import centre_inside, squarish
from .finder import Candidate

# A candidate whose box is under this share of the frame's usual die side is a part of a die
PART_OF_USUAL = 0.9
# The window's positions along each axis (so GRID x GRID windows a part, read in one batch)
GRID = 5
# A window is kept only where the network names a face in it at least this surely: kept at any answer, the windows
# around specks on no die added 57 uncertain phantoms without the room (seeds 42-49); at 0.9 none, and the dice
# made certain are the same
WINDOW_AT = 0.9
# ... and certain only where the network names its face at least this surely (the reader's floor for a window;
# a die cut from a row needs `reader.CUT_FLOOR`, 0.975). Why: over black speckled dice on a black patch of the
# room only the pips show, and windows across two such dice read faces no die showed at 0.984 and 0.986, certain
# at the cut floor (table 104 throws 14 and 21). Chosen on seeds 42-49, 1-3, 20-21 (1,076 d6) and tables 100-106,
# 109-117 (1,251 d6), certain-right as the watcher reads, without windows / at 0.975 / 0.99 / 0.995: 51.30 / 53.44
# / 52.79 / 52.32% (silent 0 at each) and 44.36 / 45.88 / 45.00% (silent 2 dice, the same two translucent dice
# read without windows / 4 / 2)
WINDOW_SURE = 0.99

# Two windows naming different faces that share more than this part of a window cannot both lie on their dice: both
# are dropped. Why: in a heap of black dice over a dark patch of the room the windows slid across two dice, and one
# read a 3 on the glass as a 5 at 0.984 (seed 46 frame 35; the windows on right dice of seeds 42-49 shared at most
# a quarter with another outside that heap, the wrong ones 0.43 and more)
CLASH = 0.4

# A window that shares more than this part of the smaller box with a candidate the network names the same
# face in at least its own level may be that die again: it is kept as a guess, never certain. Why: two yellow
# dice lying end to end under the tray made one speckled body with no edge between them, and the window round
# a part of the lower one (a 2 on the glass) took in the upper one's diagonal pips and named its face, a 3, at
# 0.994 (fresh seed 89 frame 3 at 64 samples, the window sharing 0.41 of the upper die's box). On seeds
# already read it made no die certain and wrong, and moved certain-right by one die at most
# (docs/dice-sets.md, "A window that names its neighbour's face")
ECHO = 0.25

# A whole die the network names a face in without being sure of it is read again in GRID x GRID squares of its own
# side, their centres up to this share of the side off its box's centre, and the best one is kept only where the
# network names its face there at least WINDOW_SURE (so a nudged box only ever adds a certain die). Why: at the
# outline boxes of the read with the room the network is sure and right of fewer dice than at their true boxes
# (seeds 42-49: 60.8% against 67.7%), and no scale of the box closes it: it is where the box sits
NUDGE = 0.1
# ... and only a box at most this many usual sides long: a wider one holds more than a die (on vision/render.py's
# Regidice frames a 131 px box round a 95 px black die and its shadow was nudged into a certain 4 whose centre lay
# 36 px off the die's); on Blender's seeds no die was nudged from a box that wide
WHOLE_AT_MOST = 1.5


def usual_side(cands: list[Candidate], preds: list, clf: Any) -> float | None:
    """The frame's usual die side (px): the median longer side of the square boxes the network names a face in
    at least its own level. None when it is sure of none (a part cannot be told from a small die then)."""
    none = clf.classes.index("none")
    sides = [max(c.box[2:]) for c, p in zip(cands, preds, strict=True)
             if p.index != none and p.confidence >= clf.certain_at and squarish(c.box)]
    return float(np.median(sides)) if sides else None


def windows_around(box: tuple[float, float, float, float], side: float) -> list[tuple[float, float, float, float]]:
    """The GRID x GRID square boxes of `side` that hold `box` (cx, cy, w, h) whole, corner to corner."""
    cx, cy, w, h = box
    return _grid(cx, cy, side, max(0.0, (side - w) / 2), max(0.0, (side - h) / 2))


def nudged(box: tuple[float, float, float, float]) -> list[tuple[float, float, float, float]]:
    """The GRID x GRID squares of `box`'s longer side whose centres lie up to NUDGE of it off the box's centre."""
    cx, cy, w, h = box
    side = max(w, h)
    return _grid(cx, cy, side, NUDGE * side, NUDGE * side)


def _grid(cx: float, cy: float, side: float, reach_x: float, reach_y: float) -> list[tuple[float, float, float, float]]:
    """GRID x GRID squares of `side`, their centres spread evenly up to `reach_x`, `reach_y` off (cx, cy)."""
    return [(float(cx + u), float(cy + v), side, side) for v in np.linspace(-reach_y, reach_y, GRID)
            for u in np.linspace(-reach_x, reach_x, GRID)]


def windowed(img: np.ndarray, cands: list[Candidate], preds: list, clf: Any, turns: bool, parts: bool = True
             ) -> tuple[list[Candidate], list]:
    """Candidates (and the network's answers, read in their quarter turns with `turns`) for the best window
    around each part of a die (`_parts`; only with `parts`): the position the network names a face in most surely,
    if it names one at WINDOW_AT, and no window naming another face shares more than CLASH of it; and for the best
    nudged square of each whole die named unsurely (`_unsure_wholes`), if named at WINDOW_SURE; a window
    naming the face of a die named surely that it overlaps is doubted (`_echo_doubted`). Every window is read
    in one batch."""
    side = usual_side(cands, preds, clf)
    if side is None:
        return [], []
    none = clf.classes.index("none")
    around = [windows_around(c.box, side) for c in _parts(cands, preds, clf, side)] if parts else []
    n_parts = len(around)
    around += [nudged(c.box) for c in _unsure_wholes(cands, preds, clf, side)]
    answers = clf.predict(img, [w for wins in around for w in wins]) if around else []
    found = [(k, b) for k, wins in enumerate(around)
             if (b := _best_window(wins, answers[k * len(wins):(k + 1) * len(wins)], none)) is not None]
    best = [b for _, b in found]
    answers = clf.predict(img, best, turns=turns) if best else []
    named = [k for k, p in enumerate(answers) if p.index != none
             and p.confidence >= (WINDOW_AT if found[k][0] < n_parts else WINDOW_SURE)]
    kept = [k for k in named if not any(answers[j].index != answers[k].index and _shared(best[j], best[k]) > CLASH
                                        for j in named)]
    return ([Candidate(best[k], "window") for k in kept],
            [_echo_doubted(best[k], answers[k], cands, preds, clf) for k in kept])


def _echo_doubted(box: tuple, p: Any, cands: list[Candidate], preds: list, clf: Any) -> Any:
    """A window's answer, doubted (at most 0.5, never certain) where it names the face of a die named surely
    whose box it shares more than ECHO of: it may be reading that die again (`ECHO`)."""
    echoes = any(q.index == p.index and q.confidence >= clf.certain_at and _shared(box, c.box) > ECHO
                 for c, q in zip(cands, preds, strict=True))
    return replace(p, confidence=min(p.confidence, 0.5), turns_sure=False) if echoes else p


def _unsure_wholes(cands: list[Candidate], preds: list, clf: Any, side: float) -> list[Candidate]:
    """The square candidates of PART_OF_USUAL to WHOLE_AT_MOST of the usual side whose face the network names below
    its own level (nor its four turns' mean surely): whole dice, or boxes a little off them."""
    none = clf.classes.index("none")
    return [c for c, p in zip(cands, preds, strict=True)
            if PART_OF_USUAL * side <= max(c.box[2:]) <= WHOLE_AT_MOST * side and squarish(c.box)
            and p.index != none and p.confidence < clf.certain_at and not p.turns_sure]


def _parts(cands: list[Candidate], preds: list, clf: Any, side: float) -> list[Candidate]:
    """The candidates under PART_OF_USUAL of the usual side that the network does not name surely and whose
    centre no die-sized square box named a face holds: such a part's die has a box already (a refitted outline,
    say), and a window slid around a sliver at its edge would only move it off the die."""
    none = clf.classes.index("none")
    named_whole = [c.box for c, p in zip(cands, preds, strict=True)
                   if p.index != none and max(c.box[2:]) >= PART_OF_USUAL * side and squarish(c.box)]
    return [c for c, p in zip(cands, preds, strict=True)
            if max(c.box[2:]) < PART_OF_USUAL * side and (p.index == none or p.confidence < clf.certain_at)
            and not any(centre_inside(c.box, whole) for whole in named_whole)]


def _shared(a: tuple, b: tuple) -> float:
    """The part of the smaller of two boxes (cx, cy, w, h) that lies in the other."""
    w = min(a[0] + a[2] / 2, b[0] + b[2] / 2) - max(a[0] - a[2] / 2, b[0] - b[2] / 2)
    h = min(a[1] + a[3] / 2, b[1] + b[3] / 2) - max(a[1] - a[3] / 2, b[1] - b[3] / 2)
    return max(w, 0.0) * max(h, 0.0) / min(a[2] * a[3], b[2] * b[3])


def _best_window(wins: list[tuple], answers: list, none: int) -> tuple | None:
    """The window whose face the network names most surely; None if it names none."""
    scores = [p.confidence if p.index != none else 0.0 for p in answers]
    k = int(np.argmax(scores))
    return wins[k] if scores[k] > 0.0 else None
