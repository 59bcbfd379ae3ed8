"""Camera sources behind one interface (see `base`); `open_source` turns a `--camera` spec into one.

Hardware modules are imported only when chosen: picamera2 exists only on a Pi, and a PC without a
webcam must still start the demo tray.
"""

from __future__ import annotations

from .base import CameraError, Frame, FrameSource, frames

__all__ = ["CameraError", "Frame", "FrameSource", "frames", "open_source", "SPEC_HELP"]

SPEC_HELP = "auto, demo, picamera2, usb:N (N = webcam index), or replay:PATH (a folder of images or a video)"


def open_source(spec: str, **options) -> FrameSource:
    """Open the camera named by `spec` (see SPEC_HELP); CameraError with a clear message otherwise."""
    spec = spec.strip()
    if spec == "auto":
        from .supervisor import detect_auto

        spec = detect_auto()
    if spec == "demo":
        from .demo import DemoTray

        return DemoTray(**options)
    if spec == "picamera2":
        from .picamera2_source import Picamera2Source

        return Picamera2Source(**options)
    if spec.startswith("usb:"):
        from .usb import UsbSource

        try:
            index = int(spec[4:])
        except ValueError:
            raise CameraError(f"usb:N needs a webcam index number, not \"{spec[4:]}\".") from None
        return UsbSource(index, **options)
    if spec.startswith("replay:"):
        from .replay import ReplaySource

        return ReplaySource(spec[7:], **options)
    raise CameraError(f"Unknown camera \"{spec}\": use {SPEC_HELP}.")
