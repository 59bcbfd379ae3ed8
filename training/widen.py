"""A trained face network made wider without forgetting what it learnt (`train_reader_undertray --widen`).

Why: the d6 network from below fits its own training frames at about 90% and no more (issue 31, 47th
session), which may be a network too small for what it is shown. Training a wider one from nothing takes
hours of one core and the frames the shipped one learnt from are no longer on disk; a wider copy that starts
out computing what the shipped one computes (Chen, Goodfellow & Shlens, "Net2Net", 2016: the "wider"
operator) can be trained on from there, so the width alone is what differs from a plain `--init-from` run.

How: in each layer that grows, the added units are copies of randomly chosen existing units (their incoming
weights and biases copied), and every unit's outgoing weights are divided by how many copies of it there are,
so the next layer's sums are unchanged. Channel-wise steps between (ReLU, max-pool, a depthwise convolution)
carry a copied channel unchanged. A little noise on the copies' incoming weights lets them drift apart.
Only for the separable, batch-norm-free FaceNet the exported models fold into (`torch_net.folded_net`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import torch
from torch import nn

from training.torch_net import FaceNet, Setup


def unit_map(old: int, new: int, rng: np.random.Generator) -> np.ndarray:
    """Which old unit each of `new` units copies: the old ones first (each itself), then random picks."""
    if new < old:
        raise ValueError(f"cannot widen {old} units to {new}")
    return np.concatenate([np.arange(old), rng.integers(0, old, new - old)])


def _shares(mapping: np.ndarray) -> torch.Tensor:
    """Per new unit, 1 / (how many new units copy its old unit): the weight its outgoing share keeps."""
    counts = np.bincount(mapping)
    return torch.from_numpy(1.0 / counts[mapping]).float()


def _noisy(w: torch.Tensor, mapping: np.ndarray, noise: float, gen: torch.Generator) -> torch.Tensor:
    """`w` (rows: units) with the copies past the originals jittered by `noise` of the weights' spread."""
    out = w.clone()
    old = int(mapping.max()) + 1 if len(mapping) else 0
    extra = out[old:]
    if len(extra):
        extra += noise * w.std() * torch.randn(extra.shape, generator=gen)
    return out


def _convs(net: FaceNet) -> list[nn.Conv2d]:
    return [m for m in net.features if isinstance(m, nn.Conv2d)]


def widened(net: FaceNet, s: Setup, convs: tuple[int, ...], hidden: int, seed: int = 0,
            noise: float = 0.01) -> tuple[FaceNet, Setup]:
    """A FaceNet with `convs` and `hidden` units that computes what `net` computes (up to `noise`), and its
    Setup. `net` must be separable and without batch norm, `convs` as many as its own and none narrower."""
    if not s.separable or s.bn or len(convs) != len(s.convs):
        raise ValueError("widening needs a separable network without batch norm and as many conv widths")
    rng, gen = np.random.default_rng(seed), torch.Generator().manual_seed(seed)
    wide_s = replace(s, convs=tuple(convs), hidden=hidden)
    wide = FaceNet(wide_s)
    old_layers, new_layers = _convs(net), _convs(wide)
    maps = [unit_map(a, b, rng) for a, b in zip(s.convs, convs, strict=True)]
    with torch.no_grad():
        _copy_rows(new_layers[0], old_layers[0], maps[0], None, noise, gen)
        for i in range(1, len(convs)):
            dw_old, pw_old = old_layers[2 * i - 1], old_layers[2 * i]
            dw_new, pw_new = new_layers[2 * i - 1], new_layers[2 * i]
            dw_new.weight.copy_(dw_old.weight[maps[i - 1]])
            dw_new.bias.copy_(dw_old.bias[maps[i - 1]])
            _copy_rows(pw_new, pw_old, maps[i], maps[i - 1], noise, gen)
        _widen_dense(net, wide, maps[-1], unit_map(s.hidden, hidden, rng), noise, gen)
    return wide, wide_s


def _copy_rows(new: nn.Module, old: nn.Module, rows: np.ndarray, cols: np.ndarray | None, noise: float,
               gen: torch.Generator) -> None:
    """`new`'s weights: `old`'s rows copied by `rows`; its input columns copied by `cols` and divided among
    their copies (None: the input did not grow)."""
    w = old.weight
    if cols is not None:
        w = w[:, cols] * _shares(cols).view(1, -1, *([1] * (w.dim() - 2)))
    new.weight.copy_(_noisy(w[rows], rows, noise, gen))
    new.bias.copy_(old.bias[rows])


def _widen_dense(net: FaceNet, wide: FaceNet, channels: np.ndarray, hidden: np.ndarray, noise: float,
                 gen: torch.Generator) -> None:
    """fc0 (its input the last conv's channels, flattened channel by channel) and fc1."""
    h_old, flat = net.fc0.weight.shape
    old_channels = int(channels.max()) + 1   # the map starts with every old unit as itself
    w = net.fc0.weight.view(h_old, old_channels, flat // old_channels)[:, channels]
    w = w * _shares(channels).view(1, -1, 1)
    w = w.reshape(h_old, -1)
    wide.fc0.weight.copy_(_noisy(w[hidden], hidden, noise, gen))
    wide.fc0.bias.copy_(net.fc0.bias[hidden])
    wide.fc1.weight.copy_(net.fc1.weight[:, hidden] * _shares(hidden).view(1, -1))
    wide.fc1.bias.copy_(net.fc1.bias)
