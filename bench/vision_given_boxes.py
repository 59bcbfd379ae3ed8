"""The pip classifier alone on real photos, given each labelled die's box: what a read of the same crops in other
ways, several models at once, or the crop's pip count would add. Prints figures; asserts nothing.

    .venv/bin/python bench/vision_given_boxes.py --dataset roboflow-d6 --models build/reader-models/lodo-roboflow-d6
    .venv/bin/python bench/vision_given_boxes.py --dataset roboflow-d6 \
        --models build/reader-models/lodo-roboflow-d6,build/reader-models-s8/lodo-roboflow-d6   # an ensemble

Why: on photos of dice sets it never trained on the reader is right far less often than on its own (see
docs/dice-sets.md); this tells apart what the faces' classifier could still gain from what the finder loses.
Use a model that never saw the dataset (`make train-reader-suite`: build/reader-models/lodo-<dataset>), or the
figures say nothing about unseen dice.

Views of a crop (each read plain and mirrored, joined as the reader joins them: `classify.join_mirrored`): the
box as labelled, moved up or down by a share of its height, shrunk or grown, and turned by quarter turns. Pairs
of views are also averaged. The crop's pip count (`finder.count_pips` on the labelled box) is joined to the CNN
as a second reader that is right a share q of the time.

Photos: webcam-d6 (MIT, matteop65/Dice_Detection_Recognition; its labels box the top face's pips) and
roboflow-d6 (CC BY 4.0, Epanemu/GameDiceRecognition via Roboflow; labels box the whole die), from
../shared/datasets.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from training.data import load_photos  # noqa: E402
from vision.classify import FaceClassifier, crop_patch, join_mirrored, normalise_batch  # noqa: E402
from vision.finder import count_pips  # noqa: E402

# name -> (shift right, shift down, in box sides; scale of the box; quarter turns)
VIEWS = {"as labelled": (0.0, 0.0, 1.0, 0), "up 5%": (0.0, -0.05, 1.0, 0), "up 10%": (0.0, -0.10, 1.0, 0),
         "down 5%": (0.0, 0.05, 1.0, 0), "shrunk 90%": (0.0, 0.0, 0.9, 0), "grown 110%": (0.0, 0.0, 1.1, 0),
         "turned 1/4": (0.0, 0.0, 1.0, 1), "turned 1/2": (0.0, 0.0, 1.0, 2), "turned 3/4": (0.0, 0.0, 1.0, 3)}
SIZES = ((0, 25), (25, 35), (35, 50), (50, 80), (80, 10_000))


def load_model(path: str) -> FaceClassifier:
    p = Path(path)
    return FaceClassifier(p.with_suffix(".onnx"), json.loads(p.with_suffix(".json").read_text(encoding="utf-8")))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="roboflow-d6")
    ap.add_argument("--models", required=True, help="comma-separated model paths (without .onnx); several: averaged")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    clfs = [load_model(m) for m in args.models.split(",")]
    c0 = clfs[0]
    none = c0.classes.index("none")
    crops: dict[str, list[np.ndarray]] = {k: [] for k in VIEWS}
    truth, sides, counts = [], [], []
    for ph in load_photos(args.dataset):
        img = cv2.imread(str(ph.path))
        if img is None:
            continue
        for d in ph.dice:
            cx, cy, w, h = d.box
            for k, (dx, dy, s, turns) in VIEWS.items():
                crop = crop_patch(img, (cx + dx * w, cy + dy * h, w * s, h * s), pad=c0.pad, size=c0.size)
                crops[k].append(np.ascontiguousarray(np.rot90(crop, turns)))
            truth.append(d.value - 1)
            sides.append(max(d.box[2:]))
            counts.append(count_pips(img, ((cx, cy), (w, h), 0.0)) or 0)
    y, side, count = np.asarray(truth), np.asarray(sides), np.asarray(counts)

    def read(batch: np.ndarray, models: list[FaceClassifier] = clfs) -> np.ndarray:
        """Each model's joined plain-and-mirrored probabilities, averaged over the models."""
        out = []
        for c in models:
            plain = c.run(normalise_batch(batch, c.norm))[0]
            mirrored = c.run(normalise_batch(np.ascontiguousarray(batch[:, :, ::-1]), c.norm))[0]
            out.append(join_mirrored(plain, mirrored, none)[0])
        return sum(out) / len(out)

    def right(p: np.ndarray) -> float:
        return 100.0 * float((p.argmax(1) == y).mean())

    probs = {k: read(np.stack(v)) for k, v in crops.items()}
    print(f"{args.dataset}: {len(y)} dice given their labelled boxes; {len(clfs)} model(s): {args.models}")
    for c, m in zip(clfs, args.models.split(","), strict=True):
        print(f"  {m}: right {right(read(np.stack(crops['as labelled']), [c])):6.2f}%")
    for k, p in probs.items():
        print(f"view {k:<12} right {right(p):6.2f}%")
    pairs = sorted(((right(probs[a] + probs[b]), a, b) for a, b in itertools.combinations(VIEWS, 2)), reverse=True)
    for r, a, b in pairs[:5]:
        print(f"views {a} + {b}: right {r:6.2f}%")
    p = probs["as labelled"]
    pred = p.argmax(1)
    has = count > 0
    print(f"crop pip count: given for {100 * has.mean():.1f}% of dice, right on {100 * (count[has] - 1 == y[has]).mean():.2f}%"
          f" of those (the CNN: {100 * (pred[has] == y[has]).mean():.2f}%)")
    for q in (0.5, 0.7, 0.9):
        lik = np.ones_like(p)
        lik[has] = (1.0 - q) / 5.0
        lik[has, count[has] - 1] = q
        print(f"  CNN x count (right a share {q} of the time): right {right(p * lik):6.2f}%")
    confusion = np.zeros((6, len(c0.classes)), int)
    np.add.at(confusion, (y, pred), 1)
    print("confusion (rows: the face, columns: read as " + " ".join(c0.classes) + ")")
    for v, row in enumerate(confusion, 1):
        print(f"  {v}: " + " ".join(f"{n:4d}" for n in row))
    for lo, hi in SIZES:
        m = (side >= lo) & (side < hi)
        if m.any():
            print(f"dice {lo}-{hi if hi < 10_000 else ''} px: {m.sum():4d}, right {100 * (pred[m] == y[m]).mean():6.2f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
