"""Fault injection: damaged stored bytes never keep the box from starting, and lose nothing outside them.

Issue 32 #1: a byte flipped inside one log entry or checkpoint (SQLite's quick_check still passes) or a file
cut short made `store.load_game` raise, `dicesight run` exit 1 on every start and systemd give up. Here every
kind of stored record is damaged in place, the file is cut at every tenth of its length, pages are zeroed and
512-byte blocks scribbled at seeded places; each time the box (a real `Table` on the real file) must start,
keep every acknowledged action before the first damaged one, keep every other game whole, and say what it set
aside. Nothing is ever deleted: what the live store lacks is in its quarantine table or in the damaged file
kept beside it.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from device.store import DB_NAME, Store
from device.table import Table
from engine.games import get_rules
from engine.match import Entry, Match

ACTIONS = 60
CHECKPOINT_AT = 40


def roll(n: int) -> dict:
    return {"type": "roll", "dice": [1 + n % 6, 1 + (n * 5) % 6], "marker": f"mark-{n:04d}"}


def _played(tmp: Path) -> tuple[int, int]:
    """Two games: a long one with a checkpoint (active) and a short other one, closed cleanly."""
    store = Store(tmp)
    other = store.new_game("freeroll", {"title": "other-game-setup"}, 3)
    for n in range(1, 6):
        store.append(other, Entry(n, roll(1000 + n)))
    long = store.new_game("freeroll", {"title": "long-game-setup"}, 5)
    live = Match(get_rules("freeroll"), {"title": "long-game-setup"}, 5)
    for n in range(1, ACTIONS + 1):
        store.append(long, live.submit(roll(n)))
        if n == CHECKPOINT_AT:
            store.save_checkpoint(long, *live.checkpoint())
    store.close()
    return long, other


def _flip(path: Path, needle: bytes, offset: int = 2) -> None:
    data = bytearray(path.read_bytes())
    at = data.find(needle)
    assert at >= 0 and data.find(needle, at + 1) < 0, f"{needle!r} must be in the file once"
    data[at + offset] ^= 0x04
    path.write_bytes(bytes(data))


def _quick_check_passes(path: Path) -> bool:
    conn = sqlite3.connect(str(path))
    try:
        return conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def _start(tmp: Path) -> Table:
    """The box's start: open the store and resume the active game (what `dicesight run` does)."""
    return Table(Store(tmp))


def _kept_markers(table: Table, game_id: int) -> list[int]:
    return [int(e.action["marker"][5:]) for e in table.store.load_game(game_id).entries]


def test_a_flipped_byte_in_a_log_entry_sets_it_aside_and_the_game_resumes_before_it(tmp_path: Path) -> None:
    """Issue 32 #1: the flipped entry and those that depend on it are quarantined; the box starts and the
    game resumes right before the damage; the other game is untouched; the page is told in codes."""
    long, other = _played(tmp_path)
    _flip(tmp_path / DB_NAME, b"mark-0052")
    assert _quick_check_passes(tmp_path / DB_NAME)  # SQLite sees nothing wrong
    table = _start(tmp_path)
    snap = table.snapshot()
    assert table.game_id == long and snap["seq"] == 51  # everything before the damage, nothing invented
    assert _kept_markers(table, long) == list(range(1, 52))
    assert _kept_markers(table, other) == [1001, 1002, 1003, 1004, 1005]
    assert snap["store"]["code"] == "set_aside"
    assert snap["store"]["set_aside"][0] == {"game": long, "records": 9, "resumed_at": 51, "damaged_at": 52}
    kept = table.store.quarantined()
    assert [(q["kind"], q["seq"]) for q in kept][:2] == [("entry", 52), ("entry", 53)]
    assert kept[0]["reason"] == "its checksum does not match"
    table.submit({"type": "roll", "dice": [4, 4]})  # and play goes on from there
    table.close()
    table = _start(tmp_path)
    assert table.snapshot()["seq"] == 52
    table.close()


def test_damage_before_a_checkpoint_keeps_the_actions_after_it(tmp_path: Path) -> None:
    """Issue 32: a game is restored from the last good checkpoint and the good entries after it."""
    long, _other = _played(tmp_path)
    _flip(tmp_path / DB_NAME, b"mark-0030")
    table = _start(tmp_path)
    assert table.snapshot()["seq"] == ACTIONS  # the checkpoint at 40 carries the game past move 30
    assert [q["seq"] for q in table.store.quarantined()] == [30]
    table.close()


def test_a_flipped_byte_in_a_checkpoint_replays_from_the_log(tmp_path: Path) -> None:
    long, _other = _played(tmp_path)
    _flip(tmp_path / DB_NAME, b'{"count":40,')
    table = _start(tmp_path)
    assert table.game_id == long and table.snapshot()["seq"] == ACTIONS
    assert [(q["kind"], q["seq"]) for q in table.store.quarantined()] == [("checkpoint", CHECKPOINT_AT)]
    table.close()


def test_a_flipped_byte_in_a_game_setup_keeps_that_game_and_starts_a_free_roll(tmp_path: Path) -> None:
    """Issue 32 #1: a game whose own record is damaged cannot be replayed: it stays in the store, the box
    starts with a free roll and the page says which game could not be resumed."""
    long, other = _played(tmp_path)
    _flip(tmp_path / DB_NAME, b"{\"title\":\"long-game-setup\"}", offset=12)
    table = _start(tmp_path)
    snap = table.snapshot()
    assert table.game_id not in (long, other) and snap["seq"] == 0
    assert snap["store"]["not_resumed"] == {"game": long, "damaged": True}
    assert any(g["id"] == long for g in table.store.list_games())  # still listed, never deleted
    assert _kept_markers(table, other) == [1001, 1002, 1003, 1004, 1005]
    table.close()


def test_a_damaged_active_game_pointer_falls_back_to_the_newest_game(tmp_path: Path) -> None:
    long, _other = _played(tmp_path)
    conn = sqlite3.connect(str(tmp_path / DB_NAME))
    conn.execute("UPDATE meta SET value='1x' WHERE key='active'")
    conn.commit()
    conn.close()
    table = _start(tmp_path)
    assert table.game_id == long and table.snapshot()["seq"] == ACTIONS
    table.close()


def test_damaged_evidence_is_no_evidence_not_an_error(tmp_path: Path) -> None:
    store = Store(tmp_path)
    gid = store.new_game("freeroll", {}, 1)
    store.append(gid, Entry(1, roll(1)), evidence={"image": "evidence-body-xyz"})
    store.close()
    _flip(tmp_path / DB_NAME, b"evidence-body-xyz", offset=0)
    data = (tmp_path / DB_NAME).read_bytes().replace(b"vidence-body-xyz\"}", b"vidence-body-xyz\"!")
    (tmp_path / DB_NAME).write_bytes(data)
    store = Store(tmp_path)
    assert store.evidence(gid, 1) is None and store.export_game(gid)["entries"][0]["evidence"] is None
    store.close()


def _every_action_accounted_for(tmp: Path, table: Table, games: tuple[int, int]) -> None:
    """Each game the box still has keeps acknowledged actions only, in order, and resumes at its last one
    (a gap-free prefix, or a checkpoint with the actions after it); what it lacks is in the damaged file
    kept beside it or in the quarantine table (nothing deleted)."""
    expected = {games[0]: list(range(1, ACTIONS + 1)), games[1]: [1001, 1002, 1003, 1004, 1005]}
    for gid, markers in expected.items():
        kept = _safe_markers(table, gid)
        assert kept == [m for m in markers if m in kept]
        if kept and gid == table.game_id:
            assert table.snapshot()["seq"] == markers.index(kept[-1]) + 1
    lacks = any(len(_safe_markers(table, g)) < len(m) for g, m in expected.items())
    if lacks:
        assert list(tmp.glob(DB_NAME + ".corrupt-*")) or table.store.quarantined()


def _safe_markers(table: Table, gid: int) -> list[int]:
    try:
        return _kept_markers(table, gid)
    except Exception:  # noqa: BLE001
        return []


@pytest.mark.parametrize("tenth", range(1, 10))
def test_a_file_cut_at_every_tenth_starts_and_keeps_a_prefix(tmp_path: Path, tenth: int) -> None:
    games = _played(tmp_path)
    path = tmp_path / DB_NAME
    size = path.stat().st_size
    with path.open("r+b") as f:
        f.truncate(size * tenth // 10)
    table = _start(tmp_path)
    _every_action_accounted_for(tmp_path, table, games)
    assert table.snapshot()["store"]["code"] in ("recovered", "set_aside", "not_resumed")
    table.close()


@pytest.mark.parametrize("page", [1, 2, 3, 5, 8])
def test_a_zeroed_page_starts_and_keeps_a_prefix(tmp_path: Path, page: int) -> None:
    games = _played(tmp_path)
    path = tmp_path / DB_NAME
    data = bytearray(path.read_bytes())
    if page * 4096 > len(data):
        pytest.skip("the file is smaller")
    data[(page - 1) * 4096:page * 4096] = bytes(4096)
    path.write_bytes(bytes(data))
    table = _start(tmp_path)
    _every_action_accounted_for(tmp_path, table, games)
    table.close()


@pytest.mark.parametrize("seed", range(12))
def test_scribbled_blocks_start_and_keep_a_prefix(tmp_path: Path, seed: int) -> None:
    games = _played(tmp_path)
    path = tmp_path / DB_NAME
    data = bytearray(path.read_bytes())
    rng = random.Random(seed)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(0, len(data) - 512)
        data[at:at + 512] = rng.randbytes(512)
    path.write_bytes(bytes(data))
    table = _start(tmp_path)
    _every_action_accounted_for(tmp_path, table, games)
    table.close()


@pytest.mark.parametrize("seed", range(20))
def test_a_byte_flipped_anywhere_starts_and_keeps_a_prefix(tmp_path: Path, seed: int) -> None:
    games = _played(tmp_path)
    path = tmp_path / DB_NAME
    data = bytearray(path.read_bytes())
    rng = random.Random(1000 + seed)
    data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    path.write_bytes(bytes(data))
    table = _start(tmp_path)
    _every_action_accounted_for(tmp_path, table, games)
    table.close()


def _scribble_page_holding(path: Path, needle: bytes) -> None:
    data = bytearray(path.read_bytes())
    page = data.find(needle) // 4096
    data[page * 4096:(page + 1) * 4096] = random.Random(5).randbytes(4096)
    path.write_bytes(bytes(data))


def _damaged(tmp: Path) -> tuple[int, int]:
    games = _played(tmp)
    _scribble_page_holding(tmp / DB_NAME, b"mark-0020")  # a page of the long game's log
    return games


def test_a_start_killed_while_repairing_repairs_again_and_says_so(tmp_path: Path, monkeypatch) -> None:
    """Issue 32 #2: killed (as systemd does at its timeout) in the middle of a repair, the next start opened an
    empty store in place of the damaged one and nobody was told. The repair now writes beside the damaged file
    and swaps only when done: the next start finds the damaged file where it was and repairs it again."""
    games = _damaged(tmp_path)

    def killed(*_args, **_kwargs):
        raise SystemExit("killed by systemd")

    monkeypatch.setattr("device.salvage.scan", killed)
    with pytest.raises(SystemExit):
        Store(tmp_path)
    monkeypatch.undo()
    table = _start(tmp_path)
    assert table.snapshot()["store"]["code"] == "recovered"
    _every_action_accounted_for(tmp_path, table, games)
    assert table.store.list_games()  # never an empty store in place of the damaged one
    table.close()


def test_a_start_killed_after_moving_the_damaged_file_finishes_the_swap(tmp_path: Path, monkeypatch) -> None:
    games = _damaged(tmp_path)
    real_replace = __import__("os").replace

    def moved_then_killed(src, dst):
        real_replace(src, dst)
        if str(dst).endswith(DB_NAME) and ".salvage" in str(src):
            raise SystemExit("power cut")

    original = Store._move_aside

    def move_then_cut(self, aside, reason):
        original(self, aside, reason)
        raise SystemExit("power cut")

    monkeypatch.setattr(Store, "_move_aside", move_then_cut)
    with pytest.raises(SystemExit):
        Store(tmp_path)
    monkeypatch.undo()
    assert not (tmp_path / DB_NAME).exists() and (tmp_path / (DB_NAME + ".salvage")).exists()
    table = _start(tmp_path)
    assert table.snapshot()["store"]["code"] == "recovered"  # the report was kept in the repaired file
    _every_action_accounted_for(tmp_path, table, games)
    assert table.store.list_games()
    table.close()


def test_a_table_claiming_a_hundred_million_rows_is_probed_within_bounds(tmp_path: Path) -> None:
    """Issue 32 #2: a scribbled store whose damaged table reports MAX(rowid) of 103 million was probed row by
    row for over 366 s (systemd kills a start at 120 s). Probing is bounded; the page scan finds the rest."""
    games = _played(tmp_path)
    conn = sqlite3.connect(str(tmp_path / DB_NAME))
    conn.execute("INSERT INTO entries (id, game_id, seq, action, t) VALUES (103000000, 1, 999, '{}', 0)")
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    _scribble_page_holding(tmp_path / DB_NAME, b"mark-0020")
    table = _start(tmp_path)
    report = table.store.recovery
    assert report is not None and report.get("stopped_early") is True
    _every_action_accounted_for(tmp_path, table, games)
    table.close()


def test_a_full_card_is_named_storage_full_not_a_camera_problem(tmp_path: Path) -> None:
    """Issue 32 #6: with the disk full, watching phones read "Camera problem - enter dice by hand (... the roll
    could not be saved ...)" while entry by hand was refused too. SQLite's own "database or disk is full"
    (its page limit reached) is named storage full; the camera stays fine; a refused write loses nothing."""
    from engine.core import IllegalAction
    from vision.reading import Reading

    table = _start(tmp_path)
    table.submit({"type": "roll", "dice": [3, 4]})
    pages = table.store._conn.execute("PRAGMA page_count").fetchone()[0]
    table.store._conn.execute(f"PRAGMA max_page_count={pages}")
    die = Reading(5, "5", "white", 0.99, (50.0, 50.0), (40, 40, 20, 20), True)
    refused = 0
    for _ in range(200):  # until the file must grow
        try:
            table.submit({"type": "roll", "dice": [2, 2], "pad": "x" * 500})
        except IllegalAction:
            raise
        except Exception:  # noqa: BLE001 - the store's refusal
            refused += 1
            break
    assert refused
    table.tray.record_roll([die], [die.to_dict()], None)  # the camera's roll meets a full card too
    snap = table.snapshot()
    assert snap["store"]["storage_full"] is True and "roll" in snap["store"]["faults"]
    assert snap["camera"]["status"] != "error" and snap["tray"]["message"] == ""
    assert table.health()["store"]["storage_full"] is True
    acknowledged = snap["seq"]
    table.close()
    table = _start(tmp_path)  # nothing accepted was lost, nothing refused was half-kept
    assert table.snapshot()["seq"] == acknowledged
    table.close()
