"""The ink of the symbol dice's printings (`blender_undertray_factors.PRINTINGS`) as texture atlases for Blender.

Blender's Python has neither OpenCV nor the package, so the glyphs are drawn here, in the package's Python, and
written next to the renders (`<folder>/atlas/<printing>.png`) before Blender starts; `blender_undertray.py`
maps each atlas onto its die's six faces. The drawings start from `vision.glyphs.face_glyph`, the very ones the
synthetic renderer paints (vision/render.py), and each printing changes what printings change: the numbers'
font, the strokes' weight, the glyphs' size and slant.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from training.blender_undertray_factors import (
    DT_FACES,
    DT_PRINTINGS,
    KOT_FACES,
    KOT_GLYPHS,
    PRINTINGS,
    Printing,
)
from vision.glyphs import CORNER_H, CORNER_XY, face_glyph

CELL = 128               # pixels per face in the atlas (a face is 25-50 px in the 320x240 frame)
COLUMNS, ROWS = 3, 2     # face index i sits in column (i-1) % 3, row (i-1) // 3, rows from the image's top
FONTS = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX,
         cv2.FONT_HERSHEY_PLAIN]


def number_mask(text: str, p: Printing, size: int = CELL) -> np.ndarray:
    """A number in the printing's font, about 0.6 of the face high, its stroke grown by the printing's weight."""
    font = FONTS[p.font % len(FONTS)]
    thick = max(1, round(size * (0.045 + p.weight)))
    (w, h), _ = cv2.getTextSize(text, font, 1.0, thick)
    scale = 0.6 * p.scale * size / max(h, 1)
    thick = max(1, round(size * (0.045 + p.weight)))
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    img = np.zeros((size, size), np.uint8)
    cv2.putText(img, text, ((size - w) // 2, (size + h) // 2), font, scale, 255, thick, cv2.LINE_AA)
    return img


def icon_mask(glyph: str, p: Printing, size: int = CELL) -> np.ndarray:
    """vision's drawing of the icon, scaled about the face's centre and grown or thinned by the weight."""
    img = (face_glyph(glyph, size) * 255).astype(np.uint8)
    grow = round(abs(p.weight) * size)
    if grow:
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
        img = cv2.dilate(img, kernel) if p.weight > 0 else cv2.erode(img, kernel)
    return img


def face_mask(face: str, p: Printing, size: int = CELL) -> np.ndarray:
    """One face's ink (uint8, 255 = ink), slanted as the printing is."""
    glyph = KOT_GLYPHS[face]
    img = number_mask(glyph.split(":")[1], p, size) if glyph.startswith("text:") else icon_mask(glyph, p, size)
    if p.slant:
        shear = np.float32([[1, -p.slant, p.slant * size / 2], [0, 1, 0]])
        img = cv2.warpAffine(img, shear, (size, size), flags=cv2.INTER_LINEAR)
    return img


def slanted(img: np.ndarray, p: Printing) -> np.ndarray:
    """The ink sheared as the printing slants it (about the face's centre)."""
    if not p.slant:
        return img
    size = img.shape[0]
    shear = np.float32([[1, -p.slant, p.slant * size / 2], [0, 1, 0]])
    return cv2.warpAffine(img, shear, (size, size), flags=cv2.INTER_LINEAR)


def corner_face_mask(icon: str, number: int, p: Printing, size: int = CELL) -> np.ndarray:
    """A Dice Throne face: the icon (vision's drawing, grown or thinned by the weight) with a clear patch in
    its top-left corner holding the corner number in the printing's font, as `vision.glyphs` lays a
    "icon:NAME+corner:N" glyph out. Why its own number: the corner number is what tells a hero's three swords
    apart, and what a network for every hero must read, so its font varies with the printing as the icon's
    stroke does."""
    img = icon_mask(f"icon:{icon}", p, size)
    cx, cy = (round(v * size) for v in CORNER_XY)
    cv2.circle(img, (cx, cy), round(0.15 * size * p.scale), 0, -1, cv2.LINE_AA)
    small = number_mask(str(number), p, round(size * CORNER_H / 0.6))   # its number is 0.6 * scale high
    h, w = small.shape
    y0, x0 = max(0, cy - h // 2), max(0, cx - w // 2)
    patch = img[y0:y0 + h, x0:x0 + w]
    np.maximum(patch, small[:patch.shape[0], :patch.shape[1]], out=patch)
    return slanted(img, p)


def atlas(p: Printing, size: int = CELL, hero: str | None = None) -> np.ndarray:
    """The six faces of one printing in a COLUMNS x ROWS grid, face index i at cell i-1 (row-major): King of
    Tokyo's faces, or a Dice Throne `hero`'s (icon and corner number i)."""
    out = np.zeros((ROWS * size, COLUMNS * size), np.uint8)
    faces = DT_FACES[hero] if hero else KOT_FACES
    for i, face in enumerate(faces):
        r, c = divmod(i, COLUMNS)
        cell = corner_face_mask(face, i + 1, p, size) if hero else face_mask(face, p, size)
        out[r * size:(r + 1) * size, c * size:(c + 1) * size] = cell
    return out


def write_atlases(folder: Path) -> Path:
    """Every printing's atlas under `folder`/atlas (what a symbol folder's Blender run reads)."""
    out = folder / "atlas"
    out.mkdir(parents=True, exist_ok=True)
    for name, p in PRINTINGS.items():
        cv2.imwrite(str(out / f"{name}.png"), atlas(p))
    return out


def write_dicethrone_atlases(folder: Path) -> Path:
    """Every hero's atlas in every Dice Throne printing under `folder`/atlas, named as
    `blender_undertray_factors.atlas_name` names them (`<hero>--<printing>.png`)."""
    out = folder / "atlas"
    out.mkdir(parents=True, exist_ok=True)
    for hero in DT_FACES:
        for name, p in DT_PRINTINGS.items():
            cv2.imwrite(str(out / f"{hero}--{name}.png"), atlas(p, hero=hero))
    return out
