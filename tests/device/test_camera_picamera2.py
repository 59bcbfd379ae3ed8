"""The Pi camera source against a stand-in `picamera2` module (the real one exists only on a Pi)."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from device.camera import open_source
from device.camera.base import CameraError
from device.camera.picamera2_source import Picamera2Source, camera_present


class FakeRequest:
    def __init__(self, cam: FakePicamera2) -> None:
        self.cam = cam
        cam.frame += 1

    def make_array(self, stream: str) -> np.ndarray:
        w, h = self.cam.config[stream]["size"]
        if stream == "main":  # RGB888 = B, G, R bytes (plus padding columns are not modelled)
            img = np.zeros((h, w, 3), np.uint8)
            img[..., 0] = 200  # blue
            return img
        yuv = np.full((h * 3 // 2, w), 99, np.uint8)  # YUV420: Y plane then U and V
        yuv[:h] = self.cam.frame
        return yuv

    def get_metadata(self) -> dict:
        return {"SensorTimestamp": 5_000_000_000 + self.cam.frame * 66_666_667}

    def release(self) -> None:
        self.cam.released += 1


class FakePicamera2:
    cameras: list[dict] = [{"Model": "imx708"}]
    instances: list[FakePicamera2] = []

    def __init__(self, camera_num: int = 0) -> None:
        self.frame = 0
        self.released = 0
        self.started = False
        self.closed = False
        self.stall = False
        self.config: dict = {}
        FakePicamera2.instances.append(self)

    @classmethod
    def global_camera_info(cls) -> list[dict]:
        return cls.cameras

    def create_video_configuration(self, main, lores, **kw) -> dict:
        return {"main": main, "lores": lores, **kw}

    def configure(self, config: dict) -> None:
        self.config = config

    def start(self) -> None:
        self.started = True

    def capture_request(self, wait=None):
        return "job"

    def wait(self, job, timeout=None):
        if self.stall:
            raise TimeoutError()
        return FakeRequest(self)

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def fake_picamera2(monkeypatch):
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    FakePicamera2.cameras = [{"Model": "imx708"}]
    FakePicamera2.instances = []
    monkeypatch.setitem(sys.modules, "picamera2", module)
    return FakePicamera2


def test_frames_bgr_lores_y_plane_sensor_time(fake_picamera2) -> None:
    src = open_source("picamera2", size=(640, 480), lores_size=(160, 120))
    cam = fake_picamera2.instances[0]
    assert cam.started and cam.config["main"]["format"] == "RGB888" and cam.config["lores"]["format"] == "YUV420"
    a, b = src.read(), src.read()
    assert a.image.shape == (480, 640, 3) and a.image[0, 0].tolist() == [200, 0, 0]
    assert a.lores.shape == (120, 160) and int(a.lores[0, 0]) == 1 and int(b.lores[0, 0]) == 2
    assert b.t - a.t == pytest.approx(0.066666667)
    assert a.t == pytest.approx(5.066666667)
    assert cam.released == 2  # every request goes back to the camera
    src.close()
    assert cam.closed
    with pytest.raises(CameraError, match="closed"):
        src.read()


def test_the_configured_size_is_the_main_stream_and_none_keeps_the_cameras_own(fake_picamera2) -> None:
    open_source("picamera2", size=(960, 720)).close()
    open_source("picamera2", size=None).close()
    assert [cam.config["main"]["size"] for cam in fake_picamera2.instances] == [(960, 720), (1296, 972)]


def test_stalled_camera_times_out_as_camera_error(fake_picamera2) -> None:
    src = Picamera2Source()
    fake_picamera2.instances[0].stall = True
    with pytest.raises(CameraError, match="No frame"):
        src.read()


def test_no_camera_module(fake_picamera2) -> None:
    fake_picamera2.cameras = []
    assert camera_present() is False
    with pytest.raises(CameraError, match="No Raspberry Pi camera module"):
        Picamera2Source()


def test_not_a_pi(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails as on a PC
    assert camera_present() is False
    with pytest.raises(CameraError, match="apt install python3-picamera2"):
        Picamera2Source()
