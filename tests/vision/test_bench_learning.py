"""`bench/vision_learning.py --head-check` on photos (issue 31 #5): each taught photo's labelled dice are cut
as
the box keeps a confirmed die, and the network, the memory's head and the nearest example are scored on the
later photos' dice at their labelled boxes. Bench code prints figures; this checks that it reads the dice it
says it reads, taught only from photos before those it reads."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import vision_learning  # noqa: E402

from vision.render import DieSpec, render_tray  # noqa: E402


def _photos(folder: Path, n: int) -> list[tuple[Path, list[dict]]]:
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    for i in range(n):
        tops = (1 + i % 6, 1 + (i + 3) % 6)
        frame = render_tray([DieSpec(200, 240, 70, 10 * i, tops[0]), DieSpec(440, 240, 70, 5 * i, tops[1])],
                            mount="over", seed=i)
        cv2.imwrite(str(folder / "images" / f"p{i:02d}.png"), frame)
        dice = [{"value": t, "cx": x, "cy": 240, "w": 80, "h": 80}
                for t, x in zip(tops, (200, 440), strict=True)]
        (folder / "labels" / f"p{i:02d}.json").write_text(json.dumps({"dice": dice}), encoding="utf-8")
    return vision_learning.photos_of(folder)


def test_each_labelled_die_is_cut_with_its_top_face(tmp_path):
    photos = _photos(tmp_path, 3)
    crops, faces = vision_learning.photo_crops(photos)
    assert len(crops) == 6 and faces.tolist() == [1, 4, 2, 5, 3, 6]
    assert all(c.ndim == 3 and c.shape[2] == 3 for c in crops)


def test_the_head_check_reads_the_last_photos_and_teaches_only_from_the_first(tmp_path, capsys):
    photos = _photos(tmp_path, 8)
    vision_learning.photo_head_check(photos, test_n=3, taught=[0, 2, 5, 6])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("6 dice of the last 3 photos")
    assert [line.split(" (")[0] for line in lines[1:]] == ["taught   2 photos", "taught   5 photos"]
    assert all("network" in line and "nearest example" in line for line in lines[1:])
