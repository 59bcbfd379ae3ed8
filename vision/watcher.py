"""Tray watcher: a motion gate on a small grey frame every frame, a settle window, votes over settled frames.

`TrayWatcher.feed(frame, t)` is called for every camera frame with the frame's own (monotonic) timestamp;
it never looks at the wall clock. The full reader runs only once the tray has been still for `settle_s`,
on `votes` settled frames; their readings are voted die by die. A die whose votes disagree is reported
uncertain; one they agree on is certain when one of them was (`vote`: ONE_LOOK_ENOUGH; without it, when most
were and the read of their mean is), or when each named it surely (NAMED_IN_EVERY_LOOK_AT: its corner
number, a pip die's face network). A hand in the tray (a large region reaching in from the edge) counts as
movement; sensor noise alone does not (lone changed pixels are not motion: `motion_between`).
Every settle teaches the room (`vision.room.Room`: the empty tray learned from what stays still across
settles); once it can be trusted the reader reads each frame both with it and without it and keeps the better
of the two (`vision.room.merge`), so a room never makes a reading worse.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from .classify import load as load_classifier
from .reading import UNNAMED, Reading
from .room import Room, merge

SMALL_W = 80
VOTES = 3   # settled frames read and voted die by die (`vote`)
# A die every look named alike and most looks were certain of is certain without the read of the frames' mean
# (`_backed_by_mean`). Why: on the numbered icon sets' dev seeds (402-404, 408-431, 936 dice, a dump of each
# look) 15 dice were named alike by all three looks, two of them certain, and left unsure by the vote, all
# right; on d6 dev seeds 42-45 (157 dice) one. Shipped at a rule written before fresh seeds 475-476 (numbered
# icon dice) and 1002-1003 (d6) were read: certain-right there 36.23 -> 39.13% and 78.41% both, on the test
# seeds d6 53.57% both, the symbol dice of 200-201 41.94 -> 43.01%, the numbered icon dice of 400-401 40.62 ->
# 42.19%; right, missed and phantoms as before, none certain and wrong (docs/dice-sets.md). The mean frame is
# then never read. False: it must be certain too.
MOST_LOOKS_ENOUGH = True
# ... and one look certain of it is enough, every look still naming it alike (ONE_LOOK_ENOUGH). Why: a die
# the reader is sure of in one draw of the sensor's noise and names alike, unsure, in the others is as a rule
# right (the 41st session's dump of the numbered icon sets' dev seeds: 37 more dice certain, all right). At a
# rule written before fresh seeds were read: certain-right as the watcher reads, numbered icon dice 477-478
# 41.46 -> 46.34% (82 dice), d6 1004 66.67 -> 70.37% and 1005 49.09 -> 50.91%, King of Tokyo's 291 62.50 ->
# 65.62%; right, missed and phantoms as before, no die certain and wrong that was not before, no certain
# reading near no die (docs/dice-sets.md). False: most looks must be certain.
ONE_LOOK_ENOUGH = True
# ... and so is a face every look named at least this surely by the one judge that named it, no look certain
# of it (`Reading.named_p`: the corner number of a numbered set from below, a pip die's face network in its
# own box, `reader.CNN_NAMED_WIDEST`). Why: one look's number, however sure, may be read on a scratch or
# astride two dice; three looks, each a draw of the sensor's noise, that read it alike and surely are the
# templates' agreement's equal (`corner_numbers.AGREED_AT`, the same level).
# On dev seeds 477-482 (236 hero dice, a dump of each look) 8 dice were so, all right; the wrong dice every
# look named alike read their number at most 0.664 in their least sure look. At a rule written before fresh
# seeds were read: certain-right as the watcher reads, hero dice 483-485 44.35 -> 48.70% (115 dice), King of
# Tokyo's 292 the same, none certain and wrong. (For pip dice, the face network's probability, first without a
# bound on its box: taken out after fresh 1009-1010 gave a certain die where none lay; with the bound, the
# 44th session: docs/dice-sets.md.) None: not so.
NAMED_IN_EVERY_LOOK_AT: float | None = 0.95
# A die's looks are counted, not its readings (`_agreed`): a look that read the die twice agrees once. Why: a
# die the reader split in two gave one look two readings of one place, and both joined the die, so the share
# of looks that agree rose above one (a confidence of 1.163 shown on a die certain and wrong, seed 1288 frame
# 17 at the box's read size), and two readings of one look could outvote two looks. (A look that named two
# faces there counting for none cost ten dice certain and right for one certain and wrong on seeds 1274-1289
# and 1298-1305; a die taking one reading a look, the others seeding dice of their own, added unsure
# phantoms, 15 -> 26: both left out, 59th session.) Shipped at rule H16, written before fresh seeds 1306-1313
# were read (`bench/vision_undertray_votes.py`, 480x360): 280 d6, no die's outcome changed, silent 2 and
# phantoms 14 both ways, confidences above one 1 -> 0; King of Tokyo's 200-201 and the demo tray the same
# (docs/dice-sets.md). False: each reading agrees, as one look.
LOOKS_COUNTED_ONCE = True


@dataclass
class TrayStatus:
    state: str                      # "empty", "moving", "settling", "settled"
    readings: list[Reading] = field(default_factory=list)
    new_roll: bool = False          # True exactly once per settled roll
    motion: float = 0.0             # fraction of the small frame that changed since the previous frame
    t: float = 0.0


def small_grey(frame: np.ndarray, width: int = SMALL_W) -> np.ndarray:
    """The motion gate's view: a small grey frame (a fast area-average)."""
    h, w = frame.shape[:2]
    sh = max(1, int(round(h * width / w)))
    # every k-th pixel first (cheap), then an area average down to the gate's size
    k = max(1, w // (2 * width))
    sub = frame[::k, ::k]
    if sub.ndim == 3:
        sub = cv2.cvtColor(np.ascontiguousarray(sub), cv2.COLOR_BGR2GRAY)
    return cv2.resize(np.ascontiguousarray(sub), (width, sh), interpolation=cv2.INTER_AREA)


_SPECK = np.ones((2, 2), np.uint8)


def motion_between(a: np.ndarray, b: np.ndarray, level: int = 10) -> float:
    """Fraction of pixels of two small grey frames that changed (global brightness changes removed).

    Only changes two pixels across count: a die or a hand moving changes a patch, sensor noise and JPEG change
    lone pixels (a tester's replayed empty trays tripped the gate on noise alone in 21 of 100 scenes)."""
    d = cv2.absdiff(a, b)
    # a lamp flicker or auto-exposure shifts everything: take away the typical change
    base = int(np.median(d[::2, ::2]))
    changed = (d > level + base).astype(np.uint8)
    return float(np.count_nonzero(cv2.morphologyEx(changed, cv2.MORPH_OPEN, _SPECK))) / d.size


def vote(frames: list[list[Reading]], mean: Callable[[], list[Reading] | None] | None = None) -> list[Reading]:
    """Combine readings of several settled frames die by die (matched by position). A die is certain where every
    frame was certain of the same face; or where every frame named that face, one of them certain
    (ONE_LOOK_ENOUGH; without it most of them, and without MOST_LOOKS_ENOUGH the read of the frames' mean,
    `mean_frame`, certain of it too; `mean` reads it, asked only for such a die), or every frame named it at
    NAMED_IN_EVERY_LOOK_AT or surer (`Reading.named_p`). Why: each frame has its own
    sensor noise, and a die near the reader's level comes out certain in one draw of it and not in the next
    (Blender's under-tray throws, three looks each, `bench/vision_undertray.py --modes watcher`: tables
    100-129 certain-right 41.07% -> 44.04%, seeds 1-3, 20-21, 42-49 and King of Tokyo's 200-201, 217-221
    37.26% -> 40.42%, silent 1 -> 1 on both; docs/dice-sets.md)."""
    if not frames:
        return []
    n = len(frames)
    mean_readings = functools.cache(mean) if mean is not None else lambda: None   # read once, when first asked

    out = []
    for looked in _clusters(frames):
        c = [r for _, r in looked]
        if (len({k for k, _ in looked}) if LOOKS_COUNTED_ONCE else len(c)) * 2 <= n:
            continue  # seen in at most half the frames: a flicker, not a die
        key, group, agreeing = _agreed(looked)
        agree = agreeing / n
        conf = float(np.mean([x.confidence for x in group])) * agree
        # (a face read: symbols with no number, King of Tokyo's heart, have no value and may be certain)
        certain = agree >= 0.99 and key[1] != UNNAMED and (all(x.certain for x in group) or
                                                           _backed_by_mean(group, mean_readings, n, key))
        cols: dict[str, int] = {}
        for r in c:
            cols[r.colour] = cols.get(r.colour, 0) + 1
        colour = max(cols.items(), key=lambda kv: kv[1])[0]
        ref = max(group, key=lambda x: x.confidence)
        out.append(Reading(key[0], key[1], colour, conf, ref.center, ref.box, certain, key[2]))
    out.sort(key=lambda r: (r.center[1], r.center[0]))
    return out


def _clusters(frames: list[list[Reading]]) -> list[list[tuple[int, Reading]]]:
    """The frames' readings gathered die by die, each with the index of its frame: a reading joins the nearest
    die seeded before it within 0.45 of that die's size, else seeds a die of its own."""
    clusters: list[list[tuple[int, Reading]]] = []
    for k, rs in enumerate(frames):
        for r in rs:
            near = []
            for i, c in enumerate(clusters):
                ref = c[0][1]
                d = math.hypot(r.center[0] - ref.center[0], r.center[1] - ref.center[1])
                if d < 0.45 * max(ref.box[2], ref.box[3], 8):
                    near.append((d, i))
            if near:
                clusters[min(near)[1]].append((k, r))
            else:
                clusters.append([(k, r)])
    return clusters


def _agreed(looked: list[tuple[int, Reading]]) -> tuple[tuple, list[Reading], int]:
    """A die's face (value, face, set: the set too, for a mixed throw, `vision.mixed`), the readings that name
    it, and how many of them agree: the face most readings name (ties: the surer), each reading agreeing. With
    LOOKS_COUNTED_ONCE, the face most looks name and the surest reading of each look that named it, each
    look agreeing once however often it read the die."""
    faces: dict[tuple, list[tuple[int, Reading]]] = {}
    for k, r in looked:
        faces.setdefault((r.value, r.face, r.set), []).append((k, r))
    if not LOOKS_COUNTED_ONCE:
        key, named = max(faces.items(), key=lambda kv: (len(kv[1]), sum(r.confidence for _, r in kv[1])))
        return key, [r for _, r in named], len(named)
    key, named = max(faces.items(), key=lambda kv: (len({k for k, _ in kv[1]}),
                                                    sum(r.confidence for _, r in kv[1])))
    surest: dict[int, Reading] = {}
    for k, r in named:
        if k not in surest or r.confidence > surest[k].confidence:
            surest[k] = r
    return key, list(surest.values()), len(surest)


def _backed_by_mean(group: list[Reading], mean_readings: Callable[[], list[Reading] | None], n: int,
                    key: tuple) -> bool:
    """Whether one of a die's `n` frames (every one naming its face) was certain of it and ONE_LOOK_ENOUGH
    says that is enough; or every one named it surely (`_named_in_every_look`); or most were certain and
    (unless MOST_LOOKS_ENOUGH) the read of their mean is certain of it."""
    sure = sum(1 for x in group if x.certain)
    if (ONE_LOOK_ENOUGH and sure) or _named_in_every_look(group, n):
        return True
    if 2 * sure <= n:
        return False
    if MOST_LOOKS_ENOUGH:
        return True
    mean = mean_readings()
    if mean is None:
        return False
    ref = group[0]
    size = max(ref.box[2], ref.box[3], 8)
    return any(m.certain and (m.value, m.face, m.set) == key and
               math.hypot(m.center[0] - ref.center[0], m.center[1] - ref.center[1]) < 0.45 * size for m in mean)


def _named_in_every_look(group: list[Reading], n: int) -> bool:
    """Whether each of the `n` looks named the die's face at NAMED_IN_EVERY_LOOK_AT or surer."""
    at = NAMED_IN_EVERY_LOOK_AT
    return at is not None and len(group) == n and all(_named_at(x, at) for x in group)


def _named_at(r: Reading, at: float) -> bool:
    """Whether reading `r`'s face was named at least `at` surely (`Reading.named_p`)."""
    return r.named_p is not None and r.named_p >= at


def mean_frame(frames: list[np.ndarray]) -> np.ndarray | None:
    """The per-pixel mean of still frames of one size (None for fewer than two, or sizes that differ): the
    sensor's noise averaged away, the dice where they lie."""
    if len(frames) < 2 or any(f.shape != frames[0].shape for f in frames):
        return None
    # summed in 16 bits (enough for 257 frames), scaled and rounded by OpenCV: a 1296x972 mean of three took
    # 2.6 ms on an x86 core, numpy's float mean 23 ms
    total = frames[0].astype(np.uint16)
    for f in frames[1:]:
        total += f
    return cv2.convertScaleAbs(total, alpha=1.0 / len(frames))


def _same_roll(a: list[Reading], b: list[Reading]) -> bool:
    if len(a) != len(b) or not a:
        return False
    for r in a:
        size = max(r.box[2], r.box[3], 8)
        if not any(math.hypot(r.center[0] - s.center[0], r.center[1] - s.center[1]) < 0.3 * size
                   and r.value == s.value and r.face == s.face for s in b):
            return False
    return True


class TrayWatcher:
    """Feed it every frame; it says when the dice have settled and what they read."""

    def __init__(
        self,
        read: Callable[..., list[Reading]] | None = None,
        settle_s: float = 0.3,
        votes: int = VOTES,
        *,
        dice_set: Any = "d6",  # a DiceSetSpec dict, a DiceSet, or "d6"
        mount: str = "under",
        motion_threshold: float = 0.004,
        pixel_level: int = 10,
        initial_is_roll: bool = False,
        hand_fraction: float = 0.04,
    ):
        if read is None:
            from .reader import read_dice

            def read(frame: np.ndarray, background: np.ndarray | None = None) -> list[Reading]:
                return read_dice(frame, dice_set, mount, background=background)
        self.read = read
        # load the face classifier now, not on the first settled roll (a second lost there under load
        # can be the whole still window of a throw; under the tray its own model, `reader.classifier_for`)
        (load_classifier("pips-under") if mount == "under" else None) or load_classifier("pips")
        try:
            self._read_takes_bg = "background" in inspect.signature(read).parameters
        except (TypeError, ValueError):
            self._read_takes_bg = False
        self.settle_s = float(settle_s)
        self.votes = max(1, int(votes))
        self.motion_threshold = motion_threshold
        self.pixel_level = pixel_level
        self.hand_fraction = hand_fraction
        self.room = Room()
        self._still: list[np.ndarray] = []  # the frames the settled reads were made on (they teach the room)
        self._prev: np.ndarray | None = None
        self._last_motion_t: float | None = None
        self._collected: list[list[Reading]] = []
        self._verdict: list[Reading] | None = None
        self._last_roll: list[Reading] = []
        self._armed = initial_is_roll  # the next settled verdict is a new roll
        self._state = "settling"

    # ------------------------------------------------------------- background
    @property
    def background(self) -> np.ndarray | None:
        """The learned empty tray, once it can be trusted (`vision.room.Room`)."""
        return self.room.image

    def learn_background(self, frame: np.ndarray) -> None:
        """Take `frame` (an empty tray) as the room."""
        self.room.add_empty([frame])
        self._bg_small = small_grey(self.room.image) if self.room.image is not None else None

    _bg_small: np.ndarray | None = None

    def _hand_in_tray(self, small: np.ndarray) -> bool:
        if self._bg_small is None or self._bg_small.shape != small.shape:
            return False
        d = cv2.absdiff(small, self._bg_small)
        base = int(np.median(d))
        m = (d > base + 3 * self.pixel_level).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
        h, w = m.shape
        for i in range(1, n):
            x, y, bw, bh, a = stats[i]
            touches = x == 0 or y == 0 or x + bw >= w or y + bh >= h
            if touches and a > self.hand_fraction * m.size:
                return True
        return False

    # ------------------------------------------------------------- frames
    def _do_read(self, frame: np.ndarray) -> list[Reading]:
        self._still.append(frame)
        return self._read_frame(frame)

    def _read_frame(self, frame: np.ndarray) -> list[Reading]:
        """One frame read as the watcher reads: with the room and without it, merged, once the room is trusted."""
        plain = list(self.read(frame))
        if not self._read_takes_bg or not self.room.ready:
            return plain
        return merge(plain, list(self.read(frame, background=self.room.image)), frame, self.room)

    def _mean_read(self) -> list[Reading] | None:
        """The read of the settled frames' mean (`vote` asks for it only for a die most frames were certain of)."""
        mean = mean_frame(self._still[-self.votes:])
        return self._read_frame(mean) if mean is not None else None

    def _learn_room(self, verdict: list[Reading]) -> None:
        """Every settle teaches the room: an empty one with all its frames, one with dice around them."""
        if not self._still:
            return
        self.room.measure_noise(self._still)
        if verdict:
            self.room.add_settled(self._still[-1], verdict)
        else:
            self.room.add_empty(self._still)
        if self.room.image is not None:
            self._bg_small = small_grey(self.room.image)
        self._still = []

    def feed(self, frame_bgr: np.ndarray, t: float) -> TrayStatus:
        small = small_grey(frame_bgr)
        motion = 0.0
        if self._prev is not None and self._prev.shape == small.shape:
            motion = motion_between(small, self._prev, self.pixel_level)
        self._prev = small
        if self._last_motion_t is None:
            self._last_motion_t = t
        moving = motion > self.motion_threshold or self._hand_in_tray(small)
        if moving:
            self._last_motion_t = t
            self._collected = []
            self._still = []
            self._verdict = None
            self._armed = True
            self._state = "moving"
            return TrayStatus("moving", [], False, motion, t)
        if t - self._last_motion_t < self.settle_s:
            self._state = "settling"
            return TrayStatus("settling", [], False, motion, t)
        if self._verdict is None:
            self._collected.append(self._do_read(frame_bgr))
            if len(self._collected) < self.votes:
                return TrayStatus("settling", [], False, motion, t)
            self._verdict = vote(self._collected, self._mean_read)
            self._learn_room(self._verdict)
        if not self._verdict:
            self._state = "empty"
            self._armed = True
            self._last_roll = []
            return TrayStatus("empty", [], False, motion, t)
        new = False
        if self._armed:
            self._armed = False
            new = not _same_roll(self._verdict, self._last_roll)
            self._last_roll = self._verdict
        self._state = "settled"
        return TrayStatus("settled", list(self._verdict), new, motion, t)
