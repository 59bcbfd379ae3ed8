"""Pairing under the jam of issue 32: how often does the owner's first press admit the owner's phone while
N hostile addresses keep asking to pair?

Each stranger asks twice a minute at a random phase (the attack measured in the issue) and, worst case, keeps
its page polling so its request stays alive; the owner's phone asks at a random moment and the owner presses
Pair `press_after` seconds later. Runs the box's own pairing (device.pairing.Pairing) on a simulated clock:
no waiting in real time. Prints, per N, the share of first presses that admitted the owner, that admitted a
stranger, and that were refused as a conflict.

    python bench/pair_jam.py [--trials 2000] [--press-after 2] [--no-poll]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from device.pairing import Pairing, PairingRefused  # noqa: E402

STEP_S = 0.1  # how often the simulated phones poll (the page polls every 0.3 s); fine enough to time asks


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def trial(hostile: int, press_after: float, rng: random.Random, folder: Path, polling: bool = True) -> str:
    """One owner's first press among `hostile` strangers: "owner", "stranger", "conflict" or "none"."""
    clock = Clock()
    pairing = Pairing(folder / f"tokens{rng.random()}.json", clock=clock)
    phase = [rng.uniform(0, 30) for _ in range(hostile)]
    theirs: dict[int, str] = {}
    owner_asks = rng.uniform(60, 120)
    mine = None
    while clock.now < owner_asks + press_after:
        for i in range(hostile):
            if (clock.now - phase[i]) % 30 < STEP_S:  # twice a minute
                try:
                    theirs[i] = pairing.request(f"10.0.0.{100 + i}")
                except PairingRefused:
                    pass
            if polling and i in theirs:
                pairing.poll(theirs[i])
        if mine is None and clock.now >= owner_asks:
            mine = pairing.request("10.0.0.2")
        if mine is not None:
            pairing.poll(mine)
        clock.now += STEP_S
    result = pairing.approve()
    if result != "granted":
        return result
    return "owner" if pairing.poll(mine)[0] == "granted" else "stranger"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--press-after", type=float, default=2.0)
    parser.add_argument("--no-poll", action="store_true", help="strangers ask and never poll (no page open)")
    args = parser.parse_args()
    rng = random.Random(32)
    with tempfile.TemporaryDirectory() as folder:
        for hostile in (1, 2, 10):
            tally: dict[str, int] = {}
            for _ in range(args.trials):
                outcome = trial(hostile, args.press_after, rng, Path(folder), not args.no_poll)
                tally[outcome] = tally.get(outcome, 0) + 1
            shares = ", ".join(f"{k} {100 * v / args.trials:.1f}%" for k, v in sorted(tally.items()))
            print(f"{hostile:2d} hostile addresses{'' if args.no_poll else ' polling'}, press {args.press_after:g} s after asking: {shares}")


if __name__ == "__main__":
    main()
