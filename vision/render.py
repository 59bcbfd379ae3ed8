"""Synthetic tray frames with ground truth: for tests, benchmarks and the demo tray.

`render_tray(dice, mount=..., lighting=..., seed=...)` draws a 640x480 (by default) BGR frame in a few
milliseconds, deterministically for a seed. Over the tray the camera sees the top faces on a tray floor of
any colour, with shadows and glare; under the tray it sees the face lying on the glass (lit by the box's LED
ring, sharp) against a dark, far, changing room.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from .dicesets import DiceSetLike, get_set
from .glyphs import face_glyph, seen_mirrored

# BGR body colours and the natural ink colour on them
COLOURS: dict[str, tuple[int, int, int]] = {
    "white": (236, 238, 240),
    "ivory": (205, 235, 245),
    "yellow": (40, 205, 235),
    "red": (45, 40, 200),
    "blue": (190, 90, 25),
    "green": (60, 150, 35),
    "purple": (140, 45, 115),
    "black": (32, 30, 30),
    "orange": (30, 120, 240),
}
INKS: dict[str, tuple[int, int, int]] = {
    "black": (25, 25, 25),
    "white": (240, 240, 240),
    "red": (40, 30, 190),
    "yellow": (40, 200, 235),
    "gold": (60, 175, 215),
    "blue": (180, 70, 20),
}
BACKGROUNDS: dict[str, tuple[int, int, int]] = {
    "wood": (120, 170, 205),
    "felt": (50, 110, 40),
    "green": (50, 110, 40),
    "white": (225, 226, 228),
    "grey": (128, 128, 128),
    "black": (28, 28, 30),
    "blue": (120, 70, 30),
    "red": (40, 40, 140),
    "room": (18, 17, 16),
}
LIGHTING_GAIN: dict[str, tuple[float, float, float]] = {
    "neutral": (1.0, 1.0, 1.0),
    "warm": (0.80, 0.95, 1.08),
    "cold": (1.10, 1.0, 0.86),
    "dim": (0.55, 0.55, 0.55),
    "glare": (1.0, 1.0, 1.0),
}


def default_ink(colour: str) -> str:
    return "black" if colour in ("white", "ivory", "yellow", "orange") else "white"


@dataclass
class DieSpec:
    """One die on the tray: centre (px), size (px, side of a face), angle (deg), the TOP face index."""

    x: float
    y: float
    size: float = 48.0
    angle: float = 0.0
    value: int = 1             # top face index in the set's face table (= pips for d6)
    dice_set: DiceSetLike = "d6"  # a DiceSetSpec dict, a DiceSet, or "d6"
    colour: str = "white"
    pip_colour: str | None = None
    tilt: float = 0.0          # 0 flat .. 1 strongly cocked/tumbling
    blur: float = 0.0          # motion blur length in px (a die still spinning)
    material: str = "plain"    # plain, marbled (swirled colour), speckled (flecks), translucent (see-through)


@dataclass
class Hand:
    x: float
    y: float
    size: float = 220.0
    angle: float = 0.0


def ground_truth(dice: list[DieSpec], mount: str = "under") -> list[dict[str, Any]]:
    """What a perfect reader would report for each die (top-face game value, face name, colour, centre)."""
    out = []
    for d in dice:
        ds = get_set(d.dice_set)
        f = ds.face(d.value)
        seen = ds.bottom_of(d.value) if mount == "under" else d.value
        r = d.size * 0.5 * (1 + 0.4 * abs(math.sin(math.radians(2 * d.angle))))
        out.append({
            "value": f.value, "face": f.name, "index": d.value, "seen_index": seen,
            "colour": d.colour if d.colour in ("red", "yellow", "blue", "black", "white", "green", "purple")
            else ("white" if d.colour == "ivory" else "other"),
            "center": (float(d.x), float(d.y)),
            "box": (int(d.x - r), int(d.y - r), int(2 * r), int(2 * r)),
            "flat": d.tilt < 0.15 and d.blur < 3,
        })
    return out


# ---------------------------------------------------------------- backgrounds (cached per seed)

_BG_CACHE: OrderedDict[tuple, np.ndarray] = OrderedDict()
_NOISE: dict[tuple[int, int], np.ndarray] = {}


def _bg_colour(background: Any, mount: str) -> tuple[int, int, int]:
    if background is None:
        return BACKGROUNDS["room" if mount == "under" else "wood"]
    if isinstance(background, str):
        return BACKGROUNDS.get(background, BACKGROUNDS["grey"])
    return tuple(int(c) for c in background)  # type: ignore[return-value]


def _make_background(width: int, height: int, mount: str, background: Any, lighting: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed * 7919 + 17)
    sw, sh = max(8, width // 8), max(6, height // 8)
    base = np.array(_bg_colour(background, mount), np.float32)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xx = xx / sw - 0.5
    yy = yy / sh - 0.5
    if mount == "under":
        # a dark, far room: gradient, out-of-focus ceiling lamps, a sleeve or a face now and then
        grad = 1.0 + 0.5 * (rng.uniform(-1, 1) * xx + rng.uniform(-1, 1) * yy)
        small = base[None, None, :] * grad[..., None]
        for _ in range(int(rng.integers(0, 4))):
            cx, cy = rng.uniform(0, sw), rng.uniform(0, sh)
            r = rng.uniform(2, 8)
            amp = rng.uniform(40, 140)
            d2 = ((xx + 0.5) * sw - cx) ** 2 + ((yy + 0.5) * sh - cy) ** 2
            small += (amp * np.exp(-d2 / (2 * r * r)))[..., None] * np.array([0.9, 1.0, 1.05], np.float32)
        for _ in range(int(rng.integers(0, 3))):
            cx, cy = rng.uniform(0, sw), rng.uniform(0, sh)
            col = rng.uniform(15, 70, 3).astype(np.float32)
            cv2.ellipse(small, (int(cx), int(cy)), (int(rng.uniform(3, 12)), int(rng.uniform(3, 10))),
                        float(rng.uniform(0, 180)), 0, 360, col.tolist(), -1)
        small = cv2.GaussianBlur(small, (0, 0), 1.5)
        if lighting == "glare":
            # reflections of the LED ring on the glass: a ring of soft bright spots
            for k in range(6):
                a = 2 * math.pi * k / 6 + 0.3
                cx, cy = sw / 2 + 0.42 * sw * math.cos(a), sh / 2 + 0.42 * sh * math.sin(a)
                d2 = ((xx + 0.5) * sw - cx) ** 2 + ((yy + 0.5) * sh - cy) ** 2
                small += (150 * np.exp(-d2 / (2 * 0.8 ** 2)))[..., None]
    else:
        grad = 1.0 + 0.25 * (rng.uniform(-1, 1) * xx + rng.uniform(-1, 1) * yy) - 0.15 * (xx**2 + yy**2)
        small = base[None, None, :] * grad[..., None]
        if lighting == "glare":
            cx, cy = rng.uniform(0.2, 0.8) * sw, rng.uniform(0.2, 0.8) * sh
            d2 = ((xx + 0.5) * sw - cx) ** 2 + ((yy + 0.5) * sh - cy) ** 2
            small += (90 * np.exp(-d2 / (2 * (sw / 8) ** 2)))[..., None]
    bg = cv2.resize(np.clip(small, 0, 255).astype(np.uint8), (width, height), interpolation=cv2.INTER_LINEAR)
    if mount == "over" and isinstance(background, str) and background == "wood":
        # wood grain: stretched noise
        g = rng.normal(0, 1, (height // 16 + 1, width // 2 + 1)).astype(np.float32)
        g = cv2.resize(g, (width, height), interpolation=cv2.INTER_CUBIC)
        bg = np.clip(bg.astype(np.float32) + 6 * g[..., None], 0, 255).astype(np.uint8)
    if mount == "over":
        # tray rim: a darker band along the edges
        m = max(4, width // 80)
        rim = tuple(int(c * 0.6) for c in _bg_colour(background, mount))
        cv2.rectangle(bg, (0, 0), (width - 1, height - 1), rim, m)
    return bg


def _background(width: int, height: int, mount: str, background: Any, lighting: str, seed: int) -> np.ndarray:
    bkey = background if isinstance(background, (str, type(None))) else tuple(background)
    key = (width, height, mount, bkey, lighting, seed)
    bg = _BG_CACHE.get(key)
    if bg is None:
        bg = _make_background(width, height, mount, background, lighting, seed)
        _BG_CACHE[key] = bg
        if len(_BG_CACHE) > 48:
            _BG_CACHE.popitem(last=False)
    else:
        _BG_CACHE.move_to_end(key)
    return bg


def _noise(width: int, height: int) -> np.ndarray:
    key = (width, height)
    n = _NOISE.get(key)
    if n is None:
        rng = np.random.default_rng(12345)
        n = np.clip(rng.normal(128, 32, (height + 64, width + 64, 3)), 0, 255).astype(np.uint8)
        _NOISE[key] = n
    return n


# ---------------------------------------------------------------- dice

def _outline(shape: str, n: int = 40) -> np.ndarray:
    """Unit outline (side 1, centred) of a face: rounded square or pentagon."""
    if shape == "pentagon":
        a = -np.pi / 2 + np.arange(5) * 2 * np.pi / 5
        return np.stack([0.62 * np.cos(a), 0.62 * np.sin(a)], 1).astype(np.float32)
    r = 0.16
    pts = []
    for cx, cy, a0 in ((0.5 - r, 0.5 - r, 0), (-0.5 + r, 0.5 - r, 90), (-0.5 + r, -0.5 + r, 180),
                       (0.5 - r, -0.5 + r, 270)):
        for k in range(n // 4):
            a = math.radians(a0 + 90 * k / (n // 4 - 1))
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return np.array(pts, np.float32)


_OUTLINES = {"square": _outline("square"), "pentagon": _outline("pentagon")}


def _affine(d: DieSpec, sx: float = 1.0, sy: float = 1.0, shift: tuple[float, float] = (0, 0),
            local: tuple[float, float] = (0, 0)) -> np.ndarray:
    """2x3 matrix mapping unit face coords (centred) to frame px; `local` shifts in die units."""
    a = math.radians(d.angle)
    c, s = math.cos(a), math.sin(a)
    R = np.array([[c, -s], [s, c]], np.float32)
    S = np.diag([d.size * sx, d.size * sy]).astype(np.float32)
    M = R @ S
    t = np.array([d.x + shift[0], d.y + shift[1]], np.float32) + R @ np.array(local, np.float32) * d.size
    return np.hstack([M, t[:, None]])


def _shade(col: tuple[int, int, int], k: float) -> tuple[int, int, int]:
    return tuple(int(max(0, min(255, c * k))) for c in col)  # type: ignore[return-value]


def _paint_glyph(frame: np.ndarray, glyph: np.ndarray, M: np.ndarray, ink: tuple[int, int, int],
                 clip: tuple[int, int, int, int]) -> None:
    """Blend the glyph (unit face -> frame via M) in ink colour into frame, inside clip box."""
    x0, y0, x1, y1 = clip
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return
    gs = glyph.shape[0]
    # glyph px -> unit coords: u = (px + 0.5) / gs - 0.5
    G = np.array([[1.0 / gs, 0, 0.5 / gs - 0.5], [0, 1.0 / gs, 0.5 / gs - 0.5], [0, 0, 1]], np.float32)
    full = np.vstack([M, [0, 0, 1]]).astype(np.float32) @ G
    full[0, 2] -= x0
    full[1, 2] -= y0
    alpha = cv2.warpAffine(glyph, full[:2], (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    roi = frame[y0:y1, x0:x1]
    a = alpha[..., None]
    roi[:] = (roi * (1 - a) + np.array(ink, np.float32) * a).astype(np.uint8)


def _draw_die(frame: np.ndarray, d: DieSpec, mount: str, lighting: str, rng: np.random.Generator) -> None:
    ds = get_set(d.dice_set)
    body = COLOURS.get(d.colour, COLOURS["white"])
    ink = INKS.get(d.pip_colour or default_ink(d.colour), INKS["black"])
    seen = ds.bottom_of(d.value) if mount == "under" else d.value
    glyph = face_glyph(ds.face(seen).glyph, 96, mirrored=seen_mirrored(mount))
    outline = _OUTLINES[ds.shape]
    half = d.size * 0.8
    box = (int(d.x - half - d.blur) - 2, int(d.y - half - d.blur) - 2,
           int(d.x + half + d.blur) + 3, int(d.y + half + d.blur) + 3)
    tilt = max(0.0, min(1.0, d.tilt))

    def poly(M: np.ndarray, scale: float = 1.0) -> np.ndarray:
        p = outline * scale
        q = p @ M[:, :2].T + M[:, 2]
        return np.round(q * 16).astype(np.int32)[None]

    if mount == "over":
        # soft shadow beneath, to the lower right
        Ms = _affine(d, 1.0, 1.0, (0.10 * d.size, 0.12 * d.size))
        x0, y0, x1, y1 = box
        h, w = frame.shape[:2]
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1 + int(0.2 * d.size)), min(h, y1 + int(0.2 * d.size))
        if x1 > x0 and y1 > y0:
            roi = frame[y0:y1, x0:x1]
            sh = roi.copy()
            Ms2 = Ms.copy()
            Ms2[0, 2] -= x0
            Ms2[1, 2] -= y0
            cv2.fillPoly(sh, poly(Ms2, 1.05), (0, 0, 0), cv2.LINE_AA, 4)
            cv2.addWeighted(roi, 0.65, sh, 0.35, 0, dst=roi)
        face_col = body
        edge_col = _shade(body, 0.72)
    else:
        face_col = _shade(body, 1.25)  # lit by the LED ring right under the glass
        edge_col = _shade(body, 0.55)

    if tilt > 0:
        # cocked die: the top face is foreshortened and a side face shows next to it
        k = 1.0 - 0.45 * tilt
        side_w = 0.5 * tilt
        Mt = _affine(d, 1.0, k, local=(0, -side_w * 0.5))
        Mside = _affine(d, 1.0, side_w, local=(0, k * 0.5 - 0.02))
        cv2.fillPoly(frame, poly(Mside), _shade(face_col, 0.7), cv2.LINE_AA, 4)
        side_face = ds.face(ds.opposite.get(1, 1) if seen != 1 else 2)
        _paint_glyph(frame, face_glyph(side_face.glyph, 96), Mside, _shade(ink, 0.8), box)
        cv2.fillPoly(frame, poly(Mt), face_col, cv2.LINE_AA, 4)
        cv2.polylines(frame, poly(Mt, 1.0), True, edge_col, max(1, int(d.size * 0.04)), cv2.LINE_AA, 4)
        _paint_glyph(frame, glyph, Mt, ink, box)
    else:
        M = _affine(d)
        under_face = frame.copy() if d.material == "translucent" else None
        cv2.fillPoly(frame, poly(M, 1.0), face_col, cv2.LINE_AA, 4)
        if d.material != "plain":
            _material(frame, poly(M, 1.0), box, d, face_col, under_face, rng)
        cv2.polylines(frame, poly(M, 0.98), True, edge_col, max(1, int(d.size * 0.035)), cv2.LINE_AA, 4)
        _paint_glyph(frame, glyph, M, ink, box)

    if lighting == "glare" and mount == "over":
        # a soft specular highlight on the glossy face (brightens, does not hide the pips)
        ang = math.radians(d.angle)
        gx = d.x + d.size * 0.2 * math.cos(ang + 2.3)
        gy = d.y + d.size * 0.2 * math.sin(ang + 2.3)
        x0, y0, x1, y1 = [max(0, v) for v in box]
        roi = frame[y0:y1, x0:x1]
        if roi.size:
            spot = np.zeros(roi.shape[:2], np.float32)
            cv2.ellipse(spot, (int(gx - x0), int(gy - y0)), (max(1, int(d.size * 0.2)), max(1, int(d.size * 0.13))),
                        float(d.angle + 30), 0, 360, 1.0, -1, cv2.LINE_AA)
            spot = cv2.GaussianBlur(spot, (0, 0), max(1.0, d.size * 0.08))
            a = (0.3 * spot)[..., None]
            roi[:] = (roi * (1 - a) + 255.0 * a).astype(np.uint8)

    if d.blur >= 1:
        x0, y0, x1, y1 = [max(0, v) for v in box]
        roi = frame[y0:y1, x0:x1]
        if roi.size:
            L = int(d.blur) | 1
            kern = np.zeros((L, L), np.float32)
            kern[L // 2, :] = 1.0 / L
            rot = cv2.getRotationMatrix2D((L / 2 - 0.5, L / 2 - 0.5), float(d.angle * 1.7), 1.0)
            kern = cv2.warpAffine(kern, rot, (L, L))
            kern /= max(kern.sum(), 1e-6)
            roi[:] = cv2.filter2D(roi, -1, kern)


def _material(frame: np.ndarray, face_poly: np.ndarray, box: tuple[int, int, int, int], d: DieSpec,
              face_col: tuple[int, int, int], under: np.ndarray | None, rng: np.random.Generator) -> None:
    """Give the face fill a real body: swirls of a second colour (marbled), flecks (speckled), or the scene
    behind showing through a tinted body (translucent). Only inside the face outline."""
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = max(0, box[0]), max(0, box[1]), min(w, box[2]), min(h, box[3])
    if x1 - x0 < 4 or y1 - y0 < 4:
        return
    roi = frame[y0:y1, x0:x1]
    mask = np.zeros(roi.shape[:2], np.uint8)
    cv2.fillPoly(mask, face_poly - np.array([[x0 * 16, y0 * 16]], np.int32), 255, cv2.LINE_AA, 4)
    a = (mask.astype(np.float32) / 255.0)[..., None]
    col = np.array(face_col, np.float32)
    if d.material == "marbled":
        g = rng.normal(0, 1, (max(2, (y1 - y0) // 6), max(2, (x1 - x0) // 6))).astype(np.float32)
        g = cv2.resize(g, (x1 - x0, y1 - y0), interpolation=cv2.INTER_CUBIC)
        swirl = np.abs(np.sin(3.0 * g))[..., None]
        other = np.clip(col * rng.uniform(0.45, 0.8) + rng.uniform(-40, 40, 3), 0, 255)
        tex = col * (1 - swirl) + other * swirl
    elif d.material == "speckled":
        tex = np.broadcast_to(col, roi.shape).copy()
        n = int((x1 - x0) * (y1 - y0) * rng.uniform(0.01, 0.03))
        fleck = np.clip(255 - col + rng.uniform(-40, 40, 3), 0, 255) if rng.random() < 0.5 else col * 0.4
        ys, xs = rng.integers(0, y1 - y0, n), rng.integers(0, x1 - x0, n)
        rad = max(1, int(d.size * 0.012))
        for yy, xx in zip(ys, xs, strict=True):
            cv2.circle(tex, (int(xx), int(yy)), rad, fleck.tolist(), -1)
    else:  # translucent: the tinted scene behind, blurred by the body
        behind = cv2.GaussianBlur(under[y0:y1, x0:x1], (0, 0), max(1.0, d.size * 0.05)).astype(np.float32) \
            if under is not None else roi.astype(np.float32)
        k = rng.uniform(0.35, 0.65)
        tex = behind * k * (col / 255.0 + 0.3) + col * (1 - k)
    roi[:] = np.clip(roi * (1 - a) + tex * a, 0, 255).astype(np.uint8)


def _draw_hand(frame: np.ndarray, hand: Hand, mount: str) -> None:
    skin = (120, 150, 200) if mount == "over" else (70, 85, 110)
    s = hand.size
    a = hand.angle
    over = frame.copy()
    cv2.ellipse(over, (int(hand.x), int(hand.y)), (int(s * 0.32), int(s * 0.4)), a, 0, 360, skin, -1, cv2.LINE_AA)
    for k in range(4):
        ang = math.radians(a - 90 + (k - 1.5) * 16)
        fx = hand.x + math.cos(ang) * s * 0.55
        fy = hand.y + math.sin(ang) * s * 0.55
        cv2.line(over, (int(hand.x), int(hand.y)), (int(fx), int(fy)), skin, int(s * 0.1), cv2.LINE_AA)
    # the arm leaves the frame
    cv2.line(over, (int(hand.x), int(hand.y)), (int(hand.x + math.cos(math.radians(a + 90)) * s * 3),
                                                int(hand.y + math.sin(math.radians(a + 90)) * s * 3)),
             skin, int(s * 0.45), cv2.LINE_AA)
    if mount == "under":
        over = cv2.GaussianBlur(over, (0, 0), 4)
    frame[:] = over


def render_tray(
    dice: list[DieSpec],
    *,
    width: int = 640,
    height: int = 480,
    mount: str = "under",
    background: Any = None,
    lighting: str = "neutral",
    noise: float = 4.0,
    seed: int = 0,
    hand: Hand | tuple[float, float] | tuple[float, float, float] | None = None,
    room_seed: int = 0,
) -> np.ndarray:
    """Draw one BGR tray frame (deterministic for `seed` and `room_seed`).

    `background` is a name (wood, felt, white, grey, black, blue, red) or a BGR tuple; `seed` varies the
    sensor noise frame to frame, `room_seed` the scene behind the dice (lamps and people above an under-mount
    tray, light gradient and glare spot over a tray floor), so an animation keeps a steady room.
    """
    if mount not in ("under", "over"):
        raise ValueError("mount must be 'under' or 'over'")
    if lighting not in LIGHTING_GAIN:
        raise ValueError(f"lighting must be one of {', '.join(LIGHTING_GAIN)}")
    frame = _background(width, height, mount, background, lighting, room_seed).copy()
    gain = LIGHTING_GAIN[lighting]
    if mount == "under" and gain != (1.0, 1.0, 1.0):
        # under the glass the dice are lit by the box's LED ring: the room light only tints the room
        frame = cv2.multiply(frame, (gain[0], gain[1], gain[2], 0.0), dtype=cv2.CV_8U)
    rng = np.random.default_rng(seed)
    for d in dice:
        _draw_die(frame, d, mount, lighting, rng)
    if hand is not None:
        if not isinstance(hand, Hand):
            hand = Hand(*hand)
        _draw_hand(frame, hand, mount)
    if mount == "over" and gain != (1.0, 1.0, 1.0):
        frame = cv2.multiply(frame, (gain[0], gain[1], gain[2], 0.0), dtype=cv2.CV_8U)
    if noise > 0:
        nz = _noise(width, height)
        ox, oy = (seed * 13) % 64, (seed * 29) % 64
        n = nz[oy:oy + height, ox:ox + width]
        k = float(noise) / 32.0
        if lighting == "dim":
            k *= 1.6
        frame = cv2.addWeighted(frame, 1.0, n, k, -128.0 * k)
    return frame


def random_dice(rng: np.random.Generator, n: int, *, dice_set: DiceSetLike = "d6", width: int = 640, height: int = 480,
                size: tuple[float, float] = (36, 70), colours: list[str] | None = None,
                min_gap: float = 1.15) -> list[DieSpec]:
    """n dice placed without overlap at random poses (for tests and benchmarks)."""
    ds = get_set(dice_set)
    colours = colours or ["white", "red", "yellow", "blue", "black", "green", "purple"]
    out: list[DieSpec] = []
    tries = 0
    while len(out) < n and tries < 4000:
        tries += 1
        s = float(rng.uniform(*size))
        m = s * 0.9 + 12
        x, y = float(rng.uniform(m, width - m)), float(rng.uniform(m, height - m))
        if any(math.hypot(x - o.x, y - o.y) < min_gap * 0.75 * (s + o.size) for o in out):
            continue
        col = colours[int(rng.integers(0, len(colours)))]
        out.append(DieSpec(x, y, s, float(rng.uniform(0, 360)), int(rng.integers(1, ds.n + 1)), dice_set, col))
    return out
