"""The store keeps games across restarts and survives a damaged file with what can still be read."""

from __future__ import annotations

import json
import logging
import os
import random
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from device.store import DB_NAME, Store, StoreError
from engine.core import IllegalAction
from engine.games import get_rules
from engine.match import Entry, Match


def _quick_ok(path: Path) -> bool:
    import sqlite3

    conn = sqlite3.connect(str(path))
    try:
        return conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def roll(n: int) -> dict:
    return {"type": "roll", "dice": [1 + n % 6, 1 + (n * 7) % 6], "marker": f"marker-{n:05d}"}


def test_game_survives_reopen_with_log_in_order(tmp_path: Path) -> None:
    store = Store(tmp_path)
    gid = store.new_game("freeroll", {"title": "Friday"}, seed=42)
    for n in range(1, 11):
        store.append(gid, Entry(n, roll(n)))
    store.close()

    store = Store(tmp_path)
    assert store.active_game_id() == gid
    rec = store.load_game(gid)
    assert (rec.game, rec.setup, rec.seed) == ("freeroll", {"title": "Friday"}, 42)
    assert [e.seq for e in rec.entries] == list(range(1, 11))
    assert rec.entries[3].action == roll(4)
    assert rec.checkpoint is None
    store.close()


def test_durability_settings(tmp_path: Path) -> None:
    store = Store(tmp_path)
    conn = store._conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL: fsync on every commit
    store.close()


def test_replay_from_store_equals_live_match(tmp_path: Path) -> None:
    rules = get_rules("freeroll")
    live = Match(rules, {}, 7)
    store = Store(tmp_path)
    gid = store.new_game("freeroll", {}, 7)
    for n in range(1, 30):
        action = {"type": "undo"} if n % 5 == 0 else roll(n)
        store.append(gid, live.submit(action))
        if n == 12:
            store.save_checkpoint(gid, *live.checkpoint())
    store.close()

    rec = Store(tmp_path).load_game(gid)
    assert rec.checkpoint is not None and rec.checkpoint[0] == 12
    replayed = Match.replay(rules, rec.setup, rec.seed, rec.entries, rec.checkpoint)
    assert replayed.state == live.state
    assert replayed.seq == live.seq


@pytest.mark.parametrize("after", [
    [{"type": "undo"}],  # undoes the action just before the checkpoint
    [{"type": "undo"}, {"type": "undo"}, {"type": "redo"}],
    [roll(100), {"type": "undo"}, {"type": "undo"}],
])
def test_undo_reaching_behind_a_checkpoint_still_replays(tmp_path: Path, after: list[dict]) -> None:
    rules = get_rules("freeroll")
    live = Match(rules, {}, 7)
    store = Store(tmp_path)
    gid = store.new_game("freeroll", {}, 7)
    for n in range(1, 21):
        store.append(gid, live.submit(roll(n)))
        if n in (10, 20):
            store.save_checkpoint(gid, *live.checkpoint())
    for action in after:
        store.append(gid, live.submit(action))
    rec = Store(tmp_path).load_game(gid)
    assert rec.checkpoint is not None and rec.checkpoint[0] == 10  # the one at 20 cannot be replayed from
    replayed = Match.replay(rules, rec.setup, rec.seed, rec.entries, rec.checkpoint)
    assert replayed.state == live.state


def test_append_only_refuses_rewrites_and_unknown_games(tmp_path: Path) -> None:
    store = Store(tmp_path)
    gid = store.new_game("freeroll", {}, 1)
    store.append(gid, Entry(1, roll(1)))
    with pytest.raises(StoreError, match="append-only"):
        store.append(gid, Entry(1, roll(99)))
    with pytest.raises(StoreError, match="no game 77"):
        store.append(77, Entry(1, roll(1)))
    with pytest.raises(StoreError, match="no game 77"):
        store.load_game(77)
    with pytest.raises(StoreError):
        store.set_active(77)
    assert [e.action for e in store.load_game(gid).entries] == [roll(1)]


def test_closed_store_says_so(tmp_path: Path) -> None:
    store = Store(tmp_path)
    gid = store.new_game("freeroll", {}, 1)
    store.close()
    store.close()  # twice is fine
    with pytest.raises(StoreError, match="closed"):
        store.append(gid, Entry(1, roll(1)))
    with pytest.raises(StoreError, match="closed"):
        store.load_game(gid)
    assert store.status()["ok"] is False


def test_several_games_one_active(tmp_path: Path) -> None:
    store = Store(tmp_path)
    assert store.active_game_id() is None
    a = store.new_game("freeroll", {"title": "A"}, 1)
    b = store.new_game("freeroll", {"title": "B"}, 2)
    store.append(a, Entry(1, roll(1)))
    assert store.active_game_id() == b
    store.set_active(a)
    games = {g["id"]: g for g in store.list_games()}
    assert games[a]["active"] and not games[b]["active"]
    assert games[a]["actions"] == 1 and games[b]["actions"] == 0
    assert games[a]["title"] == "A"


def test_export_is_json_with_evidence(tmp_path: Path) -> None:
    store = Store(tmp_path)
    gid = store.new_game("freeroll", {}, 3)
    store.append(gid, Entry(1, roll(1)), evidence={"readings": [{"value": 2, "confidence": 0.9}]})
    store.append(gid, Entry(2, {"type": "undo"}))
    out = json.loads(json.dumps(store.export_game(gid)))
    assert out["game"] == "freeroll" and out["seed"] == 3
    assert [e["seq"] for e in out["entries"]] == [1, 2]
    assert out["entries"][0]["evidence"]["readings"][0]["value"] == 2
    assert out["entries"][1]["evidence"] is None
    assert store.evidence(gid, 1) == {"readings": [{"value": 2, "confidence": 0.9}]}


def test_only_recent_checkpoints_kept_latest_loaded(tmp_path: Path) -> None:
    store = Store(tmp_path)
    gid = store.new_game("freeroll", {}, 1)
    for n in range(1, 21):
        store.append(gid, Entry(n, roll(n)))
        if n % 4 == 0:
            store.save_checkpoint(gid, n, {"at": n})
    assert store.load_game(gid).checkpoint == (20, {"at": 20})


def test_images_capped_oldest_pruned_and_no_traversal(tmp_path: Path) -> None:
    store = Store(tmp_path, image_cap_bytes=10_000)
    names = [store.save_image(1, n, bytes([n]) * 3000) for n in range(1, 6)]
    kept = [n for n in names if store.image_path(n) is not None]
    assert kept == names[-3:]  # 3 x 3000 fits under 10,000; the two oldest went
    assert store.image_path(names[-1]).read_bytes() == bytes([5]) * 3000
    assert store.status()["images"]["bytes"] <= 10_000
    (tmp_path / "secret.jpg").write_bytes(b"x")
    for bad in ("../secret.jpg", "../" + DB_NAME, "/etc/passwd", "images/../../secret.jpg", "", "g1-s1.jpg"):
        assert store.image_path(bad) is None


def test_concurrent_readers_while_writing(tmp_path: Path) -> None:
    store = Store(tmp_path)
    gid = store.new_game("freeroll", {}, 1)
    errors: list[BaseException] = []
    done = threading.Event()

    def reader() -> None:
        try:
            while not done.is_set():
                seqs = [e.seq for e in store.load_game(gid).entries]
                assert seqs == list(range(1, len(seqs) + 1))
                store.status()
                store.list_games()
        except BaseException as exc:  # noqa: BLE001 - reported to the main thread
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    for n in range(1, 101):
        store.append(gid, Entry(n, roll(n)))
    done.set()
    for t in threads:
        t.join()
    assert not errors
    assert len(store.load_game(gid).entries) == 100


def _corrupt_page_holding(path: Path, marker: bytes) -> None:
    data = bytearray(path.read_bytes())
    at = data.find(marker)
    assert at > 0
    page = at // 4096
    rnd = random.Random(5)
    data[page * 4096:(page + 1) * 4096] = bytes(rnd.randrange(256) for _ in range(4096))
    path.write_bytes(bytes(data))


def test_corrupt_page_moved_aside_and_readable_prefix_recovered(tmp_path: Path, caplog) -> None:
    store = Store(tmp_path)
    big = store.new_game("freeroll", {"title": "long"}, 1)
    for n in range(1, 400):
        store.append(big, Entry(n, {**roll(n), "pad": "x" * 100}))
    store.save_checkpoint(big, 50, {"at": 50})
    small = store.new_game("freeroll", {"title": "short"}, 2)
    store.append(small, Entry(1, roll(1)))
    store.close()
    _corrupt_page_holding(tmp_path / DB_NAME, b"marker-00200")

    with caplog.at_level(logging.ERROR, logger="dicesight.store"):
        store = Store(tmp_path)
    assert "failed its integrity check" in caplog.text and "moved it aside" in caplog.text
    aside = list(tmp_path.glob(DB_NAME + ".corrupt-*"))
    assert len(aside) == 1
    status = store.status()
    assert status["ok"] and status["recovered"]["kept_as"] == aside[0].name
    assert str(tmp_path) not in str(status)  # /healthz shows no path of the box

    rec = store.load_game(big)
    seqs = [e.seq for e in rec.entries]
    assert 50 <= len(seqs) < 200  # a gap-free prefix, stopping before the damaged page
    assert seqs == list(range(1, len(seqs) + 1))
    assert rec.checkpoint == (50, {"at": 50})
    assert [e.action for e in store.load_game(small).entries] == [roll(1)]
    assert store.active_game_id() == small

    store.append(big, Entry(len(seqs) + 1, roll(1000)))  # the game goes on from there
    store.close()
    store = Store(tmp_path)  # the new file is healthy; the players are still told until a new game
    assert store.status()["recovered"]["kept_as"] == aside[0].name and _quick_ok(tmp_path / DB_NAME)
    store.dismiss_recovery()
    store.close()
    assert Store(tmp_path).status().get("recovered") is None


def test_garbage_file_gives_fresh_store(tmp_path: Path, caplog) -> None:
    (tmp_path / DB_NAME).write_bytes(b"this is not a database" * 500)
    with caplog.at_level(logging.ERROR, logger="dicesight.store"):
        store = Store(tmp_path)
    assert "moved it aside" in caplog.text and "nothing could be recovered" in caplog.text
    assert store.list_games() == []
    gid = store.new_game("freeroll", {}, 1)
    store.append(gid, Entry(1, roll(1)))
    assert len(store.load_game(gid).entries) == 1


@given(st.lists(st.sampled_from(["roll", "undo", "redo"]), min_size=1, max_size=40), st.data())
@settings(max_examples=200, deadline=None)
def test_checkpoint_choice_agrees_with_the_engine(kinds: list[str], data) -> None:
    """Match.replay_start (the store asks it which checkpoint to use) says exactly what Match.replay does."""
    rules = get_rules("freeroll")
    live = Match(rules, {}, 1)
    for n, kind in enumerate(kinds):
        try:
            live.submit(roll(n) if kind == "roll" else {"type": kind})
        except IllegalAction:
            pass
    entries = live.entries
    if not entries:
        return
    cut = data.draw(st.integers(min_value=0, max_value=len(entries)))
    at = Match.replay(rules, {}, 1, entries[:cut])  # the live game as it was at the checkpoint
    checkpoint = at.checkpoint()
    try:
        fast = Match.replay(rules, {}, 1, entries, checkpoint)
        works = fast.state == live.state
    except IllegalAction:
        works = False
    assert (Match.replay_start(entries, [checkpoint[0]]) == checkpoint[0]) == works


def _store_with_games(tmp_path: Path, games: int = 4, actions: int = 300) -> list[int]:
    store = Store(tmp_path)
    ids = []
    for g in range(games):
        gid = store.new_game("freeroll", {"title": f"game {g}"}, g)
        for n in range(1, actions + 1):
            store.append(gid, Entry(n, roll(n)), {"readings": [{"value": n % 6 + 1, "confidence": 0.9}]})
        ids.append(gid)
    store.close()
    return ids


def test_a_store_cut_to_half_gives_back_the_games_its_pages_still_hold(tmp_path: Path) -> None:
    """Issue 11 #6: a database truncated to half recovered 0 of its games although most rows were readable.
    SQLite loses the tree; the page scan (device/salvage.py) still finds the rows on the surviving pages."""
    ids = _store_with_games(tmp_path)
    path = tmp_path / DB_NAME
    os.truncate(path, path.stat().st_size // 2 // 4096 * 4096)
    store = Store(tmp_path)
    report = store.status()["recovered"]
    assert report["games"] == len(ids), report  # every game's setup survived on the first pages
    assert report["actions"] >= 300, report  # at least the whole first game's log
    first = store.load_game(ids[0])
    assert [e.seq for e in first.entries] == list(range(1, 301))
    assert [e.action for e in first.entries][:3] == [roll(1), roll(2), roll(3)]
    assert report["rows_from_pages"] > 0  # SQLite alone would not have found them
    assert list(tmp_path.glob(DB_NAME + ".corrupt-*")), "the damaged file is kept for the players"


def test_an_empty_store_file_is_reported_not_silently_replaced(tmp_path: Path, caplog) -> None:
    """Issue 11 #6: a 0-byte database was replaced without a word. It is kept aside and reported."""
    (tmp_path / DB_NAME).write_bytes(b"")
    with caplog.at_level(logging.ERROR, logger="dicesight.store"):
        store = Store(tmp_path)
    report = store.status()["recovered"]
    assert store.recovery["reason"] == "the file is empty (0 bytes)" and report["games"] == 0
    assert "reason" not in report  # phones are told what came back, not SQLite's report (issue 32 #7)
    assert "nothing could be recovered" in caplog.text
    assert store.list_games() == []
