"""Train a symbol-dice face classifier: one CNN for every icon set the registered games describe (Dice Throne
heroes, King of Tokyo, Mage Wars attack dice...). NOT SHIPPED YET: the reader still reads symbol dice with
its templates. With the defaults below (3000 rendered frames, 10 epochs, about 12 minutes on a loaded shared
core) the model names 60% of held-back rendered dice (63% given the upright turn): almost all its errors
are Dice Throne faces that share a symbol and differ by the corner number; it needs more data and training
than one session's time limits gave it.

    nice -n 10 env OMP_NUM_THREADS=1 python -m training.symbols [--seed 11] [--frames 3500] [--out DIR]

Classes are the faces' glyphs (the renderer's drawing keys, e.g. "icon:sword+corner:2"), shared between sets
that draw the same face, plus "none" (not a die: a cocked die, a part of a die, two dice, the room). A set is
read with the softmax taken over its own glyphs and "none" only (`FaceClassifier.run(allowed=...)`), and the
network is trained the same way (each sample's softmax over its set's classes), so its capacity goes to what
one set must tell apart: the Dice Throne faces that share a symbol differ only in the small corner number.
The input is 48x48 (the corner number is a few pixels high at 32), cut along the die's own outline
(`vision.classify.crop_rect` on the finder's rotated rectangle), so the face fills the crop and only its
four quarter turns are left. The network learns faces upright only (each training crop turned so that its
ink matches the face's drawing best, `upright_turns`); the reader shows it all four turns of a crop and keeps
the one whose face it is surest of (`vision.classify.quarter_turns`, `best_turn`), and calibration does the
same. Faces seen from below are mirrored; the reader flips those crops
left-right, and so does the training data, so one drawing per face is learnt.

Data: renders only (`vision/render.py`; no photos of symbol dice exist in ../shared/datasets). Each rendered
frame is searched by the reader's own finder (`vision.reader.find_dice`, with a learned background for most
under-mount frames, as the box has one, and without for the others), so the crops are the boxes the reader
will classify; a box on a flat die takes the die's seen glyph, a box on a cocked die or matching no die is
"none". Jittered copies of each box and crops of the room and of half dice add to "none".

Calibration: renders of other seeds, never trained on, fit the softmax temperature and the confidence above
which a die is certain (wrong-but-certain at most `--silent-aim` of the held-back dice). Reproducible from
`--seed`; never run in CI (the tests run the shipped model).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import cv2
import numpy as np

from device.dice_sets import ids, spec
from training.calibration import certain_threshold, fit_temperature
from training.data import photometric_noise
from training.net import Adam, Net, softmax
from vision.classify import PAD, best_turn, crop_rect, normalise_batch, quarter_turns
from vision.dicesets import get_set
from vision.finder import outline_candidates
from vision.glyphs import face_glyph
from vision.reader import find_dice
from vision.render import DieSpec, render_tray

REPO = Path(__file__).resolve().parents[1]
SIZE = 48
CONVS = (12, 24, 48, 64)
NONE = "none"
BACKGROUNDS = ["wood", "felt", "white", "grey", "black", "blue", "red"]
LIGHTS = ["neutral", "warm", "cold", "dim", "glare"]
BODY_COLOURS = ["white", "ivory", "red", "yellow", "blue", "green", "purple", "black", "orange"]


def symbol_sets() -> list[dict]:
    """Every icon set the registered games describe (their `DiceSetSpec` dicts)."""
    return [spec(i) for i in ids() if spec(i).get("kind") == "icons"]


def glyph_classes(sets: list[dict]) -> list[str]:
    return sorted({f["glyph"] for s in sets for f in s["faces"]}) + [NONE]


def set_masks(sets: list[dict], classes: list[str]) -> np.ndarray:
    """(sets, classes) bool: the glyphs of each set, and "none"."""
    m = np.zeros((len(sets), len(classes)), bool)
    for i, s in enumerate(sets):
        for f in s["faces"]:
            m[i, classes.index(f["glyph"])] = True
        m[i, classes.index(NONE)] = True
    return m


def _frame(rng: np.random.Generator, ds_spec: dict) -> tuple[np.ndarray, list[DieSpec], str, np.ndarray | None]:
    """One rendered tray of one set: (frame, dice, mount, the background the finder is given)."""
    ds = get_set(ds_spec)
    mount = "under" if rng.random() < 0.6 else "over"
    colours = list(ds.colours) if ds.colours else BODY_COLOURS
    n = int(rng.integers(1, 7))
    dice: list[DieSpec] = []
    tries = 0
    while len(dice) < n and tries < 200:
        tries += 1
        size = float(rng.uniform(26, 96))
        m = size * 0.9 + 12
        x, y = float(rng.uniform(m, 640 - m)), float(rng.uniform(m, 480 - m))
        if any(math.hypot(x - o.x, y - o.y) < 0.9 * (size + o.size) for o in dice):
            continue
        tilt = float(rng.uniform(0.3, 0.9)) if rng.random() < 0.1 else 0.0
        colour = str(colours[int(rng.integers(0, len(colours)))])
        material = str(rng.choice(["plain", "plain", "plain", "marbled", "speckled", "translucent"]))
        dice.append(DieSpec(x, y, size, float(rng.uniform(0, 360)), int(rng.integers(1, ds.n + 1)), ds, colour,
                            tilt=tilt, material=material))
    bg_name = None if mount == "under" else BACKGROUNDS[int(rng.integers(0, len(BACKGROUNDS)))]
    light = LIGHTS[int(rng.integers(0, len(LIGHTS)))]
    room = int(rng.integers(0, 1 << 30))
    noise = float(rng.uniform(2, 8))
    frame = render_tray(dice, mount=mount, background=bg_name, lighting=light, seed=int(rng.integers(0, 1 << 30)),
                        room_seed=room, noise=noise)
    learned = None
    if rng.random() < (0.75 if mount == "under" else 0.4):
        learned = render_tray([], mount=mount, background=bg_name, lighting=light,
                              seed=int(rng.integers(0, 1 << 30)), room_seed=room, noise=noise)
    return frame, dice, mount, learned


def _crop(frame: np.ndarray, rect: tuple, mount: str) -> np.ndarray:
    c = crop_rect(frame, rect, PAD, SIZE)
    return c[:, ::-1] if mount == "under" else c


def samples(sets: list[dict], classes: list[str], n_frames: int, rng: np.random.Generator,
            augment: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(patches uint8 (n, 48, 48, 3), class index, set index) from `n_frames` rendered trays."""
    none = classes.index(NONE)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    ss: list[int] = []
    for _ in range(n_frames):
        si = int(rng.integers(0, len(sets)))
        frame, dice, mount, learned = _frame(rng, sets[si])
        ds = get_set(sets[si])
        for c in outline_candidates(find_dice(frame, mount, learned)):
            cx, cy, w, h = c.box
            near = [d for d in dice if math.hypot(d.x - cx, d.y - cy) < 0.3 * d.size]
            label = none
            if len(near) == 1 and near[0].tilt == 0 and max(w, h) < 2.0 * near[0].size:
                seen = ds.bottom_of(near[0].value) if mount == "under" else near[0].value
                label = classes.index(ds.face(seen).glyph)
            (rx, ry), (rw, rh), ang = c.rect
            rects = [c.rect]
            if augment and label != none:
                rects.append(((rx + float(rng.normal(0, 0.04)) * rw, ry + float(rng.normal(0, 0.04)) * rh),
                              (rw * float(rng.uniform(0.92, 1.1)), rh * float(rng.uniform(0.92, 1.1))),
                              ang + float(rng.normal(0, 3))))
            for b in rects:
                patch = _crop(frame, b, mount)
                xs.append(photometric_noise(patch, rng) if augment and rng.random() < 0.3 else patch)
                ys.append(label)
                ss.append(si)
        if not augment:
            continue
        for d in dice:  # what is not a die: half a die, and the room at a die's scale
            if rng.random() < 0.5:
                continue
            side = d.size * 1.3
            a = float(rng.uniform(0, 2 * math.pi))
            r = float(rng.uniform(0.55, 0.8))
            xs.append(_crop(frame, ((d.x + r * side * math.cos(a), d.y + r * side * math.sin(a)), (side, side),
                                    float(rng.uniform(0, 90))), mount))
            ys.append(none)
            ss.append(si)
            if rng.random() < 0.4:
                x, y = float(rng.uniform(side, 640 - side)), float(rng.uniform(side, 480 - side))
                if all(math.hypot(x - o.x, y - o.y) > 1.2 * (side + o.size) / 2 for o in dice):
                    xs.append(_crop(frame, ((x, y), (side, side), float(rng.uniform(0, 90))), mount))
                    ys.append(none)
                    ss.append(si)
    return np.asarray(xs, np.uint8), np.asarray(ys, np.int64), np.asarray(ss, np.int64)


def masked_softmax(logits: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    return softmax(np.where(allowed, logits, -1e9))


def upright_turns(x: np.ndarray, y: np.ndarray, classes: list[str]) -> np.ndarray:
    """For each crop, the quarter turns (anticlockwise) that make its face upright as drawn: the turn whose
    ink best matches the face's drawing (`vision.glyphs.face_glyph`); 0 for "none" and faceless drawings."""
    size = x.shape[1]
    inner = int(round(size / PAD))
    off = (size - inner) // 2
    templates = {}
    for g in set(classes) - {NONE}:
        t = np.zeros((size, size), np.float32)
        t[off:off + inner, off:off + inner] = cv2.resize(face_glyph(g, 96), (inner, inner),
                                                         interpolation=cv2.INTER_AREA)
        templates[g] = t - t.mean()
    out = np.zeros(len(x), np.int64)
    for i in range(len(x)):
        t = templates.get(classes[y[i]])
        if t is None or not t.any():
            continue
        gr = x[i].astype(np.float32).mean(-1)
        ink = np.abs(gr - np.median(gr))
        ink -= ink.mean()
        out[i] = int(np.argmax([float((np.rot90(ink, k) * t).sum()) for k in range(4)]))
    return out


def turn(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    return np.stack([np.rot90(c, int(q)) for c, q in zip(x, k, strict=True)])


def train(x: np.ndarray, y: np.ndarray, s: np.ndarray, k: np.ndarray, masks: np.ndarray, classes: int, seed: int,
          epochs: int, log=print) -> Net:
    rng = np.random.default_rng(seed)
    net = Net(classes, seed=seed, convs=CONVS, size=SIZE)
    opt = Adam(net.params, wd=5e-4)
    n, batch = len(x), 128
    steps = epochs * ((n + batch - 1) // batch)
    step = 0
    for ep in range(epochs):
        order = rng.permutation(n)
        t0, tot, right = time.time(), 0.0, 0
        for i in range(0, n, batch):
            idx = order[i:i + batch]
            xb = normalise_batch(turn(x[idx], k[idx]))
            xb = np.ascontiguousarray(xb[..., rng.permutation(3)])  # any body and ink colour: channels shuffled
            yb = y[idx]
            allowed = masks[s[idx]]
            lr = 0.5 * 2e-3 * (1 + np.cos(np.pi * step / steps))
            logits, _, cache = net.forward(xb, keep=True, drop=0.2, rng=rng)
            p = masked_softmax(logits, allowed)
            tot += float(-np.log(p[np.arange(len(yb)), yb] + 1e-9).sum())
            right += int((p.argmax(1) == yb).sum())
            d = p.copy()
            d[np.arange(len(yb)), yb] -= 1
            d /= len(yb)
            opt.step(net.params, net.backward(d.astype(np.float32), cache), lr)
            step += 1
        log(f"  epoch {ep + 1}/{epochs}: loss {tot / n:.4f}  train acc {right / n:.4f}  ({time.time() - t0:.0f} s)")
    return net


def calibrate(logits: np.ndarray, y: np.ndarray, allowed: np.ndarray, none: int,
              silent_aim: float) -> tuple[float, float, dict]:
    """(temperature, certain_at, figures) on held-back rendered boxes (logits of the four quarter turns of
    each, as the reader sees them): a die certain must be right; a box that is not a die and is read as a
    face counts as wrong."""
    allowed4 = np.repeat(allowed, 4, axis=0)

    def probs(t: float) -> np.ndarray:
        return best_turn(masked_softmax(logits / t, allowed4), none)

    best_t, best_nll = fit_temperature(probs, y, 40)
    p = probs(best_t)
    conf, pred = p.max(1), p.argmax(1)
    face = pred != none
    wrong = face & (pred != y)
    dice = int((y != none).sum())
    certain_at = certain_threshold(conf, wrong, silent_aim * dice, np.linspace(0.5, 0.9995, 400))
    sel = face & (conf >= certain_at)
    is_die = y != none
    figs = {"held_back_boxes": int(len(y)), "dice": dice,
            "accuracy_on_dice": float((pred[is_die] == y[is_die]).mean()),
            "certain_right_on_dice": float((sel & (pred == y) & is_die).sum() / max(dice, 1)),
            "silent_on_dice": float((wrong & sel).sum() / max(dice, 1)),
            "none_called_a_certain_face": int((sel & ~is_die).sum()), "nll": best_nll}
    return best_t, certain_at, figs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--frames", type=int, default=3500, help="rendered training frames")
    ap.add_argument("--calib-frames", type=int, default=1500, help="rendered frames held back for calibration")
    ap.add_argument("--epochs", type=int, default=18)
    ap.add_argument("--silent-aim", type=float, default=0.0005)
    ap.add_argument("--out", type=Path, default=REPO / "build" / "symbol-models")
    ap.add_argument("--cache", type=Path, default=None, help="keep the rendered training data here (npz)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    t0 = time.time()
    sets = symbol_sets()
    classes = glyph_classes(sets)
    masks = set_masks(sets, classes)
    rng = np.random.default_rng(args.seed)
    cache = args.cache / f"symbols-data-{args.seed}-{args.frames}-{len(classes)}.npz" if args.cache else None
    if cache is not None and cache.exists():  # the same seed and frames make the same data: skip rendering
        z = np.load(cache)
        x, y, s = z["x"], z["y"], z["s"]
    else:
        x, y, s = samples(sets, classes, args.frames, rng)
        if cache is not None:
            cache.parent.mkdir(parents=True, exist_ok=True)
            np.savez(cache, x=x, y=y, s=s)
    print(f"data: {len(sets)} sets, {len(classes)} classes, {len(x)} patches from {args.frames} frames, "
          f"none {int((y == classes.index(NONE)).sum())} ({time.time() - t0:.0f} s)")
    k = upright_turns(x, y, classes)
    print(f"upright turns: {np.bincount(k, minlength=4).tolist()} ({time.time() - t0:.0f} s)")
    net = train(x, y, s, k, masks, len(classes), args.seed, args.epochs)
    crng = np.random.default_rng(args.seed + 1_000_003)
    cx, cy, cs = samples(sets, classes, args.calib_frames, crng, augment=False)
    logits, _ = net.predict(normalise_batch(quarter_turns(cx)))  # the reader tries every turn, and so here
    temp, certain_at, figs = calibrate(logits, cy, masks[cs], classes.index(NONE), args.silent_aim)
    print(f"calibration on {len(cy)} held-back rendered boxes: T={temp:.2f} certain_at={certain_at:.4f} {figs}")
    args.out.mkdir(parents=True, exist_ok=True)
    net.to_onnx(str(args.out / "symbols.onnx"))
    meta = {"classes": classes, "kind": "symbols", "size": SIZE, "crop": "rect", "mirror_under": True,
            "orient": "turns",
            "temperature": temp, "certain_at": certain_at, "calibration": figs, "seed": args.seed,
            "epochs": args.epochs, "frames": args.frames, "sets": [st["id"] for st in sets],
            "train_seconds": round(time.time() - t0, 1),
            "sources": "renders only (vision/render.py, this repository's own drawings of the faces the games "
                       "describe); no photos"}
    (args.out / "symbols.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    print(f"done in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
