"""Dice this box has learnt: crops of confirmed dice kept in the state directory, and the reader's memory.

Every roll a phone confirms or corrects hands the tray's crops of its dice, with the faces the players
confirmed, to `LearntDice.keep`; each crop is written as a small PNG under
`STATE_DIR/learnt/<set>/<mount>/<top face index>-<stamp>[-<colour>].png` (face 0: a die of a game that hides its
rolls, kept for its colour only; vision.learnt_colours) (written under a temporary name, fsync'd,
then renamed: a power cut leaves a whole file or none) and added to the `vision.memory.Memory` the reader
consults from the next roll on. At start the files are read back into the memory, so what the box learnt
survives a restart; a file that cannot be read is skipped with a logged message, never a crash.

Under the tray a confirmed die may also say which face the reader saw on the glass (`Confirmed.glass`):
those pairs go to `device.opposites`, which learns the opposite map of the players' own dice.

Bounded, but not by one evening: at most MAX_PER_FACE crops per face of a set (200: a d6's 1,200 crops of
about 5 KB are a few MB on the card). Past the bound a crop drawn at random from the older half of that face
goes, never one of the newer half: the memory keeps the dice as they look now (a new set under the same
name, tonight's light) and a thinning sample of earlier nights (other lights, other players' throws), where
dropping the oldest first would forget every earlier night once one long night had filled the face. The
memory itself stays quick whatever the store holds (vision.memory fits its head on the newest examples). A full card while keeping a crop loses the crop, not
the roll: the roll is in the store before anything is learnt from it, and the error is logged and returned.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.dicesets import DiceSet, get_set
from vision.memory import Memory

from .atomic import write_atomic as _write_atomic
from .dice_sets import spec
from .opposites import Opposites
from .taught import set_folder

log = logging.getLogger("dicesight.learnt")

MAX_PER_FACE = 200  # crops kept per face of a set (was 12: full after 10 photos of a table, see the module doc)


@dataclass(frozen=True)
class Confirmed:
    """One die of a confirmed roll: its crop as the tray cut it, its set, and the top face index players gave
    (None: a game that hides its faces teaches only the colour); `glass`: under the tray, the face the reader saw
    on the glass when it was sure of it (device.opposites); `colour`: the body colour players gave, in a set
    that tells dice apart by colour (vision.learnt_colours)."""

    set_id: str
    crop: np.ndarray
    face: int | None
    glass: int | None = None
    colour: str | None = None


def face_index(ds: DiceSet, die: Any) -> int | None:
    """The top face index a confirmed die names (a bare value, or `{"value", "face"}`), or None when it does
    not name exactly one face of the set (faces sharing a symbol are told apart by their value)."""
    if isinstance(die, bool):
        return None
    if isinstance(die, int):
        die = {"value": die}
    elif isinstance(die, str):  # a face by its symbol (Mage Wars' attack faces: "2*")
        die = {"face": die}
    if not isinstance(die, dict):
        return None
    name, value = die.get("face"), die.get("value")
    if name is not None:
        hits = [f.index for f in ds.faces if f.name == name and (value is None or f.value == value)]
    elif isinstance(value, int) and not isinstance(value, bool):
        hits = [f.index for f in ds.faces if f.value == value]
        if not hits and 1 <= value <= ds.n:
            hits = [value]  # no face carries that number: a side entered by hand (King of Tokyo's 4 = heart)
    else:
        hits = []
    return hits[0] if len(hits) == 1 else None


class LearntDice:
    """See the module doc. `root` is the state directory; `mount` the camera's (crops from one mount are
    not used for the other)."""

    def __init__(self, root: Path, mount: str = "under", max_per_face: int = MAX_PER_FACE) -> None:
        self.root = Path(root) / "learnt"
        self.mount = mount
        self.max_per_face = max_per_face
        self.memory = Memory(mount=mount)
        # under the tray, each confirmed die whose glass face the reader named pairs two opposite faces
        self.opposites = Opposites(root)
        self._lock = threading.Lock()
        self._rng = random.Random()
        # set id -> face (0: none) -> (file, the memory's key of its example, its colour), oldest first
        self._files: dict[str, dict[int, list[tuple[Path, int, str | None]]]] = {}
        self._names: dict[str, str] = {}  # folder name -> set id (set.txt in each folder)
        self._load()

    def _dir(self, set_id: str) -> Path:
        return self.root / set_folder(set_id) / self.mount

    def _load(self) -> None:
        """Read every kept crop back into the memory; a damaged file is skipped and logged."""
        if not self.root.is_dir():
            return
        for folder in sorted(p for p in self.root.iterdir() if p.is_dir()):
            try:
                set_id = (folder / "set.txt").read_text(encoding="utf-8").strip()
            except OSError:
                log.warning("learnt dice: %s has no readable set.txt; skipped", folder)
                continue
            d = folder / self.mount
            if not set_id or not d.is_dir():
                continue
            for p in sorted(d.glob("*.png"), key=_stamp):
                self._load_crop(set_id, p)
        for pattern in ("*/*/.*.tmp", "*/.*.tmp"):  # files cut short by a power cut: never renamed, not kept
            for tmp in self.root.glob(pattern):
                tmp.unlink(missing_ok=True)

    def _load_crop(self, set_id: str, p: Path) -> None:
        """One kept crop back into the memory; a damaged file is skipped and logged."""
        try:
            face, colour = _face_and_colour(p)
            img = cv2.imdecode(np.frombuffer(p.read_bytes(), np.uint8), cv2.IMREAD_COLOR)
            if img is None:
                raise ValueError("not a readable PNG")
            key = self.memory.add(set_id, img, face or None, colour)
        except (OSError, ValueError) as err:
            log.warning("learnt dice: skipped the damaged crop %s (%s)", p, err)
            return
        self._files.setdefault(set_id, {}).setdefault(face, []).append((p, key, colour))

    def keep(self, dice: list[Confirmed]) -> int:
        """Keep the crops of confirmed dice and add them to the memory; how many were kept. OSError (a full
        card...) propagates after the dice already kept, for the caller to report: the roll is safe."""
        kept = 0
        with self._lock:
            for die in dice:
                d = self._dir(die.set_id)
                d.mkdir(parents=True, exist_ok=True)
                label = d.parent / "set.txt"
                if not label.exists():
                    _write_atomic(label, die.set_id.encode("utf-8"))
                ok, buf = cv2.imencode(".png", die.crop)
                if not ok:
                    continue
                path = d / _file_name(die.face, time.time_ns(), die.colour)
                _write_atomic(path, buf.tobytes())
                key = self.memory.add(die.set_id, die.crop, die.face, die.colour)
                files = self._files.setdefault(die.set_id, {}).setdefault(die.face or 0, [])
                files.append((path, key, die.colour))
                kept += 1
                while len(files) > self.max_per_face:
                    self._drop_one(die.set_id, files)
            for set_id in {d.set_id for d in dice}:
                self.opposites.record(set_id, [(d.glass, d.face) for d in dice
                                               if d.set_id == set_id and d.glass is not None and d.face is not None])
        for set_id in {d.set_id for d in dice}:
            self.memory.head(set_id)  # fitted here, on the phone's request, not on the camera's next read
        return kept

    def _drop_one(self, set_id: str, files: list[tuple[Path, int, str | None]]) -> None:
        """Drop one crop of a face over the bound, from the card and the memory: one at random from the older
        half (the module doc says why)."""
        path, key, _ = files.pop(self._rng.randrange(max(1, len(files) // 2)))
        path.unlink(missing_ok=True)
        self.memory.remove(set_id, key)

    def forget(self, set_id: str) -> int:
        """Forget every die learnt of a set (its files and its memory); how many were forgotten."""
        with self._lock:
            faces = self._files.pop(set_id, {})
            self.memory.forget(set_id)
            n = 0
            for files in faces.values():
                for p, *_ in files:
                    p.unlink(missing_ok=True)
                    n += 1
            return n

    def counts(self) -> dict[str, dict[str, Any]]:
        """{set id: {"dice": how many learnt, "faces": {top face index: how many}}}, for the page."""
        with self._lock:
            out = {}
            for set_id, faces in sorted(self._files.items()):
                per = {str(f): len(files) for f, files in sorted(faces.items()) if files and f}
                dice = sum(len(files) for files in faces.values())
                if dice:
                    out[set_id] = {"dice": dice, "faces": per}
                    colours = Counter(c for files in faces.values() for *_, c in files if c)
                    if colours:
                        out[set_id]["colours"] = dict(sorted(colours.items()))
            return out


def confirmed_dice(crops: list[tuple[Any, ...] | None], dice: list[Any],
                   picks: list[int | None], faces: bool = True) -> list[Confirmed]:
    """The dice of a confirmed roll that can be learnt: `dice[i]` (what the players confirmed) came from the
    tray die `picks[i]` (None: a die entered by hand), whose (set id, crop[, glass face]) is `crops[picks[i]]`.
    Each with its colour where the set tells dice apart by colour (`colour_of`); without `faces` (a game that
    hides its rolls) only those, and only their colours."""
    out = []
    for die, k in zip(dice, picks, strict=False):
        if k is None or not 0 <= k < len(crops) or crops[k] is None:
            continue
        set_id, crop, *glass = crops[k]  # type: ignore[misc]
        try:
            ds = get_set(spec(set_id))
        except KeyError:
            continue
        face, colour = face_index(ds, die) if faces else None, colour_of(ds, die)
        if face is not None or colour is not None:
            out.append(Confirmed(ds.id, crop, face, glass[0] if glass and face is not None else None, colour))
    return out


def colour_of(ds: DiceSet, die: Any) -> str | None:
    """The body colour a confirmed die names, where its set tells dice apart by colour and has that one."""
    colour = die.get("colour") if isinstance(die, dict) else None
    return colour if isinstance(colour, str) and colour in ds.colours else None


def _file_name(face: int | None, stamp: int, colour: str | None) -> str:
    """A kept crop's file name: `<face>-<stamp>[-<colour>].png`, face 0 for a die kept for its colour only."""
    return f"{face or 0}-{stamp}" + (f"-{colour}" if colour else "") + ".png"


def _face_and_colour(p: Path) -> tuple[int, str | None]:
    """The face (0: none) and colour a kept crop's file name (`_file_name`) gives; ValueError if it gives none."""
    parts = p.stem.split("-")
    face = int(parts[0])
    colour = parts[2] if len(parts) > 2 and parts[2].isalpha() else None
    if face < 0 or (face == 0 and colour is None):
        raise ValueError(f"{p.name} names no face and no colour")
    return face, colour


def _stamp(p: Path) -> int:
    try:
        return int(p.stem.split("-")[1])
    except (IndexError, ValueError):
        return 0
