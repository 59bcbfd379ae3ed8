"""Dice Throne's corner numbers from below: a small network trained on drawn faces, and its probe.

    .venv/bin/python -m training.dicethrone_corners --seeds 400-406 [--samples 40000] [--steps 3000]

Why: every Dice Throne hero's face carries its index as a small number in the face's top-left corner, and that
number alone names the face (three faces share the barbarian's sword). The face networks tried so far had to
find that number anywhere in a 48-64 px crop at any turn, and never fitted even their own training dice
(docs/dice-sets.md, "Dice Throne from below"). Here the outline stage does the finding: the die's outline
rectangle (`find.find_dice` with the room), shrunk to the printed face inside the die's rounded edges
(`--insets`), cuts the face out upright along its own edges (`crop_rect`), and of its four quarter turns the
one whose top-left corner holds a number gives the face. (Not mirrored: the face on the glass is seen from
outside the die, as printed: read mirrored, 1 of 12 rendered dice came out right, as printed 9 of 12;
`vision.glyphs.GLASS_MIRRORS`.) A small one-channel network reads each turn's top-left corner patch (the face
along its colours' main axis, `vision.corner_numbers.INK_AXIS`; the shipped network learnt lightness patches):
six numbers or "no number" (the other corners hold a piece of the icon).

The network trains on drawn corners only (`corner_sample`: the atlases' own faces, `corner_face_mask`, in the
printings' colours, turned a little, shrunk to a die's size under the tray, grained, blurred, JPEG'd); the
Blender frames from below are never trained on, so every rendered die read here is out of its sample. But the
drawn faces share the renders' fonts (the printings' OpenCV Hershey fonts): a real die's own font is a
printing no part of this has seen. The held-out printing (`DT_HELD_OUT_PRINTING`) and heroes are left out of
the drawings. Prints figures; `--export PATH` writes the network the reader runs
(vision/models/corner-numbers.onnx and its JSON).
"""

from __future__ import annotations

import argparse
import colorsys
import json
import time
from pathlib import Path

import cv2
import numpy as np

from training.blender_canvases import seed_list
from training.blender_undertray_canvases import FRAMES, camera_frame
from training.blender_undertray_factors import (
    COLOURS,
    DT_FACES,
    DT_HELD_OUT,
    DT_HELD_OUT_PRINTING,
    DT_PRINTINGS,
    read_rows,
)
from training.blender_undertray_glyphs import corner_face_mask
from training.onnx_pools import rewrite as pools_as_slices_in
from vision.classify import crop_rect
from vision.corner_numbers import corner_patches as vision_corner_patches
from vision.corner_numbers import die_axis, face_grey, normalised
from vision.find import find_dice
from vision.onnx_net import load_net

FACE = 96          # the upright face crop's side
PATCH = 32         # the corner patch's side as the network reads it
CORNER = 0.46      # the share of the face's side the corner patch spans (the number's centre is at 0.23)
NONE = 0           # class 0: no number in this corner; classes 1-6 the number


def bgr(hsv: tuple[float, float, float]) -> np.ndarray:
    r, g, b = colorsys.hsv_to_rgb(*hsv)
    return np.array([b, g, r], np.float32) * 255.0


def corner_sample(rng: np.random.Generator, speckle: bool = False) -> tuple[list[np.ndarray], int]:
    """A drawn face, degraded as a die under the tray is, as four corner patches (turn 0's holds the number,
    the label) of its upright crop. `speckle`: most faces also get heavy-tailed coloured grain at the frame's
    pixels, as a path tracer's few samples a pixel leave on Blender's frames (and a small sensor in a dim
    box)."""
    heroes = [h for h in DT_FACES if h not in DT_HELD_OUT]
    printings = [p for name, p in DT_PRINTINGS.items() if name != DT_HELD_OUT_PRINTING]
    hero, p = heroes[rng.integers(len(heroes))], printings[rng.integers(len(printings))]
    face = int(rng.integers(1, 7))
    ink = corner_face_mask(DT_FACES[hero][face - 1], face, p, 128).astype(np.float32)[..., None] / 255.0
    body, colour = bgr(COLOURS[p.body]), bgr(p.ink)
    light = rng.uniform(0.35, 1.2) * rng.uniform(0.85, 1.15, 3).astype(np.float32)
    img = ((body * (1 - ink) + colour * ink) * light).clip(0, 255)
    # the die's rounded edge around the printed face, shaded, where the outline is cut wider than the face
    rim = int(rng.integers(0, 15))
    img = cv2.resize(cv2.copyMakeBorder(img, rim, rim, rim, rim, cv2.BORDER_CONSTANT,
                                        value=(body * light * rng.uniform(0.3, 0.9)).tolist()), (128, 128))
    # the crop as the outline cuts it: a little off square, turned and shifted by the outline's error
    m = cv2.getRotationMatrix2D((64, 64), rng.uniform(-8, 8), rng.uniform(0.92, 1.08))
    m[:, 2] += rng.normal(0, 3, 2)
    img = cv2.warpAffine(img, m, (128, 128), borderMode=cv2.BORDER_REPLICATE)
    side = int(rng.integers(40, 110))   # the face's side in the frame's pixels
    small = cv2.resize(img, (side, side), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.3))
    if speckle and rng.random() < 0.7:
        small = small + rng.laplace(0, rng.uniform(5, 35), small.shape)
    small = (small + rng.normal(0, rng.uniform(3, 22), small.shape)).clip(0, 255).astype(np.uint8)
    _, jpg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 95))])
    crop = cv2.resize(cv2.imdecode(jpg, cv2.IMREAD_COLOR), (FACE, FACE), interpolation=cv2.INTER_LINEAR)
    return corner_patches(crop), face


def corner_patches(crop: np.ndarray) -> list[np.ndarray]:
    """The four corner patches of an upright face crop, as the reader cuts them (`vision.corner_numbers`)."""
    return vision_corner_patches(face_grey(crop, die_axis(crop)), CORNER, PATCH)


def drawn_set(n: int, seed: int, speckle: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for _ in range(n):
        patches, face = corner_sample(rng, speckle)
        xs += patches
        ys += [face, NONE, NONE, NONE]
    return np.stack(xs), np.asarray(ys)


def train(x: np.ndarray, y: np.ndarray, steps: int, seed: int, rendered: tuple | None = None,
          render_weight: float = 0.0):
    """The network fitted to drawn patches (x, y) and, with `rendered` (four patches and the number of each
    rendered die, `rendered_training`), to those dice too, their loss weighed `render_weight`."""
    import torch
    from torch import nn
    torch.manual_seed(seed)
    net = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Flatten(), nn.Linear(64 * 16, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 7))
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 4e-3, total_steps=steps)
    xt, yt = torch.from_numpy(normalised(x)), torch.from_numpy(y)
    # the numbers are a quarter of the patches: weigh the classes alike
    weight = torch.tensor(len(y) / (7 * np.bincount(y, minlength=7).clip(1)), dtype=torch.float32)
    gen = torch.Generator().manual_seed(seed)
    net.train()
    for step in range(steps):
        i = torch.randint(len(yt), (128,), generator=gen)
        xb = xt[i] * torch.where(torch.rand(128, 1, 1, 1, generator=gen) < 0.5, -1.0, 1.0)
        loss = nn.functional.cross_entropy(net(xb), yt[i], weight=weight)
        if rendered is not None and render_weight > 0:
            loss = loss + render_weight * rendered_loss(net, rendered, gen)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 500 == 0:
            print(f"  step {step}: loss {loss.item():.3f}", flush=True)
    return net.eval()


def rendered_loss(net, rendered: tuple, gen, batch: int = 32):
    """The loss on a batch of rendered dice whose number is known but not the turn that shows it: each of the
    four turns may be the one (its patch the number, the other three none), and the loss is that of all four
    hypotheses together (-log of the sum of their likelihoods). Why: the labels say each die's face, not how
    it lies, and a turn guessed by the network before would teach it its own mistakes."""
    import torch
    patches, numbers = rendered
    i = torch.randint(len(numbers), (batch,), generator=gen)
    x = patches[i] * torch.where(torch.rand(batch, 1, 1, 1, 1, generator=gen) < 0.5, -1.0, 1.0)
    logp = torch.log_softmax(net(x.reshape(-1, *x.shape[2:])), 1).reshape(batch, 4, -1)
    none = logp[:, :, NONE]
    number = logp.gather(2, numbers[i].view(-1, 1, 1).expand(-1, 4, 1)).squeeze(2)
    return -torch.logsumexp(number - none + none.sum(1, keepdim=True), 1).mean()


def rendered_training(seeds: str, root: Path, inset: float) -> tuple:
    """Tensors (n, 4, 1, PATCH, PATCH) of the rendered dice's corner patches, normalised, and (n,) their
    numbers, for `rendered_loss`."""
    import torch
    dice = rendered_dice(seeds, root, inset)
    patches = np.stack([normalised(d[0]) for d in dice])
    return torch.from_numpy(patches), torch.tensor([d[1] for d in dice])


def rendered_dice(seeds: str, root: Path, inset: float, first: int = 0
                  ) -> list[tuple[np.ndarray, int, str, str, bool]]:
    """(four corner patches, glass face, hero, printing, touching) of each Dice Throne die the reader's
    outline finder (with the frame's empty tray as its room) found in the seeds' frames, its outline shrunk
    by `inset` to the printed face, from frame `first` on; a die it found no outline for is left out
    (counted)."""
    out, missed = [], 0
    for seed in seed_list(seeds):
        folder = root / f"s{seed}"
        if not (folder / "labels.jsonl").exists():
            continue
        for row in read_rows(folder):
            frame, empty = camera_frame(folder, row), camera_frame(folder, row, empty=True)
            if row["index"] < first or frame is None or empty is None or row.get("cut"):
                continue
            blobs = find_dice(frame, "under", empty)
            for die in row["dice"]:
                near = [b for b in blobs if _on_die(b.rect, die["box"])]
                if not near:
                    missed += 1
                    continue
                (x, y), (w, h), turn = near[0].rect
                crop = crop_rect(frame, ((x, y), (w * inset, h * inset), turn), pad=1.0, size=FACE)
                out.append((np.stack(corner_patches(crop)), int(die["glass"]), die["set"].split(":")[1],
                            die["printing"], bool(die["touching"])))
    print(f"rendered dice with an outline: {len(out)}; without one (left out): {missed}")
    return out


def _on_die(rect: tuple, box: list[float]) -> bool:
    """Whether an outline rectangle is the labelled die's: centred within 0.3 of its box, about its size."""
    (x, y), sides, _ = rect
    cx, cy, w, h = box
    return abs(x - cx) < 0.3 * w and abs(y - cy) < 0.3 * h and 0.6 * max(w, h) < max(sides) < 1.3 * max(w, h)


def read(net, patches: np.ndarray) -> tuple[int, float]:
    """The number read from a die's four corner patches and the probability it was read with: the turn and
    number the network is surest of (either polarity of the patch)."""
    import torch
    with torch.no_grad():
        x = torch.from_numpy(normalised(patches))
        p = (torch.softmax(net(x), 1) + torch.softmax(net(-x), 1)).numpy() / 2
    turn, number = np.unravel_index(p[:, 1:].argmax(), p[:, 1:].shape)
    return int(number) + 1, float(p[turn, number + 1])


def report(got: list[tuple[tuple[int, float], tuple]]) -> None:
    """Right and wrong at several levels of the network's probability, and right by kind of die."""
    for level in (0.0, 0.5, 0.8, 0.9, 0.95):
        sure = [(n, d) for (n, c), d in got if c >= level]
        right = sum(n == d[1] for n, d in sure)
        print(f"read at p >= {level:.2f}: {len(sure)} of {len(got)} dice, right {right} "
              f"({100 * right / max(len(sure), 1):.1f}% of those), wrong {len(sure) - right}")
    for name, pick in (("held-out printing", lambda d: d[3] == DT_HELD_OUT_PRINTING),
                       ("held-out heroes", lambda d: d[2] in DT_HELD_OUT), ("touching", lambda d: d[4]),
                       ("apart", lambda d: not d[4])):
        part = [(n, d) for (n, c), d in got if pick(d)]
        right = sum(n == d[1] for n, d in part)
        print(f"  {name:<18} {right} of {len(part)} right ({100 * right / max(len(part), 1):.1f}%)")


def export(net, path: Path, meta: dict) -> None:
    """The network as ONNX for cv2.dnn (input "patches" (n, 1, PATCH, PATCH) as `normalised` makes them,
    output "logits"), checked to answer as torch does, and its JSON: the crop's geometry, how it was made."""
    import torch

    from training.provenance import made_with
    x = torch.from_numpy(normalised(drawn_set(16, 99)[0]))
    torch.onnx.export(net, x, str(path), input_names=["patches"], output_names=["logits"],
                      dynamic_axes={"patches": {0: "n"}, "logits": {0: "n"}}, opset_version=13, dynamo=False)
    pools_as_slices_in(path)   # the same answers, sooner in cv2.dnn (training.onnx_pools)
    dnn = cv2.dnn.readNetFromONNX(str(path))
    dnn.setInput(x.numpy())
    with torch.no_grad():
        gap = float(np.abs(dnn.forward() - net(x).numpy()).max())
    if gap > 1e-3:
        raise SystemExit(f"{path}: cv2.dnn answers {gap} away from torch")
    meta = {"kind": "corner-numbers", "made_by": "training/dicethrone_corners.py", "face": FACE,
            "patch": PATCH, "corner": CORNER, **meta,
            "made_with": made_with()}
    meta.setdefault("trained_on", "drawn faces only (corner_sample), no render")
    path.with_suffix(".json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    print(f"wrote {path} ({path.stat().st_size} bytes), cv2.dnn within {gap:.1e} of torch")


def trained(args: argparse.Namespace):
    """The network trained as the arguments say: drawn faces, and the rendered dice of `--renders` if any."""
    t0 = time.time()
    x, y = drawn_set(args.samples, args.seed, args.speckle)
    print(f"drawn: {len(y)} patches in {time.time() - t0:.0f} s", flush=True)
    rendered = None
    if args.renders:
        rendered = rendered_training(args.renders, args.root, float(args.insets.split(",")[0]))
        print(f"rendered dice trained on: {len(rendered[1])} (seeds {args.renders})", flush=True)
    return train(x, y, args.steps, args.seed, rendered, args.render_weight)


def export_meta(args: argparse.Namespace) -> dict:
    """What the exported network's JSON says of how it was made."""
    meta = {"samples": args.samples, "steps": args.steps, "seed": args.seed, "speckle": args.speckle,
            "inset": float(args.insets.split(",")[0])}
    if args.renders:
        meta.update(renders=args.renders, render_weight=args.render_weight,
                    trained_on=f"drawn faces (corner_sample) and the Dice Throne dice of Blender seeds "
                               f"{args.renders} (their outlines as the reader's finder cuts them)")
    return meta


class OnnxNet:
    """An exported corner network answering as the torch one does in `read` (logits for (n, 1, s, s))."""

    def __init__(self, path: Path):
        self.net = load_net(path)   # as the reader loads it (`vision.onnx_net`)

    def __call__(self, x):
        import torch
        self.net.setInput(np.ascontiguousarray(x.numpy()))
        return torch.from_numpy(self.net.forward().copy())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="400-406", help="Dice Throne render seeds to read (none trained on)")
    ap.add_argument("--root", type=Path, default=FRAMES)
    ap.add_argument("--samples", type=int, default=30000, help="drawn faces to train on (four patches each)")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--model", type=Path, default=Path("build/reader-models/dicethrone-corners.pt"),
                    help="the trained network is kept here, and read from here with --read-only")
    ap.add_argument("--read-only", action="store_true", help="read the renders with the kept network")
    ap.add_argument("--read-onnx", type=Path, default=None, help="read the renders with this exported "
                    "network (e.g. the shipped vision/models/corner-numbers.onnx) and train nothing")
    ap.add_argument("--renders", default="", help="Blender seeds whose Dice Throne dice are trained on too "
                    "(`rendered_loss`; never the test seeds 400-401, whose heroes and printing are held out)")
    ap.add_argument("--render-weight", type=float, default=1.0, help="the rendered dice's loss beside the "
                    "drawn patches'")
    ap.add_argument("--speckle", action="store_true", help="train on faces with heavy-tailed grain too "
                    "(`corner_sample`)")
    ap.add_argument("--export", type=Path, default=None, help="also write the network as ONNX here (and its "
                    "JSON beside it), as the reader loads it (vision/corner_numbers.py)")
    ap.add_argument("--insets", default="0.8", help="the printed face's share of the die's outline (several: "
                    "each read in turn, to choose one on seeds other than the test seeds 400-401)")
    ap.add_argument("--first-frame", type=int, default=0, help="read each seed's frames from this one on "
                    "(frames 0-5 of seed 400 were looked at to find how the crop lies)")
    args = ap.parse_args()
    import torch
    t0 = time.time()
    if args.read_onnx:
        net = OnnxNet(args.read_onnx)
    elif args.read_only:
        net = torch.load(args.model, weights_only=False).eval()
    else:
        net = trained(args)
        args.model.parent.mkdir(parents=True, exist_ok=True)
        torch.save(net, args.model)
    if args.export:
        export(net, args.export, export_meta(args))
    xv, yv = drawn_set(2000, args.seed + 1, args.speckle)
    drawn_right = np.mean([read(net, xv[i:i + 4])[0] == yv[i] for i in range(0, len(yv), 4)])
    print(f"drawn faces held back (2000): number right {100 * drawn_right:.1f}%")
    for inset in (float(v) for v in args.insets.split(",")):
        print(f"== seeds {args.seeds}, outline inset {inset}")
        report([(read(net, d[0]), d) for d in rendered_dice(args.seeds, args.root, inset, args.first_frame)])
    print(f"done in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
