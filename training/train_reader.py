"""Train the pip-d6 face classifier (torch on the CPU, see `torch_net.py`) and export it to ONNX for `vision/`.

    nice -n 10 python -m training.train_reader            # the shipped model
    nice -n 10 python -m training.train_reader --suite    # + cross-validation models

Reproducible from `--seed` (same machine, same torch, same `--threads`) and the commit: the pips.onnx shipped at
9bca436, retrained at that commit, came out byte-identical (the model's JSON now records its commit and libraries:
`made_with`). A later vision/ gives other data, as the "not a die" boxes of empty
renders are the reader's own candidates (at 1d41cde 680 of them instead of 682, and a model whose best guess differs
on 104 of 1219 real dice).

Data: every labelled die of webcam-d6 and roboflow-d6
cut out once as a canvas (`canvas.py`) and augmented afresh every epoch (turn, shift, scale, stretch; shrink,
blur, gain, noise, hot pixels; channels permuted and inverted), "not a die" made from the same canvases (half
dice, a part of a face, a box far too wide) and from the photos' background, and renders of pip dice
(colours, marbled/speckled/translucent bodies, both mounts, cocked dice as "not a die") with the reader's
own candidates on empty renders; and `--cubes` dice drawn as cubes in perspective (`cubes.py`: the top face
foreshortened with side faces and their pips, light pips on dark bodies, pips of a hue rather than a
brightness, marbled/speckled/translucent bodies, rounded edges, glare, neighbours, shadows, blur, JPEG), which
weigh as much as a photo's die: they took the classifier from 44% to 74% on roboflow-d6's dice sets when it
never saw them (given their boxes, one seed).

Calibration: a held-back part of the training photos (whole photos, never trained on) fits the softmax
temperature and the confidence above which a die is reported certain: the lowest level at which the held-back
dice are wrong-but-certain at most `--silent-aim` of the time (and never below 0.9). With fewer than 500 held-back
dice that allows none, so the level is just above the most confident wrong die and moves with that one die:
lodo-roboflow-d6 (168 held back) fitted 0.9285 at 9bca436, 0.9705 at 5b6d9fe, 0.9620 at 1d41cde, where the
data differed only by 682, 683 and 680 empty-render boxes (each run reproducible). After export, cv2.dnn must
give torch's logits on those dice (the reader's own path), and the shipped model leaves a few crops with their
logits in tests/vision/data for a test that the file still reads as trained.

`--suite` also trains the models the accuracy bench needs, into build/reader-models/: `cv<k>` (2 folds by
photo over both datasets: each photo is tested by the one model that never saw it) and `lodo-<dataset>`
(trained without that dataset at all, which is then the test).
"""

from __future__ import annotations

import argparse
import json
import pickle
import time
import zlib
from pathlib import Path

import cv2
import numpy as np
import torch

from training.blender_canvases import blender_canvases, ensure, seed_list
from training.calibration import certain_threshold, fit_temperature
from training.canvas import Canvases, empty_canvases, photo_canvases, render_canvases
from training.cubes import cube_backgrounds, cube_canvases
from training.data import Photo, load_photos, photo_sources
from training.negatives import phantom_canvases
from training.net import softmax
from training.provenance import (
    BASE_SOURCES,
    CUBE_SOURCES,
    PHANTOM_SOURCES,
    REPO,
    SHIPPED,
    made_with,
    reference_path,
)
from training.splits import CLASSES, is_calibration, model_jobs, photo_sets
from training.torch_net import Setup, export_onnx, logits_of, train
from vision.classify import FaceClassifier, crop_patch, normalise_batch, smoothed
from vision.detector import DieDetector
from vision.detector import load as load_detector

CANVAS = 128   # canvas side (the box spans a third of it: about the 48 px input's box at most)


def calibrate(logits: np.ndarray, y: np.ndarray, silent_aim: float) -> tuple[float, float, dict]:
    """(temperature, certain_at, figures) from the logits of held-back real dice (all are dice: none is an
    error); certain_at is never below 0.9."""
    best_t, best_nll = fit_temperature(lambda t: softmax(logits / t), y, 60)
    p = softmax(logits / best_t)
    conf = p.max(1)
    pred = p.argmax(1)
    wrong = pred != y
    certain_at = certain_threshold(conf, wrong, silent_aim * len(y), np.linspace(0.9, 0.9995, 200))
    sel = conf >= certain_at
    figs = {"held_back_dice": int(len(y)), "accuracy": float((~wrong).mean()),
            "certain": float(sel.mean()), "silent": float((wrong & sel).mean()), "nll": best_nll}
    return best_t, certain_at, figs


def real_crops(photos: list[Photo], s: Setup, smooth: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Every labelled die of the photos cut out as the reader cuts it (uint8 BGR), and its class; from the
    photo smoothed by `smooth` px for a network that reads so (`vision.classify.smoothed`)."""
    xs, ys = [], []
    for ph in photos:
        img = cv2.imread(str(ph.path))
        if img is None:
            continue
        img = smoothed(img, smooth)
        for d in ph.dice:
            xs.append(crop_patch(img, d.box, pad=s.pad, size=s.size))
            ys.append(d.value - 1)
    return np.asarray(xs, np.uint8).reshape(-1, s.size, s.size, 3), np.asarray(ys, np.int64)


def build(name: str, train_photos: list[Photo], calib_photos: list[Photo], renders: Canvases, canvases: dict,
          out_dir: Path, s: Setup, seed: int, silent_aim: float, note: dict, phantoms: Canvases | None = None) -> dict:
    t0 = time.time()
    data = Canvases.join([canvases[(p.dataset, p.path.name)] for p in train_photos] + [renders] +
                         ([phantoms] if phantoms is not None else []))
    print(f"[{name}] training on {len(data)} canvases ({sum(len(p.dice) for p in train_photos)} real dice from "
          f"{len(train_photos)} photos, {len(renders)} rendered, "
          f"{len(phantoms) if phantoms is not None else 0} finders' false boxes), "
          f"classes {np.bincount(data.y).tolist()}", flush=True)
    net = train(data, s, seed)
    crops, cy = real_crops(calib_photos, s)
    x = normalise_batch(crops, s.norm)
    logits = logits_of(net, x)
    temp, certain_at, figs = calibrate(logits, cy, silent_aim)
    print(f"[{name}] calibration on {len(cy)} held-back real dice: T={temp:.2f} certain_at={certain_at:.4f} {figs}")
    out_dir.mkdir(parents=True, exist_ok=True)
    onnx_path = out_dir / f"{name}.onnx"
    export_onnx(net, s, str(onnx_path))
    meta = {"classes": CLASSES, "kind": "pips", "size": s.size, "pad": s.pad, "norm": s.norm,
            "temperature": temp, "certain_at": certain_at,
            "calibration": figs, "seed": seed, "epochs": s.epochs, "setup": repr(s), "trained_on": note,
            "train_seconds": round(time.time() - t0, 1), "made_with": made_with(),
            "sources": photo_sources(note["photos"]) + "; renders (vision/render.py); dice drawn as "
                       "cubes (training/cubes.py)" +
                       ("; pip dice rendered by Blender (training/blender_dice.py)" if note.get("blender_seeds") else "")}
    (out_dir / f"{name}.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    # the exported graph must answer as torch does (batch norm folded, the layout NCHW): checked on the
    # held-back dice through cv2.dnn, the reader's own path
    dnn = FaceClassifier(onnx_path, meta)
    dnn.net.setInput(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
    got = dnn.net.forward("logits")
    diff = float(np.abs(got - logits).max())
    if diff > 1e-3 * max(1.0, float(np.abs(logits).max())):
        raise RuntimeError(f"[{name}] cv2.dnn and torch disagree on the exported model (max |diff| {diff:.4g})")
    if name == "pips":
        # a few held-back crops and their logits, for a test that the shipped file still reads as trained
        pick = np.linspace(0, len(crops) - 1, 6).astype(int)
        ref = reference_path(out_dir, "pips_reference.npz")
        ref.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(ref, crops=crops[pick], logits=logits[pick].astype(np.float32))
    return meta


def finder_path(name: str, folder: Path) -> Path:
    """The learned die finder's file for the classifier `name` (see `finder_for`)."""
    return SHIPPED / "finder.onnx" if name == "pips" else folder / f"{name}.onnx"


def finder_for(name: str, folder: Path) -> DieDetector | None:
    """The learned die finder trained on the same photos as the classifier `name` (the shipped one for the
    shipped classifier, else the fold's from `make train-finder-suite`), whose false boxes on those photos
    become "not a die" (`negatives.py`)."""
    if name == "pips":
        return load_detector()
    path = finder_path(name, folder)
    if not path.exists():
        raise SystemExit(f"{path} is missing: run `make train-finder-suite`, or pass --phantoms 0")
    return DieDetector(path, json.loads(path.with_suffix(".json").read_text(encoding="utf-8")))


def cached(folder: Path | None, name: str, sources: list[str], make, inputs: object = ()):
    """`make()`, or what it made before with the same name, the same source files and the same `inputs` (a value
    whose repr names what else it reads: the photos, their boxes) (kept in `folder`)."""
    if folder is None:
        return make()
    code = zlib.crc32(repr(inputs).encode())
    for f in sources:
        code = zlib.crc32((REPO / f).read_bytes(), code)
    path = folder / f"{name}-{code:08x}.pkl"
    if path.exists():
        return pickle.loads(path.read_bytes())
    out = make()
    folder.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--epochs", type=int, default=Setup.epochs)
    ap.add_argument("--render-frames", type=int, default=900)
    ap.add_argument("--cubes", type=int, default=4000, help="dice drawn as cubes in perspective (training/cubes.py)")
    ap.add_argument("--cube-weight", type=float, default=Setup.cube_weight)
    ap.add_argument("--blender", default="",
                    help="Blender-rendered dice (training/blender_dice.py): the seeds of their 100-frame folders under "
                         "build/blender-dice, e.g. 1-20 (rendered first where missing; off by default)")
    ap.add_argument("--blender-weight", type=float, default=Setup.blender_weight)
    # off by default: both made the classifier read fewer faces right (see training/negatives.py)
    ap.add_argument("--phantoms", type=float, default=0.0,
                    help="the finders' false boxes on each training photo taught as 'not a die', at most this many per "
                         "labelled die (0: none; training/negatives.py)")
    ap.add_argument("--cube-backgrounds", type=int, default=0,
                    help="'not a die' boxes cut from cube scenes where no die is (training/cubes.py)")
    ap.add_argument("--finder-models", type=Path, default=REPO / "build" / "finder-models",
                    help="the learned finder's fold models (make train-finder-suite), for --phantoms")
    ap.add_argument("--frame", type=float, nargs=2, default=Setup.frame, metavar=("LO", "HI"),
                    help="the box's scale jitter in training")
    ap.add_argument("--shift", type=float, default=Setup.shift, help="the box's shift jitter (box sides, spread)")
    ap.add_argument("--hue", type=float, default=Setup.hue, help="share of patches with their hue turned")
    ap.add_argument("--cache", type=Path, default=None,
                    help="keep the canvases here between runs (experiments: the same seed, the same canvases)")
    ap.add_argument("--silent-aim", type=float, default=0.002)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (the machine is shared)")
    ap.add_argument("--suite", action="store_true", help="also train the cross-validation models for the bench")
    ap.add_argument("--photo-sets", default="",
                    help="comma-separated pip-d6 photo sets to train on (default: the shipped model's; "
                    "`--suite` then leaves each out in turn)")
    ap.add_argument("--only", default="", help="comma-separated model names to train (pips, cv0, lodo-...)")
    ap.add_argument("--out", type=Path, default=SHIPPED)
    ap.add_argument("--suite-out", type=Path, default=REPO / "build" / "reader-models")
    args = ap.parse_args(argv)

    torch.set_num_threads(args.threads)
    s = Setup(epochs=args.epochs, cube_weight=args.cube_weight, hue=args.hue, blender_weight=args.blender_weight,
              frame=tuple(args.frame), shift=args.shift)
    t0 = time.time()
    sets = photo_sets(args.photo_sets)
    photos = [p for name in sets for p in load_photos(name)]

    def base() -> tuple[dict, Canvases]:
        rng = np.random.default_rng(args.seed)
        canvases = {(p.dataset, p.path.name): photo_canvases([p], CANVAS, rng) for p in photos}
        return canvases, Canvases.join([render_canvases(args.render_frames, CANVAS, rng),
                                        empty_canvases(args.render_frames // 2, CANVAS, rng)])

    canvases, renders = cached(args.cache, f"base-{args.render_frames}-{args.seed}", BASE_SOURCES, base, photos)
    if args.cubes:
        cubes = cached(args.cache, f"cubes-{args.cubes}-{args.seed}", CUBE_SOURCES,
                       lambda: cube_canvases(args.cubes, CANVAS, np.random.default_rng([args.seed, 4])))
        renders = Canvases.join([renders, cubes])
    if args.cube_backgrounds:
        renders = Canvases.join([renders, cached(
            args.cache, f"cubebg-{args.cube_backgrounds}-{args.seed}", CUBE_SOURCES,
            lambda: cube_backgrounds(args.cube_backgrounds, CANVAS, np.random.default_rng([args.seed, 6])))])
    if args.blender:
        folders = ensure(seed_list(args.blender))
        renders = Canvases.join([renders, blender_canvases(folders, CANVAS, np.random.default_rng([args.seed, 7]))])
    print(f"data: {len(photos)} photos, {len(renders)} rendered canvases ({time.time() - t0:.0f} s)", flush=True)

    jobs = model_jobs("pips", photos, args.out, args.suite, args.suite_out, sets)
    only = {n for n in args.only.split(",") if n}
    for name, pool, out, note in jobs:
        if only and name not in only:
            continue
        note = {**note, "cubes": args.cubes, "render_frames": args.render_frames,
                **({"blender_seeds": args.blender, "blender_weight": args.blender_weight} if args.blender else {}),
                **({"cube_backgrounds": args.cube_backgrounds} if args.cube_backgrounds else {})}
        train_p = [p for p in pool if not is_calibration(p)]
        calib_p = [p for p in pool if is_calibration(p)]
        phantoms = None
        if args.phantoms:
            note["phantoms_per_die"] = args.phantoms
            # (the finder model whose false boxes they are counts as a source too; a missing one is
            # reported by finder_for)
            fp = finder_path(name, args.finder_models)
            phantoms = cached(args.cache, f"phantoms-{name}-{args.phantoms}-{args.seed}",
                              [*PHANTOM_SOURCES, *([str(fp)] if fp.exists() else [])],
                              lambda tp=train_p, nm=name: phantom_canvases(
                                  tp, finder_for(nm, args.finder_models), CANVAS,
                                  np.random.default_rng([args.seed, 5, zlib.crc32(nm.encode())]), args.phantoms),
                              train_p)
        build(name, train_p, calib_p, renders, canvases, out, s, args.seed, args.silent_aim, note, phantoms)
    print(f"done in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
