"""Stage **name**: the face a die shows the camera, named as the game counts it.

Under the tray the camera sees the face on the glass and the game wants the one on top: the dice set's
opposite map turns one into the other (`DiceSet.top_of`; a pip d6 is 7 - bottom). Where two faces on the
glass look alike but their tops differ, the name is a guess (`DiceSet.top_is_ambiguous`). Taught faces are
keyed by what the camera sees of the top face already. Read first: `name_seen`.
"""

from __future__ import annotations

from .dicesets import DiceSet, Face
from .reading import UNNAMED

UNNAMED_AT_MOST = 0.2  # the confidence of a die whose face no reader could name
AMBIGUOUS_TOP_AT_MOST = 0.5  # ... and of one whose face on the glass has a look-alike with another top


def top_face(ds: DiceSet, seen: int, mount: str) -> Face:
    """The set's face on top of a die whose seen face is index `seen` (under the tray: the one opposite)."""
    return ds.face(ds.top_of(seen) if mount == "under" else seen)


def name_seen(ds: DiceSet, seen: int | None, conf: float, opposite: bool) -> tuple[int | None, str, float]:
    """(value, face name, confidence) of a face seen as index `seen` (None: not named). `opposite`: the
    camera sees the bottom face (under the tray, drawn faces; taught faces are keyed by their top)."""
    if seen is None:
        return None, UNNAMED, min(conf, UNNAMED_AT_MOST)
    f = ds.face(ds.top_of(seen) if opposite else seen)
    if opposite and ds.top_is_ambiguous(seen):
        conf = min(conf, AMBIGUOUS_TOP_AT_MOST)
    return f.value, f.name, conf
