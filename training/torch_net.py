"""The pip-d6 face classifier trained with torch (CPU): model, on-the-fly augmentation of canvases, export.

Why torch now: the numpy trainer (`net.py`) kept torch out because PyPI's Linux wheel pulls the CUDA runtime;
the train extra pins the CPU build instead, which trains a batch-normalised net with fresh augmentation
every epoch in a few minutes on two threads. torch is needed for training only: the exported ONNX graph is
plain Conv/Relu/MaxPool/Gemm (batch norm folded into the convolutions), run by `cv2.dnn` as before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper
from torch import nn

from training.canvas import REACH, Canvases
from training.onnx_pools import rewrite as pools_as_slices_in


@dataclass(frozen=True)
class Setup:
    """What a training run varies. `norm`: "rgb" (each channel less its mean, over the patch's spread; the
    channels permuted and inverted in training so no hue or polarity is special) or "grey" (one channel,
    less its mean, over its spread)."""

    size: int = 32
    pad: float = 1.10
    norm: str = "rgb"
    # wider and longer than the first shipped net (16/32/48, 64, 40 epochs): given the labelled boxes of
    # roboflow-d6, which it never saw, the model trained without it read 67.6 / 75.2 / 69.7% (seeds 7, 8, 9);
    # 24/48/72 with a 96-wide embedding 73.5 / 78.3 / 71.7%; 60 epochs 73.7 / 77.7% (seeds 7, 8); both 76.9 /
    # 82.3% (docs/dice-sets.md). Twice the multiply-adds (about 0.28 ms a crop instead of 0.14 on one core)
    convs: tuple[int, ...] = (24, 48, 72)
    # every conv after the first as a 3x3 per channel, then a 1x1 across channels (as MobileNet): at 40 px and
    # 32/64/96 about 0.4 of the full network's cv2.dnn time (5 crops 0.99-1.27 ms against 2.30-2.37 ms, one
    # core), for the box's read of 5 dice in 5 ms (issue 31 #7)
    separable: bool = False
    hidden: int = 96
    bn: bool = True
    epochs: int = 60
    lr: float = 3e-3
    wd: float = 5e-4
    batch: int = 128
    drop: float = 0.2
    neg_frac: float = 0.25    # share of dice samples turned into "not a die" (half die, part of a face, too wide)
    # sampling weight of a rendered patch against a photo's die: renders drowned the photos (roboflow-d6 fold 0
    # given boxes: weight 1.0 61%, 0.3 70%, 0.1 71%); 0.2 keeps some for the tray seen from below
    render_weight: float = 0.2
    # sampling weight of a die drawn as a cube in perspective (`cubes.py`) against a photo's die
    cube_weight: float = 1.0
    # sampling weight of a die rendered by Blender (`blender_dice.py`) against a photo's die
    blender_weight: float = 1.0
    # sampling weight of a die (or a reader's "not a die" candidate) rendered under the tray by Blender
    # (`undertray_data.py`, sources 8 and 9) against a photo's die: a few hundred such dice against thousands
    # of photo dice and cubes; heavier, they are about a third of what is drawn (the box's own view)
    undertray_weight: float = 1.0
    # samples an epoch draws; 0: as many as the canvases that are not drawn ones (a data set of drawn canvases
    # only, as the symbol dice's under-tray network has, sets it to its own size)
    epoch_size: int = 0
    smooth: float = 0.0
    # the box's framing jitter: its scale drawn from this range, its shift (in box sides) with this spread
    frame: tuple[float, float] = (0.9, 1.2)
    shift: float = 0.05
    hue: float = 0.0          # share of patches whose colours turn about the grey axis (and change saturation)
    # share of patches shrunk and grown again (small dice); Dice Throne's network takes fewer: shrunk to a third
    # of its 64 px input, the corner number that names the face is gone and only a guess is left to learn
    small: float = 0.3
    # share of patches mirrored. A die under the glass is always seen mirrored, but the pip networks learn both
    # mounts; Dice Throne's network (under only) keeps the chirality: turned and mirrored, a corner "2" is a "5"
    flip: float = 0.5

    @property
    def channels(self) -> int:
        return 1 if self.norm == "grey" else 3


class FaceNet(nn.Module):
    def __init__(self, s: Setup, classes: int = 7):
        super().__init__()
        layers: list[nn.Module] = []
        cin = s.channels
        for i, c in enumerate(s.convs):
            if s.separable and i > 0:
                layers += [nn.Conv2d(cin, cin, 3, padding=1, groups=cin, bias=not s.bn)]
                layers += [nn.BatchNorm2d(cin), nn.ReLU()] if s.bn else [nn.ReLU()]
                layers += [nn.Conv2d(cin, c, 1, bias=not s.bn)]
            else:
                layers += [nn.Conv2d(cin, c, 3, padding=1, bias=not s.bn)]
            if s.bn:
                layers += [nn.BatchNorm2d(c)]
            layers += [nn.ReLU(), nn.MaxPool2d(2)]
            cin = c
        self.features = nn.Sequential(*layers)
        side = s.size // 2 ** len(s.convs)
        self.fc0 = nn.Linear(cin * side * side, s.hidden)
        self.drop = nn.Dropout(s.drop)
        self.fc1 = nn.Linear(s.hidden, classes)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        e = F.relu(self.fc0(torch.flatten(self.features(x), 1)))
        return self.fc1(self.drop(e)), e


# ----------------------------------------------------------------------------- normalisation

def normalise_torch(p: torch.Tensor, norm: str) -> torch.Tensor:
    """(n, 3, s, s) float BGR 0-255 -> the network's input; the same as `vision.classify.normalise_batch`."""
    if norm == "grey":
        g = (0.114 * p[:, 0:1] + 0.587 * p[:, 1:2] + 0.299 * p[:, 2:3])
        g = g - g.mean((2, 3), keepdim=True)
        return g / (g.flatten(1).std(1, unbiased=False)[:, None, None, None] + 4.0)
    p = p - p.mean((2, 3), keepdim=True)
    return p / (torch.sqrt((p * p).flatten(1).mean(1))[:, None, None, None] + 4.0)


# ----------------------------------------------------------------------------- augmentation

def _blur(x: torch.Tensor, sigma: float) -> torch.Tensor:
    r = max(1, int(math.ceil(2.5 * sigma)))
    t = torch.arange(-r, r + 1, dtype=torch.float32)
    k = torch.exp(-0.5 * (t / sigma) ** 2)
    k = k / k.sum()
    c = x.shape[1]
    x = F.conv2d(F.pad(x, (r, r, 0, 0), mode="replicate"), k.view(1, 1, 1, -1).repeat(c, 1, 1, 1), groups=c)
    return F.conv2d(F.pad(x, (0, 0, r, r), mode="replicate"), k.view(1, 1, -1, 1).repeat(c, 1, 1, 1), groups=c)


def _hue_turn(x: torch.Tensor, which: torch.Tensor, angle: torch.Tensor, sat: torch.Tensor) -> torch.Tensor:
    """Patches (n, 3, s, s) 0-255 whose colours are turned by `angle` about the grey axis and their distance
    from grey scaled by `sat` where `which`: brightness stays, hue moves (red pips on yellow become green on
    blue), so no hue of the training dice is special."""
    k = torch.full((3,), 1 / math.sqrt(3.0))
    K = torch.tensor([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    eye = torch.eye(3)
    c, s_ = torch.cos(angle)[:, None, None], torch.sin(angle)[:, None, None]
    R = eye + s_ * K + (1 - c) * (K @ K)                       # Rodrigues, one per patch
    P = torch.outer(k, k)                                       # projection on the grey axis
    R = P + sat[:, None, None] * (R - P)
    R = torch.where(which[:, None, None], R, eye)
    return torch.einsum("nij,njhw->nihw", R, x).clamp(0, 255)


def augment(cv: torch.Tensor, y: torch.Tensor, upright: torch.Tensor, is_die: torch.Tensor, s: Setup,
            g: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch of canvases (n, 3, C, C) uint8 -> (normalised patches, labels). Geometry: a turn (small for
    upright dice), shift, scale and a little stretch of the box; some dice become "not a die" (half a die,
    a part of the face zoomed in, a box far too wide). Photometry: shrink-and-grow (small dice), blur, gain,
    offset, noise, hot pixels; then the channels permuted, inverted or greyed (rgb).
    Canvases of 3k channels are k pictures of one place by one camera (`training.room_input`: a die and its
    empty tray): every draw is shared but the noise, which each picture has its own of, and each picture is
    normalised on its own, as the reader normalises each crop (not with a `hue` turn, which takes one
    picture). One picture draws exactly as before."""
    n = cv.shape[0]
    pictures = cv.shape[1] // 3

    def u(lo: float, hi: float, k: int = n) -> torch.Tensor:
        return lo + (hi - lo) * torch.rand(k, generator=g)

    def coin(p: float, k: int = n) -> torch.Tensor:
        return torch.rand(k, generator=g) < p

    y = y.clone()
    ang = torch.where(upright, torch.randn(n, generator=g) * 12.0, u(0, 360)) * math.pi / 180
    scale = u(*s.frame)
    sx = torch.randn(n, generator=g) * s.shift
    sy = torch.randn(n, generator=g) * s.shift
    stretch = torch.exp(torch.randn(n, generator=g) * 0.06)
    neg = is_die & coin(s.neg_frac)
    kind = torch.randint(0, 3, (n,), generator=g)
    a = u(0, 2 * math.pi)
    half, part, wide = neg & (kind == 0), neg & (kind == 1), neg & (kind == 2)
    r = torch.where(half, u(0.55, 0.8), torch.where(part, u(0.15, 0.3), torch.zeros(n)))
    sx, sy = torch.where(neg & ~wide, r * torch.cos(a), sx), torch.where(neg & ~wide, r * torch.sin(a), sy)
    scale = torch.where(part, u(0.3, 0.5), torch.where(wide, u(2.3, 3.0), scale))
    ang = torch.where(neg, u(0, 2 * math.pi), ang)
    y[neg] = 6
    k = s.pad * scale / REACH
    cos, sin = torch.cos(ang), torch.sin(ang)
    theta = torch.stack([torch.stack([k * cos * stretch, -k * sin, sx * 2 / REACH], 1),
                         torch.stack([k * sin, k * cos / stretch, sy * 2 / REACH], 1)], 1)
    grid = F.affine_grid(theta, [n, cv.shape[1], s.size, s.size], align_corners=False)
    x = F.grid_sample(cv.float(), grid, mode="bilinear", padding_mode="border", align_corners=False)
    # photometry
    small = coin(s.small)
    if small.any():
        side = int(torch.randint(max(8, s.size // 3), max(12, 3 * s.size // 4), (1,), generator=g))
        x[small] = F.interpolate(F.interpolate(x[small], size=(side, side), mode="area"), size=(s.size, s.size),
                                 mode="bilinear", align_corners=False)
    bl = coin(0.3)
    if bl.any():
        x[bl] = _blur(x[bl], float(u(0.3, 1.2, 1)) * s.size / 32)
    if s.hue > 0:
        x = _hue_turn(x, coin(s.hue), u(0, 2 * math.pi), u(0.3, 1.6))
    per_ch = coin(0.5)
    gain = torch.where(per_ch[:, None], u(0.6, 1.4, 3 * n).view(n, 3), u(0.6, 1.4)[:, None].expand(n, 3))
    x = x * gain.repeat(1, pictures)[:, :, None, None] + u(-30, 30)[:, None, None, None]
    noisy = coin(0.5)
    x = x + torch.randn(x.shape, generator=g) * (u(1, 8) * noisy)[:, None, None, None]
    hot = coin(0.15)[:, None, None] & (torch.rand((n, s.size, s.size), generator=g) < 0.015)
    val = (torch.rand((n, s.size, s.size), generator=g) < 0.5).float() * 255
    x = torch.where(hot[:, None], val[:, None], x)
    x = x.clamp(0, 255)
    flip = coin(s.flip)
    x[flip] = x[flip].flip(3)
    x = torch.cat([normalise_torch(x[:, 3 * k:3 * k + 3], s.norm) for k in range(pictures)], 1)
    inv = coin(0.5)
    x[inv] = -x[inv]
    if s.norm == "rgb":
        order = torch.randperm(3, generator=g)
        x = x[:, torch.cat([order + 3 * k for k in range(pictures)])]
        grey = coin(0.15)
        x[grey] = torch.cat([x[grey, 3 * k:3 * k + 3].mean(1, keepdim=True).expand(-1, 3, -1, -1)
                             for k in range(pictures)], 1)
    return x, y


# ----------------------------------------------------------------------------- training

def train(data: Canvases, s: Setup, seed: int, log=print, start: FaceNet | None = None) -> FaceNet:
    """A face network trained on `data`; `start`: a trained network to go on from (`folded_net`) instead of
    fresh weights."""
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    net = start if start is not None else FaceNet(s)
    cv = torch.from_numpy(np.ascontiguousarray(data.x.transpose(0, 3, 1, 2)))
    y = torch.from_numpy(data.y)
    upright = torch.from_numpy(data.upright)
    is_die = torch.from_numpy(data.y < 6) & torch.from_numpy(data.source != 3)
    # each class (after the share turned into "none") weighs the same; renders weigh `render_weight`
    src = torch.from_numpy(data.source)
    # (the finders' false boxes on photos weigh as a photo's die, the cube scenes' backgrounds as a cube)
    under = (src == 8) | (src == 9)
    drawn = (src == 4) | (src == 6) | (src == 7) | under
    w = torch.where(drawn, torch.where(src == 7, s.blender_weight, s.cube_weight),
                    torch.where((src == 2) | (src == 3), s.render_weight, 1.0))
    w = torch.where(under, s.undertray_weight, w)
    # an epoch draws as many samples as there are canvases other than the drawn ones (cubes, their scenes'
    # backgrounds, Blender's dice, the under-tray renders): those change what is drawn, not how long training takes
    per_epoch = s.epoch_size or int((~drawn).sum())
    steps = s.epochs * math.ceil(per_epoch / s.batch)
    opt = torch.optim.AdamW(net.parameters(), lr=s.lr, weight_decay=s.wd)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=s.lr, total_steps=steps, pct_start=0.15)
    counts = torch.bincount(y, minlength=7).float()
    counts[6] += s.neg_frac * counts[:6].sum()
    wcls = counts.sum() / counts.clamp(min=1) / 7
    for ep in range(s.epochs):
        net.train()
        order = torch.multinomial(w, per_epoch, replacement=True, generator=g)
        tot, right = 0.0, 0
        for i in range(0, per_epoch, s.batch):
            idx = order[i:i + s.batch]
            xb, yb = augment(cv[idx], y[idx], upright[idx], is_die[idx], s, g)
            logits, _ = net(xb)
            loss = F.cross_entropy(logits, yb, weight=wcls, label_smoothing=s.smooth)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach()) * len(yb)
            right += int((logits.argmax(1) == yb).sum())
        if log:
            log(f"  epoch {ep + 1}/{s.epochs}: loss {tot / per_epoch:.4f}  train acc {right / per_epoch:.4f}")
    net.eval()
    return net


def folded_net(onnx_path: str, s: Setup) -> FaceNet:
    """The network of an exported model (`export_onnx`), as a FaceNet without batch norm (`s.bn` must be
    False: the export folded it into the convolutions' weights and biases) that trains on from there. Why: a
    model took most of an hour of one core to train, and new renders can teach it more without starting over.
    The convolutions are taken in the graph's order, the dense layers by name."""
    if s.bn:
        raise ValueError("a folded network has no batch norm: train it on with Setup(bn=False)")
    graph = onnx.load(onnx_path).graph
    weights = {w.name: torch.from_numpy(numpy_helper.to_array(w).copy()) for w in graph.initializer}
    convs = [node for node in graph.node if node.op_type == "Conv"]
    net = FaceNet(s)
    layers = [m for m in net.features if isinstance(m, nn.Conv2d)]
    if len(convs) != len(layers):
        raise ValueError(f"{onnx_path}: {len(convs)} convolutions, the setup has {len(layers)}")
    with torch.no_grad():
        for node, layer in zip(convs, layers, strict=True):
            layer.weight.copy_(weights[node.input[1]])
            layer.bias.copy_(weights[node.input[2]])
        for name in ("fc0", "fc1"):
            getattr(net, name).weight.copy_(weights[f"{name}.weight"])
            getattr(net, name).bias.copy_(weights[f"{name}.bias"])
    return net


def logits_of(net: FaceNet, x: np.ndarray) -> np.ndarray:
    """Logits of normalised patches (n, s, s, c) float32, in eval mode."""
    net.eval()
    with torch.no_grad():
        return torch.cat([net(torch.from_numpy(np.ascontiguousarray(x[i:i + 512].transpose(0, 3, 1, 2))))[0]
                          for i in range(0, len(x), 512)]).numpy()


def export_onnx(net: FaceNet, s: Setup, path: str) -> None:
    """ONNX with input "input" (N, c, size, size) and outputs "logits" and "embedding", batch norm folded into
    the convolutions (eval mode), opset 13, so `cv2.dnn` reads it; its max-pools as strided slices, which
    `cv2.dnn` runs sooner (`training.onnx_pools`)."""
    net.eval()
    dummy = torch.zeros(1, s.channels, s.size, s.size)
    torch.onnx.export(net, (dummy,), path, input_names=["input"], output_names=["logits", "embedding"],
                      dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}, "embedding": {0: "N"}},
                      opset_version=13, dynamo=False, do_constant_folding=True,
                      training=torch.onnx.TrainingMode.EVAL)
    pools_as_slices_in(Path(path))
