"""Train the learned die finder (`vision/detector.py`) with torch on the CPU and export it to ONNX for `cv2.dnn`.

    nice -n 10 python -m training.train_finder            # the shipped model (every photo; make train-finder)
    nice -n 10 python -m training.train_finder --suite    # + the bench's fold models (make train-finder-suite)

A small CenterNet-style network: an encoder that halves the frame five times, a top-down path back to a quarter
of the input with the encoder's maps added in, and a head of five maps at that quarter resolution: a die-centre
heatmap (focal loss on Gaussian bumps whose width follows the die), the die's width and height (log, in output
cells; L1 at the centre cell) and the centre's offset inside its cell (L1). Batch norm trains with the net and is
folded into the convolutions at export (eval mode), so the ONNX graph is Conv/Relu/Add/Resize only.

Data: every labelled die of the real photos (`training/data.py`: webcam-d6, MIT, matteop65/
Dice_Detection_Recognition; roboflow-d6, CC BY 4.0, Epanemu/GameDiceRecognition via Roboflow), each photo shrunk
by a random factor around the reader's (`scale`), cut to a random square window, turned by quarter turns,
mirrored, with its colours permuted, gained, blurred, noised and JPEG-compressed afresh every time;
with `--scenes N`, also N synthetic scenes of many small dice (`training/scenes.py`), and `--specks`: both
off by default, see `Setup.scenes`. Reproducible from `--seed` (same machine, same torch).

After export, cv2.dnn must give torch's outputs on a few photos (else the run fails). The shipped model leaves a
small input and its outputs in tests/vision/data for a test that the file still reads as trained.

`--suite` also trains the models the benches need, into build/finder-models/, split exactly as the classifier's
(`training/splits.py`): `cv<k>` (trained without the photos of fold k, which it then finds) and
`lodo-<dataset>` (trained without that dataset at all).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from training import undertray_data as ud
from training.blender_canvases import blender_frames, ensure, seed_list
from training.blender_undertray_factors import read_rows
from training.data import Photo, jpeg_again, load_photos, photo_sources
from training.provenance import REPO, SHIPPED, made_with, reference_path
from training.scenes import scenes
from training.splits import model_jobs, photo_sets
from vision.detector import DieDetector, prepare
from vision.find import at_finder_view


@dataclass(frozen=True)
class Setup:
    """What a run varies. The reader shrinks a frame by `scale` (at most `max_side` px long) before the net;
    training shrinks each photo by `scale` times a random factor in `zoom` (log-uniform): smaller and larger
    dice than the photos show, and the enlarged second read of a still photo (x1.5)."""

    widths: tuple[int, ...] = (12, 16, 32, 48, 64)
    head: int = 16
    stride: int = 4
    scale: float = 0.5
    max_side: int = 480
    zoom: tuple[float, float] = (0.6, 1.7)
    crop: int = 192
    batch: int = 12
    epochs: int = 30
    steps_per_epoch: int = 60
    lr: float = 4e-3
    wd: float = 1e-4
    # decoding, chosen on the accuracy bench's roboflow-d6 photos of fold 0 read with the fold-0 models (see
    # docs/dice-sets.md): a heatmap peak of `threshold` proposes a die (0.2: two more phantoms a photo for two
    # points more right; 0.1: fourteen more)
    threshold: float = 0.3
    top_k: int = 60
    # synthetic scenes (`training/scenes.py`: perspective cubes in packed rows, heaps and scatters, small dice
    # favoured) drawn once per run and sampled alongside the photos. Off: with 200 and specks 0.2 (seed 11) the
    # model trained without roboflow-d6 found 50.7% of its dice alone instead of 27.0% (precision 13.4% instead
    # of 46.1%), and the whole reader missed 15.50% instead of 18.29% but made 4494 phantoms instead of 2004;
    # the fold-0 model found 51.7% of its roboflow-d6 dice instead of 68.6% (under 25 px: 9.0% instead of 33.1%)
    scenes: int = 0
    # share of training windows given salt-and-pepper specks (as many roboflow-d6 photos carry); 0.2 in the
    # scene runs above (off by default, so that the shipped model's training stays as it was)
    specks: float = 0.0
    # Blender's renders (`training/blender_dice.py`, folders build/blender-dice/s<seed>) sampled alongside the
    # photos, shrunk `blender_zoom` times more than a photo (their dice are 60-120 px across, the photos'
    # smallest 20-30 px). Off by default: see docs/dice-sets.md for what they did to unseen photos
    blender: tuple[int, ...] = ()
    blender_zoom: float = 0.5
    # the under-tray renders (`training/blender_undertray.py`, seeds of build/blender-undertray/s<seed>; never
    # the test seeds 1-3), each frame through `undertray_variants` cameras (`undertray_data.refaulted`), sampled
    # alongside the photos at the photos' scale (their 320x240 frames shrink as the reader shrinks them).
    # Off by default: the shipped finder.onnx stays as it was; `--undertray 4-199` makes finder-under.onnx
    undertray: tuple[int, ...] = ()
    undertray_variants: int = 4
    # the last this many of those cameras on the frame's denoised copy (`undertray_data.variant_frame`),
    # as a camera without Cycles' grain shows the tray (docs/dice-sets.md, "Smooth frames from below":
    # trained so, the finder boxed dice no better)
    undertray_clean: int = 0
    # a factor (KEY=PREFIX, as `undertray_data.factor_matches`) whose under-tray frames are left out, for the
    # bench's held-out-factor lines (`bench/vision_undertray.py --hold-out`)
    undertray_hold_out: str = ""


# ----------------------------------------------------------------------------- the network

def _cbr(cin: int, cout: int, stride: int = 1) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]


class FinderNet(nn.Module):
    def __init__(self, s: Setup):
        super().__init__()
        c1, c2, c3, c4, c5 = s.widths
        h = s.head
        self.s2 = nn.Sequential(*_cbr(3, c1, 2))
        self.s4 = nn.Sequential(*_cbr(c1, c2, 2), *_cbr(c2, c2))
        self.s8 = nn.Sequential(*_cbr(c2, c3, 2), *_cbr(c3, c3))
        self.s16 = nn.Sequential(*_cbr(c3, c4, 2), *_cbr(c4, c4))
        self.s32 = nn.Sequential(*_cbr(c4, c5, 2), *_cbr(c5, c5))
        self.top = nn.Conv2d(c5, h, 1)
        self.lat16, self.lat8, self.lat4 = nn.Conv2d(c4, h, 1), nn.Conv2d(c3, h, 1), nn.Conv2d(c2, h, 1)
        self.m16, self.m8, self.m4 = (nn.Sequential(*_cbr(h, h)) for _ in range(3))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.out = nn.Sequential(*_cbr(h, h), nn.Conv2d(h, 5, 1))
        with torch.no_grad():
            self.out[-1].bias.zero_()
            self.out[-1].bias[0] = -math.log((1 - 0.05) / 0.05)  # a die is rare: start the heatmap low

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.s4(self.s2(x))
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        t = self.top(self.s32(f16))
        t = self.m16(self.up(t) + self.lat16(f16))
        t = self.m8(self.up(t) + self.lat8(f8))
        t = self.m4(self.up(t) + self.lat4(f4))
        return self.out(t)


# ----------------------------------------------------------------------------- samples

class Photos:
    """The training photos in memory (BGR uint8) with their dice boxes (n, 4: cx, cy, w, h)."""

    def __init__(self, photos: list[Photo], extra: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])):
        self.img: list[np.ndarray] = []
        self.box: list[np.ndarray] = []
        self.zoom: list[float] = []  # per image: a factor on its random shrink (`sample`)
        self.add(*extra)
        for p in photos:
            im = cv2.imread(str(p.path))
            if im is not None:
                self.add([im], [np.array([d.box for d in p.dice], np.float32).reshape(-1, 4)])

    def add(self, imgs: list[np.ndarray], boxes: list[np.ndarray], zoom: float = 1.0) -> None:
        """More images with their boxes, each shrunk `zoom` times more than a photo (Blender's large dice)."""
        self.img += imgs
        self.box += boxes
        self.zoom += [zoom] * len(imgs)

    def __len__(self) -> int:
        return len(self.img)


def sample(ph: Photos, s: Setup, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One training window (crop, crop, 3) uint8 and its dice boxes in window pixels."""
    i = int(rng.integers(len(ph)))
    img, boxes = ph.img[i], ph.box[i].copy()
    f = s.scale * ph.zoom[i] * math.exp(rng.uniform(math.log(s.zoom[0]), math.log(s.zoom[1])))
    h, w = img.shape[:2]
    nw, nh = max(8, int(round(w * f))), max(8, int(round(h * f)))
    small = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)
    boxes *= np.array([nw / w, nh / h, nw / w, nh / h], np.float32)
    c = s.crop
    # a window anywhere (dice or not), the short side padded by repeating its edge when smaller than the window
    if nw < c or nh < c:
        small = cv2.copyMakeBorder(small, 0, max(0, c - nh), 0, max(0, c - nw), cv2.BORDER_REPLICATE)
    x0 = int(rng.integers(0, small.shape[1] - c + 1))
    y0 = int(rng.integers(0, small.shape[0] - c + 1))
    win = small[y0:y0 + c, x0:x0 + c]
    boxes[:, 0] -= x0
    boxes[:, 1] -= y0
    k = int(rng.integers(4))
    for _ in range(k):  # a quarter turn anticlockwise: (x, y) -> (y, c - x)
        win = np.rot90(win)
        boxes = np.stack([boxes[:, 1], c - boxes[:, 0], boxes[:, 3], boxes[:, 2]], 1)
    if rng.random() < 0.5:
        win = win[:, ::-1]
        boxes[:, 0] = c - boxes[:, 0]
    return photometric(np.ascontiguousarray(win), rng, s.specks), boxes


def photometric(p: np.ndarray, rng: np.random.Generator, specks: float = 0.0) -> np.ndarray:
    """Colours permuted (no hue is special: the photos' dice are mostly white and a few colours), gain, offset,
    sometimes grey, blur, sensor noise, salt-and-pepper specks (in a `specks` share of windows), JPEG."""
    if rng.random() < 0.5:
        p = p[:, :, rng.permutation(3)]
    if rng.random() < 0.1:
        p = cv2.cvtColor(cv2.cvtColor(p, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    x = p.astype(np.float32)
    if rng.random() < 0.25:
        x = cv2.GaussianBlur(x, (0, 0), float(rng.uniform(0.4, 1.3)))
    gain = rng.uniform(0.65, 1.35, 3) if rng.random() < 0.4 else np.full(3, rng.uniform(0.6, 1.4))
    x = x * gain.astype(np.float32) + np.float32(rng.uniform(-35, 35))
    if rng.random() < 0.4:
        x += rng.normal(0, rng.uniform(1, 7), x.shape).astype(np.float32)
    out = np.clip(x, 0, 255).astype(np.uint8)
    if specks and rng.random() < specks:
        # salt-and-pepper specks (many roboflow-d6 photos carry them): dark and light dots that are not pips
        m = rng.random(out.shape[:2])
        d = float(rng.uniform(0.002, 0.03))
        out[m < d / 2] = int(rng.integers(0, 60))
        out[m > 1 - d / 2] = int(rng.integers(200, 256))
    return jpeg_again(out, rng, 0.25, worst=35)


def targets(boxes: np.ndarray, side: int, stride: int) -> tuple[np.ndarray, ...]:
    """(heatmap (g, g), size (2, g, g), offset (2, g, g), mask (g, g)) for a window's dice, g = side/stride. Each
    die is a Gaussian bump at its centre's cell, as wide as a sixth of the die; its size and offset are learnt
    at that cell only."""
    g = side // stride
    heat = np.zeros((g, g), np.float32)
    size = np.zeros((2, g, g), np.float32)
    off = np.zeros((2, g, g), np.float32)
    mask = np.zeros((g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for cx, cy, w, h in boxes:
        gx, gy = cx / stride, cy / stride
        ix, iy = int(math.floor(gx)), int(math.floor(gy))
        if not (0 <= ix < g and 0 <= iy < g) or min(w, h) < 2:
            continue
        sig = max(0.5, min(w, h) / stride / 6.0)
        heat = np.maximum(heat, np.exp(-((xx - ix) ** 2 + (yy - iy) ** 2) / (2 * sig * sig)))
        heat[iy, ix] = 1.0
        size[:, iy, ix] = (math.log(w / stride), math.log(h / stride))
        off[:, iy, ix] = (gx - ix, gy - iy)
        mask[iy, ix] = 1.0
    return heat, size, off, mask


def batch(ph: Photos, s: Setup, rng: np.random.Generator) -> tuple[torch.Tensor, ...]:
    xs, hs, ss, os_, ms = [], [], [], [], []
    for _ in range(s.batch):
        win, boxes = sample(ph, s, rng)
        xs.append(win)
        h, sz, off, m = targets(boxes, s.crop, s.stride)
        hs.append(h)
        ss.append(sz)
        os_.append(off)
        ms.append(m)
    x = (np.stack(xs).astype(np.float32) - 128.0) / 64.0
    return (torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2))), torch.from_numpy(np.stack(hs)),
            torch.from_numpy(np.stack(ss)), torch.from_numpy(np.stack(os_)), torch.from_numpy(np.stack(ms)))


# ----------------------------------------------------------------------------- training

def loss_of(out: torch.Tensor, heat: torch.Tensor, size: torch.Tensor, off: torch.Tensor,
            mask: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss on the heatmap (per die), L1 on log size and offset at centres."""
    p = torch.sigmoid(out[:, 0]).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    pos_loss = -(torch.log(p) * (1 - p) ** 2 * pos).sum()
    neg_loss = -(torch.log(1 - p) * p ** 2 * (1 - heat) ** 4 * (1 - pos)).sum()
    n = pos.sum().clamp(min=1)
    m = mask[:, None]
    reg = ((out[:, 1:3] - size).abs() * m).sum() / n + ((out[:, 3:5] - off).abs() * m).sum() / n
    return (pos_loss + neg_loss) / n + reg


def train(ph: Photos, s: Setup, seed: int, log=print) -> FinderNet:
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = FinderNet(s)
    steps = s.epochs * s.steps_per_epoch
    opt = torch.optim.AdamW(net.parameters(), lr=s.lr, weight_decay=s.wd)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=s.lr, total_steps=steps, pct_start=0.15)
    for ep in range(s.epochs):
        net.train()
        tot = 0.0
        t0 = time.time()
        for _ in range(s.steps_per_epoch):
            x, heat, size, off, mask = batch(ph, s, rng)
            loss = loss_of(net(x), heat, size, off, mask)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach())
        if log:
            log(f"  epoch {ep + 1}/{s.epochs}: loss {tot / s.steps_per_epoch:.4f}  ({time.time() - t0:.0f} s)")
    net.eval()
    return net


def export_onnx(net: FinderNet, path: Path) -> None:
    """ONNX with input "input" (1, 3, H, W), H and W free (multiples of 32), output "maps" (1, 5, H/4, W/4);
    batch norm folded into the convolutions (eval mode), opset 13, so `cv2.dnn` reads it."""
    net.eval()
    dummy = torch.zeros(1, 3, 256, 256)
    torch.onnx.export(net, (dummy,), str(path), input_names=["input"], output_names=["maps"],
                      dynamic_axes={"input": {2: "H", 3: "W"}, "maps": {2: "h", 3: "w"}},
                      opset_version=13, dynamo=False, do_constant_folding=True,
                      training=torch.onnx.TrainingMode.EVAL)


def torch_out(net: FinderNet, blob: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return net(torch.from_numpy(blob)).numpy()


def build(name: str, photos: list[Photo], out_dir: Path, s: Setup, seed: int, note: dict,
          check: list[Photo]) -> dict:
    t0 = time.time()
    ph = Photos(photos, scenes(s.scenes, seed) if s.scenes else ([], []))
    frames = blender_frames(ensure(list(s.blender))) if s.blender else ([], [])
    ph.add(*frames, zoom=s.blender_zoom)
    under = undertray_frames(s.undertray, s.undertray_variants, s.undertray_hold_out, s.undertray_clean) \
        if s.undertray else ([], [])
    ph.add(*under)
    if s.undertray:
        seeds = ",".join(map(str, s.undertray))
        note = {**note, "undertray_frames": {f.name: len(read_rows(f)) for f in ud.folders(seeds, finished=True)},
                "held_out_seeds": f"{ud.HELD_OUT_SEEDS},{ud.SYMBOL_HELD_OUT_SEEDS}",
                "held_out_factor": s.undertray_hold_out or None}
    print(f"[{name}] training on {len(photos)} photos, {s.scenes} synthetic scenes, {len(frames[0])} Blender "
          f"frames and {len(under[0])} under-tray frames, {sum(len(b) for b in ph.box)} dice", flush=True)
    net = train(ph, s, seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    onnx_path = out_dir / f"{name}.onnx"
    export_onnx(net, onnx_path)
    meta = {"kind": "die-centres", "outputs": "heatmap logit, log w, log h (output cells), offset x, y (cells)",
            "scale": s.scale, "max_side": s.max_side, "stride": s.stride, "multiple": 32,
            "input_size": f"the frame x {s.scale}, at most {s.max_side} px long, sides padded to a multiple of 32 "
                          f"(a 640x640 photo: 320x320; 640x480: 320x256); trained on {s.crop} px windows",
            "input": "BGR, (pixel - 128) / 64, NCHW, sides padded to a multiple of 32 by repeating the edge",
            "threshold": s.threshold, "top_k": s.top_k, "seed": seed, "setup": asdict(s), "trained_on": note,
            "train_seconds": round(time.time() - t0, 1), "made_with": made_with(),
            "sources": photo_sources(note["photos"])}
    (out_dir / f"{name}.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    # the exported graph must answer as torch does, through cv2.dnn (the reader's own path), on whole photos
    dnn = DieDetector(onnx_path, meta)
    worst = 0.0
    for p in check:
        img = cv2.imread(str(p.path))
        blob, _ = prepare(img, s.scale, s.max_side)
        a, b = torch_out(net, blob), dnn.raw(blob)
        worst = max(worst, float(np.abs(a - b).max()) / max(1.0, float(np.abs(a).max())))
    if worst > 1e-3:
        raise RuntimeError(f"[{name}] cv2.dnn and torch disagree on the exported model (max rel diff {worst:.3g})")
    print(f"[{name}] exported {onnx_path} ({onnx_path.stat().st_size / 1024:.0f} KB); cv2.dnn = torch within "
          f"{worst:.1e} on {len(check)} photos; {time.time() - t0:.0f} s", flush=True)
    if name == "finder":
        # a small stored input (a 96x96 window of a photo at the reader's scale) and the outputs it gives
        img = cv2.imread(str(check[0].path))
        d = check[0].dice[0].box
        small = cv2.resize(img, None, fx=s.scale, fy=s.scale, interpolation=cv2.INTER_AREA)
        cx, cy = int(d[0] * s.scale), int(d[1] * s.scale)
        x0 = min(max(0, cx - 48), small.shape[1] - 96)
        y0 = min(max(0, cy - 48), small.shape[0] - 96)
        win = np.ascontiguousarray(small[y0:y0 + 96, x0:x0 + 96])
        blob = (win.astype(np.float32) - 128.0) / 64.0
        blob = np.ascontiguousarray(blob.transpose(2, 0, 1)[None])
        ref = reference_path(out_dir, "finder_reference.npz")
        ref.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(ref, window=win, maps=torch_out(net, blob).astype(np.float32),
                            source=np.array(f"{check[0].dataset}/{check[0].path.name}"))
    return meta


def undertray_frames(seeds: tuple[int, ...], variants: int, hold_out: str = "", clean: int = 0
                     ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The under-tray training frames (every one whose dice the frame's edge does not cut: an unlabelled die
    would teach that a die there is floor, and none with the factor `hold_out`), each through `variants`
    cameras (the last `clean` of them on its denoised copy), and their dice boxes."""
    test = set(seed_list(ud.HELD_OUT_SEEDS)) | set(seed_list(ud.SYMBOL_HELD_OUT_SEEDS))
    if test & set(seeds):
        raise SystemExit(f"the under-tray test seeds {ud.HELD_OUT_SEEDS} and {ud.SYMBOL_HELD_OUT_SEEDS} are "
                         "never trained on")
    imgs, boxes = [], []
    for folder, row in ud.frames(",".join(map(str, seeds)), lambda r: not r.get("cut") and not (
            hold_out and ud.factor_matches(r, hold_out))):
        for k in range(variants):
            img = ud.variant_frame(folder, row, k, variants, clean)
            if img is not None:
                box = np.array([d["box"] for d in row["dice"]], np.float32).reshape(-1, 4)
                imgs.append(at_view(img))
                boxes.append(box * at_finder_view(img))
    return imgs, boxes


def at_view(img: np.ndarray) -> np.ndarray:
    """A frame larger than the view the reader searches under the tray (`find.at_finder_view`: the hero
    dice's 640x480 renders) shrunk to it, as the reader shrinks it: the finder learns every die at the size
    it will be asked to find it."""
    k = at_finder_view(img)
    return img if k >= 1.0 else cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--epochs", type=int, default=Setup.epochs)
    ap.add_argument("--steps", type=int, default=Setup.steps_per_epoch, help="batches per epoch")
    # one thread: on the shared two-core machine under load, two threads spent their time waiting on each other
    # (a training step 2.6 s with two threads, 0.15 s with one, 2026-11-23)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (the machine is shared)")
    ap.add_argument("--scenes", type=int, default=Setup.scenes, help="synthetic scenes added to the photos")
    ap.add_argument("--specks", type=float, default=Setup.specks, help="share of windows given salt-and-pepper")
    ap.add_argument("--blender", default="", help="Blender folder seeds sampled with the photos, e.g. 1-2 (off)")
    ap.add_argument("--blender-zoom", type=float, default=Setup.blender_zoom,
                    help="Blender frames shrunk this much more than photos")
    ap.add_argument("--undertray", default="", help="under-tray render seeds sampled with the photos, e.g. 4-199 "
                    "(off; with it the model is named finder-under, the reader's finder for --mount under)")
    ap.add_argument("--clean-variants", type=int, default=0, help="with --undertray: the last this many of a "
                    "frame's camera looks drawn on its denoised copy (training/denoise_undertray.py)")
    ap.add_argument("--hold-out", default="", help="with --undertray: leave out every under-tray frame with this "
                    "factor (KEY=PREFIX); the model is then build/finder-models/finder-under-without-KEY-PREFIX")
    ap.add_argument("--suite", action="store_true", help="also train the fold models for the benches")
    ap.add_argument("--photo-sets", default="",
                    help="comma-separated pip-d6 photo sets to train on (default: the shipped model's; "
                    "`--suite` then leaves each out in turn)")
    ap.add_argument("--only", default="", help="comma-separated model names to train (finder, cv0, lodo-...)")
    ap.add_argument("--out", type=Path, default=SHIPPED)
    ap.add_argument("--suite-out", type=Path, default=REPO / "build" / "finder-models")
    args = ap.parse_args(argv)
    undertray = tuple(int(f.name[1:]) for f in ud.folders(args.undertray, finished=True))

    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    s = Setup(epochs=args.epochs, steps_per_epoch=args.steps, scenes=args.scenes, specks=args.specks,
              blender=tuple(seed_list(args.blender)), blender_zoom=args.blender_zoom, undertray=undertray,
              undertray_hold_out=args.hold_out, undertray_clean=args.clean_variants)
    t0 = time.time()
    sets = photo_sets(args.photo_sets)
    photos = [p for name in sets for p in load_photos(name)]
    check = [photos[0], photos[-1]]
    name = "finder-under" if undertray else "finder"
    if args.hold_out:
        name, args.out = f"finder-under-without-{args.hold_out.replace('=', '-')}", args.suite_out
    jobs = model_jobs(name, photos, args.out, args.suite, args.suite_out, sets)
    only = {n for n in args.only.split(",") if n}
    for name, pool, out, note in jobs:
        if not only or name in only:
            build(name, pool, out, s, args.seed, note, check)
    print(f"done in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
