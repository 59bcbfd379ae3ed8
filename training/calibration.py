"""Calibration shared by the trainers: the softmax temperature, and the confidence above which a die is certain.

Both are fitted on held-back data the model never trained on. The temperature is the one, on a log grid from
0.3 to 5, that gives the held-back labels the lowest negative log-likelihood; the threshold is the lowest on a
grid at which wrong-but-certain answers stay within what the aim allows (the reader's "certain means right").
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def fit_temperature(probs_at: Callable[[float], np.ndarray], y: np.ndarray, steps: int) -> tuple[float, float]:
    """(temperature, its negative log-likelihood): `probs_at(t)` gives the held-back probabilities (n, classes)
    at temperature t, however the trainer turns logits into them (turns, masks); `y` the true classes."""
    best_t, best_nll = 1.0, float("inf")
    for t in np.exp(np.linspace(np.log(0.3), np.log(5.0), steps)):
        p = probs_at(float(t))
        nll = float(-np.log(p[np.arange(len(y)), y] + 1e-12).mean())
        if nll < best_nll:
            best_t, best_nll = float(t), nll
    return best_t, best_nll


def misread(pred: np.ndarray, y: np.ndarray, none: int | None = None) -> np.ndarray:
    """Which held-back dice a level counts as wrong: named another class than their own; with `none` (the
    class "not a die"), not those named `none`, which the reader drops (a missed die, not a misread one)."""
    wrong = pred != y
    return wrong if none is None else wrong & (pred != none)


def certain_threshold(conf: np.ndarray, wrong: np.ndarray, max_wrong: float, grid: np.ndarray) -> float:
    """The lowest confidence of `grid` at which at most `max_wrong` of the wrong answers are at or above it;
    the grid's top (0.9995) when none is."""
    for thr in grid:
        if (wrong & (conf >= thr)).sum() <= max_wrong:
            return float(thr)
    return 0.9995


def vouched_threshold(conf: np.ndarray, wrong: np.ndarray, bound: float, grid: np.ndarray) -> float:
    """The lowest confidence of `grid` whose held-back answers at or above it vouch for an error rate of at most
    `bound`: (wrong + 3) / answers, the "rule of three" (no error in n answers bounds the rate by 3/n at 95%)
    with each error seen adding one to it. Why not `certain_threshold`: a level at which none of 113 held-back
    dice was wrong let two of 93 test dice through, sure and wrong, at 0.91 (the symbol network's first run);
    a small held-back set must not promise more than it saw. The grid's top (0.9995) when no level is vouched."""
    for thr in grid:
        sel = conf >= thr
        if sel.sum() and (int((wrong & sel).sum()) + 3) / int(sel.sum()) <= bound:
            return float(thr)
    return 0.9995


def by_look(level_of: Callable[[np.ndarray], float | None], looks: np.ndarray, min_dice: int = 100
            ) -> float | None:
    """The highest of the levels `level_of` fits on all the held-back dice (it takes a bool mask over them)
    and on each look's own (`looks` names each die's look; a look with at least `min_dice`); None where any
    of them is None. Why each look apart: a look's dice are the same dice again (a frame and its denoised
    copy), so counted together they let more wrong dice through than any one look allows (ft-clean, 28th
    session: its held-back frames, their denoised copies and seeds 25-26 at 64 samples, 3,093 dice, so 3
    certain and wrong allowed, where each look alone allowed 1 and the 64-sample renders none: level
    0.9675)."""
    each = [looks == look for look in dict.fromkeys(looks)]
    masks = [np.ones(len(looks), bool)] + [m for m in each if min_dice <= m.sum() < len(looks)]
    levels = [level_of(mask) for mask in masks]
    return None if any(level is None for level in levels) else max(levels)


def level_by_look(conf: np.ndarray, wrong: np.ndarray, looks: np.ndarray, silent_aim: float, bound: float,
                  min_dice: int, top: float) -> float:
    """The certainty level of a network's held-back dice (`conf`, whether each is `wrong`): the higher of
    the lowest level at which at most `silent_aim` of them are sure and wrong (`certain_threshold`) and the
    lowest they vouch for within `bound` (`vouched_threshold`), held on all of them and on each look's own
    of at least `min_dice` (`by_look`); `top` with fewer than `min_dice` dice in all. Numpy alone, so CI
    tests it (the trainers need torch)."""
    if len(conf) < min_dice:
        return top
    grid = np.linspace(0.9, top, 200)

    def level_of(m: np.ndarray) -> float:
        silent_at = certain_threshold(conf[m], wrong[m], silent_aim * int(m.sum()), grid)
        return max(silent_at, vouched_threshold(conf[m], wrong[m], bound, grid))

    return by_look(level_of, looks, min_dice)
