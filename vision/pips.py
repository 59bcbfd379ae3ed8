"""Pip-first reading of pip dice: find pips anywhere, group them into faces, faces into dice.

Pips are the most reliable thing on a pip die: small round blobs, much darker (or lighter) than a uniform
face around them, all of one size on a face. Working from pips keeps the reader independent of the tray:
a white die on a cream table, a black die on a black tray, a die on a busy background are all found the
same way, as long as its pips show.

1. Candidates: centre-surround contrast (box filters) on a small image pyramid, both polarities, on
   lightness and on chroma (coloured pips); local maxima over space and scale.
2. Verification: each candidate is segmented at its own midpoint threshold; it must be a compact blob
   with a uniform ring of face around it; its ellipse says how foreshortened it is.
3. Faces: two pips are on the same face when they are alike (size, shape, polarity, face colour) and the
   straight path between them stays on uniform face colour (a die edge or a side face breaks it).
4. Dice: faces close together (relative to their pip size) are one die; its top face is the one seen most
   squarely (roundest, largest pips). Layout fit of the pips, ambiguity of the top face and pip regularity
   give the confidence.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from .glyphs import PIP_LAYOUT


def _median(values: list[float]) -> float:
    """Median of a short list of Python floats; same value as np.median, without its ~30 us overhead (the
    face and die stages take a few hundred of these per frame)."""
    s = sorted(values)
    n = len(s)
    if n == 0:
        return float("nan")
    k = n // 2
    return float(s[k]) if n % 2 else (s[k - 1] + s[k]) / 2.0


def chroma_plane(lab: np.ndarray) -> np.ndarray:
    """|a - 128| + |b - 128| saturated to uint8: how coloured each pixel is (yellow pips on white, red on
    black). OpenCV's saturating uint8 arithmetic gives the same values as the int16 numpy version, 10x
    faster."""
    a = cv2.extractChannel(lab, 1)
    b = cv2.extractChannel(lab, 2)
    return cv2.add(cv2.absdiff(a, 128), cv2.absdiff(b, 128))


def _median_u8(values: np.ndarray) -> float:
    """np.median of a 1-d uint8 array (exactly: the middle value, or the mean of the two middle ones), by a
    partial sort and without np.median's generic overhead."""
    n = values.size
    k = n // 2
    if n % 2:
        return float(np.partition(values, k)[k])
    part = np.partition(values, (k - 1, k))
    return (float(part[k - 1]) + float(part[k])) / 2.0


def _percentile90(values: np.ndarray) -> float:
    """np.percentile(values, 90) (linear interpolation) of a 1-d float array, by a partial sort."""
    n = values.size
    pos = 0.9 * (n - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, n - 1)
    part = np.partition(values, (lo, hi))
    a, b = float(part[lo]), float(part[hi])
    g = pos - lo
    return a + (b - a) * g if g < 0.5 else b - (b - a) * (1.0 - g)


def _face_level(patch8: np.ndarray) -> float:
    """A patch's face level: its 75th percentile by rank (every other pixel of a patch over 400), a robust
    high value (the face is the majority of the patch, pips are dark). One copy, sorted in place."""
    flat = (patch8[::2, ::2] if patch8.size > 400 else patch8).flatten()
    k = int(flat.size * 0.75)
    flat.partition(k)
    return float(flat[k])


def _std_u8(values: np.ndarray) -> float:
    """The standard deviation of a 1-d uint8 array, in double precision (np.std's generic path cost some 50-70
    us a call on a pip's ring of a few dozen pixels; it summed the float32 copy in float32, a few millionths
    away)."""
    return float(cv2.meanStdDev(values)[1][0, 0])


@dataclass
class Planes:
    """One frame's Lab image with its lightness and chroma planes, each computed once and contiguous
    (OpenCV filters run about twice as fast on a contiguous plane as on a strided view of `lab`)."""
    lab: np.ndarray
    L: np.ndarray
    chroma: np.ndarray
    _inverted: dict[int, np.ndarray] = field(default_factory=dict)

    @classmethod
    def of(cls, lab: np.ndarray) -> Planes:
        return cls(lab, cv2.extractChannel(lab, 0), chroma_plane(lab))

    def channel(self, channel: int) -> np.ndarray:
        """The plane pips of `channel` were found on (0 lightness, 1 chroma)."""
        return self.L if channel == 0 else self.chroma

    def inverted(self, channel: int) -> np.ndarray:
        """255 less the plane of `channel`, made once per frame: light pips on a dark face are looked at in it
        as dark pips (`_verify` cut and inverted a patch for each such candidate, 4 us of its 30)."""
        inv = self._inverted.get(channel)
        if inv is None:
            inv = self._inverted[channel] = cv2.bitwise_not(self.channel(channel))
        return inv


@dataclass
class Pip:
    x: float
    y: float
    r: float            # equivalent radius (px)
    major: float
    minor: float
    angle: float        # ellipse orientation (rad)
    contrast: float     # ring level - pip level (signed by polarity: >0 dark pip)
    ring: float         # face level around it (channel units)
    ring_std: float
    polarity: int       # +1 dark pip on light face, -1 light pip on dark face
    channel: int        # 0 lightness, 1 chroma
    face_lab: tuple[float, float, float] = (0.0, 0.0, 0.0)
    area: float = 0.0
    n_merged: int = 1
    fill: float = 1.0
    extra: bool = False  # found among the extra candidates of a busy frame (`detect_pips`)

    @property
    def roundness(self) -> float:
        return self.minor / max(self.major, 1e-6)


@dataclass
class Face:
    pips: list[Pip]
    count: int
    cx: float
    cy: float
    residual: float
    roundness: float
    pip_r: float
    size: float              # estimated face side px
    regular: float           # pip size consistency 0..1
    angle: float = 0.0
    lab: tuple[float, float, float] = (0.0, 0.0, 0.0)
    others: list[Face] = field(default_factory=list)
    conflict: float = 0.0    # ink found where the layout has no pip (0..1)
    clutter: float = 0.0     # fraction of the face that is not face colour (glare, hidden pips)
    faint: int = 0           # faint pip-like blobs beside a lone pip
    twin: bool = False       # another lone pip close by (an unlinked face?)  # side faces of the same die


# ----------------------------------------------------------------------------- candidates

_SCALES = (3, 4, 6)  # inner box sides at each pyramid level (pip diameters in that level's px)


def _responses(chan: np.ndarray, scales: tuple[int, ...]) -> list[tuple[int, np.ndarray]]:
    out = []
    for s in scales:
        inner = cv2.blur(chan, (s, s))
        o = 3 * s
        outer = cv2.blur(chan, (o, o))
        # ring mean = (outer*9 - inner)/8  -> resp = ring - inner = 9/8 (outer - inner); one OpenCV call
        # straight into int16 instead of two numpy casts and a subtraction
        resp = cv2.subtract(outer, inner, dtype=cv2.CV_16S)
        out.append((s, resp))
    return out


def _candidates(chan: np.ndarray, thr: float, max_n: int, min_level: int = 0,
                max_level: int = 4) -> list[tuple[float, float, float, float]]:
    """(x, y, diameter, response) of local extrema of centre-surround response, both polarities."""
    xs_all, ys_all, ds_all, vs_all = [], [], [], []
    img = chan
    scale = 1.0
    k3 = np.ones((3, 3), np.uint8)
    ithr = int(thr)
    for level in range(max_level + 1):
        if level > 0:
            img = cv2.pyrDown(img)
            scale *= 2.0
        if level < min_level:
            continue
        if min(img.shape[:2]) < 24:
            break
        scales = _SCALES if level > 0 else (3, 4)
        resps = [r for _, r in _responses(img, scales)]
        hi = resps[0]
        lo = resps[0]
        for r in resps[1:]:
            hi = cv2.max(hi, r)
            lo = cv2.min(lo, r)
        for pol, best in ((1, hi), (-1, cv2.subtract(np.zeros_like(lo), lo))):
            m = cv2.compare(best, cv2.dilate(best, k3), cv2.CMP_GE)
            m &= cv2.compare(best, ithr, cv2.CMP_GT)
            pts = cv2.findNonZero(m)
            if pts is None:
                continue
            pts = pts.reshape(-1, 2)
            xs, ys = pts[:, 0], pts[:, 1]
            hh, ww = best.shape
            inb = (xs > 0) & (ys > 0) & (xs < ww - 1) & (ys < hh - 1)
            xs, ys = xs[inb], ys[inb]
            if len(xs) == 0:
                continue
            # reject ridges (edges, lines, grain): a blob's response falls off in every direction
            b = best
            c0 = b[ys, xs].astype(np.float32)
            dxx = b[ys, xs + 1] + b[ys, xs - 1] - 2 * c0
            dyy = b[ys + 1, xs] + b[ys - 1, xs] - 2 * c0
            dxy = (b[ys + 1, xs + 1].astype(np.float32) + b[ys - 1, xs - 1] - b[ys + 1, xs - 1] - b[ys - 1, xs + 1]) / 4
            tr = dxx + dyy
            det = dxx * dyy - dxy * dxy
            blob = (det > 0) & (tr * tr < 12.1 * det)
            # flat-topped responses (a big blob at a small scale) have det ~ 0: keep those too when strong
            flat = (np.abs(dxx) + np.abs(dyy) < 0.05 * c0 + 1)
            keep = blob | flat
            xs, ys = xs[keep], ys[keep]
            if len(xs) == 0:
                continue
            vals = best[ys, xs].astype(np.float32)
            arg = np.stack([r[ys, xs] for r in resps]).argmax(0) if pol == 1 else \
                np.stack([r[ys, xs] for r in resps]).argmin(0)
            sz = np.array(scales, np.float32)[arg]
            xs_all.append((xs + 0.5) * scale - 0.5)
            ys_all.append((ys + 0.5) * scale - 0.5)
            ds_all.append(sz * scale)
            vs_all.append(pol * vals)
    if not xs_all:
        return []
    X = np.concatenate(xs_all)
    Y = np.concatenate(ys_all)
    D = np.concatenate(ds_all)
    V = np.concatenate(vs_all)
    order = np.argsort(-np.abs(V))[: max_n * 3]
    X, Y, D, V = X[order], Y[order], D[order], V[order]
    kept_idx = _suppress(X, Y, D, V > 0, max_n)
    k = np.array(kept_idx, np.intp)  # (tolist gives the same Python floats as float() one by one, at once)
    return list(zip(X[k].tolist(), Y[k].tolist(), D[k].tolist(), V[k].tolist(), strict=True))


def _suppress(X: np.ndarray, Y: np.ndarray, D: np.ndarray, pos: np.ndarray, max_n: int) -> list[int]:
    """Greedy suppression, strongest first (the arrays are sorted by strength): a candidate clashes with a
    kept one of the same polarity and similar scale (diameters within 2.1x) closer than 0.6 of the larger
    diameter.

    Speed: positions are (i + 0.5) * 2^level - 0.5, so doubled they are integers and squared distances are
    exact in int32. The clashing pairs are found first, all at once (`_clashing_pairs`), and the greedy pass
    walks them in plain Python: it had compared each kept candidate with every weaker one, a tenth of a
    busy photo's pip search (2,400 candidates, 800 kept)."""
    n = len(X)
    i, j = _clashing_pairs(np.rint(2.0 * X).astype(np.int32), np.rint(2.0 * Y).astype(np.int32), D, pos)
    order = np.argsort(i, kind="stable")
    starts = np.searchsorted(i[order], np.arange(n + 1)).tolist()
    weaker = j[order].tolist()
    suppressed = bytearray(n)
    kept: list[int] = []
    for k in range(n):
        if suppressed[k]:
            continue
        kept.append(k)
        if len(kept) >= max_n:
            break
        for w in weaker[starts[k]:starts[k + 1]]:
            suppressed[w] = 1
    return kept


def _clashing_pairs(x2: np.ndarray, y2: np.ndarray, D: np.ndarray,
                    pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every clashing pair (i, j), i < j, of candidates at doubled integer positions (x2, y2). Whether two
    may clash at all, and within which squared radius, depends only on their (diameter, polarity) classes: a
    small integer table (-1: never; ceil of the radius, exact for integer distances). A pair clashes within
    1.2 of its larger diameter (doubled units), so under 2.52 of its smaller: only pairs that near in x are
    measured."""
    sizes, di = np.unique(D, return_inverse=True)
    big = np.maximum(sizes[:, None], sizes[None, :]).astype(np.float64)
    small = np.minimum(sizes[:, None], sizes[None, :]).astype(np.float64)
    # 4 * (0.6 * larger diameter)^2: the squared radius on the doubled grid (scaling by 4 is exact)
    radius2 = np.where(big < 2.1 * small, np.ceil(4.0 * (0.6 * big) ** 2), -1.0)
    k = len(sizes)
    table = np.full((2 * k, 2 * k), -1, np.int32)  # class = 2 * diameter index + (positive polarity)
    table[0::2, 0::2] = radius2
    table[1::2, 1::2] = radius2
    cls = 2 * di.ravel() + pos.astype(np.intp)
    a, b = _near_in_x(x2, np.ceil(2.52 * D).astype(np.int32) + 1)
    dx, dy = x2[a] - x2[b], y2[a] - y2[b]
    clash = dx * dx + dy * dy < table[cls[a], cls[b]]
    a, b = a[clash], b[clash]
    return np.minimum(a, b), np.maximum(a, b)


def _near_in_x(x: np.ndarray, reach: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (a, b) whose x differ by at most the reach of the one further left (once each): sorted by
    x, each point is paired with the run of points after it up to its reach."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    after = np.arange(1, len(xs) + 1)
    runs = np.maximum(np.searchsorted(xs, xs + reach[order], side="right") - after, 0)
    firsts = np.repeat(after - np.cumsum(runs) + runs, runs)
    return np.repeat(order, runs), order[firsts + np.arange(int(runs.sum()))]


def _verify(chan: np.ndarray, lab: np.ndarray, c: tuple[float, float, float, float], channel: int,
            min_contrast: float, max_r: float = 1e9, inv: np.ndarray | None = None) -> Pip | None:
    """Segment one candidate and check it is a pip: compact blob, uniform ring of face around it. `inv`: the
    plane 255 - `chan`, if the caller has it (`Planes.inverted`). Stages: the patch (`_patch`), the dark blob
    at its centre (`_blob`), its size and shape, the ring of face around it (`_ring`)."""
    x, y, d, v = c
    pol = 1 if v > 0 else -1
    cut = _patch(chan, x, y, d, pol, inv)
    if cut is None:
        return None
    patch8, x0, y0 = cut
    blob = _blob(patch8, int(round(x)) - x0, int(round(y)) - y0, d, min_contrast)
    if blob is None:
        return None
    req = math.sqrt(blob.area / math.pi)
    if req > max_r or blob.minor / blob.major < 0.25:
        return None
    ring = _ring(patch8, blob, req, min_contrast)
    if ring is None:
        return None
    wx0, wy0, wx1, wy1 = ring.window
    lab_ring = lab[y0 + wy0:y0 + wy1, x0 + wx0:x0 + wx1][ring.mask]
    face_lab = tuple(_median_u8(lab_ring[:, i]) for i in range(3))
    ring_level = ring.level if pol > 0 else 255.0 - ring.level
    return Pip(x0 + blob.mx, y0 + blob.my, req, blob.major, blob.minor, blob.angle, pol * ring.contrast,
               ring_level, ring.std, pol, channel, face_lab, float(blob.area), 1, float(blob.fill))


def _patch(chan: np.ndarray, x: float, y: float, d: float, pol: int, inv: np.ndarray | None
           ) -> tuple[np.ndarray, int, int] | None:
    """The candidate's uint8 patch, a pip dark in it (light pips from `inv`), and its corner; None where the
    patch would leave the plane. The cheap rejections (most candidates) run on it: same values, no float
    copy."""
    h, w = chan.shape[:2]
    R = int(math.ceil(d * 1.6)) + 2
    x0, y0 = int(round(x)) - R, int(round(y)) - R
    x1, y1 = int(round(x)) + R + 1, int(round(y)) + R + 1
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return None
    if pol > 0:
        return chan[y0:y1, x0:x1], x0, y0
    return (inv[y0:y1, x0:x1] if inv is not None else 255 - chan[y0:y1, x0:x1]), x0, y0


@dataclass(frozen=True)
class _Blob:
    """A candidate's dark component in its patch (0/1 pixels) and the ellipse of its moments."""
    comp: np.ndarray
    area: int
    mx: float
    my: float
    major: float
    minor: float
    angle: float
    fill: float


def _blob(patch8: np.ndarray, cx: int, cy: int, d: float, min_contrast: float) -> _Blob | None:
    """The dark blob at the patch's centre: darker than half-way from its core to the face, clear of the
    patch's border (else a line or a big dark region), of at least 3 px, filling its ellipse."""
    rr = max(1, int(d * 0.25))
    core = cv2.minMaxLoc(patch8[cy - rr:cy + rr + 1, cx - rr:cx + rr + 1])[0]  # (ndarray.min: 2 us more)
    contrast = _face_level(patch8) - core
    if contrast < min_contrast:
        return None
    # whole numbers, so below that level's ceiling (a numpy comparison with a float compared them as
    # float64, a few us more)
    bw = cv2.compare(patch8, math.ceil(core + 0.5 * contrast), cv2.CMP_LT)
    found = _dark_component(bw, cx, cy, 0.5 * d)
    if found is None:
        return None
    comp, (bx, by, bwid, bhei), area = found
    if bx == 0 or by == 0 or bx + bwid >= bw.shape[1] or by + bhei >= bw.shape[0] or area < 3:
        return None
    return _filled_ellipse(comp, area)


def _filled_ellipse(comp: np.ndarray, area: int) -> _Blob | None:
    """The component's ellipse from its second moments (+1/12 for the pixel's own extent); None unless the
    component fills it (compactness)."""
    mo = cv2.moments(comp, True)
    mx, my = mo["m10"] / mo["m00"], mo["m01"] / mo["m00"]
    a_ = mo["mu20"] / mo["m00"] + 1.0 / 12
    c_ = mo["mu02"] / mo["m00"] + 1.0 / 12
    b_ = mo["mu11"] / mo["m00"]
    root = math.sqrt(max(0.0, ((a_ - c_) / 2) ** 2 + b_ * b_))
    l1, l2 = (a_ + c_) / 2 + root, (a_ + c_) / 2 - root
    major = 2.0 * math.sqrt(max(l1, 1e-6))
    minor = 2.0 * math.sqrt(max(l2, 1e-6))
    fill = area / (math.pi * major * minor)
    if fill < 0.6 or fill > 1.35:
        return None
    return _Blob(comp, area, mx, my, major, minor, 0.5 * math.atan2(2 * b_, a_ - c_), fill)


@dataclass(frozen=True)
class _Ring:
    """The face around a pip: its pixels' median and spread, the pip's contrast to it, where it lies."""
    level: float
    std: float
    contrast: float
    mask: np.ndarray
    window: tuple[int, int, int, int]   # x0, y0, x1, y1 in the patch


def _ring(patch8: np.ndarray, b: _Blob, req: float, min_contrast: float) -> _Ring | None:
    """The ring of face between 1.45 and 2 radii of the pip's ellipse, if it is uniform (few pixels near the
    pip's level) and the pip's rim is sharp (a printed pip is in focus; a lamp or a blurred spot is not).
    Everything happens within 2 major axes of the pip (+3 px for the 3x3 smoothing and gradient), a window
    about a third of the patch: the same pixels in the same order, so the same values."""
    r = int(math.ceil(2.0 * b.major)) + 3
    wx0, wy0 = max(0, int(b.mx) - r), max(0, int(b.my) - r)
    wx1, wy1 = min(patch8.shape[1], int(b.mx) + r + 1), min(patch8.shape[0], int(b.my) + r + 1)
    win8 = patch8[wy0:wy1, wx0:wx1]
    gx = np.arange(wx0, wx1, dtype=np.float32)[None, :] - b.mx
    gy = np.arange(wy0, wy1, dtype=np.float32)[:, None] - b.my
    ca, sa = math.cos(b.angle), math.sin(b.angle)
    u = (gx * ca + gy * sa) / b.major
    vv = (-gx * sa + gy * ca) / b.minor
    rho = np.sqrt(u * u + vv * vv)
    ring_m = (rho > 1.45) & (rho < 2.0)
    if np.count_nonzero(ring_m) < 6:
        return None
    ring8 = win8[ring_m]
    ring_med = _median_u8(ring8)
    ring_std = _std_u8(ring8)
    inner_v = _median_u8(patch8[b.comp.view(bool)])
    con = ring_med - inner_v
    if con < min_contrast:
        return None
    dark_frac = np.count_nonzero(ring8 < math.ceil(inner_v + 0.5 * con)) / ring8.size
    if dark_frac > 0.12 or ring_std > 0.3 * con + 4 or not _sharp_rim(win8, rho, con, req):
        return None
    return _Ring(ring_med, ring_std, con, ring_m, (wx0, wy0, wx1, wy1))


def _sharp_rim(win8: np.ndarray, rho: np.ndarray, con: float, req: float) -> bool:
    """Whether the pip's rim (0.7-1.3 radii) is as sharp as a printed pip's: its gradient's 90th percentile
    large for the pip's contrast and size (the magnitude is taken only where it is looked at)."""
    edge_m = (rho > 0.7) & (rho < 1.3)
    if not edge_m.any():
        return True
    sm = cv2.GaussianBlur(win8.astype(np.float32), (3, 3), 0.8)
    gxm = cv2.Sobel(sm, cv2.CV_32F, 1, 0, ksize=3)[edge_m]
    gym = cv2.Sobel(sm, cv2.CV_32F, 0, 1, ksize=3)[edge_m]
    g90 = _percentile90(np.sqrt(gxm * gxm + gym * gym) / 8.0)
    return con / max(g90, 1e-3) <= 0.5 * req + 2.5


def _dark_component(bw: np.ndarray, cx: int, cy: int, reach: float
                    ) -> tuple[np.ndarray, tuple[int, int, int, int], int] | None:
    """The 8-connected component of the mask `bw` at (cx, cy), else the one whose centroid is nearest
    within `reach`: (its pixels as a 0/1 uint8 image, its box (x, y, w, h), its area), or None. Why a flood
    fill: most candidates' dark core is at their centre, and the fill visits only that component, where
    labelling every component of the patch cost several times more (a photo's 550 candidates, most
    rejected by their box)."""
    h, w = bw.shape
    if bw[cy, cx]:
        mask = np.zeros((h + 2, w + 2), np.uint8)
        area, _, _, box = cv2.floodFill(bw, mask, (cx, cy), 255, 0, 0, 8 | cv2.FLOODFILL_MASK_ONLY | (1 << 8))
        return mask[1:-1, 1:-1], box, area
    # 16-bit labels (a patch has far fewer than 65536 components): a third faster than the default 32-bit
    n, labels, stats, cents = cv2.connectedComponentsWithStats(bw, connectivity=8, ltype=cv2.CV_16U)
    best, bd = 0, 1e9
    for i in range(1, n):
        dd = (cents[i][0] - cx) ** 2 + (cents[i][1] - cy) ** 2
        if dd < bd:
            best, bd = i, dd
    if best == 0 or bd > reach ** 2:
        return None
    bx, by, bwid, bhei, area = stats[best].tolist()  # (Python ints: unpacking numpy's costs 0.7 us more)
    return (labels == best).view(np.uint8), (bx, by, bwid, bhei), area


def detect_pips(planes: Planes, min_contrast: float = 18.0, max_candidates: int = 160, extra: int = 0) -> list[Pip]:
    """All pips in a Lab frame (both polarities, lightness and chroma). `extra`: candidates looked at beyond the
    strongest `max_candidates` (a busy frame's board or table can spend those all); a pip they find counts only
    where none of the strongest ones lies, so the pips of an ordinary frame are measured exactly as without.
    Stages: the frame's candidate threshold, the lightness plane's pips, the chroma plane's, then duplicates
    and die-sized blobs dropped."""
    L = planes.L
    max_r = min(L.shape[:2]) / 14.0  # a 1-pip of a 200 px die at 640x480
    thr = _texture_threshold(L, min_contrast)
    pips, later = _lightness_pips(planes, thr, min_contrast, max_r, max_candidates, extra)
    if int(planes.chroma.max()) > min_contrast:
        _add_chroma_pips(planes, thr, min_contrast, max_r, max_candidates, extra, pips, later)
    return _without_dice_sized_blobs(_without_duplicates(pips, later))


def _texture_threshold(L: np.ndarray, min_contrast: float) -> float:
    """The candidates' response threshold: a few times the typical response of this frame's texture (the
    median absolute deviation of a 9x9 centre-surround on the frame at a quarter size)."""
    small = cv2.resize(L, (L.shape[1] // 4, L.shape[0] // 4), interpolation=cv2.INTER_AREA)
    r = cv2.blur(small, (9, 9)).astype(np.int16) - small.astype(np.int16)
    sd = 1.4826 * float(np.median(np.abs(r - np.median(r)))) + 1.0
    return max(min_contrast * 0.7, 4.0 * sd)


def _lightness_pips(planes: Planes, thr: float, min_contrast: float, max_r: float, max_candidates: int,
                    extra: int) -> tuple[list[Pip], list[Pip]]:
    """The pips of the lightness plane: (those of the strongest `max_candidates` candidates, those of the
    `extra` ones after them). The candidates come strongest first, and the first `max_candidates` of a longer
    list are the same."""
    pips: list[Pip] = []
    later: list[Pip] = []
    for i, c in enumerate(_candidates(planes.L, thr, max_candidates + extra)):
        p = _verify(planes.L, planes.lab, c, 0, min_contrast, max_r, planes.inverted(0))
        if p is not None:
            (pips if i < max_candidates else later).append(p)
    return pips, later


def _add_chroma_pips(planes: Planes, thr: float, min_contrast: float, max_r: float, max_candidates: int,
                     extra: int, pips: list[Pip], later: list[Pip]) -> None:
    """Coloured pips on a face of about the same lightness (yellow on white, red on black), found on the
    chroma plane where no pip lies yet, added to `pips` (a quarter of the strongest candidates) and to
    `later`."""
    strong = max_candidates // 4
    for i, c in enumerate(_candidates(planes.chroma, max(thr, min_contrast * 0.6), strong + extra // 4)):
        if any((p.x - c[0]) ** 2 + (p.y - c[1]) ** 2 < (0.6 * c[2]) ** 2
               for p in (pips if i < strong else (*pips, *later))):
            continue
        p = _verify(planes.chroma, planes.lab, c, 1, min_contrast * 1.2, max_r, planes.inverted(1))
        if p is not None:
            (pips if i < strong else later).append(p)


def _without_duplicates(pips: list[Pip], later: list[Pip]) -> list[Pip]:
    """One pip of each blob found at two scales or polarities: the stronger, and any of the strongest
    candidates' pips before the extra ones' (which are marked `extra`)."""
    pips.sort(key=lambda p: -abs(p.contrast))
    later.sort(key=lambda p: -abs(p.contrast))
    for p in later:
        p.extra = True
    out: list[Pip] = []
    for p in (*pips, *later):
        if any((p.x - q.x) ** 2 + (p.y - q.y) ** 2 < (0.8 * max(p.r, q.r)) ** 2 and
               max(p.r, q.r) < 1.7 * min(p.r, q.r) for q in out):
            continue
        out.append(p)
    return out


def _without_dice_sized_blobs(pips: list[Pip]) -> list[Pip]:
    """The pips less every blob with smaller blobs inside it: a die (or a tile), not a pip."""
    return [p for p in pips if not any(q is not p and q.r < 0.6 * p.r and
                                       (q.x - p.x) ** 2 + (q.y - p.y) ** 2 < (1.1 * p.major) ** 2
                                       for q in pips)]


# ----------------------------------------------------------------------------- faces

PipArrays = tuple[np.ndarray, np.ndarray, np.ndarray]


def _pip_arrays(pips: list[Pip]) -> PipArrays:
    """x, y and major axis of every pip (float32), built once per frame by the caller and passed down
    (no module-level cache: frames may be read in several threads)."""
    return (np.array([o.x for o in pips], np.float32), np.array([o.y for o in pips], np.float32),
            np.array([o.major for o in pips], np.float32))


def _path_uniform(lab: np.ndarray, p: Pip, q: Pip, tol: float, others: PipArrays | None = None) -> bool:
    """Does the straight path between two pips (outside both, and outside pips on the way, `others` from
    `_pip_arrays`) stay on the same face colour?"""
    dx, dy = q.x - p.x, q.y - p.y
    dist = math.hypot(dx, dy)
    if dist < 1e-3:
        return True
    a0 = (p.major * 1.3) / dist
    a1 = 1 - (q.major * 1.3) / dist
    if a1 <= a0:
        return True
    n = max(3, int((a1 - a0) * dist / 1.5))
    ts = np.linspace(a0, a1, n)
    xs = np.clip(np.round(p.x + dx * ts).astype(int), 0, lab.shape[1] - 1)
    ys = np.clip(np.round(p.y + dy * ts).astype(int), 0, lab.shape[0] - 1)
    keep = np.ones(len(xs), bool)
    if others is not None and len(others[0]):
        ox, oy, om = others
        m = om * 1.3
        near = (ox > min(p.x, q.x) - m) & (ox < max(p.x, q.x) + m) & (oy > min(p.y, q.y) - m) & \
            (oy < max(p.y, q.y) + m)
        near &= ((ox - p.x) ** 2 + (oy - p.y) ** 2 > 0.01) & ((ox - q.x) ** 2 + (oy - q.y) ** 2 > 0.01)
        if near.any():
            d2 = (xs[:, None] - ox[near][None, :]) ** 2 + (ys[:, None] - oy[near][None, :]) ** 2
            keep = (d2 > (m[near] ** 2)[None, :]).all(1)
    if keep.sum() < 2:
        return True
    xs, ys = xs[keep], ys[keep]
    vals = lab[ys, xs].astype(np.float32)
    if len(vals) >= 3:  # sensor noise: average each sample with its neighbours along the path
        vals = np.concatenate([vals[:1], (vals[:-2] + vals[1:-1] + vals[2:]) / 3.0, vals[-1:]])
    ref = (np.array(p.face_lab) + np.array(q.face_lab)) * 0.5
    dev = np.abs(vals - ref)
    d = dev[:, 0] + 1.5 * (dev[:, 1] + dev[:, 2])
    return int(np.count_nonzero(d > tol)) <= 1


def _similar(p: Pip, q: Pip) -> bool:
    if p.channel == q.channel and p.polarity != q.polarity:
        return False
    ra = p.area / max(q.area, 1e-6)
    if ra > 2.6 or ra < 1 / 2.6:
        return False
    if abs(p.roundness - q.roundness) > 0.22:
        return False
    if min(p.roundness, q.roundness) < 0.75:
        # foreshortened pips of one face share their orientation
        da = abs((p.angle - q.angle + math.pi / 2) % math.pi - math.pi / 2)
        if da > 0.45:
            return False
    fp, fq = p.face_lab, q.face_lab
    con = min(abs(p.contrast), abs(q.contrast))
    return abs(fp[0] - fq[0]) < 0.2 * con + 8 and abs(fp[1] - fq[1]) + abs(fp[2] - fq[2]) < 0.3 * con + 8


_PERMS = {n: np.array(list(itertools.permutations(range(n))), np.int64) for n in range(1, 7)}
_ROTS = np.stack([np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]], np.float32)
                  for a in np.radians(np.arange(0, 180, 4))])


def _fit_layout(pts: np.ndarray, n: int, unfore: np.ndarray | None = None) -> tuple[float, np.ndarray | None]:
    """Best fit of pip layout n to the pips: residual (in layout steps) and the 2x3 affine matrix mapping
    layout coordinates (steps, centred) to image px. Similarity search (on the un-foreshortened points)
    gives the correspondence; faces of 4+ pips are then refined with a full affine fit (perspective)."""
    if n == 1:
        return 0.0, None
    base = np.array(PIP_LAYOUT[n], np.float32)
    Q0 = unfore if unfore is not None else pts
    P = Q0 - Q0.mean(0)
    rms_p = math.sqrt(float((P ** 2).sum(1).mean())) + 1e-6
    B = base - base.mean(0)
    rms_b = math.sqrt(float((B ** 2).sum(1).mean()))
    Bn = B / rms_b
    Pn = P / rms_p
    perms = _PERMS[n]
    Q = np.einsum("ij,ajk->aik", Bn, _ROTS)          # (A, n, 2) layout at every angle
    d = np.linalg.norm(Pn[None, :, None, :] - Q[:, None, :, :], axis=3)  # (A, i pips, j layout)
    # square the (A, n, n) distances before gathering them per permutation (A, P, n), not after: the same
    # squares, 100x fewer of them for a 6 (720 permutations)
    cost = (d ** 2)[:, np.arange(n)[None, :], perms].sum(2)  # (A, P)
    a_i, p_i = np.unravel_index(int(np.argmin(cost)), cost.shape)
    best = math.sqrt(float(cost[a_i, p_i]) / n)
    best_perm = perms[p_i].tolist()
    res_steps = best * rms_b
    # affine layout -> image from the correspondence
    src = base[best_perm]
    X = np.hstack([src, np.ones((n, 1), np.float32)])
    A, *_ = np.linalg.lstsq(X, pts, rcond=None)
    M = A.T.astype(np.float32)  # 2x3
    if n >= 4:
        fit = X @ A
        step = math.sqrt(abs(float(np.linalg.det(M[:, :2])))) + 1e-6
        res_steps = min(res_steps, math.sqrt(float(((fit - pts) ** 2).sum(1).mean())) / step)
    elif n == 2:
        # two points fix only the diagonal: the other diagonal is perpendicular, same length
        c0 = pts.mean(0)
        v = (pts[1] - pts[0]) * 0.5 if best_perm[1] == 1 else (pts[0] - pts[1]) * 0.5
        # v maps layout (1,1); perpendicular maps (1,-1) (foreshortening ignored)
        w = np.array([v[1], -v[0]], np.float32)
        # solve M: M @ (1,1) = v, M @ (1,-1) = w
        col_x = (v + w) / 2
        col_y = (v - w) / 2
        M = np.array([[col_x[0], col_y[0], c0[0]], [col_x[1], col_y[1], c0[1]]], np.float32)
    else:  # 3: collinear; the perpendicular diagonal as for 2
        c0 = pts.mean(0)
        ends = src[:, 0] != 0
        i_pos = [i for i in range(n) if ends[i] and src[i, 0] > 0][0]
        v = pts[i_pos] - c0
        w = np.array([v[1], -v[0]], np.float32)
        col_x = (v + w) / 2
        col_y = (v - w) / 2
        M = np.array([[col_x[0], col_y[0], c0[0]], [col_x[1], col_y[1], c0[1]]], np.float32)
    return float(res_steps), M


_GRID = np.stack(np.meshgrid(np.linspace(-1, 1, 13), np.linspace(-1, 1, 13)), -1).reshape(-1, 2).astype(np.float32)


def face_clutter(lab: np.ndarray, M: np.ndarray, pips: list[Pip], extent: float) -> float:
    """Fraction of the face (layout coords within +-extent steps, outside the pips) whose colour is not the
    face colour: glare, a hidden pip, a finger, another die on top."""
    pts = _GRID * extent
    xy = pts @ M[:, :2].T + M[:, 2]
    h, w = lab.shape[:2]
    xi = np.round(xy[:, 0]).astype(int)
    yi = np.round(xy[:, 1]).astype(int)
    ok = (xi >= 0) & (yi >= 0) & (xi < w) & (yi < h)
    for p in pips:
        m = 1.5 * p.major
        ok &= (xy[:, 0] - p.x) ** 2 + (xy[:, 1] - p.y) ** 2 > m * m
    if np.count_nonzero(ok) < 10:
        return 0.0
    vals = lab[yi[ok], xi[ok]].astype(np.float32)
    # (np.median over the pips' (L, a, b) was this function's costliest line: the same values, per channel)
    ref = np.array([_median([p.face_lab[c] for p in pips]) for c in range(3)], np.float32)
    dev = np.abs(vals - ref)
    d = dev[:, 0] + 1.5 * (dev[:, 1] + dev[:, 2])
    con = _median([abs(p.contrast) for p in pips])
    return np.count_nonzero(d > 0.35 * con + 12) / d.size


def _grid_conflict(chan: np.ndarray, M: np.ndarray, n: int, pol: int, face_v: float, pip_v: float,
                   r: float) -> float:
    """Largest ink level (0 face .. 1 pip) at the 3x3 grid points where layout n has no pip: a faint or
    hidden pip there means the count is wrong."""
    occupied = {tuple(p) for p in PIP_LAYOUT[n]}
    h, w = chan.shape[:2]
    worst = 0.0
    rr = max(1, int(round(0.5 * r)))
    span = face_v - pip_v
    if abs(span) < 1e-3:
        return 0.0
    for gx in (-1, 0, 1):
        for gy in (-1, 0, 1):
            if (gx, gy) in occupied:
                continue
            x, y = M @ np.array([gx, gy, 1.0], np.float32)
            xi, yi = int(round(x)), int(round(y))
            if xi - rr < 0 or yi - rr < 0 or xi + rr >= w or yi + rr >= h:
                continue
            v = float(np.mean(chan[yi - rr:yi + rr + 1, xi - rr:xi + rr + 1]))
            worst = max(worst, (face_v - v) / span)
    return worst


def _unforeshorten(pips: list[Pip]) -> np.ndarray:
    """Pip positions with the face's foreshortening removed (stretched along the pips' minor axis)."""
    pts = np.array([(p.x, p.y) for p in pips], np.float32)
    rnd = _median([p.roundness for p in pips])
    if rnd > 0.9 or len(pips) < 2:
        return pts
    # mean orientation of the minor axes (doubled-angle average)
    ang = math.atan2(sum(math.sin(2 * p.angle) for p in pips), sum(math.cos(2 * p.angle) for p in pips)) / 2
    ca, sa = math.cos(ang), math.sin(ang)
    R = np.array([[ca, sa], [-sa, ca]], np.float32)  # rows: major axis, minor axis
    q = (pts - pts.mean(0)) @ R.T
    q[:, 1] /= max(rnd, 0.3)
    return q


def _split_merged(group: list[Pip]) -> int:
    """Pip count of a face group, counting a blob about twice the size of its neighbours as merged pips."""
    if len(group) < 2:
        return len(group)
    unit = _median([p.area for p in group])
    n = 0
    for p in group:
        k = 1
        if p.area > 1.7 * unit and p.roundness < 0.7:
            k = int(min(3, max(2, round(p.area / unit))))
            p.n_merged = k
        n += k
    return n


def group_faces(pips: list[Pip], planes: Planes) -> list[Face]:
    """The faces the pips make: the pips linked into groups (`_linked_groups`), each group a face
    (`_face_of`)."""
    return [_face_of(g, planes) for g in _linked_groups(pips, planes.lab)]


def _linked_groups(pips: list[Pip], lab: np.ndarray) -> list[list[Pip]]:
    """The pips in groups: two alike pips (`_similar`) within reach of each other are one face's when the
    face between them is uniform (`_path_uniform`); groups are the links' connected parts (union-find)."""
    arrays = _pip_arrays(pips)
    n = len(pips)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    order = sorted(range(n), key=lambda i: pips[i].x)
    for ii, i in enumerate(order):
        p = pips[i]
        for j in order[ii + 1:]:
            q = pips[j]
            reach = 11.0 * max(p.major, q.major)
            if q.x - p.x > reach:
                break
            d = math.hypot(q.x - p.x, q.y - p.y)
            if d > reach:
                continue
            ri, rj = find(i), find(j)
            if ri == rj:
                continue  # already linked through other pips: the path check could not change the faces
            if not _similar(p, q):
                continue
            con = min(abs(p.contrast), abs(q.contrast))
            if _path_uniform(lab, p, q, tol=0.22 * con + 10, others=arrays):
                parent[ri] = rj
    groups: dict[int, list[Pip]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(pips[i])
    return list(groups.values())


def _face_of(g: list[Pip], planes: Planes) -> Face:
    """One group of pips as a face: its count, layout fit, grid conflict, regularity, size and clutter."""
    count = _split_merged(g)
    pts = np.array([(p.x, p.y) for p in g], np.float32)
    M = None
    if count > 6:
        res = 9.0
    elif len(g) == count:
        res, M = _fit_layout(pts, count, _unforeshorten(g)) if count > 1 else (0.0, None)
    else:
        res = 0.5  # merged pips: positions are not all known
    areas = np.array([p.area / p.n_merged for p in g])
    regular = 1.0 - min(1.0, float(np.std(areas) / max(np.mean(areas), 1e-6)) / 0.5) if len(g) > 1 else 1.0
    cx = sum(p.x for p in g) / len(g)
    cy = sum(p.y for p in g) / len(g)
    pr = _median([p.major for p in g])
    size = 2.0 * math.sqrt(abs(float(np.linalg.det(M[:, :2])))) / 0.52 if M is not None else pr * 2 / 0.2
    lab_face = tuple(_median([p.face_lab[c] for p in g]) for c in range(3))
    f = Face(g, count, cx, cy, res, _median([p.roundness for p in g]), pr, size, regular, 0.0,
             lab_face)
    f.conflict = _grid_conflict_of(g, M, count, planes) if M is not None else 0.0
    f.clutter = _clutter_of(g, M, count, planes.lab)
    return f


def _grid_conflict_of(g: list[Pip], M: np.ndarray, count: int, planes: Planes) -> float:
    """`_grid_conflict` of a fitted face, in its pips' channel with the face's and pips' levels made dark pips
    on a light face."""
    chan = planes.channel(g[0].channel)
    pol = g[0].polarity
    face_v = _median([p.ring for p in g])
    pip_v = face_v - _median([abs(p.contrast) for p in g])
    if pol < 0:
        face_v, pip_v = 255.0 - face_v, 255.0 - pip_v
    return _grid_conflict(chan, M, count, pol, face_v, pip_v, _median([p.r for p in g]))


def _clutter_of(g: list[Pip], M: np.ndarray | None, count: int, lab: np.ndarray) -> float:
    """`face_clutter` where the face's grid is known (fitted, or a lone pip's own); 0 otherwise."""
    if M is not None:
        return face_clutter(lab, M, g, 1.55 if count >= 4 else 1.3)
    if count == 1:
        p0 = g[0]
        step = 2.6 * p0.r
        Ms = np.array([[step, 0, p0.x], [0, step, p0.y]], np.float32)
        return face_clutter(lab, Ms, g, 1.1)
    return 0.0


def faces_to_dice(faces: list[Face]) -> list[Face]:
    """Merge faces of one die (top + visible sides) and keep the top face, with the sides attached.

    The top face is seen most squarely: its pips are the roundest. A neighbouring face whose pips are
    clearly more foreshortened, within about one die of it, is a side face of the same die; two faces seen
    equally squarely are two dice.
    """
    faces = sorted(faces, key=lambda f: -(f.roundness * 2 + min(f.pip_r, 40) / 40.0))
    used = [False] * len(faces)
    dice: list[Face] = []
    for i, f in enumerate(faces):
        if used[i]:
            continue
        used[i] = True
        for j in range(i + 1, len(faces)):
            if used[j]:
                continue
            g = faces[j]
            dx, dy = f.cx - g.cx, f.cy - g.cy
            d = math.hypot(dx, dy)
            size = max(f.size, g.size)
            if d > 1.4 * size or g.roundness > f.roundness - 0.15 or g.pip_r > 1.4 * f.pip_r:
                continue
            # a side face is squashed towards the top face: its pips' minor axis points at the top face
            minor_dir = math.atan2(sum(math.sin(2 * p.angle) for p in g.pips),
                                   sum(math.cos(2 * p.angle) for p in g.pips)) / 2 + math.pi / 2
            diff = abs((math.atan2(dy, dx) - minor_dir + math.pi / 2) % math.pi - math.pi / 2)
            if diff > math.radians(40):
                continue
            da = abs(g.lab[1] - f.lab[1]) + abs(g.lab[2] - f.lab[2])
            if da < 30:
                used[j] = True
                f.others.append(g)
        dice.append(f)
    return dice


# ----------------------------------------------------------------------------- readings

def _wide_ring_ok(lab: np.ndarray, p: Pip) -> bool:
    """A lone pip must sit on a face: uniform face colour out to about 2.6 pip radii."""
    h, w = lab.shape[:2]
    R = int(math.ceil(p.major * 3.2)) + 1
    x0, y0, x1, y1 = int(p.x) - R, int(p.y) - R, int(p.x) + R + 1, int(p.y) + R + 1
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return False
    patch = lab[y0:y1, x0:x1].astype(np.float32)
    gx = np.arange(x1 - x0, dtype=np.float32)[None, :] - (p.x - x0)
    gy = np.arange(y1 - y0, dtype=np.float32)[:, None] - (p.y - y0)
    ca, sa = math.cos(p.angle), math.sin(p.angle)
    u = (gx * ca + gy * sa) / p.major
    v = (-gx * sa + gy * ca) / p.minor
    rho = np.sqrt(u * u + v * v)
    m = (rho > 1.5) & (rho < 3.0)
    vals = patch[m]
    if len(vals) < 8:
        return False
    dev = np.abs(vals - np.array(p.face_lab, np.float32))
    d = dev[:, 0] + 1.5 * (dev[:, 1] + dev[:, 2])
    return float(np.mean(d > 0.35 * abs(p.contrast) + 10)) < 0.15


def faint_neighbours(planes: Planes, p: Pip, known: list[Pip]) -> int:
    """Faint pip-like blobs on the same face colour near a lone pip (pips too weak to be detected, as on
    a dim or blurred die): a '1' with such neighbours is probably a bigger face."""
    lab = planes.lab
    ch = planes.channel(p.channel)
    h, w = ch.shape[:2]
    R = int(math.ceil(5.5 * p.major)) + int(3 * p.major) + 2
    x0, y0 = max(0, int(p.x) - R), max(0, int(p.y) - R)
    x1, y1 = min(w, int(p.x) + R + 1), min(h, int(p.y) + R + 1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return 0
    sub = ch[y0:y1, x0:x1]
    con = abs(p.contrast)
    cands = _candidates(sub, max(5.0, 0.25 * con), 40, max_level=2)
    n = 0
    for c in cands:
        cx, cy, d, v = c
        if (v > 0) != (p.polarity > 0):
            continue
        gx, gy = cx + x0, cy + y0
        dist = math.hypot(gx - p.x, gy - p.y)
        if dist < 2.2 * p.major or dist > 5.5 * p.major:
            continue
        if any((gx - k.x) ** 2 + (gy - k.y) ** 2 < (1.5 * k.major) ** 2 for k in known):
            continue
        q = _verify(ch, lab, (gx, gy, d, v), p.channel, max(5.0, 0.3 * con), inv=planes.inverted(p.channel))
        if q is None or not 0.5 * p.r <= q.r <= 1.6 * p.r:
            continue
        fl = np.abs(np.array(q.face_lab) - np.array(p.face_lab))
        if fl[0] < 0.3 * con + 10 and fl[1] + fl[2] < 0.3 * con + 10:
            n += 1
    return n


def lab_to_bgr(lab: tuple[float, float, float]) -> np.ndarray:
    px = np.array([[lab]], np.float32).clip(0, 255).astype(np.uint8)
    return cv2.cvtColor(px, cv2.COLOR_Lab2BGR)[0, 0].astype(np.float32)


PIXELS_PER_CANDIDATE = 512   # one pip candidate looked at per this many pixels of the frame ...
MIN_CANDIDATES, MAX_CANDIDATES = 160, 800  # ... within these bounds (the time a frame may take)


def pip_budget(shape: tuple[int, ...]) -> int:
    """How many pip candidates (the strongest first) a frame of this shape is searched for. Why by area: a
    busy frame (dice on a printed board, on a speckled table, crowded) offers hundreds of pip-like blobs, and
    a fixed cap of 160 spent them all on the board, missing the dice's own pips (photo bench, roboflow-d6:
    the reader missed 23% of dice with the fixed cap; see docs/dice-sets.md)."""
    return int(min(MAX_CANDIDATES, max(MIN_CANDIDATES, shape[0] * shape[1] / PIXELS_PER_CANDIDATE)))


def pip_dice(lab: np.ndarray) -> list[Face]:
    """Top faces (with their side faces attached) of every pip die in the frame."""
    planes = Planes.of(lab)
    pips = detect_pips(planes, extra=pip_budget(lab.shape) - MIN_CANDIDATES)
    faces = group_faces(pips, planes)
    dice = faces_to_dice(faces)
    multi = [f.pips[0].r for f in dice if f.count >= 2 and f.residual < 0.3]
    ref_r = _median(multi) if len(multi) >= 2 else 0.0
    # two faces closer than a die: a top face and its own side face not recognised as such (which one is
    # up?), or dice stacked/leaning; both doubtful (also against lone blobs dropped below)
    for i, f in enumerate(dice):
        for g in dice[i + 1:]:
            if math.hypot(f.cx - g.cx, f.cy - g.cy) < 0.95 * max(f.size, g.size, 1.0):
                f.twin = g.twin = True
    out = []
    for f in dice:
        if f.count < 3 and any(p.extra for p in f.pips):
            continue  # one or two blobs on a busy frame (dots printed on a board, specks): no die on their own
        if f.count == 1 and not f.others:
            p = f.pips[0]
            # a lone blob is a 1 only if it is a clean round pip, not smaller than the other dice's pips
            if p.roundness < 0.7 or not 0.8 <= p.fill <= 1.2 or (ref_r and p.r < 0.45 * ref_r):
                continue
        if f.count == 1:
            # (only for the faces kept: the search around a lone pip was a fifth of a photo's read, and most
            # lone blobs of a busy photo are dropped just above)
            f.faint = faint_neighbours(planes, f.pips[0], pips)
        out.append(f)
    # two lone pips close together, alike: probably one face whose pips did not link (a 2 or a 3 read as
    # two 1s); both are doubtful
    lone = [f for f in out if f.count == 1]
    for i, f in enumerate(lone):
        p = f.pips[0]
        for g in lone[i + 1:]:
            q = g.pips[0]
            if math.hypot(p.x - q.x, p.y - q.y) < 9.5 * max(p.r, q.r) and max(p.r, q.r) < 1.5 * min(p.r, q.r):
                f.twin = g.twin = True
    return out
