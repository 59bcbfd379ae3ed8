"""The watcher's vote judged alone: each settled throw's looks read once, then voted by the shipped rule and
by other settings of `vision.watcher`, die by die.

    .venv/bin/python bench/vision_undertray_votes.py --seeds 1274-1289 --root build/undertray-x2 \
        --scale 0.75 --b-set watcher.LOOKS_COUNTED_ONCE=True [--b-set watcher.ONE_LOOK_ENOUGH=False] \
        [--every-set] [--silent]

Why: a rule of the vote changes nothing a look reads, only how the looks are joined; reading every look again
for each candidate (`vision_undertray_paired.py --modes watcher`) spends minutes a seed on the same readings.
Here each frame's VOTES looks are read once as the watcher reads them (`vision_undertray.looked`: with and
without the room, merged) and kept under build/reader-cache by seeds, root and scale; the vote is then cast
with the shipped settings (a) and with `--b-set`'s (b), and the dice whose outcome changed are listed with
how far the difference could be chance (`vision_undertray_paired.report`). `--silent` names each die either
side reads certain and wrong, with its looks. The read of the looks' mean frame is not kept: a setting that
would ask for it (`watcher.MOST_LOOKS_ENOUGH=False`) is refused. Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision_undertray  # noqa: E402
from vision_undertray import (  # noqa: E402
    FRAMES,
    Models,
    dice_scores,
    looked,
    nearest_pairs,
    radius_of,
    set_of,
    truth_of,
)
from vision_undertray_paired import (  # noqa: E402
    Settings,
    d6_rows,
    outcome,
    report,
    settings_applied,
    settings_of,
)

import vision.readsize  # noqa: E402
import vision.watcher  # noqa: E402
from vision.reading import Reading  # noqa: E402
from vision.watcher import vote  # noqa: E402

CACHE = Path(__file__).resolve().parents[1] / "build" / "reader-cache"
Looks = list[tuple[Path, dict, list[list[Reading]]]]


def cache_path(seeds: str, root: Path, scale: float, every_set: bool) -> Path:
    """Where the looks of these seeds, read from `root` at `scale`, are kept (read again if it is gone)."""
    key = hashlib.sha1(f"{seeds}|{root.resolve()}|{scale}|{every_set}".encode()).hexdigest()[:12]
    return CACHE / f"votes-{key}.pkl"


def read_looks(seeds: str, root: Path, scale: float, every_set: bool) -> Looks:
    """(folder, row, its looks' readings) of every frame with dice of the seeds, read once and kept."""
    path = cache_path(seeds, root, scale, every_set)
    if path.exists():
        return pickle.loads(path.read_bytes())
    vision_undertray.SCALE = scale
    out = []
    for folder, row in d6_rows(seeds, root, every_set):
        got = None if row.get("cut") else looked(folder, row, Models(), set_of(row))
        if got is not None:
            out.append((folder, row, got[0]))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(out))
    return out


def voted(looks: Looks, settings: Settings, scale: float) -> tuple[list[list[tuple[str, str]]], int, int]:
    """Per frame, per die, (outcome, what it was read as) with the looks voted under `settings`; how many
    voted readings claim a confidence above one (a vote that counted one look twice); and how many voted
    readings no die took (phantoms, `scoring.nearest_pairs`: a die read twice gives one)."""
    frames, above_one, phantoms = [], 0, 0
    with settings_applied(settings):
        for _, row, readings in looks:
            got = [vision.readsize.unscaled(r, scale) for r in vote(readings)]
            above_one += sum(r.confidence > 1.0 for r in got)
            ds, radius = set_of(row), radius_of(row)
            truths = [truth_of(d, ds) for d in row["dice"]]
            names = vision_undertray.read_as(truths, got, radius)
            scores = dice_scores(row["dice"], truths, got, radius)
            phantoms += len(got) - len(nearest_pairs(truths, got, radius))   # one-to-one pairs
            frames.append([(outcome(s), n) for s, n in zip(scores, names, strict=True)])
    return frames, above_one, phantoms


def silent_lines(looks: Looks, frames_a: list, frames_b: list) -> list[str]:
    """Each die either side reads certain and wrong: where it lies, both outcomes, and what each look read."""
    out = []
    for (folder, row, readings), fa, fb in zip(looks, frames_a, frames_b, strict=True):
        for die, (oa, na), (ob, nb) in zip(row["dice"], fa, fb, strict=True):
            if "Cx" in (oa, ob):
                out.append(f"  {folder.name} frame {row['index']} top {die.get('top')}: a {oa} ({na}), "
                           f"b {ob} ({nb}); looks {looks_near(readings, die, row)}")
    return out


def looks_near(readings: list[list[Reading]], die: dict, row: dict) -> str:
    """What each look read within a die's radius of the die's true centre (face, C/u, confidence)."""
    cx, cy = die["box"][:2]
    scale = vision_undertray.SCALE
    reach = radius_of(row) * scale

    def near(r: Reading) -> bool:
        return abs(r.center[0] - cx * scale) < reach and abs(r.center[1] - cy * scale) < reach

    def shown(r: Reading) -> str:
        return f"{r.face}{'C' if r.certain else 'u'}{r.confidence:.2f}"

    return " | ".join(", ".join(shown(r) for r in look if near(r)) for look in readings)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", required=True)
    ap.add_argument("--root", type=Path, default=FRAMES)
    ap.add_argument("--scale", type=float, default=1.0,
                    help="frames resized so (0.75 with build/undertray-x2)")
    ap.add_argument("--b-set", action="append", default=[], metavar="MODULE.NAME=VALUE",
                    help="a vision module's constant set so for the second vote (repeatable)")
    ap.add_argument("--every-set", action="store_true", help="symbol dice too, each read as its set")
    ap.add_argument("--silent", action="store_true", help="name each die either side reads certain and wrong")
    ap.add_argument("--draws", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=51)
    args = ap.parse_args()
    settings_b = settings_of(args.b_set)
    if settings_b.get((vision.watcher, "MOST_LOOKS_ENOUGH"), True) is not True:
        raise SystemExit("the mean frame's read is not kept: MOST_LOOKS_ENOUGH must stay True")
    looks = read_looks(args.seeds, args.root, args.scale, args.every_set)
    vision_undertray.SCALE = args.scale
    frames_a, above_a, phantoms_a = voted(looks, {}, args.scale)
    frames_b, above_b, phantoms_b = voted(looks, settings_b, args.scale)
    print(f"a: the shipped vote   b: {' '.join(args.b_set)}   seeds {args.seeds} from {args.root} "
          f"at {args.scale}")
    pairs = [[(x, y) for (x, _), (y, _) in zip(fa, fb, strict=True)]
             for fa, fb in zip(frames_a, frames_b, strict=True)]
    print(report("watcher", pairs, args.draws, args.seed))
    print(f"  voted readings with a confidence above 1: a {above_a}, b {above_b}; "
          f"no die's (phantoms): a {phantoms_a}, b {phantoms_b}")
    if args.silent:
        print("\n".join(silent_lines(looks, frames_a, frames_b)) or "  no die certain and wrong either way")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
