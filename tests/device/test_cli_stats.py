"""`dicesight stats` as a person runs it, on a real store file a box wrote (issue 36): the loaded red die is
named, the fair blue one is not, the same numbers as JSON lines; one set alone; clear refusals."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from device.store import Store
from device.table import Table

ROOT = Path(__file__).resolve().parents[2]


def dicesight(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "device.cli", *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


def lines(done: subprocess.CompletedProcess) -> list[dict]:
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.fixture(scope="module")
def box(tmp_path_factory) -> Path:
    """A state directory as a box leaves it: 300 camera throws of a red die loaded to show 1 a third of the time
    with a fair blue one, a few dice typed in by hand, then a new game (the store keeps both)."""
    state = tmp_path_factory.mktemp("box")
    table = Table(Store(state))
    rng = random.Random(36)
    for _ in range(300):
        red = 1 if rng.random() < 1 / 3 else rng.randint(2, 6)
        blue = rng.randint(1, 6)
        dice = [{"value": red, "face": str(red), "colour": "red"}, {"value": blue, "face": str(blue), "colour": "blue"}]
        table.submit({"type": "roll", "source": "camera", "dice": dice, "evidence": {"readings": dice, "set": "d6"}})
    table.submit({"type": "roll", "source": "manual", "dice": [6, 6, 6]})
    table.new_game("freeroll", {})
    table.close()
    return state


def test_the_loaded_die_is_named_in_plain_words(box: Path) -> None:
    done = dicesight("stats", "--state-dir", str(box))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "d6 (Free roll): 600 dice read by the camera (0 of them confirmed on a phone), 3 entered by hand" in out
    assert "the red die shows 1 far too often: p < 0.001" in out
    assert "no evidence of bias after 300 rolls" in out
    assert "entered by hand (not tested), 3 dice" in out


def test_json_lines_carry_the_counts_and_the_test(box: Path) -> None:
    done = dicesight("stats", "--state-dir", str(box), "--json")
    (d6, summary) = lines(done)
    assert d6["event"] == "dice_set" and d6["set"] == "d6" and summary["event"] == "fairness"
    blue, red = d6["dice"]
    assert sum(red["counts"]) == sum(blue["counts"]) == 300 and red["counts"][0] > 80
    assert red["verdict"]["code"] == "biased" and blue["verdict"]["code"] == "no_evidence"
    assert 0 < red["p"] < 0.001 and blue["p"] > 0.05 and d6["hand"]["counts"] == [0, 0, 0, 0, 0, 3]
    assert summary["sets"] == ["d6"] and summary["alpha"] == 0.05 and summary["virtual_rolls"] == 0


def test_one_set_and_another_bias(box: Path) -> None:
    (empty, summary) = lines(dicesight("stats", "--state-dir", str(box), "--json", "--set", "regidice"))
    assert empty["set"] == "regidice" and empty["dice"] == [] and summary["sets"] == ["regidice"]
    (d6, _summary) = lines(dicesight("stats", "--state-dir", str(box), "--json", "--set", "d6", "--bias", "1"))
    assert d6["bias"] == 1 and d6["needed"] < 120


def test_refusals_are_clear(box: Path, tmp_path: Path) -> None:
    done = dicesight("stats", "--state-dir", str(box), "--json", "--set", "d7")
    assert done.returncode == 2 and lines(done)[0]["error"]["code"] == "unknown_dice_set"
    done = dicesight("stats", "--state-dir", str(tmp_path / "nothing"), "--json")
    assert done.returncode == 1 and lines(done)[0]["error"]["code"] == "no_store"
    done = dicesight("stats", "--state-dir", str(box), "--bias", "3")
    assert done.returncode == 2 and "must be from 0.05 to 1" in done.stderr
