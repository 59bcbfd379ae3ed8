"""How many live-update streams the box holds open, in total and per phone address.

Each open `GET /api/events` keeps one of the web server's worker threads for as long as the phone watches.
The box gives streams a bounded share of its threads (`max_streams`) and keeps the rest for pages and API
requests, so any number of watching phones (or a hostile client opening streams in a loop) can never take
the threads that answer requests; beyond the bound a new stream is refused with 503 and a Retry-After, and
one address may hold only `per_address` streams (a phone needs one; a few tabs are fine).
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


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

    def would_refuse(self, address: str) -> Refusal | None:
        """What `enter(address)` would answer now, without taking a place (the page's look before it
        reconnects: HEAD /api/events)."""
        with self._lock:
            if self._open >= self.max_streams:
                return Refusal("too_many_streams", 10)
            if self._by_address.get(address, 0) >= self.per_address:
                return Refusal("too_many_streams_here", 30)
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


# -- one writer for every stream ------------------------------------------------------------------------
Write = Callable[[bytes], Any]


class Parked:
    """A stream's waitress connection, taken out of waitress's poll loop while the hub writes to it.

    Why: waitress's loop asks every connection in its map whether it wants reading or writing, in Python,
    on every turn, and it turns for every request, every accepted connection, every wake-up. With 200
    watching phones that scan was most of the loop's work (cProfile of `bench/web_load.py`: ~200
    `readable()`/`writable()` calls per turn, ~0.5 ms with the interpreter lock held, hundreds of turns a
    second), taken from the threads answering the API. A stream needs nothing from the loop while it lasts:
    the hub writes it (waitress's `write` sends at once from the writing thread), `flush()` sends what a
    full socket left behind, and `peer_closed()` sees a phone that went. When the stream ends the
    connection goes back into the loop, which finishes the response as usual.

    This reaches into waitress's channel (`_map`, `_fileno`, `outbuf_lock`, `_flush_some`): `of()` checks
    they are there and answers None otherwise (the stream then stays in the loop: slower, still right).
    Every change of the map is made under the channel's `outbuf_lock`, which waitress's `handle_close`
    also takes before it marks the channel closed, so a connection closed meanwhile is never put back.
    """

    NEEDS = ("_map", "_fileno", "outbuf_lock", "_flush_some", "_flush_exception", "server", "connected")

    def __init__(self, channel: Any) -> None:
        self.channel = channel
        self._fd: int | None = None

    @classmethod
    def of(cls, gone: Callable[[], bool] | None) -> Parked | None:
        """The parkable connection behind waitress's `client_disconnected` callable, else None."""
        channel = getattr(gone, "__self__", None)
        if channel is None or not all(hasattr(channel, name) for name in cls.NEEDS):
            return None
        return cls(channel)

    def park(self) -> bool:
        """Take the connection out of waitress's loop (False: it is closed, or not in the loop)."""
        ch = self.channel
        with ch.outbuf_lock:
            fd = ch._fileno
            if not ch.connected or fd is None or ch._map.get(fd) is not ch:
                return False
            del ch._map[fd]
            self._fd = fd
        return True

    def unpark(self) -> None:
        """Put the connection back into waitress's loop (unless it was closed meanwhile) and wake the loop."""
        ch = self.channel
        with ch.outbuf_lock:
            fd, self._fd = self._fd, None
            if fd is None or not ch.connected or ch._fileno != fd:
                return
            ch._map[fd] = ch
        ch.server.pull_trigger()

    def send(self, write: Write, data: bytes) -> None:
        """Write `data` as the response's next chunk: straight to the socket while the stream is parked and
        nothing waits in waitress's buffer (the usual case), else through waitress's `write`, which buffers,
        copies and flushes through more layers on every call (the hub's CPU per change to 200 phones went
        from 8.4 to 6.6 ms, median of one bench/web_load.py run each).
        What the socket does not take goes into waitress's buffer, behind nothing, for `flush`."""
        ch = self.channel
        task = getattr(write, "__self__", None)
        if self._fd is None or not getattr(task, "wrote_header", False) or not getattr(task, "chunked_response",
                                                                                      False):
            write(data)
            return
        framed = b"%X\r\n%b\r\n" % (len(data), data)  # HTTP/1.1 chunked, as waitress frames it
        with ch.outbuf_lock:
            if not ch.connected:
                raise ConnectionResetError("the phone has gone")
            sent = 0
            if not ch.total_outbufs_len:
                try:
                    sent = ch.socket.send(framed)
                except (BlockingIOError, InterruptedError):
                    sent = 0
            if sent < len(framed):
                ch.write_soon(framed[sent:])  # already framed: waitress's raw buffer, not `write`

    def flush(self) -> None:
        """Send what waits in the connection's buffer (the loop would have, had the stream stayed in it)."""
        ch = self.channel
        if self._fd is None or not getattr(ch, "total_outbufs_len", 0):
            return
        with ch.outbuf_lock:
            if ch.connected:
                ch._flush_exception(ch._flush_some, do_close=False)

    def peer_closed(self) -> bool:
        """True when the phone closed or reset the connection (a look at the socket, nothing read)."""
        ch = self.channel
        sock = getattr(ch, "socket", None)
        if not ch.connected or sock is None:
            return True
        try:
            return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except (BlockingIOError, InterruptedError):
            return False  # nothing to read: still there
        except OSError:
            return True


class Stream:
    """One phone's open stream as the hub sees it: the WSGI `write` callable of its response, whether the
    phone has gone, how many bytes wait unsent for it, and how to send them (`flush`; None: the server's
    loop does). `done` is set when the stream is over."""

    def __init__(self, write: Write, gone: Callable[[], bool], backlog: Callable[[], int],
                 started: float, max_age_s: float, frame: Callable[[dict], bytes] | None = None,
                 flush: Callable[[], None] | None = None) -> None:
        self.write = write
        self.frame = frame  # the snapshot as this phone's event (per viewer); None: the hub's shared one
        self.gone = gone
        self.backlog = backlog
        self.flush = flush
        self.ends_at = started + max_age_s
        self.slow_since: float | None = None
        self.done = threading.Event()
        self.sent = 0

    def send(self, data: bytes, now: float, max_backlog: int, slow_s: float) -> None:
        """Write `data`, unless the phone is not reading: then skip it (a snapshot is the whole state, the
        next one will do) and end the stream if the phone stays behind for `slow_s`."""
        if self.done.is_set():
            return
        if self.backlog() > max_backlog:
            if self.slow_since is None:
                self.slow_since = now
            elif now - self.slow_since > slow_s:
                self.done.set()
            return
        self.slow_since = None
        try:
            self.write(data)
            self.sent += 1
        except Exception:  # the phone went (waitress: ClientDisconnected) or its socket failed
            self.done.set()


class StreamHub:
    """Writes every change to every open stream from one thread.

    Why: with a WSGI generator per stream, each change woke every stream's thread and they all fought for
    the interpreter lock with the threads answering the API; with 200 phones the API's p99 tripled. Here
    the streams' threads sleep until their stream is over (`Stream.done`) and the hub's one thread writes
    each change, each heartbeat and each check for departed phones to them all. Writing from another
    thread goes through the response's WSGI `write` callable, which waitress makes safe (its output
    buffers are locked); the web app uses the hub only under waitress and the generator elsewhere.
    A phone that stops reading gets nothing more once `max_backlog` bytes wait for it (so the hub never
    blocks on its buffer), and is let go after `slow_s`.
    """

    def __init__(self, subscribe: Callable[[], Any], encode: Callable[[dict], bytes], *,
                 heartbeat_s: float = 15.0, check_s: float = 4.0, max_backlog: int = 256 * 1024,
                 slow_s: float = 30.0, clock: Callable[[], float] = time.monotonic,
                 stopping: threading.Event | None = None) -> None:
        self._subscribe = subscribe
        self._encode = encode
        self.heartbeat_s = heartbeat_s
        self.check_s = check_s
        self.max_backlog = max_backlog
        self.slow_s = slow_s
        self._clock = clock
        self._lock = threading.Lock()
        self._streams: set[Stream] = set()
        self._upstream: Any = None
        self._thread: threading.Thread | None = None
        self._stopping = stopping or threading.Event()  # the app's own flag: set, every stream ends

    def add(self, stream: Stream, first: Callable[[], bytes]) -> None:
        """Open `stream`: `first()` (the snapshot on connect) is taken and written under the hub's lock, so
        no change falls between it and the changes the hub writes after (one may come twice: harmless)."""
        with self._lock:
            if self._thread is None:
                self._upstream = self._subscribe()
                self._thread = threading.Thread(target=self._run, name="streams", daemon=True)
                self._thread.start()
            stream.send(first(), self._clock(), self.max_backlog, self.slow_s)
            self._streams.add(stream)

    def remove(self, stream: Stream) -> None:
        with self._lock:
            self._streams.discard(stream)
        stream.done.set()

    def open_count(self) -> int:
        with self._lock:
            return len(self._streams)

    def stop(self) -> None:
        """End every stream now (the box is stopping) and the hub's thread."""
        self._stopping.set()
        with self._lock:
            streams = list(self._streams)
        for stream in streams:
            stream.done.set()

    def _broadcast(self, snap: dict | None) -> None:
        """Write `snap` (None: a heartbeat) to every stream: encoded once for all, or per phone by the
        stream's own `frame` (a game with hidden information)."""
        now = self._clock()
        shared = b": heartbeat\n\n" if snap is None else None
        with self._lock:
            for stream in self._streams:
                if shared is not None:
                    data = shared
                elif stream.frame is not None:
                    data = stream.frame(snap)
                else:
                    data = shared = self._encode(snap)
                stream.send(data, now, self.max_backlog, self.slow_s)

    def _check(self) -> None:
        now = self._clock()
        with self._lock:
            streams = list(self._streams)
        for stream in streams:
            if stream.gone() or now >= stream.ends_at:
                stream.done.set()

    def _flush(self) -> None:
        """Send what full sockets left behind (streams whose `flush` the hub must call: see Parked)."""
        with self._lock:
            streams = [s for s in self._streams if s.flush is not None]
        for stream in streams:
            if stream.done.is_set():
                continue
            try:
                if stream.backlog():
                    stream.flush()
            except Exception:  # the phone went: its check will end the stream
                stream.done.set()

    def _run(self) -> None:
        last_beat = last_check = self._clock()
        try:
            while not self._stopping.is_set():
                try:
                    snap = self._upstream.get(timeout=min(1.0, self.check_s, self.heartbeat_s))
                    now = self._clock()
                    if isinstance(snap, dict):
                        self._broadcast(snap)
                        last_beat = now
                    elif now - last_beat >= self.heartbeat_s:
                        self._broadcast(None)
                        last_beat = now
                    if now - last_check >= self.check_s:
                        self._check()
                        last_check = now
                    self._flush()
                except Exception:  # one bad change must not end every phone's stream
                    log.exception("stream hub: a change could not be written")
        finally:
            self._upstream.close()
            with self._lock:
                streams = list(self._streams)
            for stream in streams:
                stream.done.set()
