"""The CURRENT reader on physically rendered under-tray frames (training/blender_undertray.py), `--mount under`.

    nice -n 15 .venv/bin/python bench/vision_undertray.py [--seeds 1-3] [--debug-out build/undertray-debug]
        [--classifier vision/models/pips.onnx] [--hold-out plate=glass] [--brief] [--errors] [--one-turn]
        [--no-cnn-alone] [--colour-set regidice] [--roomless-pips] [--ring-out]
        [--no-heaps-for-icons] [--corners F.onnx] [--no-guess-unnamed] [--no-quiet-side]
        [--any-heap-part] [--no-nudge] [--nudge-below P] [--templates-first]
        [--agreed-at P] [--doubted-at P] [--doubt-below C] [--luma-corners] [--alone-finder-at-read-size]
        [--finder-box-unsure] [--doubted-by-icon-at P] [--unnamed-certain-at P] [--no-crowds] [--keep-across]
        [--agreed-icon-at P] [--number-over-icon-at P] [--most-looks-enough 0|1] [--look N] [--scale 4.05]
        [--given-sheet build/undertray-debug/given-wrong.png]

The default seeds are the held-out ones (`training/undertray_data.TEST_SEEDS`: 1-3), which the under-tray face
network (vision/models/pips-under.onnx) never trained or calibrated on; it trains on seeds 4 and up. The symbol
sets' test seeds: 200-201 (King of Tokyo), 400-401 (Dice Throne heroes, each frame read as its hero's set;
lines by held-out / seen hero and printing: the heroes and printing drawn only in those seeds).
`--given-sheet PATH`: a picture of every die the face network names wrong given its true box (its glass face,
what was named, its frame and body), for a person to look at.
`--classifier`: read with that face network instead of the shipped one for the mount (the shipped pips.onnx
is the reader before the under-tray network: the "before" figures). `--hold-out KEY=PREFIX`: read only the
frames with that factor (e.g. `plate=glass`), for a model trained with the same `--hold-out` (it never saw
that factor in any seed). `--one-turn`: pip and symbol dice read in one turn only, as before
`reader.TURNS_UNDER` and `symbolnet.TURNS_UNDER` (the face network's given-boxes line too);
`--no-cnn-alone`: no die certain on the CNN's word alone, as before `reader.UNDER_ALONE`; `--roomless-pips`: a
frame read without the room searched for pips too, as before `find.PIPS_UNDER`; `--ring-out`: a frame read
with its room loses the LED ring's reflections (`reader.REFLECTIONS_OUT`, not shipped); `--no-heaps-for-icons`:
with the room the learned finder does not search heaps of touching icon dice (the reader before
`reader.HEAPS_FOR_ICONS`); `--corners F.onnx`: corner numbers read by that network (a candidate of
`training/dicethrone_corners.py`); `--no-guess-unnamed`: a die the face reader names nothing in takes its
corner number only at the guess level, as before `corner_numbers.GUESS_FOR_UNNAMED`; `--no-quiet-side`: an
icon die whose band shows no ink is not looked at again with its body from the band's quietest side, as before
`faces.INK_BY_QUIET_SIDE`; `--any-heap-part`: a heap's part is looked at so whatever its shape, as before
`faces.QUIET_SIDE_HEAP_PARTS_SHAPED`; `--no-nudge`: a corner number is read in the outline's own crop only,
as before `corner_numbers.NUDGED`; `--nudge-below P`: the nudged crops only for a number the own crop reads
below P (`corner_numbers.NUDGE_BELOW`); `--templates-first`: a die the templates named, unsure, takes its
corner number only at the guess level, as before `corner_numbers.CORNER_OVER_NAMED`; `--agreed-at 0
--doubted-at 2`: the corner number neither makes a die certain nor doubts one, as before
`corner_numbers.AGREED_AT` and `DOUBTED_AT` (`--doubt-below 2`: every certain die doubted, as before
`DOUBT_BELOW`); `--luma-corners`: the corner number read in the crop's lightness, as before
`corner_numbers.INK_AXIS`; `--alone-finder-at-read-size`: a frame read without the room searched by the
learned finder at its read size, as before `reader.ALONE_AT_FINDER_VIEW`; `--finder-box-unsure`: a numbered
die only the learned finder saw never certain, as before `corner_numbers.AGREED_IN_FINDER_BOX`;
`--doubted-by-icon-at 2`: a certain numbered die doubted only as before `corner_numbers.DOUBTED_BY_ICON_AT`;
`--unnamed-certain-at 2`: a numbered die the templates named nothing in never certain, as before
`corner_numbers.UNNAMED_CERTAIN_AT`; `--no-crowds`: a blob the learned finder boxes as several dice no heap
unless the outlines say so, as before `find.CROWDS_BY_FINDER`; `--keep-across`: an outline's reading across
several of a heap's boxed dice kept, as before `reader.ACROSS_DICE_ASIDE`; `--keep-across-still`: so in a
frame read without the room, as before `reader.ACROSS_DICE_ASIDE_STILL`; `--agreed-icon-at 2`: a numbered
die the templates named is never certain of another face of their icon by its corner number, as before
`corner_numbers.AGREED_ICON_AT`; `--number-over-icon-at 2`: nor of a face of another icon, as before
`corner_numbers.NUMBER_OVER_ICON_AT`; `--most-looks-enough 0`: the watcher's die most looks were certain of
needs the mean frame's read certain too, as before `watcher.MOST_LOOKS_ENOUGH`; `--one-look-enough 0`: most
looks must be certain, as before `watcher.ONE_LOOK_ENOUGH`; `--named-every-look-at 0`: a die every look named
surely (`Reading.named_p`) is certain only as any other, as before `watcher.NAMED_IN_EVERY_LOOK_AT` (a level:
that level); `--cnn-named-widest 0`: an unsure pip die carries no face network probability for the watcher,
as before `reader.CNN_NAMED_WIDEST` (a number: boxes up to that many usual die sides);
`--look N`: each frame in draw N of its sensor noise and JPEG (the watcher N to N+2);
`--colour-set regidice`:
the d6 frames also read as that set (a line of its colours' dice: certain with a wrong colour casts the wrong
spell). The header names the machine, the seeds, the frames and the model.

Every frame is read three ways: alone; with its empty tray (the same scene without dice, its own noise) handed
to the reader as the old watcher did; and as the watcher reads one frame (`vision.room`: the room learned from
the empty tray, the frame read with and without it, the two reads merged). `--modes watcher` reads each throw as
the tray watcher does, three settled frames with their own sensor noise, voted die by die (`watched`). Figures
by material, colour, touching/tilted, build option, plate, LED ring and room, each line a factor group held out
in the sense that the shipped reader never saw any of these renders. Columns as
bench/vision_accuracy.py: acc (right top value, certain or not), certain-right, uncertain, silent (wrong but
certain), missed, phantom (readings near no die). Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

import training.blender_undertray_canvases  # noqa: E402
import vision.corner_numbers  # noqa: E402
import vision.faces  # noqa: E402
import vision.find  # noqa: E402
import vision.reader  # noqa: E402
import vision.readsize  # noqa: E402
import vision.symbolnet  # noqa: E402
import vision.watcher  # noqa: E402
from device.dice_sets import spec  # noqa: E402
from training.blender_canvases import seed_list  # noqa: E402
from training.blender_undertray_canvases import FRAMES, camera_frame  # noqa: E402
from training.blender_undertray_factors import DT_HELD_OUT, DT_HELD_OUT_PRINTING, read_rows  # noqa: E402
from training.undertray_data import DT_TEST_SEEDS, SYMBOL_TEST_SEEDS, TEST_SEEDS, factor_matches  # noqa: E402
from vision.classify import FaceClassifier, crop_patch  # noqa: E402
from vision.detector import DieDetector  # noqa: E402
from vision.dicesets import DiceSet, get_set  # noqa: E402
from vision.memory import Memory  # noqa: E402
from vision.reader import classifier_for, finder_for, read_dice  # noqa: E402
from vision.room import Room, merge  # noqa: E402
from vision.scoring import Score, dice_to_show, nearest_pairs, score  # noqa: E402
from vision.symbolnet import network_for  # noqa: E402
from vision.watcher import VOTES, mean_frame, vote  # noqa: E402

RADIUS = 25.0   # px at 320x240: a reading this near a die's centre is its reading (dice are 30-60 px across)


def frame_size(row: dict) -> tuple[int, int]:
    """The frame's size (rows before the Dice Throne seeds' 640x480 frames carry none: 320x240)."""
    w, h = row.get("size", (320, 240))
    return int(w), int(h)


def radius_of(row: dict) -> float:
    """RADIUS at the row's frame size."""
    return RADIUS * frame_size(row)[0] / 320


def set_of(row: dict) -> DiceSet:
    """The dice set a frame's dice belong to: d6, or a symbol set (seeds 200 and up: King of Tokyo; 400 and up:
    a Dice Throne hero) described by its game."""
    name = row["dice"][0].get("set", "d6") if row["dice"] else "d6"
    return get_set(name if name == "d6" else spec(name))


def truth_of(die: dict, ds: DiceSet) -> dict:
    """The die's top face as the reader names it: a d6's pips; a symbol die's face name and game value."""
    if ds.id == "d6":
        return {"value": die["top"], "center": tuple(die["center"]), "colour": die["colour"]}
    top = ds.face(int(die["top"]))
    return {"value": top.value, "face": top.name, "center": tuple(die["center"]), "colour": die["colour"]}


def groups(row: dict, die: dict) -> list[str]:
    """The factor groups one die counts in."""
    f = row["factors"]
    return [f"material {die['material']}", f"colour {die['colour']}",
            "touching" if die["touching"] else "apart", *(["tilted"] if die["tilted"] else []),
            f"build {f['build']}", f"plate {f['plate']}", f"leds {f['leds']}", f"room {f['room']}",
            f"pips {f['pips']}", *([f"printing {die['printing']}"] if die.get("printing") else []),
            *measure_groups(f["build"]), *hero_groups(die)]


MEASURES = ("cross-polarised", "diffuser", "leds-outside-cone", "matte-enclosure")   # docs/wiring.md


def measure_groups(build: str) -> list[str]:
    """Each glare measure of docs/wiring.md with or without it, whatever else the box has: a build's own group
    (`build a+b`) holds too few dice to judge one measure by (15-230 on the tables and test seeds)."""
    used = build.split("+")
    return [f"{'with' if m in used else 'without'} {m}" for m in MEASURES]


def hero_groups(die: dict) -> list[str]:
    """A Dice Throne die's groups: its hero, whether the network never saw that hero (drawn only in the test
    seeds, `DT_HELD_OUT`), and whether its printing is the held-out one. Shown with --brief too: they are what
    one network for every hero is judged by."""
    if not str(die.get("set", "")).startswith("dicethrone:"):
        return []
    hero = die["set"].split(":", 1)[1]
    held = "heroes held out" if hero in DT_HELD_OUT else "heroes seen"
    printing = "printing held out" if die["printing"] == DT_HELD_OUT_PRINTING else "printings seen"
    return [f"hero {hero}", held, printing]


BRIEF = ("touching", "apart", "heroes held out", "heroes seen", "printing held out", "printings seen")


MODES = {"alone": "", "room": " + room (as the old watcher)", "merged": " + room merged (vision.room, one frame)",
         "watcher": f" + room merged, {VOTES} frames voted (vision.watcher)"}


@dataclass
class Models:
    """The face network and the learned finder to read with (None: the reader's shipped ones for the mount)."""
    clf: FaceClassifier | None = None
    finder: DieDetector | None = None
    symbols: FaceClassifier | None = None   # a symbol set's network (None: the shipped one, if any)

    @property
    def det(self) -> DieDetector | str:
        return self.finder if self.finder is not None else "shipped"


def read_frame(img, empty, mode: str, m: Models, ds: DiceSet, memory: Memory | None = None) -> list:
    """The frame's readings in one of `MODES` (with the box's `memory` of confirmed dice, if given)."""
    clf = m.clf if ds.id == "d6" else m.symbols
    if mode == "alone":
        return read_dice(img, ds, "under", classifier=clf, detector=m.det, memory=memory)
    if mode == "room":
        return read_dice(img, ds, "under", background=empty, classifier=clf, memory=memory, detector=m.det)
    room = Room()
    room.add_empty([empty])
    return merged(img, room, m, ds, memory)


def merged(img: np.ndarray, room: Room, m: Models, ds: DiceSet, memory: Memory | None = None) -> list:
    """One frame read as the watcher reads it: without the room and with it, the two reads merged (`vision.room`)."""
    clf = m.clf if ds.id == "d6" else m.symbols
    return merge(read_dice(img, ds, "under", classifier=clf, detector=m.det, memory=memory),
                 read_dice(img, ds, "under", background=room.image, classifier=clf, memory=memory,
                           detector=m.det), img, room)


def watched(folder: Path, row: dict, m: Models, ds: DiceSet, memory: Memory | None = None) -> list | None:
    """The row read as the tray watcher reads a settled throw: VOTES frames of the still tray, each with its own
    sensor noise and JPEG (`camera_frame`'s looks), each read with and without the room learned from as many
    frames of the empty tray, and their readings voted with the read of their mean (`vision.watcher.vote`).
    Why: one frame's figures are not the box's; a die near a line may come out certain in one draw of the noise
    and not in the next."""
    got = looked(folder, row, m, ds, memory)
    return None if got is None else vote(*got)


def looked(folder: Path, row: dict, m: Models, ds: DiceSet,
           memory: Memory | None = None) -> tuple[list[list], Callable[[], list]] | None:
    """The readings of the row's VOTES looks, each merged with its room (`watched`), and the read of their
    mean frame, read only when the vote asks for it; None where a look could not be made."""
    imgs = [enlarged(camera_frame(folder, row, look=LOOK + k)) for k in range(VOTES)]
    empties = [enlarged(camera_frame(folder, row, empty=True, look=LOOK + k)) for k in range(VOTES)]
    if any(x is None for x in imgs + empties):
        return None
    room = Room()
    room.add_empty(empties)
    frames = [merged(img, room, m, ds, memory) for img in imgs]
    return frames, lambda: merged(mean_frame(imgs), room, m, ds, memory)


RowRead = tuple[list[Score], Score, float, int, list[str]]


def read_row(folder: Path, row: dict, mode: str, m: Models) -> RowRead | None:
    """Per die a Score (so each can count in its groups) and the frame's phantoms, a hardness figure, the
    certain readings near no die (a certain phantom is a die the game would count that is not there), and per
    die what it was read as (`read_as`, for `--errors`)."""
    img = enlarged(camera_frame(folder, row, look=LOOK))
    if img is None or row.get("cut"):
        return None
    ds = set_of(row)
    if mode == "watcher":
        got = watched(folder, row, m, ds)
    else:
        empty = enlarged(camera_frame(folder, row, empty=True, look=LOOK)) if mode != "alone" else None
        got = read_frame(img, empty, mode, m, ds)
    if got is None:
        return None
    readings = [vision.readsize.unscaled(r, SCALE) for r in got]
    radius = radius_of(row)
    truths = [truth_of(d, ds) for d in row["dice"]]
    whole = score(truths, readings, radius)
    per_die = dice_scores(row["dice"], truths, readings, radius)
    bad = whole.dice - whole.correct + whole.phantom
    sure_phantoms = sum(1 for r in readings if r.certain and not any(_near(r, d, radius) for d in row["dice"]))
    return per_die, whole, bad, sure_phantoms, read_as(truths, readings, radius)


def read_as(truths: list[dict], readings: list, radius: float) -> list[str]:
    """Per die the reading the frame's matching gave it, as a person reads it: face, certainty, confidence."""
    matched = nearest_pairs(truths, readings, radius)
    named = {i: readings[j] for i, j in matched.items()}
    return [f"read {r.face} {'certain' if r.certain else 'unsure'} {r.confidence:.3f}" if r else "missed"
            for r in (named.get(i) for i in range(len(truths)))]


def dice_scores(dice: list[dict], truths: list[dict], readings: list, radius: float) -> list[Score]:
    """Each die's Score with the reading the frame's one-to-one matching gave it (`scoring.nearest_pairs`), so
    the groups and the silent list add up to the frame's totals; its phantoms are the readings near it that
    no die took. (Scored against every reading near it, a die touching another could take its neighbour's
    reading, and one wrong reading count as two silent dice.)"""
    matched = nearest_pairs(truths, readings, radius)
    taken = set(matched.values())
    out = []
    for i, (die, truth) in enumerate(zip(dice, truths, strict=True)):
        sc = score([truth], [readings[matched[i]]] if i in matched else [], radius)
        sc.phantom = sum(1 for j, r in enumerate(readings) if j not in taken and _near(r, die, radius))
        out.append(sc)
    return out


# `--scale`: every frame and its empty tray enlarged (or below 1, shrunk) this many times before it is
# read (the readings moved back), as a camera with more pixels a die would give it. The Pi camera's 1296x972
# frame is about four times these renders' 320x240 if it sees the same tray; under the tray the box reads it
# at 480x360 (`readsize.UNDER_CAMERA_SIDE`), one and a half times them: build/undertray-x2's 640x480 at 0.75
SCALE = 1.0

# `--look`: which draw of each frame's sensor noise and JPEG is read (0, every trainer's and bench's frame, by
# default; the watcher reads LOOK to LOOK + VOTES - 1). Why: a certainty that a new draw of the same noise
# turns into a wrong name is no certainty, and other draws read more dice for the silent count
LOOK = 0


def enlarged(img: np.ndarray | None) -> np.ndarray | None:
    """The frame at SCALE as the box resizes one (`readsize.resized`: grown bicubic, more pixels and no more
    detail; shrunk by area, as the box shrinks the Pi camera's frame to the side it reads it at)."""
    if img is None or SCALE == 1.0:
        return img
    h, w = img.shape[:2]
    return vision.readsize.resized(img, (round(w * SCALE), round(h * SCALE)))


def _near(r, die: dict, radius: float) -> bool:
    return (r.center[0] - die["center"][0]) ** 2 + (r.center[1] - die["center"][1]) ** 2 <= radius ** 2


def run(folders: list[Path], mode: str, debug_out: Path | None, m: Models, hold_out: str = "",
        brief: bool = False, errors: bool = False) -> None:
    total, by = Score(), defaultdict(Score)
    silent: list[str] = []
    phantoms_by_build: dict[str, int] = defaultdict(int)
    hardest, sure_phantoms = [], 0
    for folder in folders:
        for row in read_rows(folder):
            if hold_out and not factor_matches(row, hold_out):
                continue
            got = read_row(folder, row, mode, m)
            if got is None:
                continue
            per_die, whole, bad, sure, names = got
            total.add(whole)
            sure_phantoms += sure
            phantoms_by_build[row["factors"]["build"]] += whole.phantom
            for die, sc, name in zip(row["dice"], per_die, names, strict=True):
                for g in groups(row, die):
                    by[g].add(sc)
                if sc.silent:
                    silent.append(silent_line(folder, row, die, name))
            hardest.append((bad, folder, row))
    print(total.line("all" + MODES[mode]))
    print(f"  silent {total.silent} of {total.dice} dice: at most {total.silent_bound():.2f}% at 95% "
          f"(the aim, 0.1%, is shown by {dice_to_show(0.001):,} dice with none wrong)")
    for g in sorted(by):
        if not brief or g in BRIEF:
            print("  " + by[g].line(g))
    print("  phantoms by build: " + ", ".join(f"{k} {v}" for k, v in sorted(phantoms_by_build.items()))
          + f"; certain readings near no die: {sure_phantoms}")
    if errors:
        print("\n".join(silent) or "  no die certain and wrong")
    if debug_out is not None:
        write_hardest(sorted(hardest, key=lambda t: -t[0])[:6], debug_out, mode != "alone")


def silent_line(folder: Path, row: dict, die: dict, name: str = "") -> str:
    """A die read certain and wrong, as a person looks for it: its frame, faces, body and neighbours, and the
    frame's factors (`--errors`; `--debug-out` draws the hardest frames)."""
    f = row["factors"]
    return (f"  silent: {folder.name} frame {row['index']}, top {die.get('top')} (glass {die.get('glass')}), "
            f"{die.get('colour')} {die.get('material')}{', touching' if die.get('touching') else ''}"
            f"{', tilted' if die.get('tilted') else ''}; {f['plate']}, leds {f['leds']}, {f['room']}, "
            f"{f['pips']} pips, build {f['build']}{'; ' + name if name else ''}")


def write_hardest(rows: list, out: Path, room: bool) -> None:
    """The hardest frames as the camera gives them (`*_cam.png`, for `dicesight read --mount under
    --debug-out`) and with the truth's boxes and glass faces drawn, for a person to look at."""
    out.mkdir(parents=True, exist_ok=True)
    for bad, folder, row in rows:
        img = camera_frame(folder, row, look=LOOK)
        cv2.imwrite(str(out / f"{folder.name}_{row['index']:05d}_cam.png"), img)
        for d in row["dice"]:
            cx, cy, w, h = d["box"]
            cv2.rectangle(img, (int(cx - w / 2), int(cy - h / 2)), (int(cx + w / 2), int(cy + h / 2)), (0, 255, 0), 1)
            cv2.putText(img, str(d["glass"]), (int(cx - w / 2), int(cy - h / 2) - 2), 0, 0.4, (0, 255, 0), 1)
        name = f"{folder.name}_{row['index']:05d}{'_room' if room else ''}.png"
        cv2.imwrite(str(out / name), img)
        print(f"  hardest: {out / name} (wrong+missed+phantoms {bad}, {row['factors']})")


def given_boxes(folders: list[Path], m: Models, hold_out: str, by_factor: bool = False,
                sheet: list[np.ndarray] | None = None) -> str:
    """The face network alone, given each die's true box (the finder's part taken out): glass face named
    right, right and above its certainty threshold, wrong and above it (not the reader's certainty, which
    also asks the pip counts or the templates). Each set by its own network; a set without one is left out.
    Dice Throne dice also by held-out / seen hero and printing (`hero_groups`); `by_factor`: every die also
    in each of its factor groups (`groups`), to see where the network errs whatever the finder does.
    `sheet`: each die named wrong is added to it as a picture (`wrong_tile`)."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0])   # dice, right, sure-right, sure-wrong,
    # and sure-right, sure-wrong where the turns' mean may make a die sure too (`Prediction.turns_sure`)
    for folder in folders:
        for row in read_rows(folder):
            img = camera_frame(folder, row)
            clf = network_of(set_of(row), m)
            if img is None or clf is None or row.get("cut") or (hold_out and not factor_matches(row, hold_out)):
                continue
            boxes = [tuple(d["box"]) for d in row["dice"]]
            # as the reader reads them: pip dice and symbol dice in four turns where unsure
            turns = vision.reader.TURNS_UNDER if set_of(row).id == "d6" else vision.symbolnet.TURNS_UNDER
            for d, p in zip(row["dice"], clf.predict(img, boxes, turns=turns), strict=True):
                ok, sure = p.index + 1 == int(d["glass"]), p.confidence >= clf.certain_at
                if sheet is not None and not ok:
                    named = f"{clf.classes[p.index]} {p.confidence:.2f}"
                    sheet.append(wrong_tile(img, folder, row, d, named))
                turned = sure or p.turns_sure
                kinds = groups(row, d) if by_factor else [h for h in hero_groups(d) if h in BRIEF]
                for g in ["all", *kinds]:
                    c = counts[g]
                    c[0], c[1], c[2], c[3] = c[0] + 1, c[1] + ok, c[2] + (ok and sure), c[3] + (sure and not ok)
                    c[4], c[5] = c[4] + (ok and turned), c[5] + (turned and not ok)
    lines = [_given_line(g, c) for g, c in sorted(counts.items(), key=lambda kv: kv[0] != "all")]
    return "\n  ".join(lines or [_given_line("all", [0] * 6)])


# a die on the sheet of wrong names: its true box grown this much (the neighbours and the ring it lies in
# show), cut at TILE_CUT px and drawn at twice that
TILE_GROW, TILE_CUT = 1.6, 64


def wrong_tile(img: np.ndarray, folder: Path, row: dict, die: dict, named: str) -> np.ndarray:
    """One die the face network named wrong at its true box, for a person to look at: the glass face and what
    the network named above, its folder, frame, body and whether it touches or tilts below."""
    tile = cv2.resize(crop_patch(img, die["box"], pad=TILE_GROW, size=TILE_CUT), None, fx=2, fy=2,
                      interpolation=cv2.INTER_NEAREST)
    marks = [w for w, on in (("touch", die.get("touching")), ("tilt", die.get("tilted"))) if on]
    below = " ".join([f"{folder.name[1:]}/{row['index']}", (die.get("material") or "")[:5], *marks])
    cv2.putText(tile, f"glass {die['glass']}: {named}", (2, 12), 0, 0.4, (0, 255, 255), 1)
    cv2.putText(tile, below, (2, tile.shape[0] - 4), 0, 0.33, (0, 255, 255), 1)
    return tile


def write_sheet(tiles: list[np.ndarray], out: Path, columns: int = 8) -> None:
    """The tiles in rows of `columns` as one picture (`--given-sheet`)."""
    if not tiles:
        print(f"given-boxes sheet: no die named wrong, {out} not written")
        return
    filled = tiles + [np.zeros_like(tiles[0])] * (-len(tiles) % columns)
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = [np.hstack(filled[i:i + columns]) for i in range(0, len(filled), columns)]
    cv2.imwrite(str(out), np.vstack(rows))
    print(f"given-boxes sheet: {len(tiles)} dice named wrong, in {out}")


def _given_line(group: str, c: list[int]) -> str:
    pct = 100.0 / max(c[0], 1)
    head = "face network given the true boxes:" if group == "all" else f"{group}:"
    return (f"{head} dice {c[0]}  right {c[1] * pct:.2f}%  right and sure {c[2] * pct:.2f}%  "
            f"wrong and sure {c[3] * pct:.2f}%;  with the turns' mean: {c[4] * pct:.2f}% / {c[5] * pct:.2f}%")


def colour_set_line(folders: list[Path], set_id: str, m: Models) -> str:
    """The d6 frames read as `set_id` (a set that tells dice apart by colour, e.g. regidice) as one frame is read
    with the room (merged), over the dice of that set's colours (`ColourScore`)."""
    ds = get_set(spec(set_id))
    total = ColourScore()
    for folder in folders:
        for row in read_rows(folder):
            img = camera_frame(folder, row)
            if img is None or row.get("cut") or set_of(row).id != "d6":
                continue
            total.add(row, read_frame(img, camera_frame(folder, row, empty=True), "merged", m, ds), ds)
    return total.line(f"read as {set_id}")


@dataclass
class ColourScore:
    """Dice of a colour set's colours read: certain with the right value and colour, certain with a wrong value,
    certain with the right value and a wrong colour (in Regidice a wrong spell), and the colour named right."""

    dice: int = 0
    right: int = 0
    wrong_value: int = 0
    wrong_colour: int = 0
    colour_right: int = 0

    def add(self, row: dict, readings: list, ds: DiceSet) -> None:
        """One frame's labelled dice of `ds`'s colours against its readings (the nearest within a die's radius)."""
        for d in row["dice"]:
            if d["colour"] not in ds.colours:
                continue
            self.dice += 1
            near = [r for r in readings if _near(r, d, radius_of(row))]
            if not near:
                continue
            r = min(near, key=lambda r: math.dist(r.center, d["center"]))
            self.colour_right += r.colour == d["colour"]
            if r.certain:
                self.wrong_value += r.value != d["top"]
                self.wrong_colour += r.value == d["top"] and r.colour != d["colour"]
                self.right += r.value == d["top"] and r.colour == d["colour"]

    def merge(self, other: ColourScore) -> None:
        for k in ("dice", "right", "wrong_value", "wrong_colour", "colour_right"):
            setattr(self, k, getattr(self, k) + getattr(other, k))

    def line(self, head: str) -> str:
        pct = 100.0 / max(self.dice, 1)
        return (f"{head}, dice of its colours {self.dice}: certain-right (value and colour) {self.right * pct:.2f}%  "
                f"certain, wrong value {self.wrong_value}  certain, wrong colour {self.wrong_colour}  "
                f"colour right {self.colour_right * pct:.2f}%")


def network_of(ds: DiceSet, m: Models) -> FaceClassifier | None:
    """The network that reads a set's faces under the tray in this run."""
    if ds.id == "d6":
        return m.clf or classifier_for(ds, "under")
    return m.symbols or network_for(ds, "under")


def machine() -> str:
    """The machine the figures were made on (the reader's speed and the shared machine's load vary)."""
    cpu = platform.processor() or platform.machine()
    try:
        names = [ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                 if ln.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{platform.node()}: {cpu}, {os.cpu_count()} cores, load {load:.1f}, Python {platform.python_version()}"


def meta_of(path: Path) -> dict:
    return json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))


def model_lines(m: Models, clf_path: Path | None, finder_path: Path | None, sym_path: Path | None = None,
                symbol_set: DiceSet | None = None) -> str:
    """What read the faces and found the dice, and which under-tray frames and factor they never saw."""
    clf = m.clf or classifier_for(get_set("d6"), "under")
    det = m.finder or finder_for("under")
    on, fon = clf.meta.get("trained_on", {}), det.meta.get("trained_on", {}) if det else {}
    name = clf_path.name if clf_path else f"shipped for --mount under ({'pips-under' if clf.meta.get('mount') else 'pips'})"
    fname = finder_path.name if finder_path else f"shipped for --mount under ({'finder-under' if fon.get('undertray_frames') else 'finder'})"
    return (f"face network: {name}, certain_at {clf.certain_at:.4f}, under-tray frames trained on "
            f"{on.get('undertray_frames') or 'none'}, factor held out {on.get('held_out_factor')}\n"
            f"learned finder (frames read alone): {fname}, under-tray frames trained on "
            f"{fon.get('undertray_frames') or 'none'}" + symbols_line(m, sym_path, symbol_set))


def in_sample(folders: list[Path], m: Models) -> list[str]:
    """The folders read that the d6 face network trained on (its JSON's `undertray_frames`): a bench line that
    mixes them with unseen frames must say so."""
    clf = m.clf or classifier_for(get_set("d6"), "under")
    trained = clf.meta.get("trained_on", {}).get("undertray_frames") or {}
    return [f.name for f in folders if f.name in trained]


def symbols_line(m: Models, path: Path | None, ds: DiceSet | None = None) -> str:
    """The network the symbol seeds are read with (King of Tokyo's unless the frames hold another set), and
    what it never saw (a family network: the heroes it trained on)."""
    ds = ds or get_set(spec("kingoftokyo"))
    net = m.symbols or network_for(ds, "under")
    if net is None:
        return f"\nsymbol dice ({ds.id}): no network of their own (templates only)"
    on = net.meta.get("trained_on", {})
    name = path.name if path else f"shipped {net.meta.get('set')}-under"
    heroes = (f", heroes trained on {net.meta['heroes_trained']}, held out {net.meta.get('heroes_held_out')}"
              if net.meta.get("heroes_trained") else "")
    return (f"\nsymbol dice: {name}, certain_at {net.certain_at:.4f}, "
            f"frames trained on {sum((on.get('undertray_frames') or {}).values())}, held-out seeds "
            f"{on.get('held_out_seeds')}, factor held out {on.get('held_out_factor')}{heroes}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default=TEST_SEEDS)
    ap.add_argument("--debug-out", type=Path, default=None)
    ap.add_argument("--classifier", type=Path, default=None, help="a face network file (.onnx beside its .json)")
    ap.add_argument("--symbols", type=Path, default=None, help="a symbol set's network (.onnx beside its .json)")
    ap.add_argument("--finder", type=Path, default=None, help="a learned finder file (.onnx beside its .json)")
    ap.add_argument("--hold-out", default="", help="read only the frames with this factor (KEY=PREFIX)")
    ap.add_argument("--modes", default="alone,room,merged", help="comma-separated: " + ", ".join(MODES) +
                    " (watcher: three reads a frame, so asked for by name)")
    ap.add_argument("--brief", action="store_true", help="the totals and touching/apart only")
    ap.add_argument("--given-by-factor", action="store_true",
                    help="the network given the true boxes by every factor group too")
    ap.add_argument("--given-sheet", type=Path, default=None,
                    help="write a picture of every die the face network names wrong given its true box")
    ap.add_argument("--errors", action="store_true", help="name each die read certain and wrong")
    ap.add_argument("--one-turn", action="store_true", help="read each crop in one turn only (the reader before "
                    "`reader.TURNS_UNDER` and `symbolnet.TURNS_UNDER`)")
    ap.add_argument("--no-cnn-alone", action="store_true", help="never certain on the CNN's word alone under the "
                    "tray (the reader before `reader.UNDER_ALONE`)")
    ap.add_argument("--roomless-pips", action="store_true", help="search a frame read without the room for "
                    "pips as well (the reader before `find.PIPS_UNDER`)")
    ap.add_argument("--ring-out", action="store_true", help="a frame read with its room loses the LED ring's "
                    "reflections (`reader.REFLECTIONS_OUT`: measured, not shipped)")
    ap.add_argument("--no-heaps-for-icons", action="store_true", help="with the room, the learned finder does "
                    "not search heaps of touching icon dice (the reader before `reader.HEAPS_FOR_ICONS`)")
    ap.add_argument("--corners", type=Path, default=None, help="read corner numbers with this network (.onnx "
                    "beside its .json) instead of the shipped vision/models/corner-numbers.onnx")
    ap.add_argument("--no-guess-unnamed", action="store_true", help="a die the face reader names nothing in "
                    "keeps no corner number below its guess level (the reader before "
                    "`corner_numbers.GUESS_FOR_UNNAMED`)")
    ap.add_argument("--no-quiet-side", action="store_true", help="an icon die whose band shows no ink is not "
                    "looked at again from the band's quietest side (the reader before "
                    "`faces.INK_BY_QUIET_SIDE`)")
    ap.add_argument("--any-heap-part", action="store_true", help="a heap's part is looked at from its quiet "
                    "side whatever its shape (the reader before `faces.QUIET_SIDE_HEAP_PARTS_SHAPED`)")
    ap.add_argument("--no-nudge", action="store_true", help="a corner number is read in the outline's own "
                    "crop only, not in nudged copies too (the reader before `corner_numbers.NUDGED`)")
    ap.add_argument("--nudge-below", type=float, default=None, help="the nudged crops only for a number the "
                    "outline's own crop reads below this (`corner_numbers.NUDGE_BELOW`)")
    ap.add_argument("--templates-first", action="store_true", help="a die the templates named, unsure, keeps "
                    "their face below the corner number's guess level (the reader before "
                    "`corner_numbers.CORNER_OVER_NAMED`)")
    ap.add_argument("--agreed-at", type=float, default=None,
                    help="a numbered die the templates name unsure is certain where its corner number names "
                    "the same face this sure (0 or less: never, as before the 36th session; 0.999: as in the "
                    "36th; default: the shipped `corner_numbers.AGREED_AT`)")
    ap.add_argument("--doubted-at", type=float, default=None,
                    help="a numbered die the templates are certain of is not where its corner number names "
                    "another face this sure (above 1: never, as before the 36th session; default: the "
                    "shipped `corner_numbers.DOUBTED_AT`)")
    ap.add_argument("--doubt-below", type=float, default=None, help="the corner number doubts only dice the "
                    "templates are certain of below this (default: the shipped `corner_numbers.DOUBT_BELOW`)")
    ap.add_argument("--alone-finder-at-read-size", action="store_true", help="a frame of icon dice read "
                    "without the room searched by the learned finder at its read size (the reader before "
                    "`reader.ALONE_AT_FINDER_VIEW`)")
    ap.add_argument("--luma-corners", action="store_true", help="the corner number read in the crop's "
                    "lightness (the reader before `corner_numbers.INK_AXIS`)")
    ap.add_argument("--finder-box-unsure", action="store_true", help="a numbered die only the learned finder "
                    "saw stays uncertain however its judges agree (the reader before "
                    "`corner_numbers.AGREED_IN_FINDER_BOX`)")
    ap.add_argument("--doubted-by-icon-at", type=float, default=None, help="a certain numbered die whose "
                    "corner number names another face of its icon this sure is not certain (above 1: never) "
                    "(`corner_numbers.DOUBTED_BY_ICON_AT`; default: the shipped one)")
    ap.add_argument("--unnamed-certain-at", type=float, default=None,
                    help="a numbered die the templates named nothing in is certain in an outline where its "
                    "corner number is read this sure (above 1: never) (`corner_numbers.UNNAMED_CERTAIN_AT`; "
                    "default: the shipped one)")
    ap.add_argument("--agreed-named-at", type=float, default=None,
                    help="a numbered die the templates named this sure (unsure) is certain in an outline "
                    "where its corner number names the same face at the guess level (above 1: never) "
                    "(`corner_numbers.AGREED_NAMED_AT`; default: the shipped one)")
    ap.add_argument("--agreed-named-in-box-at", type=float, default=None,
                    help="... and in a finder's box where the number names it this sure (above 1: never) "
                    "(`corner_numbers.AGREED_NAMED_IN_BOX_AT`; default: the shipped one)")
    ap.add_argument("--agreed-icon-at", type=float, default=None,
                    help="a numbered die the templates named (unsure) is certain in an outline of its corner "
                    "number's face where that face carries the templates' icon and the number is read this "
                    "sure (above 1: never) (`corner_numbers.AGREED_ICON_AT`; default: the shipped one)")
    ap.add_argument("--number-over-icon-at", type=float, default=None,
                    help="a numbered die the templates named (unsure, below 0.5) is certain in an outline of "
                    "its own edges of its corner number's face of another icon read this sure (above 1: "
                    "never) (`corner_numbers.NUMBER_OVER_ICON_AT`; default: the shipped one)")
    ap.add_argument("--most-looks-enough", type=int, choices=(0, 1), default=None,
                    help="1: the watcher's die most looks were certain of (every look naming it alike) is "
                    "certain without the mean frame's read; 0: not (`watcher.MOST_LOOKS_ENOUGH`; default: "
                    "the shipped one)")
    ap.add_argument("--keep-across-still", action="store_true",
                    help="a still frame's outline reading across several of the finder's boxed dice kept "
                    "(`reader.ACROSS_DICE_ASIDE_STILL`)")
    ap.add_argument("--one-look-enough", type=int, choices=(0, 1), default=None,
                    help="1: the watcher's die every look named alike is certain when one look was certain "
                    "of it; 0: most looks must be (`watcher.ONE_LOOK_ENOUGH`; default: the shipped one)")
    ap.add_argument("--named-every-look-at", type=float, default=None,
                    help="the watcher's die every look named at this level or surer (`Reading.named_p`) is "
                    "certain; 0: not so (`watcher.NAMED_IN_EVERY_LOOK_AT`; default: the shipped one)")
    ap.add_argument("--cnn-named-widest", type=float, default=None,
                    help="an unsure pip die's face network probability is weighed by the watcher in a box up "
                    "to this many usual die sides; 0: not at all (`reader.CNN_NAMED_WIDEST`; default: the "
                    "shipped one)")
    ap.add_argument("--unnamed-certain-any-outline", action="store_true",
                    help="a die the templates named nothing in is certain by a sure corner number in any "
                    "outline, not only one shaped as one die (the reader before "
                    "`corner_numbers.UNNAMED_CERTAIN_ONE_DIE`)")
    ap.add_argument("--no-crowds", action="store_true",
                    help="with the room, a blob the learned finder boxes as two dice or more is no heap "
                    "unless the outlines say so (the reader before `find.CROWDS_BY_FINDER`)")
    ap.add_argument("--keep-across", action="store_true", help="with the room, an outline's reading across "
                    "two or more of a heap's boxed dice is kept (the reader before "
                    "`reader.ACROSS_DICE_ASIDE`)")
    ap.add_argument("--colour-set", default="", help="also read the d6 frames as this set (e.g. regidice): its "
                    "colours' dice, value and colour (merged only)")
    ap.add_argument("--root", type=Path, default=FRAMES, help="the seed folders' folder (build/undertray-x3: frames "
                    "rendered at three times the pixels, `blender_undertray.py --scale 3`; build/undertray-denoised: "
                    "the frames without Cycles' grain, `training/denoise_undertray.py`)")
    ap.add_argument("--scale", type=float, default=1.0, help="read every frame enlarged this many times (a camera "
                    "with more pixels a die; below 1, shrunk: 0.75 reads build/undertray-x2's 640x480 "
                    "frames at 480x360, as the box reads the Pi camera's; the given-boxes line is at the "
                    "renders' own size)")
    ap.add_argument("--look", type=int, default=0,
                    help="read this draw of each frame's sensor noise and JPEG (0: the frame every trainer "
                    "and bench read; the watcher reads it and the next ones)")
    ap.add_argument("--sensor", choices=("plain", "bayer"), default="plain",
                    help="the camera the frames pass through: plain (every trainer's) or bayer "
                    "(training/sensor.py: a mosaic sensor's shot noise, demosaicked and sharpened; held out)")
    args = ap.parse_args()
    global SCALE, LOOK
    SCALE, LOOK = args.scale, args.look
    training.blender_undertray_canvases.SENSOR = args.sensor
    vision.reader.TURNS_UNDER = vision.symbolnet.TURNS_UNDER = not args.one_turn
    vision.reader.UNDER_ALONE = not args.no_cnn_alone
    vision.find.PIPS_UNDER = args.roomless_pips
    vision.reader.REFLECTIONS_OUT = args.ring_out
    vision.reader.HEAPS_FOR_ICONS = not args.no_heaps_for_icons
    vision.corner_numbers.GUESS_FOR_UNNAMED = not args.no_guess_unnamed
    vision.faces.INK_BY_QUIET_SIDE = not args.no_quiet_side
    vision.faces.QUIET_SIDE_HEAP_PARTS_SHAPED = not args.any_heap_part
    vision.corner_numbers.NUDGED = not args.no_nudge
    vision.corner_numbers.CORNER_OVER_NAMED = not args.templates_first
    vision.corner_numbers.INK_AXIS = not args.luma_corners
    vision.reader.ALONE_AT_FINDER_VIEW = not args.alone_finder_at_read_size
    vision.corner_numbers.AGREED_IN_FINDER_BOX = not args.finder_box_unsure
    if args.agreed_at is not None:
        vision.corner_numbers.AGREED_AT = args.agreed_at if args.agreed_at > 0 else None
    if args.doubted_at is not None:
        vision.corner_numbers.DOUBTED_AT = args.doubted_at if args.doubted_at <= 1 else None
    if args.doubted_by_icon_at is not None:
        vision.corner_numbers.DOUBTED_BY_ICON_AT = args.doubted_by_icon_at
    if args.unnamed_certain_at is not None:
        level = args.unnamed_certain_at
        vision.corner_numbers.UNNAMED_CERTAIN_AT = level if level <= 1 else None
    if args.agreed_named_at is not None:
        level = args.agreed_named_at
        vision.corner_numbers.AGREED_NAMED_AT = level if level <= 1 else None
    if args.agreed_named_in_box_at is not None:
        level = args.agreed_named_in_box_at
        vision.corner_numbers.AGREED_NAMED_IN_BOX_AT = level if level <= 1 else None
    if args.agreed_icon_at is not None:
        level = args.agreed_icon_at
        vision.corner_numbers.AGREED_ICON_AT = level if level <= 1 else None
    if args.number_over_icon_at is not None:
        level = args.number_over_icon_at
        vision.corner_numbers.NUMBER_OVER_ICON_AT = level if level <= 1 else None
    if args.most_looks_enough is not None:
        vision.watcher.MOST_LOOKS_ENOUGH = bool(args.most_looks_enough)
    if args.one_look_enough is not None:
        vision.watcher.ONE_LOOK_ENOUGH = bool(args.one_look_enough)
    if args.named_every_look_at is not None:
        vision.watcher.NAMED_IN_EVERY_LOOK_AT = args.named_every_look_at or None
    if args.cnn_named_widest is not None:
        vision.reader.CNN_NAMED_WIDEST = args.cnn_named_widest or None
    vision.corner_numbers.UNNAMED_CERTAIN_ONE_DIE = not args.unnamed_certain_any_outline
    vision.find.CROWDS_BY_FINDER = not args.no_crowds
    vision.reader.ACROSS_DICE_ASIDE = not args.keep_across
    vision.reader.ACROSS_DICE_ASIDE_STILL = not args.keep_across_still
    if args.doubt_below is not None:
        vision.corner_numbers.DOUBT_BELOW = args.doubt_below
    if args.nudge_below is not None:
        vision.corner_numbers.NUDGE_BELOW = args.nudge_below
    if args.corners:
        vision.corner_numbers.MODEL = args.corners
        vision.corner_numbers.corner_reader.cache_clear()
    folders = [args.root / f"s{s}" for s in seed_list(args.seeds) if (args.root / f"s{s}" / "labels.jsonl").exists()]
    rows = [r for f in folders for r in read_rows(f) if not args.hold_out or factor_matches(r, args.hold_out)]
    m = Models(FaceClassifier(args.classifier, meta_of(args.classifier)) if args.classifier else None,
               DieDetector(args.finder, meta_of(args.finder)) if args.finder else None,
               FaceClassifier(args.symbols, meta_of(args.symbols)) if args.symbols else None)
    print(f"machine: {machine()}")
    sizes = "/".join(sorted({"x".join(map(str, frame_size(r))) for r in rows}))
    sets = "/".join(sorted({set_of(r).id for r in rows}))
    print(f"under-tray Blender frames: {len(rows)} in {args.root.name}/{', '.join(f.name for f in folders)} "
          f"({sizes}, {sets})"
          + (f", only those with {args.hold_out}" if args.hold_out else "")
          + (f", through the {args.sensor} sensor" if args.sensor != "plain" else "")
          + f"; test seeds {TEST_SEEDS} (d6), {SYMBOL_TEST_SEEDS} (King of Tokyo), "
          f"{DT_TEST_SEEDS} (Dice Throne) held out")
    symbol_sets = [set_of(r) for r in rows if r["dice"] and r["dice"][0].get("set", "d6") != "d6"]
    print(model_lines(m, args.classifier, args.finder, args.symbols, symbol_sets[0] if symbol_sets else None))
    seen = in_sample(folders, m)
    if seen:
        print(f"IN-SAMPLE: the face network trained on {', '.join(seen)}: their figures prove little")
    sheet: list[np.ndarray] | None = [] if args.given_sheet else None
    print(given_boxes(folders, m, args.hold_out, args.given_by_factor, sheet))
    if sheet is not None:
        write_sheet(sheet, args.given_sheet)
    for mode in args.modes.split(","):
        run(folders, mode, args.debug_out, m, args.hold_out, args.brief, args.errors)
    if args.colour_set:
        print(colour_set_line(folders, args.colour_set, m))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
