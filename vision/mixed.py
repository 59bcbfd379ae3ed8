"""Reading one throw that mixes dice sets (Mage Wars' attack dice with the d12 effect die).

Each set's reader looks at the whole frame; every die found is then given to the set that reads it with the
most confidence, and a die another set already claimed (its centre inside the claimed die's box) is dropped.
A die whose best reading is unsure stays unsure: the page asks the players to confirm, as for any reading.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .dicesets import DiceSetLike
from .memory import Memory
from .reader import read_dice
from .reading import Reading


def _inside(point: tuple[float, float], box: tuple[int, int, int, int]) -> bool:
    x, y, w, h = box
    return x <= point[0] <= x + w and y <= point[1] <= y + h


def read_mixed(frame_bgr: np.ndarray, sets: dict[str, DiceSetLike], mount: str = "under",
               background: np.ndarray | None = None, taught: dict[str, dict | None] | None = None,
               memory: Memory | None = None) -> list[Reading]:
    """Readings of every die in the frame, each tagged with the id of the set it was read as (`Reading.set`).

    `sets` maps set ids to their descriptions (plain `DiceSetSpec` dicts, or "d6"); `taught` the faces taught
    on this box per set id, if any; `memory` the box's memory of confirmed dice (each set's examples)."""
    taught = taught or {}
    found: list[Reading] = []
    for set_id, spec in sets.items():
        for r in read_dice(frame_bgr, spec, mount, background=background, taught=taught.get(set_id),
                           memory=memory):
            found.append(replace(r, set=set_id))
    found.sort(key=lambda r: (not r.certain, -r.confidence))
    kept: list[Reading] = []
    for r in found:
        if any(_inside(r.center, k.box) or _inside(k.center, r.box) for k in kept):
            continue
        kept.append(r)
    kept.sort(key=lambda r: (r.center[1], r.center[0]))
    return kept
