"""`dicesight` with tracemalloc on, for bench/soak.py --tracemalloc: find what grows instead of guessing.

Runs `device.cli.main` with the given arguments in a process whose allocations tracemalloc follows
(`TRACE_FRAMES` frames each). Each SIGUSR1 writes a snapshot of the memory the box holds to the next
numbered file in the folder named by $DICESIGHT_TRACEMALLOC_DIR (`<pid>-0001.snap`, `<pid>-0002.snap`...:
a restarted box starts its own series); the soak sends one per simulated hour and prints what grew between
two hours, by source line.

    python bench/traced_box.py run --camera ... (the arguments of `dicesight`)
"""

from __future__ import annotations

import itertools
import os
import signal
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from device.cli import main  # noqa: E402

TRACE_FRAMES = 8
_numbers = itertools.count(1)


def _dump(_signum, _frame) -> None:
    folder = Path(os.environ["DICESIGHT_TRACEMALLOC_DIR"])
    path = folder / f"{os.getpid()}-{next(_numbers):04d}.snap"
    tracemalloc.take_snapshot().dump(str(path.with_suffix(".tmp")))
    os.replace(path.with_suffix(".tmp"), path)  # the soak reads only whole snapshots


if __name__ == "__main__":
    tracemalloc.start(TRACE_FRAMES)
    signal.signal(signal.SIGUSR1, _dump)
    raise SystemExit(main(sys.argv[1:]))
