"""Can a small network tell a die leaning on a neighbour from one lying flat, from below? A probe, not shipped.

    OMP_NUM_THREADS=1 .venv/bin/python -m training.tilt_probe --train-seeds 2000-2029 \
        --test-seeds 1079-1106,1108,1131-1184 [--epochs 40] [--looks 4] [--pad 1.1] [--seed 55]

Why: four of the six silent dice of the 54th/55th sessions' design seeds lean on a neighbour (the renders'
`tilted` label: 15-25 degrees off the plate), and neither hand measures nor a head on the face network's
embedding told them from flat touching dice (docs/dice-sets.md, 55th session). This trains a small network of
its own on crops of touching dice at their true boxes (cut as the face network cuts them: `FaceClassifier.cut`'s
pad and size, from frames smoothed as it smooths them) in every camera look of the training seeds, and prints on
the test seeds' touching dice, at their true boxes: the AUC (leaning against flat) and how many flat dice are
doubted to catch half, 80% and 90% of the leaning ones. Nothing is written but what it prints.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch
from torch import nn

from training.blender_canvases import seed_list
from training.blender_undertray_canvases import camera_frame
from vision.classify import crop_patch, smoothed

ROOT = Path(__file__).resolve().parents[1] / "build" / "blender-undertray"
SIZE, PAD, SIGMA = 40, 1.1, 0.8   # the shipped d6 network's crop (vision/models/pips-under.json)


def crops(seeds: str, looks: int, pad: float = PAD) -> tuple[np.ndarray, np.ndarray]:
    """(n, SIZE, SIZE, 3) uint8 crops of every touching d6 die of the seeds' frames at its true box, in `looks`
    camera looks, and whether each leans (1) or lies flat (0)."""
    xs, ys = [], []
    for seed in seed_list(seeds):
        folder = ROOT / f"s{seed}"
        if not (folder / "labels.jsonl").exists():
            continue
        for line in open(folder / "labels.jsonl"):
            row = json.loads(line)
            dice = [d for d in row["dice"] if d["set"] == "d6" and d["touching"]]
            if not dice or row.get("cut"):
                continue
            for look in range(looks):
                img = camera_frame(folder, row, look=look)
                if img is None:
                    continue
                img = smoothed(img, SIGMA)
                xs += [crop_patch(img, tuple(d["box"]), pad=pad, size=SIZE) for d in dice]
                ys += [int(d["tilted"]) for d in dice]
    return np.stack(xs), np.array(ys, np.int64)


def network() -> nn.Module:
    """A small convolutional network: three 3x3 blocks, global average, one logit."""
    def block(a: int, b: int) -> list[nn.Module]:
        return [nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU(), nn.MaxPool2d(2)]
    return nn.Sequential(*block(3, 16), *block(16, 32), *block(32, 64), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Dropout(0.2), nn.Linear(64, 1))


def as_input(x: np.ndarray) -> torch.Tensor:
    """Crops as the network reads them: each normalised by its own mean and spread, channels first."""
    t = torch.tensor(x, dtype=torch.float32).permute(0, 3, 1, 2)
    flat = t.flatten(1)
    return (t - flat.mean(1)[:, None, None, None]) / (flat.std(1)[:, None, None, None] + 1e-3)


def train(x: np.ndarray, y: np.ndarray, epochs: int, seed: int) -> nn.Module:
    """Adam on class-balanced batches, each crop in a random quarter turn and mirror (a die lies any way)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net, xt, yt = network(), as_input(x), torch.tensor(y, dtype=torch.float32)
    opt = torch.optim.Adam(net.parameters(), lr=2e-3, weight_decay=1e-4)
    weights = np.where(y == 1, 0.5 / max(y.sum(), 1), 0.5 / max((1 - y).sum(), 1))
    for epoch in range(epochs):
        net.train()
        order = rng.choice(len(y), size=len(y), p=weights / weights.sum())
        total = 0.0
        for start in range(0, len(order), 128):
            idx = order[start:start + 128]
            batch = torch.rot90(xt[idx], int(rng.integers(4)), dims=(2, 3))
            batch = batch.flip(3) if rng.random() < 0.5 else batch
            loss = nn.functional.binary_cross_entropy_with_logits(net(batch).squeeze(1), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        print(f"  epoch {epoch + 1}/{epochs}: loss {total / len(order):.4f}", flush=True)
    return net


def scores(net: nn.Module, x: np.ndarray) -> np.ndarray:
    """The network's logit for each crop, the mean over its four quarter turns."""
    net.eval()
    with torch.no_grad():
        t = as_input(x)
        return np.mean([net(torch.rot90(t, k, dims=(2, 3))).squeeze(1).numpy() for k in range(4)], axis=0)


def auc(s: np.ndarray, y: np.ndarray) -> float:
    """The chance that a leaning die scores above a flat one (ties count half)."""
    lean, flat = s[y == 1], s[y == 0]
    return float((lean[:, None] > flat[None, :]).mean() + 0.5 * (lean[:, None] == flat[None, :]).mean())


def report(s: np.ndarray, y: np.ndarray) -> None:
    """AUC of leaning against flat, and the flat dice doubted to catch a share of the leaning ones."""
    lean, flat = s[y == 1], s[y == 0]
    print(f"test: {len(lean)} leaning, {len(flat)} flat touching dice; AUC {auc(s, y):.3f}")
    for share in (0.5, 0.8, 0.9):
        line = np.quantile(lean, 1 - share)
        print(f"  to doubt {share:.0%} of the leaning dice: {float((flat >= line).mean()):.1%} of the flat ones")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train-seeds", default="2000-2029")
    ap.add_argument("--test-seeds", default="1079-1106,1108,1131-1184")
    ap.add_argument("--looks", type=int, default=4, help="camera looks of each training frame")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--pad", type=float, default=PAD, help="the crop's side in box sides (more: the neighbour too)")
    ap.add_argument("--seed", type=int, default=55)
    args = ap.parse_args()
    torch.set_num_threads(1)
    x, y = crops(args.train_seeds, args.looks, args.pad)
    print(f"train: {len(y)} crops of touching dice, {int(y.sum())} leaning", flush=True)
    net = train(x, y, args.epochs, args.seed)
    tx, ty = crops(args.test_seeds, 1, args.pad)
    report(scores(net, tx), ty)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
