"""Which face lies opposite which on a table's own dice, learnt from what teaching saw (issue 31, point 6).

Why: no rulebook prints the layout of the symbol dice (King of Tokyo's opposite-face table is an assumption),
and a player's dice may differ from the game's description. Under the tray the camera sees the face on the
glass; a player confirms the face on top. Each confirmed die whose glass face the reader named (read with no
opposite map at all, `vision.teach.seen_faces`) is one observed pair (glass, top): those two faces are
opposite. Once every face has been seen in a pair (the last two faces left are opposite each other), the
pairs are the set's opposite map, and the box reads the set with it.

A contradiction (a face seen opposite two different faces, or opposite itself) is kept and reported, never
resolved silently: the map is used only while it is a whole pairing without one. Kept in
`STATE_DIR/dice/<set>/opposite.json` (beside the taught faces), written atomically like the rest of the state
directory (temp file, fsync, rename).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from vision.dicesets import DiceSet, get_set

from .atomic import write_atomic
from .taught import set_folder

log = logging.getLogger("dicesight.opposites")

FILE = "opposite.json"


@dataclass(frozen=True)
class Learnt:
    """What the observed pairs say about a set of `n` faces."""

    opposite: dict[int, int]        # face -> opposite face, every pair both ways (seen or the last two left)
    unpaired: list[int]             # faces with no opposite known yet
    contradictions: list[str]       # one sentence each; a contradicted face is left out of `opposite`

    @property
    def complete(self) -> bool:
        """A whole pairing of the faces with no contradiction: only then does it replace the set's map."""
        return not self.unpaired and not self.contradictions

    def to_dict(self) -> dict[str, Any]:
        return {"opposite": {str(a): b for a, b in sorted(self.opposite.items())}, "unpaired": self.unpaired,
                "contradictions": self.contradictions, "complete": self.complete}


def learn(n: int, seen: Mapping[tuple[int, int], int]) -> Learnt:
    """The opposite map of faces 1..n from observed (glass, top) pairs with their counts. A face seen opposite
    itself or opposite two faces is a contradiction; when all but two faces are paired, those two are."""
    partners: dict[int, dict[int, int]] = {}
    problems: list[str] = []
    for (glass, top), count in sorted(seen.items()):
        if glass == top:
            problems.append(f"face {glass} was seen on the glass with itself on top ({count}x)")
            continue
        for a, b in ((glass, top), (top, glass)):
            partners.setdefault(a, {})
            partners[a][b] = partners[a].get(b, 0) + count
    bad = {a for a, bs in partners.items() if len(bs) > 1} | {g for (g, t) in seen if g == t}
    for a in sorted(bad):
        if len(partners.get(a, {})) > 1:
            seen_with = ", ".join(f"{b} ({c}x)" for b, c in sorted(partners[a].items()))
            problems.append(f"face {a} was seen opposite more than one face: {seen_with}")
    opposite = {a: next(iter(bs)) for a, bs in partners.items() if a not in bad and next(iter(bs)) not in bad}
    unpaired = [f for f in range(1, n + 1) if f not in opposite]
    if len(unpaired) == 2 and not bad and n % 2 == 0:
        a, b = unpaired
        opposite.update({a: b, b: a})
        unpaired = []
    return Learnt(opposite, unpaired, problems)


class Opposites:
    """The pairs seen per dice set, kept in the state directory (see the module doc)."""

    def __init__(self, state_dir: Path) -> None:
        self.root = Path(state_dir) / "dice"
        self._lock = threading.Lock()
        self._cache: dict[Path, tuple[tuple[int, int, int], dict[tuple[int, int], int]]] = {}

    def _path(self, set_id: str) -> Path:
        return self.root / set_folder(set_id) / FILE

    def seen(self, set_id: str) -> dict[tuple[int, int], int]:
        """{(glass face, top face): times seen}; empty when nothing was seen or the file is damaged (logged).
        The tray asks on every frame it reads: the file is read again only when it changed."""
        path = self._path(set_id)
        try:
            st = path.stat()
        except OSError:
            return {}
        stamp = (st.st_ino, st.st_mtime_ns, st.st_size)  # each write is a new file (renamed over the old)
        cached = self._cache.get(path)
        if cached is not None and cached[0] == stamp:
            return dict(cached[1])
        try:
            rows = json.loads(path.read_text(encoding="utf-8"))["seen"]
            seen = {(int(g), int(t)): int(c) for g, t, c in rows}
        except (OSError, ValueError, KeyError, TypeError) as err:
            log.warning("opposite faces: %s cannot be read (%s); starting again", path, err)
            seen = {}
        self._cache[path] = (stamp, seen)
        return dict(seen)

    def record(self, set_id: str, pairs: Iterable[tuple[int, int]]) -> int:
        """Add observed (glass, top) pairs of `set_id`; how many were added. OSError propagates (a full card)."""
        pairs = list(pairs)
        if not pairs:
            return 0
        with self._lock:
            seen = self.seen(set_id)
            for pair in pairs:
                seen[pair] = seen.get(pair, 0) + 1
            path = self._path(set_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            rows = [[g, t, c] for (g, t), c in sorted(seen.items())]
            write_atomic(path, json.dumps({"set": set_id, "seen": rows}).encode("utf-8"))
        return len(pairs)

    def learnt(self, ds: DiceSet) -> Learnt:
        return learn(ds.n, self.seen(ds.id))

    def report(self, ds: DiceSet) -> dict[str, Any]:
        """For `dicesight teach --json` and the phone's teaching: the map so far, the faces still lacking a
        pair (throw them so that they lie on the glass), the contradictions, and whether the box reads with it."""
        return {"set": ds.id, **self.learnt(ds).to_dict()}

    def apply(self, dice_set: Mapping[str, Any] | DiceSet | str) -> DiceSet:
        """The set as the box reads it: with the learnt opposite map when it is a whole pairing without a
        contradiction, else as described (the game's, or a dice-set file's)."""
        ds = get_set(dice_set)
        got = self.learnt(ds)
        return replace(ds, opposite=dict(got.opposite)) if got.complete else ds
