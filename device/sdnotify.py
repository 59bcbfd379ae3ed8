"""sd_notify(3) over the standard-library socket: READY=1, WATCHDOG=1, STOPPING=1, STATUS=...

Why not libsystemd or the sdnotify package: the protocol is one datagram on a unix socket, and the box
should not need a compiled dependency for it. Outside systemd ($NOTIFY_SOCKET unset) every call is a
no-op, so `dicesight run` behaves the same in a terminal.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger("dicesight.sdnotify")


def _address(env: Mapping[str, str]) -> str | bytes | None:
    path = env.get("NOTIFY_SOCKET", "")
    if not path:
        return None
    if path.startswith("@"):  # abstract namespace: a leading NUL byte instead of '@'
        return b"\0" + path[1:].encode()
    if path.startswith("/"):
        return path
    log.warning("sdnotify: ignoring NOTIFY_SOCKET=%r (neither a path nor an abstract socket)", path)
    return None


def notify(*lines: str, env: Mapping[str, str] | None = None) -> bool:
    """Send the given `KEY=value` lines to systemd in one datagram; True if it was sent.

    Never raises: a lost notification must not stop the box (the watchdog will tell if it matters).
    """
    address = _address(os.environ if env is None else env)
    if address is None or not lines:
        return False
    payload = "\n".join(lines).encode()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(payload)
        return True
    except OSError as exc:
        log.warning("sdnotify: could not notify systemd: %s", exc)
        return False


def ready(status: str | None = None) -> bool:
    return notify("READY=1", *([f"STATUS={status}"] if status else []))


def watchdog() -> bool:
    return notify("WATCHDOG=1")


def stopping() -> bool:
    return notify("STOPPING=1")


def status(text: str) -> bool:
    return notify(f"STATUS={text}")


def watchdog_interval(env: Mapping[str, str] | None = None) -> float | None:
    """The watchdog timeout in seconds if systemd expects pings from this process, else None.

    Feed it at least every half of this (sd_watchdog_enabled(3)). WATCHDOG_PID, when set, must be us.
    """
    env = os.environ if env is None else env
    usec = env.get("WATCHDOG_USEC", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    pid = env.get("WATCHDOG_PID", "")
    if pid and pid.isdigit() and int(pid) != os.getpid():
        return None
    return int(usec) / 1_000_000
