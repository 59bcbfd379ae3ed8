"""A smaller face network for pip dice from below, trained to answer as the shipped one does (distillation).

    .venv/bin/python -m training.distill_undertray --collect 1004-1016 --looks 6 --render-frames 300
    .venv/bin/python -m training.distill_undertray --train --out build/reader-models --name pips-under-small

Why: the box reads five dice from below in 3-9x its 5 ms aim on one core, and the face network is the largest
single part of it: the shipped pips-under.onnx costs about 1 ms a 40 px crop in `cv2.dnn` (its first 3x3
convolution runs at full size, and its 32-96 channels are pooled three times), and a read asks it about
ten crops. A network whose convolutions stride instead of pooling costs a third of that (16-32-64-96, the
default) or an eighth (24-48-96, its first convolution striding). Trained from scratch
it would need every render the shipped one learnt from, and most are no longer on disk; trained to answer as
the shipped one does, it needs only pictures of the kind the reader shows it, and no labels.

What it learns: the teacher's embedding (its 96-number penultimate layer, which `vision.memory` keeps of a
taught die) and, through the teacher's own last layer (copied, frozen), the teacher's logits. So where the
embedding matches, the probabilities match, and the JSON keeps the teacher's temperature and certainty levels:
the reader's rules, fitted on the teacher's probabilities, stay meaningful. What it sees: the very crops the
reader hands the face network (`FaceClassifier.run`, normalised), cut while it reads Blender frames from below
(each frame in several camera looks, with its room and without: `bench/vision_undertray.merged`) and
`vision/render.py` frames, each also once in a random quarter turn and flip, the teacher answering every
view once before training (`teacher_answers`).

The crops of the last seed collected are held back: the figures printed are the student's agreement with
the teacher there (same face named, same certain decision at the teacher's level). Whether the student may
replace the teacher is judged by the bench on render seeds neither ever saw (docs/dice-sets.md).
Reproducible from `--seed`, the commit and the collected crops' seeds (recorded in the JSON).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

import numpy as np

from training.net import softmax
from training.provenance import REPO, SHIPPED, made_with

TEACHER = SHIPPED / "pips-under.onnx"
CROPS = REPO / "build" / "distill"
# the student: a 3x3 convolution (striding by FIRST_STRIDE), then depthwise-separable blocks that stride
# (no pooling)
STUDENT_CONVS = (16, 32, 64, 96)
FIRST_STRIDE = 1


def student_net(convs: tuple[int, ...] = STUDENT_CONVS, first_stride: int = FIRST_STRIDE, hidden: int = 96,
                side: int = 40, classes: int = 7):
    """The student: a first convolution, then blocks that each halve the crop (a 40 px crop ends at 5x5),
    then the teacher's shape of head: a dense layer to the `hidden`-number embedding (ReLU) and the last
    layer to the logits."""
    import torch
    from torch import nn

    class Student(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            layers: list[nn.Module] = [nn.Conv2d(3, convs[0], 3, first_stride, 1), nn.ReLU()]
            for cin, cout in zip(convs, convs[1:], strict=False):
                layers += [nn.Conv2d(cin, cin, 3, 2, 1, groups=cin), nn.ReLU(),
                           nn.Conv2d(cin, cout, 1), nn.ReLU()]
            self.features = nn.Sequential(*layers)
            out_side = side // first_stride // 2 ** (len(convs) - 1)
            self.fc0 = nn.Linear(convs[-1] * out_side * out_side, hidden)
            self.fc1 = nn.Linear(hidden, classes)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            e = torch.relu(self.fc0(torch.flatten(self.features(x), 1)))
            return self.fc1(e), e

    return Student()


def teacher_net(path: Path = TEACHER):
    """The shipped network as a torch module (batch norm folded, as exported: `torch_net.folded_net`)."""
    from training.torch_net import Setup, folded_net
    meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    s = Setup(size=int(meta["size"]), convs=(32, 64, 96), separable=True, hidden=96, bn=False)
    return folded_net(str(path), s).eval(), meta


def collect(seeds: str, looks: int, render_frames: int, out: Path) -> None:
    """Save the crops the reader hands the pip network from below (float16, (n, 40, 40, 3), normalised): one
    file per Blender seed and one for `vision/render.py` frames."""
    import cv2

    from vision import classify
    cv2.setNumThreads(1)
    got: list[np.ndarray] = []
    run = classify.FaceClassifier.run

    def kept_run(self, batch, allowed=None):
        if self.meta.get("mount") == "under" and self.meta.get("kind") == "pips" and len(batch):
            got.append(np.asarray(batch, np.float16))
        return run(self, batch, allowed)

    classify.FaceClassifier.run = kept_run
    out.mkdir(parents=True, exist_ok=True)
    try:
        for seed, reads in _blender_reads(seeds, looks):
            got.clear()
            for read in reads:
                read()
            np.save(out / f"crops-s{seed}.npy", np.concatenate(got))
            print(f"seed {seed}: {sum(len(g) for g in got)} crops", flush=True)
        if render_frames:
            got.clear()
            for read in _render_reads(render_frames):
                read()
            np.save(out / "crops-render.npy", np.concatenate(got))
            print(f"vision/render.py: {sum(len(g) for g in got)} crops", flush=True)
    finally:
        classify.FaceClassifier.run = run


def _blender_reads(seeds: str, looks: int):
    """(seed, reads) of each Blender seed: every frame's `looks` camera looks read as the watcher reads one
    frame (without the room and with it, merged), the room learnt from three looks at the empty tray."""
    import sys
    from functools import partial
    sys.path.insert(0, str(REPO / "bench"))
    import vision_undertray as bench

    from training.blender_canvases import seed_list
    from training.blender_undertray_factors import read_rows
    from vision.room import Room
    models = bench.Models()
    for seed in seed_list(seeds):
        folder = bench.FRAMES / f"s{seed}"
        reads = []
        for row in read_rows(folder):
            empties = [bench.camera_frame(folder, row, empty=True, look=k) for k in range(3)]
            if any(e is None for e in empties):
                continue
            room = Room()
            room.add_empty(empties)
            for k in range(looks):
                img = bench.camera_frame(folder, row, look=k)
                if img is not None:
                    reads.append(partial(bench.merged, img, room, models, bench.set_of(row)))
        yield seed, reads


def _render_reads(frames: int):
    """`vision/render.py` frames from below (d6, and Regidice every third), 1-8 dice, each read with its room
    and without."""
    from functools import partial

    from device.dice_sets import spec
    from vision.reader import read_dice
    from vision.render import random_dice, render_tray
    from vision.room import Room
    rng = np.random.default_rng(4545)
    for i in range(frames):
        ds = spec("regidice" if i % 3 == 0 else "d6")
        dice = random_dice(rng, int(rng.integers(1, 9)), dice_set=ds, size=(30, 80),
                           colours=ds.get("colours") or None)
        frame = render_tray(dice, mount="under", seed=50_000 + i, room_seed=i)
        room = Room()
        room.add_empty([render_tray([], mount="under", seed=60_000 + i, room_seed=i)])
        yield partial(read_dice, frame, ds, "under", background=room.image)
        yield partial(read_dice, frame, ds, "under")


def load_crops(folder: Path) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(training crops, held-back crops, the files trained on): the held-back crops are the last Blender
    seed's."""
    files = sorted(folder.glob("crops-s*.npy"), key=lambda p: int(p.stem.split("-s")[1]))
    if not files:
        raise SystemExit(f"no crops in {folder}: run --collect first")
    trained_on = files[:-1] + sorted(folder.glob("crops-render.npy"))
    return np.concatenate([np.load(f) for f in trained_on]), np.load(files[-1]), [f.name for f in trained_on]


def _viewed(crops: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each crop (n, s, s, c) in a random one of its eight views (quarter turns, each flipped or not)."""
    out = np.empty_like(crops)
    turns, flips = rng.integers(4, size=len(crops)), rng.integers(2, size=len(crops))
    for k in range(4):
        for f in range(2):
            pick = (turns == k) & (flips == f)
            v = np.rot90(crops[pick], k, (1, 2))
            out[pick] = v[:, :, ::-1] if f else v
    return out


def teacher_answers(crops: np.ndarray, path: Path = TEACHER) -> tuple[np.ndarray, np.ndarray]:
    """(logits, embeddings) of the teacher for crops (n, s, s, 3), as the reader runs it (`cv2.dnn`: in torch
    the shipped network costs twice as much a crop on this CPU)."""
    from vision.onnx_net import load_net
    net = load_net(path)
    logits, embs = [], []
    for i in range(0, len(crops), 512):
        net.setInput(np.ascontiguousarray(crops[i:i + 512].transpose(0, 3, 1, 2), dtype=np.float32))
        lo, em = net.forward(["logits", "embedding"])
        logits.append(lo.copy())
        embs.append(em.copy())
    return np.concatenate(logits), np.concatenate(embs)


def train(crops: np.ndarray, epochs: int, seed: int, lr: float, logit_weight: float,
          convs: tuple[int, ...] = STUDENT_CONVS, first_stride: int = FIRST_STRIDE, kl_at: float = 0.0):
    """The student fitted to the teacher's embedding and logits on every crop as cut and once more in a random
    view (the teacher answering each, once, before training)."""
    import torch
    torch.manual_seed(seed)
    teacher, _ = teacher_net()
    x = np.concatenate([crops, _viewed(crops, np.random.default_rng(seed))])
    t0 = time.time()
    t_logits, t_emb = (torch.from_numpy(a) for a in teacher_answers(x))
    print(f"teacher's answers to {len(x)} crops in {time.time() - t0:.0f} s", flush=True)
    x_all = torch.from_numpy(x.transpose(0, 3, 1, 2).copy())
    student = student_net(convs, first_stride)
    with torch.no_grad():
        student.fc1.weight.copy_(teacher.fc1.weight)
        student.fc1.bias.copy_(teacher.fc1.bias)
    student.fc1.requires_grad_(False)
    batch = 256
    steps = epochs * (len(x_all) // batch)
    opt = torch.optim.AdamW([p for p in student.parameters() if p.requires_grad], lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=steps)
    gen = torch.Generator().manual_seed(seed)
    student.train()
    for step in range(steps):
        i = torch.randint(len(x_all), (batch,), generator=gen)
        s_logits, s_emb = student(x_all[i].float())
        loss = torch.mean((s_emb - t_emb[i]) ** 2) + logit_weight * _logit_loss(s_logits, t_logits[i], kl_at)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 1000 == 0:
            print(f"  step {step} of {steps}: loss {loss.item():.4f}", flush=True)
    return student.eval()


def _logit_loss(student_logits, teacher_logits, kl_at: float):
    """How far the student's logits are from the teacher's: their mean squared difference, or with `kl_at`
    the divergence of the two softened distributions at that temperature (times its square, as usual), which
    weighs the classes a crop may be over the ones it surely is not."""
    import torch
    if not kl_at:
        return torch.mean((student_logits - teacher_logits) ** 2)
    target = torch.softmax(teacher_logits / kl_at, 1)
    log_p = torch.log_softmax(student_logits / kl_at, 1)
    return torch.sum(target * (torch.log(target.clamp_min(1e-12)) - log_p), 1).mean() * kl_at ** 2


def agreement(student, crops: np.ndarray, meta: dict) -> dict:
    """How the student answers beside the teacher on `crops`: the same class named, the same certain
    decision at the teacher's temperature and level, the logits' mean absolute difference."""
    import torch
    with torch.no_grad():
        x = torch.from_numpy(crops.transpose(0, 3, 1, 2).astype(np.float32))
        s = torch.cat([student(x[i:i + 512])[0] for i in range(0, len(x), 512)]).numpy()
    t = teacher_answers(crops)[0]
    temp, level = float(meta["temperature"]), float(meta["certain_at"])
    ps, pt = softmax(s / temp), softmax(t / temp)
    sure_s, sure_t = ps.max(1) >= level, pt.max(1) >= level
    same = ps.argmax(1) == pt.argmax(1)
    return {"crops": len(crops), "same_class": round(float(same.mean()), 4),
            "same_certain": round(float((sure_s == sure_t).mean()), 4),
            "certain_only_student": int((sure_s & ~sure_t).sum()),
            "certain_only_teacher": int((~sure_s & sure_t).sum()),
            "certain_both_differ": int((sure_s & sure_t & ~same).sum()),
            "logit_mad": round(float(np.abs(s - t).mean()), 4)}


def export(student, out: Path, name: str, meta: dict, extra: dict) -> Path:
    """The student as ONNX beside its JSON (the teacher's classes, size, temperature and levels, and how the
    student was made), checked to answer in `cv2.dnn` as in torch."""
    import cv2
    import torch

    from training.torch_net import Setup, export_onnx
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.onnx"
    export_onnx(student, Setup(size=int(meta["size"])), str(path))
    x = torch.randn(8, 3, int(meta["size"]), int(meta["size"]))
    dnn = cv2.dnn.readNetFromONNX(str(path))
    dnn.setInput(x.numpy())
    with torch.no_grad():
        gap = float(np.abs(dnn.forward("logits") - student(x)[0].numpy()).max())
    if gap > 1e-3:
        raise SystemExit(f"{path}: cv2.dnn answers {gap} away from torch")
    keep = ("classes", "kind", "mount", "size", "pad", "norm", "temperature", "certain_at",
            "turns_certain_at")
    student_meta = {k: meta[k] for k in keep if k in meta}
    student_meta.update(extra, made_with=made_with(), calibration=meta.get("calibration"),
                        trained_on=meta.get("trained_on"), sources=meta.get("sources"))
    path.with_suffix(".json").write_text(json.dumps(student_meta, indent=1), encoding="utf-8")
    print(f"wrote {path} ({path.stat().st_size} bytes), cv2.dnn within {gap:.1e} of torch")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--collect", default="", help="Blender d6 seeds whose reads give the crops (never a seed "
                    "the student is to be judged on)")
    ap.add_argument("--looks", type=int, default=6, help="camera looks read per frame when collecting")
    ap.add_argument("--render-frames", type=int, default=300,
                    help="vision/render.py frames read when collecting")
    ap.add_argument("--crops", type=Path, default=CROPS)
    ap.add_argument("--train", action="store_true")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--logit-weight", type=float, default=0.2)
    ap.add_argument("--convs", default=",".join(map(str, STUDENT_CONVS)), help="the student's widths")
    ap.add_argument("--first-stride", type=int, default=FIRST_STRIDE)
    ap.add_argument("--kl-at", type=float, default=0.0, help="the logits' loss as the softened distributions'"
                    " divergence at this temperature (0: their squared difference)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, default=REPO / "build" / "reader-models")
    ap.add_argument("--name", default="pips-under-small")
    args = ap.parse_args(argv)
    if args.collect:
        collect(args.collect, args.looks, args.render_frames, args.crops)
    if not args.train:
        return 0
    import torch
    torch.set_num_threads(args.threads)
    t0 = time.time()
    crops, held, files = load_crops(args.crops)
    print(f"crops: {len(crops)} to train on, {len(held)} held back (the last seed's)", flush=True)
    convs = tuple(int(c) for c in args.convs.split(","))
    student = train(crops, args.epochs, args.seed, args.lr, args.logit_weight, convs, args.first_stride,
                    args.kl_at)
    meta = json.loads(TEACHER.with_suffix(".json").read_text(encoding="utf-8"))
    figures = agreement(student, held, meta)
    print(f"held back: {figures}", flush=True)
    extra = {"distilled_from": {"model": TEACHER.name,
                                "sha256": hashlib.sha256(TEACHER.read_bytes()).hexdigest()},
             "student": {"convs": list(convs), "first_stride": args.first_stride, "epochs": args.epochs,
                         "lr": args.lr, "logit_weight": args.logit_weight, "kl_at": args.kl_at,
                         "seed": args.seed, "crop_files": files, "crops": len(crops), "held_back": figures,
                         "train_seconds": round(time.time() - t0, 1)}}
    export(student, args.out, args.name, meta, extra)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
