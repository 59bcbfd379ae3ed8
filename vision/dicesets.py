"""Dice sets as data: the reader is handed a set by its caller and knows no game.

The box resolves a set id through the games' own descriptions (`engine.core.DiceSetSpec`, a plain dict) and
passes that dict in; `DiceSet.from_spec` turns it into the small typed form the reader and the renderer use.
Only a plain pip d6 is built in (`PIP_D6`, id "d6"): it names no game and lets `dicesight read --dice d6`
and the demo tray work with nothing else given.

A face has an `index` (1..n: which physical side it is), a `name` (the symbol the game reads: "3", "claw"...),
a game `value` (int or None) and a `glyph` telling the renderer how to draw it ("pips:N", "text:12",
"icon:heart", "blank", "icon:NAME+corner:N"). Under the tray the camera sees the face lying on the glass;
`DiceSet.top_of(bottom_index)` turns it into the top face through the set's opposite-face table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

KINDS = ("pips", "icons", "numerals")
SHAPES = ("square", "pentagon", "triangle")


class DiceSetError(KeyError):
    """A dice set the reader cannot use: an unknown id, or a description with a missing or wrong field.

    A KeyError so that callers that look a set up by name can catch one exception; `str()` is the sentence."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "bad dice set"


@dataclass(frozen=True)
class Face:
    index: int          # 1..n, the physical side
    name: str           # symbol the game reads
    value: int | None   # game value (pips, damage, number); None for a symbol with no number
    glyph: str          # how it is drawn: "pips:N", "text:S", "icon:NAME", "blank", "icon:NAME+text:S"


@dataclass(frozen=True)
class DiceSet:
    """One kind of die as the reader needs it (see `engine.core.DiceSetSpec` for the dict it comes from)."""

    id: str
    faces: tuple[Face, ...]
    opposite: dict[int, int] = field(default_factory=dict)  # face index -> index of the opposite face
    kind: str = "icons"         # "pips" (count), "icons" or "numerals" (recognised by shape)
    shape: str = "square"       # outline of one face as seen: "square", "pentagon" (d12), "triangle"
    colours: tuple[str, ...] = ()  # body colours the game tells apart; empty when colour does not matter

    def __hash__(self) -> int:  # hashable by id (the opposite table is a dict): usable in sets and caches
        return hash(self.id)

    @property
    def name(self) -> str:
        """The set's id (the name taught faces and caches are filed under)."""
        return self.id

    def face(self, index: int) -> Face:
        return self.faces[index - 1]

    def top_of(self, bottom_index: int) -> int:
        """Index of the top face when `bottom_index` lies on the glass."""
        return self.opposite.get(bottom_index, bottom_index)

    def top_is_ambiguous(self, bottom_index: int) -> bool:
        """True when the face on the glass looks like another side whose opposite is a different face: two
        blank sides of Mage Wars' attack die lie opposite a 2* and a 1*, so a blank seen from below leaves the
        top unknown. A reading of such a side may be a best guess, never certain."""
        seen = self.face(bottom_index)
        tops = {self.face(self.top_of(f.index)).name for f in self.faces if f.glyph == seen.glyph}
        return len(tops) > 1

    def bottom_of(self, top_index: int) -> int:
        for b, t in self.opposite.items():
            if t == top_index:
                return b
        return top_index

    @property
    def n(self) -> int:
        return len(self.faces)

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any]) -> DiceSet:
        """Parse a `DiceSetSpec` dict (JSON from a game's description). Raises DiceSetError saying what is
        wrong, so a bad description is caught where it is handed over, not deep in the reader."""
        if not isinstance(spec, Mapping):
            raise DiceSetError(f"a dice set must be a dict, not {type(spec).__name__}")
        sid = spec.get("id")
        if not isinstance(sid, str) or not sid:
            raise DiceSetError("a dice set needs a non-empty string 'id'")
        raw_faces = spec.get("faces")
        if not isinstance(raw_faces, list) or len(raw_faces) < 2:
            raise DiceSetError(f"dice set {sid!r}: 'faces' must list at least two faces")
        faces = tuple(_parsed_face(sid, pos, f) for pos, f in enumerate(raw_faces, start=1))
        opposite = _parsed_opposite(sid, spec.get("opposite") or {}, len(faces))
        kind = _one_of(sid, spec, "kind", "icons", KINDS)
        shape = _one_of(sid, spec, "shape", "square", SHAPES)
        colours = spec.get("colours") or []
        if not isinstance(colours, list) or not all(isinstance(c, str) for c in colours):
            raise DiceSetError(f"dice set {sid!r}: 'colours' must be a list of colour names")
        return cls(sid, faces, opposite, kind, shape, tuple(colours))

    def to_spec(self) -> dict[str, Any]:
        """The plain-dict form (inverse of `from_spec`, without the translated names it never kept)."""
        out: dict[str, Any] = {
            "id": self.id,
            "faces": [{"index": f.index, "name": f.name, "value": f.value, "glyph": f.glyph} for f in self.faces],
            "opposite": {str(a): b for a, b in self.opposite.items()},
            "kind": self.kind,
            "shape": self.shape,
        }
        if self.colours:
            out["colours"] = list(self.colours)
        return out


PIP_D6 = DiceSet(
    "d6",
    tuple(Face(i, str(i), i, f"pips:{i}") for i in range(1, 7)),
    {1: 6, 6: 1, 2: 5, 5: 2, 3: 4, 4: 3},
    kind="pips",
)
"""The generic pip d6 (opposite faces sum to seven): the default when a caller names no other set."""

DiceSetLike = DiceSet | Mapping[str, Any] | str


def get_set(dice_set: DiceSetLike) -> DiceSet:
    """The reader's form of `dice_set`: a DiceSet as it is, a `DiceSetSpec` dict parsed, or "d6" (the generic
    pip d6). Any other name is a DiceSetError: the caller resolves names through the games' descriptions."""
    if isinstance(dice_set, DiceSet):
        return dice_set
    if isinstance(dice_set, Mapping):
        return DiceSet.from_spec(dice_set)
    if dice_set == PIP_D6.id:
        return PIP_D6
    if not isinstance(dice_set, str):
        raise DiceSetError(f"a dice set must be a dict (DiceSetSpec), a DiceSet or \"d6\", not {type(dice_set).__name__}")
    raise DiceSetError(
        f"unknown dice set {dice_set!r}: the reader knows only the plain pip d6 by name; give it the set's "
        "description (a DiceSetSpec dict from the game)")


def custom(name: str, face_names: list[str], opposite: dict[int, int] | None = None) -> DiceSet:
    """A user-taught set: faces named in order; recognised from taught templates only."""
    faces = []
    for i, fname in enumerate(face_names, start=1):
        v = int(fname) if fname.isdigit() else None
        faces.append(Face(i, fname, v, "blank"))
    return DiceSet(name, tuple(faces), dict(opposite or {}))


def _parsed_face(sid: str, pos: int, f: Any) -> Face:
    """Face `pos` of set `sid` from its spec entry (DiceSetError saying what is wrong with it)."""
    if not isinstance(f, Mapping):
        raise DiceSetError(f"dice set {sid!r}: face {pos} is not a dict")
    index = f.get("index", pos)
    if index != pos:
        raise DiceSetError(f"dice set {sid!r}: faces must be listed by index 1..n "
                           f"(face {pos} says {index!r})")
    name = f.get("name")
    if not isinstance(name, str) or not name:
        raise DiceSetError(f"dice set {sid!r}: face {pos} needs a string 'name'")
    value = f.get("value")
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise DiceSetError(f"dice set {sid!r}: face {pos} 'value' must be an integer or null")
    glyph = f.get("glyph", "blank")
    if not isinstance(glyph, str):
        raise DiceSetError(f"dice set {sid!r}: face {pos} 'glyph' must be a string")
    return Face(pos, name, value, glyph)


def _parsed_opposite(sid: str, raw: Any, n: int) -> dict[int, int]:
    """The set's opposite-face map (face index -> face index, symmetric, within 1..n) from its spec."""
    if not isinstance(raw, Mapping):
        raise DiceSetError(f"dice set {sid!r}: 'opposite' must map a face index to a face index")
    opposite: dict[int, int] = {}
    for k, v in raw.items():
        try:
            a, b = int(k), int(v)
        except (TypeError, ValueError):
            raise DiceSetError(f"dice set {sid!r}: 'opposite' has a non-number entry {k!r}: {v!r}") from None
        if not (1 <= a <= n and 1 <= b <= n):
            raise DiceSetError(f"dice set {sid!r}: 'opposite' names a face outside 1..{n}")
        opposite[a] = b
    for a, b in opposite.items():
        if opposite.get(b, a) != a:
            raise DiceSetError(f"dice set {sid!r}: 'opposite' is not symmetric "
                               f"({a}->{b}, {b}->{opposite[b]})")
    return opposite


def _one_of(sid: str, spec: Mapping[str, Any], key: str, default: str, allowed: Sequence[str]) -> str:
    """The spec's `key` (or `default`), which must be one of `allowed`."""
    value = spec.get(key, default)
    if value not in allowed:
        raise DiceSetError(f"dice set {sid!r}: '{key}' must be one of {', '.join(allowed)}, not {value!r}")
    return value
