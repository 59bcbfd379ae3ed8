"""The Raspberry Pi camera module through picamera2 (`--camera picamera2`).

picamera2 exists only on Raspberry Pi OS (apt `python3-picamera2`, reached from the venv through
--system-site-packages), so it is imported inside the constructor: choosing another camera never needs it.

Two streams from one capture: the full-size "main" stream (BGR, for reading the dice) and a small "lores"
YUV420 stream whose Y plane is the grey frame the motion gate looks at every frame, for free. Timestamps
are the sensor's (`SensorTimestamp`, CLOCK_MONOTONIC nanoseconds on Linux), so the settle window measures
when light hit the sensor, not when Python got round to it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .base import CameraError, Frame

CAPTURE_TIMEOUT_S = 3.0  # a frame later than this means the camera is gone (ribbon loose, crashed)


class Picamera2Source:
    """A FrameSource on the Pi camera module; CameraError if picamera2 or the camera is missing."""

    name = "picamera2"

    def __init__(self, size: tuple[int, int] = (1296, 972), lores_size: tuple[int, int] = (320, 240),
                 fps: float | None = 15.0, camera_num: int = 0,
                 clock: Callable[[], float] = time.monotonic, **_ignored: Any) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise CameraError("picamera2 is not installed: it comes with Raspberry Pi OS "
                              "(sudo apt install python3-picamera2; see docs/install-pi.md).") from exc
        self._clock = clock
        self._lock = threading.Lock()
        self.lores_size = (int(lores_size[0]), int(lores_size[1]))
        try:
            cameras = Picamera2.global_camera_info()
        except Exception as exc:
            raise CameraError(f"libcamera could not list cameras: {exc}") from exc
        if len(cameras) <= camera_num:
            raise CameraError("No Raspberry Pi camera module found (check the ribbon cable and "
                              "`rpicam-hello --list-cameras`).")
        try:
            self._cam = Picamera2(camera_num)
        except Exception as exc:
            raise CameraError(f"The camera module could not be opened (in use by another program?): {exc}") \
                from exc
        try:
            controls = {"FrameRate": float(fps)} if fps else {}
            config = self._cam.create_video_configuration(
                main={"size": tuple(size), "format": "RGB888"},  # RGB888 is B,G,R in memory: OpenCV's BGR
                lores={"size": self.lores_size, "format": "YUV420"},
                buffer_count=4, controls=controls)
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:
            self._close_cam()
            raise CameraError(f"The camera module could not be started: {exc}") from exc

    def read(self) -> Frame:
        with self._lock:
            if self._cam is None:
                raise CameraError("The camera module is closed.")
            try:
                request = self._capture_request()
            except CameraError:
                raise
            except Exception as exc:
                raise CameraError(f"The camera module stopped delivering frames: {exc}") from exc
            try:
                image = np.ascontiguousarray(request.make_array("main")[:, :, :3])
                yuv = request.make_array("lores")
                metadata = request.get_metadata() or {}
            except Exception as exc:
                raise CameraError(f"A camera frame could not be read: {exc}") from exc
            finally:
                request.release()
        w, h = self.lores_size
        lores = np.ascontiguousarray(yuv[:h, :w])  # YUV420 planar: the first h rows are the Y plane
        stamp = metadata.get("SensorTimestamp")
        t = stamp / 1e9 if isinstance(stamp, int | float) and stamp > 0 else self._clock()
        return Frame(image=image, t=t, lores=lores)

    def _capture_request(self) -> Any:
        """The next completed request, or CameraError after CAPTURE_TIMEOUT_S (never blocks forever)."""
        try:
            job = self._cam.capture_request(wait=False)
        except TypeError:  # an old picamera2 without wait=: blocking is all it offers
            return self._cam.capture_request()
        try:
            return self._cam.wait(job, timeout=CAPTURE_TIMEOUT_S)
        except TimeoutError as exc:
            raise CameraError(f"No frame from the camera module in {CAPTURE_TIMEOUT_S:.0f} s.") from exc

    def frames(self):
        while True:
            yield self.read()

    def close(self) -> None:
        with self._lock:
            self._close_cam()

    def _close_cam(self) -> None:
        cam = getattr(self, "_cam", None)
        self._cam = None
        if cam is None:
            return
        for step in (cam.stop, cam.close):
            try:
                step()
            except Exception:
                pass


def camera_present() -> bool:
    """True if picamera2 imports and libcamera lists at least one camera (for `--camera auto`)."""
    try:
        from picamera2 import Picamera2
    except Exception:
        return False
    try:
        return len(Picamera2.global_camera_info()) > 0
    except Exception:
        return False
