"""Are these dice fair? The statistics, on plain lists: no store, no clock, no global randomness (issue 36).

Why a goodness-of-fit test and not "the 6 came up a lot tonight": every die shows streaks, and players remember
the streaks that hurt them. The question a test answers is narrower and honest: how surprising would these face
counts be if the die were fair? Pearson's chi-square statistic sums, over the faces, (observed - expected)^2 /
expected; for a fair die it follows (approximately) a chi-square law with k - 1 degrees of freedom, and its
p-value is the chance that a fair die gives counts at least this uneven. A die is called biased when that
chance is below `ALPHA` (5%): a fair die is then wrongly accused about one time in twenty, and no more.

- **Which faces count as one**: a face is a category of the set (`probs[i]` = its share of the die's sides);
  two sides a reading cannot tell apart (Mage Wars' two blanks) are one category of probability 2/6.
- **Too few rolls**: the chi-square law is a large-sample approximation, trusted once every face expects at
  least `MIN_EXPECTED` rolls (30 rolls of a d6, 60 of a d12). Before that the verdict is "too few rolls".
- **Several dice at once**: a set whose dice the box tells apart (by colour) is tested die by die; testing four
  fair dice at 5% each would accuse one of them 19% of the time, so the p-values of one set are adjusted with
  Holm's step-down method (`holm`): a fair set is accused at most `ALPHA` of the time, whichever die it picks.
- **How many rolls are enough** (`rolls_needed`): a power analysis for the chi-square test, see there.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import special  # not scipy.stats: its import alone took 2 s, paid by the page's first load

ALPHA = 0.05        # significance level: how often a fair die may be wrongly accused
POWER = 0.8         # the chance of catching a die that is as biased as `DEFAULT_BIAS`
DEFAULT_BIAS = 0.5  # relative: one face comes up 50% more (or less) often than it should (1 in 4 for 1 in 6)
MIN_EXPECTED = 5    # rolls each face must expect before the chi-square approximation is trusted
SIMULATIONS = 4000  # simulated series per size in the power analysis: the power is within about 1.5 points
SEED = 36           # of those simulations: the same answer every time


@dataclass(frozen=True)
class FaceTest:
    """One die's chi-square test: counts per face, what a fair die would give, the statistic and p-value
    (None for both when there are too few rolls for the test to mean anything)."""

    rolls: int
    counts: tuple[int, ...]
    expected: tuple[float, ...]
    chi2: float | None
    p: float | None
    df: int


@dataclass(frozen=True)
class Verdict:
    """What the numbers say, as data a page or a terminal words in its own language.

    `code`: "too_few" (fewer than `wanted` rolls: no test yet), "no_evidence" (the counts are what a fair die
    gives), "biased" (face `face` comes up too `direction` = "often" or "rarely"; `share` of the rolls where a
    fair die gives `fair_share`). `p` is the p-value the decision used (Holm-adjusted in a set of dice)."""

    code: str
    rolls: int
    p: float | None = None
    face: int | None = None
    direction: str | None = None
    share: float | None = None
    fair_share: float | None = None
    wanted: int | None = None


def check_probs(probs: Sequence[float]) -> None:
    """Refuse face probabilities that are no die: fewer than two faces, a face that cannot show, a sum not 1."""
    if len(probs) < 2 or min(probs) <= 0 or abs(sum(probs) - 1.0) > 1e-9:
        raise ValueError(f"face probabilities must be at least two positive shares summing to 1, not {list(probs)}")


def min_rolls(probs: Sequence[float]) -> int:
    """Rolls before the test means anything: the rarest face must expect `MIN_EXPECTED` of them."""
    check_probs(probs)
    return math.ceil(MIN_EXPECTED / min(probs) - 1e-9)


def expected_counts(rolls: int, probs: Sequence[float]) -> tuple[float, ...]:
    """What a fair die gives on average in `rolls` rolls, face by face."""
    return tuple(rolls * p for p in probs)


def chi_square(counts: Sequence[int], probs: Sequence[float]) -> FaceTest:
    """Pearson's chi-square goodness of fit of `counts` against the fair die `probs` (what
    scipy.stats.chisquare computes: the statistic, and its p-value from the chi-square survival function).

    With fewer than `min_rolls(probs)` rolls the statistic is left out: its p-value would be an approximation
    outside the range where it holds."""
    check_probs(probs)
    if len(counts) != len(probs) or any(c < 0 for c in counts):
        raise ValueError("one non-negative count per face is needed")
    rolls = int(sum(counts))
    expected = expected_counts(rolls, probs)
    if rolls < min_rolls(probs):
        return FaceTest(rolls, tuple(counts), expected, None, None, len(probs) - 1)
    df = len(probs) - 1
    statistic = sum((c - e) ** 2 / e for c, e in zip(counts, expected, strict=True))
    p_value = float(special.chdtrc(df, statistic))
    return FaceTest(rolls, tuple(counts), expected, float(statistic), p_value, df)


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm-adjusted p-values (None stays None): the smallest of m is multiplied by m, the next by m - 1, ...,
    kept non-decreasing and at most 1. Comparing these with `ALPHA` accuses a fair die of a set of m dice at
    most `ALPHA` of the time in all, where m separate tests would accuse one up to 1 - (1 - ALPHA)^m."""
    tested = sorted((p, i) for i, p in enumerate(pvalues) if p is not None)
    out: list[float | None] = [None] * len(pvalues)
    running = 0.0
    for rank, (p, i) in enumerate(tested):
        running = max(running, min(1.0, p * (len(tested) - rank)))
        out[i] = running
    return out


def worst_face(counts: Sequence[int], probs: Sequence[float]) -> tuple[int, str]:
    """(index, "often" | "rarely") of the face furthest from fair, by its adjusted residual
    (observed - expected) / sqrt(n p (1 - p)): a face's count is binomial, so this puts a rare face and a
    common one (Mage Wars' double blank) on one scale."""
    rolls = sum(counts)
    scores = [(c - rolls * p) / math.sqrt(max(rolls * p * (1 - p), 1e-12)) for c, p in zip(counts, probs, strict=True)]
    index = max(range(len(scores)), key=lambda i: abs(scores[i]))
    return index, "often" if scores[index] > 0 else "rarely"


def judge(test: FaceTest, probs: Sequence[float], p: float | None = None, alpha: float = ALPHA) -> Verdict:
    """The verdict on one die: `p` is the p-value to decide on (Holm-adjusted in a set), else the test's own."""
    p = test.p if p is None else p
    if p is None:
        return Verdict("too_few", test.rolls, wanted=min_rolls(probs))
    if p >= alpha:
        return Verdict("no_evidence", test.rolls, p=p)
    face, direction = worst_face(test.counts, probs)
    return Verdict("biased", test.rolls, p=p, face=face, direction=direction,
                   share=test.counts[face] / test.rolls, fair_share=probs[face])


def loaded(probs: Sequence[float], bias: float) -> list[float]:
    """The die `rolls_needed` must catch: its rarest face comes up (1 + bias) times as often as it should, the
    other faces giving up that share in proportion to their own. (The rarest face, too often: of the ways one
    face can be off by `bias`, the one that takes the most rolls to see.)"""
    check_probs(probs)
    rare = min(range(len(probs)), key=lambda i: probs[i])
    grown = probs[rare] * (1 + bias)
    if not (bias > 0 and grown < 1):
        raise ValueError(f"a face cannot come up {1 + bias:g} times as often as {probs[rare]:.3g}")
    shrink = (1 - grown) / (1 - probs[rare])
    return [grown if i == rare else p * shrink for i, p in enumerate(probs)]


def approx_rolls_needed(probs: Sequence[float], bias: float, alpha: float = ALPHA, power: float = POWER) -> int:
    """The textbook answer (Cohen 1988, ch. 7): for large n, Pearson's statistic under the loaded die follows a
    noncentral chi-square law with k - 1 degrees of freedom and noncentrality n * w^2, w^2 = sum (p1 - p0)^2 / p0
    (bias^2 p / (1 - p) for `loaded`); the smallest n whose ncx2.sf(chi2.isf(alpha)) reaches `power`.

    It is symmetric in the direction of the bias, the test is not: a face that comes up too often is harder
    to see than one that comes up too rarely (simulated at this n, 74-77% power for "too often" where 80% was
    asked, 83-100% for "too rarely"). So it is only where `rolls_needed` starts looking."""
    df = len(probs) - 1
    p1 = loaded(probs, bias)
    w2 = sum((a - b) ** 2 / b for a, b in zip(p1, probs, strict=True))
    critical = special.chdtri(df, alpha)
    return _smallest(lambda n: 1.0 - float(special.chndtr(critical, df, n * w2)) >= power, 1)


def power_at(rolls: int, probs: Sequence[float], bias: float = DEFAULT_BIAS, alpha: float = ALPHA,
             simulations: int = SIMULATIONS) -> float:
    """The chance that `rolls` rolls of the `loaded` die give p < `alpha`: the share of `simulations` seeded
    simulated series (multinomial counts, Pearson's statistic exactly as `chi_square` computes it) that do.
    The seed is fixed, so the answer is the same every time (no global randomness)."""
    if rolls < min_rolls(probs):
        return 0.0
    rng = np.random.default_rng(SEED)
    counts = rng.multinomial(rolls, loaded(probs, bias), size=simulations)
    expected = rolls * np.asarray(probs, dtype=float)
    statistic = ((counts - expected) ** 2 / expected).sum(axis=1)
    return float((statistic > special.chdtri(len(probs) - 1, alpha)).mean())


def rolls_needed(probs: Sequence[float], bias: float = DEFAULT_BIAS, alpha: float = ALPHA,
                 power: float = POWER) -> int:
    """Rolls after which the `loaded` die (one face off by `bias`) is called biased with chance `power` by the
    chi-square test at level `alpha` (use alpha / m for a set of m dice: Holm's first step).

    Method: simulation of the test itself (`power_at`: seeded, `SIMULATIONS` series per size; within about
    1.5 points of power), searched by bisection from the noncentral chi-square estimate
    (`approx_rolls_needed`), which is optimistic by a tenth or so for a face that comes up too often.
    Never below `min_rolls`."""
    return _rolls_needed(tuple(float(p) for p in probs), float(bias), float(alpha), float(power))


@lru_cache(maxsize=256)
def _rolls_needed(probs: tuple[float, ...], bias: float, alpha: float, power: float) -> int:
    """The body of `rolls_needed`, kept once computed (the report asks again for each set at each page load)."""
    start = max(approx_rolls_needed(probs, bias, alpha, power), min_rolls(probs))
    return _smallest(lambda n: power_at(n, probs, bias, alpha) >= power, start)


def _smallest(enough: Callable[[int], bool], start: int) -> int:
    """The smallest n >= 1 with enough(n), for an `enough` that turns true as n grows: bracket from `start`,
    doubling or halving, then bisect."""
    high = max(1, start)
    while not enough(high):
        high *= 2
        if high > 10**8:
            raise ValueError("no number of rolls is enough: the bias is too small to detect")
    low = high // 2
    while low >= 1 and enough(low):
        high, low = low, low // 2
    while high - low > 1:  # enough(high), not enough(low) (low = 0: none below high tried)
        mid = (low + high) // 2
        low, high = (low, mid) if enough(mid) else (mid, high)
    return high
