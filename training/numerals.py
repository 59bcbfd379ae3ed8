"""Train the numeral-face classifier (`vision/models/numerals.onnx`): d12, d20 and other dice with plain numbers.

    nice -n 15 env OMP_NUM_THREADS=1 python -m training.numerals [--seed 5] [--frames 1500] [--epochs 12]

Needs the `train` extra (torch, CPU build). The shipped model was trained with these defaults (seed 5, about
8 minutes on one shared core; an earlier numpy trainer took 28 minutes and named fewer unseen dice);
its crops come from the reader's own finder, so a later finder may give other crops.

Data:
- real photos: ../shared/datasets/d20-numerals (single d20s of several materials on wood, white and coloured
  backgrounds; labels MIT by rsandrini over CC0 photos by Mario Lurig: see that folder's LICENSE and
  SOURCE.txt). Its own "train" photos, less every fifth (by name), are trained on; its "test" photos and
  that fifth are held back to calibrate. The dataset has no 4, 6, 16 or 19: renders supply them.
- renders (`vision/render.py`): the Mage Wars d12 and dice drawn with any numeral 1-20 on pentagonal and
  square faces, many colours, plain/marbled/speckled/translucent, both mounts, with and without a learned
  background; cocked dice are "none".
- polyhedral-numerals is never used here: it is the unseen test (`bench/vision_numerals.py`).

Each crop is the reader's own: the finder (`vision.reader.find_dice`) runs on every photo and render, and a
blob is cut as `vision.numerals.die_square` says, turned so that its number is upright (give or take 25
degrees; the reader looks at eight angles 45 degrees apart). A render's upright angle is known; a photo's is
not (the labels name the number only), so training runs twice: renders first, then each photo is turned to
the angle at which that first model is surest of the photo's label (of 24 angles), and the model trains on
with the photos. Blobs that are no die, half dice and the room are "none", at any angle.

Calibration: the held-back photos and renders of other seeds, read as the reader reads them (`looks`, `pick`),
fit the softmax temperature and the confidence above which the CNN alone is sure (wrong-but-certain at most
`--silent-aim` of the held-back dice). Reproducible from `--seed`; never run in CI.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from training.calibration import certain_threshold, fit_temperature
from training.data import datasets_root, photometric_noise
from training.net import softmax
from training.provenance import made_with
from vision.classify import normalise_batch
from vision.glyphs import face_glyph, seen_mirrored
from vision.numerals import LOOKS, NONE, PAD, SIZE, die_square, looks, numeral_crop, pick
from vision.reader import find_dice
from vision.render import COLOURS, INKS, DieSpec, default_ink, render_tray

if TYPE_CHECKING:  # torch is in the train extra only
    from training.torch_net import FaceNet

REPO = Path(__file__).resolve().parents[1]
CLASSES = [str(i) for i in range(1, 21)] + [NONE]
CONVS = (16, 32, 48)
HIDDEN = 64      # (its own: the pip classifier's Setup grew wider)
BACKGROUNDS = ["wood", "felt", "white", "grey", "black", "blue", "red"]
LIGHTS = ["neutral", "warm", "cold", "dim", "glare"]
MATERIALS = ["plain", "plain", "marbled", "speckled", "translucent"]
SPREAD = 25.0  # degrees a training crop is turned off its upright angle, at most
ALIGN = 24     # angles a training photo is tried at to find its upright one


def numeral_set(n: int, shape: str, marks: bool = False) -> dict:
    """A numeral die spec (faces 1..n, "text:N", opposite faces summing to n + 1); `marks`: the 6 and the 9
    underlined, as most real dice mark them."""
    def glyph(i: int) -> str:
        return f"text:{i}" + ("_" if marks and i in (6, 9) else "")

    return {"id": f"num{n}-{shape}{'-marked' if marks else ''}", "name": {"en": f"d{n}"}, "kind": "numerals",
            "shape": shape, "faces": [{"index": i, "name": str(i), "value": i, "glyph": glyph(i)} for i in range(1, n + 1)],
            "opposite": {str(i): n + 1 - i for i in range(1, n + 1)}}


def d20_photos() -> tuple[list[tuple[Path, int]], list[tuple[Path, int]]]:
    """(training, held-back) d20-numerals photos with their numbers."""
    root = datasets_root() / "d20-numerals"
    train, held = [], []
    for i, label in enumerate(sorted((root / "labels").glob("*.json"))):
        d = json.loads(label.read_text())
        image = root / "images" / (label.stem + ".jpg")
        if len(d["dice"]) != 1 or not image.exists():
            continue
        item = (image, int(d["dice"][0]["value"]))
        (held if d.get("split") == "test" or i % 5 == 0 else train).append(item)
    return train, held


def _the_die(blobs: list, w: int, h: int) -> int | None:
    """The blob that is the photo's one die: the largest near the middle."""
    best, area = None, 0.0
    for i, b in enumerate(blobs):
        cx, cy, side = die_square(b)
        if abs(cx - w / 2) < 0.3 * w and abs(cy - h / 2) < 0.3 * h and side >= 20 and b.area > area:
            best, area = i, b.area
    return best


def _jittered(img: np.ndarray, cx: float, cy: float, side: float, rng: np.random.Generator, mirror: bool,
              angle: float, noise: float = 0.4) -> np.ndarray:
    s = side * float(rng.uniform(0.9, 1.12))
    c = numeral_crop(img, cx + float(rng.normal(0, 0.04)) * side, cy + float(rng.normal(0, 0.04)) * side, s,
                     angle + float(rng.uniform(-SPREAD, SPREAD)), mirror)
    return photometric_noise(c, rng, small_dice=True) if rng.random() < noise else c


def _none_crops(img: np.ndarray, cx: float, cy: float, side: float, rng: np.random.Generator, mirror: bool,
                avoid: list[tuple[float, float, float]]) -> list[np.ndarray]:
    """Half a die, and the room at a die's scale (away from every die in `avoid`)."""
    out = []
    a, r = float(rng.uniform(0, 2 * math.pi)), float(rng.uniform(0.55, 0.85))
    out.append(numeral_crop(img, cx + r * side * math.cos(a), cy + r * side * math.sin(a), side,
                            float(rng.uniform(0, 360)), mirror))
    H, W = img.shape[:2]
    x, y = float(rng.uniform(0, W)), float(rng.uniform(0, H))
    if all(math.hypot(x - ax, y - ay) > 0.8 * (side + s) for ax, ay, s in avoid):
        out.append(numeral_crop(img, x, y, side * float(rng.uniform(0.7, 1.3)), float(rng.uniform(0, 360)), mirror))
    return out


def photo_dice(photos: list[tuple[Path, int]], rng: np.random.Generator) -> tuple[list, list, list]:
    """(dice: (image, cx, cy, side, value) of each photo whose die the finder finds, "none" crops, their labels)."""
    dice, xs, ys = [], [], []
    for image, value in photos:
        img = cv2.imread(str(image))
        blobs = find_dice(img, "over")
        k = _the_die(blobs, img.shape[1], img.shape[0])
        if k is None:
            continue
        cx, cy, side = die_square(blobs[k])
        dice.append((img, cx, cy, side, value))
        for j, b in enumerate(blobs):
            bx, by, bs = die_square(b)
            if j != k and math.hypot(bx - cx, by - cy) > 0.6 * side:
                xs.append(numeral_crop(img, bx, by, bs, float(rng.uniform(0, 360))))
                ys.append(len(CLASSES) - 1)
        for c in _none_crops(img, cx, cy, side, rng, False, [(cx, cy, side)]):
            xs.append(c)
            ys.append(len(CLASSES) - 1)
    return dice, xs, ys


def align(net: FaceNet, dice: list) -> np.ndarray:
    """Each photo's upright angle (deg): of ALIGN angles, the one at which `net` gives its label most."""
    angles = np.arange(ALIGN) * 360.0 / ALIGN
    out = np.zeros(len(dice))
    for i in range(0, len(dice), 32):
        part = dice[i:i + 32]
        crops = np.stack([numeral_crop(img, cx, cy, side, a) for img, cx, cy, side, _ in part for a in angles])
        logits = predict(net, normalise_batch(crops))
        p = softmax(logits).reshape(len(part), ALIGN, -1)
        for j, (*_, value) in enumerate(part):
            out[i + j] = angles[int(p[j, :, value - 1].argmax())]
    return out


def photo_samples(dice: list, angles: np.ndarray, rng: np.random.Generator, per_die: int) -> tuple[list, list]:
    xs, ys = [], []
    for (img, cx, cy, side, value), a in zip(dice, angles, strict=True):
        for _ in range(per_die):
            xs.append(_jittered(img, cx, cy, side, rng, False, float(a)))
            ys.append(value - 1)
    return xs, ys


def held_photos(photos: list[tuple[Path, int]]) -> tuple[np.ndarray, np.ndarray]:
    """The held-back photos as the reader sees them: every blob's upright crop; the die's labelled, the rest
    "none"; a photo whose die the finder does not find gives nothing (the reader misses it too)."""
    xs, ys = [], []
    for image, value in photos:
        img = cv2.imread(str(image))
        blobs = find_dice(img, "over")
        k = _the_die(blobs, img.shape[1], img.shape[0])
        for j, b in enumerate(blobs):
            cx, cy, side = die_square(b)
            xs.append(looks(img, cx, cy, side))
            ys.append(value - 1 if j == k else len(CLASSES) - 1)
    return np.concatenate(xs) if xs else np.zeros((0, SIZE, SIZE, 3), np.uint8), np.asarray(ys, np.int64)


BODY = {"id": "body", "name": {"en": "body"}, "kind": "icons", "shape": "pentagon",
        "faces": [{"index": 1, "name": "a", "glyph": "blank"}, {"index": 2, "name": "b", "glyph": "blank"}],
        "opposite": {"1": 2, "2": 1}}


def _neighbours(frame: np.ndarray, d: DieSpec, body: float, mount: str, rng: np.random.Generator) -> None:
    """Numbers of the faces around the top one, painted on the die's body (between the top face's outline and
    the body's), each turned along its own face, as a d12 or d20 seen from above shows them."""
    ink = np.array(INKS[d.pip_colour or default_ink(d.colour)], np.float32)
    k = int(rng.integers(3, 6))
    phase = float(rng.uniform(0, 2 * math.pi))
    r = 0.62 * d.size * (1 + body) / 2
    side = int(0.7 * d.size)
    for j in range(k):
        a = phase + 2 * math.pi * j / k
        number = f"text:{int(rng.integers(1, 21))}"
        g = face_glyph(number, 96, mirrored=seen_mirrored(mount)).astype(np.float32)
        g = cv2.resize(g, (side, side), interpolation=cv2.INTER_AREA)
        R = cv2.getRotationMatrix2D((side / 2, side / 2), -math.degrees(a) - 90 + float(rng.normal(0, 10)), 1.0)
        g = cv2.warpAffine(g, R, (side, side))
        x0, y0 = int(d.x + r * math.cos(a) - side / 2), int(d.y + r * math.sin(a) - side / 2)
        H, W = frame.shape[:2]
        if x0 < 0 or y0 < 0 or x0 + side > W or y0 + side > H:
            continue
        roi = frame[y0:y0 + side, x0:x0 + side].astype(np.float32)
        al = (0.85 * g)[..., None]
        frame[y0:y0 + side, x0:x0 + side] = (roi * (1 - al) + ink * al).astype(np.uint8)


def _frame(rng: np.random.Generator) -> tuple[np.ndarray, list[DieSpec], str, np.ndarray | None]:
    """One rendered tray of numeral dice: (frame, dice (their top faces), mount, the background the finder is
    given). Half the dice show their body around the top face, with the neighbouring faces' numbers."""
    # the Mage Wars d12 (its 6 and 9 unmarked), the same marked, and d20-like numbers on other outlines
    spec = [numeral_set(12, "pentagon"), numeral_set(12, "pentagon", True), numeral_set(20, "pentagon", True),
            numeral_set(20, "square", True)][int(rng.choice(4, p=[0.3, 0.2, 0.3, 0.2]))]
    mount = "under" if rng.random() < 0.5 else "over"
    n = int(rng.integers(1, 5))
    dice: list[DieSpec] = []
    bodies: list[float] = []  # per die: the body's size over the top face's (0: no body drawn)
    tries = 0
    colours = list(COLOURS)
    while len(dice) < n and tries < 200:
        tries += 1
        size = float(rng.uniform(24, 80))
        body = float(rng.uniform(1.35, 1.6)) if rng.random() < 0.5 else 0.0
        reach = size * max(body, 1.0)
        m = reach * 0.9 + 12
        x, y = float(rng.uniform(m, 640 - m)), float(rng.uniform(m, 480 - m))
        if any(math.hypot(x - o.x, y - o.y) < 0.9 * (reach + o.size * max(ob, 1.0)) for o, ob in zip(dice, bodies, strict=True)):
            continue
        colour = colours[int(rng.integers(0, len(colours)))]
        ink = str(rng.choice(["black", "white", "gold", "red", "blue"])) if rng.random() < 0.3 else None
        if ink is not None and ink == colour:
            ink = None
        tilt = float(rng.uniform(0.3, 0.9)) if rng.random() < 0.08 else 0.0
        dice.append(DieSpec(x, y, size, float(rng.uniform(0, 360)), int(rng.integers(1, len(spec["faces"]) + 1)),
                            spec, colour, pip_colour=ink, tilt=tilt, blur=float(rng.uniform(0, 3)) if rng.random() < 0.1
                            else 0.0, material=str(rng.choice(MATERIALS))))
        bodies.append(body)
    under = [DieSpec(d.x, d.y, d.size * b, d.angle + 36.0, 1, BODY, d.colour, material=d.material)
             for d, b in zip(dice, bodies, strict=True) if b]
    bg = None if mount == "under" else BACKGROUNDS[int(rng.integers(0, len(BACKGROUNDS)))]
    light = LIGHTS[int(rng.integers(0, len(LIGHTS)))]
    room, noise = int(rng.integers(0, 1 << 30)), float(rng.uniform(2, 8))
    frame = render_tray(under + dice, mount=mount, background=bg, lighting=light, seed=int(rng.integers(0, 1 << 30)),
                        room_seed=room, noise=noise)
    for d, b in zip(dice, bodies, strict=True):
        if b:
            _neighbours(frame, d, b, mount, rng)
    learned = None
    if rng.random() < (0.7 if mount == "under" else 0.3):
        learned = render_tray([], mount=mount, background=bg, lighting=light, seed=int(rng.integers(0, 1 << 30)),
                              room_seed=room, noise=noise)
    return frame, dice, mount, learned


def render_samples(n_frames: int, rng: np.random.Generator, augment: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Crops of rendered numeral dice (the seen face's numeral, unmirrored as `read_numeral` cuts them)."""
    xs, ys = [], []
    none = len(CLASSES) - 1
    for _ in range(n_frames):
        frame, dice, mount, learned = _frame(rng)
        mirror = seen_mirrored(mount)
        for b in find_dice(frame, mount, learned):
            cx, cy, side = die_square(b)
            near = [d for d in dice if math.hypot(d.x - cx, d.y - cy) < 0.3 * d.size]
            label = none
            if len(near) == 1 and near[0].tilt == 0 and near[0].blur < 2 and side < 2.0 * near[0].size:
                d = near[0]
                spec = d.dice_set
                seen = spec["opposite"][str(d.value)] if mount == "under" else d.value
                label = seen - 1
            if augment:
                up = near[0].angle if label != none else float(rng.uniform(0, 360))
                for _ in range(2 if label != none else 1):
                    xs.append(_jittered(frame, cx, cy, side, rng, mirror, up, noise=0.3))
                    ys.append(label)
            else:
                xs.append(looks(frame, cx, cy, side, mirror))
                ys.append(label)
        if augment:
            for d in dice:
                if rng.random() < 0.5:
                    for c in _none_crops(frame, d.x, d.y, d.size * 1.3, rng, mirror,
                                         [(o.x, o.y, o.size * 1.3) for o in dice]):
                        xs.append(c)
                        ys.append(none)
    if not augment:  # every blob's LOOKS crops, one after the other
        return (np.concatenate(xs) if xs else np.zeros((0, SIZE, SIZE, 3), np.uint8)), np.asarray(ys, np.int64)
    return np.asarray(xs, np.uint8), np.asarray(ys, np.int64)


def train(x: np.ndarray, y: np.ndarray, seed: int, epochs: int, net=None, lr0: float = 3e-3, log=print):
    """Train `net` (a new `training.torch_net.FaceNet` when None: batch norm, folded at export) on the crops,
    `epochs` passes of AdamW with a one-cycle rate from `lr0`. Classes are weighted towards equal weight
    (capped at 4: the numbers the photos lack are rarer); each batch is shown in both polarities (light
    numbers on dark dice and dark on light) and with its colour channels in any order (any hue)."""
    # torch is in the train extra only, which the reader never needs: imported here, where training starts
    import torch
    import torch.nn.functional as F

    from training.torch_net import FaceNet, Setup

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = net or FaceNet(Setup(size=SIZE, pad=PAD, convs=CONVS, hidden=HIDDEN), classes=len(CLASSES))
    counts = np.bincount(y, minlength=len(CLASSES)).astype(np.float64)
    wcls = torch.tensor(np.minimum(counts.sum() / np.maximum(counts, 1) / len(CLASSES), 4.0), dtype=torch.float32)
    n, batch = len(x), 128
    opt = torch.optim.AdamW(net.parameters(), lr=lr0, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr0, total_steps=epochs * ((n + batch - 1) // batch),
                                                pct_start=0.15)
    for ep in range(epochs):
        net.train()
        order = rng.permutation(n)
        t0, tot, right = time.time(), 0.0, 0
        for i in range(0, n, batch):
            idx = order[i:i + batch]
            xb = normalise_batch(x[idx])
            inv = rng.random(len(idx)) < 0.3
            xb[inv] = -xb[inv]
            xb = np.ascontiguousarray(xb[..., rng.permutation(3)].transpose(0, 3, 1, 2))
            yb = torch.from_numpy(y[idx])
            logits, _ = net(torch.from_numpy(xb))
            loss = F.cross_entropy(logits, yb, weight=wcls)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach()) * len(idx)
            right += int((logits.argmax(1) == yb).sum())
        log(f"  epoch {ep + 1}/{epochs}: loss {tot / n:.4f}  train acc {right / n:.4f}  ({time.time() - t0:.0f} s)",
            flush=True)
    net.eval()
    return net


def predict(net: FaceNet, x: np.ndarray) -> np.ndarray:
    """Logits of normalised crops (n, SIZE, SIZE, 3)."""
    from training.torch_net import logits_of  # torch: the train extra only

    return logits_of(net, x)


def export(net: FaceNet, path: Path) -> None:
    from training.torch_net import Setup, export_onnx  # torch: the train extra only

    export_onnx(net, Setup(size=SIZE, pad=PAD, convs=CONVS, hidden=HIDDEN), str(path))


def calibrate(net: FaceNet, x: np.ndarray, y: np.ndarray, allowed: np.ndarray, silent_aim: float) -> tuple[float, float, dict]:
    """(temperature, certain_at, figures) on held-back blobs (`x`: LOOKS crops of each, as the reader takes them):
    a die certain must be right; a blob that is no die read as a sure face counts as wrong."""
    none = len(CLASSES) - 1
    logits = predict(net, normalise_batch(x))
    mask = np.repeat(allowed, LOOKS, axis=0)

    def probs(t: float) -> np.ndarray:
        return pick(softmax(np.where(mask, logits / t, -1e9)), none)

    best_t, best_nll = fit_temperature(probs, y, 40)
    p = probs(best_t)
    conf, pred = p.max(1), p.argmax(1)
    wrong = (pred != none) & (pred != y)
    certain_at = certain_threshold(conf, wrong, silent_aim * int((y != none).sum()), np.linspace(0.5, 0.9995, 400))
    figs = figures(p, y, certain_at)
    figs["nll"] = round(best_nll, 4)
    return best_t, certain_at, figs


def figures(p: np.ndarray, y: np.ndarray, certain_at: float) -> dict:
    none = len(CLASSES) - 1
    conf, pred = p.max(1), p.argmax(1)
    face = pred != none
    wrong = face & (pred != y)
    is_die = y != none
    dice = int(is_die.sum())
    sel = face & (conf >= certain_at)
    return {"held_back_blobs": int(len(y)), "dice": dice,
            "accuracy_on_dice": round(float((pred[is_die] == y[is_die]).mean()), 4),
            "certain_right_on_dice": round(float((sel & (pred == y) & is_die).sum() / max(dice, 1)), 4),
            "silent_on_dice": round(float((wrong & sel & is_die).sum() / max(dice, 1)), 4),
            "no_die_called_a_sure_face": int((sel & ~is_die).sum())}


def allowed_for(n: np.ndarray) -> np.ndarray:
    """(len(n), classes) bool: numerals 1..n[i] and "none"."""
    k = np.arange(len(CLASSES))
    return (k[None, :] < n[:, None]) | (k[None, :] == len(CLASSES) - 1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--frames", type=int, default=1500, help="rendered training frames")
    ap.add_argument("--calib-frames", type=int, default=300, help="rendered frames held back for calibration")
    ap.add_argument("--per-photo", type=int, default=8, help="jittered crops of each training photo's die")
    ap.add_argument("--first-epochs", type=int, default=4, help="epochs on renders alone (to align the photos)")
    ap.add_argument("--epochs", type=int, default=12, help="epochs with the photos")
    ap.add_argument("--realign", type=int, default=4, help="epochs after aligning the photos again (0: none)")
    ap.add_argument("--silent-aim", type=float, default=0.002)
    ap.add_argument("--out", type=Path, default=REPO / "vision" / "models")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    t0 = time.time()
    rng = np.random.default_rng(args.seed)
    train_photos, held = d20_photos()
    dice, nx, ny = photo_dice(train_photos, rng)
    rx, ry = render_samples(args.frames, rng)
    base_x = np.concatenate([np.asarray(nx, np.uint8), rx])
    base_y = np.concatenate([np.asarray(ny, np.int64), ry])
    print(f"data: {len(dice)} of {len(train_photos)} training photos' dice found, {args.frames} rendered frames -> "
          f"{len(base_x)} crops ({time.time() - t0:.0f} s)", flush=True)
    net = train(base_x, base_y, args.seed, args.first_epochs)
    angles = align(net, dice)
    print(f"photos aligned ({time.time() - t0:.0f} s)", flush=True)
    px, py = photo_samples(dice, angles, rng, args.per_photo)
    x = np.concatenate([np.asarray(px, np.uint8), base_x])
    y = np.concatenate([np.asarray(py, np.int64), base_y])
    print(f"with the photos: {len(x)} crops, per class {np.bincount(y, minlength=len(CLASSES)).tolist()}", flush=True)
    net = train(x, y, args.seed + 1, args.epochs, net)
    if args.realign:
        # the first model hardly read a photo: turn them again with the model that learnt from them, go on
        angles = align(net, dice)
        px, py = photo_samples(dice, angles, rng, args.per_photo)
        x = np.concatenate([np.asarray(px, np.uint8), base_x])
        print(f"photos aligned again ({time.time() - t0:.0f} s)", flush=True)
        net = train(x, y, args.seed + 2, args.realign, net, lr0=1e-3)
    hx, hy = held_photos(held)
    crng = np.random.default_rng(args.seed + 1_000_003)
    cx, cy = render_samples(args.calib_frames, crng, augment=False)
    # the photos are d20s (numerals 1-20); the renders' sets are read over 1-20 too (the d12 would be
    # over 1-12 in the reader: a softmax over more numerals is the stricter test)
    allowed = allowed_for(np.full(len(hy) + len(cy), 20))
    temp, certain_at, figs = calibrate(net, np.concatenate([hx, cx]), np.concatenate([hy, cy]), allowed,
                                       args.silent_aim)
    logits = predict(net, normalise_batch(hx))
    photo_figs = figures(pick(softmax(logits / temp), len(CLASSES) - 1), hy, certain_at)
    print(f"calibration: T={temp:.2f} certain_at={certain_at:.4f} {figs}\n  held-back photos alone: {photo_figs}")
    args.out.mkdir(parents=True, exist_ok=True)
    export(net, args.out / "numerals.onnx")
    meta = {"classes": CLASSES, "kind": "numerals", "size": SIZE, "pad": PAD, "temperature": temp, "certain_at": certain_at,
            "calibration": figs, "calibration_photos_alone": photo_figs, "seed": args.seed, "trainer": "torch", "first_epochs": args.first_epochs, "epochs": args.epochs, "realign": args.realign,
            "frames": args.frames, "per_photo": args.per_photo, "train_seconds": round(time.time() - t0, 1), "made_with": made_with(),
            "sources": "d20-numerals (labels MIT by rsandrini, photos CC0 by Mario Lurig; see "
                       "shared/datasets/d20-numerals/LICENSE and SOURCE.txt) and this repository's renders"}
    (args.out / "numerals.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    print(f"done in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
