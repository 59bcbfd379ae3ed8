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

from vision.dicesets import Face, get_set
from vision.teach import TeachError, face_template, to_png_array
from vision.watcher import motion_between, small_grey

from . import camera as cameras
from .camera import FrameSource, frames
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
    """Teach every face of `dice_set` from `camera`; the exit code (0: stored; 1: nothing changed; 2: no such
    set). The faces go to a fresh folder that replaces the set's old one only once at least one face is
    taken, so a quit or an unplugged camera never leaves a set half taught."""
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
    tmp = _empty_folder(out.with_name(out.name + ".new"))
    taught = 0
    try:
        say(f"Teaching {ds.name} ({ds.n} faces), camera {mount} the tray. Put ONE die on the tray.")
        for f in ds.faces:
            got = _teach_face(f, ds.n, source, mount, tmp, ask, say)
            if got is None:
                say("Stopped; nothing was changed.")
                return 1
            taught += got
    finally:
        source.close()
    if taught == 0:
        say("No face taught; nothing was changed.")
        return 1
    meta = {"set": ds.name, "mount": mount, "faces": [f.name for f in ds.faces]}
    (tmp / "set.json").write_text(json.dumps(meta), encoding="utf-8")
    _replace(out, tmp)
    say(f"Taught {taught} of {ds.n} faces; stored in {out}.")
    return 0


def _empty_folder(folder: Path) -> Path:
    """`folder`, made if missing, with the pictures of an earlier run that stopped half way removed."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.png"):
        old.unlink()
    return folder


def _teach_face(f: Face, n_faces: int, source: FrameSource, mount: str, tmp: Path, ask: Callable[[str], str],
                say: Callable[[str], None]) -> int | None:
    """One face asked for up to MAX_TRIES times: 1 taken (its templates written to `tmp`), 0 skipped, None:
    the player quit."""
    for _attempt in range(MAX_TRIES):
        try:
            ans = ask(f"Face {f.index}/{n_faces}: put the die with \"{f.name}\" ON TOP, then press Enter "
                      f"(s = skip, q = quit): ").strip().lower()
        except EOFError:
            ans = "q"
        if ans == "q":
            return None
        if ans == "s":
            return 0
        temps = _templates(source, mount, say)
        if temps is None:
            continue
        for k, t in enumerate(temps):
            ok, buf = cv2.imencode(".png", to_png_array(t))
            if ok:
                (tmp / f"face-{f.index}-{k}.png").write_bytes(buf.tobytes())
        say(f"  got \"{f.name}\".")
        return 1
    say(f"  could not take \"{f.name}\" after {MAX_TRIES} tries; skipped.")
    return 0


def _templates(source: FrameSource, mount: str, say: Callable[[str], None]) -> list[np.ndarray] | None:
    """The die's templates from SHOTS still frames, or None (said why: the tray never settled, no die)."""
    shots = _still_frames(source, SHOTS)
    if not shots:
        say("The tray never settled: keep hands away and try again.")
        return None
    try:
        return [face_template(fr, mount) for fr in shots]
    except TeachError as err:
        say(f"{err}; try again.")
        return None


def _replace(out: Path, tmp: Path) -> None:
    """The set's taught folder replaced by the new one (its old pictures removed first)."""
    if out.exists():
        for old in out.iterdir():
            old.unlink()
        out.rmdir()
    tmp.rename(out)
