"""Camera unplugged mid-game, through the table and the panel: keeps going, shows it, reconnects."""

from __future__ import annotations

import time

import numpy as np
from gpiozero.pins.mock import MockFactory

from device.camera.base import CameraError, Frame
from device.camera.supervisor import SupervisedSource
from device.config import GpioConfig
from device.panel import Panel
from device.store import Store
from device.table import Table


class Cable:
    plugged = True


class FakeCamera:
    name = "fake"

    def __init__(self, cable: Cable) -> None:
        if not cable.plugged:
            raise CameraError("No such device.")
        self.cable = cable

    def read(self) -> Frame:
        time.sleep(0.01)  # a camera paces its frames
        if not self.cable.plugged:
            raise CameraError("Read failed (unplugged?).")
        return Frame(np.zeros((120, 160, 3), np.uint8), time.monotonic())

    def close(self) -> None:
        pass


def wait_for(predicate, what: str, timeout: float = 20.0) -> None:
    """Poll until `predicate()`; the deadline only guards against a hang, it asserts no speed."""
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, f"gave up waiting for {what}"
        time.sleep(0.02)


def test_unplug_mid_game_keeps_the_game_and_reconnects(tmp_path) -> None:
    cable = Cable()
    camera = SupervisedSource(lambda: FakeCamera(cable), name="usb:0", initial_backoff_s=0.05,
                              max_backoff_s=0.2)
    panel = Panel(GpioConfig(), MockFactory())
    table = Table(Store(tmp_path), camera=camera, panel=panel)
    try:
        table.start()
        table.submit({"type": "roll", "dice": [3, 4], "source": "manual"})
        wait_for(lambda: table.snapshot()["camera"]["status"] == "ok", "the camera to be ok")

        cable.plugged = False
        wait_for(lambda: table.snapshot()["camera"]["status"] in ("error", "reconnecting"), "camera error")
        snap = table.snapshot()
        assert "by hand" in snap["camera"]["message"]
        assert panel.state()["leds"]["status"]["pattern"] == "camera_error"
        # dice by hand while the camera is away
        snap = table.submit({"type": "roll", "dice": [6, 6], "source": "manual"})
        assert snap["seq"] == 2

        cable.plugged = True
        wait_for(lambda: table.snapshot()["camera"]["status"] == "ok", "the camera to come back")
        wait_for(lambda: panel.state()["leds"]["status"]["pattern"] != "camera_error", "the error LED to clear")
        assert camera.reconnects >= 1
        entries = table.store.load_game(table.game_id).entries
        assert [e.action["dice"] for e in entries] == [[3, 4], [6, 6]]
    finally:
        table.close()
