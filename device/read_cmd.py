"""`dicesight read IMAGE... --dice SET|FILE.json --mount over|under [--json] [--debug-out DIR] [--state-dir S]`.

`--dice` names a set by id (resolved through the games' descriptions) or a dice-set file (device.dice_file):
a bad file is one sentence and exit status 2. The set is read as the box would read it: with the opposite map
the box learnt of those dice when teaching (device.opposites), and the faces taught on it (else the file's
face pictures). One line per image: `{"image": PATH, "dice": [reading, ...], "ms": float}` with --json, a short human line
otherwise. A file that cannot be read (missing, empty, corrupt, not an image) gets its own error line
(`{"image": PATH, "error": "..."}` with --json) and makes the exit code 1; the other files are still read.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.debug import die_crops, draw_readings
from vision.dicesets import DiceSet, get_set
from vision.memory import Memory
from vision.reader import read_dice

from .dice_file import is_file_name, load
from .dice_sets import spec
from .opposites import Opposites
from .taught import load_taught


def resolve(dice: str, mount: str, state_dir: Path) -> tuple[DiceSet, dict | None]:
    """The set `--dice` names, as the box reads it, and its taught faces (None: the drawn ones). Raises
    DiceFileError for a bad file, KeyError for an unknown id (both one sentence)."""
    found = load(dice, mount) if is_file_name(dice) else None
    described = found.spec if found is not None else spec(dice)
    ds = Opposites(state_dir).apply(described) if state_dir.is_dir() else get_set(described)
    taught = load_taught(state_dir, ds.id, mount) if state_dir.is_dir() else None
    return ds, taught or (found.taught(ds) if found is not None else None)


def _load(path: str) -> np.ndarray:
    p = Path(path)
    if not p.exists():
        raise ValueError("no such file")
    if p.is_dir():
        raise ValueError("is a directory, not an image")
    data = p.read_bytes()
    if not data:
        raise ValueError("the file is empty")
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None or img.size == 0:
        raise ValueError("not a readable image (corrupt or unsupported format)")
    return img


def _human(path: str, readings: list, ms: float) -> str:
    if not readings:
        return f"{path}: no dice found ({ms:.1f} ms)"
    parts = []
    for r in readings:
        txt = r.face if r.face != str(r.value) else str(r.value)
        parts.append(f"{txt}{'' if r.certain else '?'} ({r.colour})")
    return f"{path}: {len(readings)} dice: " + ", ".join(parts) + f" ({ms:.1f} ms)"


def refuse(msg: str, as_json: bool) -> int:
    """A set that cannot be used: one sentence, exit status 2."""
    if as_json:
        print(json.dumps({"error": msg}), flush=True)
    else:
        print(f"error: {msg}", file=sys.stderr)
    return 2


def run(images: list[str], dice: str | DiceSet, mount: str, as_json: bool, debug_out: str | None,
        taught: dict | None = None, memory: Memory | None = None) -> int:
    try:
        dice_set = dice if isinstance(dice, DiceSet) else get_set(spec(dice))
    except KeyError as err:
        return refuse(str(err).strip("'\""), as_json)
    if mount not in ("over", "under"):
        print(f"error: --mount must be over or under, not {mount!r}", file=sys.stderr)
        return 2
    out_dir = Path(debug_out) if debug_out else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    status = 0
    for path in images:
        try:
            img = _load(path)
        except (OSError, ValueError) as err:
            status = 1
            if as_json:
                print(json.dumps({"image": path, "error": f"cannot read image: {err}"}), flush=True)
            else:
                print(f"{path}: cannot read image: {err}", file=sys.stderr, flush=True)
            continue
        t0 = time.perf_counter()
        readings = read_dice(img, dice_set, mount, taught=taught, memory=memory)
        ms = (time.perf_counter() - t0) * 1000.0
        if as_json:
            print(json.dumps({"image": path, "dice": [r.to_dict() for r in readings], "ms": round(ms, 2)}),
                  flush=True)
        else:
            print(_human(path, readings, ms), flush=True)
        if out_dir is not None:
            name = Path(path).stem + ".debug.png"
            ok, buf = cv2.imencode(".png", draw_readings(img, readings))
            if ok:
                (out_dir / name).write_bytes(buf.tobytes())
            # one picture per die as the reader boxed it, numbered in reading order
            for i, tile in enumerate(die_crops(img, readings), start=1):
                ok, buf = cv2.imencode(".png", tile)
                if ok:
                    (out_dir / f"{Path(path).stem}.die{i}.png").write_bytes(buf.tobytes())
    return status
