"""Stage **find**: where the dice are, as whole-die blobs, before any face is read.

The foreground is the difference to a background (the box's learned empty tray, or for a still photo a smooth
surface fitted to the frame itself), thresholded at a multiple of that frame's own noise; its blobs are split
where a distance transform says dice touch, and blurred shapes (a lamp, a sleeve above the glass) and rims
coming in from the frame's edge are dropped. Every size comes from the image. The pip path adds the pip
finder's faces and the learned finder's boxes as candidates (`find_candidates`, `vision/finder.py`); icon dice
in a still photo add the learned finder's boxes as blobs (`detector_blobs`).
Read first: `find_dice`, then `foreground`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .detector import Detection, DieDetector
from .finder import (
    Candidate,
    attach_pip_counts,
    count_pips,
    detector_candidates,
    outline_candidates,
    pip_candidates,
)
from .outline import faces_in_blob, refit_square
from .readsize import FOUND, ROOMS

MIN_DIE = 14        # px, smallest die side we look for (at working scale)
# one whole die's outline: its rotated rectangle at most DIE_LONG times as long as wide, its area at least DIE_FILL
# of that rectangle (a blob outside these is split, and a split's parts are judged by them)
DIE_LONG = 1.45
DIE_FILL = 0.72
# a blob's rotated rectangle at most this elongated is square enough to be one die (see find_dice's hooks)
HOOK_SQUARE = 1.2
MAX_DIE = 240
# A blob with no crisp outline read with the room is searched for a die's square inside it only when at most
# this much longer than wide: a die's soft halo is about round (1.0-1.1 on Blender's denoised 960x720 frames),
# and the search cost 6 ms a read on a 640x480 frame with a blurred sleeve of 360x240 px in view
HALO_LONG = 1.3
# Under the tray a frame read without the room is searched by the pip finder too only when no learned finder
# is given. Why: from below the learned finder (trained on the box's view) boxes the dice, and the pip
# finder's whole-frame search found mostly the room's spots (the LED ring in the plate, lamps) at half the
# read's cost. Blender's frames read merged with it / without it, certain-right: d6 test seeds 1-3 (250 dice)
# 45.60 / 44.80% at 320x240, 47.60 / 47.60% at 640x480, 48.40 / 49.20% at 1296x972; tables 118-123 (395
# dice) 53.16 / 53.92% at 320x240, 56.20 / 57.47% at 1296x972, tables 124-129 (430 dice) 34.42 / 34.65% at
# 1296x972; phantoms fewer in each, silent as before (docs/dice-sets.md, 20th session).
# `bench/vision_undertray.py --roomless-pips` reads with it.
PIPS_UNDER = False


@dataclass
class Blob:
    contour: np.ndarray
    rect: tuple[tuple[float, float], tuple[float, float], float]  # minAreaRect
    area: float
    solidity: float
    mask_box: tuple[int, int, int, int]
    whole: Blob | None = None  # the blob this one is a part of, when the touching-dice split parted it
    cut: bool = False          # cut out of a row of dice by measure (`_chain_parts`), not by its own outline
    density: float = 1.0       # the share of its bounding box the foreground mask covers (before the mask was
                               # opened and closed): a dark die on a dark floor is a few pips and noise


@lru_cache(maxsize=4)
def _quadratic_design(h: int, w: int) -> np.ndarray:
    """The quadratic surface's design matrix on an h x w grid (1, x, y, x^2, y^2, xy per pixel; read-only):
    the same for every frame of a size, so made once."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xx = xx / w - 0.5
    yy = yy / h - 0.5
    A = np.stack([np.ones_like(xx), xx, yy, xx * xx, yy * yy, xx * yy], -1).reshape(-1, 6)
    A.flags.writeable = False
    return A


def _robust_surface(small: np.ndarray, iters: int = 4) -> np.ndarray:
    """Fit a quadratic surface per channel to `small` (h, w, c float32), ignoring outliers (the dice)."""
    h, w, c = small.shape
    A = _quadratic_design(h, w)
    Y = small.reshape(-1, c)
    # start from pixels close to the per-channel median (the floor is the majority)
    med = np.median(Y, 0)
    r0 = np.abs(Y - med).sum(1)
    keep = r0 <= np.percentile(r0, 60)
    coef = None
    for _ in range(iters):
        coef, *_ = np.linalg.lstsq(A[keep], Y[keep], rcond=None)
        res = np.abs(Y - A @ coef).sum(1)
        s = np.median(res[keep]) + 1e-3
        keep = res < 3.0 * s + 2.0
        if keep.sum() < 20:
            break
    return (A @ coef).reshape(h, w, c).astype(np.float32)


def _split_channels_diff(lab: np.ndarray, bg: np.ndarray) -> np.ndarray:
    d = cv2.absdiff(lab, bg)
    dl, da, db = cv2.split(d)
    chroma = cv2.add(da, db)
    return cv2.max(dl, cv2.add(chroma, chroma))


def _background_lab(background: np.ndarray, w: int, h: int) -> np.ndarray:
    """The learned background in Lab, slightly blurred, made once for the room (`readsize.ROOMS`)."""
    return ROOMS.get(background, ("lab", w, h), lambda: _made_lab(background, w, h))


def _made_lab(background: np.ndarray, w: int, h: int) -> np.ndarray:
    src = background if background.shape[:2] == (h, w) else cv2.resize(background, (w, h), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(cv2.cvtColor(src, cv2.COLOR_BGR2Lab), (5, 5), 0)


def foreground(frame: np.ndarray, lab: np.ndarray, mount: str, background: np.ndarray | None,
               blur: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Foreground mask (uint8 0/255) and the difference image it came from. `blur`: the smoothing kernel's
    side (0: as wide as its sigma asks; a frame already shrunk by area averaging needs less)."""
    h, w = lab.shape[:2]
    bg_lab = _background_lab(background, w, h) if background is not None else _fitted_floor(lab)
    sigma = max(1.0, min(h, w) / 320.0)
    labb = cv2.GaussianBlur(lab, (blur, blur), sigma)
    diff = _split_channels_diff(labb, bg_lab)
    if mount == "over":
        diff.ravel()[_shadow_pixels(labb, bg_lab)] = 0  # (diff is this call's own array)
    return _hysteresis(diff), diff


def _fitted_floor(lab: np.ndarray) -> np.ndarray:
    """A still photo's floor in Lab: a quadratic surface fitted robustly to the frame at 64 px wide, and what
    the quadratic misses (a glare spot, a lamp, the tray's own unevenness) but is wider than a die: a large
    median of the residual, added back."""
    h, w = lab.shape[:2]
    sw = 64
    sh = max(8, int(round(h * sw / w)))
    small = cv2.resize(lab, (sw, sh), interpolation=cv2.INTER_AREA).astype(np.float32)
    fit = _robust_surface(small)
    res = np.clip(small - fit + 128.0, 0, 255).astype(np.uint8)
    k = 13 if sw >= 60 else 9
    res = cv2.medianBlur(res, k).astype(np.float32) - 128.0
    fit = fit + res
    return cv2.resize(np.clip(fit, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)


def _shadow_lightness_bounds() -> tuple[np.ndarray, np.ndarray]:
    """For each floor lightness Lb (0-255), the pixel lightnesses Lp that `_shadow_pixels`'s ratio test passes,
    as a range lo[Lb] <= Lp <= hi[Lb] (empty: lo 1, hi 0). Found by the test itself on every (Lp, Lb) pair in
    float32, as it was computed per pixel; the ratio grows with Lp, so the passing Lp are one range."""
    lp = np.arange(256, dtype=np.float32)[:, None]
    lb = np.arange(256, dtype=np.float32)[None, :] + 1.0
    ratio = lp / lb
    ok = (ratio > 0.4) & (ratio < 0.97)
    lo = np.where(ok.any(0), ok.argmax(0), 1).astype(np.uint8)
    hi = np.where(ok.any(0), 255 - ok[::-1].argmax(0), 0).astype(np.uint8)
    return lo, hi


_SHADOW_LO, _SHADOW_HI = _shadow_lightness_bounds()


def _shadow_pixels(labb: np.ndarray, bg_lab: np.ndarray) -> np.ndarray:
    """Shadows on the floor (seen from above), as flat pixel indices: darker than the floor, with the floor's
    own hue and a proportionally weaker chroma. The lightness ratio is looked up (`_shadow_lightness_bounds`)
    and the chroma tests run only on the pixels it passes: the same pixels as the whole frame's float
    arithmetic and boolean mask, which cost 10-14 ms of a 640x640 photo's read (now 2-3 ms)."""
    Lp = cv2.extractChannel(labb, 0)
    Lb = cv2.extractChannel(bg_lab, 0)
    dark = cv2.bitwise_and(cv2.compare(Lp, cv2.LUT(Lb, _SHADOW_LO), cv2.CMP_GE),
                           cv2.compare(Lp, cv2.LUT(Lb, _SHADOW_HI), cv2.CMP_LE))
    at = np.flatnonzero(dark)  # (a fifth of a photo's pixels, typically)
    px = labb.reshape(-1, 3).take(at, 0).astype(np.float32)
    fl = bg_lab.reshape(-1, 3).take(at, 0).astype(np.float32)
    ap, bp = px[:, 1] - 128, px[:, 2] - 128
    ab, bb = fl[:, 1] - 128, fl[:, 2] - 128
    cb = np.sqrt(ab * ab + bb * bb) + 1.0
    # pixel chroma relative to the floor's, and the off-hue component
    along = (ap * ab + bp * bb) / cb
    across = np.abs(ap * bb - bp * ab) / cb
    return at[(across < 6 + 0.1 * cb) & (along > -4) & (along < cb * 1.1 + 4)]


def _hysteresis(diff: np.ndarray) -> np.ndarray:
    """The difference thresholded at multiples of its own noise on this very frame: weak pixels joined to
    strong cores (uint8 0/255)."""
    med, mad = _median_and_mad(diff[::4, ::4])
    sd = 1.4826 * mad + 0.5
    lo = min(max(8.0, med + 3.5 * sd), 40.0)
    hi = min(max(14.0, med + 7.0 * sd), 60.0)
    # (cv2.threshold compares a uint8 image with the threshold's floor, which is `diff > lo` for whole numbers;
    # numpy compared the uint8 frame with a float in float64, 20 us a comparison on the half-size frame)
    weak = cv2.threshold(diff, lo, 1, cv2.THRESH_BINARY)[1]
    n, lab_cc = cv2.connectedComponents(weak, connectivity=8)  # (no stats: they cost more than the labels)
    keep = np.zeros(max(n, 256), np.uint8)
    # (a label set many times is set all the same: np.unique cost 13 us more)
    keep[lab_cc[cv2.threshold(diff, hi, 1, cv2.THRESH_BINARY)[1].view(bool)]] = 255
    keep[0] = 0
    return cv2.LUT(lab_cc.astype(np.uint8), keep[:256]) if n <= 256 else keep[lab_cc]


def _median_and_mad(u8: np.ndarray) -> tuple[float, float]:
    """The median of a uint8 array and the median of its absolute deviations from it, both as np.median gives
    them (the mean of the two middle values of an even count), from one histogram: np.median's two
    partitions and the float copy cost 25 us of a 0.3 ms foreground (5 dice under the tray, half-size frame).
    Twice the median and twice the deviations are whole numbers, so every step is exact."""
    hist = np.bincount(u8.ravel(), minlength=256)
    n = u8.size
    twice_med = _middle_sum(hist, n)
    dev = np.bincount(np.abs(2 * np.arange(256) - twice_med), weights=hist, minlength=511)
    return twice_med / 2.0, _middle_sum(dev, n) / 4.0


def _middle_sum(hist: np.ndarray, n: int) -> int:
    """The sum of the two middle values (the one middle value twice, for an odd count) of the `n` values that
    histogram `hist` counts (bin i holds value i)."""
    c = np.cumsum(hist)
    lo, hi = np.searchsorted(c, [(n - 1) // 2, n // 2], side="right")
    return int(lo) + int(hi)


def _blobs(mask: np.ndarray, min_side: float, deep: bool = False) -> list[Blob]:
    k3 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    m = cv2.morphologyEx(mask, cv2.MORPH_OPEN, k3)
    m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    contours = _outer_contours(m, min_side ** 2 * 0.5 if deep else None)
    out = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < (min_side ** 2) * 0.5:
            continue
        hull = cv2.convexHull(c)
        ha = max(cv2.contourArea(hull), 1.0)
        x, y, w, h = cv2.boundingRect(c)
        density = float(np.count_nonzero(mask[y:y + h, x:x + w])) / max(w * h, 1)
        out.append(Blob(c, cv2.minAreaRect(c), area, area / ha, (x, y, w, h), density=density))
    return out


def _outer_contours(m: np.ndarray, deep_area: float | None = None) -> list[np.ndarray]:
    """The outer contours of the mask's blobs. A tray rim (or a vignette) that differs from the fitted floor
    all around the frame is one blob enclosing every die: its outer contour is the frame and the dice lie in
    its hole, where RETR_EXTERNAL never looks. Blobs in the hole of such a frame-wide ring count as outer
    blobs; the ring itself is dropped; what lies in a die's own holes (ink inside a symbol) stays hidden.
    `deep_area` (icon dice in a still photo): a blob of at least this area lying in the hole of a much
    larger blob that is no die (a glare spot, a floor the fitted surface missed) counts too."""
    contours, hier = cv2.findContours(m, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return []
    H, W = m.shape[:2]
    parent = hier[0][:, 3]
    out = []
    for i, c in enumerate(contours):
        p = int(parent[i])
        if p < 0:
            x, y, w, h = cv2.boundingRect(c)
            if w < 0.9 * W or h < 0.9 * H:
                out.append(c)
            continue
        gp = int(parent[p])  # i lies in hole p of blob gp
        if gp >= 0 and parent[gp] < 0:
            x, y, w, h = cv2.boundingRect(contours[gp])
            if w >= 0.9 * W and h >= 0.9 * H:
                out.append(c)
            elif deep_area is not None and _in_a_non_die(c, contours[gp], deep_area):
                out.append(c)
    return out


def _in_a_non_die(c: np.ndarray, around: np.ndarray, min_area: float) -> bool:
    """Whether blob `c`, in a hole of blob `around`, may be a die of its own: big enough, and `around` many
    times larger and shaped like no die face (a die's own ink islands sit in a square)."""
    a = cv2.contourArea(c)
    big = cv2.contourArea(around)
    if a < min_area or big < 4 * a:
        return False
    (_, _), (rw, rh), _ = cv2.minAreaRect(around)
    hull = cv2.contourArea(cv2.convexHull(around))
    return not (max(rw, rh) < 1.25 * max(min(rw, rh), 1.0) and big >= 0.85 * rw * rh and big > 0.9 * hull)


def _split_blob(blob: Blob, shape: tuple[int, int]) -> list[np.ndarray]:
    """Split a blob of touching dice into one contour per die (distance-transform peaks + watershed)."""
    x, y, w, h = blob.mask_box
    pad = 2
    m = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    cv2.drawContours(m, [blob.contour - [x - pad, y - pad]], -1, 255, -1)
    dist = cv2.distanceTransform(m, cv2.DIST_L2, 5)
    dmax = float(dist.max())
    if dmax < 3:
        return [blob.contour]
    peaks = (dist > 0.6 * dmax).astype(np.uint8)
    n, markers = cv2.connectedComponents(peaks)
    if n <= 2:
        # try a higher cut: dice touching along a long edge
        peaks = (dist > 0.8 * dmax).astype(np.uint8)
        n, markers = cv2.connectedComponents(peaks)
        if n <= 2:
            return [blob.contour]
    markers = markers.astype(np.int32)
    markers0 = markers.copy()
    markers[m == 0] = 0
    unknown = (m > 0) & (peaks == 0)
    markers[unknown] = 0
    bgmark = n
    markers[m == 0] = bgmark
    img3 = cv2.cvtColor(255 - np.clip(dist * (255.0 / dmax), 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)
    cv2.watershed(img3, markers)
    out = _parts(markers, m, n)
    if any(_elongation(c) > DIE_LONG for c in out):
        # a part as long as two dice: OpenCV floods by the step between neighbours, not by height, so a label
        # that reaches the blob's rim (one flat ring of distance 1) can run round it and take much of the other
        # die. Then each pixel goes to its nearest core instead, if that makes every part shaped like a die.
        _, nearest = cv2.distanceTransformWithLabels(1 - peaks, cv2.DIST_L2, 5, labelType=cv2.DIST_LABEL_CCOMP)
        core = np.zeros(n + 1, np.int32)  # the Voronoi's labels (zero runs of 1 - peaks) -> the peaks' labels
        core[nearest[peaks > 0]] = markers0[peaks > 0]
        near = _parts(core[nearest], m, n)
        if all(_elongation(c) <= DIE_LONG for c in near):
            out = near
    return [c + [x - pad, y - pad] for c in out] or [blob.contour]


# A blob this full of its rectangle, k (2 to CHAIN_MOST) times as long as wide, give or take CHAIN_SLACK, is a row of
# k dice side by side
CHAIN_FILL = 0.7
CHAIN_SLACK = 0.4
CHAIN_MOST = 4


def _chain_parts(b: Blob) -> list[np.ndarray]:
    """A blob of dice side by side in a row, cut into its k dice (k equal squares along its long side), or []
    when it is no such row. Why: the distance transform of two squares edge to edge is one ridge, not two
    peaks, so `_split_blob` leaves them whole; from below, with the room, 82 of the 87 dice the room's read
    missed on seeds 42-45 touched a neighbour, most of them in such rows (the renderer lays a touching die
    square to its neighbour, as dice that settle against each other lie)."""
    (cx, cy), (rw, rh), angle = b.rect
    long_side, short_side = max(rw, rh), max(min(rw, rh), 1.0)
    k = round(long_side / short_side)
    if not 2 <= k <= CHAIN_MOST or abs(long_side / short_side - k) > CHAIN_SLACK or b.area < CHAIN_FILL * rw * rh:
        return []
    along = math.radians(angle if rw >= rh else angle + 90.0)
    step = long_side / k
    size = (step, rh) if rw >= rh else (rw, step)
    parts = []
    for i in range(k):
        off = (i - (k - 1) / 2.0) * step
        cell = ((cx + off * math.cos(along), cy + off * math.sin(along)), size, angle)
        parts.append(cv2.boxPoints(cell).astype(np.int32).reshape(-1, 1, 2))
    return parts


def die_shaped(c: np.ndarray) -> bool:
    """A part that passes find_dice's own test of one whole die: not elongated, filling its rectangle."""
    (_, _), (rw, rh), _ = cv2.minAreaRect(c)
    return max(rw, rh) <= DIE_LONG * max(min(rw, rh), 1.0) and cv2.contourArea(c) >= DIE_FILL * rw * rh


def _elongation(c: np.ndarray) -> float:
    (_, _), (rw, rh), _ = cv2.minAreaRect(c)
    return max(rw, rh) / max(min(rw, rh), 1.0)


def _parts(labels: np.ndarray, m: np.ndarray, n: int) -> list[np.ndarray]:
    """The largest outer contour of each label 1..n-1 within the blob's mask."""
    out = []
    for i in range(1, n):
        part = ((labels == i) & (m > 0)).astype(np.uint8) * 255
        cs, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if cs:
            out.append(max(cs, key=cv2.contourArea))
    return out


def _sharp_outline(frame: np.ndarray, lab: np.ndarray | None, b: Blob) -> bool:
    """A die has a crisp outline; an out-of-focus lamp, a face or a sleeve far above the glass does not.
    The steepest gradient across the outline must span the blob's contrast in a few pixels. Measured at full
    resolution around the blob only (`lab` may be None: the blob's surroundings are converted alone)."""
    x, y, w, h = b.mask_box
    H, W = frame.shape[:2]
    pad = 4
    x0, y0, x1, y1 = max(0, x - pad), max(0, y - pad), min(W, x + w + pad), min(H, y + h + pad)
    src = lab[y0:y1, x0:x1] if lab is not None else cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2Lab)
    # the lightness blurred alone (the blur works channel by channel: the same values as the blurred Lab's
    # lightness); the chroma channels are blurred only for the outlines that need them below
    L = cv2.GaussianBlur(cv2.extractChannel(src, 0), (3, 3), 0)
    m = np.zeros(L.shape, np.uint8)
    cv2.drawContours(m, [b.contour - [x0, y0]], -1, 255, -1)
    inner = cv2.erode(m, _K5)
    outer = cv2.dilate(m, _K5)
    band = cv2.subtract(outer, inner)
    if not cv2.countNonZero(band) or not cv2.countNonZero(inner) or cv2.countNonZero(outer) == outer.size:
        return True
    on_band = band > 0
    # the lightness step alone is a lower bound of the chroma-weighted gradient at the end (chroma edges only
    # add to it): most dice pass on it, and only the others pay for the chroma channels' gradients. Its Sobel
    # is taken in int16 (exact: at most 4 x 255) and its magnitude on the band's pixels only, in float32 as
    # cv2.magnitude takes it (the squares' sum is a whole number below 2^24, so exact, and the square root is
    # rounded alike): the same values, 5 us less per outline
    gx = cv2.Sobel(L, cv2.CV_16S, 1, 0, ksize=3)[on_band].astype(np.float32)
    gy = cv2.Sobel(L, cv2.CV_16S, 0, 1, ksize=3)[on_band].astype(np.float32)
    step = _p90(np.sqrt(gx * gx + gy * gy) * (1.0 / 8.0))
    # the contrast below is the difference of two medians of this window's lightness, so at most its range:
    # a step that spans the range passes without them (4 in 10 dice's outlines under the tray, 35 us each)
    lo, hi, _, _ = cv2.minMaxLoc(L)
    if step >= max(4.0, 0.12 * (hi - lo)):
        return True
    ring = cv2.subtract(cv2.dilate(m, _K9), outer)
    around = ring if cv2.countNonZero(ring) else cv2.bitwise_not(outer)
    # the contrast the outline itself parts: the face just inside it (a die's big symbol, such as a white
    # starburst on a black die, is no part of its outline's step). The symbol sits at a fixed fraction of the
    # face from its sides, so the rim's depth is too: 4 px from a 64 px blob on, 2 px on one of 32-47 px
    depth = min(4, max(1, int(math.sqrt(max(b.area, 1.0)) / 16)))
    rim = cv2.subtract(inner, cv2.erode(inner, _K9 if depth == 4 else np.ones((2 * depth + 1,) * 2, np.uint8)))
    contrast = abs(_masked_median(L, rim if cv2.countNonZero(rim) else inner) - _masked_median(L, around))
    need = max(4.0, 0.12 * contrast)
    if step >= need:
        return True
    P = cv2.GaussianBlur(src, (3, 3), 0).astype(np.float32)
    ph, pw = P.shape[:2]
    gx = cv2.Sobel(P, cv2.CV_32F, 1, 0, ksize=3).reshape(ph, -1)  # all three channels at once
    gy = cv2.Sobel(P, cv2.CV_32F, 0, 1, ksize=3).reshape(ph, -1)
    gl, ga, gb = cv2.split(cv2.magnitude(gx, gy).reshape(ph, pw, 3))
    g = cv2.max(gl, 2.0 * cv2.max(ga, gb)) * (1.0 / 8.0)  # chroma edges count double
    return _p90(g[on_band]) >= need


def _p90(v: np.ndarray) -> float:
    """The 90th percentile of a non-empty vector (the lower of the two values it falls between)."""
    i = int(0.9 * (len(v) - 1))
    return float(np.partition(v, i)[i])


_K5 = np.ones((5, 5), np.uint8)
_K9 = np.ones((9, 9), np.uint8)


def _masked_median(u8: np.ndarray, mask: np.ndarray) -> float:
    """Median of a uint8 image under a mask, from its histogram (no copy of the masked pixels)."""
    hist = cv2.calcHist([u8], [0], mask, [256], [0, 256]).ravel()
    c = np.cumsum(hist)
    return float(np.searchsorted(c, 0.5 * c[-1]))


def work_factor(frame: np.ndarray, background: np.ndarray | None) -> int:
    """How much the outline finder shrinks the frame before segmenting it. With the box's learned
    background (under the tray, the read that must fit in a few milliseconds) the foreground is found at
    half resolution when that still leaves at least 180 rows (dice of 14 px stay 7 px blobs there); the
    outline's sharpness, the crops and the pip counts still use the full frame. A still photo with no
    background (a surface fitted to the frame itself) is segmented at full resolution."""
    if background is None or min(frame.shape[:2]) < 360:
        return 1
    return 2


def _scaled(b: Blob, k: int) -> Blob:
    x, y, w, h = b.mask_box
    c = (b.contour * k).astype(np.int32)
    (cx, cy), (rw, rh), ang = b.rect
    # a pixel i of the small frame covers pixels k*i .. k*i+k-1: centres move by (k-1)/2, sizes grow by k
    off = (k - 1) / 2.0
    return Blob(c, ((cx * k + off, cy * k + off), (rw * k, rh * k), ang), b.area * k * k, b.solidity,
                (x * k, y * k, w * k, h * k), density=b.density)


def find_dice(frame: np.ndarray, mount: str = "over", background: np.ndarray | None = None,
              lab: np.ndarray | None = None, part_faces: bool = False) -> list[Blob]:
    """Candidate dice (one blob per die) in a BGR frame. `lab` (the frame in Lab) is optional: with a learned
    background the foreground is found on a half-size frame (`work_factor`) and no full-frame Lab is needed.
    `part_faces` (square icon dice in a still photo): a blob that is no square face is replaced by the
    square faces found inside it by their own crisp edges (`outline.faces_in_blob`). A blob without a crisp
    outline is dropped, or (a still photo's icon dice; with the room, an about round one: `HALO_LONG`)
    searched so too."""
    raw, lab, k = _raw_blobs(frame, mount, background, lab, part_faces)
    sharp = [_sharp_outline(frame, lab, b) for b in raw]
    blobs = [b for b, ok in zip(raw, sharp, strict=True) if ok]
    # a die run together with a lamp or a glare spot makes one blurry blob: the crisp squares inside it.
    # With the room, a die's own soft halo on the plate joins its blob in a smooth frame (a camera's, or a
    # render denoised), which then has the halo's soft outline; grain hid this (docs/dice-sets.md, "Smooth
    # frames from below"). Such a blob is about round: a long one (a blurred sleeve) is not searched
    soft = [b for b, ok in zip(raw, sharp, strict=True) if not ok and
            (part_faces or (background is not None and _elongation(b.contour) <= HALO_LONG))]
    blobs += [p for b in soft for p in _faces_parted(frame, b)]
    out: list[Blob] = []
    for b in blobs:
        if not _no_die(b, frame.shape, k):
            out += _one_die_each(frame, b, background is not None, part_faces)
    return out


def _raw_blobs(frame: np.ndarray, mount: str, background: np.ndarray | None, lab: np.ndarray | None,
               part_faces: bool) -> tuple[list[Blob], np.ndarray | None, int]:
    """The foreground's blobs in frame coordinates, the frame in Lab (converted here when the full-size
    frame was segmented, else as given), and the factor the frame was shrunk by to segment it."""
    H, W = frame.shape[:2]
    k = work_factor(frame, background)
    if k > 1:
        small = cv2.resize(frame[:H - H % k, :W - W % k], (W // k, H // k), interpolation=cv2.INTER_AREA)
        mask, _ = foreground(small, cv2.cvtColor(small, cv2.COLOR_BGR2Lab), mount, background, blur=3)
        return [_scaled(b, k) for b in _blobs(mask, MIN_DIE / k)], lab, k
    if lab is None:
        lab = cv2.cvtColor(frame, cv2.COLOR_BGR2Lab)
    mask, _ = foreground(frame, lab, mount, background)
    return _blobs(mask, MIN_DIE, deep=part_faces), lab, k


def _no_die(b: Blob, shape: tuple[int, ...], k: int) -> bool:
    """A blob far too large for a die, or a tray rim, a cable, a sleeve coming in from the frame's edge."""
    (_, _), (rw, rh), _ = b.rect
    if math.sqrt(max(b.area, 1.0)) > MAX_DIE * 1.6:
        return True
    H, W = shape[:2]
    elong = max(rw, rh) / max(min(rw, rh), 1.0)
    bx, by, bw, bh = b.mask_box
    return (bx <= k or by <= k or bx + bw >= W - k or by + bh >= H - k) and (elong > 2.0 or b.solidity < 0.85)


def _one_die_each(frame: np.ndarray, b: Blob, learned: bool, part_faces: bool) -> list[Blob]:
    """A blob as one blob per die: itself when it is shaped like one whole die, else the square faces found
    in it by their edges (`part_faces`) or its parts where dice touch (`_touching_dice`)."""
    (_, _), (rw, rh), _ = b.rect
    dist_ratio = b.area / max(rw * rh, 1.0)
    elong = max(rw, rh) / max(min(rw, rh), 1.0)
    if part_faces and not (elong < 1.25 and dist_ratio >= 0.85 and b.solidity > 0.9):
        parts = _faces_parted(frame, b)
        if parts:
            return parts
    if elong > DIE_LONG or dist_ratio < DIE_FILL or b.solidity < 0.88:
        return _touching_dice(b, frame.shape[:2], learned, elong)
    return [b]


def _touching_dice(b: Blob, shape: tuple[int, ...], learned: bool, elong: float) -> list[Blob]:
    """The dice of a blob shaped like no one die, parted by the touching-dice split (`_split_blob`); each
    part remembers the blob it came from (`side_parts`)."""
    H, W = shape[:2]
    parts = _split_blob(b, (H, W))
    chain = _chain_parts(b) if learned and len(parts) == 1 and parts[0] is b.contour else []
    parts = chain or parts
    if elong < HOOK_SQUARE and all(_elongation(c) > DIE_LONG for c in parts):
        # a square outline parted into slivers only: one dark die on a dark floor, its mask a hook of
        # rim and pips (no die is a sliver; two dice run together part into squares)
        parts = [b.contour]
    elif learned and elong < HOOK_SQUARE and not any(die_shaped(c) for c in parts) and \
            not (len(parts) == 1 and parts[0] is b.contour):
        # none of the parts passes as a whole die either (one half fills its rectangle): the readers
        # get the whole blob as well as the parts, and one reading per die is kept (only with a
        # learned background: on a fitted floor, teaching's one-die shots got two readings). A blob
        # the split left whole is no part: given twice, its face was read twice, refits and all
        # (1.5-2 ms, in 2 of 12 frames of 5 hero dice), for the same reading
        parts = [*parts, b.contour]
    out: list[Blob] = []
    for c in parts:
        area = cv2.contourArea(c)
        if area < MIN_DIE ** 2 * 0.5:
            continue
        hull = cv2.convexHull(c)
        out.append(Blob(c, cv2.minAreaRect(c), area, area / max(cv2.contourArea(hull), 1.0),
                        cv2.boundingRect(c), b if c is not b.contour else None, bool(chain), b.density))
    return out


# A learned-finder box the outlines have nothing for is searched for a square face in the box grown by this much
# (the box is the whole die; from above its top face is a part of it, and the face's edges must lie inside)
DETECTOR_REACH = 1.3


# The confidence at most of a die read in a square that only the learned finder pointed at (never certain on
# the templates' word: on renders of King of Tokyo from above, a black die on a white floor whose square was
# found inside the finder's box read its claw as a heart at 0.83, and the detector's boxes are candidates, not
# evidence: `vision/detector.py`; a numbered die whose corner number agrees may be: `corner_numbers`)
FOUND_ONLY_BY_DETECTOR = 0.5

# A learned finder's box in a heap of touching dice that no square is found in is read as a square this
# share of the box's longer side (`detector_blobs(boxed=True)`)
HEAP_BOX_SIDE = 1.0
# ... and a box under this share of the frame's whole dice's median side is a part of a die
# (`heap_detections`)
HEAP_BOX_LEAST = 0.6
# ... and a heap is searched in the frame at most this long (px): the box's view from below the learned
# finder was trained on (320x240 renders). A set with corner numbers is read at 640 (33rd session: 400-401
# merged 67.19 -> 71.88% right, 402-403 63.33 -> 65.00%; shrunk by 0.4 and 0.6: 71.88 and 63.33%, 71.88
# and 66.67%)
HEAP_SEARCH_SIDE = 320


def detector_blobs(img: np.ndarray, found: list[Detection], blobs: list[Blob], pentagon: bool = False,
                   boxed: bool = False) -> list[Blob]:
    """Blobs for the dice of a still frame of icon dice that the learned finder found and the outlines did
    not: in each of its boxes with no blob's centre in it, the crisp square face (`pentagon`: a d12's face)
    nearest the box's middle (`outline.faces_in_blob`), as big as a die's face in that box can be, else a
    square refitted from the edges around the box's middle (`_refit_in_box`). Why: with no learned room, the
    outlines against a fitted floor miss dice whose body is as light or dark as the floor or the room behind
    them (on renders of every icon set, 106 of 2660 dice from above and 78 from below, seed 1); the learned
    finder, trained on photos of pip dice, finds 103 and 72 of those. The face reader then judges each such
    square as any other blob (its symbol must match a face of the set), so a box on something else reads as
    nothing; such a die is not certain on the templates' word (`FOUND_ONLY_BY_DETECTOR`). Pip dice have their
    own use of the learned finder (`detector_candidates`). `boxed` (a heap of touching dice with the room): a
    box whose edges close no square is read as the box's own square (`_box_square`): the seams between
    touching dice, through grain, close none."""
    out: list[Blob] = []
    # in a heap, a part no one die fills (three dice's L) holds no die's centre; a whole die holds no other
    dice = [b for b in blobs if die_shaped(b.contour)] if boxed else []
    blocking = dice if boxed else blobs
    for d in found:
        cx, cy, w, h = d.box
        side = max(w, h)
        near = any(abs(b.rect[0][0] - cx) < 0.5 * w and abs(b.rect[0][1] - cy) < 0.5 * h
                   for b in blocking + out)
        if near or any(_holds_box(b, cx, cy, side) for b in dice):
            continue
        r = 0.5 * DETECTOR_REACH * side
        x0, y0 = int(round(cx - r)), int(round(cy - r))
        n = int(round(2 * r))
        box = np.array([[x0, y0], [x0 + n, y0], [x0 + n, y0 + n], [x0, y0 + n]], np.int32).reshape(-1, 1, 2)
        best, best_d = None, 0.25 * side
        for c in faces_in_blob(img, box, (x0, y0, n, n), max(MIN_DIE ** 2 * 0.5, (0.4 * side) ** 2), pentagon):
            rect = cv2.minAreaRect(c)
            off = math.hypot(rect[0][0] - cx, rect[0][1] - cy)
            if off < best_d and max(rect[1]) <= 1.1 * side:
                best, best_d = _blob_of(c), off
        if best is None and not pentagon:
            best = _refit_in_box(img, cx, cy, side)
        if best is None and boxed:
            best = _box_square(cx, cy, HEAP_BOX_SIDE * side)
        if best is not None:
            out.append(best)
    return out


def _holds_box(b: Blob, cx: float, cy: float, side: float) -> bool:
    """Whether die-shaped blob `b` holds the centre of a finder's box of `side` as one die; with
    CROWDS_BY_FINDER not where the box is CROWD_BOX or less of the blob's shorter side (four dice in a square
    are shaped like one die: `crowd_detections`)."""
    if CROWDS_BY_FINDER and side <= CROWD_BOX * min(b.rect[1]):
        return False
    return _contains(b, cx, cy)


def _box_square(cx: float, cy: float, side: float) -> Blob:
    """An upright square blob of `side` centred at (cx, cy): a learned finder's box taken as a die's face."""
    s = 0.5 * side
    c = np.array([[cx - s, cy - s], [cx + s, cy - s], [cx + s, cy + s], [cx - s, cy + s]], np.float32)
    ci = np.round(c).astype(np.int32).reshape(-1, 1, 2)
    return Blob(ci, cv2.minAreaRect(c), float(side * side), 1.0, cv2.boundingRect(ci))


def _refit_in_box(img: np.ndarray, cx: float, cy: float, side: float) -> Blob | None:
    """The square face around the middle of a learned finder's box whose crisp edges close no square (a white
    die on a white floor: its shaded side is an edge, its lit side hardly one), from the edges the box's
    middle is surrounded by (`outline.refit_square` on a square seed of 0.7 of the box's side), when it lies in
    the box's middle and is as large as a die's face there can be."""
    o = refit_square(img, _box_square(cx, cy, 0.7 * side), around=True)
    if o is None or math.hypot(o.rect[0][0] - cx, o.rect[0][1] - cy) >= 0.25 * side or \
            not 0.5 * side <= max(o.rect[1]) <= 1.1 * side:
        return None
    return Blob(o.contour, o.rect, o.area, o.solidity, o.mask_box)


def _faces_parted(img: np.ndarray, b: Blob) -> list[Blob]:
    """The square faces inside blob `b` found by their own edges (none when there are none)."""
    return [_blob_of(c) for c in faces_in_blob(img, b.contour, b.mask_box, MIN_DIE ** 2 * 0.5)]


def _blob_of(c: np.ndarray) -> Blob:
    """A blob of a face's contour found by its edges (its rectangle, area, solidity and bounding box)."""
    area = float(cv2.contourArea(c))
    return Blob(c, cv2.minAreaRect(c), area, area / max(float(cv2.contourArea(cv2.convexHull(c))), 1.0),
                cv2.boundingRect(c))



# A pip face lower than this fraction of its outline's height below the outline's centre is a side face (seen from
# above at an angle, a die's outline holds its top face high and its front face low)
LOW = 0.15
# The touching-dice split (`find_dice`) parts a blob that is one die seen at an angle (its top and front faces)
# as it parts two dice. Such a part keeps the side-face evidence of the blob it came from (`side_parts`) when:
# - the blob could be one die: its rotated rectangle at most ONE_DIE_LONG times as long as wide (a cube's outline
#   is at most about 1.41 times, a face and the next one seen from the side; dice_383's red die made 1.52 with
#   the perspective and its rounded body; two dice side by side about 2);
# - the part is foreshortened like a die's side face: the short side of its rotated rectangle under
#   SIDE_PART_THIN of another part's of the blob (two touching dice part into about equally wide parts).
# A face lying `LOW` in such a blob is a side face, as it was before the split. Measured on the photo bench with
# the leave-one-dataset-out models (whole reader), the certain faces on split parts: roboflow-d6 31 (certain_at
# forced to 0.93) / 26 (0.9705, as fitted), webcam-d6 56 (a model that saw webcam-d6: the geometry, not the
# CNN, is measured there). "Low in the blob" alone turned 2 / 2 / 18 right dice uncertain (dice next to another
# die, or whose shadow ran into a long blob) besides dice_383's 2 (its front face, 0.70 as wide as the top part
# above it, read a certain 2 of a 1 at 0.93); with both conditions only that 2, for any ONE_DIE_LONG in
# 1.6-1.8; SIDE_PART_THIN 0.9 cost 1 right die more (webcam-d6), 0.8 none.
ONE_DIE_LONG = 1.7
SIDE_PART_THIN = 0.8


def side_parts(blobs: list[Blob]) -> list[Blob | None]:
    """For each blob, the blob it was split from when that could be one die seen at an angle and this part is
    foreshortened like its side face (see `SIDE_PART_THIN`), else None. Why: before the touching-dice split, a
    die seen from near table height made one blob of its top and front faces, and its front face lay low in it
    (`LOW`): never certain. Parted in two, the front face lies in the middle of its own part (roboflow-d6
    dice_383, never trained on: a front face read a certain 2 of a 1)."""
    groups: dict[int, list[float]] = {}  # the short sides of each split blob's parts
    for b in blobs:
        if b.whole is not None:
            groups.setdefault(id(b.whole), []).append(min(b.rect[1]))
    out: list[Blob | None] = []
    for b in blobs:
        w = b.whole
        parts = groups.get(id(w), []) if w is not None else []
        one_die = w is not None and max(w.rect[1]) <= ONE_DIE_LONG * max(min(w.rect[1]), 1.0)
        # (thinner than the widest part: then thinner than another part)
        out.append(w if one_die and len(parts) > 1 and min(b.rect[1]) < SIDE_PART_THIN * max(parts) else None)
    return out


def low_in(y: float, whole: Blob) -> bool:
    """Whether height `y` (a face's centre) lies in the lower part of blob `whole` (`LOW`)."""
    _, by, _, bh = whole.mask_box
    return y - (by + 0.5 * bh) > LOW * bh


def find_candidates(img: np.ndarray, lab: np.ndarray | None, mount: str, background: np.ndarray | None,
                    detector: DieDetector | list[Detection] | None = None
                    ) -> tuple[list[Candidate], np.ndarray | None]:
    """Every place a die may be (outline candidates with their crop counts; in a still photo also the pip
    finder's faces, each joined to the outline around it, and the learned finder's boxes: `detector`, the
    network to run on `img`, or the boxes it already found there), before the classifier decides. Returns the
    candidates and the frame in Lab (converted here when a still photo needed it, else as given)."""
    blobs = find_dice(img, mount, background, lab)
    cands = outline_candidates(blobs)
    # the parts of split blobs that may be a die's front face rather than a die (`side_parts`), and the blob each
    # was parted from: a face low in that blob is a side face, as it was before the split
    sides = {id(c): w for c, w in zip(cands, side_parts(blobs), strict=True) if w is not None} \
        if mount == "over" else {}
    for c in cands:
        if id(c) in sides:
            c.low = low_in(c.box[1], sides[id(c)])
    for c in cands:  # a quick count in the crop of each outline (cheap: a 48 px patch)
        c.crop_pips = count_pips(img, c.rect) if c.rect is not None else None
    if background is not None:
        # with the box's learned background the outlines are reliable and the crop counts suffice (a full pip
        # search would cost more than the whole read); only a heap of touching dice is searched again
        if isinstance(detector, DieDetector):
            cands += heap_candidates(img, blobs, cands, detector)
        return cands, lab
    if lab is None:
        lab = cv2.cvtColor(img, cv2.COLOR_BGR2Lab)
    # a still photo: the pip finder also searches the whole frame (it finds dice on a busy floor, and brings
    # its own checks); under the tray the learned finder does without it (`PIPS_UNDER`)
    pip_cands = pip_candidates(lab) if mount == "over" or PIPS_UNDER or detector is None else []
    attach_pip_counts(cands, pip_cands)
    for pc in pip_cands:  # and each pip face takes the outline around it (its crop count, its shape)
        _join_outline(pc, cands, sides, mount)
    cands += pip_cands
    if detector is not None:
        # the learned finder's boxes where the hand-made cues have none of that size (the classifier
        # judges them as any other; they carry the pip finder's count of a face inside them, if any)
        found = detector.detect(img) if isinstance(detector, DieDetector) else detector
        cands += detector_candidates(found, cands, pip_cands)
    return cands, lab


HEAP_PAD = 0.3   # a heap's region for the learned finder: its box grown by this share of its longer side a side


def heap_candidates(img: np.ndarray, blobs: list[Blob], cands: list[Candidate], detector: DieDetector
                    ) -> list[Candidate]:
    """With the room: the learned finder's boxes in each heap of touching dice (a blob the split left in parts
    that are no whole die, or left whole; a row cut by measure is no heap), run on the heap's region only.
    Why: from below, given each die's true box, the face network was sure and right of 54.7% of touching dice
    (seeds 42-49), but read as the watcher reads only 37.5% were certain once rows were cut (`_chain_parts`;
    31.2% before): a heap of three or four dice (an L, a T, a square) parts into pieces no one die fills, and
    the read without the room, which has the finder's boxes, judges them at its own higher level. Each box is
    a candidate like the finder's on a still frame (`detector_candidates`); the run costs a small window, only
    where a heap lies."""
    out: list[Candidate] = []
    for _, found in _found_in_heaps(img, blobs, detector):
        out += detector_candidates(found, cands + out, [])
    return out


def heap_detections(img: np.ndarray, blobs: list[Blob], detector: DieDetector) -> list[Detection]:
    """The learned finder's boxes in the heaps of touching dice among `blobs` (each heap's region searched
    alone, as `heap_candidates` does), in frame coordinates: for icon dice read with the room. Each box is
    read as a die of its own (`detector_blobs(boxed=True)`), and the finder boxes one die of a heap several
    times over, and parts of it: a box whose centre lies off its heap, or in a surer box, is left out, and one
    far smaller than the frame's whole dice (`HEAP_BOX_LEAST` of their median side, where there are any). A
    frame read larger than the view the finder learnt from below (a set whose corner numbers need the detail)
    is searched shrunk to that view (`HEAP_SEARCH_SIDE`): at the frame's own 640 px it boxed fewer dice of a
    heap. With CROWDS_BY_FINDER, also the boxes of each blob the finder boxes as several dice
    (`crowd_detections`)."""
    whole = [max(b.rect[1]) for b in blobs if b.whole is None and not b.cut and die_shaped(b.contour)]
    least = HEAP_BOX_LEAST * float(np.median(whole)) if whole else 0.0
    shrink = at_finder_view(img)
    # (a box whose centre lies off its heap, where the frame is the room, is none of the heap's dice)
    boxes = [d for heap, found in _found_in_heaps(img, blobs, detector, shrink) for d in found
             if _inside(heap, d)]
    kept = _one_box_a_die([d for d in boxes if max(d.box[2:]) >= least])
    return kept + crowd_detections(img, blobs, detector, shrink) if CROWDS_BY_FINDER else kept


def _inside(b: Blob, d: Detection) -> bool:
    """Whether the centre of the learned finder's box `d` lies in blob `b`."""
    return _contains(b, d.box[0], d.box[1])


def _contains(b: Blob, x: float, y: float) -> bool:
    """Whether point (x, y) lies in blob `b`'s contour (or on it)."""
    return cv2.pointPolygonTest(b.contour, (float(x), float(y)), False) >= 0


def _one_box_a_die(boxes: list[Detection]) -> list[Detection]:
    """The boxes, surest first, less any whose centre lies in the middle half of a surer one (the finder
    boxes one die of a heap several times over)."""
    kept: list[Detection] = []
    for d in sorted(boxes, key=lambda d: -d.score):
        if not any(abs(d.box[0] - s.box[0]) <= s.box[2] / 2 and abs(d.box[1] - s.box[1]) <= s.box[3] / 2
                   for s in kept):
            kept.append(d)
    return kept


# With the room, a blob the learned finder boxes as two dice or more, each box at most CROWD_BOX of the
# blob's shorter side, is a heap too (`crowd_detections`), and a die-shaped blob holds no such box as one die
# (`_holds_box`). Dev seeds (402-404, 408-431, merged): 11 hero dice found that were missed (7 right), none
# lost, phantoms as before. A first rule (fresh seeds 452-453) failed on its letter: a die fewer missed and
# two fewer phantoms, but none more right; a second, written before seeds 456-457 were rendered, passed:
# merged right 77.92 -> 81.82%, missed 5.19 -> 1.30%, as the watcher reads 75.32 -> 76.62% and 7.79 ->
# 6.49%, phantoms and certain-right as before (docs/dice-sets.md). Costs one search of the frame at the
# finder's view (about 1 ms of a hero frame's 61 ms read with the room). False: only the outlines' own
# measure finds heaps.
CROWDS_BY_FINDER = True
CROWD_BOX = 0.75


def crowd_detections(img: np.ndarray, blobs: list[Blob], detector: DieDetector, shrink: float
                     ) -> list[Detection]:
    """The learned finder's boxes (the frame searched shrunk by `shrink`) in each whole blob, not a heap by
    `_heaps`, that it boxes as two dice or more. Why: `_heaps` measures a blob against the frame's other dice,
    and a frame whose dice all touch has none to measure by (three black dice in an L, four in a square: each
    read as one die, or none)."""
    heaps = {id(h) for h in _heaps(blobs)}
    wholes = {id(w): w for w in (b.whole if b.whole is not None else b for b in blobs)
              if not w.cut and id(w) not in heaps}
    if not wholes:
        return []
    found = frame_detected(img, detector, shrink)
    out: list[Detection] = []
    for b in wholes.values():
        inside = _one_box_a_die([d for d in found if _inside(b, d) and
                                 max(d.box[2:]) <= CROWD_BOX * min(b.rect[1])])
        out += inside if len(inside) >= 2 else []
    return out


def read_past_finder(img: np.ndarray) -> bool:
    """Whether a frame is read larger than the view the learned finder learnt from below
    (`HEAP_SEARCH_SIDE`)."""
    return max(img.shape[:2]) > HEAP_SEARCH_SIDE


def _found_in_heaps(img: np.ndarray, blobs: list[Blob], detector: DieDetector, k: float = 1.0
                    ) -> list[tuple[Blob, list[Detection]]]:
    """Each heap (`_heaps`) and the learned finder's boxes in its region (grown by `HEAP_PAD`), the region
    searched shrunk by `k` (the boxes in `img`'s pixels)."""
    out = []
    for heap in _heaps(blobs):
        x, y, w, h = heap.mask_box
        pad = int(HEAP_PAD * max(w, h))
        x0, y0 = max(0, x - pad), max(0, y - pad)
        x1, y1 = min(img.shape[1], x + w + pad), min(img.shape[0], y + h + pad)
        out.append((heap, [Detection((d.box[0] + x0, d.box[1] + y0, d.box[2], d.box[3]), d.score)
                           for d in detected_shrunk(img[y0:y1, x0:x1], detector, k)]))
    return out


def detected_shrunk(img: np.ndarray, detector: DieDetector, k: float) -> list[Detection]:
    """The learned finder's boxes in `img` searched shrunk by `k` (at most 1), in `img`'s pixels."""
    if k >= 1.0:
        return detector.detect(img)
    small = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    return [Detection((d.box[0] / k, d.box[1] / k, d.box[2] / k, d.box[3] / k), d.score)
            for d in detector.detect(small)]


def frame_detected(img: np.ndarray, detector: DieDetector, k: float) -> list[Detection]:
    """`detected_shrunk` of a whole frame, searched once while `readsize.FOUND` keeps it. Why: the watcher
    reads each settled frame twice, without the room and with it, and both reads of icon dice search all of it
    at the finder's view (`reader._found`, `crowd_detections`): about 2.5 ms a search on one core."""
    def rows() -> np.ndarray:
        found = detected_shrunk(img, detector, k)
        return np.array([[*d.box, d.score] for d in found], np.float64).reshape(-1, 5)
    made = FOUND.get(img, ("finder", detector, detector.threshold, k), rows)
    return [Detection((x, y, w, h), score) for x, y, w, h, score in made.tolist()]


def at_finder_view(img: np.ndarray) -> float:
    """The factor a frame read larger than the view the learned finder learnt from below is shrunk by to be
    searched (`HEAP_SEARCH_SIDE`; 1: not shrunk)."""
    return min(1.0, HEAP_SEARCH_SIDE / max(img.shape[:2]))


def _heaps(blobs: list[Blob]) -> list[Blob]:
    """The heaps of touching dice among the outline finder's blobs: each split blob whose parts are not all
    whole dice (once), and each blob left whole that is shaped like no one die, either way one that can hold
    two dice (`_holds_dice`); and any blob much wider than the frame's other dice (`_wider_than_the_others`)."""
    shaped = [b for b in blobs if not b.cut and die_shaped(b.contour)]
    sides = [max(b.rect[1]) for b in shaped if b.whole is None]
    typical = float(np.median(sides)) if sides else 0.0
    heaps: dict[int, Blob] = {}
    for b in blobs:
        heap = b.whole if b.whole is not None else b
        shaped_as_die = any(o is b for o in shaped)
        others = [max(o.rect[1]) for o in shaped if o is not b]
        if not b.cut and ((not shaped_as_die and _holds_dice(heap, typical))
                          or _wider_than_the_others(b, others)):
            heaps[id(heap)] = heap
    return list(heaps.values())


def _wider_than_the_others(b: Blob, other_sides: list[float]) -> bool:
    """A blob wider both ways than 1.5 times the median side of the frame's other die-shaped blobs (at least two,
    parts of split blobs too), whatever its shape: four touching dice two by two are shaped like one die, so
    `_holds_dice` never looks at them, and its usual die counts only whole blobs (the square's neighbours were
    often parts). Why: such a square passed as one die, no heap, and was read as one: a certain 5 across four
    red dice where none showed a 5 (Blender seed 42 frame 38, 1.8 sides of the frame's dice wide); searched by the
    learned finder, it is no certain phantom. As the watcher reads seeds 42-49, 1-3, 20-21 (1,076 d6) and tables
    100-123 (1,793): certain and right as before (568 and 825 dice), no certain phantom left, missed 59 -> 57 and
    140 -> 141."""
    return len(other_sides) >= 2 and min(b.rect[1]) >= 1.5 * float(np.median(other_sides))


def _holds_dice(b: Blob, typical_side: float) -> bool:
    """Whether a blob shaped like no one die can hold two: longer than square, or wider both ways than half as
    much again as the frame's usual die. Why: a black die's mask on a dark floor is a square hook of rim and
    pips, no die's shape either, and the finder's boxes on its pieces displaced the whole die's reading (render
    bench seed 51 frame 35: a certain 3 lost)."""
    (_, _), (rw, rh), _ = b.rect
    return max(rw, rh) >= HOOK_SQUARE * min(rw, rh) or (typical_side > 0 and min(rw, rh) >= 1.5 * typical_side)


def _join_outline(pc: Candidate, outlines: list[Candidate], sides: dict[int, Blob], mount: str) -> None:
    """A pip face joined to the outline around it: it takes the outline's crop count and shape, unless it is
    one pip off the outline's middle or in a larger outline (a side face, a part), or low in it."""
    near = [c for c in outlines if abs(c.box[0] - pc.box[0]) < 0.5 * c.box[2] and
            abs(c.box[1] - pc.box[1]) < 0.5 * c.box[3]]
    if not near:
        return
    o = near[0]
    off = math.hypot(o.box[0] - pc.box[0], o.box[1] - pc.box[1])
    pc.low = mount == "over" and _low_in_outline(pc, near, sides)
    if pc.pips == 1 and (off >= 0.2 * max(o.box[2:]) or max(o.box[2:]) > 1.25 * max(pc.box[2:])):
        pc.off_centre = True  # one pip in a larger outline, or off its middle: a side face, a part
    elif off < 0.2 * max(o.box[2:]):
        pc.rect, pc.crop_pips, pc.fill = o.rect, o.crop_pips, o.fill


def _low_in_outline(pc: Candidate, near: list[Candidate], sides: dict[int, Blob]) -> bool:
    """From above at an angle a die's outline holds its top face high and its front face low: whether the pip
    face lies low in an outline around it, or in the blob that outline was parted from."""
    return any(pc.box[1] - c.box[1] > LOW * c.box[3] for c in near) or \
        any(low_in(pc.box[1], sides[id(c)]) for c in near if id(c) in sides)
