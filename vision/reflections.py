"""The LED ring's reflections in the plate, taken out of a frame read with its room.

Why. From below, each LED of the ring is mirrored by both surfaces of the plate into the lens: a ring of small
bright spots that lies over whatever die rests there. Read as it is, a spot on a die's face is one more pip to
the face network (a 3 read as a 5 under a ring of spots) or hides a pip. The reflection is light added by the
plate in front of the die, the same with or without dice above it, so the learned room (`vision.room`, the
median of still frames, whose grain is taken out) holds it: what the room has brighter than its own
surroundings, in spots narrower than a pip's neighbourhood, is subtracted from the frame, and from the room so
that the two still differ only where dice lie. Spots fainter than `SPOT_LEVEL` are left alone (the room's
grain, a lamp's soft glow). Where a spot saturated the sensor nothing of the die is left to recover; the die
there is read as it is.

Not shipped: the reader uses it only with `reader.REFLECTIONS_OUT` (off; `bench/vision_undertray.py
--ring-out`), as on fresh frames it gained nothing. Measured (docs/dice-sets.md, "The LED ring's reflections
taken out"): the face network given the true boxes, on under-tray renders already read, right / right and
sure: 64-sample renders 92.53 / 80.42 -> 93.51 / 81.88 (817 dice), grainy renders 90.95 / 73.00 -> 91.25 /
73.60 (663 dice).
"""

from __future__ import annotations

import cv2
import numpy as np

from .readsize import ROOMS

# Side (px at the read size, 320 wide from below) of the opening that leaves the room without its spots: wider
# than the reflection of one LED (3-6 px), narrower than a die.
SPOT_SIDE = 11
# How much brighter than its surroundings (grey levels) a spot of the room is before it is taken out.
SPOT_LEVEL = 50
# A spot's area (px at the read size): smaller is grain the median left, larger a lamp's edge.
SPOT_AREA = (4, 120)
# More spots than this: the room's grain (a dark room at high gain), not a ring; nothing is taken out.
MAX_SPOTS = 48


def without_reflections(frame: np.ndarray, room: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(frame, room) with the room's reflection spots subtracted from both (BGR uint8, same size)."""
    if frame.shape != room.shape:
        return frame, room
    spots = ROOMS.get(room, ("reflection spots",), lambda: reflection_spots(room))
    if not spots.any():
        return frame, room
    bare = ROOMS.get(room, ("without reflections",), lambda: cv2.subtract(room, spots))
    return cv2.subtract(frame, spots), bare


def reflection_spots(room: np.ndarray) -> np.ndarray:
    """The light the plate's reflections add to the room (BGR uint8, 0 off the spots): the room's top-hat at
    `SPOT_SIDE` on its spots (`spot_mask`), grown by a pixel (a spot's soft rim). The room is median-filtered
    first: a lone hot pixel of grain is no reflection."""
    calm = cv2.medianBlur(room, 3)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (SPOT_SIDE, SPOT_SIDE))
    grey_top = cv2.morphologyEx(cv2.cvtColor(calm, cv2.COLOR_BGR2GRAY), cv2.MORPH_TOPHAT, kernel)
    where = cv2.dilate(spot_mask(grey_top), np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(calm, cv2.MORPH_TOPHAT, kernel) * where[:, :, None]


def spot_mask(grey_top: np.ndarray) -> np.ndarray:
    """1 on the pixels of the top-hat's spots: past `SPOT_LEVEL`, of an LED's area (`SPOT_AREA`), and only if
    there are few (at most `MAX_SPOTS` of them, and at most four times as many clusters of any size). Why: a
    dark room's empty tray at high gain is grain clusters all over that pass any level (a Blender frame of a
    black die in a dark room had 630; the frame read without them lost its three dice), while a ring of 6-16
    LEDs mirrored by two surfaces makes at most 32."""
    past = (grey_top > SPOT_LEVEL).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(past, connectivity=8)
    area = stats[1:, cv2.CC_STAT_AREA]
    spot = (area >= SPOT_AREA[0]) & (area <= SPOT_AREA[1])
    if n <= 1 or int(spot.sum()) > MAX_SPOTS or n - 1 > 4 * MAX_SPOTS:
        return np.zeros(grey_top.shape, np.uint8)
    return np.concatenate([np.zeros(1, np.uint8), spot.astype(np.uint8)])[labels]
