"""The size a frame is read at (`vision/readsize.py`; issue 31 #1, #7): the band of die sizes the reader keeps, the
finder's surer look, growing and shrinking. The learned finder is stood in for by one that answers set boxes, so
each rule is checked on its own; tests/vision/test_vision_reader.py reads real frames through it."""

from __future__ import annotations

import numpy as np
import pytest

from vision import readsize
from vision.detector import Detection
from vision.reading import Reading


class SetFinder:
    """A finder that sees dice of `share` of the frame's longer side at `score`, in every look (or per look side:
    `by_side` maps a look's longer side to (share, score))."""

    threshold = 0.5

    def __init__(self, share: float = 0.0, score: float = 0.9, by_side: dict[int, tuple[float, float]] | None = None):
        self.share, self.score, self.by_side = share, score, by_side or {}
        self.looks: list[int] = []

    def detect(self, frame: np.ndarray) -> list[Detection]:
        side = max(frame.shape[:2])
        self.looks.append(side)
        share, score = self.by_side.get(side, (self.share, self.score))
        if not share:
            return []
        d = share * side
        return [Detection((side / 3, side / 4, d, d), score), Detection((side / 2, side / 4, d, d), score - 0.1)]


def frame(w: int, h: int) -> np.ndarray:
    return np.zeros((h, w, 3), np.uint8)


def test_the_first_read_is_at_the_camera_side():
    """Under the tray (a set read by networks of the 320x240 view) a camera's frame is first read at
    UNDER_CAMERA_SIDE, a frame of CAMERA_FRAME px or less as it is; any other frame only shrunk to WORKING_SIDE."""
    assert readsize.camera_side(frame(1296, 972), True) == readsize.UNDER_CAMERA_SIDE
    assert readsize.camera_side(frame(640, 480), True) == 640
    assert readsize.camera_side(frame(1296, 972), False) == readsize.WORKING_SIDE
    assert readsize.camera_side(frame(320, 240), False) == 320


def test_readings_the_size_the_networks_know_are_kept_without_asking_the_finder():
    """Readings whose median box is inside the band at the side read cost nothing more: the finder is not asked."""
    finder = SetFinder(150 / 640)
    assert readsize.better_side(frame(1296, 972), 480, [200.0, 210.0, 230.0], finder) == 480   # 78 px at 480
    assert finder.looks == []


def test_dice_the_size_the_renders_give_keep_the_camera_side():
    """No reading, and the finder measures dice of the renders' share (210 px of 1296: 78 px at 480): kept."""
    assert readsize.better_side(frame(1296, 972), 480, [], SetFinder(210 / 1296)) == 480


def test_large_dice_are_read_again_at_the_usual_size():
    """A USB camera's 640x480 close to the tray: readings of 150 px, the finder measures 150 px; read again where
    they are DIE_AT px."""
    side = readsize.better_side(frame(640, 480), 640, [150.0, 150.0], SetFinder(150 / 640))
    assert side == pytest.approx(640 * readsize.DIE_AT / 150, abs=1)


def test_the_finder_overrules_readings_outside_the_band():
    """Readings of odd size (phantoms, parts) send the frame to the finder; dice it measures inside the band keep
    the side."""
    assert readsize.better_side(frame(1296, 972), 480, [40.0], SetFinder(210 / 1296)) == 480


def test_small_dice_are_grown_but_never_past_most_grown():
    """Dice 26 px in a 320x240 frame (a camera far from the tray) are read grown where they are DIE_AT px, at most
    MOST_GROWN times; in a frame already large, at most at WORKING_SIDE."""
    grown = readsize.better_side(frame(320, 240), 320, [26.0], SetFinder(26 / 320))
    assert grown == int(320 * readsize.MOST_GROWN) and grown > 320
    assert readsize.better_side(frame(1296, 972), 480, [], SetFinder(50 / 1296)) == readsize.WORKING_SIDE


def test_no_die_measured_keeps_the_side():
    """With no die seen by the finder, or no finder, the frame is not read again."""
    for finder in (SetFinder(0.0), None):
        assert readsize.better_side(frame(1296, 972), 480, [], finder) == 480
        assert readsize.better_side(frame(640, 480), 640, [300.0], finder) == 640


def test_the_surer_look_measures_the_dice():
    """At 320 px the finder sees small dice at the size it knows (a wrong measure, less sure); at 640 px it sees them
    as they are, surer: the 640 look measures."""
    finder = SetFinder(by_side={320: (0.14, 0.45), 640: (0.06, 0.7)})
    assert readsize.probed_die_side(frame(1296, 972), finder) == pytest.approx(0.06 * 1296)
    assert finder.looks == [320, 640]


def test_a_frame_no_larger_than_a_look_is_looked_at_once():
    finder = SetFinder(0.2)
    assert readsize.probed_die_side(frame(320, 240), finder) == pytest.approx(64)
    assert finder.looks == [320]


def test_frames_are_resized_and_readings_moved_back():
    """at_read_size grows and shrinks the frame and its background alike; unscaled moves a reading back."""
    img, bg = frame(640, 480), frame(640, 480)
    small, small_bg, k = readsize.at_read_size(img, bg, 320)
    assert small.shape == small_bg.shape == (240, 320, 3) and k == 0.5
    big, no_bg, k2 = readsize.at_read_size(img, None, 960)
    assert big.shape == (720, 960, 3) and no_bg is None and k2 == 1.5
    same, _, k3 = readsize.at_read_size(img, None, 640)
    assert same is img and k3 == 1.0
    r = Reading(3, "3", "white", 0.9, (50.0, 40.0), (30, 20, 40, 40), True)
    back = readsize.unscaled(r, 0.5)
    assert back.center == (100.0, 80.0) and back.box == (60, 40, 80, 80) and back.certain


def test_a_sure_first_look_is_the_only_one():
    """A look at 320 px whose surest die passes PROBE_SURE measures the dice alone (a second look costs a finder
    pass); a less sure one is checked at 640 px."""
    sure = SetFinder(by_side={320: (0.2, readsize.PROBE_SURE + 0.1), 640: (0.05, 0.99)})
    assert readsize.probed_die_side(frame(1296, 972), sure) == pytest.approx(0.2 * 1296)
    assert sure.looks == [320]
    unsure = SetFinder(by_side={320: (0.2, readsize.PROBE_SURE - 0.1), 640: (0.05, 0.99)})
    assert readsize.probed_die_side(frame(1296, 972), unsure) == pytest.approx(0.05 * 1296)
    assert unsure.looks == [320, 640]


def test_the_room_is_shrunk_once_while_it_is_the_same():
    """The learned room at the read size is made once and shared, read-only, by every read of the same room
    (`FrameCache`); another room, or the same array changed in place, is made again. Why: the watcher hands one
    room to every read, and shrinking it on each cost a Pi camera frame's read about 9 ms."""
    made: list[int] = []
    cache = readsize.FrameCache(keep=8)
    room = frame(1296, 972)

    def make(a: np.ndarray = room) -> np.ndarray:
        made.append(1)
        return a[::2, ::2].copy()

    first = cache.get(room, ("resized", (648, 486)), make)
    assert cache.get(room, ("resized", (648, 486)), make) is first and len(made) == 1
    assert not first.flags.writeable
    cache.get(room, ("resized", (324, 243)), make)
    assert len(made) == 2
    room[::29, ::31] += 1
    assert cache.get(room, ("resized", (648, 486)), make) is not first and len(made) == 3
    cache.get(frame(1296, 972), ("resized", (648, 486)), make)
    assert len(made) == 4


def test_a_read_keeps_the_shrunk_room_for_the_next():
    """at_read_size hands the same shrunk room to two reads of one room, and the room a new one is learnt."""
    img, bg = frame(1296, 972), frame(1296, 972)
    _, once, _ = readsize.at_read_size(img, bg, 480)
    _, again, _ = readsize.at_read_size(frame(1296, 972), bg, 480)
    assert again is once and once.shape == (360, 480, 3)
    _, other, _ = readsize.at_read_size(img, bg.copy(), 480)
    assert other is not once and np.array_equal(other, once)


def test_a_frame_read_twice_is_shrunk_once():
    """The watcher reads a settled frame without the room and with it: the second read of the same frame gets
    the frame shrunk by the first (`FRAMES`); the next frame is shrunk anew."""
    img, bg = frame(1296, 972), frame(1296, 972)
    plain, _, _ = readsize.at_read_size(img, None, 480)
    with_room, _, _ = readsize.at_read_size(img, bg, 480)
    assert with_room is plain and not plain.flags.writeable
    nxt = frame(1296, 972)
    nxt[::29, ::31] = 1
    assert readsize.at_read_size(nxt, bg, 480)[0] is not plain


def test_a_frame_read_twice_is_searched_by_the_finder_once():
    """Both reads of a settled frame of icon dice search all of it at the finder's view
    (`find.frame_detected`): the second gets the first's boxes, the same values; another shrink, another
    finder or a forgotten frame (`forget_frames`, as a bench timing a first read does) is searched anew."""
    from vision.find import frame_detected

    img, finder = frame(640, 480), SetFinder(share=0.1, score=0.9)
    first = frame_detected(img, finder, 0.5)
    assert frame_detected(img, finder, 0.5) == first and len(first) == 2 and finder.looks == [320]
    frame_detected(img, finder, 1.0)
    other = SetFinder(share=0.1, score=0.9)
    assert frame_detected(img, other, 0.5) == first and other.looks == [320]
    readsize.forget_frames()
    frame_detected(img, finder, 0.5)
    assert finder.looks == [320, 640, 320]
