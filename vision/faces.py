"""Stage **face**: one die's face read from its crop: ink, pips or templates, colour, confidence.

The outline stage (`vision/outline.py`) gives the face's centre, side and turn; here the face is cut to a
canonical square (`vision/crop.py`), its ink is what differs from the body's own colour, and the ink is read:
pips counted against the layouts, symbols matched against templates at every turn (drawn by the renderer, or
taught), corner numbers compared at a higher resolution (`vision/corners.py`), numerals joined with their CNN
(`vision/numerals.py`). Pip d6 with a CNN are read by `vision/classify.py` instead (see `reader.py`).
Read first: `FaceReader.read`.
"""

from __future__ import annotations

import colorsys
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import cv2
import numpy as np

from .corners import SCALES
from .corners import M as CORNER_M
from .crop import (
    BAND,
    BAND_SIDES,
    CORE,
    HIRES_FACE,
    HIRES_PENTAGON,
    INNER,
    K3,
    P_BAND,
    P_INNER,
    RIM,
    N,
    band_medians,
    canonical_crop,
    hist_rank,
    median_u8,
    otsu,
    rank,
)
from .dicesets import DiceSet
from .find import die_shaped
from .glyphs import PIP_LAYOUT, PIP_RADIUS, seen_mirrored
from .name import name_seen
from .numerals import NumeralGuess, read_numeral
from .numerals import classifier as numeral_classifier
from .numerals import combine as combine_numeral
from .outline import (
    SNAP_GROWN,
    SNAP_SHRUNK,
    Snapped,
    blob_geometry,
    face_shape_ok,
    pentagon_angle,
    refit_pentagon,
    refit_square,
    snap_pentagon,
    snap_square,
    whole_face,
)
from .reading import Reading
from .templates import NumeralTemplates, SymbolTemplates

# Certain (confidence >= 0.6) needs both: the correlation at least MIN + 0.15 and the margin to every other
# face at least 0.6 x MARGIN. Chosen on renders of bench/vision_accuracy.py's kind with other seeds (see
# docs/dice-sets.md): corner numbers 0.7 and 0.07 (up to 0.105 on dice under 45 px), d12 faces 0.6 and 0.036
# (0.048 under the tray since its faces are drawn as printed: docs/dice-sets.md, "Faces from below as
# printed").
CORNER_MIN = 0.55  # a corner number's correlation with its drawing (where the drawings differ)
CORNER_MARGIN = 0.117  # ... and its margin over every other number
NUMERAL_MIN = 0.45  # a d12 face's correlation with its drawing
NUMERAL_MARGIN = 0.06  # ... and its margin over every other face
NUMERAL_MARGIN_UNDER = 0.08  # ... under the tray (from above 0.08 left 85% of rendered d12s certain, not 98%)
NUMERAL_DETAIL_MARGIN = 0.117  # a d12's number compared at a higher resolution: its margin over every other
NUMERAL_DETAIL_BELOW = 1.0  # a d12 face the 48 px match is less sure of than this is compared again at 64 px


def classify_colour(bgr: np.ndarray | tuple[float, float, float], ref_v: float = 255.0) -> str:
    """Name a die colour from its median body BGR; `ref_v` is the brightness of white in this frame."""
    b, g, r = (float(c) for c in bgr)
    mx, mn = max(b, g, r), min(b, g, r)
    v = mx
    s = (mx - mn) / max(mx, 1.0)
    ref_v = max(ref_v, 60.0)
    if v < 0.22 * ref_v or (v < 0.33 * ref_v and s < 0.45):
        return "black"
    if s < 0.28 or (mx - mn) < 22:
        if v >= 0.5 * ref_v:
            return "white"
        return "black" if v < 0.4 * ref_v else "other"
    return _hue_name(_hue(b, g, r, mx, mn))


# How far a body colour may be off and keep its name, for `colour_is_clear`: its brightness by this factor either
# way, its saturation (the channels' spread) by this factor either way.
COLOUR_LEEWAY = (1.3, 1.3)


def colour_is_clear(bgr: np.ndarray | tuple[float, float, float], ref_v: float = 255.0) -> bool:
    """Whether `classify_colour` names the colour the same when it is somewhat brighter or darker, or more or
    less saturated (`COLOUR_LEEWAY`). Why: from below a dark blue or red die in dim or warm light sits just
    past the line to "black", and a speckled black die under a green LED ring just past the line to "yellow";
    for a game that tells dice apart by colour (Regidice) such a name must not be certain. Both at once, too:
    a dim blue body (46, 26, 26) is black a little brighter or a little bluer, blue when both (under-tray test
    seeds read as Regidice, certain with a wrong colour 2 -> 0 of 244 dice, certain-right 23.36% -> 21.31%; seeds
    25-29 and 33: 4 -> 2 of 280, 31.79% -> 31.07%)."""
    b, g, r = (float(c) for c in bgr)
    name = classify_colour((b, g, r), ref_v)
    grey = (b + g + r) / 3.0
    bright, sat = COLOUR_LEEWAY
    looks = [tuple(grey * kv + (c - grey) * kv * ks for c in (b, g, r))
             for kv in (1.0 / bright, 1.0, bright) for ks in (1.0 / sat, 1.0, sat)]
    return all(classify_colour(tuple(min(255.0, max(0.0, c)) for c in look), ref_v) == name for look in looks)


# `nearest_colour`'s nudges: one step turns the hue by HUE_STEP degrees, or scales the brightness or the
# saturation by SCALE_STEP; at most NUDGE_STEPS steps (a half turn of hue).
HUE_STEP, SCALE_STEP, NUDGE_STEPS = 3.0, 1.04, 60


def nearest_colour(bgr: np.ndarray | tuple[float, float, float], names: tuple[str, ...] | list[str]) -> str:
    """The name of `names` that `classify_colour` gives the body colour after the smallest nudge (of hue,
    brightness or saturation; the body's own name if it is one of them). Why: a set that tells dice apart by
    colour needs a best guess among its own colours; from below a red Regidice die under warm light was named
    orange ("other") and a blue one purple, which no player can confirm."""
    b, g, r = (min(255.0, max(0.0, float(c))) for c in bgr)
    named = classify_colour((b, g, r))
    if named in names or not names:
        return named
    hue, sat, val = colorsys.rgb_to_hsv(r / 255.0, g / 255.0, b / 255.0)
    for step in range(1, NUDGE_STEPS + 1):
        turn, scale = step * HUE_STEP / 360.0, SCALE_STEP ** step
        for h, s, v in ((hue - turn, sat, val), (hue + turn, sat, val), (hue, sat, val / scale),
                        (hue, sat, val * scale), (hue, sat * scale, val), (hue, sat / scale, val)):
            rr, gg, bb = colorsys.hsv_to_rgb(h % 1.0, min(s, 1.0), min(v, 1.0))
            name = classify_colour((255.0 * bb, 255.0 * gg, 255.0 * rr))
            if name in names:
                return name
    return named


# the hue names, by the hue (degrees) each ends below; a hue of 330 or more is red again
HUE_NAMES = ((18.0, "red"), (36.0, "other"), (72.0, "yellow"), (165.0, "green"), (255.0, "blue"), (330.0, "purple"))


def _hue(b: float, g: float, r: float, mx: float, mn: float) -> float:
    """The hue of a colour in degrees (its channels, their largest and smallest, which differ)."""
    if mx == r:
        return 60.0 * (((g - b) / (mx - mn)) % 6)
    if mx == g:
        return 60.0 * ((b - r) / (mx - mn) + 2)
    return 60.0 * ((r - g) / (mx - mn) + 4)


def _hue_name(h: float) -> str:
    """A hue's colour name (orange is "other")."""
    if h >= 330:
        return "red"
    return next((name for top, name in HUE_NAMES if h < top), "other")


def ink_map(crop_lab: np.ndarray, band: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per-pixel distance from the face's own median colour, and that median (L, a, b). `band`: where the
    body colour is taken (default: a band just inside a square outline)."""
    f = crop_lab.astype(np.float32)
    # the body colour from a band just inside the outline: a big symbol covers most of the middle of a
    # small die, where the median would be the ink's
    med = band_medians(crop_lab, BAND if band is None else band)
    d = np.abs(f - med)
    ink = d[..., 0] + 1.5 * (d[..., 1] + d[..., 2])
    return ink, med


def _layout_residual(pts: np.ndarray, n: int) -> float:
    """How far the pips (canonical coords, centred, unit face) are from the best-fitting layout of n."""
    if n not in PIP_LAYOUT:
        return 9.0
    base = np.array(PIP_LAYOUT[n], np.float32)
    best = 9.0
    for rot in (0, 1):
        P = base if rot == 0 else np.stack([-base[:, 1], base[:, 0]], 1)
        for step in (0.2, 0.23, 0.26, 0.29, 0.32):
            Q = P * step
            d = np.linalg.norm(pts[:, None, :] - Q[None, :, :], axis=2)
            # greedy one-to-one matching
            used = set()
            tot = 0.0
            for i in np.argsort(d.min(1)):
                j = min((j for j in range(len(Q)) if j not in used), key=lambda j: d[i, j])
                used.add(j)
                tot += d[i, j]
            best = min(best, tot / len(pts) / step)
    return best


def _ink_threshold(ink: np.ndarray, inner: np.ndarray = INNER, band_mask: np.ndarray = BAND,
                   core_mask: np.ndarray | None = None) -> tuple[float, bool, float]:
    """Ink threshold of one face, whether it has ink at all, and how much structure it has (the high
    percentile of ink above the body's). The body's level and noise come from the band just inside the
    outline (mostly body even where a big symbol fills the middle of a small die, which made the noise of
    the whole face look as large as the ink)."""
    band = ink[band_mask]
    inner = ink[inner]
    med_ink = float(rank(band, 0.5))
    mad = float(rank(np.abs(band - med_ink), 0.5)) + 1.0
    hi = float(rank(inner, 0.995))
    t = max(otsu(inner), med_ink + 6 * 1.4826 * mad, 0.35 * hi)
    # ink must reach into the middle of the face too: a blank face's only "ink" is the rim of its outline
    # at the crop's edge, and every drawn face has its symbol or number there
    core = ink[CORE if core_mask is None else core_mask]
    has_ink = hi > max(30.0, med_ink + 10 * 1.4826 * mad) and \
        float(rank(core, 0.995)) > max(30.0, med_ink + 10 * 1.4826 * mad)
    return t, has_ink, hi - med_ink


# An icon die whose band shows no ink is looked at again with its body taken from the band's quietest side
# (`_ink_by_quietest_side`), where its outline is of one die (`_one_die`), with the room only. Shipped at a
# rule written before Blender seeds 418-419 were read: merged 63.79 -> 67.24% right there, missed 13.79 ->
# 8.62%, phantoms and silent (0) as before (docs/dice-sets.md)
INK_BY_QUIET_SIDE = True
# ... and a heap's part only if shaped as one die (`_not_a_heaps_part`; shipped at a rule written before
# Blender seeds 420-421 were read: read there as without it, one phantom fewer on the test seeds)
QUIET_SIDE_HEAP_PARTS_SHAPED = True
ONE_DIE_FILL, ONE_DIE_ELONGATION, ONE_DIE_SIZE = 0.65, 1.25, 1.4


def _not_a_heaps_part(blob: Any) -> bool:
    """Whether a blob is no part the touching-dice split left of a heap unless shaped as one die itself
    (`find.die_shaped`), with QUIET_SIDE_HEAP_PARTS_SHAPED (else always). Why: the L of three touching dice
    left of a heap of four filled its rectangle by 0.67, and the frame's typical blob, of two blobs only, was
    no measure of a die: looked at from its quiet side, it was read as one die at its middle (Blender test
    seed 400 frame 0)."""
    return not QUIET_SIDE_HEAP_PARTS_SHAPED or getattr(blob, "whole", None) is None or \
        die_shaped(blob.contour)


def _one_die(blob: Any, typical: float) -> bool:
    """Whether an outline is of one die: about square, filling its rectangle by ONE_DIE_FILL or more (a die
    seen slantwise from below shows a side face: less than a flat die's 0.85), and no wider than ONE_DIE_SIZE
    times the frame's typical blob. Why: a heap of dice, a hand's edge or a lamp found with the room, looked
    at for ink as a die is, was named as one (Blender seeds 402-415: 16 phantoms more)."""
    (_, _), (rw, rh), _ = blob.rect
    fill = blob.area / max(rw * rh, 1.0)
    elongation = max(rw, rh) / max(min(rw, rh), 1.0)
    return fill >= ONE_DIE_FILL and elongation < ONE_DIE_ELONGATION and \
        (typical <= 0 or math.sqrt(blob.area) <= ONE_DIE_SIZE * typical)


def _ink_by_quietest_side(crop_lab: np.ndarray, inner: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray, float, bool, float]:
    """(ink, body colour, threshold, has ink, spread) with the body taken from the side of the band whose ink
    varies least. Why: from below, a die off the lens's axis shows a side face beyond its own face, and a
    crop cut a little wide holds the room along one edge; either fills one side of the band, whose spread
    then hid a clear symbol on a grainy face (Blender seeds 411-415: single dice missed). The crop is smoothed
    first (a 3 px median): a camera's coloured grain varies as much as a faint symbol at a pixel, not over
    a symbol's width."""
    crop_lab = cv2.medianBlur(crop_lab, 3)
    by_side = [(side, *ink_map(crop_lab, side)) for side in BAND_SIDES]
    side, ink, med = min(by_side, key=lambda s: _spread(s[1][s[0]]))
    t, has_ink, spread = _ink_threshold(ink, inner, side)
    return ink, med, t, has_ink, spread


def _spread(values: np.ndarray) -> float:
    """The median distance of `values` from their median: how much a band's ink varies."""
    return float(rank(np.abs(values - rank(values, 0.5)), 0.5))


def _two_toned(values: np.ndarray) -> bool:
    """Whether lightness values fall in two clear groups (each at least a fifth of them, their means far
    apart against their own spreads), as a band holding both a die's body and a big symbol's ink does."""
    v = values.astype(np.float32)
    t = otsu(v)
    lo, hi = v[v <= t], v[v > t]
    if min(len(lo), len(hi)) < 0.2 * len(v):
        return False
    gap = float(hi.mean() - lo.mean())
    return gap > 40.0 and gap > 2.5 * (float(lo.std()) + float(hi.std()))


def face_ink(img: np.ndarray, lab: np.ndarray, blob: Any) -> np.ndarray:
    """Normalised ink map (N x N, 0..1) of one die's face: what templates are made of."""
    cx, cy, side, ang = blob_geometry(blob)
    ink, _ = ink_map(canonical_crop(lab, (cx, cy), side, ang))
    t, has_ink, _ = _ink_threshold(ink)
    if not has_ink:
        return np.zeros((N, N), np.float32)
    return np.clip(ink / max(2 * t, 1.0), 0, 1).astype(np.float32)


WEAK_MATCH = 0.6  # a face matching its best symbol this poorly is never certain, however far ahead it is
# a face whose corner number reads as another face's is at most this sure (below certain: the page asks)
NUMBER_DISAGREES = 0.55


@dataclass(frozen=True)
class FaceCut:
    """Where a face is cut from the frame, and how its side was found."""

    cx: float
    cy: float
    side: float
    ang: float
    snapped: Snapped | None  # the face's square (a d12's pentagon) from its own crisp sides, if found
    shrunk: bool  # ... far inside the blob (a big symbol's sides, or a light die's blob grown by the glow)
    grown: bool  # ... far outside it (a lamp's glow behind a dark die)


@dataclass(frozen=True)
class FaceInk:
    """A face's crop and its ink: what differs from the body's own colour."""

    crop_bgr: np.ndarray
    crop_lab: np.ndarray
    ink: np.ndarray
    med: np.ndarray  # the body's colour (Lab)
    t: float  # the ink's threshold
    has_ink: bool
    spread: float  # how much structure the face has (ink above the body's)
    inner: np.ndarray  # the face's inside (a square's, a pentagon's)


def _body_colour(crop_bgr: np.ndarray, inkmask: np.ndarray, inner: np.ndarray, has_ink: bool) -> str:
    """The die's colour from the crop's pixels that are not ink (their median per channel, from histograms)."""
    body = ((inner & ~inkmask) if has_ink else inner).astype(np.uint8)
    if not body.any():
        body = np.ones_like(body)
    return classify_colour(tuple(median_u8(c, body) for c in cv2.split(crop_bgr)), ref_v=255.0)


def _uniform(crop_lab: np.ndarray, inkmask: np.ndarray, inner: np.ndarray) -> bool:
    """Whether the body is of one shade (a cocked die shows two): under 12% of its pixels more than 18 from
    its median lightness (the ink's anti-aliased rim left out: thin strokes of a small die are mostly rim)."""
    near_ink = cv2.dilate(inkmask.astype(np.uint8), K3) > 0
    hist = cv2.calcHist([np.ascontiguousarray(crop_lab[..., 0])], [0], (inner & ~near_ink).astype(np.uint8),
                        [256], [0, 256]).ravel()
    n_body = float(hist.sum())
    if not n_body:
        return False
    mid = int(hist_rank(hist, 0.5))
    return float(hist[:max(0, mid - 18)].sum() + hist[mid + 19:].sum()) / n_body < 0.12


def _symbol_confidence(s1: float, margin: float, pentagon: bool) -> float:
    """How sure a symbol match is, from its correlation and its margin over every other group. Numerals at
    any rotation (d12: 6/9, 1/11/12) need a clearer margin than square faces at 4 rotations."""
    need = 0.28 if pentagon else 0.12
    conf = max(0.0, min(1.0, (s1 - 0.35) / 0.35)) * max(0.0, min(1.0, margin / need))
    conf = math.sqrt(conf)
    if s1 < WEAK_MATCH or (s1 < 0.75 and margin < 0.07):
        # a weak match that is barely the best (a small black die's energy bolt was read as a heart,
        # certain, at 0.71 and 0.044) is never certain: on renders of other seeds this cost 1% of the
        # King of Tokyo dice that were certain and right. Nor is a poor one however far ahead (a small
        # black attack die's white starburst, cut along its own edge, showed its cut-out 1 as ink and
        # matched the plain 2 at 0.54, far ahead of the starburst)
        conf = min(conf, 0.55)
    return conf


def _number_sure(m: Any, side: float) -> float:
    """How sure a number's match is: it must match the drawing well and clearly better than every other
    number; a small die's number is a few pixels high, so it must stand out more before it is believed."""
    need = CORNER_MARGIN * min(1.5, max(1.0, 45.0 / max(side, 1.0)))
    return max(0.0, min(1.0, (m.score - CORNER_MIN) / 0.25, m.margin / need))


def _count_pips(inkmask: np.ndarray, has_ink: bool) -> tuple[int | None, float]:
    """(pips, confidence) of a pip face's ink: its components of a pip's size counted (merged pips by their
    area), and their places fitted to the layouts."""
    if not has_ink:
        return None, 0.1
    n_cc, _, stats, cents = cv2.connectedComponentsWithStats(inkmask.astype(np.uint8), connectivity=8)
    exp_area = math.pi * (PIP_RADIUS * N) ** 2
    comps = [(stats[i, cv2.CC_STAT_AREA], stats[i], cents[i]) for i in range(1, n_cc)
             if 0.12 * exp_area <= stats[i, cv2.CC_STAT_AREA] <= 7 * exp_area]
    if not comps:
        return None, 0.1
    areas = np.array([c[0] for c in comps], np.float32)
    unit = float(np.median(areas)) if len(comps) >= 3 else float(areas.max())
    count, pts, merged = 0, [], False
    for a, st, c in comps:
        k = _pips_in_one(a, st, unit) if len(comps) >= 2 else 1
        if a < 0.3 * unit and len(comps) > 1:
            continue  # a speck beside real pips
        merged = merged or k > 1
        count += k
        pts += _pip_centres(st, c, k)
    if count < 1 or count > 6:
        return None, 0.15
    return count, _layout_confidence(np.array(pts, np.float32), count, areas, merged)


def _pips_in_one(a: float, st: np.ndarray, unit: float) -> int:
    """How many pips one ink component holds: a long one of several pips' area is 2 or 3 run together."""
    bw, bh = st[cv2.CC_STAT_WIDTH], st[cv2.CC_STAT_HEIGHT]
    if a > 1.6 * unit and max(bw, bh) / max(min(bw, bh), 1) > 1.6:
        return max(2, min(int(round(a / unit)), 3))
    return 1


def _pip_centres(st: np.ndarray, c: np.ndarray, k: int) -> list[tuple[float, float]]:
    """The centres (canonical coords, centred, unit face) of the k pips in one component: merged pips spread
    along its long axis."""
    if k == 1:
        return [((c[0] + 0.5) / N - 0.5, (c[1] + 0.5) / N - 0.5)]
    bw, bh = st[cv2.CC_STAT_WIDTH], st[cv2.CC_STAT_HEIGHT]
    ax = np.array([1.0, 0.0]) if bw >= bh else np.array([0.0, 1.0])
    L = (max(bw, bh) / N) * 0.5
    out = []
    for j in range(k):
        o = (j - (k - 1) / 2) * (2 * L / k)
        out.append(((c[0] + 0.5) / N - 0.5 + ax[0] * o, (c[1] + 0.5) / N - 0.5 + ax[1] * o))
    return out


def _layout_confidence(P: np.ndarray, count: int, areas: np.ndarray, merged: bool) -> float:
    """How well the pips fit the layout of their count, and how alike their sizes are."""
    res = float(np.linalg.norm(P[0])) / 0.26 if count == 1 else _layout_residual(P, count)
    conf = math.exp(-(res / 0.35) ** 2)
    if len(areas) >= 2 and not float(np.std(areas) / max(np.mean(areas), 1e-6)) < (0.6 if merged else 0.45):
        conf *= 0.5
    if merged:
        conf *= 0.85
    return conf


class FaceReader:
    """Reads faces of one dice set at one mount (templates are built once)."""

    def __init__(self, ds: DiceSet, mount: str, taught: dict | None = None):
        self.ds = ds
        self.mount = mount
        self.taught = taught or {}
        self.pentagon = ds.shape == "pentagon"
        # the templates the faces are matched against (pip sets count their pips instead)
        self.symbols = SymbolTemplates(ds, mount, self.taught) if ds.kind != "pips" or self.taught else None
        self.numerals = NumeralTemplates(ds, mount) if self.pentagon and not self.taught else None
        # numeral dice are also read by a CNN (vision/numerals.py), joined with the templates
        self._numeral_cnn = numeral_classifier() if ds.kind == "numerals" and not self.taught else None

    @property
    def _groups(self) -> list[list[int]]:
        """The symbol groups (each the top faces it may be)."""
        return self.symbols.groups if self.symbols is not None else []

    def _match(self, ink: np.ndarray) -> tuple[int | None, float, float, dict[int, set[int]]]:
        """The symbol match (`SymbolTemplates.match`): (group, best NCC, margin, turns worth reading)."""
        return self.symbols.match(ink) if self.symbols is not None else (None, 0.0, 0.0, {})

    def _read_numeral(self, ink: np.ndarray, has_ink: bool, t: float,
                      hires: Callable[[], np.ndarray] | None = None, side: float = 0.0,
                      snapped: bool = False) -> tuple[int | None, float]:
        """(top face key, confidence) of a pentagonal face cut with a vertex up: its ink against every face
        at the five turns. The turns are the vertices', so a 6 and a 9 (half a turn apart) never meet.
        Then the faces the whole-face match leaves close are compared again on `hires()` (`corners.M` px)
        over the window that holds the numbers, letting them shift a few pixels (`CornerReader`): at 48 px
        and blurred, two numbers of one size differ by a few hundredths of correlation."""
        if not has_ink or self.numerals is None or len(self.numerals.bank) == 0:
            return None, 0.1
        key, s1, s2, close = self.numerals.scores(ink, t)
        if key is None:
            return None, 0.1
        margin = NUMERAL_MARGIN_UNDER if self.mount == "under" else NUMERAL_MARGIN
        conf = max(0.0, min(1.0, (s1 - NUMERAL_MIN) / 0.25, (s1 - s2) / margin))
        # only a face the 48 px match is wholly sure of is left as it is (it costs ~1 ms a die): with the
        # faces from below drawn as printed, faces it was sure of at 0.6-0.99 came out certain and wrong (a
        # glass 9 as a 4; render bench seeds 1-12 and 21, docs/dice-sets.md)
        detail = self.numerals.detail
        if detail is not None and hires is not None and s1 >= NUMERAL_MIN and conf < NUMERAL_DETAIL_BELOW:
            cm = detail.read(hires(), side, sorted(close), close, (1.0,) if snapped else SCALES)
            if cm is not None:
                need = NUMERAL_DETAIL_MARGIN * min(1.5, max(1.0, 45.0 / max(side, 1.0)))
                return cm.key, max(0.0, min(1.0, (cm.score - CORNER_MIN) / 0.25, cm.margin / need))
        return key, conf

    # ------------------------------------------------------------- reading
    def read(self, img: np.ndarray, lab: np.ndarray | None, blob: Any, typical: float,
             background: np.ndarray | None = None, snap: bool = True, again: bool = True) -> Reading | None:
        """One die's reading from its blob: its outline found whole (stage outline), its face cut and its
        ink read (this stage), named (stage name). `lab`: the frame in Lab, or None: each crop is then cut
        from the BGR frame and converted alone (the box's read with a learned background converts no whole
        frame). `background`: the box's learned empty frame, to find again the whole of a die found only in
        part. `snap`: a square face's side may be taken from its own crisp sides (`snap_square`; False: the
        blob's side as it is). `again`: an unsure face whose outline may be wrong is read a second time
        along another outline (`_second_look`)."""
        # (under the tray only: from above a die's shadow and the floor's texture make edges of their own)
        snap = snap and not self.pentagon and self.mount == "under"
        numeral = self.pentagon and not self.taught
        whole, snapped, squared = whole_face(img, blob, background, self.pentagon, snap,
                                             numeral and self.mount == "under")
        cut = self._cut(img, whole, snapped, snap, numeral)
        face = self._ink(img, lab, whole, cut, numeral,
                         background is not None and _one_die(whole, typical) and _not_a_heaps_part(blob))
        out = self._reading(img, lab, whole, cut, face, numeral)
        if out is None or not again or out.certain:
            return out
        # (a face snapped small and clean is a light die's whole face, its blob grown by the room's glow:
        # read at the blob's side, the room in its rim looked like a starburst's tones; a big symbol's
        # sides leave ink in the crop, as a small black die's starburst leaves its number)
        second = self._second_look(img, lab, blob, typical, background, (cut.shrunk and face.has_ink) or cut.grown,
                                   numeral and whole is blob and cut.snapped is None, squared)
        return second if second is not None and second.confidence > out.confidence else out

    def _cut(self, img: np.ndarray, blob: Any, snapped: Snapped | None, snap: bool, numeral: bool) -> FaceCut:
        """Where the face is cut: the blob's centre, side and turn, or its square from its own sides."""
        cx, cy, side, ang = blob_geometry(blob, self.pentagon)
        if snapped is None and snap:
            snapped = snap_square(img, cx, cy, side, ang)
        shrunk = snapped is not None and snapped[2] < SNAP_SHRUNK * side
        grown = snapped is not None and snapped[2] > SNAP_GROWN * side
        if snapped is not None:
            cx, cy, side, ang = snapped
        if numeral:
            # a d12 face cut with a vertex up: its number is upright towards one of the five vertices
            ang = pentagon_angle(blob.contour, cx, cy)
            fit = snap_pentagon(img, cx, cy, side, ang) if self.mount == "under" else None
            if fit is not None:
                cx, cy, side = fit
                snapped = (cx, cy, side, ang)
        return FaceCut(cx, cy, side, ang, snapped, shrunk, grown)

    def _ink(self, img: np.ndarray, lab: np.ndarray | None, blob: Any, cut: FaceCut, numeral: bool,
             look_again: bool = False) -> FaceInk:
        """The face's crop and its ink. Only the pentagon's inside is a d12's face (the crop's corners are
        the room). `look_again`: a face that shows no ink may be looked at again from the band's quietest
        side (`_ink_by_quietest_side`): read with the room, its outline of one die (`FaceReader.read`; a lamp
        or glare the frame alone finds is no die)."""
        inner, band = (P_INNER, P_BAND) if numeral else (INNER, BAND)
        crop_bgr = canonical_crop(img, (cut.cx, cut.cy), cut.side, cut.ang)
        crop_lab = canonical_crop(lab, (cut.cx, cut.cy), cut.side, cut.ang) if lab is not None else \
            cv2.cvtColor(crop_bgr, cv2.COLOR_BGR2Lab)
        ink, face_med = ink_map(crop_lab, band)
        t, has_ink, spread = _ink_threshold(ink, inner, band)
        if not has_ink and not numeral and _two_toned(crop_lab[..., 0][BAND]):
            # a symbol as big as the face (Mage Wars' starburst, white on a black die) fills half the band:
            # its median falls between body and ink, equally far from both, and the face looks blank. The
            # body is the rim just inside the outline, outside the symbol's points. Only where the band is
            # clearly of two tones (a blank face cut a little large has its dark edge in the rim).
            ink2, med2 = ink_map(crop_lab, RIM)
            t2, has2, spread2 = _ink_threshold(ink2, inner, RIM)
            # (on a die's square, the band's two clear tones are ink enough: the rim's own spread, where
            # the die's dark edge runs through it, made a big white starburst on a blue die look inkless;
            # the symbol match judges what the ink is. A blob of no die's shape, such as a patch of floor
            # from above, keeps the rim's verdict)
            if has2 or cut.snapped is not None or face_shape_ok(blob.area, blob.solidity, blob.rect, self.pentagon):
                ink, face_med, t, has_ink, spread = ink2, med2, t2, True, spread2
        if INK_BY_QUIET_SIDE and look_again and not has_ink and not numeral and self.ds.kind != "pips":
            quiet = _ink_by_quietest_side(crop_lab, inner)
            if quiet[3]:
                ink, face_med, t, has_ink, spread = quiet
        return FaceInk(crop_bgr, crop_lab, ink, face_med, t, has_ink, spread, inner)

    def _reading(self, img: np.ndarray, lab: np.ndarray | None, blob: Any, cut: FaceCut, fi: FaceInk,
                 numeral: bool) -> Reading | None:
        """The face's reading: its ink read, the numeral CNN asked where the templates are unsure, doubts
        about the outline's shape and the body's evenness, the face named. None: no die."""
        inkmask = (fi.ink > fi.t) & fi.inner
        colour = _body_colour(fi.crop_bgr, inkmask, fi.inner, fi.has_ink)
        # shape sanity: square (a square die fills its rotated rectangle by about 0.93; a die found in part,
        # against a room as dark as its body, fills it less even when its outline is smooth), or a regular
        # pentagon (it fills its rectangle by about 0.7: a square die read as a d12 would fill it by 0.9)
        # (four crisp sides found around the blob, a square: a die lying flat, whatever its blob's shape)
        shape_ok = cut.snapped is not None or face_shape_ok(blob.area, blob.solidity, blob.rect, self.pentagon)
        guess = None
        if self._inkless_needs_a_guess(blob, fi.has_ink):
            guess = self._numeral_guess(img, blob, cut.ang if numeral else None)
            if guess is None or guess.index is None:
                return None
        seen, conf = self._seen(img, lab, cut, fi, inkmask, numeral)
        if not shape_ok:
            conf *= 0.4
        if not _uniform(fi.crop_lab, inkmask, fi.inner):
            conf *= 0.5  # a cocked die shows two shades
        if guess is None and not (seen is not None and conf >= 0.6):
            guess = self._numeral_guess(img, blob, cut.ang if numeral else None)  # the templates are unsure
        seen, conf, keep = combine_numeral(seen, conf, guess, templates_first=self.pentagon)
        if not keep:
            return None  # the numeral CNN is sure this is no die, the templates are not sure of a face
        value, face, conf = name_seen(self.ds, seen, conf, self.mount == "under" and not self.taught)
        x, y, w, h = blob.mask_box
        return Reading(value, face, colour, float(max(0.0, min(1.0, conf))), (float(cut.cx), float(cut.cy)),
                       (int(x), int(y), int(w), int(h)), bool(seen is not None and conf >= 0.6))

    def _inkless_needs_a_guess(self, blob: Any, has_ink: bool) -> bool:
        """Whether an inkless blob is a die only if the numeral CNN reads a face there: every face of this
        set carries ink, and the blob is no square (a round LED reflection or lamp is not a die; a d20's
        outline is a hexagon)."""
        if has_ink or self.taught or self.pentagon or any(f.glyph == "blank" for f in self.ds.faces):
            return False
        (_, _), (rw, rh), _ = blob.rect
        return blob.area / max(rw * rh, 1.0) < 0.86

    def _numeral_guess(self, img: np.ndarray, blob: Any, ang: float | None) -> NumeralGuess | None:
        """The numeral CNN's reading (a few ms: asked only where it is needed; `vision/numerals.py`)."""
        if self._numeral_cnn is None:
            return None
        return read_numeral(self._numeral_cnn, img, blob, self.ds, seen_mirrored(self.mount), ang)

    def _seen(self, img: np.ndarray, lab: np.ndarray | None, cut: FaceCut, fi: FaceInk, inkmask: np.ndarray,
              numeral: bool) -> tuple[int | None, float]:
        """(the index of the face the camera sees, confidence) from the ink: pips counted, a d12's number or
        a symbol and its corner number matched (templates are keyed by the top face: turned back here)."""
        if self.ds.kind == "pips" and not self.taught:
            return _count_pips(inkmask, fi.has_ink)
        hires = partial(self._hires, img, lab, cut, fi, numeral)
        snapped = cut.snapped is not None
        if numeral:
            seen, conf = self._read_numeral(fi.ink, fi.has_ink, fi.t, hires, cut.side, snapped)
            keyed_by_top = self.mount == "under"
        else:
            seen, conf = self._read_icon(fi.ink, fi.has_ink, fi.t, fi.spread, hires, cut.side, snapped)
            keyed_by_top = self.mount == "under" and not self.taught
        if seen is not None and keyed_by_top:
            seen = self.ds.bottom_of(seen)
        return seen, conf

    @staticmethod
    def _hires(img: np.ndarray, lab: np.ndarray | None, cut: FaceCut, fi: FaceInk, numeral: bool) -> np.ndarray:
        """The face's ink cut again at `corners.M` px (numbers are told apart there)."""
        c, side, ang = (cut.cx, cut.cy), cut.side, cut.ang
        big = canonical_crop(lab, c, side, ang, CORNER_M) if lab is not None else cv2.cvtColor(
            canonical_crop(img, c, side, ang, CORNER_M), cv2.COLOR_BGR2Lab)
        # (the body's median is whole numbers: the distance is taken in uint8, exactly, and only the
        # ink's sum in float)
        d0, d1, d2 = cv2.split(cv2.absdiff(big, np.broadcast_to(fi.med.astype(np.uint8), big.shape)))
        # the die's edge and the room beyond it (a crop cut a little large) are no ink of the face:
        # left in, they pulled the number's window off the number
        return np.clip((d0 + 1.5 * (d1.astype(np.float32) + d2)) / max(2 * fi.t, 1.0), 0, 1) * \
            (HIRES_PENTAGON if numeral else HIRES_FACE)

    def _second_look(self, img: np.ndarray, lab: np.ndarray | None, blob: Any, typical: float,
                     background: np.ndarray | None, resized: bool, loose_pentagon: bool,
                     squared: bool = False) -> Reading | None:
        """An unsure face read again along another outline (the caller keeps the surer reading). `resized`:
        its sides were found far inside the blob, and may be a big symbol's (a small black die's white
        starburst against a room about as dark as its body), or far outside it, and may be a lamp's glow
        behind a dark die (an 83 px King of Tokyo die snapped at 92): read at the blob's own side.
        `loose_pentagon`: a d12 face under the tray whose blob passed as a whole pentagon but whose sides were not found
        crisp (a black die against a room as dark, its far vertex lost: the blob's centre 4 px off): read
        along the pentagon refitted from the window's edges (`refit_pentagon`). `squared`: its blob was
        replaced by `refit_square`'s square, whose window took the body's grey from the blob's core: a blob
        that is a black die's white symbol alone (the die as dark as the room) has the symbol's grey there,
        and the square found was the symbol's; refitted again with the body's grey from just outside the
        blob."""
        if squared:
            refit = refit_square(img, blob, around=True)
            if refit is not None:
                return self.read(img, lab, refit, typical, background, again=False)
        if resized:
            return self.read(img, lab, blob, typical, background, snap=False, again=False)
        if loose_pentagon and self.mount == "under" and background is not None:
            refit = refit_pentagon(img, blob)
            if refit is not None:
                return self.read(img, lab, refit, typical, background, again=False)
        return None

    def _read_icon(self, ink: np.ndarray, has_ink: bool, t: float, spread: float = 0.0,
                   hires: Callable[[], np.ndarray] | None = None, side: float = 0.0,
                   snapped: bool = False) -> tuple[int | None, float]:
        """(face key, confidence) of an icon or numeral face: the symbol by its template, then, where faces
        share the symbol, the corner number from `hires()` (the face's ink cut again at `corners.M` px)."""
        if not has_ink:
            return self._read_inkless(spread)
        gi, s1, margin, turns = self._match(np.clip(ink / max(2 * t, 1.0), 0, 1))
        if gi is None:
            return None, 0.1
        conf = _symbol_confidence(s1, margin, self.pentagon)
        group = self._groups[gi]
        if len(group) == 1 or len({(self.ds.face(k).name, self.ds.face(k).value) for k in group}) == 1:
            return group[0], self._number_agrees(gi, group, conf, sorted(turns), None, hires, side)
        return self._read_number(gi, conf, turns, hires, side, snapped)

    def _read_inkless(self, spread: float) -> tuple[int | None, float]:
        """(face key, confidence) of a face with no ink: the set's blank face (a taught one: the face taught
        blank), if it has exactly one."""
        if self.taught:
            empty = [i for i, arrs in self.taught.items() if any(float(np.max(a)) < 0.05 for a in arrs)]
            return (empty[0], 0.9) if len(empty) == 1 else (None, 0.1)
        blank = [f for f in self.ds.faces if f.glyph == "blank"]
        if not blank:
            return None, 0.1
        top = blank[0].index
        # certain only when the face is really clean (faint ink on a dim die is not a blank)
        conf = 0.9 if spread < 20 else 0.4
        return (self.ds.bottom_of(top) if self.mount == "under" else top), conf

    def _read_number(self, gi: int, conf: float, turns: dict[int, set[int]],
                     hires: Callable[[], np.ndarray] | None, side: float, snapped: bool) -> tuple[int | None, float]:
        """(face key, confidence) of a face whose symbol group `gi` holds several faces: its number, read
        at the turns the symbol left open (`CornerReader`)."""
        group = self._groups[gi]
        corner = self.symbols.corners.get(gi) if self.symbols is not None else None
        if corner is None or hires is None:
            return group[0], min(conf, 0.3)  # the symbol is known, the face is not
        big = hires()
        # (a face whose side was found from its own edges is compared at that size first)
        cm = corner.read(big, side, sorted(turns), turns, (1.0,) if snapped else SCALES)
        if cm is None:
            return group[0], min(conf, 0.3)
        conf_n = _number_sure(cm, side)
        if snapped and conf_n < 0.6:
            # unsure at the side found from its edges: a light die's bevel makes that side a few percent
            # large (a white 36 px die snapped at 38: its 5 and 6 parted by 0.012 there, by 0.057 with the
            # drawing at 0.92), so the smaller drawing is tried too and the surer verdict kept
            again = corner.read(big, side, sorted(turns), turns, SCALES)
            if again is not None and _number_sure(again, side) > conf_n:
                cm, conf_n = again, _number_sure(again, side)
        return cm.key, self._number_agrees(gi, [cm.key], min(conf, conf_n), [cm.turn], big, hires, side)

    def _number_agrees(self, gi: int, faces: list[int], conf: float, turns: list[int], big: np.ndarray | None,
                       hires: Callable[[], np.ndarray] | None, side: float) -> float:
        """`conf` of a face read as one of `faces` (by its symbol, and its number among the group's), capped
        below certain when the corner number, read among every number the set prints, is another face's
        (`_number_check`). Only a face that would be certain is checked: the others cost nothing more."""
        check = self.symbols.number_checks.get(gi) if self.symbols is not None else None
        if check is None or conf < 0.6 or hires is None or not turns:
            return conf
        reader, own = check
        # (the drawing at its own size only: the second size changed no verdict on 1280 of the set's own dice,
        # and the check costs about 0.2 ms a die as it is, most of it OpenCV's per-call overhead)
        cm = reader.read(big if big is not None else hires(), side, turns, None, (1.0,))
        # the number must be there, not only be the least unlike (another printing's number in another corner
        # left noise: correlations of 0.04-0.05 that named the right number by chance). Read as the face's
        # own, on the set's own renders it scored 0.87 or more (631 dice of 16 heroes, 30-90 px, all colours)
        if cm is None or cm.key not in {own[k] for k in faces} or cm.score < CORNER_MIN:
            return min(conf, NUMBER_DISAGREES)
        return conf
