"""A throw that mixes dice sets on the box: the table asks the tray for the game's `sets` (Mage Wars' attack
dice with the d12), the demo tray throws both kinds, the tray reads each die as its own set and a camera roll
names every die's set, so the game can tell the effect die from the attack dice."""

from __future__ import annotations

from pathlib import Path

from device.camera.demo import CYCLE_S, DemoTray
from device.store import Store
from device.table import Table


def duel_waiting_for_an_attack_roll(tmp_path: Path) -> Table:
    table = Table(Store(tmp_path))
    table.new_game("magewars", {"players": [{"name": "Ana", "mage": "wizard"}, {"name": "Ben", "mage": "warlock"}],
                                "initiative": "p1", "phase": "actions"}, seed=1)
    table.submit({"type": "activate", "object": "p1"})
    table.submit({"type": "attack", "target": "p2", "attack": {"dice": 3, "effects": "7+ = Burn"}})
    return table


def test_the_table_asks_for_both_sets(tmp_path):
    table = duel_waiting_for_an_attack_roll(tmp_path)
    assert table.tray_sets() == {"magewars-attack": 3, "d12": 1}
    table.close()


def test_the_demo_tray_throws_both_sets_and_the_tray_reads_them(tmp_path):
    table = duel_waiting_for_an_attack_roll(tmp_path)
    demo = DemoTray(seed=5, realtime=False, mount="under")
    demo.follow = table.tray_request
    demo.follow_sets = table.tray_sets
    kinds = sorted(d.dice_set.id for d in demo._throw(0)[1])
    assert kinds == ["d12", "magewars-attack", "magewars-attack", "magewars-attack"]
    table.tray.camera = demo
    seen = None
    for _ in range(int(CYCLE_S * demo.fps) + 5):
        status = table.tray.step()
        if status.state == "settled" and status.readings:
            seen = status.readings
            break
    assert seen is not None, "the demo throw settled"
    assert {r.set for r in seen} <= {"magewars-attack", "d12"} and len(seen) == 4
    dice = table.snapshot()["tray"]["dice"]
    assert all("set" in d for d in dice)
    table.close()


def test_confirming_an_unsure_reading_keeps_each_dies_face_and_set(tmp_path):
    """The box's Next on an unsure reading records the dice as read, faces and sets included: bare numbers
    cannot say which die is the effect die, nor which attack face a 1 is."""
    table = duel_waiting_for_an_attack_roll(tmp_path)
    read = [{"value": 2, "face": "2*", "colour": "white", "set": "magewars-attack", "certain": False},
            {"value": 1, "face": "1", "colour": "white", "set": "magewars-attack", "certain": True},
            {"value": 0, "face": "blank", "colour": "white", "set": "magewars-attack", "certain": False},
            {"value": 9, "face": "9", "colour": "blue", "set": "d12", "certain": True}]
    table.tray.set_tray("settled", read, needs_confirmation=True)
    snap = table.confirm_tray()
    assert snap is not None, table.snapshot()["tray"]["message"]
    strike = table.snapshot()["last_strike"]
    assert strike["faces"] == ["2*", "1", "blank"] and strike["effect_roll"] == 9 and strike["damage"] == 3
    table.close()


def test_the_demo_tray_rests_while_the_game_wants_a_choice(tmp_path):
    """Issue 12: the demo tray throws for the roll the game waits for and not during a Main phase."""
    table = Table(Store(tmp_path))
    table.new_game("dicethrone", {"mode": "1v1", "players": [{"name": "Ann", "hero": "barbarian"},
                                                             {"name": "Bo", "hero": "gunslinger"}]}, seed=4)
    demo = DemoTray(seed=5, realtime=False)
    demo.follow, demo.follow_sets = table.tray_request, table.tray_sets
    assert table.snapshot()["phase"] == "main1" and table.tray_sets() == {}
    assert demo._throw(0)[1] == []  # a Main phase: nothing is thrown
    table.submit(table.snapshot()["pending"]["options"][0]["action"])  # end Main Phase (1)
    assert table.snapshot()["pending"]["input"]["type"] == "dice"
    assert len(demo._throw(1)[1]) == 5  # the offensive roll: the hero's five dice
    table.close()


def test_a_roll_photo_marks_each_die_with_its_reading():
    """Issue 12: roll photos in the log show each read die marked by its value (unsure ones in orange)."""
    import cv2
    import numpy as np

    from device.tray import evidence_jpeg
    from vision.reading import Reading

    frame = np.full((480, 640, 3), 30, np.uint8)
    sure = Reading(4, "4", "white", 0.95, (200.0, 240.0), (170, 210, 60, 60), True)
    unsure = Reading(2, "2", "white", 0.4, (440.0, 240.0), (410, 210, 60, 60), False)
    plain = cv2.imdecode(np.frombuffer(evidence_jpeg(frame), np.uint8), cv2.IMREAD_COLOR)
    marked = cv2.imdecode(np.frombuffer(evidence_jpeg(frame, [sure, unsure]), np.uint8), cv2.IMREAD_COLOR)
    assert plain.shape == marked.shape
    diff = np.abs(marked.astype(int) - plain.astype(int)).sum(axis=2) > 60
    half = marked.shape[1] // 2
    assert diff[:, :half].any() and diff[:, half:].any()  # a mark at each die
    green = marked[:, :half][diff[:, :half]]
    orange = marked[:, half:][diff[:, half:]]
    assert green[:, 1].mean() > green[:, 2].mean()  # the sure die in green
    assert orange[:, 2].mean() > orange[:, 0].mean()  # the unsure one in orange
