"""The tray watcher on rendered sequences: throw, tumble, settle, hand, removal; frame timestamps only."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from vision import watcher
from vision.reading import Reading
from vision.render import DieSpec, Hand, render_tray
from vision.watcher import TrayWatcher, mean_frame, motion_between, small_grey, vote

FPS = 20.0
FINAL = [DieSpec(200, 200, 60, 20, 3, colour="white"), DieSpec(380, 260, 60, 70, 5, colour="red"),
         DieSpec(500, 150, 60, 40, 1, colour="blue")]


def scene(t: float) -> tuple[list[DieSpec], Hand | None]:
    """0-1 s empty; 1-1.8 s dice thrown in, tumbling; 1.8-3.5 s still; 3.5-4.3 s a hand sweeps them away;
    then empty."""
    rng = np.random.default_rng(int(t * 1000))
    if t < 1.0:
        return [], None
    if t < 1.8:
        p = (t - 1.0) / 0.8
        ease = 1 - (1 - p) ** 3
        out = []
        for d in FINAL:
            tumbling = p < 0.85
            out.append(DieSpec(-60 + (d.x + 60) * ease, d.y + 80 * (1 - ease), d.size,
                               d.angle + 400 * (1 - ease), int(rng.integers(1, 7)) if tumbling else d.value,
                               colour=d.colour, tilt=0.7 * (1 - p) if tumbling else 0.0,
                               blur=8 * (1 - p) if tumbling else 0.0))
        return out, None
    if t < 3.5:
        return list(FINAL), None
    if t < 4.3:
        p = (t - 3.5) / 0.8
        hx = -100 + p * 840
        return [d for d in FINAL if d.x > hx], Hand(hx, 220, 200)
    return [], None


def run(mount: str, until: float = 5.5, **kw) -> list:
    w = TrayWatcher(dice_set="d6", mount=mount, settle_s=0.3, votes=3, **kw)
    out = []
    n = int(until * FPS)
    for i in range(n):
        t = 100.0 + i / FPS  # an arbitrary monotonic clock
        dice, hand = scene(i / FPS)
        frame = render_tray(dice, mount=mount, seed=i, hand=hand)
        st = w.feed(frame, t)
        out.append((i / FPS, st))
    return out


@pytest.mark.parametrize("mount", ["over", "under"])
def test_throw_settle_hand_removal(mount):
    seq = run(mount)
    states = {round(t, 2): st for t, st in seq}
    # empty tray first
    assert states[0.8].state == "empty"
    # dice flying in: moving
    assert all(states[round(t, 2)].state == "moving" for t in (1.1, 1.3, 1.5))
    # exactly one new roll, after the dice came to rest, with the right top faces
    rolls = [(t, st) for t, st in seq if st.new_roll]
    assert len(rolls) == 1
    t_roll, st = rolls[0]
    assert 1.8 + 0.3 <= t_roll < 2.6
    assert st.state == "settled"
    got = sorted((round(r.center[0]), r.value, r.certain) for r in st.readings)
    assert [(v, c) for _, v, c in got] == [(3, True), (5, True), (1, True)]
    # no reading while anything moved
    assert all(not st.readings for t, st in seq if st.state in ("moving", "settling"))
    # the hand sweeping: moving; then the empty tray again, and no second roll
    assert states[3.7].state == "moving"
    assert seq[-1][1].state == "empty"


def test_never_reads_while_moving_and_uses_frame_time_only():
    calls = []

    def fake_read(frame):
        calls.append(frame)
        return []

    w = TrayWatcher(read=fake_read, settle_s=0.3, votes=2)
    still = render_tray([DieSpec(300, 200, 60, 0, 4)], mount="over", seed=0)
    for i in range(5):  # 0.2 s of stillness: not yet settled
        assert w.feed(still, 10.0 + i * 0.05).state == "settling"
    assert calls == []
    # timestamps far apart: settled right away, whatever the wall clock says
    w.feed(still, 20.0)
    w.feed(still, 20.1)
    assert len(calls) == 2


def test_votes_flag_a_die_that_flickers_between_values():
    a = Reading(3, "3", "white", 0.9, (100.0, 100.0), (80, 80, 40, 40), True)
    b = Reading(5, "5", "white", 0.9, (101.0, 99.0), (80, 80, 40, 40), True)
    c = Reading(2, "2", "red", 0.95, (300.0, 100.0), (280, 80, 40, 40), True)
    out = vote([[a, c], [b, c], [a, c]])
    assert len(out) == 2
    first = min(out, key=lambda r: r.center[0])
    assert first.value == 3 and not first.certain
    assert max(out, key=lambda r: r.center[0]).certain


def _four(certain: bool, value: int = 4, x: float = 100.0) -> Reading:
    return Reading(value, str(value), "white", 0.97, (x, 100.0), (int(x) - 20, 80, 40, 40), certain)


def test_a_die_most_frames_are_sure_of_is_certain_when_their_mean_is_read_certain_too(monkeypatch):
    """Issue 31: each settled frame has its own sensor noise, and a die near the reader's level is certain in one
    draw of it and not the next. A die every frame names alike, most of them certain, is certain when the read
    of the frames' mean is certain of the same face; not when the mean is unsure or names another face, and not
    when only one frame of three was certain. The mean is read only when such a die asks for it. (Without
    `watcher.MOST_LOOKS_ENOUGH`: with it, most frames certain are enough; nor `ONE_LOOK_ENOUGH`.)"""
    monkeypatch.setattr(watcher, "MOST_LOOKS_ENOUGH", False)
    monkeypatch.setattr(watcher, "ONE_LOOK_ENOUGH", False)
    asked = []

    def mean_of(*readings: Reading):
        def read() -> list[Reading]:
            asked.append(1)
            return list(readings)
        return read

    frames = [[_four(True)], [_four(False)], [_four(True)]]
    assert vote(frames, mean_of(_four(True)))[0].certain
    assert not vote(frames, mean_of(_four(False)))[0].certain
    assert not vote(frames, mean_of(_four(True, value=5)))[0].certain
    assert not vote(frames, mean_of(_four(True, x=160.0)))[0].certain    # the mean's die is elsewhere
    assert not vote(frames)[0].certain                                    # no mean: every frame must be sure
    asked.clear()
    assert not vote([[_four(True)], [_four(False)], [_four(False)]], mean_of(_four(True)))[0].certain
    assert vote([[_four(True)]] * 3, mean_of(_four(False)))[0].certain   # every frame sure: the mean unasked
    assert asked == []


def test_a_die_every_look_names_alike_and_most_are_sure_of_is_certain_without_the_mean(monkeypatch):
    """Issue 31 #4: with `watcher.MOST_LOOKS_ENOUGH` a die all three looks name alike, two of them certain, is
    certain without the mean frame's read (it is not asked for); one certain look of three, or a look naming
    another face, is not enough (without `watcher.ONE_LOOK_ENOUGH`)."""
    monkeypatch.setattr(watcher, "MOST_LOOKS_ENOUGH", True)
    monkeypatch.setattr(watcher, "ONE_LOOK_ENOUGH", False)
    asked = []

    def unsure_mean() -> list[Reading]:
        asked.append(1)
        return [_four(False)]

    assert vote([[_four(True)], [_four(False)], [_four(True)]], unsure_mean)[0].certain and asked == []
    assert vote([[_four(True)], [_four(False)], [_four(True)]])[0].certain
    assert not vote([[_four(True)], [_four(False)], [_four(False)]], unsure_mean)[0].certain
    assert not vote([[_four(True)], [_four(False, value=5)], [_four(True)]], unsure_mean)[0].certain
    monkeypatch.setattr(watcher, "MOST_LOOKS_ENOUGH", False)
    assert not vote([[_four(True)], [_four(False)], [_four(True)]], unsure_mean)[0].certain and asked == [1]


def test_a_die_every_look_names_alike_and_one_is_sure_of_is_certain(monkeypatch):
    """Issue 31 #4: with `watcher.ONE_LOOK_ENOUGH` a die all three looks name alike, one of them certain, is
    certain (the mean frame is not read); a look naming another face, or a look that missed the die, or no
    certain look, leaves it unsure."""
    monkeypatch.setattr(watcher, "ONE_LOOK_ENOUGH", True)
    asked = []

    def unsure_mean() -> list[Reading]:
        asked.append(1)
        return [_four(False)]

    assert vote([[_four(False)], [_four(True)], [_four(False)]], unsure_mean)[0].certain and asked == []
    assert not vote([[_four(True)], [_four(False, value=5)], [_four(False)]], unsure_mean)[0].certain
    assert not vote([[_four(True)], [], [_four(False)]], unsure_mean)[0].certain
    assert not vote([[_four(False)]] * 3, unsure_mean)[0].certain
    monkeypatch.setattr(watcher, "ONE_LOOK_ENOUGH", False)
    assert not vote([[_four(False)], [_four(True)], [_four(False)]], unsure_mean)[0].certain


def test_a_die_every_look_named_surely_is_certain(monkeypatch):
    """Issue 31 #4: with `watcher.NAMED_IN_EVERY_LOOK_AT` a die all three looks named alike
    (`Reading.named_p`: its corner number, or a pip die's face network in its own box), each at that level or
    surer, is certain though no look was; a look below it, a look that named it otherwise (no such judge), or
    a look that missed the die leaves it unsure."""
    monkeypatch.setattr(watcher, "NAMED_IN_EVERY_LOOK_AT", 0.95)

    def guess(p: float | None) -> list[Reading]:
        return [replace(_four(False), confidence=0.5, named_p=p)]

    def no_mean() -> list[Reading]:
        raise AssertionError("the mean frame is not read for such a die")

    assert vote([guess(0.99), guess(0.95), guess(0.97)], no_mean)[0].certain
    assert not vote([guess(0.99), guess(0.9), guess(0.97)], no_mean)[0].certain
    assert not vote([guess(0.99), guess(None), guess(0.97)], no_mean)[0].certain
    assert not vote([guess(0.99), [], guess(0.97)], no_mean)[0].certain
    monkeypatch.setattr(watcher, "NAMED_IN_EVERY_LOOK_AT", None)
    assert not vote([guess(0.99), guess(0.99), guess(0.99)], no_mean)[0].certain


def test_the_mean_of_still_frames_averages_their_noise():
    rng = np.random.default_rng(0)
    scene_ = np.full((40, 60, 3), 100.0)
    frames = [np.clip(scene_ + rng.normal(0, 8, scene_.shape), 0, 255).astype(np.uint8) for _ in range(3)]
    mean = mean_frame(frames)
    assert mean.dtype == np.uint8 and mean.shape == frames[0].shape
    assert np.abs(mean.astype(float) - 100).std() < 0.7 * np.abs(frames[0].astype(float) - 100).std()
    assert mean_frame(frames[:1]) is None and mean_frame([frames[0], frames[1][:20]]) is None


def test_the_watcher_reads_the_mean_of_its_settled_frames_for_a_die_they_half_doubt(monkeypatch):
    """The watcher's own path: three settled frames, the second read unsure; the fourth read is of their mean
    (no frame the camera gave), certain, so the roll is certain (without `watcher.MOST_LOOKS_ENOUGH` and
    `ONE_LOOK_ENOUGH`)."""
    monkeypatch.setattr(watcher, "MOST_LOOKS_ENOUGH", False)
    monkeypatch.setattr(watcher, "ONE_LOOK_ENOUGH", False)
    seen = []

    def flaky_read(frame):
        seen.append(frame)
        return [_four(len(seen) != 2, x=300.0)]

    w = TrayWatcher(read=flaky_read, settle_s=0.3, votes=3)
    still = render_tray([DieSpec(300, 100, 60, 0, 4)], mount="over", seed=0)
    status = None
    for t in (20.0, 20.5, 20.6, 20.7, 20.8):
        status = w.feed(still, t)
    assert len(seen) == 4 and status.readings[0].certain
    assert seen[3] is not still and np.array_equal(seen[3], still)     # the mean of three equal frames


def test_a_flicker_seen_once_is_not_a_die():
    a = Reading(3, "3", "white", 0.9, (100.0, 100.0), (80, 80, 40, 40), True)
    ghost = Reading(1, "1", "white", 0.4, (400.0, 300.0), (380, 280, 40, 40), False)
    assert [r.value for r in vote([[a], [a, ghost], [a]])] == [3]


def test_motion_gate_ignores_global_brightness_change_and_sees_a_die_move():
    f0 = render_tray([DieSpec(300, 200, 50, 0, 4)], mount="over", seed=0)
    brighter = np.clip(f0.astype(int) + 12, 0, 255).astype(np.uint8)
    moved = render_tray([DieSpec(330, 200, 50, 0, 4)], mount="over", seed=0)
    a, b, c = small_grey(f0), small_grey(brighter), small_grey(moved)
    assert motion_between(a, b) < 0.004
    assert motion_between(a, c) > 0.004


def test_background_is_learned_from_an_empty_tray():
    w = TrayWatcher(dice_set="d6", mount="under", settle_s=0.2, votes=2)
    empty = render_tray([], mount="under", seed=0)
    t = 0.0
    for _ in range(10):
        st = w.feed(empty, t)
        t += 0.05
    assert st.state == "empty"
    assert w.background is not None
    assert math.isclose(float(np.abs(w.background.astype(int) - empty.astype(int)).mean()), 0.0)


def test_a_look_that_read_a_die_twice_agrees_once(monkeypatch):
    """Issue 31 #4 (`watcher.LOOKS_COUNTED_ONCE`): a look that read one die twice (split in two) agrees once.
    Its two readings must not lift the share of looks that agree, and the confidence shown, above one, nor
    outvote two looks that named another face."""
    monkeypatch.setattr(watcher, "ONE_LOOK_ENOUGH", True)
    six, five = _four(False, value=6), _four(False, value=5)

    def twice(r: Reading, times: int = 2) -> list[Reading]:
        return [replace(r, center=(100.0 + 5 * i, 100.0)) for i in range(times)]

    doubled = [twice(six), [_four(True, value=6)], [six]]
    outvoted = [[five], twice(six, 3), [five]]
    monkeypatch.setattr(watcher, "LOOKS_COUNTED_ONCE", False)
    assert vote(doubled)[0].confidence > 1.0
    assert vote(outvoted)[0].face == "6"
    monkeypatch.setattr(watcher, "LOOKS_COUNTED_ONCE", True)
    got = vote(doubled)
    assert [(r.face, r.certain) for r in got] == [("6", True)] and got[0].confidence == pytest.approx(0.97)
    got = vote(outvoted)
    assert [(r.face, r.certain) for r in got] == [("5", False)]
    assert got[0].confidence == pytest.approx(0.97 * 2 / 3)
