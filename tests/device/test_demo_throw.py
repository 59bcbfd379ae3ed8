"""The demo tray throws when asked, as `dicesight run` wires it (issue 34 #1): only while the game waits for
dice, the dice the game waits for, and never the last game's dice as a new game's first roll. The real table
and the real tray service, stepped frame by frame (no camera thread, no waiting)."""

from __future__ import annotations

import pytest

from device.camera.demo import DemoTray
from device.store import Store
from device.table import Table
from engine.core import IllegalAction

DT = {"mode": "1v1", "start": "p1", "players": [{"id": "p1", "name": "Ana", "hero": "barbarian"},
                                                {"id": "p2", "name": "Bo", "hero": "gunslinger"}]}
KOT = {"start": "p1", "players": [{"id": "p1", "name": "Ana", "monster": "cyber_kitty"},
                                  {"id": "p2", "name": "Bo", "monster": "the_king"}]}


@pytest.fixture()
def table(tmp_path):
    table = demo_table(tmp_path, "ask")
    yield table
    table.close()


def demo_table(tmp_path, throw: str) -> Table:
    """A table whose camera is the demo tray, wired as device/box.py wires it."""
    tray = DemoTray(seed=5, realtime=False, throw=throw)
    table = Table(Store(tmp_path / "state"), camera=tray)
    tray.follow, tray.follow_sets, tray.follow_colours = table.tray_request, table.tray_sets, table.tray_colours
    return table


def step(table: Table, frames: int) -> list[str]:
    """The watcher's state after each of `frames` frames."""
    return [table.tray.step().state for _ in range(frames)]


def settle(table: Table) -> None:
    """Step until a new throw has settled (the table then records it, or asks the phones to confirm it)."""
    states = step(table, 120)
    assert "moving" in states and states[-1] == "settled", states


def roll_count(table: Table) -> int:
    return sum(1 for e in table.match.entries if e.action.get("type") == "roll")


def test_nothing_is_thrown_until_asked(table):
    assert "moving" not in step(table, 200), "200 frames (13 s): an auto tray would have thrown twice"
    assert roll_count(table) == 0 and table.tray.dice == []
    table.press("throw")  # the page's "Throw the dice" on the virtual panel
    settle(table)
    assert roll_count(table) == 1 or table.tray.needs_confirmation
    assert len(table.tray.dice) in range(2, 6)  # a free roll takes any number of pip dice


def test_a_throw_is_refused_while_the_game_waits_for_a_choice_and_thrown_with_its_dice_when_it_waits_for_them(table):
    table.new_game("dicethrone", DT, 3)
    assert table.snapshot()["phase"] == "main1"
    with pytest.raises(IllegalAction) as refused:
        table.throw_dice()
    assert refused.value.code == "no_dice_wanted"
    assert "moving" not in step(table, 40) and table.tray.dice == []
    table.submit({"type": "advance"})  # end Main Phase (1): the offensive roll waits for the barbarian's dice
    table.throw_dice()
    settle(table)
    thrown = table.tray.camera.planned(table.tray.camera.current_throw())
    assert len(thrown) == 5 and {d.dice_set.id for d in thrown} == {"dicethrone:barbarian"}


def test_king_of_tokyo_gets_six_black_dice_and_a_double_tap_is_one_throw(table):
    table.new_game("kingoftokyo", KOT, 3)
    table.throw_dice()
    with pytest.raises(IllegalAction) as busy:
        table.throw_dice()
    assert busy.value.code == "tray_busy"
    settle(table)
    thrown = table.tray.camera.planned(table.tray.camera.current_throw())
    assert len(thrown) == 6 and {d.colour for d in thrown} == {"black"}


def test_a_new_game_takes_away_the_dice_of_the_last_one(table):
    """The dice on the tray, a reading waiting for a confirmation and a throw still landing belong to the last
    game: none becomes the new game's first roll."""
    table.throw_dice()
    settle(table)
    table.tray.set_tray("settled", table.tray.dice, needs_confirmation=True)  # as if unsure: waits for a phone
    table.new_game("freeroll", {}, 1)
    assert not table.tray.needs_confirmation and table.next() is None, "Next has nothing to confirm"
    assert step(table, 60)[-1] == "empty", "a hand took the dice away"
    table.throw_dice()
    step(table, 5)  # the dice are still tumbling...
    table.new_game("freeroll", {}, 2)  # ...when the next game starts
    assert step(table, 120)[-1] == "empty" and roll_count(table) == 0


def test_an_auto_tray_s_throw_under_way_is_not_the_new_game_s_first_roll(tmp_path):
    table = demo_table(tmp_path, "auto")
    try:
        states = step(table, 25)  # throw 0 comes in
        assert states[-1] == "moving"
        table.new_game("freeroll", {}, 1)
        step(table, 80)  # the rest of its cycle
        assert roll_count(table) == 0 and not table.tray.needs_confirmation
    finally:
        table.close()


def test_rolling_for_who_starts_throws_one_die(table):
    table.new_game("kingoftokyo", KOT, 3)
    table.observe(300)  # the setup sheet's "Roll for it on the tray"
    table.throw_dice()
    settle(table)
    assert len(table.tray.camera.planned(table.tray.camera.current_throw())) == 1
    assert roll_count(table) == 0, "a roll for who starts is recorded in no game"


def test_a_camera_that_is_not_the_demo_tray_throws_nothing(tmp_path):
    table = Table(Store(tmp_path / "state"))
    try:
        with pytest.raises(IllegalAction) as refused:
            table.press("throw")
        assert refused.value.code == "no_demo_throw"
    finally:
        table.close()
