"""Replay of an image folder or a video: order, looping, timestamps, bad files."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from device.camera import open_source
from device.camera.base import CameraError
from device.camera.replay import ReplaySource


def _folder(tmp_path: Path, n: int = 3) -> Path:
    d = tmp_path / "tray"
    d.mkdir()
    for i in range(n):
        cv2.imwrite(str(d / f"frame{i:03d}.png"), np.full((24, 32, 3), 10 * (i + 1), np.uint8))
    return d


def test_folder_in_order_looping_with_steady_timestamps(tmp_path: Path) -> None:
    src = ReplaySource(_folder(tmp_path), fps=5, realtime=False)
    frames = [src.read() for _ in range(7)]
    assert [int(f.image[0, 0, 0]) for f in frames] == [10, 20, 30, 10, 20, 30, 10]
    gaps = {round(b.t - a.t, 6) for a, b in zip(frames, frames[1:], strict=False)}
    assert gaps == {0.2}


def test_no_loop_ends_with_a_clear_error(tmp_path: Path) -> None:
    src = ReplaySource(_folder(tmp_path, 2), loop=False, realtime=False)
    src.read(), src.read()
    with pytest.raises(CameraError, match="finished"):
        src.read()


def test_unreadable_image_is_skipped(tmp_path: Path, caplog) -> None:
    d = _folder(tmp_path, 2)
    (d / "frame000b.jpg").write_bytes(b"not a jpeg")
    src = ReplaySource(d, realtime=False)
    assert [int(src.read().image[0, 0, 0]) for _ in range(3)] == [10, 20, 10]
    assert "frame000b.jpg" in caplog.text


def test_realtime_waits_between_frames(tmp_path: Path) -> None:
    now = [100.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(round(s, 6))
        now[0] += s

    src = ReplaySource(_folder(tmp_path), fps=10, clock=lambda: now[0], sleep=sleep)
    ts = [src.read().t for _ in range(4)]
    assert slept == [0.1, 0.1, 0.1]
    assert [round(t - ts[0], 6) for t in ts] == [0.0, 0.1, 0.2, 0.3]


def test_video_file(tmp_path: Path) -> None:
    path = tmp_path / "throw.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(4):
        writer.write(np.full((48, 64, 3), 50 * i, np.uint8))
    writer.release()
    src = open_source(f"replay:{path}", fps=10, realtime=False)
    levels = [round(float(src.read().image.mean()) / 50) for _ in range(6)]
    assert levels == [0, 1, 2, 3, 0, 1]  # loops
    src.close()


def test_bad_paths(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="no such file"):
        ReplaySource(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CameraError, match="holds no images"):
        ReplaySource(tmp_path / "empty")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(CameraError, match="neither an image nor a video"):
        ReplaySource(tmp_path / "notes.txt")
