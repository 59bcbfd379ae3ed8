"""The under-tray benches' reads at another size (issue 31 #1): `bench/vision_undertray.py --scale` below 1
shrinks a frame as the box shrinks its camera's (by area, `readsize.resized`), and the paired bench's
`--b-root` pairs each frame with the same seed's frame of the same index rendered elsewhere. Bench code
prints figures; these check only that it reads the frames it says it reads."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import vision_undertray  # noqa: E402
import vision_undertray_paired as paired  # noqa: E402


def test_a_frame_read_at_three_quarters_is_shrunk_by_area_as_the_box_shrinks_one(monkeypatch):
    frame = np.random.default_rng(3).integers(0, 256, (480, 640, 3), np.uint8)
    monkeypatch.setattr(vision_undertray, "SCALE", 0.75)
    small = vision_undertray.enlarged(frame)
    assert small.shape == (360, 480, 3)
    assert np.array_equal(small, cv2.resize(frame, (480, 360), interpolation=cv2.INTER_AREA))
    monkeypatch.setattr(vision_undertray, "SCALE", 1.0)
    assert vision_undertray.enlarged(frame) is frame


def _labels(folder: Path, indices: list[int]) -> None:
    folder.mkdir(parents=True)
    rows = [{"index": i, "image": f"frame_{i:05d}.png", "dice": [{"set": "d6"}]} for i in indices]
    (folder / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_the_second_root_pairs_the_same_seed_and_index_and_leaves_out_frames_it_lacks(tmp_path):
    _labels(tmp_path / "x1" / "s7", [0, 1, 2])
    _labels(tmp_path / "x2" / "s7", [0, 2])
    rows = paired.d6_rows("7", tmp_path / "x1")
    assert [(a[1]["index"], b[1]["index"]) for a, b in paired.pairs_of(rows, None)] == [(0, 0), (1, 1), (2, 2)]
    pairs = paired.pairs_of(rows, tmp_path / "x2")
    assert [(a[1]["index"], b[1]["index"]) for a, b in pairs] == [(0, 0), (2, 2)]
    assert {b[0] for _, b in pairs} == {tmp_path / "x2" / "s7"}


def test_the_bench_scale_is_set_inside_the_block_only():
    with paired.bench_scale(0.75):
        assert vision_undertray.SCALE == 0.75
    assert vision_undertray.SCALE == 1.0


def test_symbol_frames_are_read_only_when_every_set_is_asked_for(tmp_path):
    _labels(tmp_path / "s7", [0, 1])
    rows = [{"index": 0, "image": "frame_00000.png", "dice": [{"set": "kingoftokyo"}]}]
    (tmp_path / "s200").mkdir()
    (tmp_path / "s200" / "labels.jsonl").write_text(json.dumps(rows[0]) + "\n", encoding="utf-8")
    assert [f.name for f, _ in paired.d6_rows("7,200", tmp_path)] == ["s7", "s7"]
    assert [f.name for f, _ in paired.d6_rows("7,200", tmp_path, every_set=True)] == ["s7", "s7", "s200"]


def test_the_vote_bench_casts_the_looks_it_keeps_under_each_side_settings(monkeypatch):
    """`bench/vision_undertray_votes.py` votes kept looks again under a setting of `vision.watcher`: a look
    that
    read one die twice gives it a confidence above one by the shipped count of readings, counted and shown,
    and none once each look agrees once (`watcher.LOOKS_COUNTED_ONCE`); a reading no die took is a phantom."""
    import vision_undertray_votes as votes

    from vision import watcher
    from vision.reading import Reading

    def six(certain: bool, x: float = 100.0) -> Reading:
        return Reading(6, "6", "white", 0.97, (x, 100.0), (int(x) - 20, 80, 40, 40), certain)

    monkeypatch.setattr(watcher, "ONE_LOOK_ENOUGH", True)
    monkeypatch.setattr(watcher, "LOOKS_COUNTED_ONCE", False)
    die = {"set": "d6", "top": 6, "center": [100, 100], "colour": "white", "box": [100, 100, 40, 40]}
    row = {"index": 0, "dice": [die]}
    twice = [(Path("s1"), row, [[six(False), six(False, x=110.0)], [six(True)], [six(False)]])]
    frames, above_one, phantoms = votes.voted(twice, {}, 1.0)
    assert frames == [[("C+", "read 6 certain 1.293")]] and above_one == 1 and phantoms == 0
    once = paired.settings_of(["watcher.LOOKS_COUNTED_ONCE=True"])
    assert votes.voted(twice, once, 1.0) == ([[("C+", "read 6 certain 0.970")]], 0, 0)
    far_look = [six(False), six(False, x=300.0)]
    far = [(Path("s1"), row, [far_look, [six(True), six(False, x=300.0)], [six(False)]])]
    assert votes.voted(far, once, 1.0)[2] == 1
