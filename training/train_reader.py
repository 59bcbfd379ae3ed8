"""Train the pip-d6 face classifier (numpy CNN, see `net.py`) and export it to ONNX for `vision/`.

    nice -n 10 env OMP_NUM_THREADS=1 python -m training.train_reader            # the shipped model
    nice -n 10 env OMP_NUM_THREADS=1 python -m training.train_reader --suite    # + cross-validation models

Reproducible from `--seed`. Data: every labelled die of webcam-d6 and roboflow-d6 (augmented: rotation,
shift, scale, blur, gain, noise, JPEG), "not a die" patches cut from the same photos, and renders of pip dice
(colours, marbled/speckled/translucent bodies, both mounts, cocked dice as "not a die").

Calibration: a held-back part of the training photos (whole photos, never trained on) fits the softmax
temperature and the confidence above which a die is reported certain: the lowest level at which the held-back
dice are wrong-but-certain at most `--silent-aim` of the time (and never below 0.9).

`--suite` also trains the models the accuracy bench needs, into build/reader-models/: `cv<k>` (2 folds by
photo over both datasets: each photo is tested by the one model that never saw it) and `lodo-<dataset>`
(trained without that dataset at all, which is then the test).
"""

from __future__ import annotations

import argparse
import json
import time
import zlib
from pathlib import Path

import numpy as np

from training.data import Photo, empty_samples, load_photos, photo_samples, real_patches, render_samples
from training.net import Adam, Net, softmax

REPO = Path(__file__).resolve().parents[1]
PHOTO_SETS = ("webcam-d6", "roboflow-d6")
CLASSES = ["1", "2", "3", "4", "5", "6", "none"]
FOLDS = 2


def fold_of(photo: Photo) -> int:
    """Cross-validation fold of a photo: from its source photo's name, stable on every machine."""
    return zlib.crc32(f"{photo.dataset}/{photo.group}".encode()) % FOLDS


def is_calibration(photo: Photo) -> bool:
    """About one photo in seven of the training photos is held back for calibration."""
    return zlib.crc32(f"calib/{photo.dataset}/{photo.group}".encode()) % 7 == 0


def train(x: np.ndarray, y: np.ndarray, seed: int, epochs: int, log=print) -> Net:
    rng = np.random.default_rng(seed)
    net = Net(len(CLASSES), seed=seed)
    opt = Adam(net.params, wd=5e-4)
    n = len(x)
    batch = 128
    steps = epochs * ((n + batch - 1) // batch)
    step = 0
    # classes weighted to equal total weight: "none" is plentiful, 1s are many in webcam-d6
    counts = np.bincount(y, minlength=len(CLASSES)).astype(np.float64)
    wcls = (counts.sum() / np.maximum(counts, 1) / len(CLASSES)).astype(np.float32)
    for ep in range(epochs):
        order = rng.permutation(n)
        t0, tot, right = time.time(), 0.0, 0
        for i in range(0, n, batch):
            idx = order[i:i + batch]
            xb = x[idx].astype(np.float32)
            flip = rng.random(len(idx)) < 0.5
            xb[flip] = xb[flip, :, ::-1]
            inv = rng.random(len(idx)) < 0.5          # both polarities: light pips on dark dice
            xb[inv] = -xb[inv]
            xb = xb[..., rng.permutation(3)]          # any hue: the channels in any order
            grey = rng.random(len(idx)) < 0.15        # and colourless
            xb[grey] = xb[grey].mean(-1, keepdims=True)
            yb = y[idx]
            lr = 0.5 * 2e-3 * (1 + np.cos(np.pi * step / steps))
            logits, _, cache = net.forward(xb, keep=True, drop=0.2, rng=rng)
            p = softmax(logits)
            w = wcls[yb]
            tot += float(-(np.log(p[np.arange(len(yb)), yb] + 1e-9) * w).sum())
            right += int((p.argmax(1) == yb).sum())
            d = p.copy()
            d[np.arange(len(yb)), yb] -= 1
            d *= (w / w.sum())[:, None]
            opt.step(net.params, net.backward(d.astype(np.float32), cache), lr)
            step += 1
        log(f"  epoch {ep + 1}/{epochs}: loss {tot / n:.4f}  train acc {right / n:.4f}  ({time.time() - t0:.0f} s)")
    return net


def calibrate(net: Net, x: np.ndarray, y: np.ndarray, silent_aim: float) -> tuple[float, float, dict]:
    """(temperature, certain_at, figures) from held-back real patches (all are dice: none is an error)."""
    logits, _ = net.predict(x)
    best_t, best_nll = 1.0, float("inf")
    for t in np.exp(np.linspace(np.log(0.3), np.log(5.0), 60)):
        p = softmax(logits / t)
        nll = float(-np.log(p[np.arange(len(y)), y] + 1e-12).mean())
        if nll < best_nll:
            best_t, best_nll = float(t), nll
    p = softmax(logits / best_t)
    conf = p.max(1)
    pred = p.argmax(1)
    wrong = pred != y
    certain_at = 0.9
    for thr in np.linspace(0.9, 0.9995, 200):
        sel = conf >= thr
        if wrong[sel].sum() <= silent_aim * len(y):
            certain_at = float(thr)
            break
    else:
        certain_at = 0.9995
    sel = conf >= certain_at
    figs = {"held_back_dice": int(len(y)), "accuracy": float((~wrong).mean()),
            "certain": float(sel.mean()), "silent": float((wrong & sel).mean()), "nll": best_nll}
    return best_t, certain_at, figs


def build(name: str, train_photos: list[Photo], calib_photos: list[Photo], renders: tuple[np.ndarray, np.ndarray],
          photo_cache: dict, out_dir: Path, seed: int, epochs: int, silent_aim: float, note: dict) -> dict:
    t0 = time.time()
    xs = [photo_cache[(p.dataset, p.group, p.path.name)][0] for p in train_photos]
    ys = [photo_cache[(p.dataset, p.group, p.path.name)][1] for p in train_photos]
    x = np.concatenate(xs + [renders[0]])
    y = np.concatenate(ys + [renders[1]])
    print(f"[{name}] training on {len(x)} patches ({sum(len(p.dice) for p in train_photos)} real dice from "
          f"{len(train_photos)} photos, {len(renders[0])} rendered), classes {np.bincount(y).tolist()}")
    net = train(x, y, seed, epochs)
    cx, cy, _ = real_patches(calib_photos)
    temp, certain_at, figs = calibrate(net, cx, cy, silent_aim)
    print(f"[{name}] calibration on {len(cy)} held-back real dice: T={temp:.2f} certain_at={certain_at:.4f} {figs}")
    out_dir.mkdir(parents=True, exist_ok=True)
    net.to_onnx(str(out_dir / f"{name}.onnx"))
    meta = {"classes": CLASSES, "kind": "pips", "temperature": temp, "certain_at": certain_at,
            "calibration": figs, "seed": seed, "epochs": epochs, "trained_on": note,
            "train_seconds": round(time.time() - t0, 1),
            "sources": "webcam-d6 (MIT, matteop65/Dice_Detection_Recognition); roboflow-d6 (CC BY 4.0, "
                       "Epanemu/GameDiceRecognition, Roboflow export); renders (vision/render.py)"}
    (out_dir / f"{name}.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    return meta


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--per-die", type=int, default=4)
    ap.add_argument("--render-frames", type=int, default=900)
    ap.add_argument("--silent-aim", type=float, default=0.002)
    ap.add_argument("--suite", action="store_true", help="also train the cross-validation models for the bench")
    ap.add_argument("--only", default="", help="comma-separated model names of the suite to train")
    ap.add_argument("--out", type=Path, default=REPO / "vision" / "models")
    ap.add_argument("--suite-out", type=Path, default=REPO / "build" / "reader-models")
    args = ap.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    photos = [p for name in PHOTO_SETS for p in load_photos(name)]
    cache = {}
    for p in photos:
        x, y = photo_samples([p], rng, per_die=args.per_die)
        cache[(p.dataset, p.group, p.path.name)] = (x.astype(np.float16), y)
    rx, ry = render_samples(args.render_frames, rng)
    ex, ey = empty_samples(args.render_frames // 2, rng)
    rx, ry = np.concatenate([rx, ex]), np.concatenate([ry, ey])
    renders = (rx.astype(np.float16), ry)
    print(f"data: {len(photos)} photos, {len(rx)} rendered patches ({time.time() - t0:.0f} s)")

    jobs: list[tuple[str, list[Photo], Path, dict]] = [("pips", photos, args.out, {"photos": list(PHOTO_SETS)})]
    if args.suite:
        for k in range(FOLDS):
            jobs.append((f"cv{k}", [p for p in photos if fold_of(p) != k], args.suite_out,
                         {"photos": list(PHOTO_SETS), "held_out_fold": k, "folds": FOLDS}))
        for ds in PHOTO_SETS:
            jobs.append((f"lodo-{ds}", [p for p in photos if p.dataset != ds], args.suite_out,
                         {"photos": [d for d in PHOTO_SETS if d != ds], "left_out": ds}))
    only = {s for s in args.only.split(",") if s}
    for name, pool, out, note in jobs:
        if only and name not in only:
            continue
        train_p = [p for p in pool if not is_calibration(p)]
        calib_p = [p for p in pool if is_calibration(p)]
        build(name, train_p, calib_p, renders, cache, out, args.seed, args.epochs, args.silent_aim, note)
    print(f"done in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
