"""Every die the box saw thrown, from the store's log: the raw material of "are these dice fair?" (issue 36).

Why from the log and not a tally kept beside it: the log is the whole truth (an undo is an entry of its own),
so the counts can always be rebuilt, by the box or by `dicesight stats` on a copied file, and they agree.

Which rolls are which (`source_of`):
- "camera": a `roll` action the tray service submitted (`"source": "camera"`): the reader was sure of each die;
- "confirmed": a roll whose evidence holds the camera's readings (the reader was unsure, a phone confirmed or
  fixed the dice that lay on the tray): a real throw of the tray, its faces as the players saw them;
- "hand": dice typed in with no camera behind them (the camera off, an app, a die thrown elsewhere);
- "virtual": a `roll` with no dice, which the engine rolled from its seeded stream. Only counted: those are
  the box's pseudo-random numbers, not the players' dice.
Undone rolls do not count (a throw is often undone because it was misread); a redo brings one back.

The log is read through a read-only connection of its own: the box's writer never waits for the stats, and
`dicesight stats` works on a running box's store.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import records

TRACKED = ("roll", "undo", "redo")
# Actions are stored as compact JSON with sorted keys (device.store._dumps): an entry whose text holds none
# of these is none of those actions, and is not decoded at all (most of a game's log is not rolls).
_MARKERS = tuple(f'"type":"{kind}"'.encode() for kind in TRACKED)


@dataclass(frozen=True)
class LogRow:
    """One stored entry, as much as the stats need: `action` and `evidence` are decoded only for rolls,
    undos and redos (`kind` is "other" for anything else, or for a record whose checksum fails)."""

    game_id: int
    game: str
    seq: int
    kind: str
    action: dict[str, Any] | None = None
    evidence: dict[str, Any] | None = None


@dataclass(frozen=True)
class DieRoll:
    """One die of one throw. `set_hint`: the set the log names for it (the die's own `set` in a mixed throw,
    else the set the camera read the throw with), None when the log does not say (older rolls, hand entry)."""

    game_id: int
    game: str
    throw: int          # the roll's move number in its game
    source: str         # "camera", "confirmed" or "hand"
    set_hint: str | None
    colour: str | None
    face: str | None
    value: int | None


def _connect(db_path: Path) -> sqlite3.Connection | None:
    """A read-only connection to the store, or None when there is no file."""
    if not Path(db_path).is_file():
        return None
    return sqlite3.connect(f"file:{Path(db_path).resolve()}?mode=ro", uri=True)


def log_marks(db_path: Path) -> dict[int, tuple[int, int]]:
    """{game id: (entries, newest entry's rowid)}: what changes when a game's log does (an append, an undo, a
    record set aside), so a game whose mark is unchanged need not be read again."""
    conn = _connect(db_path)
    if conn is None:
        return {}
    try:
        return {g: (n, top) for g, n, top in conn.execute(
            "SELECT game_id, COUNT(*), MAX(rowid) FROM entries GROUP BY game_id")}
    finally:
        conn.close()


def read_log(db_path: Path, games: Iterable[int] | None = None) -> list[LogRow]:
    """Every entry of every game in `db_path` (or of `games` only), in game and move order; [] without a file."""
    conn = _connect(db_path)
    if conn is None:
        return []
    only = sorted({int(g) for g in games}) if games is not None else None
    where = f"WHERE e.game_id IN ({','.join('?' * len(only))}) " if only is not None else ""
    try:
        rows = conn.execute(
            "SELECT e.rowid, e.game_id, g.game, e.seq, CAST(e.action AS BLOB), e.crc, CAST(e.evidence AS BLOB) "
            f"FROM entries e JOIN games g ON g.id = e.game_id {where}ORDER BY e.game_id, e.seq", only or ()).fetchall()
    finally:
        conn.close()
    return [_row(*r) for r in rows]


def _row(rowid: int, game_id: int, game: Any, seq: int, raw: bytes | None, crc: Any, evidence: bytes | None) -> LogRow:
    """Decode one entry if it may be a roll, an undo or a redo; a damaged one counts as some other action (the
    box sets it aside at its next start; its dice are not trusted meanwhile)."""
    name = game if isinstance(game, str) else ""
    if not raw or not any(marker in raw for marker in _MARKERS):
        return LogRow(game_id, name, seq, "other")
    checked = records.check_action(rowid, seq, raw, crc)
    kind = checked.value.get("type") if checked.damage is None else None
    if kind not in TRACKED:
        return LogRow(game_id, name, seq, "other")
    ev = records.check(rowid, seq, evidence, None).value if evidence else None
    return LogRow(game_id, name, seq, kind, checked.value, ev if isinstance(ev, dict) else None)


def effective(rows: Iterable[LogRow]) -> list[LogRow]:
    """The rolls still in force: each undo takes back its game's last action in force, a redo brings back the
    last one undone, any new action forgets what was undone (as `engine.match.Match` replays a log)."""
    done: dict[int, list[LogRow]] = {}
    undone: dict[int, list[LogRow]] = {}
    for row in rows:
        did, undid = done.setdefault(row.game_id, []), undone.setdefault(row.game_id, [])
        if row.kind == "undo":
            if did:
                undid.append(did.pop())
        elif row.kind == "redo":
            if undid:
                did.append(undid.pop())
        else:
            did.append(row)
            undid.clear()
    return [row for rows_ in done.values() for row in rows_ if row.kind == "roll"]


def source_of(action: dict[str, Any], evidence: dict[str, Any] | None) -> str:
    """"camera", "confirmed", "hand" or "virtual" (see the module doc)."""
    if not isinstance(action.get("dice"), list) or not action["dice"]:
        return "virtual"
    if action.get("source") == "camera":
        return "camera"
    if isinstance(evidence, dict) and isinstance(evidence.get("readings"), list):
        return "confirmed"
    return "hand"


def die_rolls(rows: Iterable[LogRow], exclude_games: Iterable[int] = ()) -> tuple[list[DieRoll], int]:
    """(every die of every roll in force, how many virtual rolls), leaving out the games in `exclude_games`."""
    skip = set(exclude_games)
    dice: list[DieRoll] = []
    virtual = 0
    for row in effective(rows):
        if row.game_id in skip or row.action is None:
            continue
        source = source_of(row.action, row.evidence)
        if source == "virtual":
            virtual += 1
            continue
        dice.extend(_dice(row, source))
    return dice, virtual


def _dice(row: LogRow, source: str) -> list[DieRoll]:
    """The dice of one roll; a die the phone gave as a bare value takes its colour from the camera's reading
    of the same place, when the camera read as many dice."""
    evidence = row.evidence or {}
    readings = evidence.get("readings") if isinstance(evidence.get("readings"), list) else []
    listed = row.action["dice"]
    hint = evidence.get("set") if isinstance(evidence.get("set"), str) else None
    out = []
    for i, die in enumerate(listed):
        die = die if isinstance(die, dict) else {"value": die}
        seen = readings[i] if len(readings) == len(listed) and isinstance(readings[i], dict) else {}
        value = die.get("value")
        out.append(DieRoll(
            row.game_id, row.game, row.seq, source, _text(die.get("set")) or _text(seen.get("set")) or hint,
            _text(die.get("colour")) or _text(seen.get("colour")), _text(die.get("face")),
            value if isinstance(value, int) and not isinstance(value, bool) else None))
    return out


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None

