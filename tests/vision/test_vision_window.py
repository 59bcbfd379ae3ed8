"""Windows around a part of a die (issue 31, box placement; `vision/window.py`).

Under the tray the room's outline of a die whose body looks like the room behind it holds only a part of the
face. The frames here are `vision/render.py`'s under-tray drawings with a room that hides most of one die, as a
white ceiling hides a white die: in-sample pictures, so they check the logic, not the accuracy
(bench/vision_undertray.py measures that on Blender's renders).
"""

from __future__ import annotations

import numpy as np
import pytest

import vision.reader as reader
from vision.classify import Prediction
from vision.dicesets import get_set
from vision.finder import Candidate
from vision.reader import classifier_for, read_dice
from vision.render import DieSpec, render_tray
from vision.window import (
    ECHO,
    GRID,
    NUDGE,
    WINDOW_SURE,
    _shared,
    nudged,
    usual_side,
    windowed,
    windows_around,
)

DICE = [DieSpec(150, 150, 60, 20, 3, colour="white"), DieSpec(480, 330, 60, 10, 5, colour="red"),
        DieSpec(300, 380, 60, 0, 2, colour="white"), DieSpec(400, 140, 60, 0, 6, colour="red")]


def frame_and_hiding_room():
    """The frame, and a room that matches it over the white 3 but for a strip along its top edge: the room's
    outline of that die is the strip (two 24 x 21 px parts of a 60 px die)."""
    empty = render_tray([], noise=2.0, seed=1)
    frame = render_tray(DICE, noise=2.0, seed=2)
    room = empty.copy()
    room[100:200, 100:200] = frame[100:200, 100:200]
    room[110:130, 110:170] = empty[110:130, 110:170]
    return frame, room


def near(reading, die: DieSpec, px: float = 12.0) -> bool:
    return abs(reading.center[0] - die.x) < px and abs(reading.center[1] - die.y) < px


def test_the_windows_hold_the_part_whole_and_span_the_die_it_may_belong_to():
    """GRID x GRID squares of the usual side, each holding the part, from one corner of the die to the other."""
    part = (100.0, 200.0, 20.0, 10.0)
    wins = windows_around(part, 60.0)
    assert len(wins) == GRID * GRID
    for cx, cy, w, h in wins:
        assert (w, h) == (60.0, 60.0)
        assert cx - 30 <= 90 and cx + 30 >= 110 and cy - 30 <= 195 and cy + 30 >= 205
    xs, ys = sorted({w[0] for w in wins}), sorted({w[1] for w in wins})
    assert (xs[0], xs[-1], ys[0], ys[-1]) == (80.0, 120.0, 175.0, 225.0)
    assert (100.0, 200.0, 60.0, 60.0) in wins


def test_a_part_as_large_as_the_window_is_not_moved():
    assert set(windows_around((50.0, 50.0, 70.0, 64.0), 60.0)) == {(50.0, 50.0, 60.0, 60.0)}


def test_with_no_die_named_surely_there_is_no_usual_side_and_no_window():
    """A part cannot be told from a small die without a die the network is sure of in the frame."""
    frame, _ = frame_and_hiding_room()
    clf = classifier_for(get_set("d6"), "under")
    parts = [Candidate((136.0, 122.0, 24.0, 21.0), "outline"), Candidate((159.0, 122.0, 24.0, 21.0), "outline")]
    preds = clf.predict(frame, [c.box for c in parts])
    assert usual_side(parts, preds, clf) is None
    assert windowed(frame, parts, preds, clf, True) == ([], [])


def test_a_part_of_a_die_is_read_in_a_window_of_the_usual_side():
    """The strip's parts are read again in windows as large as the three dice read surely: the best window lies
    on the die and names the face on the glass, the 4 under its 3."""
    frame, _ = frame_and_hiding_room()
    clf = classifier_for(get_set("d6"), "under")
    whole = [Candidate((d.x, d.y, 68.0, 68.0), "outline") for d in DICE[1:]]
    parts = [Candidate((136.0, 122.0, 24.0, 21.0), "outline"), Candidate((159.0, 122.0, 24.0, 21.0), "outline")]
    cands = whole + parts
    preds = clf.predict(frame, [c.box for c in cands])
    assert usual_side(cands, preds, clf) == pytest.approx(68.0)
    extra, answers = windowed(frame, cands, preds, clf, True)
    assert len(extra) == 2 and all(c.source == "window" for c in extra)
    for c, p in zip(extra, answers, strict=True):
        assert abs(c.box[0] - DICE[0].x) < 10 and abs(c.box[1] - DICE[0].y) < 10
        assert clf.classes[p.index] == "4"


def test_a_die_the_room_sees_only_in_part_is_read_with_the_windows_and_missed_without(monkeypatch):
    """The watcher's read with the room: the white 3 is found (certain and right) only through the windows; the
    three other dice read as before. Without them the reader missed it."""
    frame, room = frame_and_hiding_room()
    found = read_dice(frame, "d6", "under", background=room)
    assert sorted(r.value for r in found) == [2, 3, 5, 6]
    three = [r for r in found if near(r, DICE[0])]
    assert len(three) == 1 and three[0].value == 3
    monkeypatch.setattr(reader, "WINDOWS_WITH_ROOM", False)
    without = read_dice(frame, "d6", "under", background=room)
    assert not any(near(r, DICE[0]) and r.value == 3 for r in without)


def test_without_the_room_no_part_is_windowed_but_unsure_dice_are_nudged(monkeypatch):
    """Read alone (no empty tray) the windows around parts made dice certain and wrong on Blender's tables: only
    the nudges of whole dice are read there. With the room, both."""
    frame, _ = frame_and_hiding_room()
    calls = []
    monkeypatch.setattr(reader, "windowed", lambda *a, parts: calls.append(parts) or ([], []))
    read_dice(frame, "d6", "under")
    assert calls == [False]
    read_dice(frame, "d6", "under", background=render_tray([], noise=2.0, seed=1))
    assert calls == [False, True]


def test_parts_are_not_windowed_when_told_not_to():
    """`windowed(..., parts=False)`: the strip's parts get no window (the read without the room)."""
    frame, _ = frame_and_hiding_room()
    clf = classifier_for(get_set("d6"), "under")
    cands = [Candidate((d.x, d.y, 68.0, 68.0), "outline") for d in DICE[1:]]
    cands += [Candidate((136.0, 122.0, 24.0, 21.0), "outline"), Candidate((159.0, 122.0, 24.0, 21.0), "outline")]
    preds = clf.predict(frame, [c.box for c in cands])
    assert len(windowed(frame, cands, preds, clf, True)[0]) == 2
    assert windowed(frame, cands, preds, clf, True, parts=False) == ([], [])


def test_a_part_inside_a_die_sized_box_named_a_face_gets_no_window():
    """A sliver at the edge of a die whose whole box the reader has already (a refitted outline): a window slid
    around the sliver moved the die's reading off the die (a black Regidice die, tests/vision/test_vision_symbols.py)."""
    frame, _ = frame_and_hiding_room()
    clf = classifier_for(get_set("d6"), "under")
    cands = [Candidate((d.x, d.y, 68.0, 68.0), "outline") for d in DICE]
    cands += [Candidate((136.0, 122.0, 24.0, 21.0), "outline"), Candidate((159.0, 122.0, 24.0, 21.0), "outline")]
    preds = clf.predict(frame, [c.box for c in cands])
    assert windowed(frame, cands, preds, clf, True) == ([], [])


class FacesByPlace:
    """A face network stand-in that names the face of the nearest of `dice` ((x, y, class index)) within 20 px of
    a box's centre, the surer the nearer, and "not a die" elsewhere: the window step's rules without a network."""

    classes = ["1", "2", "3", "4", "5", "6", "none"]
    certain_at = 0.95

    def __init__(self, dice: list[tuple[float, float, int]], per_px: float = 0.001):
        self.dice = dice
        self.per_px = per_px   # how much less sure the network is a px off a die's centre

    def predict(self, img, boxes, **_):
        return [self._name(b) for b in boxes]

    def _name(self, box) -> Prediction:
        near = [(abs(box[0] - x) + abs(box[1] - y), k) for x, y, k in self.dice
                if abs(box[0] - x) < 20 and abs(box[1] - y) < 20]
        dist, k = min(near) if near else (0.0, 6)
        return Prediction(self.classes[k], k, 0.999 - dist * self.per_px, 0.0, np.zeros(1, np.float32))


def test_windows_that_share_much_of_a_square_and_name_different_faces_are_both_dropped():
    """In a heap the windows of two parts slid across two dice and one named a face the die does not show (Blender
    seed 46 frame 35): two windows naming different faces that share more than CLASH of a square cannot both lie
    on their dice. Apart, each is kept."""
    img = np.zeros((240, 320, 3), np.uint8)
    whole = [Candidate((40.0, 40.0, 60.0, 60.0), "outline"), Candidate((280.0, 200.0, 60.0, 60.0), "outline")]
    # (part x, x where the network is surest of its face): beside each other, the best windows slide together
    for (a, sure_a), (b, sure_b), kept in (((150.0, 165), (200.0, 185), 0), ((150.0, 150), (220.0, 220), 2)):
        clf = FacesByPlace([(40, 40, 0), (280, 200, 1), (sure_a, 120, 2), (sure_b, 120, 4)])
        cands = whole + [Candidate((a, 120.0, 20.0, 20.0), "outline"), Candidate((b, 120.0, 20.0, 20.0), "outline")]
        preds = clf.predict(img, [c.box for c in whole]) + [Prediction("none", 6, 0.9, 0.1, np.zeros(1))] * 2
        extra, _ = windowed(img, cands, preds, clf, False)
        assert len(extra) == kept
    assert _shared((0.0, 0.0, 60.0, 60.0), (30.0, 0.0, 60.0, 60.0)) == pytest.approx(0.5)
    assert _shared((0.0, 0.0, 60.0, 60.0), (61.0, 0.0, 60.0, 60.0)) == 0.0


@pytest.mark.parametrize(("neighbour_face", "doubted"), [(2, True), (4, False)])
def test_a_window_that_names_the_face_of_a_sure_die_it_overlaps_is_doubted(neighbour_face, doubted):
    """Two dice touching end to end, one body with no edge between them: the window round a part of the lower
    one took in the upper one's pips and named the upper one's face, 3, surely (fresh seed 89 frame 3, a 2 on
    the glass). A window that shares more than ECHO of a box named surely the same face may be that die again:
    it is kept as a guess, never certain. Naming another face, it stays sure."""
    img = np.zeros((240, 320, 3), np.uint8)
    whole = [Candidate((40.0, 40.0, 60.0, 60.0), "outline"), Candidate((150.0, 100.0, 60.0, 60.0), "outline")]
    # the network is surest of the part's face in a square reaching over the neighbour's lower half
    clf = FacesByPlace([(40, 40, 0), (150, 100, neighbour_face), (165, 125, 2)])
    cands = whole + [Candidate((175.0, 150.0, 20.0, 20.0), "outline")]
    preds = clf.predict(img, [c.box for c in whole]) + [Prediction("none", 6, 0.9, 0.1, np.zeros(1))]
    extra, answers = windowed(img, cands, preds, clf, False)
    assert len(extra) == 1 and _shared(extra[0].box, whole[1].box) > ECHO
    assert clf.classes[answers[0].index] == "3"
    assert (answers[0].confidence < WINDOW_SURE) == doubted


def test_a_window_is_certain_only_from_its_own_floor(monkeypatch):
    """Windows across two dark dice on a dark room named faces no die showed at 0.984-0.986 (Blender table 104):
    a window is certain only from `WINDOW_SURE`, or where the network names its face as surely in the four
    boxes round it (`reader.SURE_ALL_ROUND_FLOORED`, rule H9). The white 3's window (named at 0.9999) is
    certain; with the floor above any answer it is read, unsure, unless named so all round."""
    frame, room = frame_and_hiding_room()

    def the_three() -> reader.Reading:
        (three,) = [r for r in read_dice(frame, "d6", "under", background=room) if near(r, DICE[0])]
        assert three.value == 3
        return three

    assert the_three().certain
    monkeypatch.setattr(reader, "WINDOW_SURE", 1.01)
    monkeypatch.setattr(reader, "SURE_ALL_ROUND_FLOORED", ("window",))
    assert the_three().certain
    monkeypatch.setattr(reader, "SURE_ALL_ROUND_FLOORED", ())
    assert not the_three().certain


def test_a_whole_die_is_nudged_within_its_own_side():
    """GRID x GRID squares of the box's longer side, their centres up to NUDGE of it off the box's centre."""
    wins = nudged((100.0, 200.0, 60.0, 50.0))
    assert len(wins) == GRID * GRID and all((w, h) == (60.0, 60.0) for _, _, w, h in wins)
    xs, ys = sorted({w[0] for w in wins}), sorted({w[1] for w in wins})
    assert (xs[0], xs[-1]) == pytest.approx((100 - NUDGE * 60, 100 + NUDGE * 60))
    assert (ys[0], ys[-1]) == pytest.approx((200 - NUDGE * 60, 200 + NUDGE * 60))
    assert (100.0, 200.0, 60.0, 60.0) in wins


@pytest.mark.parametrize(("off", "added"), [(NUDGE * 60, True), (2.5 * NUDGE * 60, False)])
def test_an_unsure_whole_die_is_read_again_nudged_and_kept_only_where_named_surely(off, added):
    """A whole die's box a little off it, its face named below the network's level: a nudged square on the die,
    named at least WINDOW_SURE, joins the candidates (as a window: certain only from that floor); where no nudged
    square reaches the die, the best names the face less surely and nothing is added."""
    img = np.zeros((240, 320, 3), np.uint8)
    clf = FacesByPlace([(40, 40, 0), (280, 200, 1), (160, 120, 3)], per_px=0.01)
    cands = [Candidate((40.0, 40.0, 60.0, 60.0), "outline"), Candidate((280.0, 200.0, 60.0, 60.0), "outline"),
             Candidate((160.0 + off, 120.0, 60.0, 60.0), "outline")]
    preds = clf.predict(img, [c.box for c in cands[:2]]) + [Prediction("4", 3, 0.6, 0.3, np.zeros(1))]
    extra, answers = windowed(img, cands, preds, clf, False)
    if added:
        assert [c.source for c in extra] == ["window"] and abs(extra[0].box[0] - 160.0) < 5
        assert answers[0].index == 3 and answers[0].confidence >= WINDOW_SURE
    else:
        assert extra == []


def test_a_whole_die_named_surely_or_not_named_is_not_nudged():
    """Only a die-sized face named below the network's level is read again: a sure one needs no better box, and a
    box the network calls "not a die" is left to the parts' windows (nudged too, on Blender's seeds 42-43 and tables
    118-119, they made no die certain)."""
    img = np.zeros((240, 320, 3), np.uint8)
    clf = FacesByPlace([(40, 40, 0), (280, 200, 1), (160, 120, 3)], per_px=0.01)
    cands = [Candidate((40.0, 40.0, 60.0, 60.0), "outline"), Candidate((280.0, 200.0, 60.0, 60.0), "outline"),
             Candidate((160.0 + NUDGE * 60, 120.0, 60.0, 60.0), "outline")]
    for third in (Prediction("4", 3, 0.97, 0.01, np.zeros(1)), Prediction("none", 6, 0.6, 0.3, np.zeros(1))):
        preds = clf.predict(img, [c.box for c in cands[:2]]) + [third]
        assert windowed(img, cands, preds, clf, False) == ([], [])
    # nor a box more than WHOLE_AT_MOST of the usual side: it holds more than a die
    wide = cands[:2] + [Candidate((160.0, 120.0, 92.0, 92.0), "outline")]
    preds = clf.predict(img, [c.box for c in cands[:2]]) + [Prediction("4", 3, 0.6, 0.3, np.zeros(1))]
    assert windowed(img, wide, preds, clf, False) == ([], [])
