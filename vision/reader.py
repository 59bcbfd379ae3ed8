"""Read the dice in one settled frame: find each die, read its face, name it, and decide how sure we are.

`read_dice` runs the stages (docs/architecture.md, "The reader's stages"), each a module of its own:
find (`vision/find.py`: whole-die blobs and candidates) -> outline (`vision/outline.py`: the face found whole
around a blob) -> face (`vision/faces.py`: the crop, its ink, pips, templates, the CNNs in `classify.py` and
`numerals.py`) -> name (`vision/name.py`: the set's face, the opposite map) -> decide (`vision/decide.py`: one
confidence, certain or not). This module chooses the path by the dice set (a pip set with its CNN, a pip set
without one, icon and numeral dice) and the frame (a still photo, or the box's frame with its learned room).
"""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np

from .classify import FaceClassifier
from .classify import load as load_classifier
from .decide import (
    DETECTOR_ALONE,
    DETECTOR_RANK,
    FLAT_GUESS,
    PIP_CHECKS_FOR_CNN,
    closer_look,
    cut_by_frame,
    missed_when_enlarged,
    one_reading_per_die,
    pip_confidence,
    same_at_both_scales,
    sure_count,
    weak_agreement_sure,
    with_memory,
)
from .detector import Detection, DieDetector
from .detector import load as load_detector
from .dicesets import DiceSet, DiceSetLike, get_set
from .faces import FaceReader, classify_colour
from .find import FOUND_ONLY_BY_DETECTOR, detector_blobs, find_candidates, find_dice
from .finder import body_colour, suppress, to_int_box
from .memory import Memory
from .outline import refitted
from .pips import lab_to_bgr, pip_dice
from .reading import UNNAMED, Reading

# the learned finder's heatmap peak that proposes a die in the enlarged second read of a still photo. Why above
# its own threshold (0.3): on the enlarged photo it proposed many more boxes on busy floors and specks, which the
# classifier did not all reject (whole reader, fold models, roboflow-d6 never trained on, after DETECTOR_ALONE:
# phantoms 1528 -> 1466, from the previous session's bench)
ENLARGED_AT = 0.4


_READERS: dict[tuple[DiceSet, str, int], FaceReader] = {}


def face_reader(dice_set: DiceSetLike, mount: str, taught: dict | None = None) -> FaceReader:
    ds = get_set(dice_set)
    key = (ds, mount, id(taught) if taught else 0)
    r = _READERS.get(key)
    if r is None:
        r = FaceReader(ds, mount, taught)
        if len(_READERS) > 32:
            _READERS.clear()
        _READERS[key] = r
    return r


def read_dice(frame_bgr: np.ndarray, dice_set: DiceSetLike = "d6", mount: str = "under",
              background: np.ndarray | None = None, taught: dict | None = None,
              classifier: FaceClassifier | None = None, memory: Memory | None = None,
              detector: DieDetector | str | None = "shipped") -> list[Reading]:
    """Readings for every die in the frame; `value` is always the TOP face's game value.

    `dice_set` is the set's description (a `DiceSetSpec` dict, or a parsed `DiceSet`), or "d6".
    `classifier` replaces the shipped CNN for this set (benchmarks measure models that never saw a photo).
    `memory` is the box's memory of confirmed dice (`vision.memory.Memory`), consulted when it knows the set
    and was filled from the same mount. `detector`: the learned die finder that adds whole-die candidates in a
    frame with no learned background ("shipped": the package's; a `DieDetector`: that one, as benchmarks
    measure fold models; None: the hand-made cues alone)."""
    if frame_bgr is None or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3 or frame_bgr.size == 0:
        raise ValueError("read_dice needs a BGR image (h, w, 3)")
    if mount not in ("under", "over"):
        raise ValueError("mount must be 'under' or 'over'")
    h, w = frame_bgr.shape[:2]
    scale = 1.0
    img = frame_bgr
    if max(h, w) > 960:
        scale = 960.0 / max(h, w)
        img = cv2.resize(frame_bgr, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
        if background is not None:
            background = cv2.resize(background, (img.shape[1], img.shape[0]), interpolation=cv2.INTER_AREA)
    ds = get_set(dice_set)
    clf = (classifier or classifier_for(ds, mount)) if not taught else None
    det = (finder_for(mount) if detector == "shipped" else detector) if background is None else None
    if isinstance(det, str):
        raise ValueError("detector must be 'shipped', a DieDetector or None")
    if clf is not None:
        # with a learned background the classified read needs no Lab frame (the finder works on a smaller
        # one, the pip finder does not search the whole frame)
        lab = cv2.cvtColor(img, cv2.COLOR_BGR2Lab) if background is None else None
        readings = _read_classified(img, lab, ds, mount, background, clf, det)
        zoom = closer_look(readings, img.shape) if background is None else 1.0
        if zoom > 1.0:
            # the photo enlarged is read again; the read that is sure of more dice is kept (photo bench,
            # roboflow-d6 unseen: see docs/dice-sets.md). The learned finder proposes there only the boxes it
            # is surer of (`ENLARGED_AT`)
            big = cv2.resize(img, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_CUBIC)
            again = _read_classified(big, cv2.cvtColor(big, cv2.COLOR_BGR2Lab), ds, mount, None, clf,
                                     det.detect(big, max(det.threshold, ENLARGED_AT)) if det is not None else None)
            if sure_count(again) > sure_count(readings):
                img, scale, readings = big, scale * zoom, same_at_both_scales(again, readings, zoom) + \
                    missed_when_enlarged(readings, again, zoom)
    elif ds.kind == "pips" and not taught:
        lab = cv2.cvtColor(img, cv2.COLOR_BGR2Lab)
        readings = _read_pip_set(img, lab, ds, mount, background)
    else:
        # with the box's learned background no whole-frame Lab is needed (each die's crop is converted alone)
        lab = cv2.cvtColor(img, cv2.COLOR_BGR2Lab) if background is None else None
        blobs = find_dice(img, mount, background, lab, part_faces=background is None and ds.shape == "square")
        fr = face_reader(ds, mount, taught)
        sizes = [math.sqrt(b.area) for b in blobs]
        typical = float(np.median(sizes)) if sizes else 0.0
        readings = [r for r in (fr.read(img, lab, b, typical, background) for b in blobs) if r is not None]
        if det is not None and ds.shape in ("square", "pentagon"):
            # dice only the learned finder saw: a best guess, never certain (`detector_blobs`)
            readings += [replace(r, certain=False, confidence=min(r.confidence, FOUND_ONLY_BY_DETECTOR))
                         for b in detector_blobs(img, det.detect(img), blobs, ds.shape == "pentagon")
                         if (r := fr.read(img, lab, b, typical, background)) is not None]
        if background is None:
            # a still frame: what the face reader cannot name at all is no die. On the render bench (seeds 1 and
            # 2, both mounts) every such reading was a phantom (d12: 135 of its 195; about 15 for each icon set:
            # lamps, glare spots), and none of 3,421 real dice of d12, King of Tokyo and five heroes, nor of 656
            # read as another hero's set (artwork the templates do not draw), was read so. With the box's learned
            # room it is kept: the players are told something lies on the tray that the box cannot read
            readings = [r for r in readings if r.face != UNNAMED]
        readings = one_reading_per_die(readings)
    if memory is not None and memory.mount == mount and memory.knows(ds.id) and readings:
        readings = with_memory(img, ds, readings, memory, has_cnn=clf is not None)
    out: list[Reading] = []
    for r in readings:
        if scale != 1.0:
            cx, cy = r.center
            bx, by, bw, bh = r.box
            r = Reading(r.value, r.face, r.colour, r.confidence, (cx / scale, cy / scale),
                        (int(bx / scale), int(by / scale), int(bw / scale), int(bh / scale)), r.certain)
        if ds.colours and r.certain and r.colour not in ds.colours:
            # a game that tells dice apart by colour (Regidice) gets a certain colour or an unsure die
            r = replace(r, certain=False)
        out.append(r)
    out.sort(key=lambda r: (r.center[1], r.center[0]))
    return out


def finder_for(mount: str) -> DieDetector | None:
    """The shipped learned finder for the mount: under the tray the one trained on the box's own view as well
    (`finder-under`, `train_finder --undertray`), when the package has it, else the photos' finder."""
    return (load_detector("finder-under") if mount == "under" else None) or load_detector()


def classifier_for(ds: DiceSet, mount: str = "over") -> FaceClassifier | None:
    """The shipped CNN that reads this set's faces: pip d6 sets (six faces, pips 1-6) have one. Under the tray
    the one trained on the box's own view as well (`pips-under`, training/train_reader_undertray.py), when the
    package has it: dice seen from below through the plate, which pips.onnx never saw."""
    if ds.kind == "pips" and ds.n == 6 and all(f.glyph == f"pips:{f.index}" for f in ds.faces):
        return (load_classifier("pips-under") if mount == "under" else None) or load_classifier("pips")
    return None


def _read_classified(img: np.ndarray, lab: np.ndarray | None, ds: DiceSet, mount: str, background: np.ndarray | None,
                     clf: FaceClassifier, detector: DieDetector | list[Detection] | None = None) -> list[Reading]:
    """Finder candidates (outlines and pip clusters) -> CNN over every candidate box -> one reading per die.

    Two readers look at each die: the CNN and the pip finder (which counts pips and has its own checks of
    layout, clutter, a cocked top face...). A die is certain when they name the same face and at least
    one of them is sure of it (the CNN above its calibrated threshold, or the pip finder's own checks);
    when they disagree, or the pip finder saw no pips there, it is uncertain with the surer one's guess."""
    cands, lab = find_candidates(img, lab, mount, background, detector)
    if not cands:
        return []
    faces = [c.face for c in cands if c.face is not None]
    typical_round = float(np.median([f.roundness for f in faces])) if faces else 1.0
    # a still photo (no learned background) reads each crop mirrored too (`classify.join_mirrored`); the box's own
    # reads under the tray, on its learned room, are right on every render and must stay quick
    preds = clf.predict(img, [c.box for c in cands], both_ways=background is None)
    if background is not None:
        extra, extra_preds = refitted(img, background, cands, preds, clf)
        cands, preds = cands + extra, list(preds) + list(extra_preds)
    boxes = [c.box for c in cands]
    none = clf.classes.index("none")
    # best candidates first: the box whose face the CNN names most surely (a box that cuts a die or holds
    # two reads as a doubtful face, or as "not a die"); the learned finder's boxes rank behind the hand-made
    # cues' at about the same confidence: theirs carry the crop counts that let a die be certain
    score = [(p.confidence if p.index != none else 0.5 * (1.0 - p.confidence)) * (0.5 if c.off_centre else 1.0)
             * (DETECTOR_RANK if c.source == "detector" else 1.0) for p, c in zip(preds, cands, strict=True)]
    order = sorted(range(len(cands)), key=lambda i: -score[i])
    kept = suppress(order, boxes)
    # a die the CNN names that no count in its own outline's crop confirms is looked at again, and compared
    # with the frame's usual die size (`weak_agreement_sure`)
    sizes = [max(boxes[i][2:]) for i in kept if preds[i].index != none]
    typical_side = float(np.median(sizes)) if sizes else 0.0
    weak = [i for i in kept if preds[i].index != none and cands[i].crop_pips is None and
            cands[i].pips == int(clf.classes[preds[i].index])]
    looks = dict(zip(weak, clf.second_looks(img, [boxes[i] for i in weak]), strict=True))
    out: list[Reading] = []
    for i in kept:
        p, c = preds[i], cands[i]
        cnn_seen = int(clf.classes[p.index]) if p.index != none else None
        # the pip finder's own checks (layout fit, clutter, a cocked top face...)
        finder_conf = pip_confidence(c.face, lab, typical_round) if c.face is not None and c.pips else 0.0
        # the crop count of a square outline that fills its rectangle (a die lying flat: a cocked one shows
        # a side face too; a die found in part, against a room as dark as its body, fills it poorly)
        square = c.rect is not None and max(c.rect[1]) < 1.15 * max(min(c.rect[1]), 1.0) and \
            (c.fill is None or c.fill >= 0.8)
        # every count made must agree (the pip finder's and the crop's: speckles fool one more than both)
        counts = [n for n in (c.pips, c.crop_pips) if n]
        # with the box's learned background a sharp square outline that fills its rectangle is a die lying flat
        # whatever the CNN says: its crop count is kept as a guess, uncertain (a black die showing a light 2
        # under the tray, its body hardly lighter than the room, looks to the CNN like two pips of a bigger face)
        flat_die = background is not None and square and c.crop_pips is not None
        if p.index == none and finder_conf < 0.6 and not flat_die:
            continue  # not a die, or a cocked one: left out (the game's count stays short, so it asks)
        agree = cnn_seen is not None and bool(counts) and all(n == cnn_seen for n in counts)
        if agree:
            crop_sure = c.crop_pips == cnn_seen and square and p.confidence >= 0.5
            seen, conf = cnn_seen, max(p.confidence, finder_conf)
            # the pip finder's checks count only with a CNN that at least leans the same way (on real photos
            # a missed or merged pip makes both read a 3 as a 2 now and then)
            # a CNN sure on its own (above its threshold, fitted on held-back photos) still needs the pip finder
            # not to object (its checks at least PIP_CHECKS_FOR_CNN) or the crop's count: on photos of unseen
            # dice sets the two agreed on a side face or a part of a face
            cnn_sure = p.confidence >= clf.certain_at and (finder_conf >= PIP_CHECKS_FOR_CNN or
                                                           c.crop_pips == cnn_seen)
            certain = cnn_sure or (finder_conf >= 0.6 and p.confidence >= 0.5) or crop_sure
            if c.off_centre or c.low:
                certain = False  # a side face of a die seen at an angle (its one pip, its front face), a part
            elif c.face is not None and cut_by_frame(c.face, img.shape):
                certain = False  # a face the picture's edge cuts: its other pips may lie outside the picture
            elif cnn_seen == 1 and c.source == "pips":
                # a box around one lone pip may be a part of a bigger face (a pip of a speckled 2): a 1 needs
                # the pip finder's own checks (a clean wide ring of face around the pip)
                certain = certain and finder_conf >= 0.6
            if i in looks and not weak_agreement_sure(looks[i], p.index, max(c.box[2:]), typical_side):
                certain = False
        elif cnn_seen is None or (c.pips and finder_conf > p.confidence):
            seen, conf, certain = c.pips or counts[0], min(finder_conf, 0.5), False
            if p.index == none and finder_conf < 0.6:
                conf = FLAT_GUESS  # (`flat_die`)
        elif c.source == "detector" and not counts and p.confidence < DETECTOR_ALONE:
            continue  # only the learned finder saw a die here, and the CNN hardly names a face: a phantom
        else:
            seen, conf, certain = cnn_seen, min(p.confidence, 0.5), False
        top = ds.top_of(seen) if mount == "under" else seen
        f = ds.face(top)
        colour = classify_colour(lab_to_bgr(c.face.lab)) if c.face is not None else \
            classify_colour(body_colour(img, c.box))
        out.append(Reading(f.value, f.name, colour, conf, (c.box[0], c.box[1]), to_int_box(c.box), certain))
    return out


def _read_pip_set(img: np.ndarray, lab: np.ndarray, ds: DiceSet, mount: str,
                  background: np.ndarray | None) -> list[Reading]:
    dice = pip_dice(lab)
    if not dice:
        return []
    typical_round = float(np.median([f.roundness for f in dice]))
    out = []
    for f in dice:
        conf = pip_confidence(f, lab, typical_round)
        if f.count == 1 and not f.others and conf < 0.1:
            continue  # a lone blob that failed every check: not a die
        seen = f.count if 1 <= f.count <= ds.n else None
        if seen is None:
            value, face = None, UNNAMED
        else:
            top = ds.top_of(seen) if mount == "under" else seen
            value, face = ds.face(top).value, ds.face(top).name
        colour = classify_colour(lab_to_bgr(f.lab))
        half = 0.5 * f.size
        box = (int(f.cx - half), int(f.cy - half), int(2 * half), int(2 * half))
        out.append(Reading(value, face, colour, conf, (f.cx, f.cy), box, bool(seen is not None and conf >= 0.6)))
    return out


__all__ = ["read_dice", "find_dice", "find_candidates", "face_reader", "classifier_for", "finder_for", "closer_look",
           "same_at_both_scales", "missed_when_enlarged", "weak_agreement_sure", "detector_blobs", "FOUND_ONLY_BY_DETECTOR"]
