"""Read the dice in one settled frame: find each die, read its face, name it, and decide how sure we are.

`read_dice` runs the stages (docs/architecture.md, "The reader's stages"), each a module of its own:
size (`vision/readsize.py`: the frame shrunk, or read again where its dice are the networks' size) -> find
(`vision/find.py`: whole-die blobs and candidates) -> outline (`vision/outline.py`: the face found whole around a
blob) -> face (`vision/faces.py`: the crop, its ink, pips, templates, the CNNs in `classify.py` and
`numerals.py`) -> name (`vision/name.py`: the set's face, the opposite map) -> decide (`vision/decide.py`: one
confidence, certain or not). This module chooses the path by the dice set (a pip set with its CNN, a pip set
without one, icon and numeral dice) and the frame (a still photo, or the box's frame with its learned room).
"""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np

from . import readsize
from .classify import FaceClassifier, Prediction
from .classify import load as load_classifier
from .corner_numbers import with_corner_number
from .decide import (
    CNN_ALONE_AT,
    CROP_AGREES_AT,
    FINDER_SURE,
    PipVotes,
    around_finder_dice,
    candidate_order,
    closer_look,
    colour_sure,
    judge_pip_die,
    missed_when_enlarged,
    one_reading_per_die,
    pip_confidence,
    same_at_both_scales,
    squarish,
    sure_count,
    wants_cnn_alone,
    weak_agreement_sure,
    with_memory,
)
from .detector import Detection, DieDetector
from .detector import load as load_detector
from .dicesets import DiceSet, DiceSetLike, get_set
from .faces import FaceReader, classify_colour, colour_is_clear, nearest_colour
from .find import (
    FOUND_ONLY_BY_DETECTOR,
    at_finder_view,
    detector_blobs,
    find_candidates,
    find_dice,
    frame_detected,
    heap_detections,
    read_past_finder,
)
from .finder import Candidate, blue_cast, body_colour, suppress, to_int_box
from .memory import Memory
from .name import top_face
from .outline import refitted
from .pips import Face, lab_to_bgr, pip_dice
from .reading import UNNAMED, Reading
from .reflections import without_reflections
from .symbolnet import network_for, with_network
from .window import WINDOW_SURE, windowed

# the learned finder's heatmap peak that proposes a die in the enlarged second read of a still photo. Why above
# its own threshold (0.3): on the enlarged photo it proposed many more boxes on busy floors and specks, which the
# classifier did not all reject (whole reader, fold models, roboflow-d6 never trained on, after DETECTOR_ALONE:
# phantoms 1528 -> 1466, from the previous session's bench)
ENLARGED_AT = 0.4
# Under the tray a frame read without the room is not read a second time enlarged (`closer_look`). Why:
# there the read's size is already chosen for the networks (`readsize.camera_side`, and `better_side` reads
# again where the dice are far from the size they learnt), and the enlarged read was wasted work: on 967
# roomless reads of Blender's under-tray frames (d6 seeds 1-5, 25-28, 50-60, 73-77, 96-99, tables 190-195)
# it ran on 420 and was kept on 3, and with it gone the readings of d6 seeds 1-3, 50-60 and 73-77 scored the
# same, merged and as the watcher reads (docs/dice-sets.md, "No enlarged second read under the tray").
CLOSER_UNDER = False
# Under the tray the CNN reads each pip die's crop in its four quarter turns and takes the likeliest face of their
# mean (`classify.join_views`; certainty as before, the plain reading's where it names the same face). Why: a die
# from below lies at any angle behind grain, glare and the LED ring's reflections, and the network read one turn
# where another was clear (measurements in docs/dice-sets.md, "Four turns of every die").
TURNS_UNDER = True
# Under the tray with its room, the LED ring's reflections the room shows may be subtracted from the frame
# before it is read (`vision.reflections`): a spot on a die's face is no pip. Off: on fresh frames it gained
# nothing (seeds 92-93, 165 dice: one die more right, two fewer certain and right as the watcher reads), and
# the rule written before them turned it off (docs/dice-sets.md, "The LED ring's reflections taken out").
REFLECTIONS_OUT = False
# With the room, the learned finder searches the heaps of touching icon dice too (`find.heap_detections`) in
# a frame read larger than the view it learnt from below (`find.read_past_finder`: a set read at 640 px for
# its corner numbers); a die it finds there that no outline holds is read as a best guess
# (`find.detector_blobs(boxed=True)`), never certain. Why: from below, a sixth of such dice were missed, most
# of them touching a neighbour. Three earlier forms failed their rules written before fresh seeds (a set read
# at 320 px lost a die; phantoms); the fourth passed on seeds 414-415: merged 60.32 -> 65.08% right, missed
# 12.70 -> 7.94%, as the watcher reads 61.90 -> 66.67%, phantoms and silent as before (docs/dice-sets.md,
# "Heaps of touching hero dice searched with the room"). `bench/vision_undertray.py --no-heaps-for-icons`
# reads without it.
HEAPS_FOR_ICONS = True
# Without the room, a frame of icon dice read larger than the view the learned finder learnt from below is
# searched by it shrunk to that view (`find.at_finder_view`), as the heaps are: at 640 px it saw hero dice
# twice the size it knows. Dev seeds (402-404, 408-431, merged): right 69.23 -> 69.66%, missed 9.29 -> 9.83%,
# phantoms 58 -> 46 (docs/dice-sets.md). `bench/vision_undertray.py --alone-finder-at-read-size`: without.
ALONE_AT_FINDER_VIEW = True
# Under the tray (every frame, with the room or without) the CNN is trusted alone at its own certainty level
# (`FaceClassifier.certain_at`, fitted on held-back renders from below as well as photos). Why: from below the pip
# finder counts faces through grain, glare and the LED ring's reflections, and its count differed or was missing
# on most dice the CNN was sure of (docs/dice-sets.md, "The CNN alone under the tray"): on test seeds 1-3 (317
# d6), as the watcher reads, certain-right 16.40% -> 23.97% with no die certain and wrong; on seeds 8-9 (154 d6,
# which the face network never trained on) 15.58% -> 23.38%, the one die certain and wrong before and after.
# At 0.99: 21.45% and 20.13%; at CNN_ALONE_AT (0.999): 17.35% and 15.58%.
UNDER_ALONE = True
# ... but never below this level. Why: the face network retrained on 512 frames (2026-11-26) fitted its own level
# at 0.9275, and on seeds 20-21 (161 d6, never trained on) a black die under the LED ring's mirrored spots read a
# certain 6 at 0.930. Chosen on those seeds and test seeds 1-3 together (478 d6, as the watcher reads): level
# 0.9275 certain-right 36.19%, one die certain and wrong; 0.95 34.94%, none; 0.975 30.13%; 0.99 27.20%.
# (The separable network shipped that afternoon fitted 0.9845 itself, refitted on more held-back frames 0.9555:
# the floor only guards a lower fit.)
UNDER_ALONE_FLOOR = 0.95
# ... and without a room (a frame read before the box has seen its empty tray, or the watcher's roomless read)
# never below this one, alone or where a pip count agrees with the CNN. Why: without the room the reader cannot
# tell the tray's own things from dice, and with the level refitted lower on more held-back frames (0.9555,
# 2026-11-26, fourth session) two of them were read alone certain: a warm LED ring's six spots mirrored in the
# plate as a 6 at 0.983 (test seed 3, frame 3) and a 124 px box round things seen through the plate as a 5 at
# 0.965 (seed 42, frame 37). With it the roomless read is certain as often as before the refit.
UNDER_ROOMLESS_FLOOR = 0.985
# An unsure pip die from below whose face the network names at its level in the die's own box
# (`_cnn_named_p`) is certain where the network names that face as surely in the boxes ROUND_SHIFT of a side
# left, right, up and down of it (`_sure_all_round`). Why: the reader's floors leave unsure many dice the
# network is sure and right of (281 of 3,195 d6 from below, 195 of them touching) to keep out the few it is
# sure and wrong of; a face still named surely as the box moves is no slice of a neighbour. Shipped by rule
# H8 (54th session, docs/dice-sets.md): designed on 3,195 d6 read before (merged certain-right 66.57 ->
# 67.92%, as the watcher reads 71.46 -> 71.77%, silent 6 -> 6 and 12 -> 12), judged on fresh seeds 1241-1249
# and 1251-1254 (499 d6): merged 60.72 -> 62.53% (5-95% of frames redrawn +0.81 to +2.95), the watcher
# 67.13 -> 67.33%, silent 1 -> 1 both, missed as before. False: off (`bench/vision_undertray_paired.py
# --a-set reader.SURE_ALL_ROUND=False`).
SURE_ALL_ROUND = True
ROUND_SHIFT = 0.1
# ... and so, with SURE_ALL_ROUND, a square die of these kinds that a floor of its own left unsure where the
# network names its face at the network's level (`_floor_kind`: "cut" out of a row, boxed in a "heap", a
# "window" round a part of a die, a "sparse" outline). Why: a floor keeps out a box that may hold a slice of a
# neighbour; a face named as surely in four boxes moved a tenth of a side is no such slice. Shipped by rule H9
# (55th session, docs/dice-sets.md): designed on H8's 3,195 d6 (merged certain-right 67.92 -> 68.39%, as
# the watcher reads 71.77 -> 72.11%, silent 6 -> 6 and 12 -> 12, no certain phantom more), judged on
# fresh seeds 1250, 1255-1260, 1262, 1264, 1266, 1268, 1271 and 1273 (497 d6): merged 64.99 -> 66.20% (5-95%
# of frames redrawn +0.42 to +2.03), the watcher 68.61 -> 69.01%, silent 0 -> 0 both, missed as before. ():
# off (`bench/vision_undertray_paired.py --a-set "reader.SURE_ALL_ROUND_FLOORED=()"`).
SURE_ALL_ROUND_FLOORED: tuple[str, ...] = ("cut", "heap", "window", "sparse")
# ... and so for a die cut out of a row of touching dice by measure (`find.Blob.cut`) or boxed in a heap by the
# learned finder (`find.heap_candidates`), whose square may hold a slice of its neighbour. Why: with the rows cut
# and the heaps searched (2026-11-26, fifth session) translucent green dice beside others read a certain 5 at
# 0.966 where a 1 lay (table seed 105, throw 12) and a certain 4 at 0.959 where a 2 lay (table 102, throw 23).
# Chosen on seeds 1-3, 20-21, 42-49 and tables 100-111 (2,114 d6), certain-right dice: 0.985 (the roomless floor)
# 956, 0.975 972, 0.97 974, at each the one silent die these frames had before (a translucent die the network
# read wrong at 0.9997, table 109); on tables 112-117 (427 d6, rendered after) 0.985 57.61%, 0.975 57.85%, silent
# 0 both. At 0.95 (rule H7, 54th session: merged +1.03 points on 3,195 dice read before, none more silent) the
# fresh judge, seeds 1231-1240, moved one die merged, too few to ship (docs/dice-sets.md).
CUT_FLOOR = 0.975
# ... and so for an outline the room hardly tells from the tray: where the foreground mask covers under SPARSE_MASK
# of its blob's box (`find.Blob.density`), the CNN must be SPARSE_FLOOR sure. Why: a black die on a dark floor
# differs from the empty tray by its pips and the sensor's noise, so its outline may be a piece of the die, and its
# box held one or three of the die's pips: certain and wrong at 0.988 (a speckled black 1 read as a 4, table 104
# throw 29) and 0.981 (a translucent black 5 read as a 6, table 121 throw 23), two of the three silent dice of
# tables 100-125 as one frame is read (the mask covers 0.27-0.35 of their boxes; a die the room sees, 0.7-0.9).
# There (1,630 d6) certain-right 758 -> 755 dice, silent 3 -> 1; seeds 1-3, 20-21, 42-49 and King of Tokyo's
# 200-201, 217-221 (1,613 dice) 670 -> 667, silent 1 -> 1; their 960x720 frames unchanged.
SPARSE_MASK = 0.36
SPARSE_FLOOR = 0.99
# Under the tray a crop count agreeing with the CNN makes a square die certain only with the CNN at least this sure
# (from above: `decide.CROP_AGREES_AT`, 0.5). Why: a translucent yellow die's glass 4 read as a 5 by both, the count
# taking a pip seen through its body, the CNN at 0.70 (table seed 101, throw 6: certain and wrong as the watcher
# reads). Chosen on tables 100-105 and seeds 1-3, 20-21, 42-49 (1,649 d6): 0.5 certain-right 747, silent 1; 0.8
# 744 and 0; 0.9 742 and 0.
UNDER_CROP_AGREES_AT = 0.8

# Under the tray, with the room, a part of a die is read again in windows of the frame's usual die side
# (`window.windowed`; issue 31). Why only with the room: read alone (no empty tray), the windows around specks and
# touching dice made two dice certain and wrong on tables 100-117 (a window across two black speckled dice at 0.995,
# a translucent white die at 0.9993), and higher floors for them left fewer dice certain than no windows (a window
# outranks its die's other candidates; seeds 42-49 read alone, certain-right: 35.19% without windows; at a floor
# of 0.999 33.98%, one of the two still certain; never certain 30.08%). With the room the parts are parts of real
# dice; a window is certain only from `window.WINDOW_SURE` and never lifted by the turns' mean (`_parted`). A whole
# die named unsurely is nudged (`window.nudged`) in every read under the tray: kept only at WINDOW_SURE, read alone it
# made 41 more dice certain and right on Blender's seeds 1-3, 20-21, 42-49 and tables 109, 118-123 (1,567 d6), and
# none certain and wrong.
WINDOWS_WITH_ROOM = True


_READERS: dict[tuple[DiceSet, str, int], FaceReader] = {}


def face_reader(dice_set: DiceSetLike, mount: str, taught: dict | None = None) -> FaceReader:
    """The face reader of a set at a mount (with its taught faces), kept: its templates are drawn once."""
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
    `classifier` replaces the shipped CNN for this set (benchmarks measure models that never saw a photo); a
    symbol set's network (meta kind "icons") replaces the set's own (`vision.symbolnet`).
    `memory` is the box's memory of confirmed dice (`vision.memory.Memory`), consulted when it knows the set
    and was filled from the same mount. `detector`: the learned die finder that adds whole-die candidates in a
    frame with no learned background ("shipped": the package's; a `DieDetector`: that one, as benchmarks
    measure fold models; None: the hand-made cues alone)."""
    _check(frame_bgr, mount)
    ds = get_set(dice_set)
    # a symbol set's own network (kind "icons") joins its template reader; a pip CNN reads the pip path
    icons_net = classifier if classifier is not None and classifier.meta.get("kind") == "icons" else None
    clf = (classifier or classifier_for(ds, mount)) if not taught and icons_net is None else None
    finder = _learned_finder(detector, mount)
    under_at_320 = _under_at_320(ds, mount, clf, icons_net)
    side = readsize.camera_side(frame_bgr, under_at_320)
    out = _read_at(frame_bgr, side, ds, mount, background, taught, clf, icons_net, finder, memory)
    if under_at_320 and out:
        # dice read far from the size the networks learnt: read again where they are that size (a frame where
        # nothing was read, an empty tray, is not measured: the box reads many)
        better = readsize.better_side(frame_bgr, side, [max(r.box[2:]) for r in out if r.certain], finder)
        if better != side:
            out = _read_at(frame_bgr, better, ds, mount, background, taught, clf, icons_net, finder, memory)
    if mount == "under":
        out = [off_lens(r, frame_bgr.shape) for r in out]
    out.sort(key=lambda r: (r.center[1], r.center[0]))
    return out


def _read_at(frame_bgr: np.ndarray, side: int, ds: DiceSet, mount: str, background: np.ndarray | None,
             taught: dict | None, clf: FaceClassifier | None, icons_net: FaceClassifier | None,
             finder: DieDetector | None, memory: Memory | None) -> list[Reading]:
    """The frame's readings read with its longer side `side` (`readsize.at_read_size`), in the frame's pixels."""
    img, background, scale = readsize.at_read_size(frame_bgr, background, side)
    if mount == "under" and background is not None and REFLECTIONS_OUT:
        img, background = without_reflections(img, background)
    det = finder if background is None else None
    if clf is not None:
        # with the room the learned finder searches only heaps of touching dice (`find.heap_candidates`)
        img, zoom, readings = _read_by_cnn(img, ds, mount, background, clf, finder, _learnt_by(memory, mount))
        scale *= zoom
    elif ds.kind == "pips" and not taught:
        readings = _read_pip_set(cv2.cvtColor(img, cv2.COLOR_BGR2Lab), ds, mount)
    else:
        # once: the outlines' gaps and the network both use it (`ALONE_AT_FINDER_VIEW`)
        found = _found(det, img, mount) if det is not None else None
        heaps_by = finder if background is not None and HEAPS_FOR_ICONS and read_past_finder(img) else None
        faces = _read_faces(img, ds, mount, background, taught, found, heaps_by)
        readings = with_network(img, ds, mount, faces, found, icons_net, lift=background is not None)
    if memory is not None and memory.mount == mount and memory.knows(ds.id) and readings:
        readings = with_memory(img, ds, readings, memory, has_cnn=clf is not None)
    return [colour_sure(readsize.unscaled(r, scale), ds) for r in readings]


def _found(det: DieDetector, img: np.ndarray, mount: str) -> list[Detection]:
    """The learned finder's boxes in a still frame of icon dice; with ALONE_AT_FINDER_VIEW one from below read
    larger than the view the finder learnt there is searched shrunk to it (`find.at_finder_view`)."""
    if ALONE_AT_FINDER_VIEW and mount == "under":
        return frame_detected(img, det, at_finder_view(img))
    return det.detect(img)


def _check(frame: np.ndarray, mount: str) -> None:
    if frame is None or frame.ndim != 3 or frame.shape[2] != 3 or frame.size == 0:
        raise ValueError("read_dice needs a BGR image (h, w, 3)")
    if mount not in ("under", "over"):
        raise ValueError("mount must be 'under' or 'over'")


def _learned_finder(detector: DieDetector | str | None, mount: str) -> DieDetector | None:
    """The learned finder a still frame is searched with ("shipped": the package's for the mount)."""
    det = finder_for(mount) if detector == "shipped" else detector
    if isinstance(det, str):
        raise ValueError("detector must be 'shipped', a DieDetector or None")
    return det


def _under_at_320(ds: DiceSet, mount: str, clf: FaceClassifier | None, icons_net: FaceClassifier | None) -> bool:
    """Whether a frame under the tray of this set is read by a network trained on the box's view rendered at
    320x240 (`readsize.camera_side`): the pip CNN, or a symbol set's own network (King of Tokyo's; Dice Throne's
    family network learnt 640x480 renders, and its corner numbers need their detail)."""
    if mount != "under":
        return False
    symbols = icons_net or network_for(ds, mount)
    return clf is not None or (symbols is not None and not symbols.meta.get("family"))


def _read_by_cnn(img: np.ndarray, ds: DiceSet, mount: str, background: np.ndarray | None, clf: FaceClassifier,
                 det: DieDetector | None, learnt: Memory | None = None) -> tuple[np.ndarray, float, list[Reading]]:
    """A pip set with its CNN: (the frame the readings are in, its zoom against `img`, the readings). A still
    photo of small dice is read again enlarged (`closer_look`; not under the tray: `CLOSER_UNDER`), and
    the read sure of more dice is kept (photo bench, roboflow-d6 unseen: see docs/dice-sets.md); the learned
    finder proposes there only the boxes it is surer of (`ENLARGED_AT`). With a learned background the
    classified read needs no Lab frame (the finder works on a smaller one, the pip finder does not search the
    whole frame). `learnt`: the box's memory where it learnt the colours of its dice (`_learnt_by`)."""
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2Lab) if background is None else None
    readings = _read_classified(img, lab, ds, mount, background, clf, det, learnt=learnt)
    still = background is None and (mount != "under" or CLOSER_UNDER)
    zoom = closer_look(readings, img.shape) if still else 1.0
    if not zoom > 1.0:
        return img, 1.0, readings
    big = cv2.resize(img, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_CUBIC)
    again = _read_classified(big, cv2.cvtColor(big, cv2.COLOR_BGR2Lab), ds, mount, None, clf,
                             det.detect(big, max(det.threshold, ENLARGED_AT)) if det is not None else None,
                             enlarged=True, learnt=learnt)
    if not sure_count(again) > sure_count(readings):
        return img, 1.0, readings
    return big, zoom, same_at_both_scales(again, readings, zoom) + missed_when_enlarged(readings, again, zoom)


def _read_faces(img: np.ndarray, ds: DiceSet, mount: str, background: np.ndarray | None, taught: dict | None,
                found: list[Detection] | None, heaps_by: DieDetector | None = None) -> list[Reading]:
    """Icon and numeral dice (and taught sets): each blob's face read by the face reader (`FaceReader.read`).
    With the box's learned background no whole-frame Lab is needed (each die's crop is converted alone), and
    `heaps_by` (the learned finder) searches only the heaps of touching dice (`find.heap_detections`), as it
    does for pip dice; its boxes there are read as the outlines' blobs are (a set's network judges them as
    it judges those, and does not read them alone: on a render.py frame of a set with one, a big die, wider
    than the others and so a heap, lost its certainty to the finder's boxes inside it)."""
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2Lab) if background is None else None
    blobs = find_dice(img, mount, background, lab, part_faces=background is None and ds.shape == "square")
    if found is None and heaps_by is not None:
        found = heap_detections(img, blobs, heaps_by) or None
    fr = face_reader(ds, mount, taught)
    sizes = [math.sqrt(b.area) for b in blobs]
    typical = float(np.median(sizes)) if sizes else 0.0
    # a die the templates doubt takes its corner number's face as its best guess (numbered sets from below);
    # with the room, one they name nothing in takes it however unsure (`corner_numbers.GUESS_FOR_UNNAMED`);
    # where the templates and the number agree the die is certain, where they differ it is not (`AGREED_AT`)
    # unless the number, surest, names another face in the die's own outline (`AGREED_ICON_AT`,
    # `NUMBER_OVER_ICON_AT`: the blob's shape and whether it was cut by measure count)
    readings = [with_corner_number(img, b.rect, r, ds, mount, named_anyway=background is not None,
                                   contour=b.contour, measured=b.cut)
                for b in blobs if (r := fr.read(img, lab, b, typical, background)) is not None]
    if found is not None and ds.shape in ("square", "pentagon"):
        # dice only the learned finder saw (`detector_blobs`): a best guess, certain only where the templates
        # and the corner number agree (`corner_numbers.AGREED_IN_FINDER_BOX`)
        extra = [with_corner_number(img, b.rect, replace(r, certain=False, confidence=min(
                 r.confidence, FOUND_ONLY_BY_DETECTOR)), ds, mount, outlined=False)
                 for b in detector_blobs(img, found, blobs, ds.shape == "pentagon", heaps_by is not None)
                 if (r := fr.read(img, lab, b, typical, background)) is not None]
        # in a heap, a box the face reader names nothing in is no die (as in a still frame, below); in a still
        # frame an outline's reading across several of the named boxes stands aside, as in a heap
        named = [r for r in extra if r.face != UNNAMED]
        if heaps_by is None:
            readings = (_not_across(readings, named) if ACROSS_DICE_ASIDE_STILL else readings) + extra
        else:
            boxed = _not_outlined(named, readings)
            readings = (_not_across(readings, boxed) if ACROSS_DICE_ASIDE else readings) + boxed
    if background is None:
        # a still frame: what the face reader cannot name at all is no die. On the render bench (seeds 1 and
        # 2, both mounts) every such reading was a phantom (d12: 135 of its 195; about 15 for each icon set:
        # lamps, glare spots), and none of 3,421 real dice of d12, King of Tokyo and five heroes, nor of 656
        # read as another hero's set (artwork the templates do not draw), was read so. With the box's learned
        # room it is kept: the players are told something lies on the tray that the box cannot read
        readings = [r for r in readings if r.face != UNNAMED]
    return one_reading_per_die(readings)


# A reading of the outlines is of one die where its box's longer side is at most this many times a
# finder's box's (`_not_outlined`)
OUTLINED_DIE = 1.3


def _not_outlined(extra: list[Reading], outlined: list[Reading]) -> list[Reading]:
    """The readings of a heap's finder boxes (`detector_blobs(boxed=True)`) whose centre lies in no outline
    reading of one die. Why: the outlines' reading of a die is surer of where the die is than a box, yet a
    guess by its corner number (0.5) outranked a template reading at 0.0 of the same die (seed 402 frame 15: a
    right 3 lost to a wrong 1); a reading across several dice of a heap stands aside."""
    def holds(r: Reading, e: Reading) -> bool:
        return _centre_in(e, r) and max(r.box[2:]) <= OUTLINED_DIE * max(e.box[2:])
    return [e for e in extra if not any(holds(r, e) for r in outlined)]


def _centre_in(e: Reading, r: Reading) -> bool:
    """Whether reading `e`'s centre lies in reading `r`'s box."""
    x, y, w, h = r.box
    return x <= e.center[0] <= x + w and y <= e.center[1] <= y + h


# With the room, an outline's reading that holds two or more of a heap's boxed dice stands aside. Designed on
# fresh seed 456 frame 11 (a certain die across three); dev seeds (402-404, 408-431): merged phantoms 46 ->
# 39, right 71.37 -> 71.15%, as the watcher reads phantoms 28 -> 25, right 70.51 -> 70.62%, no die certain and
# wrong. Shipped at a rule of cost written before fresh seeds 458-459 were read: there merged a phantom fewer,
# all else the same, and the test seeds the same (docs/dice-sets.md). False: such a reading is kept.
ACROSS_DICE_ASIDE = True
# ... and so in a still frame read with the learned finder (ACROSS_DICE_ASIDE_STILL), beside the finder's
# named boxes. Why: seed 479 frame 16, three touching dice read without the room: their outline passed as one
# die's shape, the templates and the corner number named two faces of one icon, and the certain die across
# the three was kept by the merge with the room's read. On seeds 477-480 it removed that certain reading and a
# phantom, and a die more was read right. Shipped at a rule of cost written before fresh seeds 481-482 were
# read: there, on the test seed 400 and on King of Tokyo's 291 every die read the same (docs/dice-sets.md).
# False: kept.
ACROSS_DICE_ASIDE_STILL = True
# An uncertain pip die under the tray whose face the face network named, in a die's own box (an outline or the
# learned finder's box, square, with no floor of its own) no wider than this many of the frame's usual die
# sides, with a sure colour, carries the network's probability (`Reading.named_p`), which the watcher weighs
# over its looks (`watcher.NAMED_IN_EVERY_LOOK_AT`). Why: the 43rd session's version without the bound made
# a certain die where none lay (fresh seed 1009 frame 13: a box 1.8 usual sides wide between three dice, named
# a 1 at 0.96-0.98 in every look) and was taken out; on dev seeds 1004-1010 (302 d6, a dump of each look) the
# dice it makes certain lay in boxes 0.82-1.06 sides wide, and per look the network at 0.95 or surer in such a
# box was right 51 times of 51. Not a window's or a cut die's box (each has a floor of its own, `WINDOW_SURE`,
# `CUT_FLOOR`); not a die whose colour is doubted. Shipped at a rule written before fresh seeds were read: as
# the watcher reads, fresh d6 1011-1013 (97 dice) certain-right +1 die (1011: 58.62 -> 62.07%), nothing else
# changed, King of Tokyo and hero dice read the same; read after it shipped, fresh 1014-1016 (116 dice) +3
# dice, none certain and wrong added (docs/dice-sets.md). None: none does.
CNN_NAMED_WIDEST: float | None = 1.15


def _not_across(outlined: list[Reading], boxed: list[Reading]) -> list[Reading]:
    """The outlines' readings but those across several dice: a box more than OUTLINED_DIE times as wide as
    the finder's boxes of two or more dice whose centres lie in it. Why: a blob of three touching dice, named
    one face by templates and corner number alike, was a certain die beside the three (fresh seed 456 frame
    11): the game would count a die that is not there."""
    def across(r: Reading) -> bool:
        held = [e for e in boxed if _centre_in(e, r) and max(r.box[2:]) > OUTLINED_DIE * max(e.box[2:])]
        return len(held) >= 2
    return [r for r in outlined if not across(r)]


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
                     clf: FaceClassifier, detector: DieDetector | list[Detection] | None = None,
                     enlarged: bool = False, learnt: Memory | None = None) -> list[Reading]:
    """Finder candidates (outlines and pip clusters) -> CNN over every candidate box -> one reading per die.

    Two readers look at each die: the CNN and the pip finder (which counts pips and has its own checks of
    layout, clutter, a cocked top face...). A die is certain when they name the same face and at least
    one of them is sure of it (`decide.judge_pip_die`); when they disagree, or the pip finder saw no pips
    there, it is uncertain with the surer one's guess."""
    cands, lab = find_candidates(img, lab, mount, background, detector)
    if not cands:
        return []
    faces = [c.face for c in cands if c.face is not None]
    typical_round = float(np.median([f.roundness for f in faces])) if faces else 1.0
    # a still photo (no learned background) reads each crop mirrored too (`classify.join_mirrored`); under the tray
    # each crop is read in its four quarter turns instead (`TURNS_UNDER`)
    preds = clf.predict(img, [c.box for c in cands], both_ways=background is None,
                        turns=TURNS_UNDER and mount == "under")
    if background is not None:
        extra, extra_preds = refitted(img, background, cands, preds, clf)
        cands, preds = cands + extra, list(preds) + list(extra_preds)
    if mount == "under":
        extra, extra_preds = windowed(img, cands, preds, clf, TURNS_UNDER,
                                      parts=WINDOWS_WITH_ROOM and background is not None)
        cands, preds = cands + extra, list(preds) + list(extra_preds)
    boxes = [c.box for c in cands]
    none = clf.classes.index("none")
    too_wide = around_finder_dice(cands, preds, none) if mount == "under" else set()
    kept = suppress([i for i in candidate_order(cands, preds, none) if i not in too_wide], boxes)
    # a photo from above, at its own scale, or any frame under the tray: a CNN sure on its own is the better judge
    # than a pip count that differs (`CNN_ALONE_AT`; under the tray at the CNN's own level, `UNDER_ALONE`). Not in
    # the enlarged second read: there the CNN sees crops grown from fewer pixels, and rune55-grey 00104_4 (a
    # clear 4, unsure 5 at the photo's scale) came out a certain 5 at 1.5x
    under = mount == "under" and UNDER_ALONE
    cnn_alone = not enlarged and (under or (background is None and mount == "over"))
    roomless = under and background is None
    alone_at = max(clf.certain_at, UNDER_ROOMLESS_FLOOR if roomless else UNDER_ALONE_FLOOR) if under else CNN_ALONE_AT
    sure_at = alone_at if roomless else clf.certain_at   # where a pip count agrees: without a room, the floor too
    parted = {i: _parted(cands[i], background) for i in kept}
    votes = {i: PipVotes(int(clf.classes[preds[i].index]) if preds[i].index != none else None, preds[i].index,
                         _turns_lifted(preds[i], clf, background is not None and not parted[i]),
                         pip_confidence(cands[i].face, lab, typical_round)
                         if cands[i].face is not None and cands[i].pips else 0.0) for i in kept}
    finder_sure = FINDER_SURE if mount == "under" else math.inf
    crop_at = UNDER_CROP_AGREES_AT if mount == "under" else CROP_AGREES_AT
    alone = [i for i in kept if cnn_alone and wants_cnn_alone(cands[i], votes[i], alone_at, finder_sure)]
    looks, typical_side = _second_looks(img, clf, cands, preds, kept, alone)
    out: list[Reading] = []
    for i in kept:
        c = cands[i]
        floor = WINDOW_SURE if c.source == "window" else CUT_FLOOR if parted[i] else 0.0
        if _sparse(c, background):
            floor = max(floor, SPARSE_FLOOR)
        judged = judge_pip_die(c, votes[i], max(sure_at, floor), background is not None, img.shape, looks.get(i),
                               typical_side, cnn_alone, finder_sure, max(alone_at, floor), crop_at)
        if judged is not None and mount == "under" and judged[2] and not squarish(c.box):
            judged = (judged[0], min(judged[1], 0.5), False)
        if judged is not None:
            named_p = _cnn_named_p(c, votes[i], judged, floor, typical_side) if mount == "under" else None
            round_p = named_p
            if round_p is None and mount == "under":
                round_p = _floored_named_p(c, votes[i], judged, typical_side, background)
            if SURE_ALL_ROUND and round_p is not None and _sure_all_round(img, clf, c.box, votes[i].cnn_index,
                                                                          round_p):
                judged, named_p = (judged[0], round_p, True), None
            out.append(_pip_reading(img, ds, mount, c, *judged, learnt=learnt, named_p=named_p))
    return out


def _sure_all_round(img: np.ndarray, clf: FaceClassifier, box: tuple, index: int, named_p: float) -> bool:
    """Whether the network, sure of class `index` in the die's own box (`named_p` at its level), is as sure of
    it in each of the boxes ROUND_SHIFT of a side left, right, up and down of it (four turns read where it
    doubts a crop, `FaceClassifier.predict(turns=True)`)."""
    if named_p < clf.certain_at:
        return False
    cx, cy, w, h = box
    d = ROUND_SHIFT
    around = [(cx - d * w, cy, w, h), (cx + d * w, cy, w, h), (cx, cy - d * h, w, h), (cx, cy + d * h, w, h)]
    return all(p.index == index and (p.confidence >= clf.certain_at or p.turns_sure)
               for p in clf.predict(img, around, turns=True))


def _cnn_named_p(c: Candidate, v: PipVotes, judged: tuple[int, float, bool], floor: float,
                 typical_side: float) -> float | None:
    """The face network's probability for an uncertain die whose face it named (`Reading.named_p`, for the
    watcher), in a die's own box only: an outline or the learned finder's box with no floor of its own (not a
    window, a die cut from a row or boxed in a heap, a sparse outline), sized as `_named_in_die_box` asks."""
    own_box = c.source in ("outline", "detector") and floor == 0.0
    return _named_in_die_box(c, v, judged, typical_side) if own_box else None


def _floored_named_p(c: Candidate, v: PipVotes, judged: tuple[int, float, bool], typical_side: float,
                     background: np.ndarray | None) -> float | None:
    """The network's probability for an unsure die of a kind in SURE_ALL_ROUND_FLOORED whose face it named: a
    die whose own floor (not the network's level) left it unsure, sized as `_named_in_die_box` asks. Never the
    watcher's `Reading.named_p`: its box may hold a slice of a neighbour."""
    floored = _floor_kind(c, background) in SURE_ALL_ROUND_FLOORED
    return _named_in_die_box(c, v, judged, typical_side) if floored else None


def _named_in_die_box(c: Candidate, v: PipVotes, judged: tuple[int, float, bool],
                      typical_side: float) -> float | None:
    """The network's probability for an unsure die whose face the reader named as the network did, in a square
    box at most CNN_NAMED_WIDEST of the frame's usual die side (None: off, certain, another face or box)."""
    seen, _, certain = judged
    if CNN_NAMED_WIDEST is None or certain or seen != v.cnn_seen or not squarish(c.box):
        return None
    if not typical_side or max(c.box[2:]) > CNN_NAMED_WIDEST * typical_side:
        return None
    return float(v.cnn_conf)


def _floor_kind(c: Candidate, background: np.ndarray | None) -> str | None:
    """Why a die has a floor of its own (`_parted`, `_sparse`), named as SURE_ALL_ROUND_FLOORED names it."""
    if c.source == "window":
        return "window"
    if getattr(c.blob, "cut", False):
        return "cut"
    if background is not None and c.source == "detector":
        return "heap"
    return "sparse" if _sparse(c, background) else None


def _parted(c: Candidate, background: np.ndarray | None) -> bool:
    """A die cut out of a row of touching dice by measure, boxed in a heap by the learned finder (with the room:
    `find.heap_candidates`) or in a window around a part of it (`window.windowed`): each square may hold a slice
    of a neighbour. A refitted outline was no cut."""
    return getattr(c.blob, "cut", False) or c.source == "window" or (background is not None and c.source == "detector")


def _sparse(c: Candidate, background: np.ndarray | None) -> bool:
    """An outline found with the room whose mask hardly fills its box (`SPARSE_MASK`): maybe a piece of a dark die."""
    return background is not None and c.blob is not None and getattr(c.blob, "density", 1.0) < SPARSE_MASK


def _turns_lifted(p: Prediction, clf: FaceClassifier, lift: bool) -> float:
    """The CNN's confidence; with `lift`, one whose four turns' mean is sure (`Prediction.turns_sure`) at least
    the network's own level. Only with the room and not for a die cut from a row or boxed in a heap (whose
    floors stand above the level): lifted past the level on every read, a translucent die cut out of a row
    passed the cut floor (table 105 throw 12) and the LED ring's six mirrored spots read without a room became
    a certain 6. Where it lifts, as the watcher
    reads: seeds 42-49 certain-right 55.49% -> 56.99%, tables 118-123 48.10% -> 49.37%, silent as before
    (docs/dice-sets.md, "the four turns' mean")."""
    return max(p.confidence, clf.certain_at) if lift and p.turns_sure else p.confidence


def _second_looks(img: np.ndarray, clf: FaceClassifier, cands: list[Candidate], preds: list, kept: list[int],
                  alone: list[int] = ()) -> tuple[dict[int, np.ndarray], float]:
    """The CNN's second looks at each kept die it names that no count in its own outline's crop confirms
    (and at the dice of `alone`, that may be certain on the CNN's word), and the frame's usual die side they
    are compared with (`weak_agreement_sure`)."""
    none = clf.classes.index("none")
    boxes = [c.box for c in cands]
    sizes = [max(boxes[i][2:]) for i in kept if preds[i].index != none]
    typical_side = float(np.median(sizes)) if sizes else 0.0
    weak = [i for i in kept if preds[i].index != none and cands[i].crop_pips is None and
            cands[i].pips == int(clf.classes[preds[i].index])]
    weak += [i for i in alone if i not in weak]
    return dict(zip(weak, clf.second_looks(img, [boxes[i] for i in weak]), strict=True)), typical_side


def _pip_reading(img: np.ndarray, ds: DiceSet, mount: str, c: Candidate, seen: int, conf: float,
                 certain: bool, learnt: Memory | None = None, named_p: float | None = None) -> Reading:
    """A candidate's reading: its face named, its colour from the pip finder's face or the box's body (or as the
    box learnt its dice's colours: `die_colour`). `named_p`: how surely its face was named
    (`Reading.named_p`), kept only where its colour is sure (the watcher's looks must not make a die of a
    doubted colour certain)."""
    f = top_face(ds, seen, mount)
    body = lab_to_bgr(c.face.lab) if c.face is not None else body_colour(img, c.box)
    colour, colour_sure = die_colour(img, c.box, body, ds, mount, learnt)
    if certain and not colour_sure:
        certain, conf = False, min(conf, 0.5)   # a colour near a line between two names: ask
    return Reading(f.value, f.name, colour, conf, (c.box[0], c.box[1]), to_int_box(c.box), certain,
                   named_p=named_p if colour_sure else None)


def _learnt_by(memory: Memory | None, mount: str) -> Memory | None:
    """The memory, where it learnt dice of this mount (None: the set's colours are named as every box names them)."""
    return memory if memory is not None and memory.mount == mount else None


def die_colour(img: np.ndarray, box: tuple, body: np.ndarray, ds: DiceSet, mount: str, learnt: Memory | None
               ) -> tuple[str, bool]:
    """A die's colour and whether it is sure. A set that does not tell dice apart by colour: named from its body
    (`classify_colour`), always sure. Else, where the box learnt the set's colours (`vision.learnt_colours`) and
    the die lies near one of them: that colour, sure when it is clearly that one and every colour of the set was
    learnt or the body's name agrees, and from below no blue shows in a die named black (`_blue_doubt`). Where every colour
    was learnt and the die is near none: unsure. Else as every box names it (from below unsure near a line
    between two names, `_colour_certain`)."""
    named = classify_colour(body)
    if not ds.colours:
        return named, True
    known = learnt.colour_of(ds.id, img, box[:2], to_int_box(box), ds.colours) if learnt is not None else None
    if known is not None and known.near:
        agreed = known.covers or known.colour == named
        return known.colour, known.clear and agreed and not (mount == "under" and _blue_doubt(img, box, known.colour, ds))
    if named not in ds.colours:
        return nearest_colour(body, ds.colours), False   # no colour of the set: its nearest, as a guess
    if known is not None and known.covers:
        return named, False
    if mount != "under":
        return named, True
    if _blue_doubt(img, box, named, ds):
        return "blue", False   # a black with blue in its grain: mostly a dark blue die (see `BLUE_CAST`)
    return named, _colour_certain(img, box, body, named)


# Under the tray the plate mirrors the camera's own lens (a bright ring round a dark spot) and the LED ring around
# it onto the optical axis: the frame's centre. A box centred within this share of the frame's width of it is
# never certain. Why: the only certain errors read from below in the session of 2026-11-26 (fourth) were there:
# a translucent die half under the lens's reflection read as a 6 at 1.000 (seed 42 frame 15, with the room or
# without), the reflection alone read as a one-pip face (seed 49 frame 3, without a room), a six-LED ring as a 6
# (test seed 3 frame 3, without a room). Chosen on those frames; certain-right dice lost: 2 of 788 as the
# watcher reads (seeds 1-3, 20-21, 25-29, 33, 42-49).
LENS_ZONE = 0.03


def on_lens(center: tuple[float, float], shape: tuple[int, ...]) -> bool:
    """Whether a point lies on the frame's centre, where the lens mirrors itself (`LENS_ZONE`)."""
    h, w = shape[:2]
    return math.hypot(center[0] - w / 2, center[1] - h / 2) < LENS_ZONE * w


def off_lens(r: Reading, shape: tuple[int, ...]) -> Reading:
    """A reading from below, unsure if it lies on the lens's reflection (`on_lens`): any set, any reader."""
    return replace(r, certain=False, confidence=min(r.confidence, 0.5)) if r.certain and on_lens(r.center, shape) else r


# A die named black whose middle's bluest quarter is this much bluer than grey (`finder.blue_cast`) may be a dark
# blue die: in a set with blue dice its colour is not certain. Chosen on under-tray seeds 1-3, 20-21, 25-29 and 33
# (dice of those colours named black and clear by `colour_is_clear`): at 10, 5 of 7 blue dice and 5 of 72 black.
BLUE_CAST = 10.0
# ...or this much bluer once white-balanced on its own pips. Why: under warm LEDs (table 113) 49 blue speckled and
# translucent dice were named black, certain, with casts of -10 to 11.5 as seen; against their pips 5.6 to 29.7.
# Black dice named black (106 on tables 100-123 and seeds 1-3, 20-21, 42-49 at 320x240, 17 at 960x720, and
# render.py's black Regidice dice) reach 7.1 against their pips, but for two BLUE_CAST doubts already (9.8, 8.6).
PIP_BALANCED_BLUE_CAST = 8.0
# Such a die's best guess is blue: on Blender's seeds 1-3 and tables 118-129 read as Regidice (merged), of the
# dice named black the doubt fell on 30 of 31 blue dice and on 5 of 129 black ones.


def _colour_certain(img: np.ndarray, box: tuple, body: np.ndarray, colour: str) -> bool:
    """Whether a die's colour from below may be certain in a set that tells dice apart by colour (one named
    black with a blue cast, where the set has blue dice, is not: `die_colour`): not near a line between two
    names (`colour_is_clear`), and one colour along a long box (`_halves_agree`)."""
    return colour_is_clear(body) and _halves_agree(img, box, colour)


# From below one die's box is square, turned any way; a box this much longer than wide may reach into a
# touching neighbour, and its middle, where the colour is read, then mixes two dice.
HALVES_LONG = 1.15


def _halves_agree(img: np.ndarray, box: tuple, colour: str) -> bool:
    """Whether both halves of a long box (cx, cy, w, h; `HALVES_LONG`) along its length are named `colour` (a
    square box: always). Why: a 59x79 box over a yellow Regidice die and the black die touching it was read a
    certain red (a wrong spell; Blender's seed 1, frame 30); its halves are named other and black."""
    if squarish(box, HALVES_LONG):
        return True
    cx, cy, w, h = box
    step, half = ((w / 4, 0.0), (w / 2, h)) if w > h else ((0.0, h / 4), (w, h / 2))
    return all(classify_colour(body_colour(img, (cx + k * step[0], cy + k * step[1], *half))) == colour
               for k in (-1, 1))


def _blue_doubt(img: np.ndarray, box: tuple, colour: str, ds: DiceSet) -> bool:
    """A die named black that may be a dark blue one (`BLUE_CAST`, `PIP_BALANCED_BLUE_CAST`), in a set with blue."""
    if colour != "black" or "blue" not in ds.colours:
        return False
    seen, balanced = blue_cast(img, box)
    return seen >= BLUE_CAST or balanced >= PIP_BALANCED_BLUE_CAST


def _read_pip_set(lab: np.ndarray, ds: DiceSet, mount: str) -> list[Reading]:
    """A pip set with no CNN of its own (not six faces of pips 1-6): the pip finder's faces, each counted and
    judged by the pip finder's own checks (`pip_confidence`)."""
    dice = pip_dice(lab)
    if not dice:
        return []
    typical_round = float(np.median([f.roundness for f in dice]))
    out = []
    for f in dice:
        conf = pip_confidence(f, lab, typical_round)
        if f.count == 1 and not f.others and conf < 0.1:
            continue  # a lone blob that failed every check: not a die
        out.append(_pip_face_reading(f, ds, mount, conf))
    return out


def _pip_face_reading(f: Face, ds: DiceSet, mount: str, conf: float) -> Reading:
    """The pip finder's face as a reading: its count named (a count the set has no face for: unnamed)."""
    seen = f.count if 1 <= f.count <= ds.n else None
    top = top_face(ds, seen, mount) if seen is not None else None
    half = 0.5 * f.size
    box = (int(f.cx - half), int(f.cy - half), int(2 * half), int(2 * half))
    return Reading(top.value if top is not None else None, top.name if top is not None else UNNAMED,
                   classify_colour(lab_to_bgr(f.lab)), conf, (f.cx, f.cy), box, bool(seen is not None and conf >= 0.6))


__all__ = ["read_dice", "find_dice", "find_candidates", "face_reader", "classifier_for", "finder_for", "closer_look",
           "same_at_both_scales", "missed_when_enlarged", "weak_agreement_sure", "detector_blobs", "FOUND_ONLY_BY_DETECTOR"]
