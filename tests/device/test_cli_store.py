"""`dicesight store check|salvage|restore` as a person runs it (issue 32: keep the damaged file where
`dicesight` can list it and restore from it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from device.store import DB_NAME, Store
from device.table import Table

sys.path.insert(0, str(Path(__file__).parent))
from test_store_faults import _damaged, _flip, _played  # noqa: E402


def dicesight(*args: str) -> tuple[int, list[dict]]:
    done = subprocess.run([sys.executable, "-m", "device.cli", *args, "--json"], capture_output=True, text=True,
                          timeout=120, cwd=Path(__file__).resolve().parents[2])
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def test_check_names_the_damaged_move_then_lists_what_was_set_aside(tmp_path: Path) -> None:
    long, _other = _played(tmp_path)
    _flip(tmp_path / DB_NAME, b"mark-0052")
    code, (report,) = dicesight("store", "check", "--state-dir", str(tmp_path))
    assert code == 1 and report["integrity"] == "ok"  # SQLite is content; the checksums are not
    assert [g["damaged"] for g in report["games"] if g["id"] == long] == [
        [{"seq": 52, "reason": "its checksum does not match"}]]
    Table(Store(tmp_path)).close()  # the box starts and sets the damage aside
    code, (report,) = dicesight("store", "check", "--state-dir", str(tmp_path))
    assert code == 0 and [q["seq"] for q in report["quarantined"]] == list(range(52, 61))


def test_restore_brings_a_kept_file_back_and_keeps_the_one_it_replaces(tmp_path: Path) -> None:
    box = tmp_path / "box"
    box.mkdir()
    _damaged(box)
    Table(Store(box)).close()  # the start repairs it: the damaged file is kept beside the store
    (kept,) = box.glob(DB_NAME + ".corrupt-*")
    code, (report,) = dicesight("store", "check", "--state-dir", str(box))
    assert kept.name in report["kept_files"]
    out = tmp_path / "copy"
    code, (salvaged,) = dicesight("store", "salvage", str(kept), "--out", str(out))
    assert code == 0 and (out / DB_NAME).exists() and {g["id"] for g in salvaged["games"]} == {1, 2}
    code, (restored,) = dicesight("store", "restore", str(kept), "--state-dir", str(box))
    assert code == 0 and restored["replaced"].startswith(DB_NAME + ".replaced-")
    assert (box / restored["replaced"]).exists()


def test_a_missing_file_is_a_clear_message(tmp_path: Path) -> None:
    code, (out,) = dicesight("store", "restore", str(tmp_path / "nope.sqlite"), "--state-dir", str(tmp_path))
    assert code == 2 and out["error"]["code"] == "no_file"
