"""The box's room: what its camera sees through an empty tray, learned as it plays, and used only to help.

Why this shape. From below, the camera sees its own LED ring and board mirrored in both surfaces of the plate,
and the room above through it. Read alone, a frame takes some of those for dice (phantoms); told what the
empty tray looks like, the reader can ignore them. But a room learned wrong makes reading worse than none: a
tester gave the reader each scene's empty tray and accuracy fell from 24.6% to 5.3%, and the old watcher, which
learned its room only from a settled frame it read as empty, learned it in 3 of 100 scenes (phantoms made no
frame read as empty) from one noisy frame. So:

- **Learned from what stays**: the room is the per-pixel median of the still frames of several settles (an
  empty tray, and every throw: a die lies in a different place each throw, the ring and the board never move).
  Where a settle's readings put dice, that frame does not vote (the room so far stands in). A still empty tray
  alone is enough (its frames' median takes the sensor noise out); three throws are enough too.
- **Kept up to date**: every settle adds its frame (the oldest goes), so a lamp switched on drifts in.
- **An aid, never a requirement**: `merge` joins the reading with the room and the reading without it. Dice
  both read keep the surer reading; a die two certain reads name differently is never certain, while a
  certain read with the room stands against an unsure one without it (the better judge is not vetoed by the
  weaker); a certain read without the room does not stand against the read with it naming another face,
  sure or not (`ROOM_DOUBT_VETOES`: the room read sees the die apart from the tray's own things). A die only
  the read with the room found is kept (the room told it apart from a bright neighbour). A die only the read
  without the room found is dropped only if the frame there is the room itself (within the sensor's noise):
  a reflection, unless the frame there is not plainly the room and it is certain, or near the noise's edge
  (a translucent die on a noisy frame); otherwise it keeps its own certainty (the read with the room missed a
  die). A box that never saw its tray still reads, as before.
"""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np

from .reading import Reading

KEEP = 5          # still frames the median is taken over
READY_THROWS = 3  # settles with dice after which the room stands even if the tray was never seen empty
# A die only the read without the room found keeps its certainty when it lies in a blob of the read with the room
# that held two or more dice of the read without it (touching dice the room did not part: the room confirms
# something is there, and the die's own read is as sure as any other). Before, every such die was a guess, and
# under the tray no touching die was ever certain as the watcher reads (docs/dice-sets.md, "Four turns of every
# die, and touching dice the room did not part").
PARTED_KEEP_CERTAIN = True
# ... and so does one where the read with the room found nothing and the frame there is not the room itself
# (`Room.matches`): the room read misses dice (a die on a grainy frame, a die beside a lamp's glow). At first
# only where the frame was plainly not the room (`Room.contrast` past 2), for fear of a reflection or glare
# the room does not quite match: Blender's under-tray frames as the watcher reads, certain-right, d6 test
# seeds 1-3 and 20-21 41.84% -> 43.72%, King of Tokyo seeds 200-201 4.88% -> 7.32%, silent 0 and no certain
# phantom. In the thirteenth session of issue 31 every such certain reading between 1 and 2 was right: 88 over
# King of Tokyo seeds 200-201, 223-231 and 235-249, d6 seeds 1-3, 20-21, 25-29, 33-49 and tables 100-129 read
# alone and with the room, none wrong or on no die (and the 142 past 2). Without that margin, merged (as the
# watcher reads), certain-right: King of Tokyo 30.15% -> 34.49% (29.50% -> 33.95%), d6 seeds 54.09% -> 54.65%
# (52.88% -> 53.16%), tables 45.81% -> 46.54%; at 960x720 King of Tokyo 45.83% -> 47.92%, d6 75.99% -> 76.84%;
# silent as before in every one.
ALONE_KEEP_CERTAIN = True
# ... and a certain one within the room's noise, unless the frame there is plainly the room (contrast at most
# this), and an unsure one nearer the noise's edge (past FAINT_KEEP_UNSURE): see `_seen_alone`. math.inf: the
# old rule, every reading within the noise dropped. 0.8: of the readings the merge dropped on twelve tables
# (118-129), 24 of 26 on a die lay past it and 6 of 18 on no die; on seeds 4, 5, 25-29 and King of Tokyo's
# 200-201 and 223-231, as the watcher reads, 20 more dice found and 8 more phantoms.
FAINT_KEEP_CERTAIN = 0.5
FAINT_KEEP_UNSURE = 0.8
# An unsure reading of the read without the room that holds two or more of the read with it is left out
# (as `_holds_two` leaves out the other way round): two touching dice the learned finder boxed as one, which
# the read with the room parted (Blender seed 400 frame 8: a guess across two dice outranked each die's
# own).
PARTS_WITH_ROOM = True
# A die whose surer read is the one without the room is left unsure when the read with the room names another
# face, even unsurely (the other way round an unsure roomless read never unseats a certain read with the room,
# see `_joined`). Why: both silent design dice at the box's read size were certain and wrong without the room
# and the merge kept them; one of them the read with the room had named rightly but unsurely (57th session).
# Shipped by rule H12 (58th session, docs/dice-sets.md), judged at the box's read size on fresh seeds
# 1280-1287 (306 d6, 640x480 renders read at 480x360): merged certain-right 79.74 -> 79.41%, silent 1 -> 0;
# as the watcher reads, no die changed; King of Tokyo's 200-201 (93 dice) unchanged. False: off
# (`bench/vision_undertray_paired.py --a-set room.ROOM_DOUBT_VETOES=False`).
ROOM_DOUBT_VETOES = True


class Room:
    """The learned empty tray (see the module doc). `image` is None until it can be trusted."""

    def __init__(self, keep: int = KEEP) -> None:
        self.keep = keep
        self._frames: list[np.ndarray] = []
        self._empty_seen = False
        self._throws = 0
        self.image: np.ndarray | None = None
        self.noise = 0.0  # the sensor's noise (grey levels, one sigma) measured between still frames

    @property
    def ready(self) -> bool:
        return self.image is not None

    def add_empty(self, frames: list[np.ndarray]) -> None:
        """Still frames of an empty tray (a settle that read no die): their median is the room at once."""
        if not frames:
            return
        self._empty_seen = True
        self.measure_noise(frames)
        self._push(_median(frames))

    def measure_noise(self, frames: list[np.ndarray]) -> None:
        """The sensor's noise from consecutive still frames (any settle: dice do not move between them)."""
        if len(frames) >= 2:
            self.noise = max(self.noise * 0.5, _noise_between(frames))

    def add_settled(self, frame: np.ndarray, readings: list[Reading]) -> None:
        """A settled frame with dice: it votes for the room everywhere but where the dice lie (where the room
        is not known yet, the frame votes there too: the median of several throws outvotes one die)."""
        self._throws += 1
        if self.image is not None and self.image.shape == frame.shape:
            frame = frame.copy()
            mask = dice_mask(frame.shape[:2], readings)
            frame[mask] = self.image[mask]
        self._push(frame)

    def _push(self, frame: np.ndarray) -> None:
        if self._frames and self._frames[0].shape != frame.shape:
            self._frames.clear()
        self._frames = (self._frames + [frame])[-self.keep:]
        if self._empty_seen or self._throws >= READY_THROWS:
            self.image = _median(self._frames)

    def difference_floor(self, frame: np.ndarray) -> float:
        """How much `frame` differs from the room where nothing lies (most of the tray): the median
        difference, grey levels. Sensor noise, a lamp dimmed, the render's own noise all raise it."""
        if self.image is None or self.image.shape != frame.shape:
            return 0.0
        k = block_side(frame.shape)
        return float(np.median(cv2.absdiff(_blocks(frame, k), _blocks(self.image, k))))

    def matches(self, frame: np.ndarray, box: tuple[int, int, int, int], floor: float = 0.0) -> bool:
        """Whether `frame` inside `box` is the room itself (no die there): three quarters of its blocks
        (`block_side`) within a few sigmas of the sensor's noise, or of the frame's own difference to the room
        elsewhere (`floor`). Why not the mean: a die fills about half of a loose box, and on a grainy frame (a
        dark room, floor 13) the mean of a box over two touching yellow dice came to 32.3, under 2.5 x 13, and
        both were dropped as the room. Blender's under-tray frames as the watcher reads, missed (phantoms),
        mean -> 75th percentile: d6 seeds 1-3 and 20-21 10.04% (10) -> 8.79% (11), seeds 25-29 and 33 7.74%
        (14) -> 6.11% (17), King of Tokyo seeds 200-201 8.54% (0) -> 4.27% (1); the 90th percentile 8.16% (27)
        on the first."""
        contrast = self.contrast(frame, box, floor)
        return contrast is not None and contrast <= 1.0

    def contrast(self, frame: np.ndarray, box: tuple[int, int, int, int], floor: float = 0.0) -> float | None:
        """How far `frame` inside `box` is from the room, in units of what `matches` allows (at most 1: the room
        itself); None without a room or a box. The 75th percentile of the box's blocks' difference to the room
        over a few sigmas of the sensor's noise or of `floor`."""
        if self.image is None or self.image.shape != frame.shape:
            return None
        x, y, w, h = (int(v) for v in box)
        x0, y0 = max(0, x), max(0, y)
        a = frame[y0:y + h, x0:x + w]
        b = self.image[y0:y + h, x0:x + w]
        if a.size == 0:
            return None
        k = block_side(frame.shape)
        diff = float(np.percentile(cv2.absdiff(_blocks(a, k), _blocks(b, k)), 75))
        # two noisy frames differ by |N(0, sigma * sqrt 2)|: on average 1.13 sigma, three quarters of it under
        # 1.63 sigma (a block's mean: a quarter of that or less); a die differs by tens of levels
        return diff / max(8.0, 0.625 * self.noise * math.sqrt(2), 2.5 * floor)


def dice_mask(shape: tuple[int, int], readings: list[Reading], grow: float = 1.3) -> np.ndarray:
    """True where the readings' dice lie (boxes grown by `grow`: a die's shadow and glow too)."""
    mask = np.zeros(shape, dtype=bool)
    for r in readings:
        x, y, w, h = r.box
        cx, cy = x + w / 2, y + h / 2
        hw, hh = w * grow / 2, h * grow / 2
        mask[max(0, int(cy - hh)):int(math.ceil(cy + hh)), max(0, int(cx - hw)):int(math.ceil(cx + hw))] = True
    return mask


def merge(plain: list[Reading], with_room: list[Reading], frame: np.ndarray, room: Room) -> list[Reading]:
    """One reading of the frame from the read without the room and the read with it (see the module doc)."""
    out: list[Reading] = []
    used: set[int] = {j for j, o in enumerate(with_room) if not o.certain and _holds_two(o, plain)}
    pairs = [with_room[j] for j in used]   # blobs of touching dice the read with the room did not part
    if PARTS_WITH_ROOM:   # and those the read without the room did not part, when the other parted them
        parted = [o for j, o in enumerate(with_room) if j not in used]
        plain = [r for r in plain if r.certain or not _holds_two(r, parted)]
    floor = room.difference_floor(frame)
    for r in plain:
        j = _nearest(r, with_room, used)
        if j is None:
            kept = _seen_alone(r, room.contrast(frame, r.box, floor), pairs)
            if kept is not None:
                out.append(kept)
            continue
        used.add(j)
        out.append(_joined(r, with_room[j]))
    out += [r for j, r in enumerate(with_room) if j not in used]
    out.sort(key=lambda r: (r.center[1], r.center[0]))
    return out


def _seen_alone(r: Reading, contrast: float | None, pairs: list[Reading]) -> Reading | None:
    """A die only the roomless read saw (None: the room itself, `Room.matches`). Past the room's noise it
    keeps its own certainty where the room shows something there (`ALONE_KEEP_CERTAIN`) or it is one of
    touching dice the read with the room saw as one blob (`PARTED_KEEP_CERTAIN`); without a room to compare
    with, it is a guess. Within the noise but not plainly the room a certain reading stays
    (`FAINT_KEEP_CERTAIN`), and an unsure one near the noise's edge (`FAINT_KEEP_UNSURE`): a translucent die
    on a frame that differs from its room all over."""
    if contrast is not None and contrast <= 1.0:
        return r if contrast > (FAINT_KEEP_CERTAIN if r.certain else FAINT_KEEP_UNSURE) else None
    keep = (PARTED_KEEP_CERTAIN and _inside_any(r, pairs)) or (ALONE_KEEP_CERTAIN and contrast is not None)
    return r if keep else replace(r, certain=False, named_p=None)   # a guess, however surely it was named


def _joined(plain: Reading, roomed: Reading) -> Reading:
    """The two reads of one die: the surer one. It stays certain unless the other read is certain too and
    names another face. Why not any disagreement: the read without the room, unsure of a die (a black King of
    Tokyo die on the dark room, a noisy frame), vetoed the read with the room that was certain and right, so
    the demo tray asked about 70% of King of Tokyo throws (bench/demo_box.py); two sure reads that differ
    mean one of them is wrong, and then the page asks. With `ROOM_DOUBT_VETOES` the read with the room,
    unsure, unseats a certain read without it (not the other way round)."""
    if (plain.certain, plain.confidence) >= (roomed.certain, roomed.confidence):
        best, other, vetoes = plain, roomed, roomed.certain or ROOM_DOUBT_VETOES
    else:
        best, other, vetoes = roomed, plain, plain.certain
    disputed = (other.value, other.face) != (best.value, best.face)
    return replace(best, certain=best.certain and not (disputed and vetoes))


def _centre_in(r: Reading, o: Reading) -> bool:
    """Whether `r`'s centre lies in `o`'s box (x, y, w, h)."""
    x, y, w, h = o.box
    return x <= r.center[0] <= x + w and y <= r.center[1] <= y + h


def _inside_any(r: Reading, blobs: list[Reading]) -> bool:
    return any(_centre_in(r, o) for o in blobs)


def _holds_two(o: Reading, plain: list[Reading]) -> bool:
    """Whether a read with the room holds two or more dice of the read without it: touching dice that differ
    little from each other make one blob of difference to the room, while the roomless read (its learned
    finder) parts them; the blob's reading, centred between the dice, is then no die's and is left out,
    unless it is certain (a die with a lamp's glow around it held a second, roomless reading of the glow: on
    the demo tray, 3 of 60 King of Tokyo dice lost their certain reading so)."""
    return sum(1 for r in plain if _centre_in(r, o)) >= 2


def _nearest(r: Reading, others: list[Reading], used: set[int]) -> int | None:
    size = max(r.box[2], r.box[3], 8)
    best, bd = None, 0.5 * size
    for j, o in enumerate(others):
        d = math.hypot(r.center[0] - o.center[0], r.center[1] - o.center[1])
        if j not in used and d < bd:
            best, bd = j, d
    return best


def _blocks(img: np.ndarray, k: int) -> np.ndarray:
    """The means of k x k blocks: what differs between a frame and the room, with the grain averaged out. Why:
    compared pixel by pixel, a grainy sensor (or a path-traced render) differs from the room by 20-30 levels
    everywhere, and a dark die on a dark room by little more, so the room test called such a die the room
    and the read without the room lost it (under-tray King of Tokyo renders, seeds 200-201)."""
    h, w = img.shape[:2]
    return cv2.resize(img, (max(1, w // k), max(1, h // k)), interpolation=cv2.INTER_AREA)


def block_side(shape: tuple[int, ...]) -> int:
    """The side of the blocks a frame is compared with the room in: 4 px of a 320 px frame, and as large a
    share of any other (16 px of the Pi camera's 1296 px). Why a share: a frame of more pixels of the same
    tray has grain spanning more of them (a render enlarged, a sensor's noise smoothed by its processing), and
    4 px blocks of a 1296 px frame averaged too little of it. The frame's difference to the room where nothing
    lies (`Room.difference_floor`) rose with the grain, the room called dark dice itself, and merged reads
    missed them: King of Tokyo seeds 200-201 and 223-230 enlarged to 1296x972 (`bench/vision_undertray.py
    --scale 4.05`), merged, missed 12.25% with 4 px blocks, 4.55% with 16 px (docs/dice-sets.md)."""
    return max(4, int(round(4 * max(shape[:2]) / 320)))


def _median(frames: list[np.ndarray]) -> np.ndarray:
    if len(frames) == 1:
        return frames[0].copy()
    return np.median(np.stack(frames), axis=0).astype(np.uint8)


def _noise_between(frames: list[np.ndarray]) -> float:
    """The sensor's noise sigma (grey levels) from the differences of consecutive still frames."""
    if len(frames) < 2:
        return 0.0
    a = cv2.cvtColor(frames[0], cv2.COLOR_BGR2GRAY).astype(np.float32)
    b = cv2.cvtColor(frames[1], cv2.COLOR_BGR2GRAY).astype(np.float32)
    d = (a - b)[::2, ::2]
    return float(1.4826 * np.median(np.abs(d - np.median(d))) / math.sqrt(2))
