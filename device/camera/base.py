"""The one small interface every camera source offers: frames with monotonic timestamps.

Everything downstream (the tray watcher, the table) works from `Frame.t`, never the wall clock, so a
replayed video or the demo tray behave exactly like a live camera.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np


class CameraError(Exception):
    """The camera could not deliver a frame (unplugged, busy, unreadable file...). The message says which."""


@dataclass(frozen=True)
class Frame:
    """One camera frame: BGR image, monotonic capture time in seconds, optional small grey frame."""

    image: np.ndarray
    t: float
    lores: np.ndarray | None = None


@runtime_checkable
class FrameSource(Protocol):
    """A camera. `read` blocks until the next frame; `close` releases the device."""

    name: str

    def read(self) -> Frame:
        """The next frame, or CameraError."""

    def close(self) -> None:
        """Release the device; reading after close raises CameraError."""


def frames(source: FrameSource) -> Iterator[Frame]:
    """Iterate a source's frames until it raises CameraError or is closed."""
    while True:
        yield source.read()
