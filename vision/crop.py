"""The canonical face crop and the small statistics every stage takes of it (shared by the outline and face
stages: `vision/outline.py`, `vision/faces.py`)."""

from __future__ import annotations

import math

import cv2
import numpy as np

from .corners import M as CORNER_M

N = 48  # canonical face crop side (px)


def inner_mask(n: int, margin: float) -> np.ndarray:
    m = np.zeros((n, n), bool)
    a = int(round(n * margin))
    m[a:n - a, a:n - a] = True
    return m


INNER = inner_mask(N, 0.1)
K3 = np.ones((3, 3), np.uint8)
K5E = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))


def pentagon_mask(n: int, scale: float) -> np.ndarray:
    """A d12 face (circumradius 0.62 of the crop's side, a vertex up, as the renderer draws it) shrunk by
    `scale` about its centre, as a boolean mask of an n x n crop."""
    a = -np.pi / 2 + np.arange(5) * 2 * np.pi / 5
    r = 0.62 * scale * n
    pts = np.stack([n / 2 - 0.5 + r * np.cos(a), n / 2 - 0.5 + r * np.sin(a)], 1)
    m = np.zeros((n, n), np.uint8)
    cv2.fillPoly(m, [np.round(pts * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    return m > 0


P_INNER = pentagon_mask(N, 0.82)
P_BAND = pentagon_mask(N, 0.88) & ~pentagon_mask(N, 0.66)
CORE = inner_mask(N, 0.16)
BAND = inner_mask(N, 0.08) & ~inner_mask(N, 0.2)
RIM = inner_mask(N, 0.03) & ~inner_mask(N, 0.08)
# BAND by side (top, bottom, left, right): where a die's side face or the room fills one side of the band, as
# a die seen slantwise or cut too wide has, another side may still hold its body alone
_EDGE = int(round(N * 0.2))
BAND_SIDES = tuple(BAND & m for m in (np.arange(N)[:, None] < _EDGE, np.arange(N)[:, None] >= N - _EDGE,
                                      np.arange(N)[None, :] < _EDGE, np.arange(N)[None, :] >= N - _EDGE))
HIRES_FACE = inner_mask(CORNER_M, 0.07).astype(np.float32)  # the corner reader's crop less its rim
HIRES_PENTAGON = pentagon_mask(CORNER_M, 0.88).astype(np.float32)  # ... a d12's face less its rim


def canonical_crop(img: np.ndarray, center: tuple[float, float], side: float, angle_deg: float,
                   n: int = N) -> np.ndarray:
    """The square face (side px, rotated angle) warped to n x n."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    k = side / n
    # dst (u, v) -> src: center + R @ ((u + 0.5) * k - side/2, ...)
    off = 0.5 * k - side / 2
    M = np.array([[c * k, -s * k, center[0] + c * off - s * off],
                  [s * k, c * k, center[1] + s * off + c * off]], np.float32)
    return cv2.warpAffine(img, M, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def rank(a: np.ndarray, q: float) -> np.ndarray:
    """The element at rank q (0..1) of `a` along its first axis (per channel for an (n, c) array): the
    median (q = 0.5) or a high percentile of a face's few hundred pixels, as np.partition picks it. Why:
    np.median and np.percentile interpolate and check their arguments, several times the cost on arrays
    this small, and a face is read with about eight of them."""
    k = min(len(a) - 1, max(0, int(q * (len(a) - 1) + 0.5)))
    return np.partition(a, k, axis=0)[k]


def median_u8(a: np.ndarray, mask: np.ndarray) -> float:
    """The median of a uint8 image under a uint8 mask, as `rank(values, 0.5)` picks it, from the
    histogram (no copy of the masked pixels). NaN when the mask is empty."""
    return hist_rank(cv2.calcHist([a], [0], mask, [256], [0, 256]).ravel(), 0.5)


def hist_rank(h: np.ndarray, q: float) -> float:
    """The value at rank q (0..1) of the values a 256-bin histogram counts, as `rank` picks it."""
    c = np.cumsum(h)
    n = int(c[-1])
    if n == 0:
        return float("nan")
    return float(np.searchsorted(c, min(n - 1, max(0, int(q * (n - 1) + 0.5))) + 1))


_FLAT: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def band_medians(crop: np.ndarray, band: np.ndarray) -> np.ndarray:
    """Each channel's median (as `rank(values, 0.5)` picks it) of an n x n x 3 uint8 crop under a boolean
    mask, as float32; NaN where the mask is empty. Why: one partition of the masked pixels for the three
    channels costs half of three histograms, and the reader's masks are a few fixed bands (their pixels'
    positions kept, keyed by the mask's identity and checked against it)."""
    hit = _FLAT.get(id(band))
    if hit is None or hit[0] is not band:
        if len(_FLAT) > 64:
            _FLAT.clear()
        hit = _FLAT[id(band)] = (band, np.flatnonzero(band))
    v = crop.reshape(-1, crop.shape[2])[hit[1]]
    if not len(v):
        return np.full(crop.shape[2], np.nan, np.float32)
    k = min(len(v) - 1, max(0, int(0.5 * (len(v) - 1) + 0.5)))
    return np.partition(v, k, axis=0)[k].astype(np.float32)


def otsu(vals: np.ndarray) -> float:
    v = np.clip(vals, 0, 255).astype(np.uint8).reshape(-1, 1)
    t, _ = cv2.threshold(v, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    return float(t)
