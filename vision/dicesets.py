"""Dice sets as data: the faces of each kind of die, how each face is drawn, and which faces are opposite.

A face has an `index` (1..n: which physical side it is, the number a `DieSpec` names), a `name` (the symbol
the game reads: "3", "claw", "sword"...), a game `value` (int or None) and a `glyph` telling the renderer how
to draw it ("pips:N", "text:12", "icon:heart", "blank"). The reader recognises faces by templates drawn from
these glyphs, or by faces the user taught (`dicesight teach SET`).

Under the tray the camera sees the face lying on the glass; `DiceSet.top_of(bottom_index)` turns it into the
top face through the opposite-face table.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Face:
    index: int          # 1..n, the physical side
    name: str           # symbol the game reads
    value: int | None   # game value (pips, damage, number); None for a symbol with no number
    glyph: str          # how it is drawn: "pips:N", "text:S", "icon:NAME", "blank", "icon:NAME+text:S"


@dataclass(frozen=True)
class DiceSet:
    name: str
    faces: tuple[Face, ...]
    opposite: dict[int, int] = field(default_factory=dict)  # face index -> index of the opposite face
    shape: str = "square"       # outline of one face as seen: "square" or "pentagon" (d12)
    kind: str = "icons"         # "pips" (read by counting) or "icons" (read by templates)

    def face(self, index: int) -> Face:
        return self.faces[index - 1]

    def top_of(self, bottom_index: int) -> int:
        """Index of the top face when `bottom_index` lies on the glass."""
        return self.opposite.get(bottom_index, bottom_index)

    def bottom_of(self, top_index: int) -> int:
        for b, t in self.opposite.items():
            if t == top_index:
                return b
        return top_index

    @property
    def n(self) -> int:
        return len(self.faces)


def _opp(pairs: list[tuple[int, int]]) -> dict[int, int]:
    out: dict[int, int] = {}
    for a, b in pairs:
        out[a] = b
        out[b] = a
    return out


D6 = DiceSet(
    "d6",
    tuple(Face(i, str(i), i, f"pips:{i}") for i in range(1, 7)),
    _opp([(1, 6), (2, 5), (3, 4)]),
    kind="pips",
)

KINGOFTOKYO = DiceSet(
    "kingoftokyo",
    (
        Face(1, "1", 1, "text:1"),
        Face(2, "2", 2, "text:2"),
        Face(3, "3", 3, "text:3"),
        Face(4, "energy", None, "icon:energy"),
        Face(5, "claw", None, "icon:claw"),
        Face(6, "heart", None, "icon:heart"),
    ),
    # the printed King of Tokyo die: 1 opposite 2... we use number/icon pairs; teach from below if different
    _opp([(1, 4), (2, 5), (3, 6)]),
)

MAGEWARS_ATTACK = DiceSet(
    "magewars-attack",
    (
        Face(1, "blank", 0, "blank"),
        Face(2, "blank", 0, "blank"),
        Face(3, "1", 1, "text:1"),
        Face(4, "2", 2, "text:2"),
        Face(5, "1-critical", 1, "icon:star+text:1"),
        Face(6, "2-critical", 2, "icon:star+text:2"),
    ),
    _opp([(1, 2), (3, 5), (4, 6)]),
)

D12 = DiceSet(
    "d12",
    tuple(Face(i, str(i), i, f"text:{i}" + ("_" if i in (6, 9) else "")) for i in range(1, 13)),
    {i: 13 - i for i in range(1, 13)},
    shape="pentagon",
)

# Dice Throne hero dice until engine.dicethrone.heroes.catalogue() lands: symbols of faces 1..6.
_HEROES: dict[str, list[str]] = {
    "barbarian": ["sword", "sword", "sword", "heart", "heart", "pow"],
    "moon_elf": ["arrow", "arrow", "arrow", "foot", "foot", "moon"],
    "pyromancer": ["fire", "fire", "fire", "magma", "magma", "meteor"],
    "monk": ["fist", "fist", "palm", "palm", "taichi", "lotus"],
    "paladin": ["sword", "sword", "helm", "helm", "heart", "pray"],
    "shadow_thief": ["dagger", "dagger", "bag", "bag", "card", "shadow"],
    "treant": ["leaf", "leaf", "leaf", "seed", "seed", "tree"],
    "ninja": ["shuriken", "shuriken", "shuriken", "katana", "katana", "smoke"],
}

_SIX_OPP = _opp([(1, 6), (2, 5), (3, 4)])


def _hero_faces(hero: str) -> list[str] | None:
    """Face symbols of a Dice Throne hero: from the engine's hero data when it exists, else our table."""
    try:  # optional: the engine's hero catalogue (vision imports nothing of ours otherwise)
        from engine.dicethrone import heroes as _heroes  # type: ignore[import-not-found]

        for h in _heroes.catalogue():
            if h.get("id") == hero:
                faces = list(h.get("faces") or [])
                if len(faces) == 6 and all(isinstance(f, str) for f in faces):
                    return faces
    except Exception:  # noqa: BLE001 - the catalogue is optional; fall back to our table
        pass
    return _HEROES.get(hero)


def dicethrone(hero: str) -> DiceSet:
    faces = _hero_faces(hero)
    if faces is None:
        raise KeyError(f"unknown Dice Throne hero {hero!r} (known: {', '.join(sorted(_HEROES))})")
    return DiceSet(
        f"dicethrone:{hero}",
        tuple(Face(i, faces[i - 1], i, f"icon:{faces[i - 1]}+corner:{i}") for i in range(1, 7)),
        _SIX_OPP,
    )


_SETS = {s.name: s for s in (D6, KINGOFTOKYO, MAGEWARS_ATTACK, D12)}


def hero_ids() -> list[str]:
    """Dice Throne heroes we can read: the engine's catalogue when present, plus our own table."""
    ids = set(_HEROES)
    try:
        from engine.dicethrone import heroes as _heroes  # type: ignore[import-not-found]

        ids.update(h["id"] for h in _heroes.catalogue())
    except Exception:  # noqa: BLE001
        pass
    return sorted(ids)


def names() -> list[str]:
    return sorted(_SETS) + [f"dicethrone:{h}" for h in hero_ids()]


def get_set(name: str | DiceSet) -> DiceSet:
    """The dice set called `name` ("d6", "kingoftokyo", "magewars-attack", "d12", "dicethrone:<hero>")."""
    if isinstance(name, DiceSet):
        return name
    if name in _SETS:
        return _SETS[name]
    if name.startswith("dicethrone:"):
        return dicethrone(name.split(":", 1)[1])
    raise KeyError(f"unknown dice set {name!r} (known: {', '.join(names())})")


def custom(name: str, face_names: list[str], opposite: dict[int, int] | None = None) -> DiceSet:
    """A user-taught set: faces named in order; recognised from taught templates only."""
    faces = []
    for i, fname in enumerate(face_names, start=1):
        v = int(fname) if fname.isdigit() else None
        faces.append(Face(i, fname, v, "blank"))
    return DiceSet(name, tuple(faces), dict(opposite or {}))
