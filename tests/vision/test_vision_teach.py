"""`dicesight teach SET`: asks for each face, stores templates in the state directory, the reader uses them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from vision_specs import SYMBOLS

import device.camera
import device.dice_sets
from device import teach_cmd
from device.camera import CameraError
from device.dice_sets import spec
from vision.dicesets import get_set
from vision.reader import read_dice
from vision.render import DieSpec, render_tray


@dataclass
class _Frame:
    image: np.ndarray
    t: float


class FakeCamera:
    """A camera looking at one die whose top face is whatever the test put on the tray."""

    def __init__(self, dice_set: str, mount: str):
        self.dice_set, self.mount = dice_set, mount
        self.face = 1
        self.t = 0.0
        self.closed = False

    def read(self):  # device.camera.base.FrameSource
        if self.closed:
            raise CameraError("closed")
        self.t += 1 / 15
        d = DieSpec(320, 240, 90, 12.0, self.face, spec(self.dice_set), "red")
        return _Frame(render_tray([d], mount=self.mount, seed=int(self.t * 15)), self.t)

    def close(self):
        self.closed = True


@pytest.mark.parametrize("mount", ["over", "under"])
def test_teach_then_read_with_taught_faces(tmp_path, monkeypatch, mount):
    # teach resolves a set id through the games' descriptions; here a game that describes a symbol set
    monkeypatch.setattr(device.dice_sets, "_all_specs", lambda: {SYMBOLS["id"]: SYMBOLS})
    dice_set = SYMBOLS["id"]
    cam = FakeCamera(dice_set, mount)
    monkeypatch.setattr(device.camera, "open_source", lambda spec, **kw: cam)
    ds = get_set(spec(dice_set))
    asked = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        cam.face = int(prompt.split()[1].split("/")[0])  # the player puts the asked face on top
        return ""

    said = []
    code = teach_cmd.run(dice_set, "demo", mount, tmp_path, ask=ask, say=said.append)
    assert code == 0, said
    assert len(asked) >= ds.n, said  # a retry now and then is fine
    assert all(any(f'"{f.name}"' in q for q in asked) for f in ds.faces)
    assert cam.closed
    stored = sorted(teach_cmd.taught_dir(tmp_path, dice_set, mount).glob("face-*.png"))
    assert len(stored) == ds.n * teach_cmd.SHOTS
    taught = teach_cmd.load_taught(tmp_path, dice_set, mount)
    assert sorted(taught) == list(range(1, ds.n + 1))
    # the reader now uses the taught faces
    for top in (4, 5, 6):
        frame = render_tray([DieSpec(300, 250, 88, 40.0, top, ds, "red")], mount=mount, seed=99)
        readings = read_dice(frame, ds, mount, taught=taught)
        r = min(readings, key=lambda r: (r.center[0] - 300) ** 2 + (r.center[1] - 250) ** 2)
        assert r.face == ds.face(top).name and r.certain


def test_quit_changes_nothing(tmp_path, monkeypatch):
    cam = FakeCamera("d6", "over")
    monkeypatch.setattr(device.camera, "open_source", lambda spec, **kw: cam)
    code = teach_cmd.run("d6", "demo", "over", tmp_path, ask=lambda q: "q", say=lambda s: None)
    assert code == 1
    assert teach_cmd.load_taught(tmp_path, "d6", "over") is None


def test_camera_that_cannot_open_is_a_clear_error(tmp_path, monkeypatch, capsys):
    def boom(spec, **kw):
        raise RuntimeError("no camera here")

    monkeypatch.setattr(device.camera, "open_source", boom)
    assert teach_cmd.run("d6", "usb:9", "over", tmp_path, ask=lambda q: "", say=lambda s: None) == 1
    assert "no camera here" in capsys.readouterr().err


def test_skipping_every_face_or_quitting_keeps_the_set_taught_before(tmp_path, monkeypatch):
    """A set taught once stays as it was when a later teaching skips every face or is quit half way."""
    cams: list[FakeCamera] = []

    def new_camera(spec, **kw) -> FakeCamera:
        cams.append(FakeCamera("d6", "over"))
        return cams[-1]

    monkeypatch.setattr(device.camera, "open_source", new_camera)
    answers = iter(["", "q"])   # face 1 taken, then the player quits

    def one_face(prompt: str) -> str:
        cams[-1].face = int(prompt.split()[1].split("/")[0])
        return "" if "Face 1/" in prompt else "s"

    assert teach_cmd.run("d6", "demo", "over", tmp_path, ask=one_face, say=lambda s: None) == 0
    assert sorted(teach_cmd.load_taught(tmp_path, "d6", "over")) == [1]
    said: list[str] = []
    assert teach_cmd.run("d6", "demo", "over", tmp_path, ask=lambda q: "s", say=said.append) == 1
    assert "No face taught; nothing was changed." in said
    assert teach_cmd.run("d6", "demo", "over", tmp_path, ask=lambda q: next(answers), say=said.append) == 1
    assert "Stopped; nothing was changed." in said
    assert sorted(teach_cmd.load_taught(tmp_path, "d6", "over")) == [1]
