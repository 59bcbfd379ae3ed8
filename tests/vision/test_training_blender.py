"""Blender's dice become training canvases as the photos' dice do (`training/blender_canvases.py`), without
Blender: the frames are made outside the tests (`make blender-dice`), so a folder is written here by hand."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from training import blender_canvases as bc


def _folder(root: Path, dice: list[dict], tilt: float, done: bool = True, cut: list[int] | None = None) -> Path:
    """A folder of one frame showing `dice`, or one frame per entry of `cut` (the dice the frame's edge cuts)."""
    folder = root / "s1"
    folder.mkdir(parents=True)
    frame = np.full((360, 480, 3), 90, np.uint8)
    for d in dice:
        cx, cy, w, h = d["box"]
        cv2.rectangle(frame, (int(cx - w / 2), int(cy - h / 2)), (int(cx + w / 2), int(cy + h / 2)),
                      (240, 240, 240), -1)
    rows = []
    for i, n in enumerate([None] if cut is None else cut):
        cv2.imwrite(str(folder / f"frame_{i:05d}.png"), frame)
        rows.append({"image": f"frame_{i:05d}.png", "tilt": tilt, "dice": dice} | ({} if n is None else {"cut": n}))
    (folder / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    if done:
        (folder / "done").write_text("{}")
    return folder


def test_each_labelled_die_is_a_canvas_of_its_face_with_the_box_in_the_middle_third(tmp_path):
    dice = [{"value": 5, "box": [120.0, 150.0, 40.0, 44.0]}, {"value": 2, "box": [330.0, 200.0, 60.0, 60.0]}]
    c = bc.blender_canvases([_folder(tmp_path, dice, tilt=40.0)], 96, np.random.default_rng(0))
    assert c.y.tolist() == [4, 1]
    assert c.source.tolist() == [bc.SOURCE] * 2
    assert c.upright.all()   # seen 40 degrees off the vertical: the top face stays up in training
    # the die (a light square on grey) fills the canvas's middle third and nothing outside it
    grey = cv2.cvtColor(c.x[1], cv2.COLOR_BGR2GRAY)
    assert grey[40:56, 40:56].mean() > 200
    assert grey[:20].mean() < 120 and grey[-20:].mean() < 120


def test_a_die_seen_from_straight_above_may_turn(tmp_path):
    c = bc.blender_canvases([_folder(tmp_path, [{"value": 3, "box": [200.0, 180.0, 50.0, 50.0]}], tilt=5.0)], 64,
                            np.random.default_rng(0))
    assert not c.upright.any()


def test_a_finished_folder_is_not_rendered_again_and_a_missing_one_asks_for_blender(tmp_path, monkeypatch):
    _folder(tmp_path, [], tilt=0.0)
    monkeypatch.setattr(bc.shutil, "which", lambda name: None)
    assert bc.ensure([1], root=tmp_path) == [tmp_path / "s1"]
    with pytest.raises(FileNotFoundError, match="apt-get install blender"):
        bc.ensure([2], root=tmp_path)


def test_seed_lists_take_ranges_and_single_seeds():
    assert bc.seed_list("1-4,9") == [1, 2, 3, 4, 9]
    assert bc.seed_list("7") == [7]


def test_the_die_finder_takes_whole_frames_but_none_that_the_edge_cuts_a_die_of(tmp_path):
    # train_finder --blender: a die half out of the frame has no label, so its frame would teach the finder
    # that a die there is floor (blender_dice.cut_by_frame)
    dice = [{"value": 5, "box": [120.0, 150.0, 40.0, 44.0]}, {"value": 2, "box": [330.0, 200.0, 60.0, 60.0]}]
    imgs, boxes = bc.blender_frames([_folder(tmp_path, dice, tilt=30.0, cut=[0, 1, 0])])
    assert len(imgs) == len(boxes) == 2
    assert imgs[0].shape == (360, 480, 3)
    np.testing.assert_allclose(boxes[1], [[120.0, 150.0, 40.0, 44.0], [330.0, 200.0, 60.0, 60.0]])
