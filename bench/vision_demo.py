"""The demo tray as the box reads it: throws of a dice set under the tray (device.camera.demo), every frame
through the tray watcher (motion gate, learned background, settle, three votes), each settled roll compared
with what the tray threw. Prints per set: dice thrown, read certain and right, uncertain, certain and wrong
(silent), missed. Asserts nothing.

    nice -n 10 env OMP_NUM_THREADS=1 .venv/bin/python bench/vision_demo.py [--throws 12] [--sets dicethrone]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from device.camera.demo import CYCLE_S, DemoTray  # noqa: E402
from device.dice_sets import ids, spec  # noqa: E402
from vision.dicesets import get_set  # noqa: E402
from vision.reader import read_dice  # noqa: E402
from vision.watcher import TrayWatcher  # noqa: E402


def run_set(set_id: str, throws: int, seed: int, own_colours: bool = False) -> dict:
    ds_spec = spec(set_id)
    ds = get_set(ds_spec)
    # the box's demo tray throws the colours the game waits for (Table.tray_colours); a set whose game tells
    # colours apart (Regidice's four) is never certain in white: `own_colours` (the default) throws the set's
    # own colours, `--white` white dice
    colours = tuple(ds_spec.get("colours") or ()) if own_colours else ()
    tray = DemoTray(seed=seed, realtime=False, mount="under", **({"colours": colours} if colours else {}))
    tray.follow = lambda: (set_id, 5)
    watcher = TrayWatcher(lambda f, background=None: read_dice(f, ds_spec, "under", background=background),
                          dice_set=ds_spec, mount="under")
    out = {"throws": 0, "dice": 0, "certain_right": 0, "uncertain": 0, "silent": 0, "missed": 0, "ms": 0.0}
    frames = int((throws + 0.2) * CYCLE_S * tray.fps)
    seen_throws: set[int] = set()
    t_read = 0.0
    for _ in range(frames):
        fr = tray.read()
        t0 = time.perf_counter()
        st = watcher.feed(fr.image, fr.t)
        t_read += time.perf_counter() - t0
        if not st.new_roll:
            continue
        throw = int((fr.t - tray._t0) // CYCLE_S)
        if throw in seen_throws:
            continue
        seen_throws.add(throw)
        _, plan = tray._throw(throw)
        out["throws"] += 1
        for d in plan:
            out["dice"] += 1
            near = [r for r in st.readings if math.hypot(r.center[0] - d.end[0], r.center[1] - d.end[1]) < 25]
            if not near:
                out["missed"] += 1
                continue
            r = near[0]
            f = ds.face(d.value)
            right = r.face == f.name and r.value == f.value
            if r.certain and right:
                out["certain_right"] += 1
            elif r.certain:
                out["silent"] += 1
            else:
                out["uncertain"] += 1
    out["ms"] = 1000.0 * t_read / max(frames, 1)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--throws", type=int, default=12)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--sets", default="", help="comma-separated set ids or prefixes (default: every set)")
    ap.add_argument("--white", dest="own_colours", action="store_false",
                    help="throw white dice of every set (by default each set in the colours its game tells "
                         "apart, as the box's demo tray does)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    wanted = [s for s in args.sets.split(",") if s]
    sets = [i for i in ids() if not wanted or any(i == w or i.startswith(w) for w in wanted)]
    total = {"dice": 0, "certain_right": 0, "uncertain": 0, "silent": 0, "missed": 0}
    dice = "dice of each set's own colours" if args.own_colours else "white dice"
    print(f"demo tray under the glass, {dice} 64 px, {args.throws} throws per set (seed {args.seed})")
    for set_id in sets:
        r = run_set(set_id, args.throws, args.seed, args.own_colours)
        n = max(r["dice"], 1)
        for k in total:
            total[k] += r[k]
        print(f"{set_id:<28} throws {r['throws']:3d}  dice {r['dice']:4d}  certain-right "
              f"{100 * r['certain_right'] / n:6.2f}%  uncertain {100 * r['uncertain'] / n:6.2f}%  silent "
              f"{100 * r['silent'] / n:5.2f}%  missed {100 * r['missed'] / n:5.2f}%  ({r['ms']:.1f} ms/frame)")
    n = max(total["dice"], 1)
    print(f"{'all':<28}             dice {total['dice']:4d}  certain-right {100 * total['certain_right'] / n:6.2f}%  "
          f"uncertain {100 * total['uncertain'] / n:6.2f}%  silent {100 * total['silent'] / n:5.2f}%  "
          f"missed {100 * total['missed'] / n:5.2f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
