"""Reader accuracy on real photos it never trained on, and on renders of every dice set (both mounts).

    nice -n 10 env OMP_NUM_THREADS=1 .venv/bin/python -m training.train_reader --suite   # models, once
    nice -n 10 env OMP_NUM_THREADS=1 .venv/bin/python bench/vision_accuracy.py [--frames N] [--quick]

Real photos (../shared/datasets; webcam-d6: MIT, matteop65/Dice_Detection_Recognition; roboflow-d6:
CC BY 4.0, Epanemu/GameDiceRecognition via Roboflow):
- cross-validation by photo: every photo is read with the fold model (build/reader-models/cv<k>) that was
  trained without it;
- leave-one-dataset-out: every photo of a dataset is read with the model trained without that dataset.
The learned die finder is picked the same way (build/finder-models/cv<k>, lodo-<dataset>, from
`make train-finder-suite`): no photo is read with a finder or a classifier that trained on it
(`--finder-models none`: the hand-made cues alone).
For each: the whole reader (finder + classifier), and the classifier alone given the labelled boxes.
Columns: acc (right value, certain or not), certain-right, uncertain, silent (wrong but certain), missed
(no reading near a labelled die), phantom (readings matching no labelled die: note that some photos hold
unlabelled dice). Renders: every dice set the registered games describe, under and over the tray, with
the shipped model. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from device.dice_sets import ids, spec  # noqa: E402
from training.data import datasets_root, load_photos  # noqa: E402
from training.splits import FOLDS, PHOTO_SETS, fold_of  # noqa: E402
from vision.classify import MODELS as SHIPPED  # noqa: E402
from vision.classify import FaceClassifier, crop_patch, normalise_batch  # noqa: E402
from vision.detector import DieDetector  # noqa: E402
from vision.dicesets import get_set  # noqa: E402
from vision.reader import read_dice  # noqa: E402
from vision.render import ground_truth, random_dice, render_tray  # noqa: E402
from vision.scoring import Score, score  # noqa: E402

MODELS = Path(__file__).resolve().parents[1] / "build" / "reader-models"
FINDERS = Path(__file__).resolve().parents[1] / "build" / "finder-models"
BACKGROUNDS = ["wood", "felt", "white", "grey", "black", "blue", "red"]
LIGHTS = ["neutral", "warm", "cold", "dim", "glare"]


def model(name: str, models: Path = MODELS) -> FaceClassifier:
    return FaceClassifier(models / f"{name}.onnx", json.loads((models / f"{name}.json").read_text()))


def finder(name: str, finders: Path | None) -> DieDetector | None:
    """A fold's learned die finder (None: `--finder-models none`, the hand-made cues alone)."""
    if finders is None:
        return None
    path = finders / f"{name}.onnx"
    if not path.exists():
        raise SystemExit(f"{path} is missing: run `make train-finder-suite`, or pass --finder-models none")
    return DieDetector(path, json.loads(path.with_suffix(".json").read_text()))


def read_photos(photos, pick_model, limit: int | None = None, pick_finder=lambda ph: None) -> tuple[Score, list[float]]:
    total = Score()
    ms = []
    for ph in photos[:limit]:
        frame = cv2.imread(str(ph.path))
        if frame is None:
            continue
        truth = [{"value": d.value, "center": (d.box[0], d.box[1])} for d in ph.dice]
        t0 = time.perf_counter()
        readings = read_dice(frame, "d6", "over", classifier=pick_model(ph), detector=pick_finder(ph))
        ms.append((time.perf_counter() - t0) * 1000)
        radius = max(12.0, 0.5 * float(np.median([max(d.box[2], d.box[3]) for d in ph.dice]))) if ph.dice else 20.0
        total.add(score(truth, readings, radius, tag=f"{ph.dataset}/{ph.path.stem}"))
    return total, ms


def given_crops(photos, clf: FaceClassifier) -> tuple[np.ndarray, np.ndarray]:
    """Every labelled die cut out as the reader cuts it for this model (its size, padding, normalisation)."""
    xs, ys = [], []
    for ph in photos:
        img = cv2.imread(str(ph.path))
        if img is not None:
            xs += [crop_patch(img, d.box, pad=clf.pad, size=clf.size) for d in ph.dice]
            ys += [d.value - 1 for d in ph.dice]
    return normalise_batch(np.stack(xs), clf.norm), np.asarray(ys)


def classify_given_boxes(photos, clf: FaceClassifier) -> str:
    x, y = given_crops(photos, clf)
    probs, _ = clf.run(x)
    pred = probs.argmax(1)
    conf = probs.max(1)
    right = pred == y
    certain = conf >= clf.certain_at
    n = max(len(y), 1)
    # and as the reader asks of a die no crop count backs: the same face at the two second looks too
    looked = []
    for ph in photos:
        img = cv2.imread(str(ph.path))
        if img is not None and ph.dice:
            looked.append(clf.second_looks(img, [d.box for d in ph.dice]).argmax(2))
    same = np.concatenate(looked) == pred[:, None] if looked else np.zeros((0, 2), bool)
    held = certain & same.all(1) if len(same) == len(pred) else certain
    return (f"dice {len(y):5d}  acc {100 * right.mean():6.2f}%  certain-right {100 * (right & certain).sum() / n:6.2f}%"
            f"  uncertain {100 * (~certain).sum() / n:5.2f}%  silent {100 * (~right & certain).sum() / n:5.2f}%"
            f"  | with second looks: certain-right {100 * (right & held).sum() / n:6.2f}%"
            f"  silent {100 * (~right & held).sum() / n:5.2f}%")


def renders(set_id: str, mount: str, frames: int, seed: int = 1, learned: bool = False,
            size: tuple[float, float] = (30, 90), readable: Score | None = None) -> Score:
    """Rendered frames of one set read with the shipped model. `learned`: under the tray with the background
    the box's watcher learns (an empty frame of the same room, with its own sensor noise), as the box reads.
    `readable` (if given) also scores the dice whose seen face names the top face: seen from below, a side
    that looks like another side whose opposite differs (Mage Wars' two blanks, opposite the 1* and the 2*
    in the set's data) names none, and no reader can do better than a guess there."""
    dice_set = spec(set_id)
    ds = get_set(dice_set)
    rng = np.random.default_rng(seed)
    total = Score()
    for i in range(frames):
        n = int(rng.integers(1, 7))
        # dice of the colours the set's game tells apart (Regidice's four),
        # else any colour: a die of a colour the game does not know is never certain (vision/reader.py)
        dice = random_dice(rng, n, dice_set=dice_set, size=size, colours=dice_set.get("colours") or None)
        bg = BACKGROUNDS[i % len(BACKGROUNDS)] if mount == "over" else None
        light = LIGHTS[i % len(LIGHTS)]
        frame = render_tray(dice, mount=mount, background=bg, lighting=light, seed=i, room_seed=i)
        empty = render_tray([], mount=mount, background=bg, lighting=light, seed=i + 7919, room_seed=i) \
            if learned else None
        truth = ground_truth(dice, mount)
        readings = read_dice(frame, dice_set, mount, background=empty)
        total.add(score(truth, readings, radius=30, tag=f"{set_id} {mount} #{i}"))
        if readable is not None:
            blind = [g["center"] for g in truth if mount == "under" and ds.top_is_ambiguous(g["seen_index"])]
            readable.add(score([g for g in truth if g["center"] not in blind],
                               [r for r in readings if all(math.dist(r.center, c) > 30 for c in blind)],
                               radius=30, tag=f"{set_id} {mount} #{i}"))
    return total


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=40, help="rendered frames per set and mount")
    ap.add_argument("--limit", type=int, default=None, help="photos per dataset (default: all)")
    ap.add_argument("--sets", default="", help="comma-separated dice set ids for the renders (default: all)")
    ap.add_argument("--errors", action="store_true", help="list silent errors")
    ap.add_argument("--renders-only", action="store_true", help="skip the photos (no suite models needed)")
    ap.add_argument("--seed", type=int, default=1, help="the renders' seed (dice, poses, colours; default 1)")
    ap.add_argument("--photos-only", action="store_true", help="skip the renders")
    ap.add_argument("--photo-sets", default=",".join(PHOTO_SETS), help="comma-separated photo datasets")
    ap.add_argument("--no-lodo", action="store_true", help="skip leave-one-dataset-out")
    ap.add_argument("--no-cv", action="store_true", help="skip the cross-validation by photo")
    ap.add_argument("--no-unseen", action="store_true", help="skip the sets the shipped networks never trained on")
    ap.add_argument("--unseen-only", action="store_true", help="only the sets the shipped networks never trained on")
    ap.add_argument("--every", type=int, default=1, help="every Nth photo of each unseen set (a quick look)")
    ap.add_argument("--models", type=Path, default=MODELS,
                    help="folder of the suite models (cv<k>, lodo-<dataset>; default build/reader-models)")
    ap.add_argument("--finder-models", default=str(FINDERS),
                    help="folder of the learned finder's suite models (default build/finder-models), or 'none'")
    args = ap.parse_args()
    args.finders = None if args.finder_models == "none" else Path(args.finder_models)

    cv2.setNumThreads(1)
    if not args.renders_only:
        read_all_photos(args)
    if args.photos_only:
        return 0
    print("== renders, shipped models / templates (every set the games describe); 'learned bg': under the tray "
          "with the room learned from an empty frame, as the box reads")
    sets = [s for s in args.sets.split(",") if s] or ids()
    groups: dict[str, Score] = {}
    for set_id in sets:
        for mount, learned in (("under", False), ("over", False), ("under", True)):
            readable = Score()
            sc = renders(set_id, mount, args.frames, seed=args.seed, learned=learned, readable=readable)
            name = f"{set_id} {mount}{', learned bg' if learned else ''}"
            print(sc.line(name))
            if readable.dice < sc.dice:
                print(readable.line(f"  readable ({sc.dice - readable.dice} dice whose glass face names no top "
                                    f"face left out)"))
            if ":" in set_id:  # a family of sets (dicethrone:...): also in total
                groups.setdefault(f"{set_id.split(':')[0]}:* {name.split(' ', 1)[1]}", Score()).add(sc)
    for name, sc in groups.items():
        print(sc.line(name))
    print("== renders under the tray with a learned background (the box's own case), d6, dice 16-90 px")
    print(renders("d6", "under", args.frames, seed=2, learned=True, size=(16, 90)).line("d6 under, learned bg"))
    print("numeral dice on photos (d20-numerals held back, polyhedral-numerals unseen): measured by "
          "bench/vision_numerals.py (the numeral CNN joined with the templates; --reader templates|cnn alone)")
    return 0


def shipped_unseen() -> list[str]:
    """Every pip-d6 dataset in ../shared/datasets that neither shipped photo network (vision/models/pips.json,
    finder.json) trained on: read with the shipped models they are left out by construction (the numeral
    sets are named, not read)."""
    trained = set()
    for name in ("pips", "finder"):
        trained |= set(json.loads((SHIPPED / f"{name}.json").read_text()).get("trained_on", {}).get("photos", []))
    return sorted(d.name for d in datasets_root().iterdir() if (d / "labels").is_dir() and d.name not in trained)


# the datasets whose dice are numeral dice (../shared/datasets/README.md): no pips for the pip reader to count
NUMERAL_SETS = ("d20-numerals", "polyhedral-numerals", "dicefinder-pi")


def read_unseen(args: argparse.Namespace) -> None:
    """Each real set the shipped networks never trained on, read with them (the product as it ships), one line
    a set and the photos' median ms."""
    print("== real photos the shipped networks never trained on (shipped pips.onnx + finder.onnx, --mount over)")
    total = Score()
    for name in shipped_unseen():
        if name in NUMERAL_SETS:
            print(f"{name:<28} numeral dice, not pips: not read by the pip reader (bench/vision_numerals.py)")
            continue
        phs = load_photos(name)[::args.every][:args.limit]
        s, ms = read_photos(phs, lambda ph: None, None, lambda ph: "shipped")
        total.add(s)
        print(s.line(f"{name} reader"), f" {np.median(ms):.1f} ms/photo, {len(phs)} photos")
        if args.errors:
            for e in s.errors:
                if e["kind"] == "silent":
                    print("   silent", e)
    print(total.line("all unseen sets reader"))


def read_all_photos(args: argparse.Namespace) -> None:
    if not args.no_unseen:
        read_unseen(args)
    if args.unseen_only:
        return
    photos = {name: load_photos(name) for name in args.photo_sets.split(",") if name}
    if not args.no_cv:
        read_cv(args, photos)
    if args.no_lodo:
        return
    read_left_out(args, photos)


def read_left_out(args: argparse.Namespace, photos: dict) -> None:
    """Each set read by the suite's pair that never trained on it (lodo-<set>), and the sets' total."""
    print("== leave-one-dataset-out (trained without the dataset it is measured on)")
    total = Score()
    for name, phs in photos.items():
        m = model(f"lodo-{name}", args.models)
        f = finder(f"lodo-{name}", args.finders)
        s, _ = read_photos(phs, lambda ph, m=m: m, args.limit, lambda ph, f=f: f)
        total.add(s)
        print(s.line(f"{name} reader"))
        print(f"  {name} classifier given boxes:", classify_given_boxes(phs[:args.limit], m))
        if args.errors:
            for e in s.errors:
                if e["kind"] == "silent":
                    print("   silent", e)
    print(total.line("all left-out sets reader"))


def read_cv(args: argparse.Namespace, photos: dict) -> None:
    cv = {k: model(f"cv{k}", args.models) for k in range(FOLDS)}
    finders = {k: finder(f"cv{k}", args.finders) for k in range(FOLDS)}
    print(f"== real photos, cross-validation by photo ({FOLDS} folds; each photo read by the model that never saw it;"
          f" learned finder: {args.finders or 'none'})")
    allcv = Score()
    for name, phs in photos.items():
        s, ms = read_photos(phs, lambda ph: cv[fold_of(ph)], args.limit, lambda ph: finders[fold_of(ph)])
        allcv.add(s)
        print(s.line(f"{name} reader"), f" {np.median(ms):.1f} ms/photo")
        for k in range(FOLDS):
            print(f"  {name} classifier given boxes, fold {k}:",
                  classify_given_boxes([p for p in phs[:args.limit] if fold_of(p) == k], cv[k]))
        if args.errors:
            for e in s.errors:
                if e["kind"] == "silent":
                    print("   silent", e)
    print(allcv.line("all photos reader"))


if __name__ == "__main__":
    raise SystemExit(main())
