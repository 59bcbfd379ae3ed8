"""A table's own dice on the box (issue 31 #6): `camera.dice_files` in the config makes the tray read a game's
set from the file, a bad file stops the start with one sentence, and throws confirmed on a phone teach the
box the dice's opposite faces, which the tray then reads with.

The camera is faked at its boundary only (rendered frames of a tray seen from below); the real tray service,
watcher, reader and table do the rest."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from device import cli, dice_sets
from device.box import BoxOptions, build
from device.camera.base import Frame
from device.config import ConfigError, load_config
from device.dice_file import load
from device.dice_sets import spec
from device.store import Store
from device.table import Table
from vision.dicesets import get_set
from vision.render import DieSpec, render_tray

SAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "kingoftokyo-own-dice.json"
OWN = json.loads(SAMPLE.read_text(encoding="utf-8"))
PLACES = [(110, 150), (320, 150), (530, 150), (110, 340), (320, 340), (530, 340)]
TOPS = [1, 2, 3, 4, 5, 6]


@pytest.fixture(autouse=True)
def _no_files():
    """The box's files are the process's: each test starts and ends without one."""
    dice_sets.use_files([])
    yield
    dice_sets.use_files([])


def frame(seed: int = 1, tops: list[int] | None = None) -> np.ndarray:
    """The table's King of Tokyo dice (laid out as the sample file says) from below, at PLACES."""
    dice = [DieSpec(x, y, 80, 14.0 * i + 3 * seed, f, OWN, "black")
            for i, ((x, y), f) in enumerate(zip(PLACES, tops or [], strict=False))]
    return render_tray(dice, mount="under", seed=seed, room_seed=3)


class Throws:
    """A camera: an empty tray, then each throw lying still until the test throws the next (`show`)."""

    name = "test-throws"

    def __init__(self) -> None:
        self.t = 0.0
        self.image = frame()

    def show(self, image: np.ndarray) -> None:
        self.image = image

    def read(self) -> Frame:
        self.t += 0.1
        return Frame(image=self.image, t=self.t)

    def close(self) -> None:
        pass


def settle(table: Table, image: np.ndarray) -> dict:
    """Put a throw on the tray and step the tray service until it is read; the tray view."""
    table.camera.show(frame())
    for _ in range(12):
        table.tray.step()
    table.camera.show(image)
    for _ in range(30):
        if table.tray.step().state == "settled":
            break
    return table.snapshot()["tray"]


def faces_in_place(tray: dict) -> list[str | None]:
    out = []
    for x, y in PLACES:
        near = [d for d in tray["dice"] if (d["center"][0] - x) ** 2 + (d["center"][1] - y) ** 2 < 40 ** 2]
        out.append(near[0]["face"] if near else None)
    return out


def read_by(state: Path, image: np.ndarray) -> list[str | None]:
    """What a box on `state` reading King of Tokyo dice says lies at each place."""
    table = Table(Store(state), camera=Throws(), dice_set="kingoftokyo", settle_s=0.2)
    try:
        return faces_in_place(settle(table, image))
    finally:
        table.close()


TRUTH = [get_set(OWN).face(f).name for f in TOPS]


def hits(got: list[str | None]) -> int:
    return sum(g == t for g, t in zip(got, TRUTH, strict=True))


def test_a_configured_file_overrides_the_games_set_on_the_tray(tmp_path: Path) -> None:
    image = frame(seed=5, tops=TOPS)
    assert hits(read_by(tmp_path / "a", image)) == 0  # as the game describes its dice: every top wrong
    dice_sets.use_files([load(SAMPLE)])
    assert hits(read_by(tmp_path / "b", image)) >= 5
    assert dice_sets.spec("kingoftokyo")["opposite"] == OWN["opposite"]


def test_the_config_names_files_beside_it_and_the_box_uses_them(tmp_path: Path) -> None:
    shutil.copy(SAMPLE, tmp_path / "ours.json")
    conf = tmp_path / "config.toml"
    conf.write_text('[camera]\nsource = "demo"\ndice = "kingoftokyo"\ndice_files = ["ours.json"]\n')
    config = load_config(conf)
    assert config.camera.dice_files == (str(tmp_path / "ours.json"),)
    table, _app, _config = build(BoxOptions(config=conf, state_dir=tmp_path / "state", gpio="mock", port=0))
    try:
        assert dice_sets.dice_file("kingoftokyo") is not None
        assert get_set(spec("kingoftokyo")).opposite == {int(k): v for k, v in OWN["opposite"].items()}
    finally:
        table.close()


def test_a_wrong_dice_files_key_names_the_key(tmp_path: Path) -> None:
    conf = tmp_path / "config.toml"
    conf.write_text('[camera]\ndice_files = "ours.json"\n')
    with pytest.raises(ConfigError, match="camera.dice_files"):
        load_config(conf)


def test_a_bad_configured_file_stops_the_start_with_one_sentence(tmp_path: Path, capsys) -> None:
    (tmp_path / "ours.json").write_text('{"id": "kingoftokyo", "faces": [{"name": "1"}, {"name": "2"}], '
                                        '"opposite": {"1": 1, "2": 2}}')
    conf = tmp_path / "config.toml"
    conf.write_text('[camera]\nsource = "demo"\ndice_files = ["ours.json"]\n')
    code = cli.main(["run", "--config", str(conf), "--state-dir", str(tmp_path / "s"), "--gpio", "mock",
                     "--port", "0", "--json"])
    (out,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert code == 2 and out["error"]["code"] == "bad_config"
    assert out["error"]["message"] == (f"camera.dice_files: {tmp_path / 'ours.json'}: 'opposite' is not a pairing "
                                       "of the faces: face 1 (1) is opposite itself.")


def test_throws_confirmed_on_a_phone_teach_the_opposite_faces(tmp_path: Path) -> None:
    """Teaching through the phone: every throw waits for a confirmation; the box pairs the face it saw on
    the glass with the top face confirmed, and once every face is paired a box knowing only that map reads
    the table's dice right."""
    state = tmp_path / "state"
    table = Table(Store(state), camera=Throws(), dice_set="kingoftokyo", settle_s=0.2)
    try:
        table.tray.always_confirm = True
        tray = settle(table, frame(seed=2, tops=TOPS))
        # the phone sends which tray die each die of the roll is (a phantom the reader saw stays out of it)
        order = [min(range(len(tray["dice"])), key=lambda i: (tray["dice"][i]["center"][0] - x) ** 2 +
                     (tray["dice"][i]["center"][1] - y) ** 2) for x, y in PLACES]
        assert len(set(order)) == 6
        table.submit({"type": "roll", "dice": TOPS, "source": "manual", "tray": {"roll": tray["roll"], "dice": order}})
        report = table.learnt.opposites.report(get_set(spec("kingoftokyo")))
    finally:
        table.close()
    assert report["complete"] and report["opposite"] == dict(sorted(OWN["opposite"].items()))
    bare = tmp_path / "bare"  # the opposite map alone: no crop learnt, no face taught
    (bare / "dice" / "kingoftokyo").mkdir(parents=True)
    shutil.copy(state / "dice" / "kingoftokyo" / "opposite.json", bare / "dice" / "kingoftokyo")
    assert hits(read_by(bare, frame(seed=7, tops=TOPS))) >= 5


def test_teaching_a_file_on_the_phone_reads_the_files_set(tmp_path: Path, capsys) -> None:
    """`dicesight teach FILE.json` (the phone path) starts the box reading the file's set under its id; a bad
    file is one sentence and status 2 before anything starts."""
    table, _app, _config = build(BoxOptions(camera="demo", state_dir=tmp_path / "state", gpio="mock", port=0,
                                            teach="kingoftokyo", dice_files=(str(SAMPLE),)))
    try:
        assert table.current_dice_set() == "kingoftokyo"
        assert get_set(spec("kingoftokyo")).opposite == {int(k): v for k, v in OWN["opposite"].items()}
    finally:
        table.close()
    (tmp_path / "bad.json").write_text('{"id": "x", "faces": [{"name": "1"}, {"name": "2"}]}')
    code = cli.main(["teach", str(tmp_path / "bad.json"), "--state-dir", str(tmp_path / "s"), "--json"])
    (out,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert code == 2 and out["error"]["code"] == "bad_dice_file" and "'opposite' is missing" in out["error"]["message"]
