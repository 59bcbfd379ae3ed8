"""`dicesight store check|salvage|restore`: look at the box's saved games and its damaged files by hand.

Why a command: the box repairs its store by itself at start (device/store.py), and keeps what it could not use
(damaged files beside the store as `dicesight.sqlite.corrupt-*`, damaged records in its quarantine table).
Someone must be able to see that, and to bring a kept file back, without knowing SQLite.

- `check`: reads only. The store's integrity, every game's records checked as the box checks them at start,
  the quarantined records, the damaged files kept beside the store.
- `salvage FILE --out DIR`: a repaired store in DIR (a new state directory) from any damaged file.
- `restore FILE`: the kept FILE becomes the box's store again, repaired; the current store is kept beside it.
  Stop the box first (`systemctl stop dicesight`).
"""

from __future__ import annotations

import datetime as _dt
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import records
from .store import DB_NAME, Store

Emit = Callable[[dict[str, Any]], None]


def run(action: str, state_dir: Path, file: Path | None, out: Path | None, emit: Emit) -> int:
    if action == "check":
        return check(state_dir, emit)
    if file is None or not file.is_file():
        emit({"error": {"code": "no_file", "message": f"There is no file {file} to {action} from."}})
        return 2
    if action == "salvage":
        if out is None:
            emit({"error": {"code": "no_out", "message": "Say where the repaired store goes: --out DIR."}})
            return 2
        return salvage(file, out, emit)
    return restore(file, state_dir, emit)


def check(state_dir: Path, emit: Emit) -> int:
    """Report the store and what was set aside; exit 1 if anything in the live store is damaged."""
    path = state_dir / DB_NAME
    kept = sorted(p.name for p in state_dir.glob(DB_NAME + ".*") if not p.name.endswith(("-wal", "-shm")))
    if not path.exists():
        emit({"event": "store", "file": str(path), "exists": False, "kept_files": kept})
        return 1
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        report = {"event": "store", "file": str(path), "exists": True, "integrity": _integrity(conn),
                  "games": _games(conn), "quarantined": _quarantined(conn), "kept_files": kept}
    except sqlite3.DatabaseError as exc:
        report = {"event": "store", "file": str(path), "exists": True, "integrity": str(exc), "games": [],
                  "quarantined": [], "kept_files": kept}
    finally:
        conn.close()
    emit(report)
    damaged = report["integrity"] != "ok" or any(g["damaged"] for g in report["games"])
    return 1 if damaged else 0


def _integrity(conn: sqlite3.Connection) -> str:
    rows = [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()]
    return "ok" if rows == ["ok"] else "; ".join(str(r) for r in rows[:3])


def _games(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    has_crc = "crc" in {r[1] for r in conn.execute("PRAGMA table_info(entries)")}
    crc = "crc" if has_crc else "NULL"
    out = []
    for (gid, game) in conn.execute("SELECT id, game FROM games ORDER BY id").fetchall():
        rows = conn.execute(f"SELECT rowid, seq, CAST(action AS BLOB), {crc} FROM entries WHERE game_id=? "
                            "ORDER BY seq", (gid,)).fetchall()
        checked = [records.check_action(*r) for r in rows]
        damaged = [{"seq": c.seq, "reason": c.damage} for c in checked if c.damage]
        out.append({"id": gid, "game": game, "actions": len(rows), "damaged": damaged})
    return out


def _quarantined(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name='quarantine'").fetchone():
        return []
    return [{"game": g, "kind": k, "seq": s, "bytes": n, "reason": r} for g, k, s, n, r in conn.execute(
        "SELECT game_id, kind, seq, LENGTH(data), reason FROM quarantine ORDER BY id")]


def salvage(file: Path, out: Path, emit: Emit) -> int:
    """Copy a damaged file into a fresh state directory and let the store repair it there."""
    if (out / DB_NAME).exists():
        emit({"error": {"code": "out_exists", "message": f"{out / DB_NAME} exists: choose an empty folder."}})
        return 2
    out.mkdir(parents=True, exist_ok=True)
    _copy_with_wal(file, out / DB_NAME)
    return _open_and_report(out, emit)


def restore(file: Path, state_dir: Path, emit: Emit) -> int:
    """Put a kept file back as the box's store (repaired); the store it replaces is kept, never deleted."""
    path = state_dir / DB_NAME
    replaced = None
    if path.exists():
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        replaced = path.with_name(f"{DB_NAME}.replaced-{stamp}")
        for suffix in ("", "-wal", "-shm"):
            if Path(str(path) + suffix).exists():
                os.replace(Path(str(path) + suffix), Path(str(replaced) + suffix))
    _copy_with_wal(file, path)
    code = _open_and_report(state_dir, emit, replaced=replaced.name if replaced else None)
    return code


def human(record: dict[str, Any]) -> str:
    """The `check` and `restore` reports as lines a person reads."""
    if record.get("event") == "store":
        if not record["exists"]:
            lines = [f"No store at {record['file']}."]
        else:
            lines = [f"{record['file']}: integrity {record['integrity']}"]
            for g in record["games"]:
                bad = f", DAMAGED at move(s) {', '.join(str(d['seq']) for d in g['damaged'])}" if g["damaged"] else ""
                lines.append(f"  game {g['id']} ({g['game']}): {g['actions']} actions{bad}")
            if record["quarantined"]:
                lines.append(f"  {len(record['quarantined'])} record(s) set aside in quarantine:")
                lines += [f"    game {q['game']} {q['kind']} {q['seq']}: {q['reason']}" for q in record["quarantined"]]
        lines += [f"  kept beside it: {name}" for name in record["kept_files"]]
        return "\n".join(lines)
    lines = [f"Repaired store written: {record['file']}"]
    if record.get("replaced"):
        lines.append(f"  the store it replaces is kept as {record['replaced']}")
    lines += [f"  game {g['id']} ({g['game']}): " + (f"{g['actions']} actions" if "actions" in g else g["error"])
              for g in record["games"]]
    return "\n".join(lines)


def _copy_with_wal(src: Path, dst: Path) -> None:
    shutil.copy2(src, dst)
    if Path(str(src) + "-wal").exists():
        shutil.copy2(Path(str(src) + "-wal"), Path(str(dst) + "-wal"))


def _open_and_report(state_dir: Path, emit: Emit, **extra: Any) -> int:
    store = Store(state_dir)
    try:
        games = []
        for g in store.list_games():
            try:
                rec = store.load_game(g["id"])  # checks every record, setting damaged ones aside
                games.append({"id": g["id"], "game": g["game"], "actions": len(rec.entries)})
            except Exception as exc:  # noqa: BLE001 - a game that cannot load is reported, not fatal
                games.append({"id": g["id"], "game": g["game"], "error": str(exc)})
        emit({"event": "restored", "file": str(store.path), "repair": store.recovery_report(), "games": games,
              "set_aside": store.set_aside, **{k: v for k, v in extra.items() if v}})
    finally:
        store.close()
    return 0
