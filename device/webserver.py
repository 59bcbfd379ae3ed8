"""The box's web server: waitress, sized so that watching phones can never take the threads that answer.

Why waitress with a bounded stream share (and not an event-loop server): a live-update stream in this app
is a WSGI generator waiting on the table's subscription, so under any WSGI server it holds one worker
thread while a phone watches. The box serves one table: a few hundred phones at most. Waitress is a
well-kept pure-Python server already in use (nothing compiled to install on a Pi), it parses requests
and buffers bodies in its own event loop before any thread is taken, and it caps bodies before
buffering. So the box gives waitress `max_streams + request_threads` threads and the web app's stream gate
(webui.streams) admits at most `max_streams` streams: `request_threads` threads are always left for pages
and the API, whatever phones (or a hostile client) do. A waiting stream thread costs memory, not time:
the app's stream hub (webui.streams.StreamHub) writes every change to every stream from one thread.
Around that:

- streams beyond the bound, or beyond `streams_per_address` from one address, are refused at once (503 /
  429 with Retry-After, by the app); TCP connections from one address are capped too
  (`connections_per_address`), so one client cannot fill the server's connection table with idle sockets;
- `poll()` instead of `select()` (select stops at 1024 file descriptors) and a raised open-file limit;
- request bodies over `max_body` bytes are refused with 413 before they are buffered, as JSON
  {"code", "message"} like every other API error;
- thread stacks of 1 MiB instead of the default 8 MiB, so hundreds of threads fit the address space of a
  32-bit Raspberry Pi OS;
- output to a phone that stopped reading is held in memory up to 1 MiB, then its stream waits: nothing is
  spilled to temporary files on the SD card.

`answers()` is the watchdog's proof of life: systemd is fed only when a real request to the page's
server is answered, not merely while the server's thread exists.
"""

from __future__ import annotations

import http.client
import json
import logging
import resource
import threading
from collections.abc import Callable
from dataclasses import dataclass

from waitress.channel import HTTPChannel
from waitress.server import create_server
from waitress.task import ErrorTask

log = logging.getLogger(__name__)

API_BODY_MAX = 64 * 1024
STACK_BYTES = 1024 * 1024
OUTBUF_BYTES = 1024 * 1024


@dataclass(frozen=True)
class ServerLimits:
    """How much of the box the web server may take (see the module doc); from the `[web]` config."""

    max_streams: int = 300
    streams_per_address: int = 6
    request_threads: int = 16
    max_body: int = API_BODY_MAX
    connections_per_address: int = 32
    idle_timeout_s: int = 30

    @property
    def threads(self) -> int:
        return self.max_streams + self.request_threads

    @property
    def connection_limit(self) -> int:
        # every stream, plus keep-alive connections of the same phones and room for requests
        return self.max_streams * 2 + self.request_threads * 4


# A message for an error the server answers itself (no app involved): (status, headers) -> sentence.
Describe = Callable[[int, dict[str, str]], str]


def _english(status: int, _headers: dict[str, str]) -> str:
    return "The request is too large." if status == 413 else "The request could not be read."


class _JsonErrorTask(ErrorTask):
    """waitress's own refusals (body too large, malformed request line...) as the API's JSON errors."""

    describe: Describe = staticmethod(_english)

    def execute(self) -> None:
        error = self.request.error
        code = {413: "too_large", 431: "headers_too_large"}.get(error.code, "bad_request")
        headers = {k.replace("_", "-").lower(): v for k, v in (self.request.headers or {}).items()}
        try:
            message = self.describe(error.code, headers)
        except Exception:  # the refusal must go out even if a translation fails
            message = _english(error.code, headers)
        body = json.dumps({"code": code, "message": message}, ensure_ascii=False).encode("utf-8")
        self.status = f"{error.code} {error.reason}"
        self.response_headers.extend([("Content-Type", "application/json"), ("Cache-Control", "no-store")])
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class _CountedChannel(HTTPChannel):
    """A connection that keeps its server's count of connections per client address up to date, so the
    per-address cap costs one look-up per new connection (counting the open connections on each accept
    walked all of them: with 200 watching phones, a sixth of the accepting loop's time in cProfile).
    Counted exactly while the channel is among waitress's `active_channels` (added and removed with it)."""

    def __init__(self, server, sock, addr, adj, map=None):  # noqa: A002 - waitress's signature
        self._counted: str | None = None
        super().__init__(server, sock, addr, adj, map=map)
        if getattr(self, "_fileno", None) in server.active_channels:  # not closed during its start
            who = _who(addr)
            counts = _address_counts(server)
            counts[who] = counts.get(who, 0) + 1
            self._counted = who

    def del_channel(self, map=None):  # noqa: A002 - waitress's signature
        super().del_channel(map)
        who = getattr(self, "_counted", None)
        if who is not None:
            self._counted = None
            counts = _address_counts(self.server)
            left = counts.get(who, 1) - 1
            if left > 0:
                counts[who] = left
            else:
                counts.pop(who, None)


def _who(addr) -> str:
    return addr[0] if isinstance(addr, tuple) else str(addr)


def _address_counts(server) -> dict[str, int]:
    counts = getattr(server, "address_counts", None)
    if counts is None:
        counts = server.address_counts = {}
    return counts


def _channel_class(limits: ServerLimits, describe: Describe) -> type[HTTPChannel]:
    task = type("JsonErrorTask", (_JsonErrorTask,), {"describe": staticmethod(describe)})
    return type("BoxChannel", (_CountedChannel,), {"error_task_class": task})


def raise_open_files(wanted: int) -> int:
    """Raise the soft open-file limit towards `wanted` (within the hard limit); returns the new limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            log.warning("cannot raise the open-file limit to %d (stays %d)", target, soft)
    return soft


def make_server(app, host: str, port: int, limits: ServerLimits, describe: Describe = _english):
    """A waitress server for `app` within `limits` (not yet running: call `.run()` in a thread)."""
    raise_open_files(limits.connection_limit + 256)
    old = threading.stack_size()
    threading.stack_size(STACK_BYTES)  # only the server's worker threads, created right here
    try:
        server = create_server(
            app, host=host, port=port, threads=limits.threads, ident="dicesight",
            connection_limit=limits.connection_limit, channel_timeout=limits.idle_timeout_s,
            max_request_body_size=limits.max_body, max_request_header_size=32 * 1024,
            asyncore_use_poll=True, outbuf_high_watermark=OUTBUF_BYTES, outbuf_overflow=2 * OUTBUF_BYTES,
            inbuf_overflow=2 * limits.max_body, expose_tracebacks=False, clear_untrusted_proxy_headers=True,
            channel_request_lookahead=1,  # keep reading during a stream: a phone that left is noticed
        )
    finally:
        threading.stack_size(old)
    channel = _channel_class(limits, describe)
    per_address = limits.connections_per_address

    def accept_channel(srv, conn, addr, adj, map=None):
        """One client address may hold only so many connections; the next is closed unanswered."""
        if _address_counts(srv).get(_who(addr), 0) >= per_address:
            conn.close()
            return None
        return channel(srv, conn, addr, adj, map=map)

    server.channel_class = accept_channel
    return server


def probe_address(host: str) -> str:
    """Where the box reaches its own server: loopback when it listens on every address."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "::1"
    return host


def answers(host: str, port: int, path: str = "/healthz", timeout: float = 2.0) -> bool:
    """True when the app behind host:port answers `path` (200, or 503 for "answering, but a part is
    broken": restarting would not mend a full disk) within `timeout` seconds."""
    address = probe_address(host)
    conn = http.client.HTTPConnection(address, port, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Host": f"[{address}]:{port}" if ":" in address else
                                           f"{address}:{port}", "Connection": "close"})
        resp = conn.getresponse()
        resp.read()
        return resp.status in (200, 503)  # 503: the app answered that a part of the box is broken
    except (OSError, http.client.HTTPException):
        return False
    finally:
        conn.close()
