"""USB webcams through OpenCV, faked at the VideoCapture boundary (no webcam on CI)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from device.camera import open_source
from device.camera.base import CameraError
from device.camera.usb import UsbSource


class FakeCapture:
    """cv2.VideoCapture as a webcam behaves: frames while plugged, read() -> (False, None) after."""

    def __init__(self, opened: bool = True, grey: bool = False) -> None:
        self.opened = opened
        self.plugged = True
        self.grey = grey
        self.props: dict[int, float] = {}
        self.released = False
        self.n = 0

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return self.opened

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def read(self):
        if not self.plugged:
            return False, None
        self.n += 1
        shape = (48, 64) if self.grey else (48, 64, 3)
        return True, np.full(shape, self.n, np.uint8)

    def release(self) -> None:
        self.released = True


def test_frames_then_unplug() -> None:
    cap = FakeCapture()
    ticks = iter(range(100))
    src = UsbSource(2, capture_factory=lambda i: cap, clock=lambda: float(next(ticks)))
    assert src.name == "usb:2"
    a, b = src.read(), src.read()
    assert a.image.shape == (48, 64, 3) and b.image[0, 0, 0] == 2
    assert b.t > a.t
    cap.plugged = False
    with pytest.raises(CameraError, match="stopped sending frames"):
        src.read()
    src.close()
    assert cap.released
    with pytest.raises(CameraError, match="closed"):
        src.read()


def test_grey_webcam_gives_bgr() -> None:
    src = UsbSource(0, capture_factory=lambda i: FakeCapture(grey=True))
    assert src.read().image.shape == (48, 64, 3)


def test_missing_webcam_is_a_clear_error() -> None:
    cap = FakeCapture(opened=False)
    with pytest.raises(CameraError, match="No USB webcam at index 5"):
        UsbSource(5, capture_factory=lambda i: cap)
    assert cap.released


def test_real_opencv_without_a_webcam() -> None:
    with pytest.raises(CameraError, match="No USB webcam at index 63"):
        open_source("usb:63")
    with pytest.raises(CameraError, match="index number"):
        open_source("usb:front")


def test_the_configured_size_is_asked_of_the_webcam_and_none_keeps_1280x720() -> None:
    caps = []

    def factory(index: int) -> FakeCapture:
        caps.append(FakeCapture())
        return caps[-1]

    open_source("usb:1", size=(960, 720), capture_factory=factory).close()
    open_source("usb:1", capture_factory=factory).close()
    asked = [(c.props[cv2.CAP_PROP_FRAME_WIDTH], c.props[cv2.CAP_PROP_FRAME_HEIGHT]) for c in caps]
    assert asked == [(960, 720), (1280, 720)]
