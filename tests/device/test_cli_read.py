"""`dicesight read` as a user runs it: one JSON line per image, a broken file fails alone."""

from __future__ import annotations

import json
import os
import sys
from collections import Counter

import cv2

from device.cli import main
from vision.render import DieSpec, render_tray


def test_read_prints_a_line_per_image_and_fails_only_the_broken_one(tmp_path, capsys):
    dice = [DieSpec(x=160, y=200, size=70, angle=10, value=2), DieSpec(x=330, y=260, size=70, angle=35, value=5),
            DieSpec(x=480, y=180, size=70, angle=60, value=6)]
    photo = tmp_path / "tray.png"
    cv2.imwrite(str(photo), render_tray(dice, mount="over", background="felt", seed=3))
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8 not really a jpeg")
    code = main(["read", str(photo), str(broken), "--dice", "d6", "--mount", "over", "--json",
                 "--state-dir", str(tmp_path / "state")])
    first, second = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1
    assert first["image"] == str(photo) and first["ms"] >= 0
    certain = [d["value"] for d in first["dice"] if d["certain"]]
    assert Counter(certain) <= Counter([2, 5, 6]), "a die reported certain is never wrong"
    assert len(first["dice"]) == 3
    assert second["image"] == str(broken) and second["error"]


def test_a_reader_that_stops_listening_ends_the_command_quietly(tmp_path, monkeypatch, capsys):
    """`dicesight read *.jpg --json | head -1`: once head has gone, the next line meets a closed pipe; the
    command stops with 141 (128 + SIGPIPE, as a shell reports) and no traceback, instead of crashing."""
    photo = tmp_path / "tray.png"
    cv2.imwrite(str(photo), render_tray([DieSpec(x=200, y=200, size=70, angle=0, value=3)], mount="over",
                                        background="felt", seed=1))
    read_end, write_end = os.pipe()
    os.close(read_end)  # the listener is gone before the first line
    with os.fdopen(write_end, "w") as closed_pipe:
        monkeypatch.setattr(sys, "stdout", closed_pipe)
        code = main(["read", str(photo), "--dice", "d6", "--mount", "over", "--json",
                     "--state-dir", str(tmp_path / "state")])
        closed_pipe.write("later output goes nowhere, quietly\n")
    assert code == 141
    assert "Traceback" not in capsys.readouterr().err
