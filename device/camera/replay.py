"""Replay of recorded trays (`--camera replay:PATH`): a folder of images or a video file.

Why: the reader and the tray watcher are developed and benchmarked on real recordings without a camera,
and a bug seen at a game night can be replayed exactly. Frames get monotonic timestamps `1/fps` apart;
with `realtime=True` (the default, as for a live camera) `read` also waits that long between frames,
with `realtime=False` frames come as fast as they are asked for (tests, benchmarks).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from .base import CameraError, Frame

log = logging.getLogger("dicesight.camera.replay")

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}


class ReplaySource:
    """A FrameSource playing `path` (image folder, single image or video), looping by default."""

    def __init__(self, path: str | Path, fps: float = 10.0, *, loop: bool = True, realtime: bool = True,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
                 **_ignored: Any) -> None:
        self.path = Path(path).expanduser()
        self.name = f"replay:{self.path}"
        if fps <= 0:
            raise CameraError(f"Replay fps must be positive, not {fps}.")
        self.fps = float(fps)
        self.loop = loop
        self.realtime = realtime
        self._clock = clock
        self._sleep = sleep
        self._closed = False
        self._images: list[Path] = []
        self._video: Any = None
        self._pos = 0
        self._count = 0  # frames served, for the synthetic timestamps
        self._t0 = clock()
        self._skipped: set[Path] = set()
        if not self.path.exists():
            raise CameraError(f"Nothing to replay at {self.path}: no such file or folder.")
        if self.path.is_dir():
            self._images = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._images:
                raise CameraError(f"{self.path} holds no images to replay "
                                  f"({', '.join(sorted(IMAGE_SUFFIXES))}).")
        elif self.path.suffix.lower() in IMAGE_SUFFIXES:
            self._images = [self.path]
        else:
            self._video = cv2.VideoCapture(str(self.path))
            if not self._video.isOpened():
                self._video.release()
                raise CameraError(f"{self.path} is neither an image nor a video OpenCV can play.")

    def read(self) -> Frame:
        if self._closed:
            raise CameraError(f"Replay of {self.path} is closed.")
        image = self._next_image()
        t = self._t0 + self._count / self.fps
        self._count += 1
        if self.realtime:
            delay = t - self._clock()
            if delay > 0:
                self._sleep(delay)
            else:
                t = self._clock()  # running late: stamp when it is actually served
                self._t0 = t - (self._count - 1) / self.fps
        return Frame(image=image, t=t)

    def _next_image(self) -> np.ndarray:
        if self._video is not None:
            ok, image = self._video.read()
            if not ok and self.loop and self._count > 0:
                self._video.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, image = self._video.read()
            if not ok or image is None:
                raise CameraError(f"The video {self.path} has no more frames.")
            return image
        for _ in range(len(self._images)):
            if self._pos >= len(self._images):
                if not self.loop:
                    raise CameraError(f"Replay of {self.path} is finished.")
                self._pos = 0
            path = self._images[self._pos]
            self._pos += 1
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is not None:
                return image
            if path not in self._skipped:
                self._skipped.add(path)
                log.warning("replay: skipping %s: not an image OpenCV can read", path)
        if self._pos >= len(self._images) and not self.loop:
            raise CameraError(f"Replay of {self.path} is finished.")
        raise CameraError(f"None of the images in {self.path} can be read.")

    def frames(self):
        while True:
            yield self.read()

    def close(self) -> None:
        self._closed = True
        if self._video is not None:
            self._video.release()
            self._video = None
