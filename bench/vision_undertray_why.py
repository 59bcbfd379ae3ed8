"""Why each pip die from below ended as it did: the reader's decision traced, die by die, on Blender's frames.

    .venv/bin/python bench/vision_undertray_why.py [--seeds 1-3,20-21] [--mode alone|merged]
        [--root build/undertray-x2 --scale 0.75]   (the box's read size; merged only)

`--mode alone` (the default): each frame read without a room, as a box reads before it has seen its tray, and
every d6 put in one bucket: missed, wrong and unsure, certain and right (or wrong), or right but unsure with
the reason the CNN's word was not enough (`decide.judge_pip_die`): the CNN under its own level (`alone_at`;
split at 0.9), a box only the learned finder saw, the CNN and a pip count agreeing but a check in doubt, or
another check. Split by touching / apart. `--mode merged`: the three reads of each die (alone, with the room,
merged as the watcher reads) as a pattern such as `C+ - u+` (C certain, u unsure, + right, x wrong, - none),
counted: where the merge loses or keeps what a read had. Why a script: docs/dice-sets.md quotes these tables
("Why right dice stayed unsure"). Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision_undertray  # noqa: E402
from vision_undertray import (  # noqa: E402
    FRAMES,
    Models,
    _near,
    camera_frame,
    enlarged,
    radius_of,
    read_frame,
    read_rows,
    seed_list,
)

import vision.reader as reader  # noqa: E402
import vision.readsize  # noqa: E402
from vision.decide import CNN_ALONE_AT  # noqa: E402
from vision.dicesets import get_set  # noqa: E402

D6 = get_set("d6")


def d6_frames(seeds: str, root: Path = FRAMES) -> list[tuple[dict, object, object]]:
    """(row, frame, empty tray) of every d6 frame with dice of the seeds, resized as `vision_undertray.SCALE`
    says."""
    out = []
    for s in seed_list(seeds):
        folder = root / f"s{s}"
        for row in read_rows(folder):
            if row.get("cut") or not row["dice"] or row["dice"][0].get("set", "d6") != "d6":
                continue
            img = camera_frame(folder, row)
            if img is not None:
                out.append((row, enlarged(img), enlarged(camera_frame(folder, row, empty=True))))
    return out


def why_unsure(c, v, alone_at: float, finder_sure: float) -> str:
    """The reason a die the reader named right stayed unsure (the rule `decide.cnn_alone_certain` applies)."""
    counts = [n for n in (c.pips, c.crop_pips) if n]
    if v.cnn_seen is not None and counts and all(n == v.cnn_seen for n in counts):
        return "CNN and count agree, a check in doubt"
    if v.cnn_seen is None:
        return "other checks (no CNN face, a look, a size)"
    if v.cnn_conf < alone_at:
        return f"the CNN under its level ({'under 0.9' if v.cnn_conf < 0.9 else '0.9 to the level'})"
    if c.source == "detector" and c.score < finder_sure:
        return "a box only the learned finder saw, and it in doubt"
    return "other checks (no CNN face, a look, a size)"


class Tracer:
    """Wraps `reader.judge_pip_die` to keep each candidate's box, verdict and reason for one frame."""

    def __init__(self) -> None:
        self.judged: list[tuple[tuple, tuple | None, str, str]] = []
        self._judge = reader.judge_pip_die

    def __call__(self, c, v, certain_at, learned_room, shape, look, typical_side, cnn_alone=False,
                 finder_sure=math.inf, alone_at=CNN_ALONE_AT, *rest):
        out = self._judge(c, v, certain_at, learned_room, shape, look, typical_side, cnn_alone, finder_sure,
                          alone_at, *rest)
        reason = why_unsure(c, v, alone_at, finder_sure) if out is not None and not out[2] else ""
        self.judged.append((c.box, out, reason, c.source))
        return out


def alone_buckets(frames: list) -> dict[str, Counter]:
    tracer = Tracer()
    reader.judge_pip_die = tracer
    buckets = {"touching": Counter(), "apart": Counter()}
    try:
        for row, img, _ in frames:
            tracer.judged.clear()
            reader.read_dice(img, "d6", "under")
            for d in row["dice"]:
                buckets["touching" if d["touching"] else "apart"][bucket_of(d, tracer.judged, radius_of(row))] += 1
    finally:
        reader.judge_pip_die = tracer._judge
    return buckets


def bucket_of(die: dict, judged: list, radius: float) -> str:
    near = [j for j in judged if j[1] is not None and math.dist(j[0][:2], die["center"]) < radius]
    if not near:
        return "missed"
    _, (seen, _, certain), reason, source = min(near, key=lambda j: math.dist(j[0][:2], die["center"]))
    right = reader.top_face(D6, seen, "under").value == die["top"] if seen else False
    if certain:
        return "certain and right" if right else "CERTAIN AND WRONG"
    return f"right, unsure: {reason} [{source}]" if right else "wrong, unsure"


def merged_patterns(frames: list) -> Counter:
    m, patterns = Models(), Counter()
    for row, img, empty in frames:
        reads = {k: [vision.readsize.unscaled(r, vision_undertray.SCALE)
                     for r in read_frame(img, empty, k, m, D6)] for k in ("alone", "room", "merged")}
        for d in row["dice"]:
            patterns[" ".join(_mark(reads[k], d, radius_of(row)) for k in reads)] += 1
    return patterns


def _mark(readings: list, die: dict, radius: float) -> str:
    near = [r for r in readings if _near(r, die, radius)]
    if not near:
        return "-"
    r = min(near, key=lambda r: math.dist(r.center, die["center"]))
    return ("C" if r.certain else "u") + ("+" if r.value == die["top"] else "x")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="1-3,20-21")
    ap.add_argument("--mode", choices=("alone", "merged"), default="alone")
    ap.add_argument("--root", type=Path, default=FRAMES, help="the seed folders' folder (build/undertray-x2)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="frames resized so, merged mode only (0.75 with build/undertray-x2: the box's "
                    "read size)")
    args = ap.parse_args()
    if args.scale != 1.0 and args.mode != "merged":
        ap.error("--scale reads the merged mode only (the alone mode's traced boxes are the read's own)")
    vision_undertray.SCALE = args.scale
    frames = d6_frames(args.seeds, args.root)
    print(f"under-tray d6 frames of seeds {args.seeds}: {len(frames)}, dice {sum(len(f[0]['dice']) for f in frames)}")
    if args.mode == "alone":
        buckets = alone_buckets(frames)
        names = sorted(set(buckets["touching"]) | set(buckets["apart"]))
        print(f"{'read alone (no room)':<78} touching  apart")
        for n in names:
            print(f"  {n:<76} {buckets['touching'][n]:>8} {buckets['apart'][n]:>6}")
    else:
        print("alone room merged   dice")
        for pattern, count in merged_patterns(frames).most_common():
            print(f"  {pattern:<16} {count:>6}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
