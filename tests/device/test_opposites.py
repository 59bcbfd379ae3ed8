"""Opposite faces learnt from teaching (issue 31 #6): the face seen on the glass against the top face a player
confirmed pairs two opposite faces; once every face is paired the box reads the set with that map, and a
contradiction is reported and never used."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import pytest

from device import cli, dice_sets
from device.dice_sets import spec
from device.opposites import Opposites, learn
from vision.dicesets import get_set
from vision.render import DieSpec, render_tray

SAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "kingoftokyo-own-dice.json"
PLACES = [(130, 150), (320, 150), (510, 150), (130, 340), (320, 340), (510, 340)]


@pytest.fixture(autouse=True)
def _no_files():
    """`teach FILE.json` makes the file's set the process's own: each test starts and ends without one."""
    dice_sets.use_files([])
    yield
    dice_sets.use_files([])


def own() -> dict:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


def labelled_photos(root: Path, dice_set: dict, throws: int, tops=None) -> tuple[Path, Path]:
    """Under-tray renders of King of Tokyo dice laid out as `dice_set` says, labelled with their top faces as
    a player would (numbers, or the face's name)."""
    photos, labels = root / "photos", root / "labels"
    photos.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    ds = get_set(dice_set)
    for t in range(throws):
        faces = tops or [1 + (t + i) % 6 for i in range(6)]
        dice = [DieSpec(x, y, 84, 9.0 * t + 13 * i, f, dice_set, "black")
                for i, ((x, y), f) in enumerate(zip(PLACES, faces, strict=False))]
        cv2.imwrite(str(photos / f"throw{t}.png"), render_tray(dice, mount="under", seed=t))
        (labels / f"throw{t}.json").write_text(json.dumps({"dice": [
            {"value": ds.face(d.value).value or ds.face(d.value).name, "cx": d.x, "cy": d.y, "w": 84, "h": 84}
            for d in dice]}))
    return photos, labels


def teach(capsys, photos: Path, labels: Path, state: Path, set_name: str = "kingoftokyo") -> tuple[int, dict]:
    code = cli.main(["teach", set_name, "--photos", str(photos), "--labels", str(labels), "--state-dir", str(state),
                     "--mount", "under", "--json"])
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    return code, lines[-1]


def test_pairs_make_a_pairing_and_the_last_two_faces_pair_themselves() -> None:
    got = learn(6, {(1, 6): 2, (6, 1): 1, (2, 4): 1})
    assert got.opposite == {1: 6, 6: 1, 2: 4, 4: 2, 3: 5, 5: 3} and got.complete
    partial = learn(6, {(1, 6): 1})
    assert partial.unpaired == [2, 3, 4, 5] and not partial.complete


def test_a_contradiction_is_reported_and_leaves_the_map_unused() -> None:
    got = learn(6, {(1, 6): 3, (1, 5): 1, (2, 4): 1})
    assert not got.complete
    assert any("face 1 was seen opposite more than one face: 5 (1x), 6 (3x)" in c for c in got.contradictions)
    assert 1 not in got.opposite and got.opposite[2] == 4
    itself = learn(6, {(3, 3): 1, (1, 6): 1, (2, 4): 1})
    assert not itself.complete and any("face 3 was seen on the glass with itself" in c for c in itself.contradictions)


def test_the_store_is_written_whole_and_read_back(tmp_path) -> None:
    store = Opposites(tmp_path)
    assert store.record("kingoftokyo", [(1, 6), (1, 6), (2, 4)]) == 3
    assert Opposites(tmp_path).seen("kingoftokyo") == {(1, 6): 2, (2, 4): 1}
    folder = tmp_path / "dice" / "kingoftokyo"
    assert sorted(p.name for p in folder.iterdir()) == ["opposite.json"]  # no temporary file left behind
    (folder / "opposite.json").write_text("{half a fi")
    assert Opposites(tmp_path).seen("kingoftokyo") == {}  # a damaged file starts again, it stops nothing


def test_teaching_learns_the_tables_opposites_and_read_uses_them(tmp_path, capsys) -> None:
    photos, labels = labelled_photos(tmp_path, own(), throws=2)
    state = tmp_path / "state"
    code, taught = teach(capsys, photos, labels, state)
    assert code == 0, taught
    report = taught["opposite"]
    assert report["complete"] and report["unpaired"] == [] and report["contradictions"] == []
    assert report["opposite"] == {k: v for k, v in sorted(own()["opposite"].items())}
    # a box that knows only the opposite map (no crops learnt, no faces taught) reads with it
    bare = tmp_path / "bare"
    (bare / "dice" / "kingoftokyo").mkdir(parents=True)
    shutil.copy(state / "dice" / "kingoftokyo" / "opposite.json", bare / "dice" / "kingoftokyo")
    tray = tmp_path / "tray.png"
    dice = [DieSpec(x, y, 84, 20.0 + 11 * i, i + 1, own(), "black") for i, (x, y) in enumerate(PLACES)]
    cv2.imwrite(str(tray), render_tray(dice, mount="under", seed=11))
    truth = [get_set(own()).face(d.value).name for d in dice]
    for folder, right in ((bare, True), (tmp_path / "new", False)):
        cli.main(["read", str(tray), "--dice", "kingoftokyo", "--state-dir", str(folder), "--json"])
        (out,) = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
        got = [next((d["face"] for d in out["dice"] if (d["center"][0] - x) ** 2 + (d["center"][1] - y) ** 2 < 1600),
                    None) for x, y in PLACES]
        hits = sum(g == t for g, t in zip(got, truth, strict=True))
        assert hits >= 5 if right else hits == 0, (folder, got, truth)


def test_faces_never_seen_are_named_and_a_contradiction_is_reported(tmp_path, capsys) -> None:
    # only "1" ever lies on top: four faces lack a pair (with two pairs seen, the last two would pair up)
    photos, labels = labelled_photos(tmp_path / "a", own(), throws=1, tops=[1, 1, 1])
    state = tmp_path / "state"
    code, taught = teach(capsys, photos, labels, state)
    assert code == 0
    assert taught["opposite"]["unpaired"] == [2, 3, 4, 5] and not taught["opposite"]["complete"]
    assert taught["opposite"]["opposite"] == {"1": 6, "6": 1}
    # then dice laid out as the game assumes (a different set of dice taught under the same name)
    photos, labels = labelled_photos(tmp_path / "b", spec("kingoftokyo"), throws=1)
    code, taught = teach(capsys, photos, labels, state)
    report = taught["opposite"]
    assert report["contradictions"] and not report["complete"]
    assert any("face 1 was seen opposite more than one face" in c for c in report["contradictions"])
    # a contradicted map is never used: the set is read as the game describes it
    assert Opposites(state).apply(spec("kingoftokyo")).opposite == get_set(spec("kingoftokyo")).opposite


def test_teaching_a_dice_set_file_files_it_under_the_files_id(tmp_path, capsys) -> None:
    photos, labels = labelled_photos(tmp_path, own(), throws=1)
    code, taught = teach(capsys, photos, labels, tmp_path / "state", set_name=str(SAMPLE))
    assert code == 0 and taught["set"] == "kingoftokyo" and taught["opposite"]["complete"]
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    code, out = teach(capsys, photos, labels, tmp_path / "state", set_name=str(bad))
    assert code == 2 and out["error"]["code"] == "bad_dice_file" and "one JSON object" in out["error"]["message"]
