"""`dicesight` with tracemalloc on, for bench/soak.py --tracemalloc: find what grows instead of guessing.

Runs `device.cli.main` with the given arguments in a process whose allocations tracemalloc follows
(`TRACE_FRAMES` frames each). Each SIGUSR1 writes a snapshot of the memory the box holds to the next
numbered file in the folder named by $DICESIGHT_TRACEMALLOC_DIR (`<pid>-0001.snap`, `<pid>-0002.snap`...:
a restarted box starts its own series); the soak sends one per simulated hour and prints what grew between
two hours, by source line.

    python bench/traced_box.py run --camera ... (the arguments of `dicesight`)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import itertools
import json
import os
import signal
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from device.cli import main  # noqa: E402
from engine import odds  # noqa: E402
from engine.dicethrone import abilities  # noqa: E402
from engine.regidice import sets  # noqa: E402

TRACE_FRAMES = 8
_numbers = itertools.count(1)


def cache_sizes() -> dict[str, int]:
    """How many entries the engine's memo caches hold (their bounds are chosen from these figures)."""
    sizes = {"odds._TABLES": len(odds._TABLES),
             "abilities._COMPILED memo": sum(len(memo) for _, _, memo in abilities._COMPILED.values())}
    for name, fn in (("odds._space", odds._space), ("odds._outcomes", odds._outcomes),
                     ("odds._float_trans", odds._float_trans), ("abilities._satisfied", abilities._satisfied),
                     ("abilities._levels_in_force", abilities._levels_in_force), ("sets._tails", sets._tails),
                     ("sets._best_groups", sets._best_groups)):
        sizes[name] = fn.cache_info().currsize
    return sizes


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


def native_memory() -> dict[str, float]:
    """Where the memory tracemalloc cannot see lives (MiB): glibc malloc's heaps (in use, free inside them,
    mmapped chunks; mallinfo2 sums every arena) and SQLite's own heap. Why: the soak's RSS grew while the
    traced Python heap did not; these tell a native leak (in use grows) from arena fragmentation (free grows)
    and rule SQLite in or out."""
    out: dict[str, float] = {"traced_mib": round(tracemalloc.get_traced_memory()[0] / 2**20, 1)}
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        libc.mallinfo2.restype = _Mallinfo2
        info = libc.mallinfo2()
        out.update(malloc_in_use_mib=round(info.uordblks / 2**20, 1), malloc_free_mib=round(info.fordblks / 2**20, 1),
                   malloc_mmapped_mib=round(info.hblkhd / 2**20, 1))
    except (OSError, AttributeError):  # not glibc (or older than 2.33): say nothing rather than guess
        pass
    try:
        lib = next(line.split()[-1] for line in Path("/proc/self/maps").read_text().splitlines()
                   if "libsqlite3" in line)
        sqlite = ctypes.CDLL(lib)
        sqlite.sqlite3_memory_used.restype = ctypes.c_int64
        out["sqlite_mib"] = round(sqlite.sqlite3_memory_used() / 2**20, 2)
    except (OSError, StopIteration, AttributeError):
        pass
    return out


def _dump(_signum, _frame) -> None:
    folder = Path(os.environ["DICESIGHT_TRACEMALLOC_DIR"])
    path = folder / f"{os.getpid()}-{next(_numbers):04d}.snap"
    path.with_suffix(".json").write_text(json.dumps(cache_sizes() | native_memory()))
    tracemalloc.take_snapshot().dump(str(path.with_suffix(".tmp")))
    os.replace(path.with_suffix(".tmp"), path)  # the soak reads only whole snapshots


if __name__ == "__main__":
    tracemalloc.start(TRACE_FRAMES)
    signal.signal(signal.SIGUSR1, _dump)
    raise SystemExit(main(sys.argv[1:]))
