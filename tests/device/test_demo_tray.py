"""The demo tray: deterministic throws that go empty -> tumbling -> still -> picked up."""

from __future__ import annotations

import numpy as np

from device.camera.demo import CYCLE_S, EMPTY_S, GAP_S, PICKUP_S, STILL_S, THROW_S, DemoTray


def test_same_seed_same_throws_and_faces_are_dice_faces():
    a, b = DemoTray(seed=5, realtime=False), DemoTray(seed=5, realtime=False)
    assert [a.values(i) for i in range(10)] == [b.values(i) for i in range(10)]
    assert DemoTray(seed=6, realtime=False).values(0) != a.values(0) or a.values(1) != DemoTray(
        seed=6, realtime=False).values(1)
    for i in range(30):
        values = a.values(i)
        assert 2 <= len(values) <= 5 and all(1 <= v <= 6 for v in values)


def test_cycle_parts():
    tray = DemoTray(seed=2, realtime=False)
    assert tray.scene(0.1) == ([], None)
    tumbling, _ = tray.scene(EMPTY_S + 0.2 * THROW_S)
    assert tumbling and all(d.tilt > 0 for d in tumbling)
    still, hand = tray.scene(EMPTY_S + THROW_S + STILL_S / 2)
    assert hand is None and [d.value for d in still] == tray.values(0)
    assert all(d.tilt == 0 and d.blur == 0 for d in still)
    leaving, hand = tray.scene(EMPTY_S + THROW_S + STILL_S + 0.9 * PICKUP_S)
    assert hand is not None and len(leaving) < len(still)
    assert [d.value for d in tray.scene(CYCLE_S + EMPTY_S + THROW_S + 0.5)[0]] == tray.values(1)


def test_frames_have_monotonic_timestamps_without_sleeping():
    slept = []
    tray = DemoTray(seed=1, fps=10, realtime=False, sleep=slept.append)
    frames = [tray.read() for _ in range(5)]
    ts = [f.t for f in frames]
    assert ts == sorted(ts) and np.allclose(np.diff(ts), 0.1)
    assert frames[0].image.shape == (480, 640, 3) and not slept


def test_realtime_paces_to_fps():
    now = [100.0]
    slept = []

    def sleep(s):
        slept.append(s)
        now[0] += s

    tray = DemoTray(seed=1, fps=20, clock=lambda: now[0], sleep=sleep)
    for _ in range(4):
        tray.read()
    assert len(slept) == 3 and all(abs(s - 0.05) < 1e-9 for s in slept)


def test_demo_follows_what_the_game_waits_for():
    """In a game that waits for N dice of a set (Dice Throne: the hero's five), the demo throws those."""
    tray = DemoTray(seed=3, realtime=False)
    tray.follow = lambda: ("dicethrone:monk", 5)
    still, _ = tray.scene(EMPTY_S + THROW_S + 1.0)
    assert len(still) == 5 and {d.dice_set.id for d in still} == {"dicethrone:monk"}
    tray.follow = lambda: ("d6", 2)
    assert [d.value for d in tray.scene(EMPTY_S + THROW_S + 1.0)[0]] == [d.value for d in still], \
        "a throw keeps its dice while it lies in the tray"
    assert len(tray.scene(CYCLE_S + EMPTY_S + THROW_S + 1.0)[0]) == 2


def test_demo_throws_the_colours_the_game_waits_for(tmp_path):
    """King of Tokyo waits for black dice and Regidice for each die of a player's pool in its own colour:
    the demo throws those (a white King of Tokyo die would never be certain), else its own colours."""
    from device.store import Store
    from device.table import Table

    table = Table(Store(tmp_path))
    table.new_game("kingoftokyo", {"players": [{"name": "Ana", "monster": "cyber_kitty"},
                                               {"name": "Bo", "monster": "the_king"}]}, 3)
    assert table.tray_colours() == ["black"]
    tray = DemoTray(seed=3, realtime=False)
    tray.follow, tray.follow_colours = table.tray_request, table.tray_colours
    assert {d.colour for d in tray.planned(0)} == {"black"} and len(tray.planned(0)) == 6
    table.new_game("regidice", {"players": [{"name": "Ann"}, {"name": "Bo"}]}, seed=3)
    pool = table.tray_colours()
    assert len(pool) > 1 and set(pool) <= {"red", "blue", "yellow", "black"}
    assert [d.colour for d in tray.planned(1)] == pool  # one die per colour of the pool, in order
    table.new_game("freeroll", {}, 1)
    assert table.tray_colours() == [] and {d.colour for d in tray.planned(2)} == {"white"}
    table.close()


def test_speed_runs_the_trays_time_faster_on_an_injected_clock():
    """`--demo-speed 4`: frames still come at fps, but the tray's time (and the timestamps the watcher
    settles by) runs four times faster, so a throw cycle takes a quarter of the wall time."""
    now = [50.0]

    def sleep(s):
        now[0] += s

    tray = DemoTray(seed=1, fps=10, clock=lambda: now[0], sleep=sleep, speed=4.0)
    ts = [tray.read().t for _ in range(5)]
    assert np.allclose(np.diff(ts), 0.4)  # 0.1 s of clock per frame, 0.4 s of tray time
    assert abs(now[0] - 50.4) < 1e-9  # and the wall clock (here: the fake one) moved 0.1 s per frame
    try:
        DemoTray(speed=0)
    except ValueError as err:
        assert "speed" in str(err)
    else:
        raise AssertionError("a speed of 0 must be refused")


def test_a_fast_tray_on_a_busy_machine_slows_down_instead_of_skipping_throws():
    """Each frame moves the fast tray's time by speed/fps however late it comes, and its time starts at
    the first frame read (not when the box opened it), so no throw is lost to a slow start or a busy CPU."""
    now = [0.0]
    tray = DemoTray(seed=1, fps=10, clock=lambda: now[0], sleep=lambda s: None, speed=4.0)
    now[0] = 30.0  # the box took its time to start reading
    ts = []
    for _ in range(4):
        ts.append(tray.read().t)
        now[0] += 1.0  # each frame took a whole second to render and read
    assert np.allclose(np.diff(ts), 0.4) and ts[0] == 30.0


# -- throws on ask (issue 34 #1: the demo tray played the game by itself) --------------------------------------
def advance(tray: DemoTray, seconds: float) -> None:
    """Read frames for `seconds` of the tray's time (15 frames a second, no clock)."""
    for _ in range(round(seconds * tray.fps)):
        tray.read()


def now(tray: DemoTray):
    """What the tray shows at its last frame: (dice, hand)."""
    return tray.scene(tray.elapsed())


def test_an_asked_tray_stays_empty_until_a_throw_is_asked_for_and_the_dice_then_lie_still():
    tray = DemoTray(seed=4, realtime=False, throw="ask")
    advance(tray, 2 * CYCLE_S)  # two whole cycles: an "auto" tray would have thrown twice
    assert now(tray) == ([], None) and tray.current_throw() is None
    assert tray.throw()
    advance(tray, THROW_S + 0.5)
    dice, hand = now(tray)
    assert hand is None and [d.value for d in dice] == tray.values(0) and tray.current_throw() == 0
    advance(tray, 3 * CYCLE_S)  # the players take their time: the dice wait for them, no hand takes them
    assert [d.value for d in now(tray)[0]] == tray.values(0) and now(tray)[1] is None


def test_a_second_tap_while_the_dice_fly_throws_nothing_and_the_next_throw_picks_up_the_last_dice():
    tray = DemoTray(seed=4, realtime=False, throw="ask")
    tray.read()
    assert tray.throw() and not tray.throw(), "a double tap is one throw"
    advance(tray, THROW_S + 0.2)
    assert tray.throw()
    tray.read()
    assert now(tray)[1] is not None, "a hand picks up the dice lying there first"
    assert tray.current_throw() is None
    advance(tray, PICKUP_S + THROW_S + 0.5)
    assert [d.value for d in now(tray)[0]] == tray.values(1) and tray.current_throw() == 1


def test_a_sweep_takes_the_dice_away_and_calls_off_a_throw_not_yet_come_in():
    """A new game sweeps the tray: the last game's dice are not the new game's first roll."""
    tray = DemoTray(seed=4, realtime=False, throw="ask")
    tray.read()
    tray.throw()
    advance(tray, THROW_S + 0.5)
    tray.sweep()
    advance(tray, PICKUP_S + 0.2)
    assert now(tray) == ([], None) and tray.current_throw() is None
    tray.throw()
    advance(tray, THROW_S + 0.5)
    assert tray.throw()  # dice lie there: picked up, then throw 2 comes in...
    tray.sweep()  # ...but a new game starts before it does
    advance(tray, PICKUP_S + GAP_S + THROW_S + 0.5)
    assert now(tray) == ([], None), "the throw asked for in the last game never comes"


def test_an_auto_tray_drops_the_throw_under_way_when_a_new_game_sweeps_it():
    tray = DemoTray(seed=4, realtime=False)
    advance(tray, EMPTY_S + 0.3)  # throw 0 is tumbling in
    assert now(tray)[0]
    tray.sweep()
    tray.read()
    assert now(tray) == ([], None) and not tray.throw(), "auto throws come by themselves, never on ask"
    advance(tray, CYCLE_S)
    assert [d.value for d in tray.scene(CYCLE_S + EMPTY_S + THROW_S + 0.5)[0]] == tray.values(1)


def test_a_throw_mode_other_than_ask_or_auto_is_refused():
    try:
        DemoTray(throw="sometimes")
    except ValueError as err:
        assert "ask" in str(err) and "auto" in str(err)
    else:
        raise AssertionError("an unknown throw mode must be refused")
