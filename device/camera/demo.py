"""The demo tray: a camera source that renders pip dice being thrown into a tray seen from below.

It lets the whole box run on a PC with no camera. It throws in one of two ways (`throw`):

- "ask" (what `dicesight run` does): the tray stays empty until someone asks for a throw (`throw()`: the
  page's "Throw the dice", the panel's throw button); then a hand picks up the dice lying there, if any,
  and the new dice slide in, tumble, settle and lie still until the next throw is asked for or a new game
  sweeps them away (`sweep()`). Players go at their own pace, as with real dice.
- "auto" (`--demo-throw auto`, for benches and tests): every CYCLE_S seconds a handful of dice slide in,
  tumble, settle, lie still, and are picked up by a hand.

What it throws is a pure function of the seed and the throw number (`DemoTray.plan`), so tests can know
what the reader should have seen.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from vision.dicesets import DiceSet, get_set
from vision.render import DieSpec, render_tray

from ..dice_sets import spec
from .base import CameraError, Frame

# Seconds of each part of one throw cycle.
EMPTY_S = 1.2
THROW_S = 1.0
STILL_S = 3.2
PICKUP_S = 0.8
CYCLE_S = EMPTY_S + THROW_S + STILL_S + PICKUP_S
GAP_S = 0.3  # asked for: the empty tray between the hand taking the last dice and the new ones coming in
THROW_MODES = ("ask", "auto")


@dataclass(frozen=True)
class _Step:
    """From tray time `at` on (asked-for throws): throw number `throw` coming in ("throw"), or its dice
    being picked up ("sweep")."""

    at: float
    kind: str
    throw: int


@dataclass(frozen=True)
class PlannedDie:
    """Where one thrown die comes from and where it comes to rest, and the face it ends on (top)."""

    start: tuple[float, float]
    end: tuple[float, float]
    spin: float
    angle: float
    value: int
    colour: str
    dice_set: DiceSet | None = None  # its own set in a throw that mixes sets, else the throw's


class DemoTray:
    """A FrameSource that synthesises throws (see module doc). `realtime=False` serves frames instantly
    with synthetic timestamps, for tests; otherwise `read` paces itself to `fps`.

    Its time is injected (`clock`, `sleep`) and may run fast: with `speed=S` each frame, still paced at
    `fps` on `clock`, moves the tray's own time (and the timestamp the watcher settles by) on by S / fps,
    so a throw cycle of CYCLE_S seconds takes CYCLE_S / S (`dicesight run --demo-speed S`: browser tests
    get a throw every second or two instead of every six); on a machine too busy for `fps` the tray slows
    down with it rather than skipping a throw. `realtime=False` needs no clock at all:
    each `read` is the next frame, 1/fps of tray time later.

    `throw` is "ask" or "auto" (module doc). Asked-for throws are steps on the tray's own time, written
    by `throw`/`sweep` from any thread (the page's request) and read by `read` in the camera thread."""

    name = "demo"

    def __init__(self, seed: int = 1, fps: float = 15.0, width: int = 640, height: int = 480,
                 mount: str = "under", realtime: bool = True, dice_size: int = 64,
                 colours: tuple[str, ...] = ("white",),
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, speed: float = 1.0, throw: str = "auto") -> None:
        if not speed > 0:
            raise ValueError(f"The demo tray's speed must be above 0, not {speed!r}.")
        if throw not in THROW_MODES:
            raise ValueError(f"The demo tray throws \"ask\" (when asked) or \"auto\", not {throw!r}.")
        self.throw_mode = throw
        self._steps: list[_Step] = []  # asked-for throws and sweeps, in tray time order
        self._steps_lock = threading.Lock()
        self._render = render_tray
        self.seed = seed
        self.fps = fps
        self.width, self.height = width, height
        self.mount = mount
        self.realtime = realtime
        self.speed = float(speed)
        self.dice_size = dice_size
        self.colours = colours
        self._clock, self._sleep = clock, sleep
        # What to throw next: (dice set, how many or None) asked of the table when a throw starts, so in a
        # Dice Throne game the demo throws the rolling hero's dice, as many as the game waits for.
        self.follow: Callable[[], tuple[str, int | None]] | None = None
        # A throw that mixes sets (Mage Wars' attack dice with the d12): {set id: how many}, asked likewise.
        self.follow_sets: Callable[[], dict[str, int | None]] | None = None
        # The colours the game waits for (one per die, or those allowed), asked likewise.
        self.follow_colours: Callable[[], list[str]] | None = None
        self._plans: dict[int, tuple[str, list[PlannedDie]]] = {}
        self._voided: set[int] = set()  # "auto": throws a new game swept away (never shown)
        self._frame_no = 0
        self._t0: float | None = None  # the tray's time starts with the first frame read, not at opening
        self._elapsed = 0.0  # the tray's time at the last frame read
        self._closed = False

    # -- what it throws ---------------------------------------------------------------------------
    def plan(self, throw: int, count: int | None = None) -> list[PlannedDie]:
        """The dice of throw number `throw` (0-based): same seed, same throws, on every machine."""
        rng = np.random.default_rng([self.seed, throw])
        count = int(rng.integers(2, 6)) if count is None else max(1, min(count, 12))
        margin = self.dice_size
        cols, rows = 4, 3
        cells = rng.choice(cols * rows, size=count, replace=False)
        cell_w = (self.width - 2 * margin) / cols
        cell_h = (self.height - 2 * margin) / rows
        side = int(rng.integers(0, 4))
        dice = []
        for cell in cells:
            cx = margin + (cell % cols + 0.5) * cell_w + rng.uniform(-0.2, 0.2) * cell_w
            cy = margin + (cell // cols + 0.5) * cell_h + rng.uniform(-0.2, 0.2) * cell_h
            start = {
                0: (-self.dice_size, cy), 1: (self.width + self.dice_size, cy),
                2: (cx, -self.dice_size), 3: (cx, self.height + self.dice_size),
            }[side]
            dice.append(PlannedDie(
                start=(float(start[0]), float(start[1])), end=(float(cx), float(cy)),
                spin=float(rng.uniform(360, 900) * rng.choice([-1, 1])), angle=float(rng.uniform(0, 90)),
                value=int(rng.integers(1, 7)), colour=str(rng.choice(self.colours)),
            ))
        return dice

    def _mixed_plan(self, throw: int, sets: dict[str, int]) -> list[PlannedDie]:
        """A throw of several sets: the places of `plan`, each die given its set in turn and a face of it."""
        rng = np.random.default_rng([self.seed, throw, 7])
        kinds = [get_set(spec(set_id)) for set_id, n in sets.items() for _ in range(n)]
        planned = self.plan(throw, len(kinds))
        return [PlannedDie(d.start, d.end, d.spin, d.angle, int(rng.integers(1, ds.n + 1)), d.colour, ds)
                for d, ds in zip(planned, kinds, strict=True)]

    def values(self, throw: int) -> list[int]:
        """The top faces of throw `throw`, for tests that compare what the page shows."""
        return [d.value for d in self._throw(throw)[1]]

    def elapsed(self) -> float:
        """Seconds of the tray's own time at the last frame read (throw number = elapsed // CYCLE_S)."""
        return self._elapsed

    def planned(self, throw: int) -> list[PlannedDie]:
        """The dice of a throw that has started, as it was fixed then, each with its set and top face."""
        dice_set, dice = self._throw(throw)
        return [d if d.dice_set is not None else replace(d, dice_set=dice_set) for d in dice]

    def _throw(self, throw: int) -> tuple[DiceSet, list[PlannedDie]]:
        """(dice set, dice) of a throw, fixed when it starts (the game may change while it lies there)."""
        if throw not in self._plans:
            dice_set, count = self.follow() if self.follow is not None else ("d6", None)
            self._plans = {k: v for k, v in self._plans.items() if k >= throw - 2}
            mixed = self.follow_sets() if self.follow_sets is not None else None
            if mixed == {}:  # the game wants a choice, not dice (a Main phase): the tray stays empty
                self._plans[throw] = (get_set(spec(dice_set)), [])
            elif mixed and len(mixed) > 1 and all(isinstance(n, int) for n in mixed.values()):
                self._plans[throw] = (get_set(spec(dice_set)), self._mixed_plan(throw, mixed))
            else:
                # the set's description from the games (vision knows no game), parsed once per throw
                dice = self._coloured(throw, self.plan(throw, count))
                self._plans[throw] = (get_set(spec(dice_set)), dice)
        return self._plans[throw]

    def _coloured(self, throw: int, dice: list[PlannedDie]) -> list[PlannedDie]:
        """The throw in the colours the game waits for (`follow_colours`: one per die, in order, or the
        colours allowed): King of Tokyo's black dice, each Regidice die in its own colour. Without them the
        tray's own colours (`colours`)."""
        wanted = self.follow_colours() if self.follow_colours is not None else []
        if not wanted:
            return dice
        if len(wanted) == len(dice):
            return [replace(d, colour=c) for d, c in zip(dice, wanted, strict=True)]
        rng = np.random.default_rng([self.seed, throw, 11])
        return [replace(d, colour=str(rng.choice(wanted))) for d in dice]

    # -- asked-for throws -------------------------------------------------------------------------
    def throw(self) -> bool:
        """Ask for the next throw ("ask" mode). True when it is on its way: a hand first picks up the dice
        lying there, if any. False in "auto" mode, and while the last throw asked for has not landed yet,
        so a second tap on "Throw the dice" throws no second handful over the first."""
        if self.throw_mode != "ask":
            return False
        with self._steps_lock:
            now = self._elapsed
            last = self._steps[-1] if self._steps else None
            if last is not None and (last.at > now or (last.kind == "throw" and now - last.at < THROW_S)):
                return False
            at = now
            if last is not None and last.kind == "throw":  # dice lie there: picked up first
                self._steps.append(_Step(now, "sweep", last.throw))
                at = now + PICKUP_S + GAP_S
            elif last is not None:  # a hand is (or was) taking dice away: the new ones come after it
                at = max(now, last.at + PICKUP_S + GAP_S)
            number = max((s.throw + 1 for s in self._steps), default=0)
            self._steps.append(_Step(at, "throw", number))
            del self._steps[:-4]  # only the newest steps are ever looked at again
            return True

    def sweep(self) -> None:
        """Pick up whatever lies in the tray and call off a throw not yet come in: a new game starts, and the
        last game's dice must not be read as its first roll. In "auto" mode the throw under way is dropped."""
        if self.throw_mode != "ask":
            self._voided.add(int(self._elapsed // CYCLE_S))
            return
        with self._steps_lock:
            now = self._elapsed
            self._steps = [s for s in self._steps if s.at <= now]
            last = self._steps[-1] if self._steps else None
            if last is not None and last.kind == "throw":
                self._steps.append(_Step(now, "sweep", last.throw))
            del self._steps[:-4]

    def current_throw(self) -> int | None:
        """The number of the throw in the tray (coming in, tumbling or lying) at the last frame read, else
        None: tests compare what the page shows with `planned(current_throw())`."""
        if self.throw_mode != "ask":
            return int(self._elapsed // CYCLE_S)
        step = self._step_at(self._elapsed)
        return step.throw if step is not None and step.kind == "throw" else None

    def _step_at(self, t: float) -> _Step | None:
        """The asked-for step the tray is in at tray time `t` (the last one begun), or None before any."""
        with self._steps_lock:
            begun = [s for s in self._steps if s.at <= t]
        return begun[-1] if begun else None

    # -- frames ----------------------------------------------------------------------------------
    def scene(self, t: float) -> tuple[list[DieSpec], tuple[float, float] | None]:
        """The DieSpecs and hand position at `t` seconds of the tray's own time."""
        if self.throw_mode == "ask":
            return self._asked_scene(t)
        return self._cycle_scene(t)

    def _cycle_scene(self, t: float) -> tuple[list[DieSpec], tuple[float, float] | None]:
        """"auto": throw number t // CYCLE_S, planned as its cycle begins: empty, thrown, still, picked up."""
        throw, u = divmod(t, CYCLE_S)
        dice_set, plan = self._throw(int(throw))
        if u < EMPTY_S or int(throw) in self._voided:
            return [], None
        rng = np.random.default_rng([self.seed, int(throw), int(u * self.fps)])
        u -= EMPTY_S
        if u < THROW_S:
            return self._tumbling(plan, dice_set, u / THROW_S, rng), None
        u -= THROW_S
        still = self._still(plan, dice_set)
        if u < STILL_S:
            return still, None
        return self._picked_up(still, (u - STILL_S) / PICKUP_S)

    def _asked_scene(self, t: float) -> tuple[list[DieSpec], tuple[float, float] | None]:
        """"ask": empty until the first throw; a throw comes in and then lies still until a hand takes it."""
        step = self._step_at(t)
        if step is None:
            return [], None
        u = t - step.at
        dice_set, plan = self._throw(step.throw)
        if step.kind == "sweep":
            return self._picked_up(self._still(plan, dice_set), u / PICKUP_S) if u < PICKUP_S else ([], None)
        if u < THROW_S:
            rng = np.random.default_rng([self.seed, step.throw, int(u * self.fps)])
            return self._tumbling(plan, dice_set, u / THROW_S, rng), None
        return self._still(plan, dice_set), None

    def _tumbling(self, plan: list[PlannedDie], dice_set: DiceSet, p: float, rng) -> list[DieSpec]:
        """The dice `p` (0-1) of the way from the tray's edge to where they rest, spinning until near the end."""
        ease = 1 - (1 - p) ** 3
        tumbling = p < 0.85
        specs = []
        for die in plan:
            ds = die.dice_set or dice_set
            specs.append(DieSpec(
                x=die.start[0] + (die.end[0] - die.start[0]) * ease,
                y=die.start[1] + (die.end[1] - die.start[1]) * ease,
                size=self.dice_size, angle=die.angle + die.spin * (1 - ease), dice_set=ds,
                value=int(rng.integers(1, ds.n + 1)) if tumbling else die.value, colour=die.colour,
                tilt=max(0.0, 0.8 * (1 - p / 0.85)) if tumbling else 0.0,
                blur=2.0 * (1 - p) if tumbling else 0.0,
            ))
        return specs

    def _still(self, plan: list[PlannedDie], dice_set: DiceSet) -> list[DieSpec]:
        """The dice at rest, each on its planned face."""
        return [DieSpec(x=d.end[0], y=d.end[1], size=self.dice_size, angle=d.angle, value=d.value,
                        colour=d.colour, dice_set=d.dice_set or dice_set) for d in plan]

    def _picked_up(self, still: list[DieSpec], p: float) -> tuple[list[DieSpec], tuple[float, float]]:
        """A hand `p` (0-1) of the way across the tray; the dice it has passed are gone."""
        hand_x = -100 + p * (self.width + 200)
        hand = (hand_x, self.height * 0.5 + 40 * math.sin(p * math.pi))
        return [s for s in still if s.x > hand_x], hand

    def read(self) -> Frame:
        if self._closed:
            raise CameraError("The demo tray was closed.")
        if self._t0 is None:
            self._t0 = self._clock()
        if self.realtime:
            due = self._t0 + self._frame_no / self.fps
            delay = due - self._clock()
            if delay > 0:
                self._sleep(delay)
            if self.speed == 1.0:
                t = self._clock()
            else:  # a fast tray counts frames, so a slow machine slows it down instead of skipping throws
                t = self._t0 + self._frame_no * self.speed / self.fps
        else:
            t = self._t0 + self._frame_no / self.fps
        elapsed = self._elapsed = t - self._t0
        self._frame_no += 1
        specs, hand = self.scene(elapsed)
        image = self._render(specs, width=self.width, height=self.height, mount=self.mount,
                             seed=self._frame_no, hand=hand)
        return Frame(image=image, t=t)

    def close(self) -> None:
        self._closed = True
