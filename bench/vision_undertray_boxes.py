"""Does the reader lose d6 dice from below to its boxes, or to its checks? The face network at each die's true
box, at the box the reader drew (merged, as the watcher reads one frame), and at the surest of boxes round it.

    .venv/bin/python bench/vision_undertray_boxes.py --seeds 1079-1106,1108,1131-1184

For every d6 die of the seeds' Blender frames from below: the shipped face network's answer (sure: at its
level, or its four turns' mean sure, `FaceClassifier.predict(turns=True)`) at the die's true box, at the box
the merged read drew round it, and the surest answer of that box and 18 more round it (`LOOKS_ROUND`: shifted
a tenth of a side each way, grown by 12%, shrunk by 10%); beside them, what the reader itself made of the die.
A die the merged read missed counts as missed every way (the shares are of all dice). Split by touching and
apart. Why: touching dice are read sure and right far less often than apart ones (docs/dice-sets.md, 54th
session); if the network did as well at the reader's box as at the true box, better boxes are not the cure,
and what stands between the network's answer and a certain reading is. Last, a check the reader might add:
the reader's own reading, or, where it left the die unsure, the network's face at its box made certain where
at least K of the 19 boxes name that face surely (`SURE_LOOKS`; a first look, no rule). Prints; asserts
nothing.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision_undertray as vu  # noqa: E402
from vision_undertray_paired import d6_rows, outcome  # noqa: E402

from vision.classify import FaceClassifier, Prediction  # noqa: E402
from vision.dicesets import get_set  # noqa: E402
from vision.room import Room, merge  # noqa: E402
from vision.scoring import nearest_pairs  # noqa: E402

# boxes round the reader's (shift right, shift down in box sides; scale): the first is the reader's own
_SHIFTS = [(dx, dy, s) for s in (1.0, 1.12) for dx in (-0.1, 0.0, 0.1) for dy in (-0.1, 0.0, 0.1)]
LOOKS_ROUND = [(0.0, 0.0, 1.0)] + [look for look in _SHIFTS if look != (0.0, 0.0, 1.0)] + [(0.0, 0.0, 0.9)]
SURE_LOOKS = (19, 17, 15, 12)
WAYS = ("true box", "reader's box", "surest round it", "the reader") + tuple(
    f"reader, or {k}/19 sure" for k in SURE_LOOKS)


def marked(p: Prediction, glass: int, clf: FaceClassifier) -> str:
    """The network's answer as an outcome: C sure / u unsure, + right / x wrong (by the face on the glass)."""
    sure = p.confidence >= clf.certain_at or p.turns_sure
    return ("C" if sure else "u") + ("+" if p.label == str(glass) else "x")


def sure_looks_marks(reader_mark: str, preds: list[Prediction], glass: int, clf: FaceClassifier) -> list[str]:
    """For each K of SURE_LOOKS: the reader's outcome where it is certain, else the network's at the reader's
    box (`preds[1]`) made certain where it is sure and at least K of the looks round it (`preds[1:]`) name its
    face surely."""
    base = preds[1]
    agreeing = sum(1 for p in preds[1:] if p.label == base.label and marked(p, glass, clf)[0] == "C")
    lift = marked(base, glass, clf)
    return [lift if not reader_mark.startswith("C") and lift[0] == "C" and agreeing >= k else reader_mark
            for k in SURE_LOOKS]


def die_outcomes(folder: Path, row: dict, clf: FaceClassifier) -> list[tuple[bool, dict[str, str]]]:
    """(touching, {way: outcome}) of each die of the frame ("-" every way where the merged read missed it)."""
    ds = get_set("d6")
    img, empty = vu.camera_frame(folder, row), vu.camera_frame(folder, row, empty=True)
    if img is None or empty is None or row.get("cut"):
        return []
    room = Room()
    room.add_empty([empty])
    models = vu.Models()
    got = merge(vu.read_frame(img, empty, "alone", models, ds), vu.read_frame(img, empty, "room", models, ds),
                img, room)
    truths = [vu.truth_of(d, ds) for d in row["dice"]]
    radius = vu.radius_of(row)
    pairs = nearest_pairs(truths, got, radius)
    scores = vu.dice_scores(row["dice"], truths, got, radius)
    out = []
    for i, die in enumerate(row["dice"]):
        if i not in pairs:
            out.append((bool(die["touching"]), dict.fromkeys(WAYS, "-")))
            continue
        x, y, w, h = got[pairs[i]].box
        cx, cy = x + w / 2, y + h / 2
        boxes = [tuple(die["box"])] + [(cx + dx * w, cy + dy * h, w * s, h * s) for dx, dy, s in LOOKS_ROUND]
        preds = clf.predict(img, boxes, turns=True)
        surest = max(preds[1:], key=lambda p: p.confidence)
        glass = int(die["glass"])
        marks = [marked(p, glass, clf) for p in (preds[0], preds[1], surest)] + [outcome(scores[i])]
        marks += sure_looks_marks(marks[-1], preds, glass, clf)
        out.append((bool(die["touching"]), dict(zip(WAYS, marks, strict=True))))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", required=True)
    args = ap.parse_args()
    clf = vu.classifier_for(get_set("d6"), "under")
    parts = {k: {w: Counter() for w in WAYS} for k in ("all", "touching", "apart")}
    for folder, row in d6_rows(args.seeds):
        for touching, marks in die_outcomes(folder, row, clf):
            for part in ("all", "touching" if touching else "apart"):
                for way, mark in marks.items():
                    parts[part][way][mark] += 1
    print(f"d6 from below, seeds {args.seeds} (sure and right %, sure and wrong, right %)")
    for part, ways in parts.items():
        n = sum(ways[WAYS[0]].values())
        print(f"  {part} ({n} dice)")
        for way, c in ways.items():
            sure_right, right = 100 * c["C+"] / max(n, 1), 100 * (c["C+"] + c["u+"]) / max(n, 1)
            print(f"    {way:<22} {sure_right:6.2f}  {c['Cx']:4d}  {right:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
