"""Fault injection on the store: damage a played store in every way, start the box, count what it kept.

    .venv/bin/python bench/store_faults.py [--runs 40] [--actions 300]

Each run plays a store (a long game of free rolls with checkpoints every 50 actions, a Dice-Throne-sized
second game, a short third), closes it, damages it one way, then starts the box on it (`device.table.Table`
on `device.store.Store`, as `dicesight run` does) and counts: did it start, how long the start took (open,
check, repair, replay), and of the acknowledged actions how many the live games still hold, how many are in
the quarantine table and how many only in the damaged file kept beside the store. Damage kinds: a byte flipped
at a random place, the file cut at a random length, a 4 KiB page zeroed, one to three 512-byte blocks
scribbled, a byte flipped inside a log entry's text. Prints one line per kind.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from device.store import DB_NAME, Store  # noqa: E402
from device.table import Table  # noqa: E402
from engine.games import get_rules  # noqa: E402
from engine.match import Match  # noqa: E402

KINDS = ("flip_anywhere", "flip_in_entry", "cut", "zero_page", "scribble")


def roll(game: int, n: int) -> dict:
    return {"type": "roll", "dice": [1 + n % 6, 1 + (n * 5) % 6], "marker": f"g{game}-{n:05d}"}


def play(state: Path, actions: int) -> dict[int, int]:
    """Three free-roll games; returns game id -> acknowledged actions."""
    store = Store(state)
    acked = {}
    for game, count in ((1, actions // 10), (2, actions // 3), (3, actions)):
        gid = store.new_game("freeroll", {"title": f"game-{game}"}, game)
        live = Match(get_rules("freeroll"), {"title": f"game-{game}"}, game)
        for n in range(1, count + 1):
            store.append(gid, live.submit(roll(game, n)))
            if n % 50 == 0:
                store.save_checkpoint(gid, *live.checkpoint())
        acked[gid] = count
    store.close()
    return acked


def damage(path: Path, kind: str, rng: random.Random) -> None:
    data = bytearray(path.read_bytes())
    if kind == "flip_anywhere":
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif kind == "flip_in_entry":
        at = data.find(f"g3-{rng.randint(1, 200):05d}".encode())
        data[at + 3] ^= 0x04
    elif kind == "cut":
        del data[rng.randrange(len(data) // 10, len(data)):]
    elif kind == "zero_page":
        page = rng.randrange(len(data) // 4096)
        data[page * 4096:(page + 1) * 4096] = bytes(4096)
    else:
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(data) - 512)
            data[at:at + 512] = rng.randbytes(512)
    path.write_bytes(bytes(data))


def kept(table: Table, acked: dict[int, int]) -> tuple[int, int]:
    """(actions the live games hold of those acknowledged, records in quarantine)."""
    live = 0
    for gid in acked:
        try:
            live += len(table.store.load_game(gid).entries)
        except Exception:  # noqa: BLE001 - a game whose own record is damaged: kept, not loaded
            pass
    return live, len(table.store.quarantined())


def one(kind: str, seed: int, actions: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp)
        acked = play(state, actions)
        damage(state / DB_NAME, kind, random.Random(seed))
        t0 = time.perf_counter()
        try:
            table = Table(Store(state))
        except Exception as exc:  # noqa: BLE001 - the figure that must stay 0
            return {"started": False, "error": repr(exc)}
        start_s = time.perf_counter() - t0
        live, quarantined = kept(table, acked)
        kept_file = bool(list(state.glob(DB_NAME + ".corrupt-*")))
        told = bool(table.snapshot()["store"].get("code"))
        table.close()
        return {"started": True, "start_s": start_s, "acked": sum(acked.values()), "live": live,
                "quarantined": quarantined, "kept_file": kept_file, "told": told}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=40, help="runs per damage kind")
    ap.add_argument("--actions", type=int, default=300, help="actions in the longest game")
    args = ap.parse_args(argv)
    print(f"{'damage':<14} runs started  start median / max s  live actions kept  quarantined  kept file  told")
    for kind in KINDS:
        rows = [one(kind, seed, args.actions) for seed in range(args.runs)]
        ok = [r for r in rows if r["started"]]
        times = [r["start_s"] for r in ok]
        live = sum(r["live"] for r in ok) / max(1, sum(r["acked"] for r in ok))
        print(f"{kind:<14} {len(rows):4d} {len(ok):7d}  {statistics.median(times):8.3f} / {max(times):6.3f}"
              f"  {100 * live:14.2f}%  {sum(r['quarantined'] for r in ok):11d}  {sum(r['kept_file'] for r in ok):9d}"
              f"  {sum(r['told'] for r in ok):4d}")
        for r in rows:
            if not r["started"]:
                print("   did not start:", r["error"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
