"""Checking the store's records one by one, and deciding what a game keeps when some are damaged.

Why: `PRAGMA quick_check` checks SQLite's pages, not what is written in them. A byte flipped inside a log
entry or a checkpoint (a bad SD card, a copy cut short and patched) leaves a file SQLite calls healthy and a
game that cannot be decoded. So every record carries a CRC-32 of its text, written with it; a record whose text
no longer matches (or is no JSON at all) is damaged. A damaged record is never deleted: the store moves it to
its quarantine table, and the game goes on from the last point that does not depend on it.

What a game keeps (`restore_plan`), with the first damaged or missing action at `k`:
- a good checkpoint at `c >= k` from which the good actions after it replay (`Match.replay_start`): the game
  resumes from `c` with every good action after it, as far as they run without a gap;
- else the actions `1..k-1` (and the checkpoints among them): the game is back where it was before `k`.
Everything else of that game is set aside, never lost: `dicesight store check` lists it.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from typing import Any

from engine.match import Entry, Match


def crc(text: str | bytes | None) -> int | None:
    """The CRC-32 kept with a record's text (None for no text)."""
    if text is None:
        return None
    raw = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    return zlib.crc32(raw)


def game_crc(game: str, setup: str, seed: int) -> int:
    """A game row's CRC covers its name, setup and seed: any of them changed makes a different game."""
    return zlib.crc32(f"{game}\n{int(seed)}\n{setup}".encode())


@dataclass(frozen=True)
class Checked:
    """One stored record after its check: `value` decoded, or `damage` saying why it cannot be trusted."""

    rowid: int
    seq: int
    value: Any = None
    damage: str | None = None


def check(rowid: int, seq: Any, raw: bytes | str | None, stored_crc: Any) -> Checked:
    """Decode one record's text, trusting it only if its CRC (when it has one) matches and it is JSON.

    Records written before checksums existed have none: they are trusted as JSON alone, as before."""
    if not isinstance(seq, int):
        return Checked(rowid, -1, damage="its move number is unreadable")
    if raw is None:
        return Checked(rowid, seq, damage="its text is missing")
    data = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
    if stored_crc is not None and (not isinstance(stored_crc, int) or zlib.crc32(data) != stored_crc):
        return Checked(rowid, seq, damage="its checksum does not match")
    try:
        return Checked(rowid, seq, json.loads(data.decode("utf-8")))
    except (UnicodeDecodeError, ValueError):
        return Checked(rowid, seq, damage="its text is not JSON")


def check_action(rowid: int, seq: Any, raw: bytes | str | None, stored_crc: Any) -> Checked:
    """A log entry must also be an action: a JSON object with a type."""
    out = check(rowid, seq, raw, stored_crc)
    if out.damage is None and not (isinstance(out.value, dict) and isinstance(out.value.get("type"), str)):
        return Checked(rowid, out.seq, damage="it is not an action")
    return out


@dataclass
class RestorePlan:
    """What one game keeps and what is set aside (rowids of entries and checkpoints, with the reasons)."""

    entries: list[Entry] = field(default_factory=list)
    checkpoint: tuple[int, dict[str, Any]] | None = None
    entries_aside: dict[int, str] = field(default_factory=dict)
    checkpoints_aside: dict[int, str] = field(default_factory=dict)
    damaged_at: int | None = None  # the first action that is damaged or missing, None when the log is whole

    @property
    def resumed_at(self) -> int:
        """The move the game resumes after."""
        return self.entries[-1].seq if self.entries else 0


def restore_plan(entries: list[Checked], checkpoints: list[Checked]) -> RestorePlan:
    """What a game keeps of its checked entries and checkpoints (see the module doc)."""
    plan = RestorePlan()
    good = _first_of_each_seq([e for e in entries if e.damage is None], plan.entries_aside)
    plan.entries_aside.update({e.rowid: e.damage or "" for e in entries if e.damage is not None})
    plan.checkpoints_aside.update({c.rowid: c.damage or "" for c in checkpoints if c.damage is not None})
    good_cps = {c.seq: c for c in checkpoints if c.damage is None and isinstance(c.value, dict)}
    plan.damaged_at = _first_hole(sorted(good), bool(plan.entries_aside))
    if plan.damaged_at is None:
        kept = [good[s] for s in sorted(good)]
    else:
        kept = _kept_around_damage(good, good_cps, plan)
    plan.entries = [Entry(e.seq, e.value) for e in kept]
    last = plan.resumed_at
    for seq, cp in good_cps.items():
        if seq > last:
            plan.checkpoints_aside[cp.rowid] = "it is newer than the restored game"
    if plan.checkpoint is None:
        usable = {s: c for s, c in good_cps.items() if c.rowid not in plan.checkpoints_aside}
        start = Match.replay_start(plan.entries, list(usable))
        plan.checkpoint = (start, usable[start].value) if start is not None else None
    return plan


def _first_of_each_seq(good: list[Checked], aside: dict[int, str]) -> dict[int, Checked]:
    """One entry per move number (a damaged move number can duplicate another): the first row wins."""
    out: dict[int, Checked] = {}
    for e in sorted(good, key=lambda e: e.rowid):
        if e.seq in out or e.seq < 1:
            aside[e.rowid] = "its move number is taken or impossible"
        else:
            out[e.seq] = e
    return out


def _first_hole(seqs: list[int], any_damage: bool) -> int | None:
    """The first move missing from 1..last (a damaged row removed leaves one); None if there is none.

    A log that ends early is not a hole (the newest actions are simply gone with a cut file), unless a
    damaged row was found: then the first move after the good prefix is where the damage is."""
    expected = 1
    for s in seqs:
        if s != expected:
            return expected
        expected += 1
    return expected if any_damage else None


def _kept_around_damage(good: dict[int, Checked], good_cps: dict[int, Checked], plan: RestorePlan) -> list[Checked]:
    """The entries kept when move `damaged_at` is lost: from a checkpoint past the damage if one can carry
    the game, else the prefix before it. Every other good entry of the game is set aside."""
    k = plan.damaged_at or 1
    # the checkpoint's own action must be there too: the game's move number is its last entry's
    for c in sorted((s for s in good_cps if s >= k and s in good), reverse=True):
        tail = _run_from(good, c + 1)
        if not tail or Match.replay_start([Entry(e.seq, e.value) for e in [good[c], *tail]], [c]) == c:
            plan.checkpoint = (c, good_cps[c].value)
            kept = [good[s] for s in sorted(good) if s <= c] + tail
            _set_aside_rest(good, kept, plan, "it follows a damaged action")
            return kept
    kept = _run_from(good, 1)
    _set_aside_rest(good, kept, plan, "it follows a damaged action")
    return kept


def _run_from(good: dict[int, Checked], start: int) -> list[Checked]:
    out = []
    seq = start
    while seq in good:
        out.append(good[seq])
        seq += 1
    return out


def _set_aside_rest(good: dict[int, Checked], kept: list[Checked], plan: RestorePlan, why: str) -> None:
    kept_rows = {e.rowid for e in kept}
    for e in good.values():
        if e.rowid not in kept_rows:
            plan.entries_aside.setdefault(e.rowid, why)
