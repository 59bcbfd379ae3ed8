"""The size a frame is read at: shrunk when large, and under the tray where its dice are the size the reader knows.

Why a stage of its own: the reader's networks and hand-made cues were built on the box's view rendered at 320x240
(dice 35-85 px), and they read dice of about that size best. A camera gives them other sizes: the Pi camera's
1296x972 frame of the same tray has dice three times the pixels, a USB camera closer to the tray or a longer lens
other sizes again. A frame is first read at the camera side (`camera_side`); where the dice came out far from
the networks' size, and the learned finder (which saw dice at many zooms) measures them so too, it is read again
where they are `DIE_AT` px (`better_side`; docs/dice-sets.md, "The size a die is read at").
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

import cv2
import numpy as np

from .detector import DieDetector
from .reading import Reading

WORKING_SIDE = 960  # px: a larger frame is shrunk to this (its longer side) before it is read
# Under the tray a camera's frame (longer side above CAMERA_FRAME px: the Pi camera's 1296x972) of a set read by a
# network trained on the box's view at 320x240 is read at UNDER_CAMERA_SIDE unless its dice say otherwise. Why: the
# same tray at the camera's pixels, read at 960 px, gives dice three times the renders', where the hand-made cues
# find dice in the grain and lose real ones. Blender's seed 42 rendered at 960x720 (20 frames, 47 d6), merged
# certain-right / alone certain-right, read at 960 / 640 / 480 / 320 px: 46.81 / 68.09 / 72.34 / 61.70% and 6.38 /
# 36.17 / 53.19 / 46.81%, silent 0 at each (2026-11-27, eighth session).
CAMERA_FRAME = 640
UNDER_CAMERA_SIDE = 480
# Under the tray, a frame whose dice were read smaller than DIE_LOW px or larger than DIE_HIGH px, and which the
# finder measures so, is read again where they are DIE_AT px (never more than MOST_GROWN times its own size). Why
# a band and not every frame brought to DIE_AT: on frames rendered at 960x720 (seeds 1, 2, 20, 21; 113 d6) every
# frame brought to 88 px by the finder's measure read alone lost 10 points certain-right against the fixed 480 px
# (the measure is 10-15% off on one frame in five); the band leaves the renders' own sizes as they were and catches
# cameras that see dice far from them (bench/vision_undertray.py --scale K; docs/dice-sets.md, "The size a die is
# read at"). DIE_LOW 44 grew table 120's frames (dice 35-46 px, inside the networks' range) and made a die there
# certain and wrong; at 36 none.
DIE_AT = 88
DIE_LOW = 36
DIE_HIGH = 100
MOST_GROWN = 2.0
# The finder looks at the frame shrunk to each of these longer sides, and the look where its surest die is surer
# measures the dice. Why two: it finds dice of 0.6 to 1.7 times the renders' share of the frame; at one side a
# frame of dice of another share gives boxes of the size it knows (64 px dice in a 1296 px frame measured 166-190
# px at 320, 73 px at 640: vision/render.py's frames), and the surer look was the right one on those frames.
PROBE_SIDES = (320, 640)
PROBE_AT = 0.3      # the finder's own threshold: its dice above it are measured
# ... and a look whose surest die is this sure ends the search. Why: each look costs a finder pass (at 640 px about
# 2.4 ms on one core, at 320 px 1 ms), and on Blender's frames the look at 320 px was this sure on 88% of them
# (seeds 1-3, 20-21, 42-43, 109, 120 at 320x240 and 1-3, 20-21, 42-43 at 960x720; median 0.73-0.75).
PROBE_SURE = 0.6


def camera_side(frame: np.ndarray, under_at_320: bool) -> int:
    """The longer side a frame is first read at. `under_at_320`: a frame under the tray of a set whose network
    learnt the box's view at 320x240 (a camera's frame at UNDER_CAMERA_SIDE, a smaller one as it is); any other
    is only shrunk to WORKING_SIDE."""
    long_side = max(frame.shape[:2])
    if not under_at_320:
        return min(long_side, WORKING_SIDE)
    return UNDER_CAMERA_SIDE if long_side > CAMERA_FRAME else long_side


def better_side(frame: np.ndarray, side: int, read_sides: list[float], finder: DieDetector | None) -> int:
    """The side a frame read at `side` is read at again (`side`: not again). Its certain readings' median box side
    (`read_sides`, in the frame's px) inside the band at `side` keeps it, at no cost; else (none certain, or read
    outside it) the learned finder measures the dice (`probed_die_side`), and dice it measures outside the band
    are read where they are DIE_AT px. Why only the certain: the uncertain readings of a frame of large dice are
    mostly parts and grain (640x480 frames of dice twice the renders': 176 phantoms on 411 dice), whose median
    kept such frames at their side."""
    long_side = max(frame.shape[:2])
    if read_sides and in_band(float(np.median(read_sides)) * side / long_side):
        return side
    die = probed_die_side(frame, finder) if finder is not None else None
    if die is None or in_band(die * side / long_side):
        return side
    return int(min(long_side * MOST_GROWN, WORKING_SIDE, long_side * DIE_AT / die))


def in_band(die: float) -> bool:
    """Whether a die of `die` px is read where the networks know dice (DIE_LOW-DIE_HIGH)."""
    return DIE_LOW <= die <= DIE_HIGH


def probed_die_side(frame: np.ndarray, finder: DieDetector) -> float | None:
    """The frame's usual die side (px, the median of the finder's dice) in the surest of its looks at PROBE_SIDES
    (the first look sure enough ends them); None where it sees no die."""
    best: tuple[float, float] | None = None   # (the look's surest die, its median side)
    for side in PROBE_SIDES:
        small, _, k = at_read_size(frame, None, min(side, max(frame.shape[:2])))
        found = [d for d in finder.detect(small) if d.score >= PROBE_AT]
        if found and (best is None or found[0].score > best[0]):
            best = (found[0].score, float(np.median([max(d.box[2:]) for d in found])) / k)
        if k == 1.0 or (best is not None and best[0] >= PROBE_SURE):
            break
    return None if best is None else best[1]


def at_read_size(frame: np.ndarray, background: np.ndarray | None, side: int
                 ) -> tuple[np.ndarray, np.ndarray | None, float]:
    """The frame (and its background) with its longer side `side` (shrunk by area, grown bicubic), and the scale
    from the frame given."""
    h, w = frame.shape[:2]
    if side == max(h, w):
        return frame, background, 1.0
    scale = float(side) / max(h, w)
    size = (int(w * scale), int(h * scale))
    img = _at(frame, size, FRAMES)
    if background is not None:
        background = _at(background, size, ROOMS)
    return img, background, scale


def resized(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """`img` at `size` (w, h): shrunk by area, grown bicubic. (Not shrunk by exact halves first, OpenCV's fast
    path: the Pi camera's 1296x972 frame to 480x360 took 0.5 + 4.1 ms so against 10.1 ms at once on one core,
    but the pip finder missed more d6 on the pixels it gave. Blender's d6 test seeds 1-3 enlarged to 1296x972,
    read without the room: right 77.60% -> 73.60%, missed 8.80% -> 11.60%; King of Tokyo's seeds 200-201 and
    223-225 about as before, 83.04% -> 83.26%. Each frame is shrunk once for its two reads: `FRAMES`.)"""
    how = cv2.INTER_CUBIC if size[0] > img.shape[1] else cv2.INTER_AREA
    return cv2.resize(img, size, interpolation=how)


def frame_key(a: np.ndarray) -> tuple:
    """What tells one frame from another without reading all of it: its identity, shape and a sparse sum (an
    array changed in place sums otherwise)."""
    return id(a), a.shape, int(a[::29, ::31].sum())


class FrameCache:
    """What the reader makes from a frame it is handed again (the frame at a read size, the room's Lab copy),
    kept for the last `keep` of them (by `frame_key`). Why: the watcher hands the same room to every read until
    it learns a new one, and reads each settled frame twice, without the room and with it; making them again
    cost each read of a Pi camera frame 13-19 ms on one core (`bench/vision_speed.py`'s camera line). The
    frame given is held too, so that no new frame takes its identity while its key is kept; what is kept is
    read-only, as every read shares it."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._made: OrderedDict[tuple, tuple[np.ndarray, np.ndarray]] = OrderedDict()

    def get(self, frame: np.ndarray, what: tuple, make: Callable[[], np.ndarray]) -> np.ndarray:
        """`make()`'s array for `what` of this frame, made once."""
        key = (frame_key(frame), what)
        hit = self._made.get(key)
        if hit is not None:
            self._made.move_to_end(key)
            return hit[1]
        made = make()
        made.setflags(write=False)
        self._made[key] = (frame, made)
        if len(self._made) > self.keep:
            self._made.popitem(last=False)
        return made

    def clear(self) -> None:
        """Forget every frame (a bench timing a frame's first read)."""
        self._made.clear()


# the learned room: a few sizes and copies of the last rooms (with `reader.REFLECTIONS_OUT` each size also
# holds its LED spots, the room without them and that one's Lab copy: `vision.reflections`; spots cost ms)
ROOMS = FrameCache(keep=16)
FRAMES = FrameCache(keep=2)   # the frame being read: its two reads (without the room, with it) at one size
FOUND = FrameCache(keep=2)    # ... and the learned finder's boxes in it (`find.frame_detected`)


def forget_frames() -> None:
    """Forget the frames being read and what was found in them (a bench timing a frame's first read)."""
    FRAMES.clear()
    FOUND.clear()


def _at(frame: np.ndarray, size: tuple[int, int], cache: FrameCache) -> np.ndarray:
    """The frame (or room) at `size`, made once while `cache` keeps it."""
    return cache.get(frame, ("resized", size), lambda: resized(frame, size))


def unscaled(r: Reading, scale: float) -> Reading:
    """A reading moved back to the frame as given (it was read at `scale`)."""
    if scale == 1.0:
        return r
    cx, cy = r.center
    bx, by, bw, bh = r.box
    return Reading(r.value, r.face, r.colour, r.confidence, (cx / scale, cy / scale),
                   (int(bx / scale), int(by / scale), int(bw / scale), int(bh / scale)), r.certain)


__all__ = ["WORKING_SIDE", "camera_side", "better_side", "in_band", "probed_die_side", "at_read_size",
           "unscaled", "forget_frames"]
