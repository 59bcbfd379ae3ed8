"""The Roll Phase asks for dice only while a roll would be taken (issue 34 #1: after the third offensive roll
the pending decision still carried a dice input, so the demo tray's "Throw the dice" stayed live, the box threw
and read five dice, and the roll was refused: "All 3 roll attempts are used")."""

from __future__ import annotations

from dthelp import game, go, illegal, pending


def test_no_dice_input_once_the_roll_attempts_are_used():
    m = game("gunslinger", "barbarian")
    go(m, {"type": "advance"})
    for _ in range(2):
        go(m, {"type": "roll", "dice": [1, 2, 3, 4, 5]})
        assert pending(m)["input"]["count"] == 5, "a roll is still taken: the dice are asked for"
    go(m, {"type": "roll", "dice": [1, 2, 3, 4, 5]})
    assert illegal(m, {"type": "roll", "dice": [1, 2, 3, 4, 5]}).code == "no_attempts"
    assert pending(m)["kind"] == "offense" and "input" not in pending(m), "no dice asked for that would be refused"
