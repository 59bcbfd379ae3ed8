"""sd_notify: datagrams arrive on a path socket and an abstract one; no-op outside systemd."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from device import sdnotify


def _listen(address) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(address)
    sock.settimeout(5)
    return sock


def test_path_socket(tmp_path: Path) -> None:
    path = str(tmp_path / "notify")
    with _listen(path) as sock:
        env = {"NOTIFY_SOCKET": path}
        assert sdnotify.notify("READY=1", "STATUS=Serving on port 8080", env=env)
        assert sock.recv(4096) == b"READY=1\nSTATUS=Serving on port 8080"
        assert sdnotify.notify("WATCHDOG=1", env=env)
        assert sock.recv(4096) == b"WATCHDOG=1"


def test_abstract_socket(monkeypatch) -> None:
    name = f"dicesight-test-{os.getpid()}"
    with _listen(b"\0" + name.encode()) as sock:
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
        assert sdnotify.ready("ok")
        assert sock.recv(4096) == b"READY=1\nSTATUS=ok"
        assert sdnotify.watchdog() and sock.recv(4096) == b"WATCHDOG=1"
        assert sdnotify.stopping() and sock.recv(4096) == b"STOPPING=1"
        assert sdnotify.status("camera reconnecting") and sock.recv(4096) == b"STATUS=camera reconnecting"


def test_no_op_outside_systemd(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert sdnotify.notify("READY=1") is False
    # a socket that went away is logged, never raised
    assert sdnotify.notify("READY=1", env={"NOTIFY_SOCKET": str(tmp_path / "gone")}) is False
    assert sdnotify.notify("READY=1", env={"NOTIFY_SOCKET": "relative"}) is False


def test_watchdog_interval() -> None:
    assert sdnotify.watchdog_interval({}) is None
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 30.0
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "0"}) is None
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "5000000", "WATCHDOG_PID": str(os.getpid())}) == 5.0
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "5000000", "WATCHDOG_PID": "1"}) is None
