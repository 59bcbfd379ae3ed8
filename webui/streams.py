"""How many live-update streams the box holds open, in total and per phone address.

Each open `GET /api/events` keeps one of the web server's worker threads for as long as the phone watches.
The box gives streams a bounded share of its threads (`max_streams`) and keeps the rest for pages and API
requests, so any number of watching phones (or a hostile client opening streams in a loop) can never take
the threads that answer requests; beyond the bound a new stream is refused with 503 and a Retry-After, and
one address may hold only `per_address` streams (a phone needs one; a few tabs are fine).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class Refusal:
    """Why a stream was not opened: `code` for programs, `retry_after` seconds for the phone's reconnect."""

    code: str  # "too_many_streams" (the box is full) or "too_many_streams_here" (this address is)
    retry_after: int


class StreamGate:
    """Counts open streams; `enter(address)` admits one or refuses it, `leave(address)` frees its place."""

    def __init__(self, max_streams: int = 200, per_address: int = 8) -> None:
        if max_streams < 1 or per_address < 1:
            raise ValueError("stream limits must be at least 1")
        self.max_streams = max_streams
        self.per_address = per_address
        self._lock = threading.Lock()
        self._by_address: dict[str, int] = {}
        self._open = 0
        self.refused = 0

    def enter(self, address: str) -> Refusal | None:
        """Admit a stream from `address` (None), or say why not (the caller answers 503)."""
        with self._lock:
            if self._open >= self.max_streams:
                self.refused += 1
                return Refusal("too_many_streams", 10)
            if self._by_address.get(address, 0) >= self.per_address:
                self.refused += 1
                return Refusal("too_many_streams_here", 30)
            self._open += 1
            self._by_address[address] = self._by_address.get(address, 0) + 1
            return None

    def leave(self, address: str) -> None:
        with self._lock:
            left = self._by_address.get(address, 0) - 1
            if left < 0:
                return  # never entered (or left twice): nothing to free
            self._open -= 1
            if left:
                self._by_address[address] = left
            else:
                del self._by_address[address]

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {"open": self._open, "max": self.max_streams, "per_address": self.per_address,
                    "addresses": len(self._by_address), "refused": self.refused}
