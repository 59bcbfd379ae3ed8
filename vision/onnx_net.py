"""Loading the shipped ONNX networks into `cv2.dnn`, with the engine that runs them fastest on one core.

OpenCV 5 brought a second inference engine (a graph engine) and made it the default (`ENGINE_AUTO`). For the
box's small networks the classic engine is much quicker on one x86 core, with the same answers to 1e-5
(OpenCV 5.0.0, measured by `bench/vision_speed.py`'s "cv2.dnn engines" lines: the face CNN 6 crops 2.30 ms ->
1.46 ms, the numeral CNN 1.97 -> 1.23 ms, the die finder on 256x192 3.09 -> 2.28 ms). OpenCV 4 has only the
classic engine and no `engine` argument, hence the `getattr`.

The shipped files pool by strided slices rather than MaxPool nodes (`training/onnx_pools.py`): the same
numbers, 10-18% sooner on the classic engine.

OpenCV's own backend on the CPU is the default: no setPreferableTarget (OpenCV 5's graph engine prints a
warning on every load for it, on each `dicesight read`).
"""

from __future__ import annotations

from pathlib import Path

import cv2

CLASSIC = getattr(cv2.dnn, "ENGINE_CLASSIC", None)


def load_net(onnx_path: Path, engine: int | None = CLASSIC) -> cv2.dnn.Net:
    """A `cv2.dnn` network read from `onnx_path`, on `engine` where this OpenCV has a choice of engines
    (`None`: OpenCV's default)."""
    if engine is None:
        return cv2.dnn.readNetFromONNX(str(onnx_path))
    return cv2.dnn.readNetFromONNX(str(onnx_path), engine=engine)
