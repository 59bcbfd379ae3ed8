"""Keep a camera going through unplugs and crashes: reopen it with backoff, report its status.

Why a wrapper and not retries inside each source: every source fails differently (a webcam's read returns
False, picamera2 times out, a replayed file ends) but the cure is the same: close it, wait, open a new
one from the same spec. `SupervisedSource` never lets a camera problem escape as anything but a prompt
CameraError with a message a player understands; the table then shows the status, lights the error
pattern and offers dice by hand while the next attempt waits its turn. Waits grow 0.5 s, 1 s, 2 s ... up to
`max_backoff_s`, so an absent camera costs almost nothing, and a replugged one is back within seconds.
Reads run in a helper thread with a timeout (`read_timeout_s`): a driver that hangs instead of failing is
treated as unplugged too, so the page never shows "ok" for a camera that stopped sending frames.

`detect_auto` (for `--camera auto`) lives here too: picamera2 on a Pi with a camera module, else the first
USB webcam that delivers a frame, else the demo tray.
"""

from __future__ import annotations

import logging
import queue
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .base import CameraError, Frame, FrameSource
from .picamera2_source import camera_present
from .usb import UsbSource

log = logging.getLogger("dicesight.camera")

# Video devices of the Pi's own silicon (codecs, ISP, CSI receivers): never a webcam.
_NOT_WEBCAMS = re.compile(r"bcm2835|rpivid|pispbe|rp1-cfe|unicam|hevc|codec|isp", re.IGNORECASE)


class SupervisedSource:
    """A FrameSource that (re)opens `factory()`'s source whenever it fails (see module doc)."""

    def __init__(self, factory: Callable[[], FrameSource], name: str = "camera", *,
                 initial_backoff_s: float = 0.5, max_backoff_s: float = 30.0,
                 read_timeout_s: float | None = 10.0,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Any] | None = None) -> None:
        self.name = name
        self._read_timeout = read_timeout_s
        self._factory = factory
        self._initial = initial_backoff_s
        self._max = max_backoff_s
        self._clock = clock
        self._closed = threading.Event()
        self._sleep = sleep or self._closed.wait  # close() interrupts a wait
        self._lock = threading.Lock()  # guards the status fields; read() runs in one thread
        self._source: FrameSource | None = None
        self._reader: _Reader | None = None
        self._backoff = initial_backoff_s
        self._next_attempt = clock()
        self._status = "reconnecting"
        self._message = "Starting the camera."
        self._failures = 0  # consecutive failed opens
        self.reconnects = 0  # successful reopens after a failure
        self._ever_opened = False
        self._open()

    # -- the FrameSource interface --------------------------------------------------------------
    def read(self) -> Frame:
        if self._closed.is_set():
            raise CameraError(f"Camera {self.name} is closed.")
        if self._source is None:
            wait = self._next_attempt - self._clock()
            if wait > 0:
                self._sleep(wait)
            if self._closed.is_set():
                raise CameraError(f"Camera {self.name} is closed.")
            if not self._open():
                raise CameraError(self._message)
        source = self._source
        assert source is not None
        try:
            if self._reader is None:
                return source.read()
            return self._reader.read(self._read_timeout or 0.0)
        except Exception as exc:  # CameraError, a hang, or any bug in a driver: all mean "reopen it"
            self._lost(source, exc)
            raise CameraError(self._message) from exc

    def frames(self):
        while True:
            yield self.read()

    def status(self) -> dict[str, Any]:
        """{"status": "ok"|"reconnecting"|"error", "message": ..., "source": name, ...} for the page."""
        with self._lock:
            return {"status": self._status, "message": self._message, "source": self.name,
                    "failures": self._failures, "reconnects": self.reconnects}

    def close(self) -> None:
        self._closed.set()
        source, self._source = self._source, None
        self._reader = None
        if source is not None:
            _close_quietly(source)
        with self._lock:
            self._status, self._message = "error", "The camera is closed."

    # -- internals ------------------------------------------------------------------------------
    def _open(self) -> bool:
        try:
            source = self._factory()
        except Exception as exc:
            self._failed(f"Camera {self.name} is not available: {_reason(exc)}")
            return False
        if self._closed.is_set():
            _close_quietly(source)
            return False
        self._source = source
        self._reader = _Reader(source, self.name) if self._read_timeout else None
        with self._lock:
            if self._ever_opened:
                self.reconnects += 1
                log.warning("camera %s: reconnected", self.name)
            self._ever_opened = True
            self._status, self._message = "ok", ""
            self._failures = 0
            self._backoff = self._initial
        return True

    def _lost(self, source: FrameSource, exc: BaseException) -> None:
        self._source = None
        hung = isinstance(exc, _Stalled)
        self._reader = None
        if hung:  # its read is still blocked: closing may block too, so do it aside
            threading.Thread(target=_close_quietly, args=(source,), name="camera-close", daemon=True).start()
        else:
            _close_quietly(source)
        with self._lock:
            self._backoff = self._initial
            self._next_attempt = self._clock() + self._backoff
            self._status = "reconnecting"
            self._message = f"Camera {self.name} lost: {_reason(exc)} Reconnecting; enter dice by hand meanwhile."
        log.warning("camera %s: %s", self.name, self._message)

    def _failed(self, message: str) -> None:
        with self._lock:
            self._failures += 1
            wait = self._backoff
            self._next_attempt = self._clock() + wait
            self._backoff = min(self._backoff * 2, self._max)
            # Still failing at the longest wait: it is not a hiccup, say so plainly.
            self._status = "error" if wait >= self._max else "reconnecting"
            self._message = f"{message} Trying again in {wait:.0f} s; enter dice by hand meanwhile." \
                if wait >= 1 else f"{message} Trying again; enter dice by hand meanwhile."
        if self._failures in (1, 2) or self._failures % 20 == 0:
            log.warning("camera %s: %s", self.name, self._message)


class _Stalled(CameraError):
    """The camera's read did not return in time (a driver hang, a loose ribbon)."""


class _Reader:
    """Runs one source's blocking reads in a daemon thread so a hung driver cannot hang the caller.

    Why: the table learns about camera trouble only when `read` returns or raises; a read stuck in a
    driver would leave the page saying "ok" with no frames. The thread is abandoned if it hangs.
    """

    def __init__(self, source: FrameSource, name: str) -> None:
        self._source = source
        self._want = threading.Semaphore(0)
        self._results: queue.Queue[tuple[Frame | None, BaseException | None]] = queue.Queue()
        self._busy = False
        threading.Thread(target=self._run, name=f"camera-read {name}", daemon=True).start()

    def _run(self) -> None:
        while True:
            self._want.acquire()
            try:
                self._results.put((self._source.read(), None))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                self._results.put((None, exc))
                return

    def read(self, timeout: float) -> Frame:
        if not self._busy:
            self._want.release()
            self._busy = True
        try:
            frame, exc = self._results.get(timeout=timeout)
        except queue.Empty:
            raise _Stalled(f"No frame for {timeout:.0f} s (the camera stopped answering).") from None
        self._busy = False
        if exc is not None:
            raise exc
        assert frame is not None
        return frame


def _reason(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text if text.endswith((".", "!", "?")) else text + "."


def _close_quietly(source: Any) -> None:
    try:
        source.close()
    except Exception:
        log.debug("camera: close failed", exc_info=True)


# -- --camera auto ----------------------------------------------------------------------------------
def detect_auto(*, picamera: Callable[[], bool] | None = None,
                usb: Callable[[int], bool] | None = None,
                sys_root: Path = Path("/sys/class/video4linux"),
                on_pi: bool | None = None) -> str:
    """The spec `--camera auto` means on this machine: "picamera2", "usb:N" or "demo".

    On a Raspberry Pi with no camera found it answers "picamera2", never the demo: a box whose camera
    is loose must show a camera error and take dice by hand, not record the demo tray's made-up rolls
    into a real game. (The supervisor asks again at each reconnect, so a webcam plugged in later is found.)
    """
    if picamera is None:
        picamera = camera_present
    if picamera():
        return "picamera2"
    probe = usb or _usb_delivers
    for index in _webcam_candidates(sys_root):
        if probe(index):
            return f"usb:{index}"
    if on_raspberry_pi() if on_pi is None else on_pi:
        log.warning("camera auto: no camera module or webcam found on this Pi; waiting for one")
        return "picamera2"
    return "demo"


def on_raspberry_pi(model_path: Path = Path("/proc/device-tree/model")) -> bool:
    """True on a Raspberry Pi (its device tree names the board)."""
    try:
        return "raspberry pi" in model_path.read_bytes().decode("ascii", "replace").lower()
    except OSError:
        return False


def _webcam_candidates(sys_root: Path) -> list[int]:
    """Indexes of /dev/videoN that may be webcams: not the Pi's own codec/ISP nodes, first node only."""
    found = []
    try:
        entries = list(sys_root.iterdir())
    except OSError:
        return []
    for entry in entries:
        m = re.fullmatch(r"video(\d+)", entry.name)
        if not m:
            continue
        name = _read(entry / "name")
        if _NOT_WEBCAMS.search(name):
            continue
        if _read(entry / "index") not in ("", "0"):  # a webcam's metadata node has index 1
            continue
        found.append(int(m.group(1)))
    return sorted(found)


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def _usb_delivers(index: int) -> bool:
    try:
        source = UsbSource(index)
    except CameraError:
        return False
    try:
        source.read()
        return True
    except CameraError:
        return False
    finally:
        source.close()
