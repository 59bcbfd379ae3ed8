"""The broadcaster: each change encoded once, delivered in order, a slow phone keeping only the newest."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from device.broadcaster import Broadcaster
from device.store import DB_NAME, Store
from device.table import Table
from webui import create_app


def test_every_watcher_gets_the_same_encoded_update() -> None:
    hub = Broadcaster()
    phones = [hub.subscribe() for _ in range(3)]
    hub.publish({"seq": 4, "phase": "roll"})
    updates = [p.get_update(timeout=0) for p in phones]
    assert len({id(u) for u in updates}) == 1  # one Update object, so one encoding for every phone
    update = updates[0]
    assert update.sse.startswith("id: 4\nevent: snapshot\ndata: ")
    assert json.loads(update.sse.split("data: ", 1)[1]) == {"seq": 4, "phase": "roll"}
    for p in phones:
        p.close()
    assert hub.count == 0


def test_a_slow_phone_keeps_the_newest_updates_in_order() -> None:
    hub = Broadcaster(maxsize=4)
    slow = hub.subscribe()
    for seq in range(1, 21):
        hub.publish({"seq": seq})
    got = []
    while (u := slow.get_update(timeout=0)) is not None:
        got.append(u.seq)
    assert got == [17, 18, 19, 20]


def test_an_unencodable_snapshot_is_reported_not_raised() -> None:
    hub = Broadcaster()
    phone = hub.subscribe()
    assert hub.publish({"seq": 1, "bad": object()}) is None
    assert hub.error and phone.get_update(timeout=0) is None
    hub.publish({"seq": 2})
    assert hub.error is None and phone.get(timeout=0) == {"seq": 2}


def test_changes_from_many_threads_reach_a_phone_in_seq_order(tmp_path: Path) -> None:
    """Phones and buttons submit at once; every watcher sees seq never go back."""
    table = Table(Store(tmp_path))
    phone = table.subscribe()
    try:
        def player() -> None:
            for _ in range(15):
                table.submit({"type": "roll", "dice": [3]})

        threads = [threading.Thread(target=player) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seqs, versions = [], []
        while (u := phone.get_update(timeout=0)) is not None:
            seqs.append(u.seq)
            versions.append(u.version)
        assert seqs == sorted(seqs) and versions == sorted(versions) and seqs[-1] == 60
    finally:
        phone.close()
        table.close()


def test_the_page_is_told_what_a_damaged_store_gave_back(tmp_path: Path) -> None:
    """Issue 11 #6: a 0-byte store is kept aside and the players read on the page what was recovered."""
    (tmp_path / DB_NAME).write_bytes(b"")
    table = Table(Store(tmp_path))
    try:
        store = table.snapshot()["store"]
        assert table.store.recovery["reason"] == "the file is empty (0 bytes)"
        assert "reason" not in store["recovered"]  # issue 32 #7: SQLite's report is not the players'
        assert store["recovered"]["kept_as"].startswith(DB_NAME + ".corrupt-")
        assert (tmp_path / store["recovered"]["kept_as"]).exists()
        assert "Recovered 0 game(s)" in store["message"] and store["recovered"]["kept_as"] in store["message"]
        assert str(tmp_path) not in json.dumps(table.snapshot())
    finally:
        table.close()


def test_a_healthy_store_says_nothing(tmp_path: Path) -> None:
    table = Table(Store(tmp_path))
    try:
        assert table.snapshot()["store"] == {"recovered": None, "set_aside": [], "not_resumed": None,
                                             "storage_full": False, "faults": []}
    finally:
        table.close()


def test_healthz_shows_no_path_of_the_box(tmp_path: Path) -> None:
    """Issue 11 #10: /healthz is readable by anyone on the Wi-Fi; it must not show the state directory."""
    (tmp_path / DB_NAME).write_bytes(b"")  # with a recovery report too, which names the kept file
    table = Table(Store(tmp_path))
    try:
        client = create_app(table, secret_key="k", testing=True).test_client()
        body = client.get("/healthz").get_json()
        assert body["store"]["ok"] is True and body["store"]["recovered"]["kept_as"]
        assert str(tmp_path) not in json.dumps(body) and "/" not in json.dumps(body["store"])
    finally:
        table.close()
