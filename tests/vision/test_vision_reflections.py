"""The LED ring's reflections taken out of a frame read with its room (`vision.reflections`)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.reflections import SPOT_LEVEL, without_reflections


def _ring() -> np.ndarray:
    """The light a ring of twelve LEDs mirrored by the plate adds to every frame (small spots of +90)."""
    light = np.zeros((240, 320, 3), np.uint8)
    for k in range(12):
        a = 2 * np.pi * k / 12
        cv2.circle(light, (int(160 + 60 * np.cos(a)), int(120 + 60 * np.sin(a))), 2, (90, 90, 90), -1)
    return light


def _scene(seed: int = 0) -> np.ndarray:
    """A dim room (320x240) with the grain a median of still frames leaves."""
    rng = np.random.default_rng(seed)
    return np.clip(rng.normal(70, 2, (240, 320, 3)), 0, 255).astype(np.uint8)


def _die_on(frame: np.ndarray) -> np.ndarray:
    """A white die whose face holds two dark pips, lying over the ring's rightmost spot (220, 120)."""
    cv2.rectangle(frame, (200, 100), (240, 140), (150, 150, 150), -1)
    for centre in ((210, 110), (230, 130)):
        cv2.circle(frame, centre, 4, (30, 30, 30), -1)
    return frame


def test_a_spot_of_the_ring_on_a_die_is_taken_out_and_its_pips_stay() -> None:
    # rule (issue 31 #2): the room helps: a reflection on a die's face is no pip; the die's own pips stay
    room = cv2.add(_scene(), _ring())
    frame = cv2.add(_die_on(_scene()), _ring())              # the plate mirrors the LED over the die too
    bare, bare_room = without_reflections(frame, room)
    assert frame[120, 220].min() >= 235
    assert abs(int(bare[120, 220, 0]) - 150) <= 25         # the die's face where the spot was
    assert bare[110, 210].max() <= 40 and bare[130, 230].max() <= 40   # its pips, still dark
    assert bare_room[120, 220].max() <= 90                 # the room loses the same spot, so they still agree
    assert np.array_equal(bare[60:90, 20:60], frame[60:90, 20:60])   # off the spots nothing changes


def test_grain_and_a_lamps_glow_are_no_reflection() -> None:
    # rule (docs/dice-sets.md, "The LED ring's reflections taken out"): only spots SPOT_LEVEL brighter than
    # their surroundings are taken out: hot pixels of grain and a lamp's wide glow are the room, as before
    rng = np.random.default_rng(3)
    room = np.clip(rng.normal(70, 2, (240, 320, 3)), 0, 255).astype(np.uint8)
    hot = rng.integers(0, 240 * 320, 60)
    room.reshape(-1, 3)[hot] = 255                           # lone hot pixels
    yy, xx = np.mgrid[:240, :320]
    glow = 120 * np.exp(-((xx - 100) ** 2 + (yy - 80) ** 2) / (2 * 25.0 ** 2))
    room = np.clip(room + glow[:, :, None], 0, 255).astype(np.uint8)
    cv2.circle(room, (250, 200), 2, (70 + SPOT_LEVEL - 15,) * 3, -1)   # a spot fainter than the level
    frame = _die_on(room.copy())
    bare, bare_room = without_reflections(frame, room)
    assert bare is frame and bare_room is room


def test_a_dark_rooms_grain_is_no_ring() -> None:
    # rule (docs/dice-sets.md, "The LED ring's reflections taken out"): more spots than MAX_SPOTS are the
    # grain of a dark room at high gain (a Blender frame had 630; read without them its three dice were lost):
    # nothing is taken out, the ring with them included
    rng = np.random.default_rng(5)
    room = cv2.add(_scene(), _ring())
    for x, y in zip(rng.integers(5, 315, 200), rng.integers(5, 235, 200), strict=True):
        room[y:y + 3, x:x + 3] = 200                          # clusters of grain the 3x3 median keeps
    frame = _die_on(room.copy())
    assert without_reflections(frame, room)[0] is frame


def test_a_frame_of_another_size_than_its_room_is_read_as_it_is() -> None:
    room = cv2.add(_scene(), _ring())
    frame = np.zeros((120, 160, 3), np.uint8)
    assert without_reflections(frame, room)[0] is frame
