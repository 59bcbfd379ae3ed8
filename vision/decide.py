"""Stage **decide**: one confidence per die, and whether it is certain.

Two readers look at a pip die (the CNN and the pip finder with its own checks); a die is certain only where
they agree and one of them is sure (`pip_confidence`, `weak_agreement_sure`, `cut_by_frame`). A still photo
of small dice is read again enlarged (`closer_look`; `same_at_both_scales`). Readings of one die are merged
(`one_reading_per_die`) and checked against the box's memory of confirmed dice (`with_memory`).
Read first: `pip_confidence`, then `with_memory`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .dicesets import DiceSet
from .finder import Candidate, same_die
from .memory import Memory, Vote, crop_die
from .pips import Face, _wide_ring_ok
from .reading import Reading

DETECTOR_RANK = 0.8  # the learned finder's candidates' rank against the hand-made cues' (see _read_classified)
# A box only the learned finder proposes, with no pip count inside it, is reported (unsure, as always) only when
# the CNN names its face at least this likely (more likely than not). Below it such boxes were phantoms far more
# often than dice: whole reader, fold models, right/missed/phantoms 58.00/18.29/2004 -> 57.80/18.84/1528 on
# roboflow-d6 never trained on, 63.02/15.25/1246 -> 62.46/17.07/1165 cross-validated; webcam-d6 98.26/0.41/209
# -> 98.26/0.41/170 unseen; certain-right and silent unchanged (one die fewer certain, cross-validated).
DETECTOR_ALONE = 0.5
# ... unless the learned finder itself is at least this sure a die lies there (its heatmap peak): under the tray
# touching dice the CNN reads doubtfully were dropped though the finder saw them plainly (test seeds 1-3,
# merged as the watcher reads: missed 15.77% -> 14.83%, right 62.78% -> 63.09%, one phantom more of 317 dice;
# 0.35 missed 13.88% with certain-right falling, 0.55 15.46%). Not from above: on photos the photos' finder
# proposes parts of busy floors as surely (with `around_finder_dice`, rune55-grey every 3rd photo 70.16% -> 59.01%)
# Under the tray such a box may also be certain on the CNN's word as a box the hand-made cues found is
# (`cnn_alone_certain`): 62 of the 478 test-seed d6 (2026-11-26) lay in a box only the finder saw, the CNN sure
# of their right face. Seeds 1-3 and 20-21 as the watcher reads: certain-right 36.19% -> 41.84% (touching dice
# 13.24% -> 22.37%), silent 0 -> 0; seeds 25-29 and 33 (491 d6, the face network never trained on them, where
# the rule was checked first): 36.05% -> 43.38%, silent 0 -> 0. From above it stays out (busy floors, above).
FINDER_SURE = 0.45
# A square die's crop count agreeing with a CNN at least this sure makes it certain (`_agreement_certain`).
CROP_AGREES_AT = 0.5
# The pip finder's checks (`pip_confidence`) that a die the CNN is sure of must pass to be certain. 0.3 at
# first; many right dice score just under it (0.27-0.30: one mild doubt, such as clutter or an uneven layout,
# halves a clean score). 0.3 -> 0.2, photo bench (whole reader, fold models), certain-right / wrong-but-certain
# dice: roboflow-d6 never trained on 12.61% / 3 -> 15.45% / 3 of 1974, cross-validated 12.66% / 1 -> 14.89% / 1;
# webcam-d6 84.08% / 1 -> 86.07% / 1 (unseen), 83.42% / 1 -> 85.07% / 1 (cross-validated) of 1206.
PIP_CHECKS_FOR_CNN = 0.2
# the confidence of a count the CNN does not back (a guess the page asks about)
FLAT_GUESS = 0.25
# Trust the better judge (issue 31 #4): on a photo from above, a die the CNN names at least this surely is
# certain on the CNN's word even where the pip count differs or there is none, when nothing else doubts it (the
# same face at both second looks, a box of at least 0.6 of the frame's usual die, not a side face, not cut by
# the picture's edge, found by the hand-made cues). Why: on photos of sets neither network trained on the
# CNN named the right face of 75% of the dice found and the pip count of 62%; where the two disagreed the CNN
# was right on 515 of 719 dice and the count on 51, and the count's veto left those dice uncertain.
# Calibrated on real photos held back from training (rune55-colour, rune55-grey, translucent-crops; the whole
# reader): on every photo of rune55-colour and every other one of the others (2,963 labelled d6), of the dice
# the old rule left uncertain that this one makes certain, at 0.95 / 0.97 / 0.98 / 0.985 / 0.99 the wrong ones
# were 20 / 7 / 4 / 2 / 0 of 427 / 354 / 306 / 284 / 238. On the photos left out of that fit, 0.99 made two
# more dice certain and wrong: rune55-grey 00104_4, a clear 4 the CNN names 5 at 0.9955 (the pip finder counted
# 4, unsure of it), and 00166_255, whose lower left die is labelled 5 and shows a 3 (the CNN says 3 at 0.9999:
# a label error, counted as silent by the bench all the same). 0.996 kept the first out, with the rule kept out
# of the enlarged second read (`reader._read_classified`), where the same die read 0.9965; but on webcam-d6
# (which the CNN trained on) it made two motion-blurred 4s of four_50 certain 6s (0.9965, 0.9982; the pip finder
# counted 4 and nothing). At 0.999 none of those, and of the 2,963 held-back dice it makes certain about half
# as many as 0.996 (60 of 118 in the fit above), none wrong.
CNN_ALONE_AT = 0.999


SMALL_DIE = 45.0       # px: a still photo whose surely read dice are smaller than this (median side) is read
                       # again, enlarged
ZOOM = 1.5             # how much it is enlarged (and to at most ZOOM_MAX_SIDE px)
ZOOM_MAX_SIDE = 1280


def closer_look(readings: list[Reading], shape: tuple[int, ...]) -> float:
    """How much to enlarge a still photo (no learned background) to read it a second time, from the first
    read (1.0: no second read). Why: pips of dice of 20-40 px (a phone photo of a table) are 2-4 px across,
    at the pip finder's and the CNN's limit, and some are found and named only when the photo is enlarged.
    Only the dice the first read is fairly sure of (confidence above 0.5) tell the scale: phantoms in a
    busy scene come in every size. No such dice, or their median side under `SMALL_DIE`: look closer. An
    empty frame (nothing at all found) is not looked at again: the box reads many empty trays; nor is a photo
    whose every die the first read is certain of (the enlarged read's dice are certain only where the first
    read agrees, so it could only add dice: on 1,284 dice of rune55-colour, rune55-grey and roboflow-d6 it
    added none, and the enlarged read costs about twice the first)."""
    sides = sorted(max(r.box[2], r.box[3]) for r in readings if r.confidence > 0.5)
    if not readings or (sides and sides[len(sides) // 2] >= SMALL_DIE) or all(r.certain for r in readings):
        return 1.0
    zoom = min(ZOOM, ZOOM_MAX_SIDE / max(shape[0], shape[1]))
    return zoom if zoom > 1.05 else 1.0


def same_at_both_scales(zoomed: list[Reading], first: list[Reading], zoom: float) -> list[Reading]:
    """The enlarged read's dice, certain only where the first read named the same face at the same place
    (within half a die). Why: the enlarged photo shows the pip finder and the CNN details the first read did
    not resolve, and on unseen photos some of its sure dice were wrong (a 3 read as a 2, a 4 as a 2); two
    reads at two scales that agree are the reader's usual "two readers agree"."""
    out = []
    for r in zoomed:
        if r.certain:
            cx, cy, half = r.center[0] / zoom, r.center[1] / zoom, 0.5 * max(r.box[2], r.box[3]) / zoom
            near = [f for f in first if abs(f.center[0] - cx) < half and abs(f.center[1] - cy) < half]
            if not any(f.value == r.value and f.face == r.face for f in near):
                r = replace(r, certain=False, confidence=min(r.confidence, 0.5))
        out.append(r)
    return out


def missed_when_enlarged(first: list[Reading], zoomed: list[Reading], zoom: float) -> list[Reading]:
    """The first read's dice that the enlarged read has nothing on (no reading within half a die of them),
    moved to the enlarged photo's coordinates. Why: the enlarged read is kept for the dice it is surer of, but
    it loses some the first read had (on unseen photos: dice crowded together, dice on a busy board, whose
    enlarged boxes the classifier called "not a die"); those keep their first reading."""
    out = []
    for f in first:
        cx, cy, half = f.center[0] * zoom, f.center[1] * zoom, 0.5 * max(f.box[2], f.box[3]) * zoom
        if any(abs(r.center[0] - cx) < half and abs(r.center[1] - cy) < half for r in zoomed):
            continue
        bx, by, bw, bh = f.box
        out.append(replace(f, center=(cx, cy), box=(int(round(bx * zoom)), int(round(by * zoom)),
                                                    int(round(bw * zoom)), int(round(bh * zoom)))))
    return out


def sure_count(readings: list[Reading]) -> int:
    return sum(r.confidence > 0.5 for r in readings)


def cut_by_frame(f: Face, shape: tuple[int, ...]) -> bool:
    """Whether the pip finder's face (its square, `Face.size` around its centre; for a lone pip, ten times the
    pip's radius) runs out of the picture. Why: pips outside the picture are not counted, so the count there is
    only a lower bound, however sure the CNN and the pip finder are. On roboflow-d6 (dice_2, never trained on)
    a close-up die that the photo's top edge cuts showed one pip of its labelled 2, and both read a certain 1
    (the shipped models too). Whole reader, leave-one-dataset-out models, roboflow-d6: certain-right 13.37% ->
    13.32% (one die of 1974), wrong-but-certain 3 -> 2; right, missed and phantoms unchanged; pip renders
    unchanged."""
    half = 0.5 * f.size
    return f.cx - half < 0 or f.cy - half < 0 or f.cx + half > shape[1] or f.cy + half > shape[0]


def weak_agreement_sure(looks: np.ndarray, index: int, side: float, typical_side: float) -> bool:
    """May a die whose face no count in its own outline's crop confirms be certain? Only when the CNN names
    the same face at every second look (`FaceClassifier.second_looks`: the box grown, the box nudged) and the
    box is at least 0.6 of the frame's usual die side (a smaller one was two pips of a 6, a part of a
    translucent die). Measured on the photo bench (leave-one-dataset-out, roboflow-d6 unseen): wrong-but-
    certain 38 -> 4 dice of 1974 with the pip-finder check in `_read_classified`, certain-right 14.4% -> 8.1%."""
    if typical_side and side < 0.6 * typical_side:
        return False
    return bool((looks.argmax(1) == index).all())


def _index_of(ds: DiceSet, r: Reading) -> int | None:
    """The top face index a reading names (faces may share a symbol: then the value tells them apart)."""
    hits = [f.index for f in ds.faces if f.name == r.face and f.value == r.value]
    return hits[0] if len(hits) == 1 else None


def with_memory(img: np.ndarray, ds: DiceSet, readings: list[Reading], memory: Memory,
                 has_cnn: bool) -> list[Reading]:
    """Readings checked against the faces this box's players confirmed before (see vision.memory)."""
    crops = [crop_die(img, r.center, r.box) for r in readings]
    embs = memory.embed(crops)
    return [_remembered(r, memory.vote(ds.id, e), ds, memory, has_cnn) for r, e in zip(readings, embs, strict=True)]


def _remembered(r: Reading, v: Vote | None, ds: DiceSet, memory: Memory, has_cnn: bool) -> Reading:
    """A reading checked against the memory's vote `v` for its crop (None: the memory has none)."""
    if v is None or not memory.is_clear(v) or v.face > ds.n:
        return r
    sure = v.unanimous and v.support >= memory.min_examples and memory.covers(ds.id, ds.n)
    if _index_of(ds, r) == v.face:
        # agreement: a template reading (no CNN) becomes certain on a sure memory; a CNN keeps its own
        certain = r.certain or (sure and (not has_cnn or memory.overrules(v)))
        return Reading(r.value, r.face, r.colour, max(r.confidence, v.similarity if sure else 0.0), r.center, r.box,
                       certain)
    if sure and not r.certain:
        f = ds.face(v.face)
        return Reading(f.value, f.name, r.colour, v.similarity * 0.5, r.center, r.box,
                       not has_cnn and memory.overrules(v))
    # the reader and the memory disagree: ask the players
    return Reading(r.value, r.face, r.colour, min(r.confidence, 0.5), r.center, r.box, False)


def pip_confidence(f: Face, lab: np.ndarray, typical_round: float) -> float:
    conf = math.exp(-(f.residual / 0.22) ** 2)
    conf *= 0.5 + 0.5 * f.regular
    if f.count == 1 and not _wide_ring_ok(lab, f.pips[0]):
        conf *= 0.3
    if f.count > 6 or f.count < 1:
        conf = min(conf, 0.1)
    # a cocked die: its top face is seen much more obliquely than the other dice's
    if f.roundness < min(0.8, typical_round - 0.15):
        conf *= 0.4
    # which face is on top is unclear when a side face is seen almost as squarely
    for g in f.others:
        if g.roundness > f.roundness - 0.22:
            conf *= 0.5
    if f.conflict > 0.3:
        conf *= max(0.0, 1.0 - 2.0 * (f.conflict - 0.3)) * 0.5
    if f.faint:
        conf *= 0.3
    if f.twin:
        conf *= 0.3
    if f.clutter > 0.04:
        conf *= max(0.1, 1.0 - 6.0 * (f.clutter - 0.04)) * 0.55
    if any(p.n_merged > 1 for p in f.pips):
        conf *= 0.8
    return float(max(0.0, min(1.0, conf)))


def one_reading_per_die(readings: list[Reading]) -> list[Reading]:
    """Readings of blobs that are one die (centres within a third of the smaller box's side apart) merged
    into the surer reading (a blob of a rim or of several dice, with a box many dice wide, merges nothing). Why: a big die can come out of the finder as two blobs (its number and its body, each
    of them found again whole by `regrow` or `refit_square`), and the game would count it twice. When two
    certain readings of one die disagree, the die is uncertain."""
    out: list[Reading] = []
    for r in sorted(readings, key=lambda r: -r.confidence):
        same = [i for i, q in enumerate(out)
                if math.dist(q.center, r.center) < min(max(q.box[2:]), max(r.box[2:])) / 3.0]
        if not same:
            out.append(r)
        elif r.certain and (r.value, r.face) != (out[same[0]].value, out[same[0]].face):
            q = out[same[0]]
            out[same[0]] = replace(q, confidence=min(q.confidence, 0.5), certain=False)
    return out


# an outline this much wider than a die the learned finder found inside it holds more than that die
WIDER_THAN_DIE = 1.5


def around_finder_dice(cands: list[Candidate], preds: list, none: int) -> set[int]:
    """The hand-made cues' boxes that hold a die the learned finder found (a box the CNN names a die, its
    centre inside theirs) and are much wider than it: two touching dice, or a die and the shadow or lamp
    beside it, outlined as one. Why: such a box, read as a doubtful face, outranked the finder's die-sized
    boxes and suppressed them, and a touching die was lost (under-tray test seeds 1-3: the finder boxed 117
    of 146 touching dice, the reader kept 101)."""
    dice = [c.box for c, p in zip(cands, preds, strict=True) if c.source == "detector" and p.index != none]
    return {i for i, c in enumerate(cands) if c.source != "detector" and
            (any(centre_inside(d, c.box) and max(c.box[2:]) > WIDER_THAN_DIE * max(d[2:]) for d in dice)
             or _between_two(c.box, dice))}


def _between_two(box: tuple, dice: list[tuple]) -> bool:
    """Whether `box` would suppress (`finder.suppress`) two of the learned finder's dice that are not the same die
    (neither would suppress the other): a box astride two touching dice."""
    near = [d for d in dice if same_die(box, d)]
    return any(not same_die(a, b) for k, a in enumerate(near) for b in near[k + 1:])


def centre_inside(inner: tuple, outer: tuple) -> bool:
    """Whether the centre of box `inner` lies in box `outer` (both cx, cy, w, h)."""
    return abs(inner[0] - outer[0]) < outer[2] / 2 and abs(inner[1] - outer[1]) < outer[3] / 2


def candidate_order(cands: list[Candidate], preds: list, none: int) -> list[int]:
    """The candidates best first: the box whose face the CNN names most surely (a box that cuts a die or
    holds two reads as a doubtful face, or as "not a die"); the learned finder's boxes rank behind the
    hand-made cues' at about the same confidence: theirs carry the crop counts that let a die be certain."""
    score = [(p.confidence if p.index != none else 0.5 * (1.0 - p.confidence)) * (0.5 if c.off_centre else 1.0)
             * (DETECTOR_RANK if c.source == "detector" else 1.0) for p, c in zip(preds, cands, strict=True)]
    return sorted(range(len(cands)), key=lambda i: -score[i])


@dataclass(frozen=True)
class PipVotes:
    """What the two readers said of one candidate box of a pip die."""

    cnn_seen: int | None  # the face the CNN names (None: "not a die")
    cnn_index: int  # its class index
    cnn_conf: float  # how sure the CNN is of its answer
    finder_conf: float  # the pip finder's own checks of its count (layout fit, clutter, a cocked top face...)


# Under the tray a die lies on the glass, and a square turned any way has a square bounding box; a box this much
# longer than wide holds two touching dice or a die and its neighbour's side, and its reading is never certain.
# Why: with the CNN trusted alone under the tray, two such boxes (95x59 around two touching dice, 38x84 around a
# die and a side face) were read certain and wrong on test seeds 1-3 with a face network trained on more renders.
SQUARISH = 1.35


def squarish(box: tuple, longest: float = SQUARISH) -> bool:
    """Whether a box (cx, cy, w, h) could be one die lying on the glass: at most `longest` times as long as
    wide (`SQUARISH`; a die's colour asks more of it, `reader.HALVES_LONG`)."""
    w, h = float(box[2]), float(box[3])
    return max(w, h) <= longest * max(min(w, h), 1.0)


def lies_flat(c: Candidate) -> bool:
    """A square outline that fills its rectangle: a die lying flat (a cocked one shows a side face too; a
    die found in part, against a room as dark as its body, fills it poorly)."""
    return c.rect is not None and max(c.rect[1]) < 1.15 * max(min(c.rect[1]), 1.0) and \
        (c.fill is None or c.fill >= 0.8)


def judge_pip_die(c: Candidate, v: PipVotes, certain_at: float, learned_room: bool, shape: tuple[int, ...],
                  look: np.ndarray | None, typical_side: float, cnn_alone: bool = False,
                  finder_sure: float = math.inf, alone_at: float = CNN_ALONE_AT,
                  crop_at: float = CROP_AGREES_AT) -> tuple[int, float, bool] | None:
    """(face seen, confidence, certain) of one candidate, or None: no die there (or a cocked one, left out:
    the game's count stays short, so it asks). `cnn_alone`: a photo from above, or any frame under the tray,
    where a CNN sure on its own (at least `alone_at`) is the better judge than a pip count that differs
    (`CNN_ALONE_AT`, `reader.UNDER_ALONE`). `finder_sure`: the learned finder's
    heatmap peak at which its own box is a die however doubtfully the CNN names it, and may be certain on the
    CNN's word like a box the hand-made cues found (`FINDER_SURE`, under the tray). `crop_at`: how sure the CNN
    must be for a square die's crop count agreeing with it to make it certain (`CROP_AGREES_AT`)."""
    square = lies_flat(c)
    # every count made must agree (the pip finder's and the crop's: speckles fool one more than both)
    counts = [n for n in (c.pips, c.crop_pips) if n]
    # with the box's learned background a sharp square outline that fills its rectangle is a die lying flat
    # whatever the CNN says: its crop count is kept as a guess, uncertain (a black die showing a light 2
    # under the tray, its body hardly lighter than the room, looks to the CNN like two pips of a bigger face)
    flat_die = learned_room and square and c.crop_pips is not None
    if v.cnn_seen is None and v.finder_conf < 0.6 and not flat_die:
        return None
    if v.cnn_seen is not None and bool(counts) and all(n == v.cnn_seen for n in counts):
        # a count that agrees, in a box the outline or the learned finder drew, never leaves a die less
        # certain than no count would: the CNN alone may still make it so (a lone LED spot counted as the
        # one pip of a 1 on the glass, its own checks weak). Not in a box drawn round the pips counted:
        # they may be a part of a face, and the CNN shown that part agrees (a translucent 6 boxed round
        # one row, a 3)
        certain = _agreement_certain(c, v, certain_at, square, shape, look, typical_side, crop_at) or (
            cnn_alone and c.source != "pips" and
            cnn_alone_certain(c, v, shape, look, typical_side, alone_at, finder_sure))
        return v.cnn_seen, max(v.cnn_conf, v.finder_conf), certain
    if cnn_alone and v.cnn_seen is not None and cnn_alone_certain(c, v, shape, look, typical_side, alone_at,
                                                                 finder_sure):
        return v.cnn_seen, v.cnn_conf, True
    return _surer_guess(c, v, counts, finder_sure)


def wants_cnn_alone(c: Candidate, v: PipVotes, alone_at: float = CNN_ALONE_AT, finder_sure: float = math.inf
                    ) -> bool:
    """Whether a die may be certain on the CNN's word alone (at least `alone_at` sure), so that its second looks
    are wanted: a face the CNN names that surely, that no count agrees with, in a box the hand-made cues found
    or the learned finder is at least `finder_sure` sure of (under the tray: `FINDER_SURE`)."""
    counts = [n for n in (c.pips, c.crop_pips) if n]
    return alone_sure(c, v, alone_at, finder_sure) and not (counts and all(n == v.cnn_seen for n in counts))


def alone_sure(c: Candidate, v: PipVotes, alone_at: float, finder_sure: float) -> bool:
    """The CNN names a face at least `alone_at` sure, in a box the hand-made cues found or the learned
    finder is at least `finder_sure` sure of."""
    found = c.source != "detector" or c.score >= finder_sure
    return v.cnn_seen is not None and v.cnn_conf >= alone_at and found


def cnn_alone_certain(c: Candidate, v: PipVotes, shape: tuple[int, ...], look: np.ndarray | None,
                      typical_side: float, alone_at: float = CNN_ALONE_AT, finder_sure: float = math.inf) -> bool:
    """A die whose pip count differs from the CNN's face, or that has none, or agrees too weakly to make it
    certain (`_agreement_certain`), certain on the CNN's word: the CNN at least `alone_at` sure and the same
    at its second looks; not a side face or a part (off the outline's middle, low in it), not cut by the
    picture's edge, not a lone pip's box, not a box more than twice the frame's usual die, not a box only
    the learned finder saw unless it is `finder_sure` of it."""
    if not alone_sure(c, v, alone_at, finder_sure) or look is None or c.off_centre or c.low:
        return False
    if c.face is not None and cut_by_frame(c.face, shape):
        return False
    if c.source == "pips" and (v.cnn_seen == 1 or c.pips == 1):
        # a lone pip's box is sized from one pip: named a 1 it may be a part of a bigger face, named another
        # face it may hold more than one die (rune55-colour PXL_20240219_191238220: a box five dice wide around
        # a speck, named a certain 3 where a 1 lies)
        return False
    cx, cy, w, h = c.box
    if typical_side and max(w, h) > 2.0 * typical_side:
        return False  # a box more than twice the frame's usual die: not one die
    if cx - 0.5 * w < 0 or cy - 0.5 * h < 0 or cx + 0.5 * w > shape[1] or cy + 0.5 * h > shape[0]:
        return False
    return weak_agreement_sure(look, v.cnn_index, max(w, h), typical_side)


def _surer_guess(c: Candidate, v: PipVotes, counts: list[int], finder_sure: float = math.inf
                 ) -> tuple[int, float, bool] | None:
    """(face, confidence, False) of a die whose readers disagree, or that the pip finder saw no pips on: the
    surer one's guess, uncertain; None for a box only the learned finder saw whose face the CNN hardly names
    and the finder itself doubts (a phantom)."""
    if v.cnn_seen is None or (c.pips and v.finder_conf > v.cnn_conf):
        conf = FLAT_GUESS if v.cnn_seen is None and v.finder_conf < 0.6 else min(v.finder_conf, 0.5)
        return c.pips or counts[0], conf, False
    if c.source == "detector" and not counts and v.cnn_conf < DETECTOR_ALONE and c.score < finder_sure:
        return None
    return v.cnn_seen, min(v.cnn_conf, 0.5), False


def _agreement_certain(c: Candidate, v: PipVotes, certain_at: float, square: bool, shape: tuple[int, ...],
                       look: np.ndarray | None, typical_side: float, crop_at: float = CROP_AGREES_AT) -> bool:
    """Whether a die whose counts agree with the CNN is certain: one of the readers is sure of it, and
    nothing says it is a side face, a part of a face, or cut by the picture's edge."""
    crop_sure = c.crop_pips == v.cnn_seen and square and v.cnn_conf >= crop_at
    # the pip finder's checks count only with a CNN that at least leans the same way (on real photos
    # a missed or merged pip makes both read a 3 as a 2 now and then)
    # a CNN sure on its own (above its threshold, fitted on held-back photos) still needs the pip finder
    # not to object (its checks at least PIP_CHECKS_FOR_CNN) or the crop's count: on photos of unseen
    # dice sets the two agreed on a side face or a part of a face
    cnn_sure = v.cnn_conf >= certain_at and (v.finder_conf >= PIP_CHECKS_FOR_CNN or c.crop_pips == v.cnn_seen)
    certain = cnn_sure or (v.finder_conf >= 0.6 and v.cnn_conf >= 0.5) or crop_sure
    if c.off_centre or c.low:
        certain = False  # a side face of a die seen at an angle (its one pip, its front face), a part
    elif c.face is not None and cut_by_frame(c.face, shape):
        certain = False  # a face the picture's edge cuts: its other pips may lie outside the picture
    elif v.cnn_seen == 1 and c.source == "pips":
        # a box around one lone pip may be a part of a bigger face (a pip of a speckled 2): a 1 needs
        # the pip finder's own checks (a clean wide ring of face around the pip)
        certain = certain and v.finder_conf >= 0.6
    if look is not None and not weak_agreement_sure(look, v.cnn_index, max(c.box[2:]), typical_side):
        certain = False
    return certain


def colour_sure(r: Reading, ds: DiceSet) -> Reading:
    """A game that tells dice apart by colour (Regidice) gets a certain colour or an unsure die."""
    if ds.colours and r.certain and r.colour not in ds.colours:
        return replace(r, certain=False)
    return r
