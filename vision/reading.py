"""What the reader says about one die: the contract between vision/ and the rest of the box.

`certain` is the reader's promise: when it is False the page asks a player to confirm, so a die the
reader is unsure of must never be reported certain with a wrong value.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

# The face of a reading whose face the reader could not name at all (its value is None)
UNNAMED = "?"


@dataclass(frozen=True)
class Reading:
    """One die: the face that counts for the game (top face) and how sure the reader is of it."""

    value: int | None          # game value of the top face (1-6 for d6); None when unreadable
    face: str                  # symbol name of the top face ("3", "sword", "energy", ...)
    colour: str                # red, yellow, blue, black, white, green, purple, other
    confidence: float          # 0..1
    center: tuple[float, float]  # pixels, in the frame given
    box: tuple[int, int, int, int]  # x, y, w, h
    certain: bool
    set: str = ""              # the dice set it belongs to, when one throw mixes sets (vision.mixed)
    # an uncertain die's: how surely the one judge that named its face named it, where it is known: the corner
    # number's probability (numbered sets from below, `corner_numbers.with_corner_number`), the face network's
    # in a die's own box (pip dice from below, `reader.CNN_NAMED_WIDEST`). Why: such a die's shown
    # confidence is capped (`corner_numbers.GUESS_CONFIDENCE`; a pip die's at 0.5), and the watcher weighs how
    # surely each of its looks named it (`watcher.NAMED_IN_EVERY_LOOK_AT`). The reader's own evidence, not
    # part of what it reports (`to_dict` leaves it out)
    named_p: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        del out["named_p"]
        if not out["set"]:
            del out["set"]  # only a mixed throw names each die's set
        out["center"] = [round(self.center[0], 1), round(self.center[1], 1)]
        out["box"] = list(self.box)
        out["confidence"] = round(self.confidence, 3)
        return out
