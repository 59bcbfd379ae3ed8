"""Face classifier: a small CNN (ONNX weights shipped in `vision/models/`, run by OpenCV's `cv2.dnn`).

A die's box is cut out of the frame and normalised the same way at training and at reading time
(`normalise_crop`): the box (padded a little) is resized to the model's input side (its JSON's `size`: 32 px,
40 for the under-tray network), channel by channel less its mean and scaled by its spread (so red pips on dark
red, yellow on green, light pips on dark dice all become contrast). The network answers one class per face plus a last class "not a die" (an empty
patch, a half die, a cocked die, two dice). Its penultimate layer (the embedding) is returned too, for
benches and experiments; the per-box memory compares pictures of the faces instead (`vision/memory.py` says why).

The model's sidecar JSON holds the class names, the crop it was trained on (`size`, `pad`, `norm`: "rgb" as
above or "grey", one channel; older files lack them and mean 32, 1.10, "rgb"), the softmax temperature fitted
on held-back real photos, and the confidence above which a die is reported certain (chosen on those photos so that wrong-but-certain
stays under the aim); see `training/` for how they are made.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.onnx_net import load_net

SIZE = 32            # side of the network's input
PAD = 1.10           # the crop is the box grown by this factor (the die's outline stays inside)
MODELS = Path(__file__).resolve().parent / "models"


def crop_patch(img: np.ndarray, box: tuple[float, float, float, float], pad: float = PAD,
               size: int = SIZE) -> np.ndarray:
    """The box (cx, cy, w, h in px) grown by `pad`, resized to size x size (BGR uint8); outside the frame the
    border is replicated. Non-square boxes are stretched: an oblique die keeps its whole outline."""
    cx, cy, w, h = box
    w, h = max(w * pad, 4.0), max(h * pad, 4.0)
    # affine map from the output square to the box: no copy of a large region, sub-pixel placement
    sx, sy = w / size, h / size
    M = np.array([[1 / sx, 0, size / 2 - cx / sx], [0, 1 / sy, size / 2 - cy / sy]], np.float32)
    interp = cv2.INTER_AREA if min(sx, sy) > 1.5 else cv2.INTER_LINEAR
    if interp == cv2.INTER_AREA:
        # shrink the region first (warpAffine does not average): resize the bounding ROI, then place it
        H, W = img.shape[:2]
        x0, y0 = int(np.floor(cx - w / 2)), int(np.floor(cy - h / 2))
        x1, y1 = int(np.ceil(cx + w / 2)), int(np.ceil(cy + h / 2))
        if x0 >= 0 and y0 >= 0 and x1 <= W and y1 <= H:
            return cv2.resize(img[y0:y1, x0:x1], (size, size), interpolation=cv2.INTER_AREA)
        roi = cv2.copyMakeBorder(img[max(0, y0):min(H, y1), max(0, x0):min(W, x1)],
                                 max(0, -y0), max(0, y1 - H), max(0, -x0), max(0, x1 - W), cv2.BORDER_REPLICATE)
        return cv2.resize(roi, (size, size), interpolation=cv2.INTER_AREA)
    return cv2.warpAffine(img, M, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def smoothed(img: np.ndarray, sigma: float) -> np.ndarray:
    """The frame smoothed by a Gaussian of `sigma` px before a network's crops are cut from it
    (`FaceClassifier.cut`), or the frame itself at 0; the trainers cut their held-back crops alike."""
    return cv2.GaussianBlur(img, (0, 0), sigma) if sigma > 0 else img


def smoothed_around(img: np.ndarray, boxes: list, sigma: float, pad: float = PAD) -> np.ndarray:
    """The frame as `smoothed(img, sigma)` gives it wherever `crop_patch` reads one of `boxes` grown by `pad`
    (each region smoothed with a margin past the Gaussian's reach, so its pixels are the whole frame's to the
    bit); elsewhere undefined, never to be read. Why: smoothing the whole frame cost about 1 ms of a 7-8 ms
    read of five dice from below on one core (`bench/vision_speed.py`); their regions, a small part of it.
    Boxes whose regions together cover more than the frame (a grid of windows round a die, each read again)
    get the whole frame smoothed once instead: never more than that costs."""
    H, W = img.shape[:2]
    if not all(_overlaps(box, pad, W, H) for box in boxes):   # (a crop of such a box reads far from it)
        return smoothed(img, sigma)
    reach = int(np.ceil(3 * sigma)) + 2   # OpenCV's 8-bit kernel: radius round(3 sigma), and some to spare
    regions = [_region(box, pad, W, H) for box in boxes]
    if sum((x1 - x0 + 2 * reach) * (y1 - y0 + 2 * reach) for x0, x1, y0, y1 in regions) >= H * W:
        return smoothed(img, sigma)
    out = np.empty_like(img)
    for x0, x1, y0, y1 in regions:
        bx0, by0 = max(0, x0 - reach), max(0, y0 - reach)
        region = smoothed(img[by0:min(H, y1 + reach), bx0:min(W, x1 + reach)], sigma)
        out[y0:y1, x0:x1] = region[y0 - by0:y1 - by0, x0 - bx0:x1 - bx0]
    return out


def _region(box: tuple, pad: float, W: int, H: int) -> tuple[int, int, int, int]:
    """The pixels (x0, x1, y0, y1) `crop_patch` reads for a box grown by `pad`, with bilinear's neighbours."""
    (cx, cy), (half_w, half_h) = box[:2], _half_sides(box, pad, extra=2)
    return (*_span(cx - half_w, cx + half_w, W), *_span(cy - half_h, cy + half_h, H))


def _overlaps(box: tuple, pad: float, W: int, H: int) -> bool:
    """Whether the box grown by `pad` covers a pixel of a W x H frame in both directions."""
    cx, cy = box[:2]
    half_w, half_h = _half_sides(box, pad)
    return cx + half_w > 1 and cx - half_w < W - 1 and cy + half_h > 1 and cy - half_h < H - 1


def _half_sides(box: tuple, pad: float, extra: float = 0.0) -> tuple[float, float]:
    """Half the sides of the region `crop_patch` cuts for a box grown by `pad`, and `extra` px more."""
    _, _, w, h = box
    return max(w * pad, 4.0) / 2 + extra, max(h * pad, 4.0) / 2 + extra


def _span(lo: float, hi: float, side: int) -> tuple[int, int]:
    """The pixel columns (or rows) [lo, hi) reaches, within the frame and never empty (outside it, a crop
    reads the frame's edge)."""
    start = min(max(int(np.floor(lo)), 0), side - 1)
    return start, max(min(int(np.ceil(hi)), side), start + 1)


def crop_rect(img: np.ndarray, rect: tuple, pad: float = PAD, size: int = SIZE) -> np.ndarray:
    """The die's outline rectangle (a cv2.minAreaRect: centre, sides, angle) grown by `pad`, cut out as an
    upright square of size x size along the die's own edges (BGR uint8), so only the four quarter turns of a
    face are left to tell apart, and the face fills the crop whatever its angle on the tray."""
    (cx, cy), (rw, rh), ang = rect
    side = max(rw, rh, 4.0) * pad
    k = side / size
    if k > 1.6:
        # shrink the die's surroundings first (warpAffine samples, it does not average)
        H, W = img.shape[:2]
        r = 0.75 * side
        x0, y0 = max(0, int(cx - r)), max(0, int(cy - r))
        x1, y1 = min(W, int(cx + r) + 1), min(H, int(cy + r) + 1)
        if x1 - x0 >= 2 and y1 - y0 >= 2:
            f = 1.2 / k
            img = cv2.resize(img[y0:y1, x0:x1], None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
            cx, cy, side = (cx - x0) * f, (cy - y0) * f, side * f
            k = side / size
    a = math.radians(ang)
    ux, uy = math.cos(a) * k, math.sin(a) * k
    # output (u, v) -> source: centre + (u - size/2) * (ux, uy) + (v - size/2) * (-uy, ux)
    h = size / 2.0 - 0.5
    M = np.array([[ux, -uy, cx - ux * h + uy * h], [uy, ux, cy - uy * h - ux * h]], np.float32)
    return cv2.warpAffine(img, M, (size, size), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def quarter_turns(crops: np.ndarray) -> np.ndarray:
    """(n, size, size, 3) -> (4n, size, size, 3): each crop in its four quarter turns (crop i turned k times
    anticlockwise is row 4i + k). A face cut along the die's edges lies in one of them the way the model
    learnt it (upright as drawn); the reader keeps the turn the model is surest of."""
    return np.stack([np.rot90(crops, k, axes=(1, 2)) for k in range(4)], 1).reshape(-1, *crops.shape[1:])


def normalise_patch(patch: np.ndarray) -> np.ndarray:
    """A BGR patch as the network sees it (size x size x 3 float32): each channel less its mean, all divided
    by the patch's overall spread, so only contrast is left: dark pips on light dice, light on dark, red on
    yellow alike (training permutes and inverts the channels, so no hue or polarity is special)."""
    p = patch.astype(np.float32)
    p = p - p.reshape(-1, 3).mean(0)
    return p / (float(p.std()) + 4.0)  # +4: a flat patch stays flat instead of amplifying noise


def normalise_batch(patches: np.ndarray, norm: str = "rgb") -> np.ndarray:
    """`normalise_patch` for a stack of patches (n, size, size, 3) at once (one numpy pass, not n). `norm`
    "grey": one channel (n, size, size, 1), the patch's brightness less its mean over its spread."""
    n = len(patches)
    if norm == "grey":
        g = cv2.cvtColor(np.ascontiguousarray(patches).reshape(-1, patches.shape[2], 3), cv2.COLOR_BGR2GRAY)
        f = g.reshape(n, -1).astype(np.float32)
        f -= f.mean(1, keepdims=True)
        f *= (1.0 / (np.sqrt(np.einsum("ij,ij->i", f, f) / f.shape[1]) + 4.0))[:, None]
        return f.reshape(n, patches.shape[1], patches.shape[2], 1)
    p = patches.reshape(n, -1, 3).astype(np.float32)
    # channel means as a matrix product: numpy's reduction over the middle axis is several times slower
    p -= np.full((1, p.shape[1]), 1.0 / p.shape[1], np.float32) @ p
    f = p.reshape(n, -1)
    sd = np.sqrt(np.einsum("ij,ij->i", f, f) / f.shape[1])
    p *= (1.0 / (sd + 4.0)).astype(np.float32)[:, None, None]
    return p.reshape(patches.shape)


def normalise_crop(img: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    return normalise_patch(crop_patch(img, box))


@dataclass(frozen=True)
class Prediction:
    label: str           # class name ("1".."6" for pips, or "none")
    index: int           # class index
    confidence: float    # calibrated probability of `label`
    second: float        # calibrated probability of the runner-up
    embedding: np.ndarray
    turns_sure: bool = False   # the mean of its four quarter turns names the face at least `turns_certain_at`


class FaceClassifier:
    """One dice kind's CNN. `predict(img, boxes)` classifies every box in one batch."""

    # the views a doubted crop is read in, itself included (its JSON's "turn_views"): its four quarter turns,
    # or with 8 their mirror images too (`TURNS_AND_MIRRORS`); its turns' level is fitted on the same mean
    turn_views: int = 4
    # the Gaussian (sigma in px) the frame is smoothed by before its crops are cut (its JSON's
    # "smooth_sigma"; 0: none), see `cut`
    smooth_sigma: float = 0.0

    def __init__(self, onnx_path: Path, meta: dict):
        self.net = load_net(onnx_path)
        self.classes: list[str] = list(meta["classes"])
        self.size = int(meta.get("size", SIZE))  # the input side this model was trained at
        self.pad = float(meta.get("pad", PAD))   # and the crop's padding and normalisation
        self.norm = str(meta.get("norm", "rgb"))
        self.channels = 1 if self.norm == "grey" else 3
        self.temperature = float(meta.get("temperature", 1.0))
        self.certain_at = float(meta.get("certain_at", 0.99))
        turns_at = meta.get("turns_certain_at")
        self.turns_certain_at = float(turns_at) if turns_at is not None else None
        self.turn_views = int(meta.get("turn_views", 4))
        self.smooth_sigma = float(meta.get("smooth_sigma", 0.0))
        self.meta = meta
        self._outs = self.net.getUnconnectedOutLayersNames()

    def run(self, batch: np.ndarray, allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(probabilities, embeddings) for a (n, size, size, channels) float32 batch of normalised crops. `allowed`
        (a bool per class): the softmax is taken over those classes only (the faces of the set being read,
        and "none"), as the model was trained; the others get probability 0."""
        if len(batch) == 0:
            return np.zeros((0, len(self.classes)), np.float32), np.zeros((0, 0), np.float32)
        self.net.setInput(np.ascontiguousarray(batch.transpose(0, 3, 1, 2), dtype=np.float32))
        outs = dict(zip(self._outs, self.net.forward(self._outs), strict=True))
        logits = outs["logits"].reshape(len(batch), -1) / self.temperature
        if allowed is not None:
            logits = np.where(allowed[None, :], logits, -np.inf)
        emb = outs["embedding"].reshape(len(batch), -1)
        z = logits - logits.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        return p, emb

    def predict(self, img: np.ndarray, boxes: list, allowed: np.ndarray | None = None,
                mirror: bool = False, both_ways: bool = False, turns: bool = False) -> list[Prediction]:
        """One prediction per box (cx, cy, w, h), in one cv2.dnn batch. `mirror`: the crops are flipped
        left-right first (for a camera that sees faces mirrored: `glyphs.seen_mirrored`). `both_ways`: each
        crop is also read mirrored, where that can change the answer (`join_mirrored` says how the two
        answers are joined; up to twice the network's time, so for still photos only).
        `turns` (instead of `both_ways`): each crop the network names a face of without being sure of it
        (below `certain_at`) is also read in its other three quarter turns (`join_views`): for dice seen from
        below, which lie at any angle; a sure crop is not read again, so a clean tray costs nothing more."""
        if not boxes:
            return []
        crops = self.cut(img, boxes)
        if mirror:
            crops = crops[:, :, ::-1]
        probs, emb = self.run(normalise_batch(crops, self.norm), allowed)
        turns_sure = np.zeros(len(boxes), bool)
        if turns:
            views = TURNS_AND_MIRRORS if self.turn_views == 8 else TURNS
            probs, conf, again = joined_with_views(self, crops, probs, allowed, views, unsure_only=True)
            if self.turns_certain_at is not None:
                named = probs.argmax(1) != self.classes.index("none")
                turns_sure = again & named & (probs.max(1) >= self.turns_certain_at)
        elif both_ways:
            probs, conf, _ = joined_with_views(self, crops, probs, allowed, MIRRORED)
        else:
            conf = probs.max(1)
        out = []
        for p, c, e, t in zip(probs, conf, emb, turns_sure, strict=True):
            order = np.argsort(-p)
            out.append(Prediction(self.classes[order[0]], int(order[0]), float(c), float(p[order[1]]), e, bool(t)))
        return out

    def cut(self, img: np.ndarray, boxes: list) -> np.ndarray:
        """Each box (cx, cy, w, h) cut as the network reads it (n, size, size, 3 uint8): from the frame
        smoothed by `smooth_sigma` where the model's JSON names one. Why: from below, a Cycles render's grain
        (and a dim sensor's) speckles a die's face pixel by pixel; a crop shrunk by less than 1.5x is sampled,
        not averaged (`crop_patch`), and each crop is divided by its own spread (`normalise_patch`), so the
        speckle drowns the pips. Given the true boxes of 2,713 held-back dice from below, the shipped d6
        network at its own levels named 91.37% right and 73.02% sure and right, none certain and wrong, on
        frames smoothed by 0.8 px; 90.05%, 71.32% and 3 unsmoothed (docs/dice-sets.md, 50th session). The
        network shipped since the 52nd session learnt from crops cut so (`train_reader_undertray
        --smooth`)."""
        if self.smooth_sigma > 0:
            img = smoothed_around(img, boxes, self.smooth_sigma, self.pad)
        return np.stack([crop_patch(img, b, pad=self.pad, size=self.size) for b in boxes])

    def second_looks(self, img: np.ndarray, boxes: list) -> np.ndarray:
        """Probabilities (n, len(LOOKS), classes) of each box (cx, cy, w, h) seen again as `LOOKS` says, in one
        batch. Why: on photos of dice sets it never trained on, the CNN can be sure of a part of a face (two
        pips of a 6 read as a 2) or of a side face; a die it is really sure of keeps its face when the box
        is grown or nudged, a part of a face does not (the larger box shows the rest of the face)."""
        if not boxes:
            return np.zeros((0, len(LOOKS), len(self.classes)), np.float32)
        looks = [(cx + dx * w, cy + dy * h, w * s, h * s) for cx, cy, w, h in boxes for s, dx, dy in LOOKS]
        probs, _ = self.run(normalise_batch(self.cut(img, looks), self.norm))
        return probs.reshape(len(boxes), len(LOOKS), -1)


# The second looks at a die the CNN and one pip count agree on (scale of the box, shift in box sides): the box
# grown by a quarter, and nudged down-right by 6%. Chosen on the accuracy bench's photos (see docs/dice-sets.md):
# of the four looks tried (these two, a mirror image, the box shrunk by 5%) these two removed most wrong-but-
# certain dice for the fewest right ones made unsure.
LOOKS = ((1.25, 0.0, 0.0), (1.0, 0.06, 0.06))


def _mirrored(crops: np.ndarray) -> np.ndarray:
    return crops[:, :, ::-1]


MIRRORED = (_mirrored,)
# the other three quarter turns of a crop stack (n, size, size, 3)
TURNS = tuple(lambda crops, k=k: np.rot90(crops, k, axes=(1, 2)) for k in (1, 2, 3))
# ... and the mirror image in all four turns: a pip face mirrored is the same face
_MIRRORED_TURNS = tuple(lambda crops, k=k: np.rot90(crops[:, :, ::-1], k, axes=(1, 2)) for k in (1, 2, 3))
TURNS_AND_MIRRORS = TURNS + (_mirrored,) + _MIRRORED_TURNS


def join_mirrored(plain: np.ndarray, mirrored: np.ndarray, none: int) -> tuple[np.ndarray, np.ndarray]:
    """(probabilities, confidence) of crops read as they are and mirrored (`join_views`). On photos of dice
    sets never trained on the mean names more faces rightly (given their labelled boxes: roboflow-d6 left out
    82.73% -> 84.60%, webcam-d6 left out 90.96% -> 91.04%; turned by half a turn instead, 76.34% and 89.97%:
    dice seen at an angle show their top face high in the box, as the model was trained)."""
    return join_views(plain, [mirrored], none)


def joined_with_views(clf: FaceClassifier, crops: np.ndarray, plain: np.ndarray, allowed: np.ndarray | None,
                      views: tuple, unsure_only: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`join_views` of `clf`'s plain readings of `crops` with the crops read in `views` (functions of a crop
    stack), where the other views can matter, and which crops were read again: a crop whose plain reading is
    "not a die" keeps it whatever they say, so only the others are read again (a third of a photo's candidates
    are "not a die", on the speed bench's photos); `unsure_only`: nor a crop read at least `certain_at` sure.
    The network reads each crop of a batch alone: the answers are those of every view in one batch. (The pip
    CNN's `predict` and a symbol set's network, `symbolnet.with_network`, both read so.)"""
    none = clf.classes.index("none") if "none" in clf.classes else -1
    need = plain.argmax(1) != none
    if unsure_only:
        need &= plain.max(1) < clf.certain_at
    others = [plain.copy() for _ in views]  # (a "not a die" row's other views are never looked at)
    if need.any():
        seen = np.concatenate([view(crops[need]) for view in views])
        probs = clf.run(normalise_batch(np.ascontiguousarray(seen), clf.norm), allowed)[0]
        for k, part in enumerate(np.split(probs, len(views))):
            others[k][need] = part
    return (*join_views(plain, others, none), need)


def join_views(plain: np.ndarray, others: list[np.ndarray], none: int) -> tuple[np.ndarray, np.ndarray]:
    """(probabilities, confidence) of crops read as they are and in other views (mirrored, turned). The face is
    the likeliest of the views' mean: a pip face mirrored or turned is the same face, and a die the network
    reads doubtfully one way it often reads rightly another. Where the plain reading's or the mean's
    likeliest class is `none` ("not a die") the plain reading stands: the mean of plain and mirrored made 19
    boxes of roboflow-d6's dice "not a die" where the plain reading made 11 (dice dropped), and a rendered d6
    was missed. The confidence is the plain reading's when it names the same face (the threshold
    `certain_at` was fitted on plain readings), else the mean's, which is lower: as many dice are certain as
    before, and none that the views dispute."""
    mean = (plain + sum(others)) / (1 + len(others))
    keep = (plain.argmax(1) == none) | (mean.argmax(1) == none)
    probs = np.where(keep[:, None], plain, mean)
    same = plain.argmax(1) == probs.argmax(1)
    return probs, np.where(same, plain.max(1), probs.max(1))


def best_turn(probs: np.ndarray, none: int) -> np.ndarray:
    """Probabilities (4n, classes) of the four quarter turns of n crops -> (n, classes): per crop, the turn
    whose likeliest face (not "none") is likeliest."""
    p = probs.reshape(-1, 4, probs.shape[1])
    face = np.delete(p, none, axis=2).max(2)
    return p[np.arange(len(p)), face.argmax(1)]


@lru_cache(maxsize=8)
def load(kind: str) -> FaceClassifier | None:
    """The shipped classifier for a dice kind ("pips"...), or None when the package has none for it."""
    onnx_path = MODELS / f"{kind}.onnx"
    meta_path = MODELS / f"{kind}.json"
    if not onnx_path.exists() or not meta_path.exists():
        return None
    clf = FaceClassifier(onnx_path, json.loads(meta_path.read_text(encoding="utf-8")))
    clf.run(np.zeros((1, clf.size, clf.size, clf.channels), np.float32))  # the first forward builds the graph: do it now
    return clf
