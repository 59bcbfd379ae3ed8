"""The learning curve: a dice set the reader never trained on, read after 0, 5, 10, 25 confirmed photos.

    .venv/bin/python bench/vision_learning.py [--dataset rune55-colour] [--mount over] [--test 40] [--taught 0 5 10 25]
        [--order name|shuffled]
    .venv/bin/python bench/vision_learning.py --undertray 100-111 [--taught 0 5 10 15] [--test-from 15]
        [--modes merged,alone,watcher]

The dataset's photos in time order where their names carry the time (rune55-colour: a phone's PXL_<time>
names, the same table, later throws), else in a fixed shuffle (seed 0: translucent-crops and dicefinder-pi
are named by face, so their first photos are all ones; rune55-grey mixes many sets); the last `--test` are
read, each time with the memory of the first K photos' labelled dice confirmed, cut and added as
`dicesight teach --photos` does (`device.teach_photos`), capped per face as the box keeps them
(`device.learnt.MAX_PER_FACE`) and uncapped. The shipped pip CNN trained on webcam-d6 and roboflow-d6 only
(`vision/models/pips.json`), so rune55-colour, rune55-grey and translucent-crops are sets it never saw. Keep
each dataset's attribution (its README and LICENSE) when quoting these figures.

`--undertray SEEDS`: the same curve from below, in the box's own tray. Each seed of `TABLE_SEEDS` is one table
(one box, one set of six dice, a new throw each frame: `training/blender_undertray_factors.table_frame`),
never trained or calibrated on. The dice of its first K throws are confirmed (each labelled die's crop, cut as
the box cuts a die it read, with its top face), and its throws from `--test-from` on are read as the watcher
reads one frame (merged: with and without the room learned from the empty tray), without a room (alone), or as
the watcher reads a settled throw (watcher: three frames voted, `bench.vision_undertray.watched`).
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.vision_undertray import ColourScore, Models, radius_of, read_frame, set_of, truth_of, watched  # noqa: E402
from device.dice_sets import spec  # noqa: E402
from device.learnt import MAX_PER_FACE  # noqa: E402
from device.teach_photos import IMAGE_SUFFIXES, confirmed_in, labelled_dice  # noqa: E402
from training.blender_undertray_canvases import camera_frame  # noqa: E402
from training.blender_undertray_factors import read_rows  # noqa: E402
from training.undertray_data import folders, is_table  # noqa: E402
from vision.dicesets import DiceSet, get_set  # noqa: E402
from vision.memory import (  # noqa: E402
    _GLASS_OF_TOP,
    PRIORS,
    Memory,
    crop_die,
    fit_head,
    network_features,
    network_for,
    network_head,
)
from vision.reader import classifier_for, read_dice  # noqa: E402
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


def throws_of(folder: Path) -> list[dict]:
    """A table's throws in the order they were thrown (its frames' index)."""
    return sorted(read_rows(folder), key=lambda row: row["index"])


def table_memory(folder: Path, throws: list[dict], as_set: DiceSet | None = None) -> Memory:
    """The memory after confirming every die of `throws`: its crop cut from the frame the camera gave, as
    the box cuts a die it read (`crop_die`), kept with its top face (and, read as a colour set `as_set`, with
    its colour where the set has it)."""
    memory = Memory(mount="under")
    for row in throws:
        img = camera_frame(folder, row)
        ds = as_set or set_of(row)
        for die in row["dice"]:
            colour = die["colour"] if die["colour"] in ds.colours else None
            memory.add(ds.id, die_crop(img, die), int(die["top"]), colour)
    return memory


def read_throws(folder: Path, throws: list[dict], mode: str, memory: Memory | None,
                as_set: DiceSet | None = None) -> tuple[Score, ColourScore]:
    """The throws read as the box reads them (`bench.vision_undertray.read_frame`), scored, and as the colour
    set `as_set` if given (its `ColourScore`, else an empty one); throws with a die cut by the frame's edge are
    left out, as the under-tray bench leaves them."""
    total, colours = Score(), ColourScore()
    models = Models()
    for row in throws:
        if row.get("cut"):
            continue
        ds = as_set or set_of(row)
        if mode == "watcher":
            readings = watched(folder, row, models, ds, memory) or []
        else:
            readings = read_frame(camera_frame(folder, row), camera_frame(folder, row, empty=True), mode, models, ds,
                                  memory)
        total.add(score([truth_of(d, ds) for d in row["dice"]], readings, radius_of(row), f"{folder.name}/{row['index']}"))
        if as_set is not None:
            colours.add(row, readings, as_set)
    return total, colours


def table_set(colour_set: str, own: bool, throws: list[dict]) -> DiceSet | None:
    """The set a table is read as: `colour_set` (none: its own d6), with only the colours of the table's dice where
    `own` (a game played with those dice: every colour it has can be learnt)."""
    if not colour_set:
        return None
    ds = get_set(spec(colour_set))
    if own:
        ds = replace(ds, colours=tuple(c for c in ds.colours if any(d["colour"] == c for r in throws for d in r["dice"])))
    return ds


def undertray_curve(seeds: str, taught: list[int], test_from: int, modes: list[str], colour_set: str = "",
                    own_colours: bool = False) -> None:
    """The learning curve from below: per table and over all tables, the later throws read after K taught (as
    the colour set `colour_set`, if given: `table_set`)."""
    if max(taught) > test_from:
        raise SystemExit(f"--taught {max(taught)} overlaps the throws read (from {test_from} on)")
    tables = [f for f in folders(seeds, finished=True, tables=True) if is_table(int(f.name[1:]))]
    if not tables:
        raise SystemExit(f"no finished table folder among seeds {seeds} (make blender-undertray UNDERTRAY_SEEDS=100-111 UNDERTRAY_FRAMES=30)")
    trained = classifier_for(get_set("d6"), "under").meta.get("trained_on", {}).get("undertray_frames") or {}
    if any(f.name in trained for f in tables):
        raise SystemExit(f"the face network trained on {', '.join(f.name for f in tables if f.name in trained)}: "
                         "a table it learnt before any throw was taught measures nothing")
    for mode in modes:
        totals = {k: Score() for k in taught}
        colour_totals = {k: ColourScore() for k in taught}
        for folder in tables:
            throws = throws_of(folder)
            test = [row for row in throws if row["index"] >= test_from]
            as_set = table_set(colour_set, own_colours, throws)
            f = throws[0]["factors"]
            print(f"== {folder.name} ({mode}): {f['plate']}, leds {f['leds']}, {f['room']}, {f['pips']} pips, "
                  f"build {f['build']}; dice {', '.join(sorted({d['colour'] + ' ' + d['material'] for r in throws for d in r['dice']}))}")
            for k in taught:
                got, colours = read_throws(folder, test, mode, table_memory(folder, throws[:k], as_set) if k else None,
                                           as_set)
                totals[k].add(got)
                colour_totals[k].merge(colours)
                print(got.line(f"taught {k:3d} throws"))
                if as_set is not None:
                    print(colours.line(f"    as {as_set.id} ({', '.join(as_set.colours)})"))
        print(f"== all {len(tables)} tables ({mode})")
        for k in taught:
            print(totals[k].line(f"taught {k:3d} throws"))
            if colour_set:
                print(colour_totals[k].line(f"    as {colour_set}{' (each table its own colours)' if own_colours else ''}"))


def die_crop(img: np.ndarray, die: dict) -> np.ndarray:
    """A labelled die cut at its true box as the box cuts a die it read (`crop_die`)."""
    cx, cy, w, h = die["box"]
    return crop_die(img, (cx, cy), (int(cx - w / 2), int(cy - h / 2), int(w), int(h)))


def table_crops(folder: Path, throws: list[dict], keep_cut: bool = False) -> tuple[list, np.ndarray]:
    """Every die of `throws` (those of a frame the edge cuts left out unless `keep_cut`, as a taught throw
    keeps them) cut as the box cuts it (`die_crop`), and its top face."""
    rows = [row for row in throws if keep_cut or not row.get("cut")]
    got = [(die_crop(img, die), int(die["top"])) for row in rows
           for img in [camera_frame(folder, row)] for die in row["dice"]]
    return [c for c, _ in got], np.asarray([t for _, t in got])


def named_by(feats: np.ndarray, x: np.ndarray, faces: np.ndarray, prior: tuple) -> dict[str, np.ndarray]:
    """Scores (n, 6) of the read dice's embeddings `feats`: the network's own last layer `prior`, the head
    fitted on the taught examples (`x`, their top `faces`) at each pull, and the nearest taught example."""
    named = {"network": feats @ prior[0].T + prior[1]}
    for pull in PRIORS:
        w, b = fit_head(x, faces, prior, pull)
        named[f"head pull {pull:g}"] = feats @ w.T + b
    named["nearest example"] = np.eye(6)[faces[(unit(feats) @ unit(x).T).argmax(1)] - 1]
    return named


def unit(rows: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (their dot products are cosines)."""
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def head_check(seeds: str, taught: list[int], test_from: int) -> None:
    """Right % of the later throws' dice at their true boxes: the network, the head fitted on K taught throws
    (each pull), the nearest taught example; per table and over all."""
    tables = [f for f in folders(seeds, finished=False, tables=True) if is_table(int(f.name[1:]))]
    net = network_for("d6", "under")
    w0, b0 = network_head(net, 6)
    prior = (w0[_GLASS_OF_TOP], b0[_GLASS_OF_TOP])   # the network names the face on the glass, we the top
    right: dict[str, list[int]] = {}
    for folder in tables:
        throws = throws_of(folder)
        crops, tops = table_crops(folder, [row for row in throws if row["index"] >= test_from])
        if not crops:
            continue
        feats = network_features(net, crops).astype(np.float64)
        for k in [k for k in taught if k]:
            # each taught die's example as the memory keeps it (`Memory.add`: the same 8-view embedding)
            taught_crops, faces = table_crops(folder, throws[:k], keep_cut=True)
            x = network_features(net, taught_crops).astype(np.float64)
            cells = []
            for name, z in named_by(feats, x, faces, prior).items():
                hits = int((z.argmax(1) + 1 == tops).sum())
                got = right.setdefault(f"{k:2d} {name}", [0, 0])
                got[0], got[1] = got[0] + hits, got[1] + len(tops)
                cells.append(f"{name} {100 * hits / len(tops):5.1f}")
            print(f"{folder.name} taught {k:2d} throws ({len(faces)} dice), {len(tops)} dice read: "
                  + ", ".join(cells))
    for key, (hits, n) in right.items():
        print(f"all tables, taught {key}: {hits}/{n} right ({100 * hits / n:.2f}%)")


def photo_crops(photos: list[tuple[Path, list[dict]]]) -> tuple[list, np.ndarray]:
    """Every labelled die of the photos cut at its labelled box as the box keeps a confirmed die
    (`device.teach_photos.confirmed_in`), and its top face (1-6)."""
    got = [(c.crop, c.face) for photo, dice in photos for c in confirmed_in(photo, dice, "d6")]
    return [c for c, _ in got], np.asarray([f for _, f in got])


def photo_head_check(photos: list[tuple[Path, list[dict]]], test_n: int, taught: list[int]) -> None:
    """Right % of the last `test_n` photos' dice at their labelled boxes, from above: the network alone, the
    head fitted on the dice of the first K photos (each pull), the nearest taught example. Why: the learning
    curve (`read_all`) moves only if the memory's head speaks (`memory.HEAD_GAIN`); this says whether, on a
    set the network never saw, anything fitted on its embedding could name its dice better."""
    net = network_for("d6", "over")
    prior = network_head(net, 6)   # from above the network names the top face itself
    crops, tops = photo_crops(photos[-test_n:])
    feats = network_features(net, crops).astype(np.float64)
    print(f"{len(tops)} dice of the last {test_n} photos read at their labelled boxes")
    for k in [k for k in taught if k and k <= len(photos) - test_n]:
        taught_crops, faces = photo_crops(photos[:k])
        x = network_features(net, taught_crops).astype(np.float64)
        cells = [f"{name} {100 * float((z.argmax(1) + 1 == tops).mean()):5.1f}"
                 for name, z in named_by(feats, x, faces, prior).items()]
        print(f"taught {k:3d} photos ({len(faces)} dice): " + ", ".join(cells))


def photo_tune_check(photos: list[tuple[Path, list[dict]]], test_n: int, taught: list[int],
                     epochs: int = 5) -> None:
    """Right % of the last `test_n` photos' dice at their labelled boxes by the network from above, and by the
    network trained on from its weights with the dice of the first K photos (`training.tune_on_taught`):
    whether the taught dice could teach more than the head on the embedding does (`photo_head_check`)."""
    from training.torch_net import folded_net  # torch: the training extra only
    from training.tune_on_taught import OVER_SETUP, class_scores, tuned

    model = str(Path(__file__).resolve().parents[1] / "vision" / "models" / "pips.onnx")
    crops, tops = photo_crops(photos[-test_n:])
    before = _right(class_scores(folded_net(model, OVER_SETUP), crops), tops)
    print(f"{len(tops)} dice of the last {test_n} photos read at their labelled boxes: network {before:5.1f}")
    for k in [k for k in taught if k and k <= len(photos) - test_n]:
        taught_crops, faces = photo_crops(photos[:k])
        cells = []
        for seed in (0, 1):
            net = tuned(model, taught_crops, faces - 1, epochs=epochs, seed=seed)
            cells.append(f"seed {seed} {_right(class_scores(net, crops), tops):5.1f}")
        print(f"taught {k:3d} photos ({len(faces)} dice), trained on {epochs} epochs: " + ", ".join(cells))


def _right(scores: np.ndarray, tops: np.ndarray) -> float:
    """% of dice whose best face (of the six; "none" left out) is their top face."""
    return 100.0 * float((scores[:, :6].argmax(1) + 1 == tops).mean())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", default="rune55-colour")
    ap.add_argument("--mount", default="over", choices=["over", "under"])
    ap.add_argument("--test", type=int, default=40, help="the last N photos are read")
    ap.add_argument("--taught", type=int, nargs="*", default=None, help="default 0 5 10 25 (photos), 0 5 10 15 "
                    "(--undertray)")
    ap.add_argument("--order", choices=["name", "shuffled"], default=None, help="default: name where names are times")
    ap.add_argument("--undertray", default="", help="table seeds (100-199) to read from below instead of photos")
    ap.add_argument("--test-from", type=int, default=15, help="--undertray: the throws from this index on are read "
                    "(a table has 30)")
    ap.add_argument("--colour-set", default="", help="--undertray: read the tables as this set too (e.g. regidice), "
                    "its dice taught with their colours, and score its colours")
    ap.add_argument("--own-colours", action="store_true", help="--colour-set: each table's set has only the colours "
                    "of its own dice")
    ap.add_argument("--modes", default="merged", help="--undertray: merged (one frame with the room), alone (no "
                    "room) and/or watcher (three settled frames voted, as the box reads)")
    ap.add_argument("--head-check", action="store_true", help="the memory's head and nearest example against "
                    "the network alone, at the true boxes (`head_check`; photos: `photo_head_check`)")
    ap.add_argument("--tune-check", action="store_true", help="photos: the network trained on from its "
                    "weights with the taught dice, against the network alone (`photo_tune_check`; "
                    "needs torch)")
    ap.add_argument("--tune-epochs", type=int, default=5, help="--tune-check: epochs over the taught dice")
    args = ap.parse_args(argv)
    if args.undertray and args.head_check:
        head_check(args.undertray, args.taught or [5, 10, 15], args.test_from)
        return 0
    if args.undertray:
        undertray_curve(args.undertray, args.taught or [0, 5, 10, 15], args.test_from, args.modes.split(","),
                        args.colour_set, args.own_colours)
        return 0
    args.taught = args.taught if args.taught is not None else [0, 5, 10, 25]
    photos = ordered(photos_of(DATASETS / args.dataset), args.dataset, args.order)
    test = photos[-args.test:]
    if args.head_check:
        photo_head_check(photos, args.test, args.taught)
        return 0
    if args.tune_check:
        photo_tune_check(photos, args.test, args.taught, args.tune_epochs)
        return 0
    print(f"== {args.dataset}: {len(photos)} labelled photos ({'name' if photos == sorted(photos) else 'shuffled'} "
          f"order); reading the last {len(test)} ({sum(len(d) for _, d in test)} dice), mount {args.mount}")
    for k in args.taught:
        if k > len(photos) - len(test):   # a taught photo would be read too: its figure would say nothing
            print(f"taught {k:3d} photos: left out, it would teach photos that are read (use --test {len(photos) - k})")
            continue
        taught = photos[:k]
        for cap in ([None] if k == 0 else [MAX_PER_FACE, None]):
            memory = memory_of(taught, args.mount, cap) if k else None
            name = f"taught {k:3d} photos" + ("" if k == 0 else f", {'all' if cap is None else cap} a face")
            print(read_all(test, args.mount, memory).line(name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
