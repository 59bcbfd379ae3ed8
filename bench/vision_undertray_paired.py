"""Two d6 face networks read on the same frames from below, die by die: which dice one reads certain and right
and the other does not, and how far the difference could be chance.

    .venv/bin/python bench/vision_undertray_paired.py --seeds 1083-1102 --b build/reader-models/g4.onnx \
        [--a vision/models/pips-under.onnx] [--modes merged,watcher] [--draws 4000]
    .venv/bin/python bench/vision_undertray_paired.py --seeds 1241-1254 --a-set reader.SURE_ALL_ROUND=False
    .venv/bin/python bench/vision_undertray_paired.py --seeds 1131-1134 --b-root build/undertray-x2 \
        --b-scale 0.75
    .venv/bin/python bench/vision_undertray_paired.py --seeds 1131-1134 --root build/undertray-x2 \
        --scale 0.75 --b-set reader.CUT_FLOOR=0.99

Why: a rule's judge (`bench/vision_undertray.py`, one run per candidate) compares two totals, and a total
moves by a die whichever network reads it. Read on the same frames, most dice come out the same both ways; the
difference is made by the few that change, and this lists them (C certain, u unsure, + right, x wrong,
- missed). How sure the difference is: the frames are drawn again with replacement
(`scoring.paired_difference`: one frame's dice share a plate, a lamp and a room, so they are not independent)
and the 5th and 95th percentiles of the difference in points are printed beside it. A rule can then ask for a
gain its judge's frames could not have made by chance. `--a-set`/`--b-set MODULE.NAME=VALUE`: one side reads
with a constant of a vision module set so (VALUE a Python literal), to judge a rule that is a setting, not a
network. `--root`/`--scale`: both sides read the seeds under that root, resized so (a rule judged at the
box's read size: build/undertray-x2 at 0.75). `--b-root`/`--b-scale`: the second read is of the same scenes
rendered under another root (e.g. at 640x480, `make blender-undertray UNDERTRAY_SCALE=2`) and resized as
`vision_undertray.py --scale` does, so the same reader is compared on the pixels the box's camera gives a
die against the renders' 320x240. `--every-set`: symbol dice too (a rule of the merge is every set's).
Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision_undertray  # noqa: E402
from vision_undertray import FRAMES, Models, meta_of, read_row, read_rows, seed_list  # noqa: E402

from vision.classify import FaceClassifier  # noqa: E402
from vision.scoring import Score, paired_difference  # noqa: E402

# the figures compared, and the outcomes each counts
FIGURES = {"certain-right": ("C+",), "right": ("C+", "u+"), "silent": ("Cx",), "missed": ("-",)}


def outcome(s: Score) -> str:
    """One die's `Score` as what it came to: its reading certain (C) or unsure (u), right (+) or wrong (x), or
    none (-)."""
    if s.missed:
        return "-"
    if s.right_certain:
        return "C+"
    if s.silent:
        return "Cx"
    return "u+" if s.correct else "ux"


def d6_rows(seeds: str, root: Path = FRAMES, every_set: bool = False) -> list[tuple[Path, dict]]:
    """(folder, row) of every rendered d6 frame of the seeds (`every_set`: of every frame with dice, symbol
    dice too, each read as its own set, as `vision_undertray.py` reads them)."""
    out = []
    for s in seed_list(seeds):
        folder = root / f"s{s}"
        out += [(folder, r) for r in read_rows(folder)
                if r["dice"] and (every_set or r["dice"][0].get("set", "d6") == "d6")]
    return out


Settings = dict[tuple[object, str], object]


def settings_of(specs: list[str]) -> Settings:
    """{(module, name): value} of `MODULE.NAME=VALUE` specs, each naming a constant a vision module has."""
    out: Settings = {}
    for spec in specs:
        name, _, value = spec.partition("=")
        module_name, _, attr = name.rpartition(".")
        module = importlib.import_module(f"vision.{module_name}")
        if not hasattr(module, attr):
            raise SystemExit(f"vision.{module_name} has no {attr}")
        out[(module, attr)] = ast.literal_eval(value)
    return out


Frames = list[tuple[Path, dict]]


def pairs_of(rows: Frames, b_root: Path | None) -> list[tuple[tuple[Path, dict], tuple[Path, dict]]]:
    """Each frame with the frame the second read reads: itself, or the same seed's frame of the same index
    rendered under `b_root` (frames rendered in only one root are left out)."""
    if b_root is None:
        return [(r, r) for r in rows]
    there = {(folder.name, row["index"]): (b_root / folder.name, row)
             for folder in {f for f, _ in rows} for row in read_rows(b_root / folder.name)}
    return [(r, there[key]) for r in rows if (key := (r[0].name, r[1]["index"])) in there]


@contextmanager
def settings_applied(settings: Settings) -> Iterator[None]:
    """The settings in force inside the block, the modules' own values after it."""
    before = {key: getattr(*key) for key in settings}
    for (module, attr), value in settings.items():
        setattr(module, attr, value)
    try:
        yield
    finally:
        for (module, attr), value in before.items():
            setattr(module, attr, value)


def paired(rows: Frames, mode: str, a: Models, b: Models, settings_a: Settings | None = None,
           settings_b: Settings | None = None, b_root: Path | None = None,
           scales: tuple[float, float] = (1.0, 1.0)) -> list[list[tuple[str, str]]]:
    """Per frame, per die, (outcome with `a`, outcome with `b`), each read with its settings in force and at
    its scale (`b` of the frame under `b_root`, `pairs_of`); a frame either could not read is left out."""
    frames = []
    for (folder, row), (folder_b, row_b) in pairs_of(rows, b_root):
        with settings_applied(settings_a or {}), bench_scale(scales[0]):
            got_a = read_row(folder, row, mode, a)
        with settings_applied(settings_b or {}), bench_scale(scales[1]):
            got_b = read_row(folder_b, row_b, mode, b)
        if got_a is None or got_b is None or len(got_a[0]) != len(got_b[0]):
            continue
        frames.append([(outcome(x), outcome(y)) for x, y in zip(got_a[0], got_b[0], strict=True)])
    return frames


@contextmanager
def bench_scale(scale: float) -> Iterator[None]:
    """`vision_undertray`'s frames resized by `scale` inside the block (its --scale)."""
    before, vision_undertray.SCALE = vision_undertray.SCALE, scale
    try:
        yield
    finally:
        vision_undertray.SCALE = before


def counts(frames: list[list[tuple[str, str]]], kinds: tuple[str, ...]) -> np.ndarray:
    """(frames, 3): each frame's dice, and of them those `a` and those `b` read as one of `kinds`."""
    return np.array([(len(f), sum(x in kinds for x, _ in f), sum(y in kinds for _, y in f)) for f in frames],
                    np.int64).reshape(-1, 3)


def report(mode: str, frames: list[list[tuple[str, str]]], draws: int, seed: int) -> str:
    """The mode's transitions (dice whose outcome changed) and each figure's difference with its spread."""
    pairs = Counter(p for f in frames for p in f)
    dice = sum(pairs.values())
    same = sum(n for (x, y), n in pairs.items() if x == y)
    lines = [f"{mode}: {len(frames)} frames, {dice} dice; the same outcome both ways {same}"]
    moved = sorted(((n, x, y) for (x, y), n in pairs.items() if x != y), reverse=True)
    lines += [f"    a {x:>2} -> b {y:>2}  {n:4d}" for n, x, y in moved]
    for name, kinds in FIGURES.items():
        c = counts(frames, kinds)
        d, lo, hi = paired_difference(c, draws, seed)
        share_a, share_b = (100 * c[:, k].sum() / max(dice, 1) for k in (1, 2))
        lines.append(f"  {name:<14} a {share_a:6.2f}%  b {share_b:6.2f}%  b - a {d:+6.2f} points "
                     f"(5-95% of frames redrawn: {lo:+6.2f} to {hi:+6.2f})")
    return "\n".join(lines)


def models_of(path: str) -> Models:
    """The bench's models with the d6 face network at `path` (.onnx beside its .json; '' the shipped one)."""
    return Models(FaceClassifier(Path(path), meta_of(Path(path))) if path else None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", required=True)
    ap.add_argument("--a", default="", help="the first d6 face network (default: the shipped one)")
    ap.add_argument("--b", default="", help="the second d6 face network (default: the shipped one)")
    ap.add_argument("--a-set", action="append", default=[], metavar="MODULE.NAME=VALUE",
                    help="a vision module's constant set so for the first read (repeatable)")
    ap.add_argument("--b-set", action="append", default=[], metavar="MODULE.NAME=VALUE",
                    help="a vision module's constant set so for the second read (repeatable)")
    ap.add_argument("--root", type=Path, default=FRAMES,
                    help="the seed folders' folder both sides read (build/undertray-x2: at 640x480)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="both sides' frames resized so (`vision_undertray.py --scale`; 0.75 with "
                    "build/undertray-x2: the box's read size)")
    ap.add_argument("--b-root", type=Path, default=None,
                    help="the second read's frames: the same seeds rendered under this root "
                    "(build/undertray-x2)")
    ap.add_argument("--b-scale", type=float, default=None,
                    help="the second read's frames resized so instead (0.75: build/undertray-x2 at 480x360)")
    ap.add_argument("--modes", default="merged,watcher")
    ap.add_argument("--every-set", action="store_true",
                    help="symbol dice too (King of Tokyo seeds 200-299), each read as its set; else d6 only")
    ap.add_argument("--draws", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=51)
    args = ap.parse_args()
    rows = d6_rows(args.seeds, args.root, args.every_set)
    scales = (args.scale, args.scale if args.b_scale is None else args.b_scale)
    a, b = models_of(args.a), models_of(args.b)
    settings_a, settings_b = settings_of(args.a_set), settings_of(args.b_set)
    where_b = f" frames {args.b_root or args.root} at {scales[1]}" if args.b_root or scales[1] != 1 else ""
    print(f"a: {args.a or 'shipped pips-under'} {' '.join(args.a_set)}   b: {args.b or 'shipped pips-under'} "
          f"{' '.join(args.b_set)}{where_b}   seeds {args.seeds}")
    for mode in args.modes.split(","):
        frames = paired(rows, mode, a, b, settings_a, settings_b, args.b_root, scales)
        print(report(mode, frames, args.draws, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
