"""Who may change the game: the Philips Hue pattern.

A phone asks to pair; for 30 seconds a press of the box's Pair button grants every phone that asked a
control token. Anyone on the Wi-Fi can watch, but only a person standing at the box can let a phone act.
Tokens are kept only as SHA-256 hashes, in a file the box rewrites atomically, so a restart keeps paired
phones paired and a stolen state directory gives no usable token.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path

WINDOW_S = 30.0


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Pairing:
    """Pair requests, the approval window and the granted tokens."""

    def __init__(self, path: Path | None = None, *, window_s: float = WINDOW_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.path = path
        self.window_s = window_s
        self._clock = clock
        self._lock = threading.Lock()
        self._requests: dict[str, float] = {}   # request id -> time asked
        self._granted: dict[str, str] = {}      # request id -> token (until collected)
        self._expired: dict[str, None] = {}     # request ids past their window, until told once
        self._hashes: set[str] = set()
        if path is not None and path.exists():
            try:
                self._hashes = set(json.loads(path.read_text())["tokens"])
            except (OSError, ValueError, KeyError, TypeError):
                self._hashes = set()  # a damaged token file only means phones pair again

    def request(self) -> str:
        """A phone asks to pair: returns a request id it polls with `result`."""
        with self._lock:
            self._expire()
            request_id = secrets.token_urlsafe(12)
            self._requests[request_id] = self._clock()
            return request_id

    def approve(self) -> int:
        """The Pair button was pressed: grant a token to every request still in its window."""
        with self._lock:
            self._expire()
            for request_id in list(self._requests):
                token = secrets.token_urlsafe(32)
                self._granted[request_id] = token
                self._hashes.add(_digest(token))
                del self._requests[request_id]
            self._save()
            return len(self._granted)

    def poll(self, request_id: str) -> tuple[str, str | None, float]:
        """What a phone waiting on `request_id` is told: ("granted", token, 0) once, ("waiting", None,
        seconds left), ("expired", None, 0) once when the window passed, then ("unknown", None, 0)."""
        with self._lock:
            self._expire()
            if request_id in self._granted:
                return "granted", self._granted.pop(request_id), 0.0
            if request_id in self._requests:
                left = self._requests[request_id] + self.window_s - self._clock()
                return "waiting", None, round(max(0.0, left), 1)
            if request_id in self._expired:
                del self._expired[request_id]
                return "expired", None, 0.0
            return "unknown", None, 0.0

    def check(self, token: str | None) -> bool:
        if not token:
            return False
        with self._lock:
            return _digest(token) in self._hashes

    def revoke_all(self) -> None:
        with self._lock:
            self._hashes.clear()
            self._granted.clear()
            self._requests.clear()
            self._save()

    def status(self) -> dict:
        """For the snapshot: is a window open (the status LED blinks) and for how long still."""
        with self._lock:
            self._expire()
            if not self._requests:
                return {"open": False, "expires_in": 0.0}
            newest = max(self._requests.values())
            return {"open": True, "expires_in": round(newest + self.window_s - self._clock(), 1)}

    def _expire(self) -> None:
        now = self._clock()
        for request_id, asked in list(self._requests.items()):
            if now - asked > self.window_s:
                del self._requests[request_id]
                self._expired[request_id] = None
        while len(self._expired) > 256:  # phones that never came back to ask
            del self._expired[next(iter(self._expired))]

    def _save(self) -> None:
        if self.path is None:
            return
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "w") as f:
            json.dump({"tokens": sorted(self._hashes)}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
