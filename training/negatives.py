"""The classifier's "not a die" taken from where the reader looks: the finders' false boxes on training photos.

Why: on photos of dice sets it never saw, the reader reports 1,200-2,000 phantom dice per run of roboflow-d6
(readings that match no labelled die: nearly all unsure, but each one a die the players must strike out).
They come from the candidates of the hand-made cues (outlines, pip clusters) and of the learned finder that the
classifier names as a face: a screw hole, a pip-like print on a board, a dark gap between dice, a box across
two dice. The classifier's "not a die" class had only seen random background boxes and dice cut wrongly, so
here it also learns the candidates those finders propose on the training photos that are far from every
labelled die (each model's own training photos only, with the finder of the same fold: no test photo, and no
finder that saw a test photo, is ever used). Photos may hold a die nobody labelled; such a die becomes a "not a
die" here (about 1 in 16 of these boxes on roboflow-d6, by eye), which teaches "not a die" some real dice.

Measured (seed 7, suite models, whole reader with the fold finders, right / certain-right / silent / missed /
phantoms), not used by default (`train_reader --phantoms 0 --cube-backgrounds 0`): with these boxes (at most one
per labelled die) and 1500 cube-scene backgrounds, roboflow-d6 cross-validated 62.26 / 16.16 / 0.20 / 14.18 /
1085 against 63.02 / 14.89 / 0.05 / 15.25 / 1246 without, never trained on 54.81 / 15.10 / 0.20 / 19.60 / 2041
against 58.00 / 15.45 / 0.15 / 18.29 / 2004: fewer phantoms where the training photos look like the test ones,
none fewer on unseen sets, and fewer faces read right given their boxes. With the photo boxes alone (no cube backgrounds, the epoch lengthened by them; reader with
`DETECTOR_ALONE`) roboflow-d6 cross-validated 58.61 / 13.78 / 0.20 / 17.68 / 890 against 62.46 / 14.84 / 0.05 /
17.07 / 1165 (one fold read 64% of its given boxes right instead of 82%), never trained on 59.32 / 12.77 / 0.10 /
19.20 / 1546 against 57.80 / 15.45 / 0.15 / 18.84 / 1528 (given boxes 73.91% -> 77.61%; the main recipe at seed 8
gave 74.27%): worth another look with the unlabelled dice kept out of these boxes.
"""

from __future__ import annotations

import cv2
import numpy as np

from training.canvas import Canvases, canvas
from training.data import Photo, overlaps_any
from vision.detector import DieDetector
from vision.reader import find_candidates

FAR = 0.75          # a candidate centred closer to a labelled die than FAR of their mean side is that die's box
WORK_SIDE = 960     # the reader reads photos at this longest side (vision/reader.read_dice)
SOURCE = 5          # Canvases.source of these canvases (weighted as a photo's)


def false_boxes(img: np.ndarray, photo: Photo, detector: DieDetector | None) -> list[tuple[float, float, float, float]]:
    """Boxes (cx, cy, w, h in the photo's pixels) that the reader's finders propose in the photo (as a still
    photo, from above) and that hold no labelled die."""
    h, w = img.shape[:2]
    scale = min(1.0, WORK_SIDE / max(h, w))
    work = img if scale == 1.0 else cv2.resize(img, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
    cands, _ = find_candidates(work, cv2.cvtColor(work, cv2.COLOR_BGR2Lab), "over", None, detector)
    boxes = [(c.box[0] / scale, c.box[1] / scale, c.box[2] / scale, c.box[3] / scale) for c in cands]
    return [b for b in boxes if min(b[2], b[3]) >= 4 and not overlaps_any(b, photo.dice, FAR)]


def phantom_canvases(photos: list[Photo], detector: DieDetector | None, side: int, rng: np.random.Generator,
                     per_die: float = 1.0) -> Canvases:
    """The finders' false boxes on `photos` as "not a die" canvases: at most `per_die` per labelled die of the
    photo (at least 2), picked at random, so that a cluttered photo does not outweigh the rest."""
    xs = []
    for ph in photos:
        img = cv2.imread(str(ph.path))
        if img is None:
            continue
        boxes = false_boxes(img, ph, detector)
        cap = max(2, int(round(per_die * len(ph.dice))))
        if len(boxes) > cap:
            boxes = [boxes[i] for i in rng.choice(len(boxes), cap, replace=False)]
        xs += [canvas(img, b, side) for b in boxes]
    n = len(xs)
    return Canvases(np.asarray(xs, np.uint8).reshape(n, side, side, 3), np.full(n, 6, np.int64),
                    np.zeros(n, bool), np.full(n, SOURCE, np.int64))
