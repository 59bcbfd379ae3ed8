"""Training data from the under-tray Blender renders (`blender_undertray.py`), and the splits the benches keep.

No torch here: the bench imports the splits. Why a module of its own: the under-tray face network must be
judged on frames it never saw, in two senses (issue 31): whole render seeds held out (seeds 1-3 are the test
seeds, never trained or calibrated on), and whole factors held out (a model trained without any glass plate,
read on glass plates only). Both the trainer and the bench take their frames through `frames` and
`factor_matches`, so the two can never disagree on what was held out.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from training.blender_canvases import seed_list
from training.blender_undertray_canvases import FRAMES, camera_frame
from training.blender_undertray_factors import read_rows, seed_kind
from training.canvas import Canvases, canvas
from training.sensor import training_camera
from vision.classify import smoothed
from vision.detector import DieDetector
from vision.reader import find_candidates
from vision.reflections import without_reflections

# the renders' denoised copies (`training/denoise_undertray.py`), folder by folder as in FRAMES
DENOISED = FRAMES.parent / "undertray-denoised"
TEST_SEEDS = "1-3"       # the held-out seeds: never trained on, never calibrated on
# Fresh test renders (24th session, 2026-11-28): d6 seeds and tables no session had rendered before, read by
# the shipped reader to report, never to choose a rule, a level or a model on. Why: the reader's rules were
# chosen over many sessions on seeds 1-3 and tables 118-129, so those are no longer pictures the reader has
# not seen; the box will be judged on pictures nobody has looked at (docs/dice-sets.md, "Fresh test renders").
FRESH_SEEDS = "96-99"
FRESH_TABLES = "190-195"
# Seeds first rendered at 64 samples a pixel (build/undertray-s64), each pair read once by the rule written
# before it was: fresh as 96-99 were, but in a look no network trained on (94-95: 28th session; 88-89 and
# 90-91: 29th; 92-93: 30th, each taken out of TRAIN_SEEDS before any frame of it was rendered)
FRESH_CLEAN_SEEDS = "88-95"
# d6 seeds from `MORE_D6_SEEDS` (31st session, when every d6 seed below 100 had been trained on or read):
# kept for fresh reads, each read once by a rule written before it, as FRESH_CLEAN_SEEDS were (1100 and up
# since the 51st session, when 1000-1099 had all been read)
FRESH_MORE_SEEDS = "1000-1999"
# what no d6 trainer may take, whatever its seeds say
HELD_OUT_SEEDS = f"{TEST_SEEDS},{FRESH_CLEAN_SEEDS},{FRESH_SEEDS},{FRESH_MORE_SEEDS}"
# every d6 seed but those and the tables (100-199, `folders`); 200-999 hold symbol dice; 2000 and up are d6
# seeds for training only (52nd session, when every d6 seed below 88 had been trained on)
TRAIN_SEEDS = "4-87,100-199,2000-2999"
SYMBOL_TEST_SEEDS = "200-201"     # King of Tokyo dice under the tray: never trained or calibrated on
SYMBOL_MEASURE_SEEDS = "223-231"  # King of Tokyo seeds kept out of training and calibration to measure on too
# (200-201 hold 164 dice; these 758 more: docs/dice-sets.md, twelfth session)
FRESH_SYMBOL_SEEDS = "398-399"    # King of Tokyo's fresh test renders (24th session), as FRESH_SEEDS for d6
SYMBOL_HELD_OUT_SEEDS = f"{SYMBOL_TEST_SEEDS},{FRESH_SYMBOL_SEEDS}"   # what no symbol trainer may take
SYMBOL_TRAIN_SEEDS = "202-222,232-397"  # the symbol seeds a symbol face network trains (and is refitted) on
DT_TEST_SEEDS = "400-401"    # Dice Throne heroes under the tray: never trained or calibrated on (the only seeds
DT_TRAIN_SEEDS = "402-599"   # with the held-out heroes and printing); the seeds the Dice Throne network trains on
# d6 seeds kept to fit the face network's certainty level, never trained on whatever --train-seeds says (25-29
# and 33 were rendered to choose the reader's rules with, 34-41 only for this; 2026-11-26): every frame of them
# is held back (`is_calibration`). Why: the level is the lowest at which held-back dice stay within the silent
# aim, and 488 held-back dice from below could only vouch for "none wrong", so one see-through translucent die
# read at 0.984 set the level for all the rest.
CALIB_SEEDS = "25-29,33-41"
_CALIB = frozenset(seed_list(CALIB_SEEDS))
DIE = 8                  # Canvases.source of a die rendered under the tray
NOT_A_DIE = 9            # Canvases.source of a reader's candidate on an under-tray render that is no die


def folders(spec: str, root: Path = FRAMES, finished: bool = False, tables: bool = False) -> list[Path]:
    """The render folders of the seeds in `spec` that hold labels; `finished`: only those Blender finished
    (`done`), as training takes them, so that a model is made again from the same frames while later seeds
    are still rendering (the model's JSON records the frames per folder). The tables' seeds (`TABLE_SEEDS`)
    only when `tables` is asked: they measure learning from a box's own throws, and a network trained on
    them would have learnt those dice before any throw was taught."""
    return [root / f"s{s}" for s in dict.fromkeys(seed_list(spec)) if (root / f"s{s}" / "labels.jsonl").exists()
            and (not finished or (root / f"s{s}" / "done").exists()) and (tables or not is_table(s))]


def is_table(seed: int) -> bool:
    """Whether a seed's folder is one table's throws (`blender_undertray_factors.table_frame`)."""
    return seed_kind(seed) == "table"


def factor_matches(row: dict, factor: str) -> bool:
    """Whether a frame has the held-out factor `factor`, written KEY=PREFIX (e.g. "plate=glass": every glass
    plate; "leds=*-green": a green LED ring; "materials=translucent": a frame with a translucent die). A
    prefix ending in '*' matches anything there; a list factor (materials, colours) matches on any item."""
    key, _, want = factor.partition("=")
    have = row["factors"].get(key)
    items = have if isinstance(have, list) else [have]
    return any(_like(str(v), want) for v in items)


def _like(value: str, pattern: str) -> bool:
    """`pattern` with '*' as a wildcard, else a prefix of `value`."""
    if "*" not in pattern:
        return value.startswith(pattern)
    head, _, tail = pattern.partition("*")
    return value.startswith(head) and value.endswith(tail) and len(value) >= len(head) + len(tail)


def is_calibration(row: dict) -> bool:
    """One training frame in five is held back to fit the under-tray temperature and certainty (never the
    test seeds': a threshold fitted on the test would make the silent figure a promise, not a measurement),
    and every frame of the calibration seeds (`CALIB_SEEDS`)."""
    return row["index"] % 5 == 2 or row.get("seed") in _CALIB


def never_trained(rows: list[tuple[Path, dict]], trained_frames: dict[str, int]) -> list[tuple[Path, dict]]:
    """The frames of `rows` a network never trained on: held back (`is_calibration`) or in a folder it read
    no frame of (`trained_frames`, its JSON's "undertray_frames": folder name -> frames). Why: a network is
    fitted again on every such frame (`--recalibrate`), and a seed rendered after it was trained is one."""
    return [(f, row) for f, row in rows if is_calibration(row) or not trained_frames.get(f.name)]


def refuse_measure_seeds(spec: str) -> None:
    """Stop (SystemExit) where `spec` holds one of King of Tokyo's measure, test or fresh seeds, which no
    level may be fitted on (the trainers' `main` refuses them as training seeds)."""
    kept = f"{SYMBOL_MEASURE_SEEDS},{SYMBOL_HELD_OUT_SEEDS}"
    if set(seed_list(spec)) & set(seed_list(kept)):
        raise SystemExit(f"{spec} overlaps the seeds the bench measures on ({kept})")


def with_calibration(spec: str) -> str:
    """The seeds of `spec` and the calibration seeds: what a trainer reads, to train on the first (less the
    held-back fifth) and fit its level on the held-back fifth and the second."""
    return f"{spec},{CALIB_SEEDS}"


def frames(spec: str, keep: Callable[[dict], bool] = lambda row: True, finished: bool = True,
           tables: bool = False, root: Path = FRAMES) -> list[tuple[Path, dict]]:
    """(folder, row) of every frame of the seeds in `spec` under `root` that `keep` accepts (of finished
    folders only, unless `finished` is False; the tables' only when `tables` is asked, as in `folders`)."""
    return [(f, row) for f in folders(spec, root, finished=finished, tables=tables) for row in read_rows(f)
            if keep(row)]


def die_canvases(rows: list[tuple[Path, dict]], side: int, variants: int = 1, clean: int = 0,
                 sensor: int = 0, bare: bool = False, smooth: float = 0.0) -> Canvases:
    """Every labelled die as a canvas of its glass face (class = glass face - 1), seen flat from below: any
    turn is a face's own (not upright). `variants` > 1: each clean render also through other camera faults
    (`refaulted`), as another cheap camera would have given it. Why: a render takes minutes on the shared
    machine and the faults seconds, and the noise, blur and JPEG are much of what the reader must see past.
    `clean`: the last this many of those variants drawn on the frame's denoised copy where it was written
    (`denoised`): the render without Cycles' grain, as a Blender with a denoiser gives it. `sensor`: this many
    variants just before those through a Bayer camera (`sensor.training_camera`), never the bench's one.
    `bare`: every odd variant without the LED ring's reflections its empty tray shows (`without_ring`), as the
    reader sees a frame read with its room (`reader.REFLECTIONS_OUT`). `smooth`: each look smoothed by a
    Gaussian of that many px, as a network whose JSON names a "smooth_sigma" is shown its crops
    (`vision.classify.FaceClassifier.cut`)."""
    xs, ys = [], []
    for folder, row in rows:
        for k in range(variants):
            img = variant_frame(folder, row, k, variants, clean, sensor)
            if bare and k % 2 == 1 and img is not None:
                img = without_ring(img, variant_frame(folder, row, k, variants, clean, sensor, empty=True))
            if img is None:
                continue
            img = smoothed(img, smooth)
            for die in row["dice"]:
                xs.append(canvas(img, tuple(die["box"]), side))
                ys.append(int(die["glass"]) - 1)
    return _canvases(xs, ys, DIE, side)


def variant_frame(folder: Path, row: dict, k: int, variants: int, clean: int,
                  sensor: int = 0, empty: bool = False) -> np.ndarray | None:
    """The frame's `k`-th of `variants` camera looks: 0 the camera's own, the others `refaulted`, the last
    `clean` of them on the frame's denoised copy (`denoised`; the grainy render before one is written), the
    `sensor` before those through a Bayer camera. `empty`: the frame's empty tray in the same look."""
    if k == 0:
        return camera_frame(folder, row, empty=empty)
    bayer = variants - clean - sensor <= k < variants - clean
    return refaulted(denoised(folder) if k >= variants - clean else folder, row, k, bayer, empty)


def without_ring(img: np.ndarray, empty: np.ndarray | None) -> np.ndarray:
    """The frame less the LED ring's reflections its empty tray shows, as the reader takes them out
    (`vision.reflections`; as it is without an empty tray of its size)."""
    return img if empty is None else without_reflections(img, empty)[0]


def refaulted(folder: Path, row: dict, k: int, bayer: bool = False, empty: bool = False) -> np.ndarray | None:
    """The frame's clean render through camera faults drawn afresh (seeded by seed, index and `k`) from the
    ranges `blender_undertray_factors.draw_frame` draws them from; `bayer`: through a Bayer camera too."""
    rnd = random.Random(row["seed"] * 100_003 + row["index"] * 97 + k)
    draws = {**row["draws"], "wb_error": [round(rnd.uniform(0.85, 1.15), 3) for _ in range(3)],
             "noise": rnd.uniform(1.0, 6.0), "blur": rnd.choice([0.0, 0.0, 0.6, 1.2]), "jpeg": rnd.randint(60, 95)}
    if bayer:
        draws["sensor"] = training_camera(rnd).as_draw()
    return camera_frame(folder, {**row, "draws": draws, "index": row["index"] + 1000 * k}, empty=empty)


def denoised(folder: Path) -> Path:
    """A render folder's denoised copy (`training/denoise_undertray.py`), or the folder itself before it is
    written, or when it is not one of FRAMES' (a copy is found by the folder's name: the 960x720 frames of
    build/undertray-x3 must not take the 320x240 copies)."""
    copy = DENOISED / folder.name
    return copy if folder.parent == FRAMES and (copy / "done").exists() else folder


def looks_of(rows: list[tuple[Path, dict]]) -> dict[str, list[tuple[Path, dict]]]:
    """The held-back frames by look: the folder their seed folders lie in (the grainy renders, their denoised
    copies, a `--clean-root`'s renders at more samples), in the order first met."""
    out: dict[str, list] = {}
    for folder, row in rows:
        out.setdefault(folder.parent.name, []).append((folder, row))
    return out


def folder_key(folder: Path) -> str:
    """A render folder's name in a cache key: its seed's (s12), or under another root than the grainy renders'
    its root's too (undertray-s64/s12), whose frames are other pictures of the same scenes."""
    return folder.name if folder.parent == FRAMES else f"{folder.parent.name}/{folder.name}"


def frames_seen(spec: str, rows: list, tables: bool, clean_root: Path | None) -> dict[str, int]:
    """The model's "undertray_frames": each training seed folder's name and its frames read (held back or
    not), under the grainy renders' root and `clean_root` together (the same scenes: `never_trained` takes a
    folder of either root as read)."""
    roots = [FRAMES] + ([clean_root] if clean_root else [])
    names = [f.name for root in roots for f in folders(spec, root, finished=True, tables=tables)]
    return {name: sum(1 for f, _ in rows if f.name == name) for name in dict.fromkeys(names)}


def denoised_rows(rows: list[tuple[Path, dict]]) -> list[tuple[Path, dict]]:
    """The rows whose frames have a denoised copy, read from the copy."""
    return [(copy, r) for copy, r in ((denoised(f), r) for f, r in rows) if copy.parent == DENOISED]


def with_denoised(rows: list[tuple[Path, dict]], clean: int) -> list[tuple[Path, dict]]:
    """Held-back frames a level is fitted on: with clean variants trained on (`clean` > 0), their denoised
    copies too, so that the level holds on both looks of a frame."""
    return rows + denoised_rows(rows) if clean else rows


def dice_and_phantoms(rows: list[tuple[Path, dict]], side: int, variants: int, detector: DieDetector | None,
                      clean: int = 0, sensor: int = 0, bare: bool = False, smooth: float = 0.0) -> Canvases:
    """The under-tray training frames' dice (`die_canvases`) and the reader's false candidates on them
    (`phantom_canvases`); with `clean` variants, also on their denoised copies (half as many a frame: the
    crisp LED spots there give the finder more candidates than the grain does). `smooth`: every canvas cut
    from its frame smoothed so (`die_canvases`)."""
    parts = [die_canvases(rows, side, variants, clean, sensor, bare, smooth),
             phantom_canvases(rows, side, detector, smooth=smooth)]
    if clean:
        parts.append(phantom_canvases(denoised_rows(rows), side, detector, per_frame=4, smooth=smooth))
    return Canvases.join(parts)


def die_crops(rows: list[tuple[Path, dict]], crop: Callable[[np.ndarray, tuple], np.ndarray]
              ) -> tuple[np.ndarray, np.ndarray]:
    """The labelled dice cut out by `crop(img, box)` (as the reader cuts them) and their glass classes."""
    xs, ys = [], []
    for folder, row in rows:
        img = camera_frame(folder, row)
        if img is None:
            continue
        for die in row["dice"]:
            xs.append(crop(img, tuple(die["box"])))
            ys.append(int(die["glass"]) - 1)
    return np.asarray(xs, np.uint8), np.asarray(ys, np.int64)


def phantom_canvases(rows: list[tuple[Path, dict]], side: int, detector: DieDetector | None,
                     per_frame: int = 8, smooth: float = 0.0) -> Canvases:
    """"Not a die": the reader's own candidates on the renders that lie on no die (LED reflections in the
    plate, lamps and hands seen through it, the camera board), on the frame read alone and with its empty
    tray, and on the empty tray itself. Why: under the tray most phantoms were the LED ring mirrored in the
    acrylic (issue 31), which the face network had never been shown. `smooth`: cut from the frame smoothed
    so, as `die_canvases` cuts the dice (the candidates are found on the frame as it came)."""
    xs: list[np.ndarray] = []
    for folder, row in rows:
        img, empty = camera_frame(folder, row), camera_frame(folder, row, empty=True)
        if img is None:
            continue
        boxes = _candidate_boxes(img, None, detector) + \
            (_candidate_boxes(img, empty, None) + _candidate_boxes(empty, None, detector) if empty is not None else [])
        far = [b for b in boxes if not any(_on_die(b, d) for d in row["dice"])]
        cut_from = smoothed(img, smooth)
        xs += [canvas(cut_from, b, side) for b in far[:per_frame]]
    return _canvases(xs, [6] * len(xs), NOT_A_DIE, side)


def _candidate_boxes(img: np.ndarray, background: np.ndarray | None, detector: DieDetector | None) -> list[tuple]:
    """The boxes the reader's finder proposes in `img` (its outlines, pip clusters, learned finder)."""
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2Lab) if background is None else None
    cands, _ = find_candidates(img, lab, "under", background, detector if background is None else None)
    return [c.box for c in cands]


def _on_die(box: tuple, die: dict) -> bool:
    """Whether a candidate box holds a die: its centre within 0.75 of the die's side of the die's centre (a box
    over two touching dice, or half of one, is kept out of "not a die" too: it is partly a die)."""
    cx, cy, w, h = die["box"]
    return abs(box[0] - cx) < 0.75 * w and abs(box[1] - cy) < 0.75 * h


def _canvases(xs: list[np.ndarray], ys: list[int], source: int, side: int) -> Canvases:
    n = len(ys)
    return Canvases(np.asarray(xs, np.uint8).reshape(n, side, side, 3), np.asarray(ys, np.int64),
                    np.zeros(n, bool), np.full(n, source, np.int64))
