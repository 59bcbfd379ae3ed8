"""The learning curve: a dice set the reader never trained on, read after 0, 5, 10, 25 confirmed photos.

    .venv/bin/python bench/vision_learning.py [--dataset rune55-colour] [--mount over] [--test 40] [--taught 0 5 10 25]
        [--order name|shuffled]

The dataset's photos in time order where their names carry the time (rune55-colour: a phone's PXL_<time>
names, the same table, later throws), else in a fixed shuffle (seed 0: translucent-crops and dicefinder-pi
are named by face, so their first photos are all ones; rune55-grey mixes many sets); the last `--test` are
read, each time with the memory of the first K photos' labelled dice confirmed, cut and added as
`dicesight teach --photos` does (`device.teach_photos`), capped per face as the box keeps them
(`device.learnt.MAX_PER_FACE`) and uncapped. The shipped pip CNN trained on webcam-d6 and roboflow-d6 only
(`vision/models/pips.json`), so rune55-colour, rune55-grey and translucent-crops are sets it never saw. Keep
each dataset's attribution (its README and LICENSE) when quoting these figures.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from device.learnt import MAX_PER_FACE  # noqa: E402
from device.teach_photos import IMAGE_SUFFIXES, confirmed_in, labelled_dice  # noqa: E402
from vision.memory import Memory  # noqa: E402
from vision.reader import read_dice  # noqa: E402
from vision.scoring import Score, score  # noqa: E402

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
TIME_NAMED = {"rune55-colour"}  # datasets whose photo names are the time they were taken


def ordered(photos: list, dataset: str, order: str | None) -> list:
    """The photos as a table would have thrown them: time order where names carry it, else a fixed shuffle."""
    if (order or ("name" if dataset in TIME_NAMED else "shuffled")) == "name":
        return photos
    out = list(photos)
    random.Random(0).shuffle(out)
    return out


def photos_of(dataset: Path) -> list[tuple[Path, list[dict]]]:
    out = []
    for photo in sorted(p for p in (dataset / "images").iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
        dice = labelled_dice(photo, dataset / "labels")
        if dice:
            out.append((photo, dice))
    return out


def memory_of(taught: list[tuple[Path, list[dict]]], mount: str, cap: int | None) -> Memory:
    """The memory after confirming the taught photos' dice (the newest `cap` per face, as the box keeps them)."""
    kept: dict[int, list] = {}
    for photo, dice in taught:
        for c in confirmed_in(photo, dice, "d6"):
            kept.setdefault(c.face, []).append(c)
    memory = Memory(mount=mount)
    for face, confirmed in kept.items():
        for c in confirmed[-cap:] if cap else confirmed:
            memory.add("d6", c.crop, face)
    return memory


def read_all(test: list[tuple[Path, list[dict]]], mount: str, memory: Memory | None) -> Score:
    total = Score()
    for photo, dice in test:
        frame = cv2.imread(str(photo), cv2.IMREAD_COLOR)
        truth = [{"value": int(d["value"]), "center": (d["cx"], d["cy"])} for d in dice]
        radius = max(max(d["w"], d["h"]) for d in dice) * 0.6
        total.add(score(truth, read_dice(frame, "d6", mount, memory=memory), radius, photo.name))
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", default="rune55-colour")
    ap.add_argument("--mount", default="over", choices=["over", "under"])
    ap.add_argument("--test", type=int, default=40, help="the last N photos are read")
    ap.add_argument("--taught", type=int, nargs="*", default=[0, 5, 10, 25])
    ap.add_argument("--order", choices=["name", "shuffled"], default=None, help="default: name where names are times")
    args = ap.parse_args(argv)
    photos = ordered(photos_of(DATASETS / args.dataset), args.dataset, args.order)
    test = photos[-args.test:]
    print(f"== {args.dataset}: {len(photos)} labelled photos ({'name' if photos == sorted(photos) else 'shuffled'} "
          f"order); reading the last {len(test)} ({sum(len(d) for _, d in test)} dice), mount {args.mount}")
    for k in args.taught:
        taught = photos[:k]
        for cap in ([None] if k == 0 else [MAX_PER_FACE, None]):
            memory = memory_of(taught, args.mount, cap) if k else None
            name = f"taught {k:3d} photos" + ("" if k == 0 else f", {'all' if cap is None else cap} a face")
            print(read_all(test, args.mount, memory).line(name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
