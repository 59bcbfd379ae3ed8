"""The box's durable memory: games as append-only action logs in SQLite, checkpoints, and roll images.

Why SQLite with WAL and synchronous=FULL: a power cut at a game night must not lose an action whose submit
returned. In WAL mode with synchronous=FULL every commit fsyncs the write-ahead log before `append` returns,
so an accepted action is on the card. Nothing is ever updated in place: undo is an entry of its own
(see engine.match), so the log is the whole truth and the state is its replay.

SD cards do get corrupted. At start `PRAGMA quick_check` runs; a file that fails it is moved aside (never
deleted: a human may want it), a clear line is logged, and whatever rows can still be read are copied into a
fresh file. A game keeps the longest gap-free prefix of its log, because a replay with a hole in it would
be a different game.

One `Store` is shared by the table service (the one writer) and the web server's threads (readers): a single
connection guarded by a lock keeps it simple and correct; every call is short.
"""

from __future__ import annotations

import datetime as _dt
import errno
import hashlib
import json
import logging
import os
import re
import shutil
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.match import Entry

from . import records, salvage

log = logging.getLogger("dicesight.store")

DB_NAME = "dicesight.sqlite"
IMAGES_DIR = "images"
SCHEMA_VERSION = 2  # 2: CRC-32 columns on games, entries and checkpoints; the quarantine table
DEFAULT_IMAGE_CAP = 256 * 1024 * 1024  # roll JPEGs are ~30-80 KB; this keeps thousands of rolls
CHECKPOINTS_KEPT = 3  # older checkpoints are dropped; the log itself is never pruned
_IMAGE_NAME = re.compile(r"^g\d+-s\d+-[0-9a-f]{8}\.jpg$")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id      INTEGER PRIMARY KEY,
    game    TEXT NOT NULL,
    setup   TEXT NOT NULL,
    seed    INTEGER NOT NULL,
    created TEXT NOT NULL,
    crc     INTEGER
);
CREATE TABLE IF NOT EXISTS entries (
    id       INTEGER PRIMARY KEY,
    game_id  INTEGER NOT NULL REFERENCES games(id),
    seq      INTEGER NOT NULL,
    action   TEXT NOT NULL,
    evidence TEXT,
    t        REAL NOT NULL,
    crc      INTEGER,
    UNIQUE (game_id, seq)
);
CREATE TABLE IF NOT EXISTS checkpoints (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq     INTEGER NOT NULL,
    data    TEXT NOT NULL,
    crc     INTEGER,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS quarantine (
    id      INTEGER PRIMARY KEY,
    game_id INTEGER,
    kind    TEXT NOT NULL,
    seq     INTEGER,
    data    BLOB,
    reason  TEXT NOT NULL,
    t       REAL NOT NULL
);
"""


# A repair at start must finish inside systemd's TimeoutStartSec (120 s, systemd/dicesight.service) with room
# for the rest of the start; rowids probed one by one past a damaged page (the page scan finds the others)
SALVAGE_BUDGET_S = 45.0
PROBE_ROWS = 20_000
LOW_SPACE_BYTES = 1024 * 1024  # below this much free space the store counts as full (SQLite needs room)


@dataclass(frozen=True)
class StagedImage:
    """A roll photo written under a temporary name, waiting for the engine's verdict on its roll."""

    path: Path
    digest: str
    size: int


class StoreError(Exception):
    """A store operation that cannot be done (unknown game, duplicate seq, unreadable database)."""


class DamagedGame(StoreError):
    """A game whose own row (name, setup, seed) is damaged: it cannot be replayed at all, and is kept."""

    def __init__(self, game_id: int, reason: str) -> None:
        super().__init__(f"Game {game_id} is damaged ({reason}); it is kept in the store.")
        self.game_id = game_id
        self.reason = reason


@dataclass(frozen=True)
class GameRecord:
    """One kept game: everything needed to replay it (`engine.match.Match.replay`)."""

    id: int
    game: str
    setup: dict[str, Any]
    seed: int
    created: str
    entries: list[Entry] = field(default_factory=list)
    checkpoint: tuple[int, dict[str, Any]] | None = None
    set_aside: list[dict[str, Any]] = field(default_factory=list)  # records moved to quarantine by this load
    damaged_at: int | None = None  # the first damaged or missing action, when there was one


def _now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def _connect(path: Path) -> sqlite3.Connection:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves so each append is exactly one durable commit.
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=10.0)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def _quick_check(path: Path) -> str | None:
    """None if the database at `path` passes `PRAGMA quick_check`, else what is wrong with it."""
    try:
        conn = sqlite3.connect(str(path), isolation_level=None)
        try:
            rows = [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return str(exc)
    if rows == ["ok"]:
        return None
    return "; ".join(str(r) for r in rows[:5]) or "quick_check returned nothing"


class Store:
    """Games, their logs, checkpoints and roll images under one state directory (see module doc)."""

    def __init__(self, state_dir: Path, *, image_cap_bytes: int = DEFAULT_IMAGE_CAP) -> None:
        self.state_dir = Path(state_dir)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.state_dir / DB_NAME
        self.images_dir = self.state_dir / IMAGES_DIR
        self.images_dir.mkdir(exist_ok=True)
        self.image_cap_bytes = int(image_cap_bytes)
        self._lock = threading.RLock()
        self.recovery: dict[str, Any] | None = None  # set when a corrupt file was moved aside
        self._last_error: str | None = None
        self.storage_full = False  # the last write failed for lack of space (cleared by the next success)
        self.set_aside: list[dict[str, Any]] = []  # games restored without damaged records since start

        self._finish_interrupted_salvage()
        corrupt_reason = _quick_check(self.path) if self.path.exists() else None
        if corrupt_reason is None and self.path.exists() and self.path.stat().st_size == 0:
            # SQLite takes an empty file for an empty database, but the store writes its schema the moment
            # it creates the file: an empty one lost its contents (a bad SD card, a copy cut short).
            corrupt_reason = "the file is empty (0 bytes)"
        if corrupt_reason is not None:
            self._replace_damaged(corrupt_reason)
        self._conn = _connect(self.path)
        self._init_schema()
        self.recovery = self.recovery or self._kept_report()
        self._image_bytes = self._scan_images()

    # -- repairing ------------------------------------------------------------------------------
    @property
    def _salvage_path(self) -> Path:
        return self.path.with_name(DB_NAME + ".salvage")

    def _finish_interrupted_salvage(self) -> None:
        """A start killed while repairing (systemd's timeout, a power cut) left a salvaged copy: finished if
        the damaged file was already moved aside, else thrown away (the damaged file is still in place and is
        salvaged again). An empty store never silently takes the place of a damaged one."""
        tmp = self._salvage_path
        if not tmp.exists():
            return
        if self.path.exists():
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(str(tmp) + suffix).unlink(missing_ok=True)
        else:
            os.replace(tmp, self.path)
            log.error("store: finished a repair interrupted at the last step")

    def _replace_damaged(self, reason: str) -> None:
        """Salvage the damaged file into a new one beside it, then move the damaged file aside and put the new
        one in its place: a kill at any moment leaves either the damaged file or the repaired one in place."""
        tmp = self._salvage_path
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(str(tmp) + suffix).unlink(missing_ok=True)
        self._conn = _connect(tmp)
        self._init_schema()
        aside = self._aside_name()
        report = self._salvage(self.path, aside, reason)
        self._set_meta("recovery", _dumps(report))
        self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._conn.close()
        self._move_aside(aside, reason)
        os.replace(tmp, self.path)
        _fsync_dir(self.path.parent)
        self.recovery = report

    def dismiss_recovery(self) -> None:
        """The players started a new game after a repair: stop telling them about it."""
        with self._lock, self._tx():
            self._conn.execute("DELETE FROM meta WHERE key='recovery'")
        self.recovery = None
        self.set_aside.clear()

    def _kept_report(self) -> dict[str, Any] | None:
        """The last repair's report, kept in the store so a restart still tells the players (until a new
        game is started: then they have moved on)."""
        with self._lock:
            row = self._conn.execute("SELECT CAST(value AS BLOB) FROM meta WHERE key='recovery'").fetchone()
        value = records.check(0, 0, row[0], None).value if row else None
        return value if isinstance(value, dict) else None

    # -- opening --------------------------------------------------------------------------------
    def _init_schema(self) -> None:
        with self._lock:
            self._conn.executescript(_SCHEMA)
            version = self._conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} was written by a newer dicesight (schema {version} > {SCHEMA_VERSION})."
                )
            if version < SCHEMA_VERSION:
                self._add_crc_columns()
                self._conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def _add_crc_columns(self) -> None:
        """A store written before checksums gets the columns; its old rows keep none and are trusted as JSON
        alone (records.check), every row written from now on carries one."""
        for table in ("games", "entries", "checkpoints"):
            columns = {row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")}
            if "crc" not in columns:
                self._conn.execute(f"ALTER TABLE {table} ADD COLUMN crc INTEGER")

    def _aside_name(self) -> Path:
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        aside = self.path.with_name(f"{DB_NAME}.corrupt-{stamp}")
        n = 1
        while aside.exists():
            aside = self.path.with_name(f"{DB_NAME}.corrupt-{stamp}-{n}")
            n += 1
        return aside

    def _move_aside(self, aside: Path, reason: str) -> None:
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(self.path) + suffix)
            if src.exists():
                os.replace(src, Path(str(aside) + suffix))
        log.error("store: %s failed its integrity check (%s); moved it aside to %s, the store holds what could "
                  "still be read from it", self.path, reason, aside)

    def _salvage(self, damaged: Path, aside: Path, reason: str) -> dict[str, Any]:
        """Copy every readable game, log prefix and checkpoint from the damaged file (to be kept as `aside`),
        within `SALVAGE_BUDGET_S` (systemd stops a start that takes longer than its timeout)."""
        report: dict[str, Any] = {"moved_to": str(aside), "reason": reason, "games": 0, "actions": 0,
                                  "lost_games": 0, "at": _now_iso()}
        deadline = time.monotonic() + SALVAGE_BUDGET_S
        games, entries, meta = _read_sql(damaged, deadline, report)
        by_sqlite = {r[0] for r in entries}
        # SQLite walks each table from its root: one lost interior page hides every row below it. The
        # pages themselves often survive, so rows read straight from them fill in what the walk missed.
        pages = salvage.scan(damaged)
        games = _union(games, pages["games"])
        entries = _union(entries, pages["entries"])
        for _rowid, key, value in pages["meta"]:
            meta.setdefault(key, value)
        checkpoints = _read_checkpoints(damaged, deadline, report)
        report["rows_from_pages"] = sum(1 for r in entries if r[0] not in by_sqlite)
        by_game: dict[int, dict[int, tuple[Any, ...]]] = {}
        for _id, game_id, seq, action, evidence, t in entries:
            by_game.setdefault(game_id, {})[seq] = (action, evidence, t)
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                for game_id, game, setup, seed, created in games:
                    try:
                        json.loads(setup)
                    except (TypeError, ValueError):
                        report["lost_games"] += 1
                        continue
                    self._conn.execute(
                        "INSERT INTO games (id, game, setup, seed, created, crc) VALUES (?,?,?,?,?,?)",
                        (game_id, game, setup, seed, created, records.game_crc(game, setup, seed)))
                    report["games"] += 1
                    self._salvage_game(game_id, by_game.get(game_id, {}),
                                       [c for c in checkpoints if c[1] == game_id], report)
                active = meta.get("active")
                known = {g[0] for g in games}
                if active is not None and active.isdigit() and int(active) in known:
                    self._set_meta("active", active)
                elif known:
                    self._set_meta("active", str(max(known)))
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
        if report["games"]:
            log.error("store: recovered %s game(s) and %s action(s) from %s", report["games"],
                      report["actions"], damaged)
        else:
            log.error("store: nothing could be recovered from %s", damaged)
        return report

    def _salvage_game(self, game_id: int, rows: dict[int, tuple[Any, ...]], checkpoints: list[tuple[Any, ...]],
                      report: dict[str, Any]) -> None:
        """Copy what one game keeps of its readable rows (the same plan as `load_game`: from the last good
        checkpoint past a hole, else the gap-free prefix); every other readable row goes to quarantine."""
        by_seq = sorted(rows.items())
        checked = [records.check_action(i, seq, row[0], None) for i, (seq, row) in enumerate(by_seq)]
        cps = [records.check(i, c[2], c[3], None) for i, c in enumerate(checkpoints)]
        plan = records.restore_plan(checked, cps)
        for i, (seq, (action, evidence, t)) in enumerate(by_seq):
            if i in plan.entries_aside:
                self._conn.execute("INSERT INTO quarantine (game_id, kind, seq, data, reason, t) VALUES (?,?,?,?,?,?)",
                                   (game_id, "entry", seq, action, plan.entries_aside[i], time.time()))
                continue
            self._conn.execute(
                "INSERT INTO entries (game_id, seq, action, evidence, t, crc) VALUES (?,?,?,?,?,?)",
                (game_id, seq, action, evidence if _is_json(evidence) else None, t, records.crc(action)))
        for i, (_rowid, _game, cp_seq, data) in enumerate(checkpoints):
            if i not in plan.checkpoints_aside and _is_json(data):
                self._conn.execute("INSERT OR REPLACE INTO checkpoints (game_id, seq, data, crc) VALUES (?,?,?,?)",
                                   (game_id, cp_seq, data, records.crc(data)))
        report["actions"] += len(plan.entries)
        if plan.entries_aside:
            report["set_aside"] = report.get("set_aside", 0) + len(plan.entries_aside)
            log.error("store: game %s: resumes after move %s; %s readable action(s) set aside", game_id,
                      plan.resumed_at, len(plan.entries_aside))

    def _scan_images(self) -> int:
        for stale in self.images_dir.glob(".stage-*.tmp"):  # photos of rolls a crash left undecided
            stale.unlink(missing_ok=True)
        total = 0
        for p in self.images_dir.glob("*.jpg"):
            try:
                total += p.stat().st_size
            except OSError:
                pass
        for p in self.images_dir.glob("*.tmp"):  # half-written images from a power cut
            p.unlink(missing_ok=True)
        return total

    # -- games ----------------------------------------------------------------------------------
    def new_game(self, game: str, setup: dict[str, Any], seed: int) -> int:
        """Create a game and make it the active one; returns its id."""
        with self._lock, self._tx():
            text = _dumps(setup)
            cur = self._conn.execute("INSERT INTO games (game, setup, seed, created, crc) VALUES (?,?,?,?,?)",
                                     (game, text, int(seed), _now_iso(), records.game_crc(game, text, seed)))
            game_id = int(cur.lastrowid or 0)
            self._set_meta("active", str(game_id))
        return game_id

    def active_game_id(self) -> int | None:
        """The game the box resumes; a damaged pointer falls back to the newest game."""
        with self._lock:
            row = self._conn.execute("SELECT CAST(value AS BLOB) FROM meta WHERE key='active'").fetchone()
            if row is not None and bytes(row[0] or b"").isdigit():
                return int(row[0])
            newest = self._conn.execute("SELECT MAX(id) FROM games").fetchone()[0]
        return int(newest) if newest is not None else None

    def set_active(self, game_id: int) -> None:
        with self._lock, self._tx():
            self._require_game(game_id)
            self._set_meta("active", str(int(game_id)))

    def load_game(self, game_id: int) -> GameRecord:
        """The game's setup, its log in seq order and the newest checkpoint a replay may start from.

        Every record is checked (`device.records`): damaged ones, and the actions that cannot be replayed
        without them, are moved to the quarantine table in the same call and the record returned is the game
        as far as it stands without them (`GameRecord.set_aside` says what went). A game whose own row is
        damaged raises `DamagedGame`. Which checkpoint is usable is `engine.match.Match.replay_start`'s call
        (an undo logged after a checkpoint may reach behind it).
        """
        with self._lock:
            row = self._conn.execute(
                "SELECT id, game, CAST(setup AS BLOB), seed, created, crc FROM games WHERE id=?",
                (game_id,)).fetchone()
            if row is None:
                raise StoreError(f"There is no game {game_id} in the store.")
            setup = self._checked_setup(row)
            plan = records.restore_plan(self._checked("entries", "action", game_id, records.check_action),
                                        self._checked("checkpoints", "data", game_id, records.check))
            set_aside = self._quarantine(game_id, plan) if (plan.entries_aside or plan.checkpoints_aside) else []
        if plan.checkpoint is not None and plan.checkpoint[0] < plan.resumed_at:
            log.info("store: game %s: replaying from checkpoint %s", game_id, plan.checkpoint[0])
        return GameRecord(int(row[0]), row[1], setup, int(row[3]), row[4], plan.entries, plan.checkpoint,
                          set_aside, plan.damaged_at)

    def _checked_setup(self, row: tuple[Any, ...]) -> dict[str, Any]:
        game_id, game, raw, seed, _created, stored = row
        checked = records.check(game_id, 0, raw, None)
        if stored is not None and isinstance(raw, bytes) and isinstance(seed, int) and isinstance(game, str):
            if records.game_crc(game, raw.decode("utf-8", "replace"), seed) != stored:
                checked = records.Checked(game_id, 0, damage="its checksum does not match")
        if checked.damage is None and not isinstance(checked.value, dict):
            checked = records.Checked(game_id, 0, damage="its setup is not an object")
        if checked.damage is not None or not isinstance(seed, int) or not isinstance(game, str):
            raise DamagedGame(game_id, checked.damage or "its name or seed is unreadable")
        return checked.value

    def _checked(self, table: str, column: str, game_id: int, checker: Any) -> list[records.Checked]:
        return [checker(rowid, seq, raw, stored) for rowid, seq, raw, stored in self._conn.execute(
            f"SELECT rowid, seq, CAST({column} AS BLOB), crc FROM {table} WHERE game_id=? ORDER BY seq",
            (game_id,))]

    def _quarantine(self, game_id: int, plan: records.RestorePlan) -> list[dict[str, Any]]:
        """Move the rows the plan sets aside into the quarantine table, in one transaction (never deleted:
        `dicesight store check` lists them, and their bytes are kept as they were)."""
        moved: list[dict[str, Any]] = []
        with self._tx():
            for table, column, rows in (("entries", "action", plan.entries_aside),
                                        ("checkpoints", "data", plan.checkpoints_aside)):
                for rowid, reason in sorted(rows.items()):
                    seq = self._conn.execute(f"SELECT seq FROM {table} WHERE rowid=?", (rowid,)).fetchone()
                    self._conn.execute(
                        f"INSERT INTO quarantine (game_id, kind, seq, data, reason, t) SELECT game_id, ?, seq, "
                        f"CAST({column} AS BLOB), ?, ? FROM {table} WHERE rowid=?",
                        ("entry" if table == "entries" else "checkpoint", reason, time.time(), rowid))
                    self._conn.execute(f"DELETE FROM {table} WHERE rowid=?", (rowid,))
                    moved.append({"kind": "entry" if table == "entries" else "checkpoint",
                                  "seq": seq[0] if seq else None, "reason": reason})
        log.error("store: game %s: %s damaged or unreplayable record(s) moved to quarantine; the game resumes "
                  "after move %s", game_id, len(moved), plan.resumed_at)
        self.set_aside.append({"game": game_id, "records": len(moved), "resumed_at": plan.resumed_at,
                               "damaged_at": plan.damaged_at})
        return moved

    def quarantined(self) -> list[dict[str, Any]]:
        """Every record ever set aside, oldest first (for `dicesight store check`)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, game_id, kind, seq, LENGTH(data), reason, t FROM quarantine ORDER BY id").fetchall()
        return [{"id": i, "game": g, "kind": k, "seq": s, "bytes": n, "reason": r,
                 "time": _dt.datetime.fromtimestamp(t, _dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
                for i, g, k, s, n, r, t in rows]

    def list_games(self) -> list[dict[str, Any]]:
        """Every kept game, newest first, with its size and whether it is the active one."""
        active = self.active_game_id()
        with self._lock:
            rows = self._conn.execute(
                "SELECT g.id, g.game, g.created, CAST(g.setup AS BLOB), COUNT(e.id), COALESCE(MAX(e.seq), 0), MAX(e.t) "
                "FROM games g LEFT JOIN entries e ON e.game_id = g.id GROUP BY g.id ORDER BY g.id DESC"
            ).fetchall()
        out = []
        for gid, game, created, setup, count, last_seq, last_t in rows:
            title = _title(setup)
            out.append({"id": gid, "game": game, "created": created, "title": title, "actions": count,
                        "last_seq": last_seq, "active": gid == active,
                        "updated": _dt.datetime.fromtimestamp(last_t, _dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
                        if last_t else created})
        return out

    # -- the log --------------------------------------------------------------------------------
    def append(self, game_id: int, entry: Entry, evidence: dict[str, Any] | None = None) -> None:
        """Append one accepted action; it is on disk (fsynced) when this returns.

        Sequence numbers must grow: the log is append-only and a replay must see the same order.
        """
        action = _dumps(entry.action)
        ev = _dumps(evidence) if evidence is not None else None
        with self._lock:
            try:
                with self._tx():
                    last = self._conn.execute(
                        "SELECT COALESCE(MAX(seq), 0) FROM entries WHERE game_id=?", (game_id,)).fetchone()[0]
                    if entry.seq <= last:
                        raise StoreError(f"Game {game_id} already has action {last}; cannot append seq "
                                         f"{entry.seq} (the log is append-only).")
                    self._require_game(game_id)
                    self._conn.execute(
                        "INSERT INTO entries (game_id, seq, action, evidence, t, crc) VALUES (?,?,?,?,?,?)",
                        (game_id, int(entry.seq), action, ev, time.time(), records.crc(action)))
            except sqlite3.DatabaseError as exc:
                self._last_error = str(exc)
                raise StoreError(f"The action could not be saved: {exc}") from exc

    def save_checkpoint(self, game_id: int, seq: int, data: dict[str, Any]) -> None:
        """Keep a dumped state at `seq` so a restart replays only what follows it."""
        with self._lock, self._tx():
            self._require_game(game_id)
            text = _dumps(data)
            self._conn.execute("INSERT OR REPLACE INTO checkpoints (game_id, seq, data, crc) VALUES (?,?,?,?)",
                               (game_id, int(seq), text, records.crc(text)))
            self._conn.execute(
                "DELETE FROM checkpoints WHERE game_id=? AND seq NOT IN "
                "(SELECT seq FROM checkpoints WHERE game_id=? ORDER BY seq DESC LIMIT ?)",
                (game_id, game_id, CHECKPOINTS_KEPT))

    def evidence(self, game_id: int, seq: int) -> dict[str, Any] | None:
        """The evidence kept with an action (camera readings, image name), if any."""
        with self._lock:
            row = self._conn.execute("SELECT CAST(evidence AS BLOB) FROM entries WHERE game_id=? AND seq=?",
                                     (game_id, seq)).fetchone()
        value = records.check(0, 0, row[0], None).value if row and row[0] else None
        return value if isinstance(value, dict) else None  # damaged evidence is no evidence, not an error

    def export_game(self, game_id: int) -> dict[str, Any]:
        """The whole game as JSON: enough to replay it anywhere, with the evidence of each action."""
        rec = self.load_game(game_id)
        with self._lock:
            rows = self._conn.execute("SELECT seq, action, CAST(evidence AS BLOB), t FROM entries WHERE game_id=? "
                                      "ORDER BY seq", (game_id,)).fetchall()
        return {
            "format": "dicesight-game",
            "version": 1,
            "id": rec.id,
            "game": rec.game,
            "setup": rec.setup,
            "seed": rec.seed,
            "created": rec.created,
            "entries": [
                {"seq": seq, "action": json.loads(action),
                 "evidence": records.check(0, 0, ev, None).value if ev else None,
                 "time": _dt.datetime.fromtimestamp(t, _dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")}
                for seq, action, ev, t in rows
            ],
        }

    # -- images ---------------------------------------------------------------------------------
    def save_image(self, game_id: int, seq: int, jpeg: bytes) -> str:
        """Keep a roll's JPEG; returns its name. The oldest images go when the total passes the cap.

        Images are evidence, not the game: they are written atomically (temp + rename) but not fsynced,
        so a power cut may lose the latest picture, never an action.
        """
        return self.commit_image(self.stage_image(jpeg), game_id, seq)

    def stage_image(self, jpeg: bytes) -> StagedImage:
        """Write a roll's JPEG under a temporary name, before the engine has judged the roll.

        The write is what can fail (a full card), so it happens first; `commit_image` then only renames it
        once the action is accepted, and `discard_image` removes it when the action is refused: a refused
        roll leaves no file behind.
        """
        tmp = self.images_dir / f".stage-{os.urandom(6).hex()}.tmp"
        try:
            tmp.write_bytes(jpeg)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            self.storage_full = self.storage_full or _is_full(exc)
            raise
        return StagedImage(tmp, hashlib.sha256(jpeg).hexdigest()[:8], len(jpeg))

    @staticmethod
    def image_name(staged: StagedImage, game_id: int, seq: int) -> str:
        """The name a staged image will have as the evidence of action `seq` of game `game_id`."""
        return f"g{int(game_id)}-s{int(seq)}-{staged.digest}.jpg"

    def commit_image(self, staged: StagedImage, game_id: int, seq: int) -> str:
        """Give a staged image its final name (see `stage_image`); returns the name."""
        name = self.image_name(staged, game_id, seq)
        path = self.images_dir / name
        with self._lock:
            old = path.stat().st_size if path.exists() else 0
            os.replace(staged.path, path)
            self._image_bytes += staged.size - old
            self._prune_images(keep=name)
        return name

    @staticmethod
    def discard_image(staged: StagedImage) -> None:
        """Remove a staged image whose action was refused."""
        staged.path.unlink(missing_ok=True)

    def image_path(self, name: str) -> Path | None:
        """The file of an image name from `save_image`, or None (unknown, pruned or not a plain name)."""
        if not isinstance(name, str) or not _IMAGE_NAME.match(name):
            return None
        path = self.images_dir / name
        if path.resolve().parent != self.images_dir.resolve() or not path.is_file():
            return None
        return path

    def _prune_images(self, keep: str) -> None:
        if self._image_bytes <= self.image_cap_bytes:
            return
        files = []
        for p in self.images_dir.glob("*.jpg"):
            try:
                st = p.stat()
            except OSError:
                continue
            files.append((st.st_mtime_ns, p.name, st.st_size, p))
        files.sort()
        total = sum(f[2] for f in files)
        for _mtime, name, size, p in files:
            if total <= self.image_cap_bytes:
                break
            if name == keep:
                continue
            p.unlink(missing_ok=True)
            total -= size
        self._image_bytes = total

    # -- health ---------------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        """For /healthz: is the store usable and whether it had to recover. No paths: anyone on the Wi-Fi
        may read /healthz, and the state directory's location is nobody's business there."""
        out: dict[str, Any] = {"ok": True, "file": self.path.name}
        try:
            with self._lock:
                out["games"] = self._conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
                out["actions"] = self._conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
        except (sqlite3.Error, StoreError) as exc:
            out["ok"] = False
            out["error"] = str(exc)
        out["active_game"] = self.active_game_id() if out["ok"] else None
        out["images"] = {"bytes": self._image_bytes, "cap_bytes": self.image_cap_bytes}
        try:
            out["free_bytes"] = shutil.disk_usage(self.state_dir).free
        except OSError:
            out["free_bytes"] = None
        out["storage_full"] = self.storage_full or (out["free_bytes"] is not None
                                                    and out["free_bytes"] < LOW_SPACE_BYTES)
        if out["storage_full"]:
            out["ok"] = False
            out.setdefault("error", "storage full")
        if self._last_error:
            out["last_error"] = self._last_error
        if self.recovery:
            out["recovered"] = self.recovery_report()
        return out

    def recovery_report(self) -> dict[str, Any] | None:
        """What the start-up recovery did, for the players: file names only (the damaged file is kept
        beside the store under `kept_as`), how many games and actions came back, what was lost."""
        if not self.recovery:
            return None
        # SQLite's own report (`reason`) stays in the log and `dicesight store check`: it is hundreds of
        # lines of English no player can act on
        out = {k: v for k, v in self.recovery.items() if k not in ("moved_to", "reason")}
        out["kept_as"] = Path(str(self.recovery.get("moved_to", ""))).name
        return out

    def close(self) -> None:
        """Checkpoint the WAL into the main file and close; later calls raise StoreError."""
        with self._lock:
            if not isinstance(self._conn, _ClosedConnection):
                try:
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                except sqlite3.Error:
                    pass
                self._conn.close()
                self._conn = _ClosedConnection()  # type: ignore[assignment]

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- helpers --------------------------------------------------------------------------------
    def _tx(self) -> _Transaction:
        return _Transaction(self._conn, self)

    def _require_game(self, game_id: int) -> None:
        if self._conn.execute("SELECT 1 FROM games WHERE id=?", (game_id,)).fetchone() is None:
            raise StoreError(f"There is no game {game_id} in the store.")

    def _set_meta(self, key: str, value: str) -> None:
        self._conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))


class _ClosedConnection:
    """Stands in for the connection after close(): a web thread still asking gets a clear error."""

    in_transaction = False

    def execute(self, *args: Any) -> Any:
        raise StoreError("The store is closed (the box is shutting down).")

    executescript = execute


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (or ROLLBACK on any error): one commit, one fsync."""

    def __init__(self, conn: sqlite3.Connection, store: Store | None = None) -> None:
        self._conn = conn
        self._store = store

    def __enter__(self) -> None:
        self._conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            try:
                self._conn.execute("COMMIT")
            except sqlite3.Error as err:
                self._note(err)
                raise
            if self._store is not None:
                self._store.storage_full = False
        else:
            self._note(exc)
            if self._conn.in_transaction:  # SQLite already rolled back on SQLITE_FULL: keep its error
                self._conn.execute("ROLLBACK")

    def _note(self, exc: object) -> None:
        """Remember a write refused for lack of space: /healthz and the page say "storage full"."""
        if self._store is not None and _is_full(exc):
            self._store.storage_full = True


def _is_full(exc: object) -> bool:
    if isinstance(exc, OSError):
        return exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
    return isinstance(exc, sqlite3.Error) and (getattr(exc, "sqlite_errorcode", None) == 13  # SQLITE_FULL
                                               or "disk is full" in str(exc))


def _open_readonly(path: Path) -> sqlite3.Connection | None:
    try:
        conn = sqlite3.connect(str(path), isolation_level=None)
        conn.execute("SELECT name FROM sqlite_master").fetchall()
        return conn
    except sqlite3.DatabaseError as exc:  # not even the schema: only the page scan can help
        log.error("store: SQLite cannot read %s at all (%s); reading its pages directly", path, exc)
        return None


def _read_sql(path: Path, deadline: float, report: dict[str, Any]
              ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], dict[str, str]]:
    """Games, entries and meta values SQLite can still read from a damaged file."""
    conn = _open_readonly(path)
    if conn is None:
        return [], [], {}
    try:
        games = _read_rows(conn, "SELECT id, game, setup, seed, created FROM games", "games", deadline, report)
        entries = _read_rows(conn, "SELECT id, game_id, seq, action, evidence, t FROM entries", "entries",
                             deadline, report)
        meta = {r[1]: r[2] for r in _read_rows(conn, "SELECT rowid, key, value FROM meta", "meta", deadline,
                                               report)}
    finally:
        conn.close()
    return games, entries, meta


def _read_checkpoints(path: Path, deadline: float, report: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Checkpoints SQLite can still read (only a speed-up: replay from the setup works without them)."""
    conn = _open_readonly(path)
    if conn is None:
        return []
    try:
        return _read_rows(conn, "SELECT rowid, game_id, seq, data FROM checkpoints", "checkpoints", deadline,
                          report)
    finally:
        conn.close()


def _union(rows: list[tuple[Any, ...]], more: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Rows by their first column (the rowid), those SQLite read first, then any the page scan adds."""
    seen = {r[0]: r for r in more}
    seen.update({r[0]: r for r in rows})
    return [seen[k] for k in sorted(seen)]


def _title(setup: Any) -> str | None:
    """A game's title for the list; a damaged setup has none (the list must still show the game)."""
    try:
        value = json.loads(setup) if setup else None
    except (TypeError, ValueError):
        return None
    return value.get("title") if isinstance(value, dict) else None


def _is_json(text: Any) -> bool:
    if text is None:
        return True
    try:
        json.loads(text)
    except (TypeError, ValueError):
        return False
    return True


def _read_rows(conn: sqlite3.Connection, query: str, table: str, deadline: float, report: dict[str, Any]
               ) -> list[tuple[Any, ...]]:
    """Every row of `query` (whose first column is the rowid) that SQLite can still read.

    A full scan stops at the first unreadable page; then the rowids after it are looked up one by one, so
    rows in readable pages past the damage are still found: at most `PROBE_ROWS` of them and only until
    `deadline` (a scribbled page can claim a rowid of a hundred million; the page scan of `device.salvage`
    finds the rows such probing would, in time bounded by the file's size). Stopping early is reported.
    """
    rows: list[tuple[Any, ...]] = []
    last = 0
    try:
        for row in conn.execute(f"{query} ORDER BY 1"):
            rows.append(row)
            last = row[0]
        return rows
    except sqlite3.DatabaseError as exc:
        if "no such table" in str(exc):  # a file whose schema is gone: only the page scan can help
            return rows
        log.error("store: table %s is damaged after row %s (%s); probing the next rows one by one", table,
                  last, exc)
    try:
        high = conn.execute(f"SELECT MAX(rowid) FROM {table}").fetchone()[0] or 0
    except sqlite3.DatabaseError:
        high = last + PROBE_ROWS
    stop = min(int(high), last + PROBE_ROWS)
    for rowid in range(last + 1, stop + 1):
        if time.monotonic() > deadline:
            report["stopped_early"] = True
            log.error("store: repair time is up: stopped probing %s at row %s", table, rowid)
            break
        try:
            row = conn.execute(f"{query} WHERE rowid=?", (rowid,)).fetchone()
        except sqlite3.DatabaseError:
            continue
        if row is not None:
            rows.append(row)
    if stop < high:
        report["stopped_early"] = True
    return rows


def _fsync_dir(path: Path) -> None:
    """Make a rename in `path` durable (a power cut right after must not undo the repair)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
