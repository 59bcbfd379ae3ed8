"""OpenCV USB webcams (`--camera usb:N`).

Why monotonic stamps taken at read time rather than the driver's: OpenCV's CAP_PROP_POS_MSEC is not
reliable across backends, and the tray watcher only needs a clock that never jumps. An unplugged webcam
shows up as a failed `read`; the supervisor (device.camera.supervisor) closes this source and reopens it.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import cv2

from .base import CameraError, Frame


def _open_capture(index: int) -> Any:
    # V4L2 directly on Linux: the default may pick GStreamer, which can block for seconds on a bad device.
    if sys.platform.startswith("linux"):
        return cv2.VideoCapture(index, cv2.CAP_V4L2)
    return cv2.VideoCapture(index)


class UsbSource:
    """A FrameSource reading webcam `index` through OpenCV."""

    def __init__(self, index: int = 0, *, width: int | None = 1280, height: int | None = 720,
                 fps: float | None = None, clock: Callable[[], float] = time.monotonic,
                 capture_factory: Callable[[int], Any] = _open_capture, **_ignored: Any) -> None:
        self.index = int(index)
        self.name = f"usb:{self.index}"
        self._clock = clock
        self._lock = threading.Lock()
        self._cap = capture_factory(self.index)
        if self._cap is None or not self._cap.isOpened():
            self._release()
            raise CameraError(f"No USB webcam at index {self.index} (is it plugged in? see `ls /dev/video*`).")
        if width and height:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        if fps:
            self._cap.set(cv2.CAP_PROP_FPS, fps)
        # Keep the driver queue short so a frame is not seconds old when the tray watcher sees it.
        self._cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)

    def read(self) -> Frame:
        with self._lock:
            if self._cap is None:
                raise CameraError(f"USB webcam {self.index} is closed.")
            try:
                ok, image = self._cap.read()
            except cv2.error as exc:
                raise CameraError(f"USB webcam {self.index} failed: {exc}") from exc
            t = self._clock()
        if not ok or image is None or getattr(image, "size", 0) == 0:
            raise CameraError(f"USB webcam {self.index} stopped sending frames (unplugged?).")
        if image.ndim == 2:  # some webcams deliver grey frames
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        return Frame(image=image, t=t)

    def frames(self):
        while True:
            yield self.read()

    def close(self) -> None:
        with self._lock:
            self._release()

    def _release(self) -> None:
        if self._cap is not None:
            try:
                self._cap.release()
            except Exception:
                pass
        self._cap = None
