"""Dice-set files (issue 31 #6): `dicesight read --dice FILE.json` reads a table's own dice with the file's
opposite map and face pictures; every kind of bad file is one sentence and exit status 2."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import cv2
import pytest

from device import cli
from device.dice_sets import spec
from vision.dicesets import get_set
from vision.render import DieSpec, render_tray
from vision.teach import face_template, to_png_array

# The sample in docs/examples: King of Tokyo faces, "1" opposite "claw", "2" opposite "heart", "3" opposite
# "energy" (the game's assumed table has 1-energy, 2-claw, 3-heart: no pair in common)
SAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "kingoftokyo-own-dice.json"
POSITIONS = [(130, 150), (320, 150), (510, 150), (130, 340), (320, 340), (510, 340)]


def sample() -> dict:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


def write(path: Path, data) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def read(capsys, *args: str) -> tuple[int, list[dict]]:
    code = cli.main(["read", *args, "--json"])
    return code, [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]


def tray_of_every_face(path: Path, dice_set: dict, seed: int = 4) -> list[str]:
    """An under-tray render of one die of each top face (as `dice_set` lays them out); their top faces' names."""
    dice = [DieSpec(x, y, 84, 12.0 + 17 * i, i + 1, dice_set, "black") for i, (x, y) in enumerate(POSITIONS)]
    cv2.imwrite(str(path), render_tray(dice, mount="under", seed=seed))
    ds = get_set(dice_set)
    return [ds.face(d.value).name for d in dice]


def placed(dice: list[dict]) -> list[dict | None]:
    """The reading at each die's place, or None where none was read."""
    out = []
    for x, y in POSITIONS:
        near = [d for d in dice if (d["center"][0] - x) ** 2 + (d["center"][1] - y) ** 2 < 40 ** 2]
        out.append(near[0] if near else None)
    return out


def by_position(dice: list[dict]) -> list[str | None]:
    """The face read at each die's place, or None where none was read."""
    return [d["face"] if d else None for d in placed(dice)]


def test_the_sample_is_a_king_of_tokyo_set_whose_opposites_all_differ() -> None:
    own, game = get_set(sample()), get_set(spec("kingoftokyo"))
    assert [(f.name, f.value, f.glyph) for f in own.faces] == [(f.name, f.value, f.glyph) for f in game.faces]
    assert all(own.top_of(f) != game.top_of(f) for f in range(1, 7))


def test_read_with_a_file_gives_the_files_top_faces(tmp_path, capsys) -> None:
    """The dice lie as the file says; read with the file they come out right, read as the game describes
    them they come out as the game's assumed opposite faces."""
    truth = tray_of_every_face(tmp_path / "tray.png", sample())
    state = tmp_path / "state"  # an empty box: nothing taught, nothing learnt
    code, (with_file,) = read(capsys, str(tmp_path / "tray.png"), "--dice", str(SAMPLE), "--state-dir", str(state))
    assert code == 0
    got = by_position(with_file["dice"])
    assert sum(g == t for g, t in zip(got, truth, strict=True)) >= 5, (got, truth)
    certain = [(g, t) for g, t, d in zip(got, truth, placed(with_file["dice"]), strict=True) if d and d["certain"]]
    assert certain and all(g == t for g, t in certain)  # what the reader is sure of is right
    code, (as_game,) = read(capsys, str(tmp_path / "tray.png"), "--dice", "kingoftokyo", "--state-dir", str(state))
    assert code == 0
    assert not any(g == t for g, t in zip(by_position(as_game["dice"]), truth, strict=True))


def test_face_pictures_are_read_as_taught_faces(tmp_path, capsys) -> None:
    """A picture of each face, taken from under the tray, and drawn glyphs the reader has never seen (every
    face's glyph in the file is "blank"): the dice are read from the pictures alone."""
    data = sample()
    for i, face in enumerate(data["faces"], start=1):
        # what the box's camera sees when this face lies on the glass: a die whose top is the opposite face
        top = get_set(data).top_of(i)
        photo = render_tray([DieSpec(100, 100, 84, 8.0, top, sample(), "white")], mount="under", seed=i,
                            width=200, height=200)
        name = f"face{i}.png" if i % 2 else f"face{i}.jpg"  # grey templates and colour photos both count
        if i % 2:
            cv2.imwrite(str(tmp_path / name), to_png_array(face_template(photo, "under")))
        else:
            cv2.imwrite(str(tmp_path / name), photo)
        face["picture"] = name
        face["glyph"] = "blank"
    file = write(tmp_path / "own.json", data)
    truth = tray_of_every_face(tmp_path / "tray.png", sample(), seed=9)
    code, (out,) = read(capsys, str(tmp_path / "tray.png"), "--dice", str(file), "--state-dir", str(tmp_path / "s"))
    assert code == 0
    got = by_position(out["dice"])
    assert sum(g == t for g, t in zip(got, truth, strict=True)) >= 5, (got, truth)


def bad_files() -> list[tuple[str, object, str]]:
    no_faces = sample()
    del no_faces["faces"]
    empty_faces = {**sample(), "faces": []}
    no_opposite = sample()
    del no_opposite["opposite"]
    partial = {**sample(), "opposite": {"1": 6, "6": 1, "2": 4, "4": 2}}
    itself = {**sample(), "opposite": {"1": 1, "2": 4, "4": 2, "3": 5, "5": 3, "6": 6}}
    lopsided = {**sample(), "opposite": {"1": 6, "6": 2, "2": 4, "4": 2, "3": 5, "5": 3}}
    outside = {**sample(), "opposite": {"1": 9, "9": 1}}
    typo = {**sample(), "oposite": {}}
    bad_value = copy.deepcopy(sample())
    bad_value["faces"][0]["value"] = "one"
    missing_picture = copy.deepcopy(sample())
    for face in missing_picture["faces"]:
        face["picture"] = "nowhere.png"
    not_a_picture = copy.deepcopy(sample())
    for face in not_a_picture["faces"]:
        face["picture"] = "notes.png"
    some_pictures = copy.deepcopy(sample())
    some_pictures["faces"][0]["picture"] = "notes.png"
    return [
        ("not JSON", "{\"id\": \"kingoftokyo\", \"faces\": [", "is not JSON"),
        ("a list", "[1, 2, 3]", "must hold one JSON object"),
        ("no faces", no_faces, "'faces' must list"),
        ("empty faces", empty_faces, "'faces' must list"),
        ("no opposite map", no_opposite, "'opposite' is missing"),
        ("a face without an opposite", partial, "face 3 (3) has no opposite face"),
        ("a face opposite itself", itself, "is opposite itself"),
        ("not symmetric", lopsided, "not symmetric"),
        ("a face that does not exist", outside, "outside 1..6"),
        ("an unknown key", typo, "unknown key 'oposite'"),
        ("a wrong value", bad_value, "'value' must be an integer"),
        ("a picture that is not there", missing_picture, "there is no such file"),
        ("a picture that does not load", not_a_picture, "not a picture OpenCV can read"),
        ("pictures of some faces", some_pictures, "every face or of none"),
    ]


@pytest.mark.parametrize(("case", "content", "says"), bad_files(), ids=[c[0] for c in bad_files()])
def test_a_bad_file_is_one_sentence_and_status_2(tmp_path, capsys, case, content, says) -> None:
    (tmp_path / "notes.png").write_text("these are my notes, not a picture")
    file = write(tmp_path / "dice.json", content)
    image = tmp_path / "tray.png"
    cv2.imwrite(str(image), render_tray([DieSpec(200, 200, 80, 0.0, 1)], mount="under", seed=1))
    code = cli.main(["read", str(image), "--dice", str(file), "--state-dir", str(tmp_path / "s")])
    err = capsys.readouterr().err
    assert code == 2, case
    assert says in err and str(file) in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    code, (out,) = read(capsys, str(image), "--dice", str(file), "--state-dir", str(tmp_path / "s"))
    assert code == 2 and says in out["error"]


def test_a_missing_file_is_one_sentence_and_status_2(tmp_path, capsys) -> None:
    code, (out,) = read(capsys, "tray.png", "--dice", str(tmp_path / "ours.json"))
    assert code == 2 and out["error"] == f"{tmp_path / 'ours.json'}: no such dice-set file."
