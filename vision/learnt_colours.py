"""The colours of a table's own dice under its own light, learnt from confirmed rolls.

Why: a game that tells dice apart by colour (Regidice: the colour picks the spell) needs each die's colour as
surely as its face, and from below the tray a fixed naming of hues is often wrong: the box's LEDs tint every
die (a green ring, a warm one), the plate and a translucent body mix in the room. On Blender's under-tray tables
(100-105, 109-116, 118-129; 801 dice of Regidice's colours in throws 15-29, the true boxes) `faces.classify_colour`
named 62.5% right, while the median Lab tint of the same dice's middles, compared with that table's first ten
throws' confirmed dice of each colour, named 99.1% right. The light and the dice stay the same within a box, so
what a colour looks like there is learnt once, as the players confirm their rolls.

A die's tint (`tint`) is the (a, b) of CIE Lab of the median colour of its crop's middle (lightness left out: on
those tables it added nothing, 99.0% right with it, and it follows where a die lies in the LED ring's glare).
Each colour learnt is the mean and spread of its examples' tints (the spread floored at `SPREAD_FLOOR`: a few
examples alike must not make a needle-thin colour). A die's colour is the learnt one nearest in those spreads
(`distance`), and clear when it lies within `NEAR` of it and every other learnt colour lies `CLEAR_RATIO` times
further.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

MIDDLE = 0.6          # the share of the die's side, about its centre, whose median colour is its body's
SPREAD_FLOOR = 3.0    # Lab units: the least spread a learnt colour's tint is given, each axis
MIN_PER_COLOUR = 3    # confirmed dice of a colour before it is named from what was learnt
# A die within NEAR spreads of a learnt colour, and CLEAR_RATIO times nearer to it than to any other, is clearly that
# colour. Chosen on the tables above (first ten throws taught, throws 15-29 read): at 2.5 / 2 97.5% of the dice
# are clear and none of them wrong; leaving one colour of a table out of what was taught, 84 of its 553 dice
# were clear as a colour taught (why a set's colours must all be taught before a learnt name is certain alone:
# `LearntColour.covers`).
NEAR = 2.5
CLEAR_RATIO = 2.0


@dataclass(frozen=True)
class LearntColour:
    """The learnt colour nearest a die's tint: its name, how many spreads away, whether it is clear, and whether
    every colour the set has was learnt (`covers`: only then can a die of a colour never taught not be
    mistaken for a taught one)."""

    colour: str
    distance: float
    clear: bool
    covers: bool

    @property
    def near(self) -> bool:
        """Within NEAR of the colour: the best guess of its colour, clear or not."""
        return self.distance < NEAR


@dataclass(frozen=True)
class ColourModel:
    """Each learnt colour's mean tint and spread (rows in `names` order)."""

    names: tuple[str, ...]
    means: np.ndarray
    spreads: np.ndarray

    @classmethod
    def fit(cls, colours: list[str], tints: np.ndarray) -> ColourModel | None:
        """The model of the colours with at least MIN_PER_COLOUR examples (None when there is none)."""
        names = tuple(sorted(c for c in set(colours) if colours.count(c) >= MIN_PER_COLOUR))
        if not names:
            return None
        picked = [tints[[i for i, c in enumerate(colours) if c == n]] for n in names]
        return cls(names, np.stack([t.mean(0) for t in picked]),
                   np.stack([t.std(0) + SPREAD_FLOOR for t in picked]))

    def name(self, tint_of_die: np.ndarray, set_colours: tuple[str, ...]) -> LearntColour:
        """The learnt colour of a die of tint `tint_of_die`, in a set whose colours are `set_colours`."""
        d = np.sqrt((((tint_of_die[None] - self.means) / self.spreads) ** 2).mean(1))
        order = np.argsort(d)
        best = float(d[order[0]])
        second = float(d[order[1]]) if len(order) > 1 else np.inf
        return LearntColour(self.names[int(order[0])], best, best < NEAR and second > CLEAR_RATIO * best,
                            set(set_colours) <= set(self.names))


def tint(crop: np.ndarray, pad: float) -> np.ndarray:
    """The (a, b) of CIE Lab of the median colour of the die's middle, in a crop of its box grown by `pad` about
    its centre (as `vision.memory.crop_die` cuts one)."""
    side = crop.shape[0]
    half = max(1, int(side / pad * MIDDLE / 2))
    c0, c1 = side // 2, crop.shape[1] // 2
    middle = crop[c0 - half:c0 + half, c1 - half:c1 + half].reshape(-1, 3)
    median = np.median(middle, 0).astype(np.uint8)
    return cv2.cvtColor(median[None, None], cv2.COLOR_BGR2Lab)[0, 0, 1:].astype(np.float64)
