"""A learned die finder: a small fully-convolutional network that marks every die's centre and size.

Why: the hand-made cues (`finder.py`: outlines against a fitted floor, pip clusters) miss a fifth to a quarter
of the dice on photos of unseen tables (small dice, heaps, packed rows, dice on a busy board). A network that
saw many photos finds most of those. Its boxes are only *candidates*: the face classifier still judges each
one (it has a "not a die" class), so a detector box never makes a die certain on its own.

The network (CenterNet-style, trained by `training/train_finder.py`, shipped as ONNX and run by `cv2.dnn`)
takes the frame shrunk by the model's `scale` (at most `max_side` px on its long side), and answers at a
quarter of that resolution five maps: a die-centre heatmap (a logit), the die's width and height (log, in
output cells) and the centre's offset within its cell. A die is a local maximum of the heatmap above
`threshold`. Every size comes from the image the network sees, not from a pixel constant.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.onnx_net import load_net

MODELS = Path(__file__).resolve().parent / "models"
MULTIPLE = 32      # the network halves the input five times: its sides are padded to a multiple of this


@dataclass(frozen=True)
class Detection:
    box: tuple[float, float, float, float]   # cx, cy, w, h of the whole die, in the frame's pixels
    score: float                             # heatmap peak, 0-1 (how sure the network is a die is there)


def prepare(frame: np.ndarray, scale: float, max_side: int) -> tuple[np.ndarray, float]:
    """The frame as the network's input (1, 3, H, W) float32, and the factor it was shrunk by. The frame is
    resized by `scale` (less if its long side would pass `max_side`), normalised to about -2..2, and padded
    right and bottom (edge pixels repeated) to sides divisible by `MULTIPLE`."""
    h, w = frame.shape[:2]
    s = min(scale, max_side / max(h, w))
    nw, nh = max(1, int(round(w * s))), max(1, int(round(h * s)))
    small = cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_AREA) if (nw, nh) != (w, h) else frame
    pw, ph = -nw % MULTIPLE, -nh % MULTIPLE
    if pw or ph:
        small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    blob = (small.astype(np.float32) - 128.0) * (1.0 / 64.0)
    return np.ascontiguousarray(blob.transpose(2, 0, 1)[None]), s


def decode(out: np.ndarray, s: float, stride: int, threshold: float, top_k: int,
           valid: tuple[int, int] | None = None) -> list[Detection]:
    """Detections from the network's output (1, 5, h, w): heatmap peaks (3x3 local maxima) above `threshold`,
    at most `top_k` of them, best first, mapped back to the frame (`s`: the input's shrink factor). `valid`
    (rows, cols of output cells): peaks in the padding beyond them are dropped."""
    o = out[0]
    heat = 1.0 / (1.0 + np.exp(-np.clip(o[0], -30, 30)))
    if valid is not None:
        heat = heat[:valid[0], :valid[1]]
    peak = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= threshold)
    ys, xs = np.nonzero(peak)
    if len(ys) == 0:
        return []
    sc = heat[ys, xs]
    order = np.argsort(-sc)[:top_k]
    out_: list[Detection] = []
    k = stride / s
    for i in order:
        y, x = int(ys[i]), int(xs[i])
        w = float(np.exp(np.clip(o[1, y, x], -4, 6))) * k
        h = float(np.exp(np.clip(o[2, y, x], -4, 6))) * k
        cx = (x + float(o[3, y, x])) * k
        cy = (y + float(o[4, y, x])) * k
        out_.append(Detection((cx, cy, w, h), float(sc[i])))
    return out_


class DieDetector:
    """The shipped (or a benchmark's) die detector. `detect(frame)` -> boxes of whole dice, best first."""

    def __init__(self, onnx_path: Path, meta: dict):
        self.net = load_net(onnx_path)
        self.meta = meta
        self.scale = float(meta["scale"])          # input = frame x scale ...
        self.max_side = int(meta["max_side"])      # ... at most this long
        self.stride = int(meta["stride"])          # output cell, input px
        self.threshold = float(meta["threshold"])  # heatmap peak that proposes a die
        self.top_k = int(meta.get("top_k", 60))

    def raw(self, blob: np.ndarray) -> np.ndarray:
        """The network's output (1, 5, H/stride, W/stride) for a prepared input."""
        self.net.setInput(blob)
        return self.net.forward()

    def detect(self, frame: np.ndarray, threshold: float | None = None) -> list[Detection]:
        """Dice in a BGR frame. A frame too small to hold a die, or not an image, gives none."""
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3 or min(frame.shape[:2]) < 8:
            return []
        blob, s = prepare(frame, self.scale, self.max_side)
        h, w = frame.shape[:2]
        valid = (-(-int(round(h * s)) // self.stride), -(-int(round(w * s)) // self.stride))
        return decode(self.raw(blob), s, self.stride, self.threshold if threshold is None else threshold,
                      self.top_k, valid)


@lru_cache(maxsize=2)
def load(name: str = "finder") -> DieDetector | None:
    """The shipped detector (vision/models/finder.onnx + .json), or None when the package has none."""
    onnx_path, meta_path = MODELS / f"{name}.onnx", MODELS / f"{name}.json"
    if not onnx_path.exists() or not meta_path.exists():
        return None
    return DieDetector(onnx_path, json.loads(meta_path.read_text(encoding="utf-8")))


__all__ = ["Detection", "DieDetector", "decode", "load", "prepare"]
