"""The broadcaster: who is watching the table, and each change sent to them once, encoded once, in order.

Why its own part: the table service must not care how many phones watch or how slow one is. Every change
becomes one `Update` (the snapshot, its `seq` and its text for a server-sent event, encoded a single time
however many phones receive it), handed to every subscriber's small queue. A slow phone loses the older
updates it has not read yet, never the newest: a snapshot is the whole state, so the newest is all it
needs. `publish` is called by the table under its lock, so updates leave in the order the changes were
made (and `seq` never goes back); a subscriber never gets an update older than one it already has.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("dicesight.broadcaster")


@dataclass(frozen=True)
class Update:
    """One change of the table as every watcher gets it: `version` counts publications (several can share
    a `seq`: the tray or the camera changed, not the game), `sse` is the ready server-sent event text."""

    version: int
    seq: int
    snapshot: dict[str, Any]
    sse: str


def encode_sse(snapshot: dict[str, Any]) -> str:
    """A snapshot as one server-sent event (`id` is the game's seq, so a phone can say where it was)."""
    data = json.dumps(snapshot, separators=(",", ":"), ensure_ascii=False)
    return f"id: {snapshot.get('seq', 0)}\nevent: snapshot\ndata: {data}\n\n"


class Subscription:
    """One watcher's queue of updates (a phone's event stream, a venue bridge), newest kept when full."""

    def __init__(self, broadcaster: Broadcaster, maxsize: int = 8) -> None:
        self._broadcaster = broadcaster
        self._queue: queue.Queue[Update] = queue.Queue(maxsize)

    def put(self, update: Any) -> None:
        """Queue an update (or a watcher's own marker, e.g. the MQTT publisher's "reconnected")."""
        while True:
            try:
                self._queue.put_nowait(update)
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()  # a slow phone only needs the newest state
                except queue.Empty:
                    pass

    def get_update(self, timeout: float) -> Update | None:
        """The next update, or None after `timeout` seconds without one."""
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def get(self, timeout: float) -> dict[str, Any] | None:
        """The next snapshot (the update's dict), or None after `timeout` seconds without one."""
        update = self.get_update(timeout)
        return None if update is None else update.snapshot

    def close(self) -> None:
        self._broadcaster.unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Broadcaster:
    """Subscriptions and event encoding (see the module doc). Thread-safe; never raises from `publish`."""

    def __init__(self, maxsize: int = 8) -> None:
        self._maxsize = maxsize
        self._subs: set[Subscription] = set()
        self._lock = threading.Lock()
        self._version = 0
        self.latest: Update | None = None
        self.error: str | None = None  # the last publication that failed, for the health report

    def subscribe(self, maxsize: int | None = None) -> Subscription:
        """A new watcher. `maxsize`: how many updates it may fall behind before the oldest are dropped (a
        phone needs only the newest; the MQTT publisher tells each change's events, so it keeps more)."""
        sub = Subscription(self, maxsize or self._maxsize)
        with self._lock:
            self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)

    @property
    def count(self) -> int:
        with self._lock:
            return len(self._subs)

    def publish(self, snapshot: dict[str, Any]) -> Update | None:
        """Encode `snapshot` once and hand it to every subscriber. A snapshot that cannot be encoded is
        reported (log, `error`) and dropped: the game already changed, the watchers get the next one."""
        try:
            sse = encode_sse(snapshot)
        except (TypeError, ValueError) as exc:
            log.exception("broadcaster: a snapshot could not be encoded")
            self.error = f"A change could not be sent to the phones: {exc}"
            return None
        with self._lock:
            self._version += 1
            update = Update(self._version, int(snapshot.get("seq", 0) or 0), snapshot, sse)
            self.latest = update
            subs = list(self._subs)
            self.error = None
        for sub in subs:
            sub.put(update)
        return update
