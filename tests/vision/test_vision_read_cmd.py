"""`dicesight read`: one JSON line per image, a clear error per bad file, non-zero exit, debug pictures."""

from __future__ import annotations

import json

import cv2

from device.read_cmd import run
from vision.render import DieSpec, render_tray


def _write_tray(path, dice, mount="over"):
    frame = render_tray(dice, mount=mount, background="felt", seed=1)
    ok, buf = cv2.imencode(".png", frame)
    path.write_bytes(buf.tobytes())
    return str(path)


def test_reads_good_files_and_reports_each_bad_one(tmp_path, capsys):
    good = _write_tray(tmp_path / "tray.png", [DieSpec(200, 200, 60, 10, 4), DieSpec(400, 250, 60, 30, 6)])
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff\xe0 this is not really a jpeg")
    missing = tmp_path / "missing.jpg"
    code = run([str(empty), good, str(corrupt), str(missing), good], "d6", "over", True, None)
    assert code != 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(lines) == 5
    assert [("error" in x) for x in lines] == [True, False, True, True, False]
    assert "empty" in lines[0]["error"]
    assert "corrupt" in lines[2]["error"] or "not a readable image" in lines[2]["error"]
    assert "no such file" in lines[3]["error"]
    for rec in (lines[1], lines[4]):
        assert rec["image"] == good
        assert isinstance(rec["ms"], float)
        assert sorted(d["value"] for d in rec["dice"]) == [4, 6]
        assert set(rec["dice"][0]) >= {"value", "face", "colour", "confidence", "center", "box", "certain"}


def test_all_good_exit_zero_and_under_mount(tmp_path, capsys):
    good = _write_tray(tmp_path / "t.png", [DieSpec(300, 240, 70, 0, 2)], mount="under")
    assert run([good], "d6", "under", True, None) == 0
    rec = json.loads(capsys.readouterr().out)
    assert [d["value"] for d in rec["dice"]] == [2]


def test_human_output_and_debug_pictures(tmp_path, capsys):
    good = _write_tray(tmp_path / "t.png", [DieSpec(300, 240, 70, 0, 5)])
    out = tmp_path / "dbg"
    assert run([good], "d6", "over", False, str(out)) == 0
    text = capsys.readouterr().out
    assert "1 dice" in text and "5" in text
    assert sorted(p.name for p in out.glob("*.png")) == ["t.debug.png", "t.die1.png"]
    img = cv2.imread(str(out / "t.debug.png"))
    assert img is not None and img.shape == (480, 640, 3)
    crop = cv2.imread(str(out / "t.die1.png"))  # the die as the reader boxed it: a white die, mostly
    assert crop is not None and crop.shape[1] == 96 and crop[20:76, 20:76].mean() > 150


def test_unknown_dice_set_is_a_clear_error(tmp_path, capsys):
    good = _write_tray(tmp_path / "t.png", [DieSpec(300, 240, 70, 0, 5)])
    assert run([good], "d7", "over", True, None) == 2
    assert "unknown dice set" in capsys.readouterr().out
