"""Camera sources behind one interface (see `base`); `open_source` turns a `--camera` spec into one.

Every source module imports without its hardware: picamera2 itself (which exists only on a Pi) is imported
by `Picamera2Source` when one is opened, and a PC without a webcam still starts the demo tray.
"""

from __future__ import annotations

from .base import CameraError, Frame, FrameSource, frames
from .demo import DemoTray
from .picamera2_source import Picamera2Source
from .replay import ReplaySource
from .supervisor import detect_auto
from .usb import UsbSource

__all__ = ["CameraError", "Frame", "FrameSource", "frames", "open_source", "SPEC_HELP"]

SPEC_HELP = "auto, demo, picamera2, usb:N (N = webcam index), or replay:PATH (a folder of images or a video)"


def open_source(spec: str, size: tuple[int, int] | None = None, **options) -> FrameSource:
    """Open the camera named by `spec` (see SPEC_HELP); CameraError with a clear message otherwise. `size`
    (width, height; config camera.size): the frames asked of a Pi camera or a webcam, each source's own where
    None; the demo tray and a replay keep theirs."""
    spec = spec.strip()
    if spec == "auto":
        spec = detect_auto()
    if spec == "demo":
        return DemoTray(**options)
    if spec == "picamera2":
        return Picamera2Source(**({"size": size} if size else {}), **options)
    if spec.startswith("usb:"):
        try:
            index = int(spec[4:])
        except ValueError:
            raise CameraError(f"usb:N needs a webcam index number, not \"{spec[4:]}\".") from None
        return UsbSource(index, **({"width": size[0], "height": size[1]} if size else {}), **options)
    if spec.startswith("replay:"):
        return ReplaySource(spec[7:], **options)
    raise CameraError(f"Unknown camera \"{spec}\": use {SPEC_HELP}.")
