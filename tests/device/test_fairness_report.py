"""The fairness report from the box's own log (issue 36): which rolls count (camera ones, confirmed ones; hand
entries apart; the engine's own dice only counted; undone throws not at all), which set and which die each die
was, and a loaded red die told from a fair blue one thrown with it, through the real table and store."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from device import dice_log, dice_sets, fairness_report
from device.dice_log import LogRow
from device.fairness_report import Category, attribute, categories, classify
from device.store import Store
from device.table import Table
from vision.reading import Reading

SPECS = dice_sets.specs()
GAME_SETS = dice_sets.game_sets()


def die(value: int, colour: str, face: str | None = None) -> dict:
    return {"value": value, "face": face or str(value), "colour": colour}


def camera_roll(*dice: dict, set_id: str = "d6") -> dict:
    """A roll as the tray service submits it: the dice as read, the readings and the set as evidence."""
    return {"type": "roll", "source": "camera", "dice": list(dice), "evidence": {"readings": list(dice), "set": set_id}}


def report_of(rows: list[LogRow], **kw) -> dict:
    dice, virtual = dice_log.die_rolls(rows)
    return fairness_report.report(dice, virtual, SPECS, GAME_SETS, **kw)


def row(seq: int, action: dict, evidence: dict | None = None, game: str = "freeroll", game_id: int = 1) -> LogRow:
    return LogRow(game_id, game, seq, action["type"] if action["type"] in dice_log.TRACKED else "other", action,
                  evidence)


# -- faces and sets ----------------------------------------------------------------------------------------
def test_sides_a_reading_cannot_tell_apart_are_one_face_of_twice_the_chance() -> None:
    cats = categories(SPECS["magewars-attack"])
    assert [(c.name, c.sides) for c in cats] == [("blank", (1, 2)), ("1", (3,)), ("2", (4,)), ("1*", (5,)),
                                                 ("2*", (6,))]
    assert fairness_report.probs(cats) == pytest.approx([2 / 6] + [1 / 6] * 4)


def test_a_die_is_told_by_its_face_and_value_or_by_what_alone_names_one_face() -> None:
    barbarian = categories(SPECS["dicethrone:barbarian"])
    assert classify("sword", 3, barbarian) == 2 and classify(None, 6, barbarian) == 5  # typed as a bare value
    assert classify("pow", None, barbarian) == 5 and classify("sword", None, barbarian) is None  # which sword?
    koth = categories(SPECS["kingoftokyo"])
    assert koth[classify("heart", None, koth)].name == "heart"
    assert classify("7", 7, categories(SPECS["d6"])) is None


def test_a_roll_the_log_names_no_set_for_is_the_one_set_of_its_game_that_fits() -> None:
    cats = {sid: categories(spec) for sid, spec in SPECS.items()}
    dt = GAME_SETS["dicethrone"]

    def dice(*faces: tuple[str, int], hint: str | None = None) -> list[dice_log.DieRoll]:
        return [dice_log.DieRoll(1, "dicethrone", 3, "camera", hint, None, f, v) for f, v in faces]

    assert attribute(dice(("sword", 3), ("pow", 6)), dt, cats) == ["dicethrone:barbarian"] * 2
    assert attribute(dice(("sword", 1)), dt, cats) == [None]  # the barbarian's or the paladin's sword?
    assert attribute(dice(("sword", 1), hint="dicethrone:paladin"), dt, cats) == ["dicethrone:paladin"]
    assert attribute(dice(("3", 3)), GAME_SETS["freeroll"], cats) == ["d6"]


def test_english_face_labels_add_the_number_where_the_symbol_repeats() -> None:
    cats = categories(SPECS["dicethrone:barbarian"])
    assert [fairness_report.english_label(c, cats) for c in cats] == [
        "Sword (1)", "Sword (2)", "Sword (3)", "Heart (4)", "Heart (5)", "Pow"]
    assert fairness_report.english_label(Category("3", 3, (3,), None), []) == "3"


# -- which rolls count --------------------------------------------------------------------------------------
def test_camera_confirmed_hand_and_virtual_rolls_are_kept_apart_and_undone_ones_left_out() -> None:
    rows = [
        row(1, camera_roll(die(1, "red"))),
        row(2, {"type": "roll", "source": "manual", "dice": [2]},
            {"readings": [die(3, "red")], "set": "d6", "confirmed": True}),  # the camera read 3, a phone fixed it
        row(3, {"type": "roll", "source": "manual", "dice": [4, 4]}),  # typed in
        row(4, camera_roll(die(6, "red"))),
        row(5, {"type": "undo"}),  # takes back move 4
        row(6, {"type": "roll"}, game="dicethrone", game_id=2),  # the engine's own dice
        row(7, {"type": "roll"}, game="dicethrone", game_id=2),
        row(8, {"type": "undo"}, game="dicethrone", game_id=2),
        row(9, {"type": "redo"}, game="dicethrone", game_id=2),  # brings move 7 back
    ]
    report = report_of(rows)
    (d6,) = report["sets"]
    assert d6["sources"] == {"camera": 1, "confirmed": 1, "hand": 2}
    assert d6["dice"][0]["counts"] == [1, 1, 0, 0, 0, 0] and d6["dice"][0]["colour"] == "red"  # 1 and the fixed 2
    assert d6["hand"] == {"rolls": 2, "counts": [0, 0, 0, 2, 0, 0]}
    assert report["virtual_rolls"] == 2


def test_a_damaged_entry_is_not_trusted(tmp_path: Path) -> None:
    store = Store(tmp_path)
    table = Table(store)
    for value in (1, 2, 3):
        table.submit(camera_roll(die(value, "red")))
    table.close()
    conn = sqlite3.connect(tmp_path / "dicesight.sqlite")
    conn.execute("UPDATE entries SET action = replace(action, '\"value\":2', '\"value\":5') WHERE seq = 2")
    conn.commit()
    conn.close()
    dice, _ = dice_log.die_rolls(dice_log.read_log(tmp_path / "dicesight.sqlite"))
    assert sorted(d.value for d in dice) == [1, 3]  # the changed move fails its checksum


# -- the verdicts, through the real box ---------------------------------------------------------------------
def play(table: Table, throws: int, seed: int) -> None:
    """A red die that shows 1 a third of the time and a fair blue one, thrown together `throws` times."""
    rng = random.Random(seed)
    for _ in range(throws):
        red = 1 if rng.random() < 1 / 3 else rng.randint(2, 6)
        table.submit(camera_roll(die(red, "red"), die(rng.randint(1, 6), "blue")))


def test_a_loaded_red_die_is_named_and_the_fair_blue_one_is_not(tmp_path: Path) -> None:
    table = Table(Store(tmp_path))
    play(table, 300, seed=36)
    (d6,) = table.fairness()["sets"]
    blue, red = d6["dice"]
    assert (blue["colour"], red["colour"]) == ("blue", "red") and blue["rolls"] == red["rolls"] == 300
    assert red["verdict"]["code"] == "biased" and red["verdict"]["face"] == 0
    assert red["message"].startswith("the red die shows 1 far too often: p < 0.001")
    assert blue["verdict"]["code"] == "no_evidence" and blue["message"] == "no evidence of bias after 300 rolls"
    assert red["p_adjusted"] == pytest.approx(2 * red["p"])  # Holm: the smaller of two p-values, doubled
    assert d6["needed"] == red["needed"] > 277  # two dice: each tested at 2.5%, so more rolls are needed
    table.close()


def test_too_few_rolls_say_so(tmp_path: Path) -> None:
    table = Table(Store(tmp_path))
    play(table, 12, seed=1)
    (d6,) = table.fairness()["sets"]
    assert {d["verdict"]["code"] for d in d6["dice"]} == {"too_few"}
    assert d6["dice"][0]["message"] == "too few rolls to judge the blue die yet: 12 of the 30 needed"
    table.close()


def test_dice_of_one_colour_thrown_together_are_the_dice_not_the_die(tmp_path: Path) -> None:
    table = Table(Store(tmp_path))
    rng = random.Random(3)
    for _ in range(40):
        table.submit(camera_roll(*(die(rng.randint(1, 6), "white") for _ in range(3))))
    (d6,) = table.fairness()["sets"]
    (white,) = d6["dice"]
    assert white["several"] and white["rolls"] == 120 and white["colour"] == "white"
    assert fairness_report.sentence(
        fairness_report.fairness.Verdict("biased", 120, 0.01, 2, "often", 0.3, 1 / 6), "the white dice", "3", True
    ).startswith("the white dice show 3 far too often: p = 0.010")
    table.close()


def test_a_game_that_hides_rolls_keeps_its_dice_out_until_it_is_over(tmp_path: Path) -> None:
    table = Table(Store(tmp_path))
    table.new_game("regidice", {"players": [{"id": "p1", "name": "Ann"}, {"id": "p2", "name": "Ben"}], "first": 0},
                   seed=0)
    pool = [("red", 5), ("red", 2), ("red", 5), ("blue", 4), ("blue", 3), ("blue", 5), ("yellow", 1), ("yellow", 5),
            ("yellow", 6)]
    table.submit({**camera_roll(*(die(v, c) for c, v in pool), set_id="regidice"), "player": "p1"})
    hidden = table.fairness()
    assert hidden["sets"] == [] and hidden["left_out_game"] == table.game_id  # Ben's phone learns nothing
    table.new_game("freeroll", {})
    (regidice,) = table.fairness()["sets"]
    assert [(d["colour"], d["rolls"]) for d in regidice["dice"]] == [("red", 3), ("blue", 3), ("yellow", 3)]
    table.close()


def test_one_set_alone_and_a_bias_to_plan_for(tmp_path: Path) -> None:
    table = Table(Store(tmp_path))
    play(table, 40, seed=2)
    assert table.fairness(set_id="regidice")["sets"][0]["dice"] == []
    small = table.fairness(bias=0.25)["sets"][0]
    assert small["needed"] > table.fairness()["sets"][0]["needed"] and small["bias"] == 0.25
    table.close()


def test_the_tray_logs_the_set_it_read_so_a_free_roll_of_regidice_dice_counts_as_regidice(tmp_path: Path) -> None:
    """The game's action does not say which dice were thrown (a free roll takes any pip dice): the camera's
    evidence does, for a certain throw and for one a phone confirmed or fixed."""
    table = Table(Store(tmp_path))
    table.dice_set = "regidice"  # the box's configured dice

    def read(certain: bool, *values: int) -> list[Reading]:
        return [Reading(value=v, face=str(v), colour="yellow", confidence=0.99 if certain else 0.4,
                        center=(40.0 * v, 60.0), box=(0, 0, 20, 20), certain=certain) for v in values]

    tray = np.full((240, 320, 3), 90, np.uint8)
    sure = read(True, 2, 5)
    table.tray.record_roll(sure, [r.to_dict() for r in sure], tray)
    unsure = read(False, 3, 4)
    table.tray.record_roll(unsure, [r.to_dict() for r in unsure], tray)  # waits for a phone
    roll = table.snapshot()["tray"]["roll"]
    table.submit({"type": "roll", "source": "manual", "dice": [3, 6], "tray": {"roll": roll, "dice": [0, 1]}})
    assert table.store.evidence(table.game_id, 1)["set"] == table.store.evidence(table.game_id, 2)["set"] == "regidice"
    (regidice,) = table.fairness()["sets"]
    assert regidice["set"] == "regidice" and regidice["sources"] == {"camera": 2, "confirmed": 2, "hand": 0}
    (yellow,) = regidice["dice"]
    assert yellow["colour"] == "yellow" and yellow["counts"] == [0, 1, 1, 0, 1, 1]  # the fixed 6 counts as a 6
    table.close()


def test_only_the_game_that_changed_is_read_again(tmp_path: Path, monkeypatch) -> None:
    """A box's log grows by thousands of throws over the months: a page load must not read it all again."""
    table = Table(Store(tmp_path))
    play(table, 60, seed=4)
    old_game = table.game_id
    table.new_game("freeroll", {})
    play(table, 40, seed=5)
    assert table.fairness()["sets"][0]["dice"][0]["rolls"] == 100
    read: list[list[int]] = []
    real = dice_log.read_log
    monkeypatch.setattr(dice_log, "read_log", lambda path, games=None: read.append(sorted(games)) or real(path, games))
    play(table, 1, seed=6)
    assert table.fairness()["sets"][0]["dice"][0]["rolls"] == 101 and read == [[table.game_id]]
    table.undo()
    assert table.fairness()["sets"][0]["dice"][0]["rolls"] == 100 and read[-1] == [table.game_id] != [old_game]
    assert table.fairness()["sets"][0]["dice"][0]["rolls"] == 100 and len(read) == 2  # unchanged: nothing read
    table.close()
