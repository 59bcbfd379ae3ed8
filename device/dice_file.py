"""Dice-set files: a table's own dice as JSON (`dicesight read --dice FILE.json`, `camera.dice_files`).

Why: a game's description says how its dice are printed, and for the symbol sets which face lies opposite
which is an assumption (no rulebook prints it); a player's dice may differ. A file states the dice a table
really has: the faces as the games give them (`engine.core.DiceSetSpec`: name, value, glyph), the opposite
map, the body colours, and optionally a picture of each face, which the reader then uses as taught faces.
Format and example: docs/dice-sets.md, "A table's own dice: dice-set files".

Every fault of a file is one sentence naming the file (`DiceFileError`), for the command line to print and
exit with status 2: never a traceback, never a set half used.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.dicesets import DiceSet, DiceSetError
from vision.faces import N
from vision.teach import TeachError, face_template, from_png_array

KEYS = ("id", "name", "faces", "opposite", "kind", "shape", "colours")
FACE_KEYS = ("index", "name", "value", "glyph", "label", "picture")


class DiceFileError(ValueError):
    """A dice-set file that cannot be used; `str()` is one sentence naming the file."""


@dataclass(frozen=True, eq=False)  # one loaded file is itself: its pictures are arrays
class DiceFile:
    """A loaded file: the set as a `DiceSetSpec` dict, and each pictured face's template for `mount`."""

    path: Path
    spec: dict[str, Any]
    mount: str
    pictures: dict[int, np.ndarray] = field(default_factory=dict)  # face shown -> its ink template

    @property
    def id(self) -> str:
        return str(self.spec["id"])

    def taught(self, ds: DiceSet) -> dict[int, list[np.ndarray]] | None:
        """The pictures as the reader's taught faces ({top face index: [template]}), or None without pictures.
        A picture shows the face turned to the camera: under the tray that face lies on the glass, so its
        template stands for the face opposite it, through `ds`'s map (the file's, or the one the box learnt)."""
        if not self.pictures:
            return None
        return {(ds.top_of(f) if self.mount == "under" else f): [t] for f, t in self.pictures.items()}


def is_file_name(dice: str) -> bool:
    """Whether `--dice` names a file rather than a set id (set ids hold no "/" and do not end in .json)."""
    return dice.lower().endswith(".json") or "/" in dice


def load(path: Path | str, mount: str = "under") -> DiceFile:
    """The dice-set file at `path`, checked whole; DiceFileError (one sentence) for any fault."""
    path = Path(path)
    data = _json(path)
    spec = _spec(path, data)
    try:
        ds = DiceSet.from_spec(spec)
    except DiceSetError as err:
        raise DiceFileError(f"{path}: {err}.") from None
    _check_pairing(path, ds)
    return DiceFile(path, spec, mount, _pictures(path, data["faces"], mount))


def _json(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DiceFileError(f"{path}: no such dice-set file.") from None
    except (OSError, UnicodeDecodeError) as err:
        raise DiceFileError(f"{path}: the dice-set file cannot be read ({err}).") from None
    try:
        data = json.loads(text)
    except ValueError as err:
        raise DiceFileError(f"{path} is not JSON ({err}).") from None
    if not isinstance(data, dict):
        raise DiceFileError(f"{path} must hold one JSON object (a dice set), not a {type(data).__name__}.")
    return data


def _spec(path: Path, data: Mapping[str, Any]) -> dict[str, Any]:
    """The file as a `DiceSetSpec` dict (pictures left out, a plain-string name made a Text)."""
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise DiceFileError(f"{path}: unknown key {unknown[0]!r} (a dice set has {', '.join(KEYS)}).")
    faces = data.get("faces")
    if not isinstance(faces, list) or not faces:
        raise DiceFileError(f"{path}: 'faces' must list the faces of the die (name, value, glyph).")
    for pos, face in enumerate(faces, start=1):
        if isinstance(face, dict) and set(face) - set(FACE_KEYS):
            key = sorted(set(face) - set(FACE_KEYS))[0]
            raise DiceFileError(f"{path}: face {pos} has an unknown key {key!r} (a face has {', '.join(FACE_KEYS)}).")
    if "opposite" not in data:
        raise DiceFileError(f"{path}: 'opposite' is missing: say which face lies opposite which "
                            "(face numbers, e.g. {\"1\": 6, \"6\": 1, ...}).")
    name = data.get("name") or data.get("id")
    spec = {k: v for k, v in data.items() if k != "faces"}
    spec["name"] = {"en": name} if isinstance(name, str) else name
    spec["faces"] = [{k: v for k, v in f.items() if k != "picture"} if isinstance(f, dict) else f for f in faces]
    return spec


def _check_pairing(path: Path, ds: DiceSet) -> None:
    """The opposite map must pair every face with one other face (under the tray every face read depends on
    it; `DiceSet.from_spec` already refused a map that is not symmetric)."""
    for f in ds.faces:
        other = ds.opposite.get(f.index)
        if other is None:
            raise DiceFileError(f"{path}: 'opposite' is not a pairing of the faces: face {f.index} ({f.name}) "
                                "has no opposite face.")
        if other == f.index:
            raise DiceFileError(f"{path}: 'opposite' is not a pairing of the faces: face {f.index} ({f.name}) "
                                "is opposite itself.")


def _pictures(path: Path, faces: list[dict[str, Any]], mount: str) -> dict[int, np.ndarray]:
    """Each pictured face's template. A grey picture is a template as `dicesight teach --templates` keeps it
    (the face's ink white on black); a colour picture is a photo of the die alone, as this box's camera sees
    it, whose face is found as teaching finds it. Pictures of some faces only would leave the others
    unreadable (taught faces replace the drawn ones), so it is every face or none."""
    named = {pos: f["picture"] for pos, f in enumerate(faces, start=1) if "picture" in f}
    if not named:
        return {}
    missing = [str(pos) for pos in range(1, len(faces) + 1) if pos not in named]
    if missing:
        raise DiceFileError(f"{path}: give a picture of every face or of none (faces {', '.join(missing)} have "
                            "none).")
    return {pos: _template(path, pos, pic, mount) for pos, pic in named.items()}


def _template(path: Path, pos: int, picture: Any, mount: str) -> np.ndarray:
    if not isinstance(picture, str) or not picture:
        raise DiceFileError(f"{path}: the picture of face {pos} must be a file name (relative to the file).")
    pic = (path.parent / picture)
    data = pic.read_bytes() if pic.is_file() else b""
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED) if data else None
    if img is None or img.size == 0:
        why = "there is no such file" if not pic.is_file() else "it is not a picture OpenCV can read"
        raise DiceFileError(f"{path}: the picture of face {pos} ({picture}) does not load: {why}.")
    if img.ndim == 2 or img.shape[2] == 1:
        return from_png_array(cv2.resize(img, (N, N), interpolation=cv2.INTER_AREA))
    try:
        return face_template(cv2.cvtColor(img, cv2.COLOR_BGRA2BGR) if img.shape[2] == 4 else img, mount)
    except TeachError as err:
        raise DiceFileError(f"{path}: the picture of face {pos} ({picture}) shows no one die to learn ({err}).") \
            from None
