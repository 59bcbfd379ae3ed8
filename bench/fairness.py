"""Are these dice fair? The test's figures, measured on seeded dice (issue 36, docs/fairness.md).

    python bench/fairness.py [--runs 2000] [--seed 1] [--log-throws 20000] [--json]

Prints, for a d6 and a d12:
- how many rolls the power analysis asks for to catch one face off by 25%, 50% and 100% (80% of the time at
  alpha 0.05), beside the textbook noncentral chi-square answer, and how often seeded dice loaded that way
  are then caught (the face too often, and too rarely), over `--runs` series each;
- how often a fair die is accused at 30, 100 and 300 rolls (it must stay near 5%);
- how long the report takes over a store of `--log-throws` camera throws of two dice (read, parse, test),
  the first time after a start, and then with a 200-throw game on the table that just changed (the table keeps
  each game's tally and reads again only the game that changed).
Figures, not checks: the tests (tests/device/test_fairness.py) assert the rates with binomial bounds.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from device import fairness as f  # noqa: E402


def caught(rng: np.random.Generator, probs: list[float], truth: list[float], rolls: int, runs: int) -> float:
    """The share of `runs` seeded series of `rolls` throws of a die with face chances `truth` called biased."""
    hits = 0
    for _ in range(runs):
        counts = np.bincount(rng.choice(len(truth), size=rolls, p=truth), minlength=len(truth)).tolist()
        hits += f.judge(f.chi_square(counts, probs), probs).code == "biased"
    return hits / runs


def shy(probs: list[float], bias: float) -> list[float]:
    """The face the analysis assumes, (1 - bias) times as often instead: the other direction."""
    rare = min(range(len(probs)), key=lambda i: probs[i])
    low = probs[rare] * (1 - bias)
    grow = (1 - low) / (1 - probs[rare])
    return [low if i == rare else p * grow for i, p in enumerate(probs)]


def power_rows(runs: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for name, probs in (("d6", [1 / 6] * 6), ("d12", [1 / 12] * 12)):
        for bias in (0.25, 0.5, 1.0):
            n = f.rolls_needed(probs, bias)
            rows.append({"die": name, "bias": bias, "rolls_needed": n, "textbook": f.approx_rolls_needed(probs, bias),
                         "caught_too_often": caught(rng, probs, f.loaded(probs, bias), n, runs),
                         "caught_too_rarely": caught(rng, probs, shy(probs, bias), n, runs)})
    return rows


def false_rows(runs: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed + 1)
    rows = []
    for name, probs in (("d6", [1 / 6] * 6), ("d12", [1 / 12] * 12)):
        for rolls in (f.min_rolls(probs), 100, 300):
            rows.append({"die": name, "rolls": rolls, "accused": caught(rng, probs, probs, rolls, runs)})
    return rows


def report_time(throws: int, seed: int) -> dict:
    from device.store import Store
    from device.table import Table

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        table = Table(Store(Path(tmp)))
        for _ in range(throws):
            dice = [{"value": rng.randint(1, 6), "face": "", "colour": c} for c in ("red", "blue")]
            for d in dice:
                d["face"] = str(d["value"])
            table.submit({"type": "roll", "source": "camera", "dice": dice, "evidence": {"readings": dice, "set": "d6"}})
        table.fairness()  # scipy's first import is not the report's time
        table._fairness_tallies.clear()  # as after a restart
        t0 = time.perf_counter()
        table.fairness()
        first = time.perf_counter() - t0
        table.new_game("freeroll", {})  # tonight's game: a few throws on top of the kept games
        for _ in range(200):
            dice = [{"value": rng.randint(1, 6), "face": "", "colour": c} for c in ("red", "blue")]
            for d in dice:
                d["face"] = str(d["value"])
            table.submit({"type": "roll", "source": "camera", "dice": dice, "evidence": {"readings": dice, "set": "d6"}})
        table.fairness()
        table.submit({"type": "roll", "source": "manual", "dice": [3]})
        t0 = time.perf_counter()
        table.fairness()
        again = time.perf_counter() - t0
        table.close()
    return {"throws": throws, "first_s": round(first, 3), "unchanged_s": round(again, 4)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--log-throws", type=int, default=20000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = {"power": power_rows(args.runs, args.seed), "fair": false_rows(args.runs, args.seed),
           "report": report_time(args.log_throws, args.seed)}
    if args.json:
        print(json.dumps(out))
        return 0
    print("die  bias  rolls needed (textbook)  caught: too often / too rarely")
    for r in out["power"]:
        print(f"{r['die']:<4} {r['bias']:>4.0%}  {r['rolls_needed']:>6} ({r['textbook']:>6})        "
              f"{r['caught_too_often']:.1%} / {r['caught_too_rarely']:.1%}")
    print("\ndie  rolls  fair die accused")
    for r in out["fair"]:
        print(f"{r['die']:<4} {r['rolls']:>5}  {r['accused']:.1%}")
    rep = out["report"]
    print(f"\nreport over {rep['throws']} throws of two dice: {rep['first_s']} s, then {rep['unchanged_s']} s "
          f"when only the game being played changed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
