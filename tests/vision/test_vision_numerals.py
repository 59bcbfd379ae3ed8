"""The numeral-face CNN shipped in the package (vision/models/numerals.onnx, run by cv2.dnn): it loads, is
small, says where its photos come from, and reads rendered d12 faces at any angle (at the five turns the
reader shows it), from above and below."""

from __future__ import annotations

import json
from types import SimpleNamespace

import cv2
import numpy as np

from vision.classify import MODELS
from vision.dicesets import get_set
from vision.glyphs import seen_mirrored
from vision.numerals import classifier, die_square, numeral_faces, read_numeral, unmarked_turns
from vision.outline import pentagon_angle
from vision.render import DieSpec, render_tray

D12 = {"id": "test-numerals-d12", "name": {"en": "d12"}, "kind": "numerals", "shape": "pentagon",
       "faces": [{"index": i, "name": str(i), "value": i, "glyph": f"text:{i}"} for i in range(1, 13)],
       "opposite": {str(i): 13 - i for i in range(1, 13)}}


def test_numeral_model_is_small_and_described():
    meta = json.loads((MODELS / "numerals.json").read_text())
    assert (MODELS / "numerals.onnx").stat().st_size < 1_000_000
    assert meta["classes"] == [str(i) for i in range(1, 21)] + ["none"]
    assert 0.5 <= meta["certain_at"] < 1.0 and meta["temperature"] > 0
    assert "d20-numerals" in meta["sources"] and "CC0" in meta["sources"]  # its photos are attributed


def test_numeral_faces_of_a_set():
    ds = get_set(D12)
    assert numeral_faces(ds) == {i: i for i in range(1, 13)}
    assert unmarked_turns(ds) == {6, 9}  # drawn without the underline, a 6 is a 9 half a turn round
    assert numeral_faces(get_set({**D12, "faces": [{**f, "glyph": "icon:star"} for f in D12["faces"]]})) == {}


def _outlines(frame: np.ndarray, empty: np.ndarray) -> list[SimpleNamespace]:
    """The dice's outlines where the frame differs from the empty tray (a stand-in for the finder's blobs, so
    this test reads the CNN alone)."""
    diff = cv2.absdiff(frame, empty).max(axis=2)
    mask = cv2.morphologyEx((diff > 40).astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    cs, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return [SimpleNamespace(contour=c, rect=cv2.minAreaRect(c)) for c in cs if cv2.contourArea(c) > 400]


def test_shipped_numeral_model_reads_rendered_d12_faces():
    clf = classifier()
    assert clf is not None
    ds = get_set(D12)
    for mount, dice in (("over", [DieSpec(70, 70, 60, 37, 1, D12, "white"), DieSpec(180, 70, 60, 148, 4, D12, "yellow"),
                                  DieSpec(120, 180, 60, 259, 7, D12, "red")]),
                        ("under", [DieSpec(70, 120, 60, 111, 3, D12, "yellow"), DieSpec(180, 120, 60, 222, 6, D12, "blue")])):
        bg = "felt" if mount == "over" else None
        frame = render_tray(dice, width=250, height=250, mount=mount, background=bg, noise=0)
        blobs = _outlines(frame, render_tray([], width=250, height=250, mount=mount, background=bg, noise=0))
        assert len(blobs) == len(dice)
        for d in dice:
            blob = min(blobs, key=lambda b: (b.rect[0][0] - d.x) ** 2 + (b.rect[0][1] - d.y) ** 2)
            cx, cy, _ = die_square(blob)
            upright = pentagon_angle(blob.contour, cx, cy)
            guess = read_numeral(clf, frame, blob, ds, seen_mirrored(mount), upright)
            seen = ds.bottom_of(d.value) if mount == "under" else d.value  # under the glass: the bottom face
            assert guess is not None and guess.index == seen, (mount, d.value, guess)
