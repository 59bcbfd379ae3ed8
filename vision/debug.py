"""Debug pictures: readings drawn on the frame (boxes, values, confidence; uncertain dice in orange)."""

from __future__ import annotations

import cv2
import numpy as np

from .reading import Reading


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
        if r.face == "?":
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
