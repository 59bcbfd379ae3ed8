"""Train a symbol set's face network for `--mount under` (vision/models/kingoftokyo-under.onnx, dicethrone-under.onnx).

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python -m training.train_symbols_undertray   # make train-symbols-undertray
    ... --hold-out printings=red-white --out build/symbol-models                     # a printing held out
    ... --set dicethrone                                 # every Dice Throne hero (make train-dicethrone-undertray)

Why: under the tray the reader knew one drawing of King of Tokyo's glyphs (its templates, `vision/glyphs.py`),
and a table's dice are printed otherwise (issue 31: given each die's true outline, 55 of 147 faces named right).
This network learns the faces from Blender's under-tray renders of eight printings (`blender_undertray.py`,
seeds 200 and up: fonts, stroke weights, ink and body colours, glossy or matte), each die's face ON THE GLASS
(class = face index - 1 of the set, as `vision.dicesets` numbers them; "none" the reader's candidates that lie
on no die), plus the project's own drawings of the faces (`vision/render.py`) so the templates' drawing is a
printing it knows too. Training turns, flips (a face seen through the glass is mirrored), inverts and permutes
the colour channels (`torch_net.augment`), so neither ink nor body colour is what it learns.

Held out, never trained or calibrated on: seeds `undertray_data.SYMBOL_HELD_OUT_SEEDS` (200-201, 398-399),
read by bench/vision_undertray.py --seeds 200-201; King of Tokyo's measure seeds `SYMBOL_MEASURE_SEEDS`
(223-231) are left out of the default training and recalibration seeds too. `--hold-out KEY=PREFIX` (e.g.
`printings=red-white`) also leaves out every training frame with that factor, for the bench's held-out-printing
lines.

`--set dicethrone` is a family, not a set: ONE network for every hero (`FAMILIES`). Every Dice Throne face is an
icon and its corner number 1-6, and the face index is that number, so classes "1".."6" name the face of any hero,
one it never saw included: it learns the heroes of the seeds 402 and up (`DT_TRAIN_SEEDS`) and the project's
drawings of those heroes, and the bench reads four heroes and a printing drawn only in the test seeds 400-401.

Calibration: one training frame in five is held back (`undertray_data.is_calibration`); the temperature and the
confidence above which a die is certain are fitted on its dice (wrong-but-certain at most `--silent-aim`, on
all of them and on each look's own: the grainy frames, their denoised copies; with fewer than
`MIN_UNDER_DICE` held-back dice the grid's top, so the network alone makes nothing certain).
`--recalibrate MODEL` fits them again on every frame of the training seeds the model never trained on (seeds
rendered after it included): a King of Tokyo network's held-back fifth of 24 seeds was 538 dice, too few to
vouch for any level below the top; the one shipped now was refitted on 3,117 (seeds to 274).
Reproducible from `--seed`, the commit and the render frames named in the model's JSON. Never in CI.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

import numpy as np
import torch

from device.dice_sets import spec
from training import undertray_data as ud
from training.blender_undertray_factors import DT_FACES, DT_HELD_OUT, DT_HELD_OUT_PRINTING
from training.calibration import level_by_look, misread, vouched_threshold
from training.canvas import Canvases, render_canvases
from training.net import softmax
from training.provenance import SHIPPED, made_with
from training.splits import CLASSES
from training.torch_net import Setup, logits_of, train
from training.train_reader import CANVAS, calibrate
from training.train_reader_undertray import (
    MIN_UNDER_DICE,
    TOP,
    dnn_logits,
    export,
    turned_crops,
    turns_by_look,
    turns_mean,
)
from vision.classify import MODELS, FaceClassifier, crop_patch, normalise_batch
from vision.detector import DieDetector
from vision.detector import load as load_detector
from vision.dicesets import get_set

# a family of sets read by one network whose classes are the face index: the sets' id prefix, and its render
# seeds (test, train). Every face of a member carries its index as its corner number (`vision.symbolnet`)
FAMILIES = {"dicethrone": ("dicethrone:", ud.DT_TEST_SEEDS, ud.DT_TRAIN_SEEDS)}
# `Setup` fields by set (the others as Setup has them; the input 32 px). A Dice Throne face's corner number (a fifth
# of the face; three faces share an icon) is two or three pixels high at 32 px, and its frames are rendered at
# 640x480 for it (`frame_scale`); tried on seeds 402-407 (docs/dice-sets.md): 64 px with three or four convolutions,
# 48 px with wider ones (these, the best on the dice trained on), none good enough to ship. Fewer patches shrunk
# and grown (shrunk to a third of its input the number is gone), none mirrored (a face on the glass is always
# seen mirrored, and turned AND mirrored a corner "2" is a "5"; the pip networks learn both mounts)
# the shipped networks' shapes (King of Tokyo's since 2026-11-27: 78.85% of the test and measure seeds' dice
# named right given their boxes, where the 32 px 24/48/72 one named 71.26%; trained again on 45 seeds with
# boxes drawn at 0.7-1.3, `--frame`, 83.84%)
RECIPES = {"dicethrone": {"size": 48, "convs": (32, 64, 96), "small": 0.1, "flip": 0.0},
           "kingoftokyo": {"size": 40, "convs": (32, 64, 96), "separable": True}}
# the share of render.py frames drawn from below (default 0.5)
UNDER_SHARE = {"dicethrone": 1.0}


def of_set(set_id: str, die_set: str | None) -> bool:
    """Whether a rendered die of `die_set` belongs to `set_id` (a set, or a family of `FAMILIES`)."""
    return die_set == set_id or (set_id in FAMILIES and str(die_set).startswith(FAMILIES[set_id][0]))


def test_seeds(set_id: str) -> str:
    """The render seeds a set's network never trains or calibrates on."""
    return FAMILIES[set_id][1] if set_id in FAMILIES else ud.SYMBOL_HELD_OUT_SEEDS


def symbol_rows(spec_: str, keep, set_id: str = "kingoftokyo") -> list:
    """(folder, row) of the finished frames in `spec_` that `keep` accepts and whose dice are `set_id`'s."""
    return [(f, r) for f, r in ud.frames(spec_, keep) if r["dice"] and of_set(set_id, r["dice"][0].get("set"))]


def member_ids(set_id: str, rows: list) -> list[str]:
    """The set ids whose faces the project's renderer draws into the training data: the set itself, or the
    family's members seen in the training frames (never a held-out hero)."""
    if set_id not in FAMILIES:
        return [set_id]
    return sorted({d["set"] for _, r in rows for d in r["dice"]})


def canvas_side(size: int) -> int:
    """The training canvases' side for a network of input `size`: the box spans a third of a canvas, so a
    64 px network (Dice Throne's corner numbers) needs 192 px canvases to see the detail it is given."""
    return max(CANVAS, 3 * size)


def training_data(rows: list, set_id: str, render_frames: int, variants: int, seed: int,
                  side: int = CANVAS, clean: int = 0, finder: Path | None = None) -> Canvases:
    """The under-tray dice (each through `variants` cameras, the last `clean` of them on the denoised copy),
    the reader's false candidates on those frames (`undertray_data.dice_and_phantoms`; the learned finder's
    from `finder`, the shipped finder-under when None), and `render_frames` frames of the set drawn by
    vision/render.py (a family's shared among its members)."""
    rng = np.random.default_rng([seed, 31])
    parts = [ud.dice_and_phantoms(rows, side, variants, finder_from(finder), clean)]
    members = member_ids(set_id, rows)
    for member in members if render_frames else ():
        parts.append(render_canvases(max(1, render_frames // len(members)), side, rng,
                                     dice_set=get_set(spec(member)), under_share=UNDER_SHARE.get(set_id, 0.5)))
    if set_id in FAMILIES and render_frames:
        for _ in range(render_frames // SHUFFLED_FRAMES):
            parts.append(render_canvases(SHUFFLED_FRAMES, side, rng, dice_set=get_set(shuffled_member(members, rng)),
                                         under_share=UNDER_SHARE.get(set_id, 0.5)))
    return Canvases.join(parts)


def finder_from(path: Path | None) -> DieDetector | None:
    """The learned finder whose false boxes are learnt as "no die": a finder file (.onnx beside its .json), or
    the shipped finder-under. Why a choice: a network trained beside one finder never saw the phantoms another
    proposes, and reads some of them as a certain face (docs/dice-sets.md, seventeenth session: white squares
    of the sheet read as a certain 3), so a finder is shipped after the networks trained beside it."""
    if path is None:
        return load_detector("finder-under")
    return DieDetector(path, json.loads(path.with_suffix(".json").read_text(encoding="utf-8")))


def finder_record(path: Path | None) -> dict:
    """Which finder's phantoms the network learnt, for its JSON."""
    onnx_path = path or MODELS / "finder-under.onnx"
    return {"file": onnx_path.name, "sha256": hashlib.sha256(onnx_path.read_bytes()).hexdigest()}


SHUFFLED_FRAMES = 2   # render.py frames drawn of each shuffled member (`shuffled_member`)


def shuffled_member(members: list[str], rng: np.random.Generator) -> dict:
    """A made-up member of a family: each face an icon drawn at random from the trained members' icons, with
    its own index as the corner number. Why: on a real hero three faces share an icon, and the icon alone
    names the face of every hero the network trains on; a hero it never saw is read by the number alone, so
    the network must learn the number, not which icon goes with which face."""
    icons = sorted({part for m in members for f in spec(m)["faces"]
                    for part in f["glyph"].split("+") if not part.startswith("corner:")})
    faces = [{"index": i, "name": f"face{i}", "value": i,
              "glyph": f"{icons[int(rng.integers(len(icons)))]}+corner:{i}"} for i in range(1, 7)]
    return {"id": "dicethrone:shuffled", "name": "shuffled", "kind": "icons", "shape": "square", "faces": faces,
            "opposite": {str(i): 7 - i for i in range(1, 7)}}


def held_back(rows: list, s: Setup) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The held-back frames' dice cut as the reader cuts them (normalised), their classes and looks."""
    crops, y, looks = held_back_crops(rows, s)
    return normalise_batch(crops, s.norm), y, looks


def held_back_crops(rows: list, s: Setup) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The held-back frames' dice cut as the reader cuts them (as cut, not normalised), their classes, and
    each die's look (`undertray_data.looks_of`: the grainy renders, their denoised copies), look by look."""
    rows_by_look = ud.looks_of(rows)
    parts = [ud.die_crops(look_rows, lambda img, box: crop_patch(img, box, pad=s.pad, size=s.size))
             for look_rows in rows_by_look.values()]
    looks = np.array([look for look, (_, y) in zip(rows_by_look, parts, strict=True) for _ in y],
                     dtype=object)
    if not parts:
        return np.zeros((0, s.size, s.size, 3), np.uint8), np.zeros(0, np.int64), looks
    x = np.concatenate([x.reshape(-1, s.size, s.size, 3) for x, _ in parts])
    return x, np.concatenate([y for _, y in parts]), looks


def fitted(logits: np.ndarray, y: np.ndarray, looks: np.ndarray, silent_aim: float, bound: float,
           none_is_missed: bool = False) -> tuple[float, float, dict]:
    """Temperature, certainty level and figures: the level is the higher of the one at which held-back
    wrong-and-sure stays within `silent_aim` and the one the held-back dice vouch for within `bound`
    (`calibration.vouched_threshold`), held on all the held-back dice and on each look's own
    (`calibration.by_look`: a denoised copy is the same die again, so counted together the copies doubled the
    wrong dice the aim allowed); too few held-back dice vouch for no level below the top. `none_is_missed`: a
    die the network calls "not a die" is not counted wrong (`calibration.misread`), since the reader never
    makes a die certain on that word (`vision.symbolnet.joined` leaves the templates' reading unsure,
    `_alone` drops the box)."""
    temp, _, figs = calibrate(logits, y, silent_aim)
    p = softmax(logits / temp)
    conf, wrong = p.max(1), misread(p.argmax(1), y, CLASSES.index("none") if none_is_missed else None)
    vouched = vouched_threshold(conf, wrong, bound, np.linspace(0.9, TOP, 200))
    level = level_by_look(conf, wrong, looks, silent_aim, bound, MIN_UNDER_DICE, TOP)
    sure = conf >= level
    return temp, level, {**figs, "vouched_at": vouched, "bound": bound, "none_is_missed": none_is_missed,
                         "certain_at_level": float(sure.mean()),
                         "silent_at_level": float((sure & wrong).mean()),
                         "dice_by_look": {str(k): int((looks == k).sum()) for k in dict.fromkeys(looks)}}


def recalibrate(path: Path, seeds: str, bound: float, silent_aim: float, none_is_missed: bool = False
                ) -> None:
    """Fit a trained model's temperature and level again on the frames of `seeds` it never trained on
    (`undertray_data.never_trained`: the held-back fifth, and seeds rendered after it was trained) by the rule
    of `fitted`, without training it again; the JSON is rewritten."""
    ud.refuse_measure_seeds(seeds)
    meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    s = Setup(size=int(meta["size"]), pad=float(meta["pad"]), norm=str(meta["norm"]))
    factor = meta["trained_on"]["held_out_factor"]
    rows = symbol_rows(seeds, lambda r: not factor or not ud.factor_matches(r, factor), meta["set"])
    never = ud.never_trained(rows, meta["trained_on"]["undertray_frames"])
    x, y, looks = held_back(ud.with_denoised(never, int(meta["trained_on"].get("clean_variants", 0))), s)
    clf = FaceClassifier(path, {**meta, "temperature": 1.0})
    clf.net.setInput(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
    temp, level, figs = fitted(clf.net.forward("logits"), y, looks, silent_aim, bound, none_is_missed)
    meta |= {"temperature": temp, "certain_at": level, "calibration": {**figs, "seeds": seeds}}
    path.with_suffix(".json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    print(f"recalibrated {path.name} on {len(y)} held-back dice: T={temp:.2f} certain_at={level:.4f} {figs}")


def fit_turns(path: Path, seeds: str, aim: float) -> None:
    """Fit a trained network's level for the mean of a die's four quarter turns (`turns_certain_at`:
    `vision.symbolnet.with_network`'s turns, sure only with the room) on the frames of `seeds` it never
    trained on, its own temperature and level kept (`train_reader_undertray.turns_level`: the lowest level at
    which at most `aim` of the held-back dice are sure of a wrong face). Why apart from `recalibrate`: the
    frames the shipped network's level was fitted on need not be at hand, and a few hundred dice could not
    vouch for a level of their own; the JSON gains `turns_certain_at` and `turns_calibration`."""
    ud.refuse_measure_seeds(seeds)
    meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    s = Setup(size=int(meta["size"]), pad=float(meta["pad"]), norm=str(meta["norm"]))
    factor = meta["trained_on"]["held_out_factor"]
    rows = symbol_rows(seeds, lambda r: not factor or not ud.factor_matches(r, factor), meta["set"])
    never = ud.never_trained(rows, meta["trained_on"]["undertray_frames"])
    clean = int(meta["trained_on"].get("clean_variants", 0))
    crops, y, looks = held_back_crops(ud.with_denoised(never, clean), s)
    clf = FaceClassifier(path, {**meta, "temperature": 1.0})
    logits = dnn_logits(clf, normalise_batch(crops, s.norm))
    turned = [dnn_logits(clf, normalise_batch(t, s.norm)) for t in turned_crops(crops)]
    temp, level = float(meta["temperature"]), float(meta["certain_at"])
    at = turns_by_look(logits, turned, y, looks, temp, level, aim)
    figs = {"seeds": seeds, "dice": len(y), "aim": aim, **turns_figures(logits, turned, y, temp, level, at)}
    meta |= {"turns_certain_at": at, "turns_calibration": figs}
    path.with_suffix(".json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    print(f"{path.name}: turns' level {at} on {len(y)} held-back dice (seeds {seeds}): {figs}")


def turns_figures(plain: np.ndarray, turned: list[np.ndarray], y: np.ndarray, temp: float, level: float,
                  turns_at: float | None) -> dict:
    """Right / sure-right / sure-wrong shares of held-back dice read once, and read in four turns where unsure
    (sure at `turns_at` there), for the JSON and the log."""
    p, mean, plain_sure, again = turns_mean(plain, turned, temp, level)
    face = np.where(again, mean.argmax(1), p.argmax(1))
    sure = plain_sure | (again & (mean.max(1) >= (turns_at if turns_at is not None else np.inf)))
    plain_right = p.argmax(1) == y
    return {"right": float(plain_right.mean()), "sure_right": float((plain_sure & plain_right).mean()),
            "turns_right": float((face == y).mean()), "turns_sure_right": float((sure & (face == y)).mean()),
            "turns_sure_wrong": float((sure & (face != y)).mean())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", default="kingoftokyo", help="the symbol set the renders hold, or a family: "
                    + ", ".join(FAMILIES))
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--size", type=int, default=None, help="the network's input side (px; default by set: RECIPES)")
    ap.add_argument("--convs", default="", help="the convolutions' widths, e.g. 32,64,96 (default by set: RECIPES)")
    ap.add_argument("--separable", action=argparse.BooleanOptionalAction, default=None,
                    help="every conv after the first split into a per-channel 3x3 and a 1x1 (Setup.separable; "
                         "default by set: RECIPES)")
    ap.add_argument("--render-frames", type=int, default=400, help="frames of the set drawn by vision/render.py")
    ap.add_argument("--train-seeds", default=None,
                    help=f"default {ud.SYMBOL_TRAIN_SEEDS} ({ud.DT_TRAIN_SEEDS} for dicethrone)")
    ap.add_argument("--variants", type=int, default=4, help="camera faults drawn per under-tray render")
    ap.add_argument("--clean-variants", type=int, default=0,
                    help="of the --variants, this many drawn on the frames' denoised copies "
                         "(training/denoise_undertray.py), whose held-back frames the level is fitted on too")
    ap.add_argument("--hold-out", default="", help="leave out every training frame with this factor (KEY=PREFIX)")
    ap.add_argument("--silent-aim", type=float, default=0.002)
    ap.add_argument("--bound", type=float, default=0.02,
                    help="the error rate the held-back dice must vouch for at the certainty level (rule of three)")
    ap.add_argument("--none-is-missed", action="store_true",
                    help="the level does not count a die the network calls 'not a die' as wrong (`fitted`)")
    ap.add_argument("--recalibrate", type=Path, default=None, help="fit this model's level again, no training")
    ap.add_argument("--fit-turns", type=Path, default=None, help="fit this model's level for the mean of "
                    "four quarter turns on the --train-seeds frames it never trained on (`fit_turns`)")
    ap.add_argument("--turns-aim", type=float, default=0.001, help="wrong-but-sure share --fit-turns allows")
    ap.add_argument("--finder", type=Path, default=None, help="a learned finder file (.onnx beside its "
                    ".json) whose false boxes are learnt as no die (default: the shipped finder-under)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--frame", type=float, nargs=2, default=Setup.frame, metavar=("LO", "HI"),
                    help="the range the box's scale is drawn from in training (the reader's boxes reach 0.75 "
                         "of a die's face)")
    ap.add_argument("--name", default="")
    ap.add_argument("--out", type=Path, default=SHIPPED)
    args = ap.parse_args(argv)
    recipe = {"size": 32} | RECIPES.get(args.set, {})
    recipe["size"] = args.size or recipe["size"]
    if args.convs:
        recipe["convs"] = tuple(int(c) for c in args.convs.split(","))
    if args.separable is not None:
        recipe["separable"] = args.separable
    args.train_seeds = args.train_seeds or (FAMILIES[args.set][2] if args.set in FAMILIES else ud.SYMBOL_TRAIN_SEEDS)
    if set(ud.folders(args.train_seeds)) & set(ud.folders(test_seeds(args.set))):
        raise SystemExit(f"--train-seeds {args.train_seeds} overlaps the test seeds {test_seeds(args.set)}")
    if args.recalibrate:
        recalibrate(args.recalibrate, args.train_seeds, args.bound, args.silent_aim, args.none_is_missed)
        return 0
    if args.fit_turns:
        fit_turns(args.fit_turns, args.train_seeds, args.turns_aim)
        return 0
    name = args.name or f"{args.set}-under"
    torch.set_num_threads(args.threads)
    t0 = time.time()
    keep = (lambda r: not ud.factor_matches(r, args.hold_out)) if args.hold_out else (lambda r: True)
    rows = symbol_rows(args.train_seeds, keep, args.set)
    if not rows:
        raise SystemExit(f"no finished render folder of {args.set} in seeds {args.train_seeds} (make blender-undertray)")
    train_rows = [fr for fr in rows if not ud.is_calibration(fr[1])]
    calib_rows = ud.with_denoised([fr for fr in rows if ud.is_calibration(fr[1])], args.clean_variants)
    data = training_data(train_rows, args.set, args.render_frames, args.variants, args.seed,
                         canvas_side(recipe["size"]), args.clean_variants, args.finder)
    s = Setup(epochs=args.epochs, render_weight=0.3, epoch_size=len(data), frame=tuple(args.frame), **recipe)
    print(f"data ({time.time() - t0:.0f} s): {len(data)} canvases from {len(train_rows)} frames, "
          f"classes {np.bincount(data.y).tolist()}", flush=True)
    net = train(data, s, args.seed)
    crops, y, looks = held_back_crops(calib_rows, s)
    x = normalise_batch(crops, s.norm)
    logits = logits_of(net, x)
    temp, certain_at, figs = fitted(logits, y, looks, args.silent_aim, args.bound, args.none_is_missed)
    print(f"calibration on {len(y)} held-back dice: T={temp:.2f} certain_at={certain_at:.4f} {figs}", flush=True)
    seen = {f.name: sum(1 for g, _ in rows if g == f) for f in ud.folders(args.train_seeds, finished=True)}
    meta = {"classes": CLASSES, "kind": "icons", "set": args.set, "mount": "under", "size": s.size, "pad": s.pad,
            "norm": s.norm, "temperature": temp, "certain_at": certain_at, "calibration": figs, "seed": args.seed,
            "epochs": s.epochs, "setup": repr(s),
            "trained_on": {"undertray_frames": seen, "render_frames": args.render_frames,
                           "undertray_variants": args.variants, "clean_variants": args.clean_variants,
                           "denoised_frames": len(ud.denoised_rows(rows)) if args.clean_variants else 0,
                           "held_out_seeds": test_seeds(args.set),
                           "held_out_factor": args.hold_out or None, "finder": finder_record(args.finder)},
            "train_seconds": round(time.time() - t0, 1), "made_with": made_with()}
    meta |= family_meta(args.set, rows) if args.set in FAMILIES else set_meta(args.set)
    export(net, s, args.out, name, meta, crops, x, logits, len(y))   # every held-back die is from below
    print(f"wrote {args.out / name}.onnx in {time.time() - t0:.0f} s")
    return 0


def set_meta(set_id: str) -> dict:
    """A one-set network's faces (the reader uses it only for these very faces) and sources."""
    return {"faces": [f.name for f in get_set(spec(set_id)).faces],
            "sources": "King of Tokyo dice under a clear tray rendered by Blender in eight printings of the "
                       "project's own drawing (training/blender_undertray.py, training/blender_undertray_glyphs.py); "
                       "the faces drawn by vision/render.py. No photo: none of symbol dice exists in the datasets."}


def family_meta(set_id: str, rows: list) -> dict:
    """A family network's members: the prefix of the sets it reads (by the corner number, `vision.symbolnet`),
    the heroes it trained on and the held-out ones (drawn only in the test seeds), and its sources."""
    prefix = FAMILIES[set_id][0]
    trained = [m.removeprefix(prefix) for m in member_ids(set_id, rows)]
    if set(trained) & set(DT_HELD_OUT):
        raise SystemExit(f"held-out heroes {DT_HELD_OUT} in the training frames: {trained}")
    return {"family": prefix, "faces": None, "faces_by": "corner number (face index = the number printed)",
            "heroes_trained": trained, "heroes_held_out": list(DT_HELD_OUT),
            "heroes_unseen": sorted(set(DT_FACES) - set(trained)), "printing_held_out": DT_HELD_OUT_PRINTING,
            "sources": "Dice Throne heroes' dice under a clear tray rendered by Blender in eight printings of the "
                       "project's own drawing of each hero's icons and corner numbers (training/blender_undertray.py, "
                       "training/blender_undertray_glyphs.py); the trained heroes' faces drawn by vision/render.py. "
                       "No photo: none of Dice Throne dice exists in the datasets."}


if __name__ == "__main__":
    raise SystemExit(main())

