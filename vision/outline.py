"""Stage **outline**: a die's face found whole around the blob the finder gave (stage find, `vision/find.py`).

A blob is the die give or take the foreground's blur: a bright die's blob grows with the room's glow, a dark
die against a dark room is found in part. Here its face is taken from its own crisp sides (`snap_square`,
`snap_pentagon`), found again from the learned room (`regrow`) or refitted from the window's edges
(`refit_square`, `refit_pentagon`); the face stage (`vision/faces.py`) then cuts its crop along it.
Read first: `snap_square`, then `refit_square`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from .crop import K3, K5E, canonical_crop, otsu, rank
from .finder import Candidate, count_pips, outline_candidates


def pentagon_angle(contour: np.ndarray, cx: float, cy: float) -> float:
    """The angle (deg, as `canonical_crop` takes it) that puts one vertex of a pentagonal outline straight
    up: the phase of the outline's fifth angular harmonic (its vertices stick out five times around)."""
    p = contour.reshape(-1, 2).astype(np.float64)
    q = np.roll(p, -1, 0)
    # sample along the outline every half pixel (CHAIN_APPROX_SIMPLE keeps only the ends of straight runs)
    steps = np.maximum(1, np.ceil(2 * np.linalg.norm(q - p, axis=1))).astype(int)
    k = np.repeat(np.arange(len(p)), steps)
    f = (np.arange(len(k)) - np.repeat(np.cumsum(steps) - steps, steps)) / np.repeat(steps, steps)
    pts = p[k] + (q[k] - p[k]) * f[:, None] - (cx, cy)
    phi = np.arctan2(pts[:, 1], pts[:, 0])
    r = np.hypot(pts[:, 0], pts[:, 1])
    z = np.sum(r * np.exp(-5j * phi))
    vertex = -np.angle(z) / 5.0  # a vertex direction (image coords, y down)
    return float(np.degrees(vertex) + 90.0)


def blob_geometry(blob: Any, pentagon: bool = False) -> tuple[float, float, float, float]:
    (cx, cy), (rw, rh), ang = blob.rect
    side = float(math.sqrt(max(rw * rh, 1.0)))
    if pentagon:
        side = float(math.sqrt(blob.area / 0.914))
        m = cv2.moments(blob.contour)
        if m["m00"] > 0:
            cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
    return float(cx), float(cy), side, float(ang)


def _squarish(c: np.ndarray, min_area: float) -> bool:
    """A contour shaped like a die's square face seen flat: big enough, as long as wide, filling its rotated
    rectangle and its hull."""
    a = cv2.contourArea(c)
    if a < min_area:
        return False
    (_, _), (w, h), _ = cv2.minAreaRect(c)
    hull = cv2.contourArea(cv2.convexHull(c))
    return max(w, h) / max(min(w, h), 1.0) < 1.25 and a / max(w * h, 1.0) >= 0.85 and a / max(hull, 1.0) > 0.9


def _pentagonish(c: np.ndarray, min_area: float) -> bool:
    """A contour shaped like a d12's face seen flat (`face_shape_ok` for pentagons), big enough, and filling
    its rotated rectangle as a pentagon does (about 0.7), not as a round glare spot or lamp (0.785 and more
    is still allowed by that check, so a disc is told apart by its five corners)."""
    a = cv2.contourArea(c)
    if a < min_area:
        return False
    rect = cv2.minAreaRect(c)
    hull = cv2.convexHull(c)
    if not face_shape_ok(a, a / max(cv2.contourArea(hull), 1.0), rect, True) or a < 0.62 * rect[1][0] * rect[1][1]:
        return False
    return len(cv2.approxPolyDP(hull, 0.05 * cv2.arcLength(hull, True), True)) == 5


def faces_in_blob(img: np.ndarray, contour: np.ndarray, box: tuple[int, int, int, int],
                  min_area: float, pentagon: bool = False) -> list[np.ndarray]:
    """The square faces (`pentagon`: d12 faces) inside a blob that is not one (a die run together with an
    out-of-focus lamp or a glare spot in a still photo: the difference to a fitted background cannot part
    them; a learned finder's box, `find.detector_blobs`). A die on the glass has a crisp outline and the
    blur around it has none: the blob's own strong edges, closed and filled, leave the die's face. Contours
    in frame coordinates; none when no such face is found or the face is most of the blob anyway (a round
    lamp is not a die)."""
    x, y, w, h = box
    H, W = img.shape[:2]
    x0, y0, x1, y1 = max(0, x - 4), max(0, y - 4), min(W, x + w + 4), min(H, y + h + 4)
    P = cv2.GaussianBlur(cv2.cvtColor(img[y0:y1, x0:x1], cv2.COLOR_BGR2Lab), (3, 3), 0).astype(np.float32)
    ph, pw = P.shape[:2]
    gx = cv2.Sobel(P, cv2.CV_32F, 1, 0).reshape(ph, -1)
    gy = cv2.Sobel(P, cv2.CV_32F, 0, 1).reshape(ph, -1)
    gl, ga, gb = cv2.split(cv2.magnitude(gx, gy).reshape(ph, pw, 3))
    g = cv2.max(gl, 2.0 * cv2.max(ga, gb)) * (1.0 / 8.0)
    inside = np.zeros((ph, pw), np.uint8)
    cv2.drawContours(inside, [contour - [x0, y0]], -1, 255, -1)
    inside = cv2.dilate(inside, np.ones((5, 5), np.uint8)) > 0
    if not inside.any():
        return []
    edges = ((g > max(6.0, 0.3 * float(np.percentile(g[inside], 99)))) & inside).astype(np.uint8) * 255
    edges = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, K3)
    outside = edges.copy()
    cv2.floodFill(outside, np.zeros((ph + 2, pw + 2), np.uint8), (0, 0), 255)
    filled = cv2.bitwise_or(edges, cv2.bitwise_not(outside))
    # (a shadow's crisp edge along a die closes a thin sliver onto its square)
    filled = cv2.morphologyEx(filled, cv2.MORPH_OPEN, K5E)
    cs, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    area = cv2.contourArea(contour)
    shaped = _pentagonish if pentagon else _squarish
    return [c + [x0, y0] for c in cs if shaped(c, min_area) and cv2.contourArea(c) <= 0.8 * area]


@dataclass(frozen=True)
class Outline:
    """A die's outline found again around a blob (the attributes the face reader takes from a blob)."""

    contour: np.ndarray
    rect: tuple[tuple[float, float], tuple[float, float], float]
    area: float
    solidity: float
    mask_box: tuple[int, int, int, int]


def face_shape_ok(area: float, solidity: float, rect: Any, pentagon: bool) -> bool:
    """A flat die's outline: solid, and a square filling its rotated rectangle (a pentagon fills ~0.7)."""
    (_, _), (rw, rh), _ = rect
    fill = area / max(rw * rh, 1.0)
    elong = max(rw, rh) / max(min(rw, rh), 1.0)
    # (a regular pentagon's rectangle is 1.05 as long as wide: a d12 face run together with a glare spot
    # or found in part is longer, and its turn from the outline is wrong)
    return solidity > 0.88 and ((fill <= 0.82 and elong < 1.15) if pentagon else (elong < 1.25 and fill >= 0.85))


def found_in_part(blob: Any, pentagon: bool) -> bool:
    """An outline clearly short of a whole face (a square filling its rectangle by under 0.82, or longer
    than 1.12, or hollow; any pentagon failing the shape check), whose refit from its edges is taken as it
    is. (An outline only just short of the shape check, such as a small die's rounded corners in glare,
    takes its refit only where that keeps its turn and centre: refitted freely, a 33 px die was turned 7
    degrees off and read wrong, certain.)"""
    (_, _), (rw, rh), _ = blob.rect
    fill = blob.area / max(rw * rh, 1.0)
    elong = max(rw, rh) / max(min(rw, rh), 1.0)
    if pentagon:
        return not face_shape_ok(blob.area, blob.solidity, blob.rect, True)
    return fill < 0.82 or elong > 1.12 or blob.solidity <= 0.88


def near_blob(refit: Outline, blob: Any) -> bool:
    """A refit square that keeps the blob's turn (within 3 degrees) and centre (within a tenth of its side):
    all an outline only just short of the shape check may take from its refit."""
    (bx, by), (rw, rh), ba = blob.rect
    (fx, fy), _, fa = refit.rect
    turn = abs((fa - ba + 45.0) % 90.0 - 45.0)
    return turn <= 3.0 and math.hypot(fx - bx, fy - by) <= 0.1 * max(rw, rh)


def _inkless_window(img: np.ndarray, blob: Any, around: bool = False) -> tuple[np.ndarray, int, int, np.ndarray,
                                                                              float] | None:
    """A square window around a blob (about twice its size, so a die found in part is all in it), grey,
    with the ink inside the blob (far from the body's grey) painted over with the body's grey, and blurred
    by a pixel: the die's outline is left as the window's strong edges. (window, its left, its top, the
    blob's contour in it, the blob's rectangle's longer side); None for a blob too small, or whose centre is
    off the frame. Where the window runs off the frame, the frame's edge rows and columns are repeated (no
    edges there: a die near the frame's edge, its window cut off, was otherwise never refitted)."""
    (bcx, bcy), (rw, rh), _ = blob.rect
    ext = float(max(rw, rh))
    H, W = img.shape[:2]
    half = int(0.95 * ext) + 6
    x0, y0 = int(round(bcx)) - half, int(round(bcy)) - half
    n = 2 * half + 1
    if ext < 12 or not (0 <= bcx < W and 0 <= bcy < H):
        return None
    cut = img[max(0, y0):min(H, y0 + n), max(0, x0):min(W, x0 + n)]
    grey = cv2.cvtColor(cut, cv2.COLOR_BGR2GRAY).astype(np.float32)
    if grey.shape != (n, n):
        grey = cv2.copyMakeBorder(grey, max(0, -y0), max(0, y0 + n - H), max(0, -x0), max(0, x0 + n - W),
                                  cv2.BORDER_REPLICATE)
    # the ink's edges are no sides: inside the blob, ink (far from the body's grey) is painted over with it
    inside = np.zeros((n, n), np.uint8)
    contour = blob.contour.reshape(-1, 1, 2).astype(np.float32) - [x0, y0]
    cv2.drawContours(inside, [np.round(contour).astype(np.int32)], -1, 1, -1)
    core = cv2.erode(inside, K3, iterations=2) > 0
    if not core.any():
        return None
    if around:
        # (`around`: the body's grey is taken just outside the blob: a blob that is the die's symbol alone,
        # white on a black die as dark as the room, has the symbol's grey in its core)
        ring = (cv2.dilate(inside, K3, iterations=3) > 0) & ~(inside > 0)
        if not ring.any():
            return None
        core = (inside > 0) | ring
        body = float(np.median(grey[ring]))
    else:
        body = float(np.median(grey[core]))
    far = np.abs(grey - body)
    ink = cv2.dilate(((far > max(20.0, otsu(far[core]))) & core).astype(np.uint8), K3, iterations=3) > 0
    grey[ink & (cv2.dilate(inside, K3) > 0)] = body
    grey = cv2.GaussianBlur(grey, (0, 0), 1.0)
    return grey, x0, y0, contour, ext


SNAP_RING = (0.41, 0.66)  # where a square face's sides are looked for: from its centre, in blob sides
SNAP_OUTER = 0.7          # an outer square at least this clear (against the clearest) is the face's
SNAP_SHRUNK = 0.84        # a face snapped to under this of its blob's side, and unsure, is read at both sides
SNAP_GROWN = 1.1          # ... and so is one snapped to over this (the edge of a lamp's glow behind a dark die)



def snap_square(img: np.ndarray, cx: float, cy: float, side: float, ang: float) -> tuple[float, float, float,
                                                                                        float] | None:
    """A square face's side taken from its own crisp sides, near a blob's (centre and turn kept). Why: the
    foreground blob is the die's face give or take the difference's blur and hysteresis: a bright die over a
    dark room grew by a tenth and more (a green King of Tokyo die's blob was 1.12-1.18 of its face), a
    dark one shrank by a few percent, and the templates, drawn on the face's own side, then meet the ink
    at the wrong size (a digit's strokes are two or three pixels). The face is cut 1.4 times larger along
    the blob's turn (correcting that turn from the edges paid nothing on the render bench). Across the
    face's middle, the edge strength that three in four lines share gives
    a profile per axis; the square about the blob's centre (found to a pixel or so: a centre moved by a
    side picked at the rim's other step turned a claw's match half round) whose weakest side is
    strongest wins, the outermost of those nearly as strong (a die's rim is often two steps, face to rim to
    room: the outer one is the face's own side). None (keep the blob's) unless all four are clear edges."""
    n = int(min(64, max(24, round(1.4 * side))))
    k = 1.4 * side / n  # frame px per crop px
    grey = cv2.cvtColor(canonical_crop(img, (cx, cy), 1.4 * side, ang, n), cv2.COLOR_BGR2GRAY)
    off = (np.arange(n, dtype=np.float32) + 0.5) * k - 0.7 * side  # crop px -> offset from the centre
    mid = np.abs(off) <= 0.3 * side
    # the vertical sides: an edge in three in four of the face's middle rows (a symbol's stroke reaching
    # towards a side, such as a sword's blade, crosses only a few of them)
    gx = np.abs(cv2.Sobel(grey, cv2.CV_16S, 1, 0)[mid])
    gy = np.abs(cv2.Sobel(grey, cv2.CV_16S, 0, 1)[:, mid])
    q = len(gx) // 4
    px = np.partition(gx, q, axis=0)[q].astype(np.float32)
    py = np.partition(gy, q, axis=1)[:, q].astype(np.float32)
    hs = np.arange(SNAP_RING[0] * side, SNAP_RING[1] * side, 0.5 * k, dtype=np.float32)
    # each axis's weakest side at half side h, over the profile's own floor; the square's weakest of all
    both = np.minimum(*(np.minimum(np.interp(-hs, off, prof), np.interp(hs, off, prof)) / (float(rank(prof, 0.5)) + 1.0)
                        for prof in (px, py)))
    top = float(both.max())
    if top < 3.0:
        return None
    h = float(hs[int(np.nonzero(both >= SNAP_OUTER * top)[0].max())])  # the outermost nearly as clear
    return cx, cy, 2.0 * h, ang


APOTHEM = 0.62 * math.cos(math.radians(36.0))  # a d12 face's apothem, in face sides (as the renderer draws it)


def snap_pentagon(img: np.ndarray, cx: float, cy: float, side: float, ang: float) -> tuple[float, float, float] | None:
    """A d12 face's centre and side taken from its five crisp sides, near a blob's (`ang`: its vertex-up
    turn). Why: as `snap_square`: a bright die's blob is larger than its face (a green d12 of 33 px gave a
    38 px blob, and its 5 was read as the 10). Along each side's outward normal, across the side's middle,
    the lightness step that three in four lines across it share is that side's edge, looked for between
    SNAP_RING's bounds of the blob's side from its centre; the centre and apothem that fit the five best
    follow. None (keep the blob's) unless all five are clear edges that fit one regular pentagon."""
    H, W = img.shape[:2]
    m = int(0.8 * side) + 2
    x0, y0 = max(0, int(cx) - m), max(0, int(cy) - m)
    grey = cv2.cvtColor(img[y0:min(H, int(cy) + m + 1), x0:min(W, int(cx) + m + 1)],
                        cv2.COLOR_BGR2GRAY).astype(np.float32)
    rs = np.arange(SNAP_RING[0] * side, SNAP_RING[1] * side, 0.5, dtype=np.float32)
    ts = np.linspace(-0.22 * side, 0.22 * side, 9, dtype=np.float32)
    a = np.radians(ang - 54.0 + 72.0 * np.arange(5))
    nx, ny = np.cos(a), np.sin(a)
    # (5, len(ts), len(rs)) sample points: centre + r * normal + t * tangent
    px = (cx - x0) + nx[:, None, None] * rs[None, None, :] - ny[:, None, None] * ts[None, :, None]
    py = (cy - y0) + ny[:, None, None] * rs[None, None, :] + nx[:, None, None] * ts[None, :, None]
    if px.min() < 0 or py.min() < 0 or px.max() > grey.shape[1] - 1 or py.max() > grey.shape[0] - 1:
        return None
    k = len(ts) * 5
    samples = cv2.remap(grey, px.reshape(k, -1).astype(np.float32), py.reshape(k, -1).astype(np.float32),
                        cv2.INTER_LINEAR).reshape(5, len(ts), -1)
    # (the step three in four lines across the side share: a rank, as np.partition picks it)
    steps = np.partition(np.abs(np.diff(samples, axis=2)), len(ts) // 4, axis=1)[:, len(ts) // 4]
    floor = float(rank(steps.ravel(), 0.5)) + 0.5
    d = np.empty(5)
    for j in range(5):
        i = int(np.argmax(steps[j]))
        if steps[j, i] < 3.0 * floor:
            return None
        f = 0.0
        if 0 < i < steps.shape[1] - 1:
            den = steps[j, i - 1] - 2 * steps[j, i] + steps[j, i + 1]
            f = 0.5 * float(steps[j, i - 1] - steps[j, i + 1]) / float(den) if den < 0 else 0.0
        d[j] = float(rs[i]) + 0.25 + 0.5 * f
    # side j at n_j . (dx, dy) + apothem = d_j: least squares
    A = np.stack([nx, ny, np.ones(5)], 1)
    (dx, dy, apothem), *_ = np.linalg.lstsq(A, d, rcond=None)
    if float(np.abs(A @ np.array([dx, dy, apothem]) - d).max()) > 0.06 * side:
        return None
    return cx + float(dx), cy + float(dy), float(apothem) / APOTHEM


REGROW = 2.0  # a blob found in part is looked for again in a window this many of its sides either way


def regrow(img: np.ndarray, background: np.ndarray, blob: Any) -> Outline | None:
    """The whole square face around a blob that is only a part of it, from the learned background at full
    resolution and a threshold of this window's own. Why: a big dark die under the tray, its body a little
    lighter than a dark room and as grey as a lamp's glow beside it, was found by the frame-wide foreground
    as its white number alone (an 87 px King of Tokyo die as a 24 x 32 px blob); no edge search around so
    small a blob reaches its sides. Here every pixel of the window that differs from the room (both
    smoothed) by three times the room's own noise (the median difference along the window's border) is
    the die's, the part joined
    to the blob is its face, and its hull, a square clearly larger than the blob (1.69 times its area: 1.3
    times a square blob's side; it was 1.3 times the blob's longest side, which a die at 45 degrees found as a
    long part, 48 x 28 px of a 55 px die, never passed) and clear of the window's border, is taken. None
    otherwise."""
    (bcx, bcy), (rw, rh), _ = blob.rect
    ext = float(max(rw, rh))
    H, W = img.shape[:2]
    half = int(REGROW * ext) + 4
    x0, y0 = max(0, int(bcx) - half), max(0, int(bcy) - half)
    x1, y1 = min(W, int(bcx) + half + 1), min(H, int(bcy) + half + 1)
    if background.shape[:2] != (H, W) or x1 - x0 < 8 or y1 - y0 < 8:
        return None
    # (at half size, area-averaged, and smoothed a little more: the room's noise is what is judged here,
    # not a pixel's; a quarter of the pixels)
    w, h = (x1 - x0) // 2, (y1 - y0) // 2
    d = cv2.absdiff(cv2.blur(cv2.resize(img[y0:y1, x0:x1], (w, h), interpolation=cv2.INTER_AREA), (3, 3)),
                    cv2.blur(cv2.resize(background[y0:y1, x0:x1], (w, h), interpolation=cv2.INTER_AREA), (3, 3)))
    d = cv2.max(cv2.max(d[..., 0], d[..., 1]), d[..., 2])
    rim = np.concatenate([d[:3].ravel(), d[-3:].ravel(), d[:, :3].ravel(), d[:, -3:].ravel()])
    thr = max(6.0, 3.0 * (float(rank(rim, 0.5)) + 1.0))  # the room's own noise, at the window's border
    m = cv2.morphologyEx((d > thr).astype(np.uint8), cv2.MORPH_CLOSE, K5E)
    inside = np.zeros_like(m)
    cv2.drawContours(inside, [(blob.contour.reshape(-1, 1, 2).astype(np.int32) - [x0, y0]) // 2], -1, 1, -1)
    n, lab = cv2.connectedComponents(m)
    hits = np.bincount(lab[(inside > 0) & (m > 0)], minlength=n)
    hits[0] = 0
    if n < 2 or not hits.any():
        return None
    part = (lab == int(hits.argmax())).astype(np.uint8)
    ys, xs = np.nonzero(part)
    if xs.min() == 0 or ys.min() == 0 or xs.max() == part.shape[1] - 1 or ys.max() == part.shape[0] - 1:
        return None  # runs out of the window: no die (a sleeve, a lamp)
    cs, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    c = max(cs, key=cv2.contourArea) * 2 + [x0 + 0.5, y0 + 0.5]  # a half-size pixel's centre, in the frame
    c = np.round(c).astype(np.int32)
    # a die is convex: where its body looks like the room (a lamp's glow) its part has a bay; its hull is
    # the face, when that hull is a square the part mostly fills
    hull = cv2.convexHull(c)
    area = float(cv2.contourArea(hull))
    rect = cv2.minAreaRect(hull)
    (_, _), (w, h), _ = rect
    if area < 1.69 * blob.area or max(w, h) > 1.25 * max(min(w, h), 1.0) or area < 0.85 * w * h or \
            float(cv2.contourArea(c)) < 0.65 * area:
        return None
    return Outline(hull, rect, area, 1.0, cv2.boundingRect(hull))


def pentagon_outline(cx: float, cy: float, side: float, ang: float) -> Outline:
    """A regular d12 face (as the renderer draws it: circumradius 0.62 of its side) about (cx, cy), a vertex
    up at `ang` (as `pentagon_angle` gives it), as an outline the face reader takes for a blob."""
    a = np.radians(ang - 90.0 + 72.0 * np.arange(5))
    verts = np.stack([cx + 0.62 * side * np.cos(a), cy + 0.62 * side * np.sin(a)], 1).astype(np.float32)
    out = np.round(verts).astype(np.int32).reshape(-1, 1, 2)
    return Outline(out, cv2.minAreaRect(verts), float(cv2.contourArea(verts)), 1.0, cv2.boundingRect(out))


def refit_square(img: np.ndarray, blob: Any, around: bool = False) -> Outline | None:
    """The whole square face around a blob found only in part. A dark die under the tray is as dark as the
    room where the room's own light rises behind it (both about the same grey): neither the frame-wide
    threshold nor any local one parts them there, and the die's crop is cut off centre (the corner number is
    lost; a partial blob's rectangle is also turned off the die's by up to ~15 degrees). Its outline is still
    a crisp edge. The ink inside the blob is painted over with the body's grey; the die's turn is where the
    edges' directions agree (their fourth angular harmonic), tried a degree and a half either side and at
    the blob's own; turned upright, each side is the strongest edge across the blob's middle at or beyond
    the blob's extent on that side (less a tenth: a blob may hold a sliver of glow), the two pairs of sides
    the same distance apart (a square). The turn whose four sides are the strongest wins. None unless every
    side found is a clear edge against the room's gradients."""
    win = _inkless_window(img, blob, around)
    if win is None:
        return None
    grey, x0, y0, contour, ext = win
    n = grey.shape[0]
    (bcx, bcy), _, ang = blob.rect
    gx0, gy0 = cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)
    # the edges' fourth angular harmonic, the sum of (gx + i gy)^4, in real arithmetic: its real part
    # (gx^2 - gy^2)^2 - 4 gx^2 gy^2 and imaginary part 4 gx gy (gx^2 - gy^2), as dot products (19 us against
    # 140-190 us for numpy's complex power on a 100 px window; the same readings on 2520 render frames)
    d = (gx0 * gx0 - gy0 * gy0).ravel()
    xy = (gx0 * gy0).ravel()
    re, im = float(np.dot(d, d)) - 4.0 * float(np.dot(xy, xy)), 4.0 * float(np.dot(xy, d))
    phi = float(np.degrees(math.atan2(im, re)) / 4.0)  # an edge normal's direction, modulo a quarter turn
    c = (bcx - x0, bcy - y0)
    tol = max(2, int(round(0.1 * ext)))

    def fit(a: float) -> tuple[float, int, int, int, np.ndarray, float] | None:
        """(the four sides' response, side, left, top, the turn, the room's level) with the frame turned by a."""
        R = cv2.getRotationMatrix2D(c, a, 1.0)
        pts = cv2.transform(contour, R).reshape(-1, 2)
        (bx0, by0), (bx1, by1) = pts.min(0), pts.max(0)
        up = cv2.warpAffine(grey, R, (n, n), flags=cv2.INTER_LINEAR)
        gx = np.abs(cv2.Sobel(up, cv2.CV_32F, 1, 0))
        gy = np.abs(cv2.Sobel(up, cv2.CV_32F, 0, 1))

        def band(lo: float, hi: float) -> slice:
            m = 0.2 * (hi - lo)
            return slice(max(0, int(lo + m)), min(n, int(hi - m) + 1))

        px = gx[band(by0, by1)].mean(0)   # vertical sides: across the blob's middle rows
        py = gy[:, band(bx0, bx1)].mean(1)
        floor = float(np.median(np.concatenate([px, py]))) + 1.0

        sizes = np.arange(max(int(math.floor(max(bx1 - bx0, by1 - by0))) - 1, 8), int(math.ceil(1.4 * ext)) + 1)
        if not len(sizes):
            return None
        x = np.arange(n)

        def pairs(p: np.ndarray, a0: float, a1: float) -> tuple[np.ndarray, np.ndarray]:
            """Per size s: the best response of two edges s apart that hold [a0, a1] (both must be edges),
            and its low side; -1 where none fits."""
            lo = np.maximum(np.floor(a1 - tol - sizes).astype(int), 0)
            hi = np.minimum(int(math.ceil(a0 + tol)), n - 1 - sizes)
            far = np.minimum(x[None, :] + sizes[:, None], n - 1)
            v = np.minimum(p[None, :], p[far])
            v[(x[None, :] < lo[:, None]) | (x[None, :] > hi[:, None])] = -1.0
            k = v.argmax(1)
            return v[np.arange(len(sizes)), k], k

        vx, ax = pairs(px, bx0, bx1)
        vy, ay = pairs(py, by0, by1)
        both = np.where((vx >= 0) & (vy >= 0), np.minimum(vx, vy), -1.0)
        i = int(both.argmax())
        if both[i] < 0:
            return None
        best = (float(both[i]), int(sizes[i]), int(ax[i]), int(ay[i]), R, floor)
        return best

    # the best of the three turns, then a degree and a half either side of it
    tried = {a: fit(a) for a in {round(ang, 1), round(phi, 1), round(-phi, 1)}}
    fits = [(a, f) for a, f in tried.items() if f is not None]
    if not fits:
        return None
    a0 = max(fits, key=lambda af: af[1][0])[0]
    fits += [(a, f) for a in (a0 - 1.5, a0 + 1.5) if (f := fit(a)) is not None]
    score, s, ax, ay, R, floor = max((f for _, f in fits), key=lambda f: f[0])
    if score < 4.0 * floor:
        return None
    # the square's corners back in the frame
    sq = np.array([[ax, ay], [ax + s, ay], [ax + s, ay + s], [ax, ay + s]], np.float32)
    corners = cv2.transform(sq.reshape(-1, 1, 2), cv2.invertAffineTransform(R)).reshape(-1, 2) + [x0, y0]
    cx, cy = corners.mean(0)
    out = np.round(corners).astype(np.int32).reshape(-1, 1, 2)
    side = float(s)
    turn = float(np.degrees(np.arctan2(R[1, 0], R[0, 0])))
    return Outline(out, ((float(cx), float(cy)), (side, side), -turn), 0.93 * side * side, 1.0,
                   cv2.boundingRect(out))


def refit_pentagon(img: np.ndarray, blob: Any) -> Outline | None:
    """The whole d12 face around a blob found only in part (a black die against a room as grey as it; see
    `refit_square`). A regular pentagon's five outward side normals are a fifth of a turn apart; the edges'
    directions give them to a tenth of a turn (their tenth angular harmonic: a side's gradient points in or
    out), so both fifths are tried, each a degree and a half either way. For each side, the edge response
    along its normal across the side's middle is a profile; the pentagon (centre, apothem) that holds the
    blob (less a tenth) and whose weakest side is strongest wins. None unless all five are clear edges."""
    win = _inkless_window(img, blob)
    if win is None:
        return None
    grey, x0, y0, contour, ext = win
    n = grey.shape[0]
    (bcx, bcy), _, _ = blob.rect
    gx, gy = cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)
    mag2 = gx * gx + gy * gy
    phase = np.arctan2(gy, gx)
    beta0 = float(np.degrees(np.angle(np.sum(mag2 * np.exp(10j * phase)))) / 10.0)
    cx, cy = bcx - x0, bcy - y0
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    px, py = xx - cx, yy - cy
    pts = contour.reshape(-1, 2) - [cx, cy]
    tol = max(2.0, 0.1 * ext)
    m = int(round(0.3 * ext))
    dd = np.arange(-m, m + 1, dtype=np.float32)
    DX, DY = np.meshgrid(dd, dd)
    A = np.arange(int(0.3 * ext), int(0.65 * ext) + 1, dtype=np.float32)

    def profiles(beta: float) -> tuple[list[np.ndarray], list[tuple[float, float, float]]]:
        """Per side: the edge response along its outward normal (index: distance + n), and (normal, the
        blob's reach along it)."""
        a = np.radians(beta + 72.0 * np.arange(5, dtype=np.float32))
        nx, ny = np.cos(a)[:, None, None], np.sin(a)[:, None, None]
        band = np.abs(py[None] * nx - px[None] * ny) <= 0.2 * ext
        idx = np.clip(np.round(px[None] * nx + py[None] * ny + n).astype(np.int32), 0, 2 * n)
        idx += (np.arange(5, dtype=np.int32) * (2 * n + 1))[:, None, None]
        edge = np.abs(gx[None] * nx + gy[None] * ny)
        size = 5 * (2 * n + 1)
        prof = (np.bincount(idx[band], edge[band], size) / np.maximum(np.bincount(idx[band], None, size), 1))
        reach = (pts @ np.stack([np.cos(a), np.sin(a)])).max(0) - tol
        return list(prof.reshape(5, -1)), [(float(np.cos(a[k])), float(np.sin(a[k])), float(reach[k]))
                                           for k in range(5)]

    @lru_cache(maxsize=8)
    def quick(beta: float) -> float:
        """The five sides' strongest edges at or beyond the blob, each alone: which turn to fit."""
        profs, sides = profiles(beta)
        return sum(float(p[max(0, int(math.ceil(h + n))):].max(initial=0.0)) for p, (_, _, h) in zip(profs, sides,
                                                                                                      strict=True))

    j = max((0, 1), key=lambda j: quick(beta0 + 36.0 * j))
    beta = max((beta0 + 36.0 * j + d for d in (-1.5, 0.0, 1.5)), key=quick)
    profs, sides = profiles(beta)
    ok = np.ones((len(dd), len(dd), len(A)), bool)
    resp = []
    for prof, (nx, ny, h) in zip(profs, sides, strict=True):
        # side k of the pentagon centred at (dx, dy) with apothem a lies at dx*nx + dy*ny + a
        sk = (DX * nx + DY * ny)[..., None] + A[None, None, :]
        ok &= sk >= h
        resp.append(prof[np.clip(np.round(sk + n).astype(np.int32), 0, 2 * n)])
    score = np.where(ok, np.min(resp, axis=0), -1.0)
    i = int(np.argmax(score))
    iy, ix, ia = np.unravel_index(i, score.shape)
    dx, dy, apothem = float(dd[ix]), float(dd[iy]), float(A[ia])
    floor = float(np.median(np.concatenate(profs))) + 1.0
    if float(score.flat[i]) < 4.0 * floor:
        return None
    r = apothem / math.cos(math.radians(36.0))
    ang = np.radians(beta + 36.0 + 72.0 * np.arange(5))
    verts = np.stack([cx + dx + r * np.cos(ang), cy + dy + r * np.sin(ang)], 1) + [x0, y0]
    out = np.round(verts).astype(np.int32).reshape(-1, 1, 2)
    area = float(cv2.contourArea(verts.astype(np.float32)))
    return Outline(out, cv2.minAreaRect(verts.astype(np.float32)), area, 1.0, cv2.boundingRect(out))


def refitted(img: np.ndarray, background: np.ndarray, cands: list[Candidate], preds: list, clf: Any
             ) -> tuple[list[Candidate], list]:
    """Candidates (and the CNN's answers) for the whole square face around each outline found only in part
    (`found_in_part`) whose face the CNN does not name surely, from the learned background
    (`regrow`) or else the window's own edges (`refit_square`): beside the part's own, and the
    one reading per die keeps the better. Why: under the tray a black die lying where a lamp's glow rises
    behind it is as grey as the glow there; the frame-wide foreground found its half away from the glow only,
    and the CNN called that half "not a die": black Regidice dice missed on the render bench (learned
    background, seeds 1-6). The icon dice's face reader already refits such outlines; the pip path had none.
    A refit costs 1-3 ms, hence only where the CNN doubts or no pips were counted in the part's crop (without
    a count a die is never certain; ragged outlines of dice read surely and counted are many)."""
    none = clf.classes.index("none")
    parts = [c.blob for c, p in zip(cands, preds, strict=True)
             if c.blob is not None and (p.index == none or p.confidence < clf.certain_at or c.crop_pips is None)
             and found_in_part(c.blob, False)]
    wholes: list[Outline] = []
    for b in sorted(parts, key=lambda b: -b.area):  # the largest part first: the die it finds holds the others
        if any(cv2.pointPolygonTest(w.contour, b.rect[0], False) >= 0 for w in wholes):
            continue
        w = regrow(img, background, b) or refit_square(img, b)
        if w is not None:
            wholes.append(w)
    extra = outline_candidates(wholes)
    for c in extra:
        c.crop_pips = count_pips(img, c.rect)
    return extra, clf.predict(img, [c.box for c in extra]) if extra else []


Snapped = tuple[float, float, float, float]  # a face's centre, side and turn taken from its own crisp sides


def whole_face(img: np.ndarray, blob: Any, background: np.ndarray | None, pentagon: bool, snap: bool,
               snap_pentagons: bool) -> tuple[Any, Snapped | None, bool]:
    """The outline a die's face is cut along: (the blob or the outline found whole around it, the face's
    square from its own sides if that was what decided, whether the blob was replaced by `refit_square`'s
    square). Only a blob short of a face's shape with the box's learned room is looked at again: first its
    own square about its centre, when four clear sides hold the whole blob (a ragged outline of a die found
    nearly whole; the refits cost 1-3 ms); `snap_pentagons` (a drawn d12 under the tray): its pentagon from
    five clear sides; else regrown from the room (`regrow`) or refitted from the window's edges."""
    if background is None or face_shape_ok(blob.area, blob.solidity, blob.rect, pentagon):
        return blob, None, False
    first = snap_square(img, *blob_geometry(blob)) if snap else None
    if first is not None and first[2] >= 0.95 * max(blob.rect[1]):
        return blob, first, False
    whole = _snapped_pentagon(img, blob) if snap_pentagons else None
    if whole is not None:
        return whole, None, False
    return _refit_whole(img, background, blob, pentagon)


def _snapped_pentagon(img: np.ndarray, blob: Any) -> Outline | None:
    """A d12 face's whole pentagon from its five crisp sides about a blob, when it holds the blob (a regular
    pentagon is 1.18 of its side across)."""
    bx, by, bside, _ = blob_geometry(blob, True)
    pang = pentagon_angle(blob.contour, bx, by)
    fit = snap_pentagon(img, bx, by, bside, pang)
    if fit is None or not 1.18 * fit[2] >= 0.95 * max(blob.rect[1]):
        return None
    return pentagon_outline(fit[0], fit[1], fit[2], pang)


def _refit_whole(img: np.ndarray, background: np.ndarray, blob: Any, pentagon: bool) -> tuple[Any, None, bool]:
    """A blob found in part replaced by its face regrown from the room or refitted from its edges, where the
    refit may be taken (`found_in_part`, else only one that keeps the blob's turn and centre)."""
    whole = regrow(img, background, blob) if not pentagon else None
    refit = whole or (refit_pentagon(img, blob) if pentagon else refit_square(img, blob))
    if refit is not None and (whole is not None or found_in_part(blob, pentagon) or near_blob(refit, blob)):
        return refit, None, whole is None and not pentagon
    return blob, None, False
