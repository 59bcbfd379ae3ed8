"""Experiment: does the d6 face network from below name more faces surely when it also sees the empty tray?

    OMP_NUM_THREADS=1 .venv/bin/python -m training.room_input --arm frame --out build/room-input
    OMP_NUM_THREADS=1 .venv/bin/python -m training.room_input --arm room --out build/room-input
    .venv/bin/python -m training.room_input --judge build/room-input --dev-seeds 1079-1106,1108,1131-1164
    ... --arm diff; --arm frame --hold-out plate=glass; --arm frame --share 0.558; --judge ... --arms a,b,c

Why: from below, the plate mirrors the LED ring and the box's board over every die (issue 31 #8). On fresh
seeds 1145-1164 the shipped reader was certain and right of 77.7% of the dice in cross-polarised builds (no
reflections) and 59.0% in the others; a ring of small bright spots over a face reads as pips. The reflections
are light the plate adds in front of the die, the same with or without dice above it, so the box's learned
room (the empty tray) holds them where they lie. Subtracting them by hand (`vision.reflections`, 30th session)
did not help. Here a network learns from both pictures: each die's crop and the same box cut from its empty
tray, in the same camera look, as six input channels (arm "room"), or the crop and the crop less its empty
tray (arm "diff"), against the same network, data and seed on the crop alone (arm "frame"). All are trained
from fresh weights on the under-tray renders only, so none is the shipped network; what the experiment
measures is the difference between the arms.

Judged given each die's true box on seeds the arms never trained on: right, and certain and right at the level
where the judged dice's certain-and-wrong share is 0.1%, 0.25% and 0.5% (a level fitted on the judged dice
themselves, alike for every arm: this compares how well the arms' confidence parts right from wrong, it is not
a figure for a shipped reader). Nothing here is read by the box; the reader takes a room input only if this
says it pays, which it did not (docs/dice-sets.md, 53rd session: "room" worse, "diff" as good as "frame").
The frame arm's recipe also measures whole factors held out (`--hold-out`) against as many frames drawn at
random (`--share`), and so a learning curve over the frames from below.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from training.canvas import canvas
from training.torch_net import FaceNet, Setup, augment, logits_of
from training.undertray_data import factor_matches, frames, is_calibration, variant_frame
from vision.classify import FaceClassifier, crop_patch, normalise_batch, smoothed

SETUP = Setup(size=40, pad=1.10, norm="rgb", convs=(32, 64, 96), separable=True, hidden=96, bn=True,
              epochs=30, lr=3e-3, batch=128, neg_frac=0.25, small=0.3, flip=0.5)
# canvas side (the box fills its middle third: `training.canvas.REACH`); the shipped trainer's is 128, so
# these arms learn from slightly softer crops than they are judged on, alike for every arm
CANVAS = 96
LOOKS = 4          # camera looks of each training frame (`undertray_data.variant_frame`)
SMOOTH = 0.8       # every frame and empty tray smoothed as the shipped network's crops are
TRAIN_SEEDS = "82-87,2000-2013"   # finished seeds only: a cache is named by its seeds, not its frames
SILENT_LEVELS = (0.001, 0.0025, 0.005)
ROOM_ARMS = ("room", "diff")   # the arms that read a second picture: the empty tray, or the frame less it


def arm_kind(name: str) -> str:
    """The arm a trained network's file is of ("room-v1-shared-noise" is a "room" arm, "file" a frame's)."""
    return next((kind for kind in ROOM_ARMS if name.startswith(kind)), "frame")


def pair_canvases(rows: list[tuple[Path, dict]], looks: int = LOOKS) -> tuple[np.ndarray, np.ndarray]:
    """Each labelled die's canvas of its frame and of its empty tray in the same camera look, as (n, CANVAS,
    CANVAS, 6) uint8 (frame BGR, then room BGR), and its class (glass face - 1)."""
    xs, ys = [], []
    for folder, row in rows:
        for k in range(looks):
            img = variant_frame(folder, row, k, looks, 0)
            empty = variant_frame(folder, row, k, looks, 0, empty=True)
            if img is None or empty is None:
                continue
            img, empty = smoothed(img, SMOOTH), smoothed(empty, SMOOTH)
            for die in row["dice"]:
                box = tuple(die["box"])
                xs.append(np.concatenate([canvas(img, box, CANVAS), canvas(empty, box, CANVAS)], axis=2))
                ys.append(int(die["glass"]) - 1)
    return np.stack(xs), np.array(ys, np.int64)


def cached_pairs(out: Path, seeds: str, hold_out: str = "", share: float = 1.0
                 ) -> tuple[np.ndarray, np.ndarray]:
    """`pair_canvases` of the training frames of `seeds` (less the held-back fifth, and every frame with the
    factor `hold_out`, KEY=PREFIX, where one is named; `share` < 1: that share of the frames, drawn by seed
    and index), made once into `out`."""
    path = out / f"pairs-{seeds}{held_out_tag(hold_out, share)}.npz"
    if not path.exists():
        x, y = pair_canvases(frames(seeds, keep=lambda row: not is_calibration(row) and not (
            hold_out and factor_matches(row, hold_out)) and drawn(row, share)))
        out.mkdir(parents=True, exist_ok=True)
        np.savez(path, x=x, y=y)
    data = np.load(path)
    return data["x"], data["y"]


def drawn(row: dict, share: float) -> bool:
    """Whether a frame is among `share` of the frames, drawn by its seed and index alone. Why: a network
    trained without a factor learns from fewer frames; one trained on as few frames drawn at random is the
    control that says how much of its loss on that factor is the factor's, not the frames' number."""
    return share >= 1.0 or random.Random(row["seed"] * 1009 + row["index"]).random() < share


def held_out_tag(hold_out: str, share: float = 1.0) -> str:
    """A file name's part for a held-out factor and a share of the frames ("" for none)."""
    tag = f"-without-{hold_out.replace('=', '-').replace('*', 'any')}" if hold_out else ""
    return tag + (f"-share-{share:g}" if share < 1.0 else "")


def room_net(s: Setup) -> FaceNet:
    """`FaceNet` whose first convolution reads six channels: the crop and the room's crop."""
    net = FaceNet(s)
    first = net.features[0]
    net.features[0] = nn.Conv2d(6, first.out_channels, 3, padding=1, bias=first.bias is not None)
    return net


def augmented(cv: torch.Tensor, y: torch.Tensor, arm: str, s: Setup, g: torch.Generator
              ) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch of pair canvases through `torch_net.augment`, both pictures as one camera's (cut, turned, lit
    and coloured alike, each with its own noise and normalised on its own); arm "frame": the frame alone."""
    n = len(y)
    upright, is_die = torch.zeros(n, dtype=torch.bool), torch.ones(n, dtype=torch.bool)
    if arm == "diff":
        cv = torch.cat([cv[:, :3], difference(cv[:, :3], cv[:, 3:])], 1)
    return augment(cv if arm in ROOM_ARMS else cv[:, :3], y, upright, is_die, s, g)


Picture = torch.Tensor | np.ndarray


def difference(frame: Picture, room: Picture) -> Picture:
    """The frame less its empty tray, about mid-grey (uint8): arm "diff"'s second picture. Why: the plate's
    reflections are the same in both and cancel; a network shown the two pictures each normalised on its own
    (arm "room") cannot subtract them."""
    if isinstance(frame, np.ndarray):
        return np.clip(frame.astype(np.int16) - room.astype(np.int16) + 128, 0, 255).astype(np.uint8)
    return (frame.to(torch.int16) - room.to(torch.int16) + 128).clamp(0, 255).to(torch.uint8)


def train_arm(x: np.ndarray, y: np.ndarray, arm: str, s: Setup, seed: int, log=print) -> FaceNet:
    """One arm trained from fresh weights, seeded as the other (the room's own noise takes more draws, so the
    two arms' draws part after the first batch)."""
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    net = room_net(s) if arm in ROOM_ARMS else FaceNet(s)
    cv = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
    yt = torch.from_numpy(y)
    steps = s.epochs * math.ceil(len(y) / s.batch)
    opt = torch.optim.AdamW(net.parameters(), lr=s.lr, weight_decay=s.wd)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=s.lr, total_steps=steps, pct_start=0.15)
    for ep in range(s.epochs):
        net.train()
        order = torch.randperm(len(y), generator=g)
        right = 0
        for i in range(0, len(y), s.batch):
            idx = order[i:i + s.batch]
            xb, yb = augmented(cv[idx], yt[idx], arm, s, g)
            logits, _ = net(xb)
            loss = F.cross_entropy(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            right += int((logits.argmax(1) == yb).sum())
        log(f"  {arm} epoch {ep + 1}/{s.epochs}: train acc {right / len(y):.4f}")
    net.eval()
    return net


def judged_inputs(seeds: str, arm: str, s: Setup, factor: str = ""
                  ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The network inputs of every die of `seeds` (of the frames with `factor` only, where one is named) at
    its true box as the reader cuts it (`crop_patch`, each picture normalised on its own), its class, and its
    frame's build (the glare measures it has)."""
    xs, ys, builds = [], [], []
    with_factor = (lambda row: factor_matches(row, factor)) if factor else (lambda row: True)
    for folder, row in frames(seeds, keep=with_factor, finished=False):
        img, empty = variant_frame(folder, row, 0, 1, 0), variant_frame(folder, row, 0, 1, 0, empty=True)
        if img is None or empty is None or row.get("cut"):
            continue
        boxes = [tuple(d["box"]) for d in row["dice"]]
        img, empty = smoothed(img, SMOOTH), smoothed(empty, SMOOTH)
        parts = [img] + ([empty] if arm == "room" else [difference(img, empty)] if arm == "diff" else [])
        cut = [normalise_batch(np.stack([crop_patch(p, b, s.pad, s.size) for b in boxes])) for p in parts]
        xs.append(np.concatenate(cut, axis=3))
        ys += [int(d["glass"]) - 1 for d in row["dice"]]
        builds += [row["factors"]["build"]] * len(boxes)
    return np.concatenate(xs), np.array(ys), builds


def sure_right_at(p: np.ndarray, y: np.ndarray, silent: float) -> tuple[float, float]:
    """(level, share certain and right) at the lowest level leaving at most `silent` of the dice certain and
    wrong (fitted on these very dice: the arms' separation of right from wrong, not a reader's figure)."""
    conf, right = p.max(1), p.argmax(1) == y
    order = np.argsort(-conf)
    wrong_so_far = np.cumsum(~right[order])
    ok = np.nonzero(wrong_so_far <= silent * len(y))[0]
    last = int(ok[-1]) if len(ok) else -1
    return (float(conf[order][last]) if last >= 0 else 1.0), float(right[order][:last + 1].sum() / len(y))


def judge_lines(net: FaceNet | FaceClassifier, arm: str, seeds: str, s: Setup, factor: str = "") -> list[str]:
    """The arm's figures on `seeds`, all dice and by whether the build is cross-polarised; `net` a shipped
    `FaceClassifier` (arm "frame"'s inputs, read by `cv2.dnn`, "not a die" left out) for comparison."""
    x, y, builds = judged_inputs(seeds, arm_kind(arm), s, factor)
    if isinstance(net, FaceClassifier):
        p = net.run(x, np.arange(len(net.classes)) < 6)[0]
    else:
        z = logits_of(net, x)
        p = np.exp(z - z.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
    polarised = np.array(["cross-polarised" in b for b in builds])
    lines = []
    for name, keep in (("all", np.ones(len(y), bool)), ("cross-polarised", polarised),
                       ("not cross-polarised", ~polarised)):
        acc = float((p[keep].argmax(1) == y[keep]).mean())
        sure = [sure_right_at(p[keep], y[keep], a) for a in SILENT_LEVELS]
        cells = "  ".join(f"at {100 * a:.2f}% wrong: {100 * sr:6.2f}% (level {lv:.4f})"
                          for a, (lv, sr) in zip(SILENT_LEVELS, sure, strict=True))
        lines.append(f"{arm:<12} {name:<20} dice {int(keep.sum()):5d}  right {100 * acc:6.2f}%  "
                     f"certain-right {cells}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arm", choices=("frame", *ROOM_ARMS), help="train this arm")
    ap.add_argument("--hold-out", default="", help="train without the frames with this factor (KEY=PREFIX); "
                    "with --judge: judge only the frames with it")
    ap.add_argument("--share", type=float, default=1.0, help="train on this share of the frames (at random)")
    ap.add_argument("--judge", type=Path, help="judge the arms trained into this folder")
    ap.add_argument("--arms", default="frame,room", help="with --judge: the trained arms' names")
    ap.add_argument("--dev-seeds", default="1079-1106,1108,1131-1164", help="seeds to judge on")
    ap.add_argument("--train-seeds", default=TRAIN_SEEDS)
    ap.add_argument("--epochs", type=int, default=SETUP.epochs)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--shipped", type=Path, default=None, help="with --judge: this face network file too")
    ap.add_argument("--out", type=Path, default=Path("build/room-input"))
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    s = Setup(**{**SETUP.__dict__, "epochs": args.epochs})
    if args.arm:
        x, y = cached_pairs(args.out, args.train_seeds, args.hold_out, args.share)
        print(f"{len(y)} dice canvases from seeds {args.train_seeds}", flush=True)
        net = train_arm(x, y, args.arm, s, args.seed, log=lambda m: print(m, flush=True))
        name = args.arm + held_out_tag(args.hold_out, args.share)
        torch.save(net.state_dict(), args.out / f"{name}.pt")
        run = {"seed": args.seed, "train_seeds": args.train_seeds, "epochs": s.epochs, "dice": len(y),
               "held_out": args.hold_out, "share": args.share}
        (args.out / f"{name}.json").write_text(json.dumps(run))
    if args.judge:
        for arm in args.arms.split(","):
            net = room_net(s) if arm_kind(arm) in ROOM_ARMS else FaceNet(s)
            net.load_state_dict(torch.load(args.judge / f"{arm}.pt"))
            print("\n".join(judge_lines(net, arm, args.dev_seeds, s, args.hold_out)), flush=True)
        if args.shipped:
            meta = json.loads(args.shipped.with_suffix(".json").read_text(encoding="utf-8"))
            shipped = FaceClassifier(args.shipped.with_suffix(".onnx"), meta)
            print("\n".join(judge_lines(shipped, "file", args.dev_seeds, s, args.hold_out)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
