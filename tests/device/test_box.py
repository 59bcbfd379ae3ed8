"""`dicesight run` as a whole: it serves, stops cleanly, and holding Pair asks systemd to power off."""

from __future__ import annotations

import json
import threading
import urllib.request

from device.box import BoxOptions, run
from device.panel import SHUTDOWN_EXIT_STATUS


def start_box(tmp_path, hold_s: float = 1.0):
    config = tmp_path / "config.toml"
    config.write_text(f"[gpio]\npin_factory = \"mock\"\nlong_press_s = 0.2\nshutdown_hold_s = {hold_s}\n"
                      "[web]\nhost = \"127.0.0.1\"\n")
    records: list[dict] = []
    started = threading.Event()
    stop = threading.Event()
    box: dict = {}

    def on_started(table):
        box["table"] = table
        started.set()

    def target():
        try:
            box["code"] = run(BoxOptions(camera="demo", config=config, state_dir=tmp_path / "state", port=0),
                              announce=records.append, stop=stop, on_started=on_started)
        except Exception as err:  # fail the test at once with the reason, not after a timeout
            box["error"] = err
            started.set()

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    assert started.wait(30), records
    assert "error" not in box, box.get("error")
    return box, records, stop, thread


def test_serves_then_stops_cleanly(tmp_path):
    box, records, stop, thread = start_box(tmp_path)
    port = records[0]["port"]
    health = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5))
    assert health["camera"]["source"] == "demo" and health["store"]["ok"]
    stop.set()
    thread.join(20)
    assert box["code"] == 0
    assert [r["event"] for r in records] == ["started", "stopped"]


def test_holding_pair_shuts_down_with_the_poweroff_status(tmp_path):
    box, records, _stop, thread = start_box(tmp_path, hold_s=1.0)
    box["table"].panel.press("pair", hold_s=1.3)  # through the mock pins, as a finger would
    thread.join(20)
    assert not thread.is_alive()
    assert box["code"] == SHUTDOWN_EXIT_STATUS
    assert {"event": "shutdown", "reason": "pair button held"} in records


def test_open_event_streams_end_quietly_at_shutdown(tmp_path, caplog):
    """Issue 11 #10: each open event stream logged an EBADF traceback when the box stopped (the server's
    wake-up pipe was closed before the workers had ended their streams)."""
    import http.client
    import logging

    box, records, stop, thread = start_box(tmp_path)
    port = records[0]["port"]
    phones = []
    for _ in range(3):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/api/events")
        resp = conn.getresponse()
        assert resp.status == 200 and resp.readline().startswith(b"retry:")  # the stream is open
        phones.append(conn)
    with caplog.at_level(logging.ERROR):
        stop.set()
        thread.join(20)
    for conn in phones:
        conn.close()
    assert box["code"] == 0
    assert "Bad file descriptor" not in caplog.text and "Exception when servicing" not in caplog.text
    health = str(records)
    assert str(tmp_path) not in health  # nor does the box announce where its state lives


def test_a_relative_state_dir_still_serves_roll_photos(tmp_path, monkeypatch):
    """Issue 34 #3: under `make run` the state directory was ./state, relative; Flask's send_file resolved it
    against the web package's folder and every roll photo answered 500. It is made absolute once, at start."""
    import numpy as np

    from vision.reading import Reading

    monkeypatch.chdir(tmp_path)
    config = tmp_path / "config.toml"
    config.write_text("[gpio]\npin_factory = \"mock\"\n[web]\nhost = \"127.0.0.1\"\n")
    records: list[dict] = []
    started, stop, box = threading.Event(), threading.Event(), {}

    def on_started(table):
        box["table"] = table
        started.set()

    thread = threading.Thread(target=lambda: run(
        BoxOptions(camera="demo", config=config, state_dir=tmp_path.relative_to(tmp_path) / "state", port=0),
        announce=records.append, stop=stop, on_started=on_started), daemon=True)
    thread.start()
    assert started.wait(30), records
    table = box["table"]
    die = Reading(4, "4", "white", 0.99, (60.0, 60.0), (40, 40, 40, 40), True)
    table.tray.observe(0)
    table.tray.record_roll([die], [die.to_dict()], np.full((120, 160, 3), 80, np.uint8))
    name = next(e.action["image"] for e in reversed(table.match.entries) if e.action.get("image"))
    port = records[0]["port"]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/images/{name}", timeout=5) as res:
        assert res.status == 200 and res.read(2) == b"\xff\xd8"  # a JPEG, not a 500
    stop.set()
    thread.join(20)
