"""`dicesight teach SET`: record the faces of a dice set from the camera, one face at a time.

The box asks for each face in turn ("put the die with <face> ON TOP, then press Enter"), waits for the
tray to be still, takes the template of the die from a few frames, and stores the templates under
`STATE_DIR/dice/<set>/<mount>/face-<index>-<n>.png`. `load_taught()` gives them back to the reader.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision.dicesets import get_set
from vision.teach import TeachError, face_template, to_png_array
from vision.watcher import motion_between, small_grey

from . import camera as cameras
from .camera import frames
from .dice_sets import spec
from .taught import load_taught, taught_dir

__all__ = ["load_taught", "run", "taught_dir"]  # load_taught/taught_dir: kept importable from here

SHOTS = 3
MAX_TRIES = 3


def _still_frames(source, want: int, max_frames: int = 300) -> list[np.ndarray]:
    """`want` frames taken once the tray has been still for a moment."""
    prev = None
    still_since = None
    got: list[np.ndarray] = []
    for n, fr in enumerate(frames(source)):
        small = small_grey(fr.image)
        moving = prev is not None and motion_between(small, prev) > 0.004
        prev = small
        if moving or still_since is None:
            still_since = fr.t
            got = []
            if moving:
                continue
        if fr.t - still_since >= 0.3:
            got.append(fr.image)
            if len(got) >= want:
                return got
        if n >= max_frames:
            break
    return got


def run(dice_set: str, camera: str, mount: str, state_dir: Path,
        ask: Callable[[str], str] = input, say: Callable[[str], None] = print) -> int:
    try:
        ds = get_set(spec(dice_set))
    except KeyError as err:
        print(f"error: {str(err).strip(chr(34) + chr(39))}", file=sys.stderr)
        return 2
    try:
        source = cameras.open_source(camera)
    except Exception as err:  # noqa: BLE001 - CameraError, or whatever a camera library raises
        print(f"error: cannot open camera {camera!r}: {err}", file=sys.stderr)
        return 1
    out = taught_dir(Path(state_dir), ds.name, mount)
    tmp = out.with_name(out.name + ".new")
    tmp.mkdir(parents=True, exist_ok=True)
    for old in tmp.glob("*.png"):
        old.unlink()
    taught = 0
    try:
        say(f"Teaching {ds.name} ({ds.n} faces), camera {mount} the tray. Put ONE die on the tray.")
        for f in ds.faces:
            for _attempt in range(MAX_TRIES):
                try:
                    ans = ask(f"Face {f.index}/{ds.n}: put the die with \"{f.name}\" ON TOP, then press Enter "
                              f"(s = skip, q = quit): ")
                except EOFError:
                    ans = "q"
                ans = ans.strip().lower()
                if ans == "q":
                    say("Stopped; nothing was changed.")
                    return 1
                if ans == "s":
                    break
                frames = _still_frames(source, SHOTS)
                if not frames:
                    say("The tray never settled: keep hands away and try again.")
                    continue
                try:
                    temps = [face_template(fr, mount) for fr in frames]
                except TeachError as err:
                    say(f"{err}; try again.")
                    continue
                for k, t in enumerate(temps):
                    ok, buf = cv2.imencode(".png", to_png_array(t))
                    if ok:
                        (tmp / f"face-{f.index}-{k}.png").write_bytes(buf.tobytes())
                taught += 1
                say(f"  got \"{f.name}\".")
                break
            else:
                say(f"  could not take \"{f.name}\" after {MAX_TRIES} tries; skipped.")
    finally:
        source.close()
    if taught == 0:
        say("No face taught; nothing was changed.")
        return 1
    meta = {"set": ds.name, "mount": mount, "faces": [f.name for f in ds.faces]}
    (tmp / "set.json").write_text(json.dumps(meta), encoding="utf-8")
    if out.exists():
        for old in out.iterdir():
            old.unlink()
        out.rmdir()
    tmp.rename(out)
    say(f"Taught {taught} of {ds.n} faces; stored in {out}.")
    return 0
