"""Debug pictures: readings drawn on the frame (boxes, values, confidence; uncertain dice in orange)."""

from __future__ import annotations

import cv2
import numpy as np

from .reading import UNNAMED, Reading


def draw_readings(frame: np.ndarray, readings: list[Reading]) -> np.ndarray:
    """A copy of `frame` with each reading's box, top value/face, colour and confidence drawn."""
    out = frame.copy()
    if out.ndim == 2:
        out = cv2.cvtColor(out, cv2.COLOR_GRAY2BGR)
    h = out.shape[0]
    fs = max(0.35, min(1.0, h / 900))
    for r in readings:
        x, y, w, hh = r.box
        col = (60, 200, 60) if r.certain else (0, 140, 255)
        if r.face == UNNAMED:
            col = (40, 40, 230)
        cv2.rectangle(out, (x, y), (x + w, y + hh), col, 2)
        cv2.circle(out, (int(r.center[0]), int(r.center[1])), 2, col, -1)
        label = f"{r.face} {r.confidence:.2f}"
        if not r.certain:
            label += "?"
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, fs, 1)
        ty = max(th + 2, y - 4)
        cv2.rectangle(out, (x, ty - th - 3), (x + tw + 2, ty + 2), (0, 0, 0), -1)
        cv2.putText(out, label, (x + 1, ty), cv2.FONT_HERSHEY_SIMPLEX, fs, col, 1, cv2.LINE_AA)
        cv2.putText(out, r.colour[:3], (x + 1, y + hh + int(14 * fs) + 2), cv2.FONT_HERSHEY_SIMPLEX, fs * 0.8,
                    col, 1, cv2.LINE_AA)
    return out


def die_crops(frame: np.ndarray, readings: list[Reading], size: int = 96) -> list[np.ndarray]:
    """One picture per die for the debug output: the die as the reader boxed it (grown a little), scaled
    to `size` px, with what was read written under it (green certain, orange uncertain)."""
    out = []
    h, w = frame.shape[:2]
    for r in readings:
        x, y, bw, bh = r.box
        m = int(0.15 * max(bw, bh))
        x0, y0, x1, y1 = max(0, x - m), max(0, y - m), min(w, x + bw + m), min(h, y + bh + m)
        tile = np.zeros((size + 18, size, 3), np.uint8)
        if x1 > x0 and y1 > y0:
            crop = frame[y0:y1, x0:x1]
            s = size / max(crop.shape[:2])
            crop = cv2.resize(crop, (max(1, int(crop.shape[1] * s)), max(1, int(crop.shape[0] * s))),
                              interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
            tile[:crop.shape[0], :crop.shape[1]] = crop
        col = (60, 200, 60) if r.certain else (0, 140, 255)
        cv2.putText(tile, f"{r.face} {r.confidence:.2f}{'' if r.certain else '?'}", (2, size + 13),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.4, col, 1, cv2.LINE_AA)
        out.append(tile)
    return out
