"""Finder: where the dice are, as whole-die boxes, before any face is read.

Independent cues propose candidates, and the face classifier (which has a "not a die" class) decides:
- outline: the foreground against a background (learned from empty frames when the box has one, else a
  smooth surface fitted to the frame itself), split where a distance transform says dice touch, blurred or
  edge-cut shapes dropped (`reader.find_dice`);
- pips: clusters of small round blobs of one size (`pips.pip_dice`), which find a die on any floor and give
  the pip count the classifier must agree with before a pip die is certain;
- in a frame with no learned background (a still photo, the first frames), the learned finder
  (`detector.py`): a small network trained on real photos that marks whole dice the other cues miss.
Every size comes from the image (blob geometry, pip radii, the network's own map), never from a pixel constant.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .pips import Face, pip_dice


@dataclass
class Candidate:
    box: tuple[float, float, float, float]   # cx, cy, w, h (px) of the whole die
    source: str                              # "outline", "pips" or "detector" (the learned finder)
    pips: int | None = None                  # pips the pip finder counted on its top face, if it saw them
    face: Face | None = None                 # the pip finder's face (its own confidence checks use it)
    rect: tuple | None = None                # the outline's rotated rectangle (cv2.minAreaRect), if any
    crop_pips: int | None = None             # pips counted in the outline's own crop (`count_pips`)
    off_centre: bool = False                 # a pip face inside an outline but away from its middle
    low: bool = False                        # a pip face in the lower part of the outline around it: seen from
                                             # above at an angle, a die's front face (its top face above it)
    fill: float | None = None                # how much of its rotated rectangle the outline fills (a die
                                             # lying flat: about 0.9; a part or a merge of shapes: less)
    blob: object | None = None               # the outline itself (`reader.Blob`: a part of a die is refitted)
    score: float = 0.0                       # the learned finder's heatmap peak (its boxes only)


def outline_candidates(blobs: list) -> list[Candidate]:
    out = []
    for b in blobs:
        x, y, w, h = b.mask_box
        rw, rh = b.rect[1]
        out.append(Candidate((x + w / 2.0, y + h / 2.0, float(w), float(h)), "outline", rect=b.rect,
                             fill=float(b.area / max(rw * rh, 1.0)), blob=b))
    return out


# A pip face's box, in face sides (`Face.size`, from the fitted pip layout). The layout is the renderer's; on
# real dice the pips sit closer to the middle and the edges are rounded, so the face measured from its pips is
# smaller than the die (on roboflow-d6 the box at 1.12 was 0.65 of the labelled die, median), and the
# classifier, trained on whole dice, called many "not a die" or misread them. 1.25 on the photo bench
# (roboflow-d6, every 4th photo, cross-validated): right 48.9% -> 50.3%, missed 20.0% -> 19.5%, phantoms
# 308 -> 297, silent 1 -> 0; renders unchanged (docs/dice-sets.md).
PIP_BOX = 1.25


# A lone light spot is a glare rather than a pip when the area above half its contrast is over this many times
# the area above 85% of it (a light that peaks in its middle; a pip is a disc of one level: 1.0-1.3 on renders)
GLARE_PEAK = 2.0


def glare_spot(lightness: np.ndarray, f: Face) -> bool:
    """Whether a lone light "pip" is a glare: a lamp's reflection on the glass, or its glow, is light that
    peaks in its middle and falls off, where a pip is a disc of one level with a sharp rim. Why: under the
    tray before the room is learned, glare spots 8-10 px across passed the pip finder's checks (a clean ring
    of dark room around them) and the CNN, which sees a light dot in a dark square, named each a 1 (a black
    die's 1 seen from below, that is a 6): 211 unsure phantom dice on the d6 and Regidice renders under the
    tray without a learned room, seeds 1-3, where the real lone pips measured 0.98-1.33 and the glares
    2.67-5.74. Pips under 4 px are left alone (blur alone makes them peak)."""
    if f.count != 1 or len(f.pips) != 1:
        return False
    p = f.pips[0]
    if p.polarity != -1 or p.channel != 0 or p.r < 4.0:
        return False
    R = int(math.ceil(2.6 * p.r)) + 1
    H, W = lightness.shape[:2]
    x0, y0, x1, y1 = max(0, int(p.x) - R), max(0, int(p.y) - R), min(W, int(p.x) + R + 1), min(H, int(p.y) + R + 1)
    win = lightness[y0:y1, x0:x1].astype(np.float32)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d = np.hypot(xx - p.x, yy - p.y)
    ring, core = win[(d > 2.0 * p.r) & (d < 2.6 * p.r)], win[d < 0.5 * p.r]
    if ring.size < 8 or core.size == 0:
        return False
    bg = float(np.median(ring))
    c = float(np.percentile(core, 90)) - bg
    if c <= 0:
        return False
    return int((win > bg + 0.5 * c).sum()) > GLARE_PEAK * max(int((win > bg + 0.85 * c).sum()), 1)


def pip_candidates(lab: np.ndarray) -> list[Candidate]:
    """The pip finder's faces as candidates, glare spots (`glare_spot`) left out."""
    out = []
    for f in pip_dice(lab):
        if glare_spot(lab[..., 0], f):
            continue
        side = PIP_BOX * f.size
        out.append(Candidate((f.cx, f.cy, side, side), "pips", f.count if 1 <= f.count <= 6 else None, f))
    return out


def count_pips(img: np.ndarray, rect: tuple, size: int = 48) -> int | None:
    """Pips on the face in `rect` (a cv2.minAreaRect of the die's outline), counted quickly in a small
    resampled crop (for a die found by its outline against a learned background, where a full pip search
    would cost more than the whole read): the face is cut out square along its own edges, projected on its
    main colour axis, split by Otsu, and the minority blobs of one size are the pips. None when no clean
    count exists (no contrast, blobs of mixed sizes, more than six)."""
    (cx, cy), (rw, rh), ang = rect
    s = 0.8 * min(rw, rh)  # the face inside its rounded, shaded edge (pips reach 0.35 of the side)
    if s < 8:
        return None
    a = math.radians(ang)
    ux, uy = math.cos(a) * s / size, math.sin(a) * s / size
    # output (u, v) -> frame: centre + u * (ux, uy) + v * (-uy, ux), with (u, v) measured from the middle
    M = np.array([[ux, -uy, cx - (ux - uy) * size / 2], [uy, ux, cy - (uy + ux) * size / 2]], np.float32)
    patch = cv2.warpAffine(img, M, (size, size), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE).reshape(-1, 3).astype(np.float32)
    # the main colour axis: the covariance's first eigenvector (its eigenvalue is the spread along it)
    cov, mean = cv2.calcCovarMatrix(patch, None, cv2.COVAR_NORMAL | cv2.COVAR_ROWS)
    _, evals, vecs = cv2.eigen(cov)
    if evals[0, 0] < (6.0 ** 2) * len(patch):
        return None
    g = (patch - mean.astype(np.float32)) @ vecs[0].astype(np.float32)
    g8 = cv2.normalize(cv2.GaussianBlur(g.reshape(size, size), (3, 3), 0), None, 0, 255,
                       cv2.NORM_MINMAX).astype(np.uint8)  # blurred a little: sensor noise makes no blobs
    _, th = cv2.threshold(g8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    inner = _inner(size)
    if cv2.countNonZero(cv2.bitwise_and(th, inner)) > 0.5 * cv2.countNonZero(inner):
        th = 255 - th  # pips are the minority
    th = cv2.bitwise_and(th, inner)
    _, _, stats, _ = cv2.connectedComponentsWithStats(th, connectivity=8)
    areas = []
    for _x, _y, w, h, area in stats[1:].tolist():  # (a few blobs: plain Python beats numpy's call overhead)
        if area < 0.002 * size * size:
            continue  # a speck
        if area < 0.45 * w * h:
            return None  # a streak, not a round pip
        areas.append(area)
    if len(areas) == 0 or len(areas) > 6:
        return None
    med = statistics.median(areas)
    if max(areas) > 2.2 * med or min(areas) < 0.45 * med or med > 0.08 * size * size:
        return None
    return len(areas)


@lru_cache(maxsize=4)
def _inner(size: int) -> np.ndarray:
    """The crop less a thin border (the die's edge, not a pip), as a 0/255 mask."""
    inner = np.zeros((size, size), np.uint8)
    m = int(0.08 * size)
    inner[m:size - m, m:size - m] = 255
    return inner


def attach_pip_counts(cands: list[Candidate], pip_cands: list[Candidate]) -> None:
    """Give each outline (or detector) candidate the count of the pip face lying inside it (the top face)."""
    for c in cands:
        if c.source not in ("outline", "detector"):
            continue
        cx, cy, w, h = c.box
        best = None
        for p in pip_cands:
            d = math.hypot(p.box[0] - cx, p.box[1] - cy)
            if d < 0.35 * max(w, h) and (best is None or d < best[0]):
                best = (d, p)
        if best is not None:
            c.pips, c.face = best[1].pips, best[1].face


def detector_candidates(found: list, cands: list[Candidate], pip_cands: list[Candidate]) -> list[Candidate]:
    """The learned finder's detections (`detector.Detection`) as candidates, leaving out those the hand-made
    cues already proposed (a candidate centred within a quarter of the die's side, of about its size: the
    classifier would only read the same die twice). Each keeps the pip finder's count of a face inside it.
    No crop count: the box is upright, not along the die's edges, so a count there is no second opinion."""
    out = []
    for d in found:
        cx, cy, w, h = d.box
        side = max(w, h)
        if any(abs(c.box[0] - cx) < 0.25 * side and abs(c.box[1] - cy) < 0.25 * side and
               0.75 * side <= max(c.box[2:]) <= 1.33 * side for c in cands):
            continue
        out.append(Candidate((cx, cy, w, h), "detector", score=float(d.score)))
    attach_pip_counts(out, pip_cands)
    return out


def body_colour(img: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    """Median BGR of the middle of the box: the body, which covers most of any face (pips are a minority)."""
    cx, cy, w, h = box
    H, W = img.shape[:2]
    x0, x1 = int(max(0, cx - 0.25 * w)), int(min(W, cx + 0.25 * w + 1))
    y0, y1 = int(max(0, cy - 0.25 * h)), int(min(H, cy + 0.25 * h + 1))
    if x1 <= x0 or y1 <= y0:
        return np.array([128.0, 128.0, 128.0])
    roi = img[y0:y1, x0:x1]
    # per channel from its histogram (a numpy median over a column costs several times more)
    return np.array([_median_u8(roi, c) for c in range(3)])


def blue_cast(img: np.ndarray, box: tuple[float, float, float, float]) -> tuple[float, float]:
    """How much bluer than grey the bluest quarter of the box's middle is (the 75th percentile of each pixel's
    blue less the mean of its green and red, 0-255): as the camera saw it, and white-balanced on the die's own
    pips (`_pip_balanced`). Why: from below, a dark blue die's body median is grey enough to be named black (its
    blue shows in the lit part of the grain, not in the median), and a black die's pips and body are grey either
    way (`reader`'s use: a die named black is not certain with a cast). Under warm LEDs the whole frame loses its
    blue, a blue die's grain with it; its white pips lose the same, so against them the grain is blue again."""
    cx, cy, w, h = box
    H, W = img.shape[:2]
    x0, x1 = int(max(0, cx - 0.3 * w)), int(min(W, cx + 0.3 * w + 1))
    y0, y1 = int(max(0, cy - 0.3 * h)), int(min(H, cy + 0.3 * h + 1))
    if x1 <= x0 or y1 <= y0:
        return 0.0, 0.0
    roi = img[y0:y1, x0:x1].reshape(-1, 3).astype(np.float32)
    return _bluest_quarter(roi), _bluest_quarter(_pip_balanced(roi))


def _bluest_quarter(bgr: np.ndarray) -> float:
    return float(np.percentile(bgr[:, 0] - 0.5 * (bgr[:, 1] + bgr[:, 2]), 75))


PIP_SHARE = 0.15  # the brightest share of a die's middle taken for its white pips (`_pip_balanced`)


def _pip_balanced(bgr: np.ndarray) -> np.ndarray:
    """Pixels (n, 3) scaled per channel so that the brightest PIP_SHARE of them come out grey: white balance on
    the die's own white pips, as a photographer balances on a grey card. Where the middle holds no pip, the
    brightest pixels are the body's own lit grain and balancing on them takes its colour away: the reader
    doubts a die when either cast is high, so this can only add doubt."""
    if len(bgr) < 20:
        return bgr
    v = bgr.sum(1)
    pips = bgr[v >= np.quantile(v, 1.0 - PIP_SHARE)].mean(0) + 1.0
    return bgr * np.clip(pips.mean() / pips, 0.5, 2.0)


def _median_u8(img: np.ndarray, channel: int) -> float:
    hist = cv2.calcHist([img], [channel], None, [256], [0, 256]).ravel()
    c = np.cumsum(hist)
    half = 0.5 * c[-1]
    lo = int(np.searchsorted(c, half))  # the middle value (the mean of the two middle ones for an even count)
    hi = int(np.searchsorted(c, half, side="right")) if c[lo] == half else lo
    return 0.5 * (lo + hi)


def suppress(order: list[int], boxes: list[tuple[float, float, float, float]], overlap: float = 0.45) -> list[int]:
    """Keep candidates in `order` (best first), dropping one whose centre lies within `overlap` of a kept
    one's size: the same die proposed twice."""
    kept: list[int] = []
    for i in order:
        if any(same_die(boxes[i], boxes[k], overlap) for k in kept):
            continue
        kept.append(i)
    return kept


def same_die(a: tuple, b: tuple, overlap: float = 0.45) -> bool:
    """Whether two boxes (cx, cy, w, h) are one die proposed twice: centres within `overlap` of the larger's side."""
    return math.hypot(a[0] - b[0], a[1] - b[1]) < overlap * max(max(a[2:]), max(b[2:]))


def to_int_box(box: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
    cx, cy, w, h = box
    return (int(round(cx - w / 2)), int(round(cy - h / 2)), int(round(w)), int(round(h)))


__all__ = ["Candidate", "outline_candidates", "detector_candidates", "pip_candidates", "attach_pip_counts", "body_colour", "suppress", "same_die",
           "to_int_box"]

