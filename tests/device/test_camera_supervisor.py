"""Unplug and replug: the supervised camera reports its status, backs off, reconnects, never crashes."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from device.camera.base import CameraError, Frame
from device.camera.supervisor import SupervisedSource, detect_auto, on_raspberry_pi


class Cable:
    """The fake camera's USB cable: the test plugs and unplugs it."""

    def __init__(self, plugged: bool = True) -> None:
        self.plugged = plugged
        self.opened = 0
        self.closed = 0
        self.broken_driver = False  # read raises something that is not a CameraError


class FakeCamera:
    """A FrameSource that works while its cable is plugged (a fresh one per open, like a device node)."""

    name = "fake"

    def __init__(self, cable: Cable, clock) -> None:
        if not cable.plugged:
            raise CameraError("No such device.")
        cable.opened += 1
        self.cable = cable
        self.clock = clock
        self.n = 0
        self.dead = False

    def read(self) -> Frame:
        if self.cable.broken_driver:
            raise RuntimeError("driver segfault-ish state")
        if not self.cable.plugged or self.dead:
            self.dead = True  # an unplugged device node never comes back, even when replugged
            raise CameraError("Read failed (unplugged?).")
        self.n += 1
        return Frame(np.full((8, 8, 3), self.n, np.uint8), self.clock())

    def close(self) -> None:
        self.cable.closed += 1


class Clock:
    def __init__(self) -> None:
        self.t = 50.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.slept.append(round(s, 3))
        self.t += s


def supervised(cable: Cable, clock: Clock, **kw) -> SupervisedSource:
    return SupervisedSource(lambda: FakeCamera(cable, clock), name="usb:0", clock=clock, sleep=clock.sleep, **kw)


def test_unplug_and_replug_mid_game() -> None:
    cable, clock = Cable(), Clock()
    cam = supervised(cable, clock)
    assert cam.status()["status"] == "ok"
    assert cam.read().image[0, 0, 0] == 1

    cable.plugged = False
    with pytest.raises(CameraError, match="lost"):
        cam.read()
    st = cam.status()
    assert st["status"] == "reconnecting" and "by hand" in st["message"] and st["source"] == "usb:0"
    for _ in range(4):  # still unplugged: each attempt fails promptly, waits grow
        with pytest.raises(CameraError, match="not available"):
            cam.read()
    assert clock.slept == [0.5, 0.5, 1.0, 2.0]

    cable.plugged = True
    frame = cam.read()
    assert frame.image[0, 0, 0] == 1  # a freshly opened camera
    assert cam.status()["status"] == "ok" and cam.reconnects == 1
    assert cable.opened == 2 and cable.closed == 1  # the dead one was released


def test_absent_at_start_then_plugged_in() -> None:
    cable, clock = Cable(plugged=False), Clock()
    cam = supervised(cable, clock, max_backoff_s=4.0)  # must not raise: the box starts anyway
    assert cam.status()["status"] == "reconnecting"
    statuses = []
    for _ in range(5):
        with pytest.raises(CameraError):
            cam.read()
        statuses.append(cam.status()["status"])
    assert clock.slept == [0.5, 1.0, 2.0, 4.0, 4.0]  # capped
    assert statuses[-1] == "error" and "Trying again in 4 s" in cam.status()["message"]
    cable.plugged = True
    assert cam.read() is not None and cam.status()["status"] == "ok"


def test_driver_bug_is_a_camera_error_not_a_crash() -> None:
    cable, clock = Cable(), Clock()
    cam = supervised(cable, clock)
    cable.broken_driver = True
    with pytest.raises(CameraError, match="driver segfault"):
        cam.read()
    cable.broken_driver = False
    assert cam.read() is not None

    def factory():
        raise OSError("permission denied on /dev/video0")

    cam = SupervisedSource(factory, name="usb:0", clock=clock, sleep=clock.sleep)
    with pytest.raises(CameraError, match="permission denied"):
        cam.read()


def test_close_interrupts_a_backoff_wait() -> None:
    cable = Cable(plugged=False)
    cam = SupervisedSource(lambda: FakeCamera(cable, time.monotonic), name="usb:0", initial_backoff_s=30.0)
    errors: list[str] = []

    def reader() -> None:
        for _ in range(3):
            try:
                cam.read()
            except CameraError as exc:
                errors.append(str(exc))

    t = threading.Thread(target=reader)
    t.start()
    time.sleep(0.05)  # let it enter the 30 s wait (not a timing assert: any moment works)
    cam.close()
    t.join(timeout=10)
    assert not t.is_alive()
    assert "closed" in errors[-1]


def test_detect_auto(tmp_path: Path) -> None:
    def node(n: int, name: str, index: str = "0") -> None:
        d = tmp_path / f"video{n}"
        d.mkdir()
        (d / "name").write_text(name + "\n")
        (d / "index").write_text(index + "\n")

    node(10, "bcm2835-codec-decode")
    node(19, "bcm2835-isp")
    node(2, "HD Pro Webcam C920")
    node(3, "HD Pro Webcam C920", index="1")  # the webcam's metadata node
    node(4, "USB2.0 Camera")
    assert detect_auto(picamera=lambda: True, usb=lambda i: True, sys_root=tmp_path) == "picamera2"
    probed = []
    assert detect_auto(picamera=lambda: False, usb=lambda i: probed.append(i) or i == 4,
                       sys_root=tmp_path) == "usb:4"
    assert probed == [2, 4]
    assert detect_auto(picamera=lambda: False, usb=lambda i: False, sys_root=tmp_path, on_pi=False) == "demo"
    assert detect_auto(picamera=lambda: False, sys_root=tmp_path / "none", on_pi=False) == "demo"
    # a Pi whose camera is loose waits for it (camera error, dice by hand), never plays the demo tray
    assert detect_auto(picamera=lambda: False, usb=lambda i: False, sys_root=tmp_path, on_pi=True) == "picamera2"


def test_on_raspberry_pi(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\x00")
    assert on_raspberry_pi(model)
    model.write_bytes(b"QEMU Virtual Machine\x00")
    assert not on_raspberry_pi(model)
    assert not on_raspberry_pi(tmp_path / "missing")


def test_detect_auto_on_this_machine_falls_back() -> None:
    # no picamera2 module and (in CI) no webcam, not a Pi: auto must still give something that opens
    spec = detect_auto()
    assert spec == "demo" or spec.startswith("usb:")


def test_a_hung_driver_becomes_a_camera_error_and_a_reconnect() -> None:
    """A read stuck in a driver must not freeze the camera loop with the page still saying "ok"."""
    release = threading.Event()
    opened: list[str] = []

    class HangingCamera:
        name = "hang"

        def __init__(self) -> None:
            self.first = not opened
            opened.append("x")
            self.n = 0

        def read(self) -> Frame:
            self.n += 1
            if self.first and self.n == 3:
                release.wait(30)  # the driver hangs on the third frame
            return Frame(np.zeros((4, 4, 3), np.uint8), time.monotonic())

        def close(self) -> None:
            release.set()

    cam = SupervisedSource(HangingCamera, name="usb:0", read_timeout_s=2.0, initial_backoff_s=0.01)
    try:
        cam.read(), cam.read()
        with pytest.raises(CameraError, match="stopped answering"):
            cam.read()
        assert cam.status()["status"] == "reconnecting"
        assert cam.read() is not None  # a fresh camera
        assert cam.status()["status"] == "ok" and len(opened) == 2
    finally:
        release.set()
        cam.close()
