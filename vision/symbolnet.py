"""Stage **decide**, for symbol dice with a face network of their own (`vision/models/<set>-<mount>.onnx`).

The templates (`vision/glyphs.py`) know one drawing of each face; a table's dice are printed otherwise, and
from below the face is seen through a plate, with the LED ring's glare on it. A network trained on
many printings rendered under the tray (`training/train_symbols_undertray.py`) names the face on the glass
far more often (issue 31). Both look at each die, and one rule joins them (`joined`): the templates may
confirm the network, never overrule it.

- they agree: certain when either is sure (as the pip dice's CNN and pip count, `decide.judge_pip_die`);
- they disagree, or the templates named nothing: the network's face, certain only at its calibrated level.

Under the tray a box the network doubts is read in its four quarter turns too (`classify.joined_with_views`).

A family of sets ("<family>:<member>" ids) whose every face carries its index as a corner number
("icon:sword+corner:1") shares ONE network (`vision/models/<family>-<mount>.onnx`, meta "family"): its classes are
the face index, the number printed, so it reads a member it never trained on as well (`family_network`).

Boxes only the learned finder found are read by the network alone; so are the finder's boxes inside an
outline that held two or more of them (touching dice the outline took as one).
The network's "none" (no die's face: a reflection, half a die, two dice) never removes a reading; it only
keeps the reading from being certain.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache

import numpy as np

from .classify import TURNS, FaceClassifier, joined_with_views, normalise_batch
from .classify import load as load_classifier
from .detector import Detection
from .dicesets import DiceSet
from .faces import classify_colour
from .finder import body_colour
from .glyphs import corner_number
from .name import top_face
from .reading import Reading

NONE = 6   # the networks' last class: not a die's face
# The network is never sure of a box whose longer side is more than this many times the median of the boxes it
# reads in the frame (`trusted_levels`). Why: it learnt dice framed at about their face's size and "no die" at
# 2.3-3 times it (training/torch_net.py, `augment`), never in between, and there it was sure and wrong. From
# below, King of Tokyo seeds 200-201 and 223-231: the read with the room took a die and the white sheet under
# it as one box 1.7 times the others' (seed 201 frame 12), the learned finder a die and a neighbour as one 2.2
# times (seed 223 frame 36). As the watcher reads, silent 0.22% -> 0.11% with the network shipped in the
# twelfth session (certain-right 33.95% either way), 0.22% -> 0 with one trained in the thirteenth on boxes of
# 0.9-1.2; the one shipped in the thirteenth (boxes of 0.7-1.3) made neither error, and the rule costs it one
# die read alone (40.02% -> 39.91%). Not a rule for every reader: a throw of several sets holds dice of
# different sizes (tests/vision/test_vision_icons.py draws hero dice at 30-90 px), and only this network was
# never shown such boxes.
OUTSIZED = 1.6
# Under the tray a crop the network names a face of without being sure of it is read again in its other three
# quarter turns and named by the mean of the four, as pip dice are (`reader.TURNS_UNDER`).
TURNS_UNDER = True


def network_for(ds: DiceSet, mount: str) -> FaceClassifier | None:
    """The shipped face network of a symbol set at a mount, when the package has one made for these very
    faces (a table's own dice file under the same id, with other faces, gets none)."""
    if ds.kind == "pips":
        return None
    clf = load_classifier(f"{ds.id}-{mount}")
    if clf is None or clf.meta.get("faces") != [f.name for f in ds.faces]:
        return family_network(ds, mount)
    return clf


def family_network(ds: DiceSet, mount: str) -> FaceClassifier | None:
    """The network shared by a family of sets ("<family>:<member>" -> <family>-<mount>.onnx, meta "family"
    "<family>:"), for a member whose faces are numbered by their index in the corner: the network names that
    number, so any icons do (a table's own file of a member's dice too), but not faces numbered otherwise."""
    family, sep, _ = ds.id.partition(":")
    if not sep or not numbered_by_index(ds):
        return None
    clf = _shipped(f"{family}-{mount}")
    return clf if clf is not None and clf.meta.get("family") == f"{family}:" else None


def numbered_by_index(ds: DiceSet) -> bool:
    """Whether every face of a six-sided set prints its own index as its corner number (what the family's
    classes name)."""
    return len(ds.faces) == 6 and all(corner_number(f.glyph) == str(f.index) for f in ds.faces)


@lru_cache(maxsize=8)
def _shipped(name: str) -> FaceClassifier | None:
    """A family's shipped network, loaded once: every hero's read asks for the same file."""
    return load_classifier(name)


def with_network(img: np.ndarray, ds: DiceSet, mount: str, readings: list[Reading],
                 found: list[Detection] | None, network: FaceClassifier | None = None,
                 lift: bool = False) -> list[Reading]:
    """The readings judged again with the set's network (`network`, else the shipped one), and the dice the
    learned finder `found` that no reading covers read by it alone (unchanged when the set has no network).
    `lift`: a die the four turns' mean is sure of is sure (`turned_levels`; the box's read with its room)."""
    clf = network or network_for(ds, mount)
    if clf is None:
        return readings
    boxes = [d.box for d in found or ()]
    whole = [r for r in readings if _inside(r, [b[:2] for b in boxes]) < 2]
    extra = [b for b in boxes if not any(_inside(r, [b[:2]]) for r in whole)]
    read = [_centred(r.box) for r in whole] + extra
    crops = crops_of(clf, img, read)
    probs, again = probabilities(clf, crops), np.zeros(len(read), bool)
    if TURNS_UNDER and mount == "under" and len(read):
        # a box named a face below the network's level is read in its other three quarter turns too and named
        # by the mean: a die from below lies at any angle behind grain and the LED ring's glare, and the
        # network, trained on every turn, reads one turn where another is clear
        probs, _, again = joined_with_views(clf, crops, probs, None, TURNS, unsure_only=True)
    levels = turned_levels(trusted_levels(read, clf.certain_at), again, clf, lift)
    out = [joined(r, p, ds, mount, lvl) for r, p, lvl in zip(whole, probs, levels, strict=False)]
    alone = [r for b, p, lvl in zip(extra, probs[len(whole):], levels[len(whole):], strict=True)
             if (r := _alone(img, b, p, ds, mount, lvl))]
    # an outline over touching dice stays when the network reads none of the finder's dice inside it
    kept = [r for r in readings if r not in whole and not _inside(r, [a.center for a in alone])]
    return out + alone + kept


def trusted_levels(boxes: list, certain_at: float) -> list[float]:
    """The level at which the network is sure of each box (cx, cy, w, h): its own, but never where a box's
    longer side passes OUTSIZED times the median of the frame's boxes (three or more)."""
    sides = [max(b[2], b[3]) for b in boxes]
    if len(sides) < 3:
        return [certain_at] * len(sides)
    limit = OUTSIZED * float(np.median(sides))
    return [math.inf if side > limit else certain_at for side in sides]


def crops_of(clf: FaceClassifier, img: np.ndarray, boxes: list) -> np.ndarray:
    """Each box (cx, cy, w, h) cut as the network reads it (n, size, size, 3)."""
    if not boxes:
        return np.zeros((0, clf.size, clf.size, 3), np.uint8)
    return clf.cut(img, boxes)


def probabilities(clf: FaceClassifier, crops: np.ndarray) -> np.ndarray:
    """The network's calibrated probabilities of every class for each crop, one batch."""
    if not len(crops):
        return np.zeros((0, len(clf.classes)), np.float32)
    return clf.run(normalise_batch(crops, clf.norm))[0]


def turned_levels(levels: list[float], again: np.ndarray, clf: FaceClassifier, lift: bool) -> list[float]:
    """The levels at which the network is sure of each box, where some were read in four turns (`again`):
    their plain reading was not sure, so their mean is sure only at the network's own level for it
    (`turns_certain_at`, fitted on held-back dice as `certain_at` is) and only with `lift`; an outsized box
    (level infinite) never is."""
    turns_at = clf.turns_certain_at if lift and clf.turns_certain_at is not None else math.inf
    return [turns_at if a and math.isfinite(lvl) else lvl for lvl, a in zip(levels, again, strict=True)]


def joined(r: Reading, probs: np.ndarray, ds: DiceSet, mount: str, certain_at: float) -> Reading:
    """One reading from the templates' `r` and the network's class probabilities (the module's rule)."""
    best = int(np.argmax(probs))
    conf = float(probs[best])
    sure = conf >= certain_at
    if best == NONE:
        return replace(r, certain=False) if sure else r
    face = top_face(ds, best + 1, mount)
    if r.face == face.name:
        return replace(r, certain=r.certain or sure, confidence=max(r.confidence, conf))
    # the templates know one drawing: where they name another face the network's word stands alone. Until the
    # eighteenth session (docs/dice-sets.md) certain templates stayed certain against an unsure network that
    # gave their face a tenth's chance, and were asked about against a sure one; on renders of eight printings
    # from below that made dice certain and wrong and left right ones asked about
    return replace(r, value=face.value, face=face.name, confidence=conf, certain=sure)


def _alone(img: np.ndarray, box: tuple[float, float, float, float], probs: np.ndarray, ds: DiceSet, mount: str,
           certain_at: float) -> Reading | None:
    """A die only the learned finder found, as the network reads it (None: the network calls it no die's
    face). An unsure guess is kept: the page asks about a die it shows, and a missing die it cannot."""
    best = int(np.argmax(probs))
    if best == NONE:
        return None
    face = top_face(ds, best + 1, mount)
    conf = float(probs[best])
    cx, cy, w, h = box
    return Reading(face.value, face.name, classify_colour(tuple(body_colour(img, box))), conf, (cx, cy),
                   (int(cx - w / 2), int(cy - h / 2), int(w), int(h)), conf >= certain_at)


def _centred(box: tuple[int, int, int, int]) -> tuple[float, float, float, float]:
    x, y, w, h = box
    return (x + w / 2, y + h / 2, float(w), float(h))


def _inside(r: Reading, points: list[tuple[float, float]]) -> int:
    """How many of the points (the finder's box centres) lie in the reading's box (two or more: the outline
    held touching dice as one, and the finder's boxes are read instead)."""
    x, y, w, h = r.box
    return sum(1 for cx, cy in points if x <= cx <= x + w and y <= cy <= y + h)
