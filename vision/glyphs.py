"""Face glyphs: the ink of one face drawn on a square canvas (float32, 0 = face, 1 = ink).

The renderer paints these on dice and the reader uses the very same drawings as its starting templates,
until the user teaches the real faces. Known symbols get a recognisable drawing; any other symbol name
gets a distinct procedural glyph (seeded by the name), so every Dice Throne hero works out of the box.
"""

from __future__ import annotations

import zlib
from functools import lru_cache

import cv2
import numpy as np

PIP_LAYOUT: dict[int, list[tuple[float, float]]] = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}
PIP_OFFSET = 0.26   # pip grid step as a fraction of the face side
PIP_RADIUS = 0.085  # pip radius as a fraction of the face side
CORNER_XY = (0.23, 0.23)  # centre of a corner number ("corner:N"), unmirrored, in face units
CORNER_H = 0.22           # height of a corner number, in face units


def _poly(img: np.ndarray, pts: list[tuple[float, float]], s: int) -> None:
    arr = np.array([[(x * s, y * s) for x, y in pts]], dtype=np.int32)
    cv2.fillPoly(img, arr, 255, cv2.LINE_AA)


def _text(img: np.ndarray, text: str, s: int, cx: float, cy: float, height: float, ink: int = 255) -> None:
    font = cv2.FONT_HERSHEY_SIMPLEX
    th = max(1, int(round(height * s * 0.16)))
    (w, h), _ = cv2.getTextSize(text, font, 1.0, th)
    scale = height * s / max(h, 1)
    th = max(1, int(round(height * s * 0.14)))
    (w, h), _ = cv2.getTextSize(text, font, scale, th)
    org = (int(cx * s - w / 2), int(cy * s + h / 2))
    cv2.putText(img, text, org, font, scale, ink, th, cv2.LINE_AA)


def _at(x: float, y: float) -> tuple[float, float]:
    """A point of the unit square (x, y in 0-1). Written as an offset from the middle, as the glyphs were
    first drawn at two sizes about it: the same arithmetic (not always x itself in floating point) keeps
    every template's pixels as they were."""
    c = 0.5
    return (c + (x - c), c + (y - c))


def _heart(img: np.ndarray, s: int) -> None:
    for x in (0.37, 0.63):
        cx, cy = _at(x, 0.4)
        cv2.circle(img, (int(cx * s), int(cy * s)), int(0.14 * s), 255, -1, cv2.LINE_AA)
    _poly(img, [_at(0.24, 0.45), _at(0.76, 0.45), _at(0.5, 0.78)], s)


def _energy(img: np.ndarray, s: int) -> None:
    corners = ((0.55, 0.15), (0.3, 0.55), (0.48, 0.55), (0.4, 0.85), (0.7, 0.42), (0.52, 0.42), (0.62, 0.15))
    _poly(img, [_at(x, y) for x, y in corners], s)


def _claw(img: np.ndarray, s: int) -> None:
    for dx in (-0.17, 0.0, 0.17):
        _poly(img, [_at(0.42 + dx, 0.18), _at(0.5 + dx, 0.18), _at(0.6 + dx, 0.82), _at(0.55 + dx, 0.82)], s)


def _ring_star(img: np.ndarray, s: int, points: int, outer: float, inner: float) -> None:
    """A star of `points` points between radii `outer` and `inner` (of the square's side), point up."""
    pts = []
    for i in range(2 * points):
        r = outer if i % 2 == 0 else inner
        a = -np.pi / 2 + i * np.pi / points
        pts.append(_at(0.5 + r * np.cos(a), 0.5 + r * np.sin(a)))
    _poly(img, pts, s)


def _sword(img: np.ndarray, s: int) -> None:
    _poly(img, [_at(0.46, 0.12), _at(0.54, 0.12), _at(0.54, 0.65), _at(0.46, 0.65)], s)
    _poly(img, [_at(0.3, 0.62), _at(0.7, 0.62), _at(0.7, 0.7), _at(0.3, 0.7)], s)
    _poly(img, [_at(0.46, 0.7), _at(0.54, 0.7), _at(0.55, 0.88), _at(0.45, 0.88)], s)


def _procedural(img: np.ndarray, name: str, s: int) -> None:
    """A glyph no drawing is written for: a few circles, lines and triangles drawn from the name's hash, so
    each name has its own and the same every time."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for _ in range(3 + int(rng.integers(0, 3))):
        kind = int(rng.integers(0, 3))
        x, y = rng.uniform(0.25, 0.75, 2)
        if kind == 0:
            r = rng.uniform(0.08, 0.16)
            cv2.circle(img, (int(_at(x, y)[0] * s), int(_at(x, y)[1] * s)), int(r * s), 255, -1, cv2.LINE_AA)
        elif kind == 1:
            x2, y2 = rng.uniform(0.2, 0.8, 2)
            p1, p2 = _at(x, y), _at(x2, y2)
            cv2.line(img, (int(p1[0] * s), int(p1[1] * s)), (int(p2[0] * s), int(p2[1] * s)), 255,
                     max(2, int(0.07 * s)), cv2.LINE_AA)
        else:
            _poly(img, [_at(*rng.uniform(0.2, 0.8, 2)) for _ in range(3)], s)


# the icons drawn by hand; a critical hit ("burst") is a big starburst disk with the number cut out of it
ICONS = {"heart": _heart, "energy": _energy, "claw": _claw, "sword": _sword,
         "star": lambda img, s: _ring_star(img, s, 5, 0.36, 0.15),
         "burst": lambda img, s: _ring_star(img, s, 12, 0.42, 0.34),
         "starburst": lambda img, s: _ring_star(img, s, 12, 0.42, 0.34)}


def _icon(img: np.ndarray, name: str, s: int) -> None:
    """The icon `name` drawn white on `img` (a square of side `s`)."""
    draw = ICONS.get(name)
    if draw is None:
        _procedural(img, name, s)
    else:
        draw(img, s)


@lru_cache(maxsize=512)
def _glyph_cached(glyph: str, size: int, mirrored: bool) -> np.ndarray:
    img = np.zeros((size, size), np.uint8)
    s = size
    has_icon = False
    for part in glyph.split("+"):
        kind, _, arg = part.partition(":")
        if kind == "pips":
            n = int(arg)
            for gx, gy in PIP_LAYOUT[n]:
                cx = (0.5 + gx * PIP_OFFSET) * s
                cy = (0.5 + gy * PIP_OFFSET) * s
                cv2.circle(img, (int(round(cx * 16)), int(round(cy * 16))), int(round(PIP_RADIUS * s * 16)),
                           255, -1, cv2.LINE_AA, 4)
        elif kind == "text":
            under = arg.endswith("_")
            txt = arg.rstrip("_")
            if has_icon:
                # numeral cut out of the icon, big enough to read
                _text(img, txt, s, NUMBER_IN_ICON_XY[0], NUMBER_IN_ICON_XY[1], 0.3, ink=0)
            else:
                h = 0.42 if len(txt) == 1 else 0.34
                _text(img, txt, s, 0.5, 0.47, h)
                if under:
                    cv2.line(img, (int(0.35 * s), int(0.76 * s)), (int(0.65 * s), int(0.76 * s)), 255,
                             max(2, s // 20), cv2.LINE_AA)
        elif kind == "icon":
            has_icon = True
            _icon(img, arg, s)
        elif kind == "corner":
            # printed on a clear patch of face: a symbol reaching into the corner must not swallow it (a real
            # die's number is always legible; a drawn one inside the symbol's ink would be invisible)
            cv2.circle(img, (int(CORNER_XY[0] * s), int(CORNER_XY[1] * s)), int(0.15 * s), 0, -1, cv2.LINE_AA)
            _text(img, arg, s, CORNER_XY[0], CORNER_XY[1], CORNER_H)
        # "blank": nothing
    out = img.astype(np.float32) / 255.0
    if mirrored:
        out = out[:, ::-1].copy()
    out.setflags(write=False)
    return out


NUMBER_IN_ICON_XY = (0.5, 0.52)  # centre of a number cut out of a symbol ("icon:NAME+text:N")


def split_corner(glyph: str) -> tuple[str, str | None]:
    """A glyph without its number, and where that number sits: "corner" for a corner number, "inside" for
    a number cut out of a symbol, None when it has neither. Faces of one die that share a symbol differ
    only there (a Dice Throne hero's three swords, Mage Wars' 1 and 2 in a starburst): the reader names
    the symbol from the glyph without it, then reads the number on its own, at a higher resolution."""
    parts = glyph.split("+")
    has_icon = any(p.startswith("icon:") for p in parts)
    if any(p.startswith("corner:") for p in parts):
        return ("+".join(p for p in parts if not p.startswith("corner:")) or "blank"), "corner"
    if has_icon and any(p.startswith("text:") for p in parts):
        return "+".join(p for p in parts if not p.startswith("text:")), "inside"
    return glyph, None


def corner_number(glyph: str) -> str | None:
    """The number printed in a face's corner ("icon:sword+corner:2" -> "2"), or None (see `split_corner`)."""
    for part in glyph.split("+"):
        kind, _, arg = part.partition(":")
        if kind == "corner":
            return arg
    return None


GLASS_MIRRORS = False
"""Whether the camera under the tray sees the face on the glass mirrored. It does not: it looks at that face
from outside the die, as one reads it printed, through a plate that passes light on without mirroring it
(Blender's renders agree). Until the 32nd session the reader and vision/render.py drew it mirrored, and read
Blender's symbol dice worse for it (docs/dice-sets.md, "Faces from below as printed"). Set before any
reader is built: the templates are kept per set and mount, drawn the way this said when they were built. (A
box whose camera looked through a folding mirror would see faces mirrored: that would make this a setting.)"""


def seen_mirrored(mount: str) -> bool:
    """Whether the camera at `mount` ("over", "under") sees a face mirrored (`GLASS_MIRRORS`)."""
    return mount == "under" and GLASS_MIRRORS


def face_glyph(glyph: str, size: int = 96, mirrored: bool = False) -> np.ndarray:
    """The ink mask (float32 0..1, size x size) of one face; `mirrored`: drawn left-right flipped."""
    return _glyph_cached(glyph, int(size), bool(mirrored))
