"""The live-update blueprint: `GET /api/events`, server-sent events (a snapshot on connect, then one per
change, a heartbeat in between). Nested in the API blueprint, so its address is /api/events."""

from __future__ import annotations

import time
from collections.abc import Callable

from flask import Blueprint, Response, current_app, jsonify, request

from . import i18n
from .streams import Parked, Stream
from .web import STOP, STREAMS, client_address, seat_of, table, token, web

HEARTBEAT_S = 15.0
STREAM_MAX_S = 30 * 60.0  # a stream ends now and then; the browser reconnects (frees stuck threads)
# How often an idle stream looks whether its phone has gone. Each look wakes the stream's thread: with
# 200 phones watching, every half second halved the API's throughput; every few seconds costs nothing.
STREAM_CHECK_S = 4.0
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}

bp = Blueprint("events", __name__)


@bp.get("/events")
def events():
    state = web()
    # Each stream holds a server thread: the gate keeps the threads that answer requests (503 when the
    # box is full, 429 when this address holds its share). The place is freed when the stream ends,
    # however it ends.
    gate = current_app.extensions[STREAMS]
    address = client_address()
    # HEAD: would a stream be admitted now? The page asks before it reconnects, since a browser's
    # EventSource hides the status and Retry-After of a refused stream; no place is taken.
    refusal = gate.would_refuse(address) if request.method == "HEAD" else gate.enter(address)
    if request.method == "HEAD" and refusal is None:
        return Response(status=200, mimetype="text/event-stream", headers=STREAM_HEADERS)
    if refusal is not None:
        resp = jsonify(code=refusal.code, message=i18n.msg(refusal.code))
        resp.status_code = 503 if refusal.code == "too_many_streams" else 429
        resp.headers["Retry-After"] = str(refusal.retry_after)
        return resp
    tbl = table()
    phone = token()  # a paired phone bound to a seat sees its own secrets (Table.seen_by)

    def frame(snap: dict) -> bytes:
        seen = tbl.seen_by(snap, seat_of(tbl, phone))
        return state.frame(snap) if seen is snap else state.encode(seen)  # a shared view: one text for all

    heartbeat = float(current_app.config["DICESIGHT_HEARTBEAT_S"])
    max_age = float(current_app.config["DICESIGHT_STREAM_MAX_S"])
    waitress_gone = request.environ.get("waitress.client_disconnected")
    if waitress_gone is not None:  # under waitress: the app's stream hub writes this stream
        return _hub_stream(state, gate, address, waitress_gone, heartbeat, max_age,
                           lambda: frame(tbl.snapshot()), frame)
    try:
        sub = tbl.subscribe()  # before the snapshot, so no change falls between the two
        first = tbl.snapshot()
    except BaseException:
        gate.leave(address)
        raise
    with state.lock:
        state.subscriptions.add(sub)

    def stream():
        try:
            yield b"retry: 2000\n" + frame(first)
            started = last = time.monotonic()
            while not state.stopping.is_set():
                snap = sub.get(timeout=min(STREAM_CHECK_S, heartbeat))
                now = time.monotonic()
                if snap is STOP:
                    break
                if snap is not None:
                    yield frame(snap)
                    last = now
                elif now - last >= heartbeat:
                    yield b": heartbeat\n\n"
                    last = now
                if now - started >= max_age:
                    break
        finally:
            sub.close()
            with state.lock:
                state.subscriptions.discard(sub)
            gate.leave(address)

    return Response(stream(), mimetype="text/event-stream", headers=STREAM_HEADERS)


class _WrittenStream(Response):
    """A stream whose body the hub writes through the WSGI `write` callable; the server's thread for it
    only waits until the stream is over (see webui.streams.StreamHub)."""

    def __init__(self, run: Callable[[Callable[[bytes], object]], None]) -> None:
        super().__init__(mimetype="text/event-stream", headers=STREAM_HEADERS)
        self._run = run

    def __call__(self, environ, start_response):  # type: ignore[override]
        headers = self.get_wsgi_headers(environ)
        headers.pop("Content-Length", None)  # the body is as long as the stream lasts
        write = start_response(self.status, headers.to_wsgi_list())
        self._run(write)
        return []


def _hub_stream(state, gate, address: str, gone: Callable[[], bool], heartbeat: float, max_age: float,
                first: Callable[[], bytes], frame: Callable[[dict], bytes]):
    """The stream under waitress: handed to the app's stream hub (one writer for every phone), its
    connection taken out of waitress's poll loop while it lasts (webui.streams.Parked). The hub looks
    whether the phone has gone every STREAM_CHECK_S, so a closed page frees its place within that, not at
    the next heartbeat."""
    hub = state.stream_hub(heartbeat_s=heartbeat, check_s=min(STREAM_CHECK_S, heartbeat))
    channel = getattr(gone, "__self__", None)  # waitress's channel: how much output waits for this phone
    parked = Parked.of(gone)

    def backlog() -> int:
        return int(getattr(channel, "total_outbufs_len", 0) or 0)

    def departed() -> bool:
        return gone() or (parked is not None and parked.peer_closed())

    def run(write: Callable[[bytes], object]) -> None:
        out = write if parked is None else (lambda data: parked.send(write, data))
        stream = Stream(out, departed, backlog, time.monotonic(), max_age, frame,
                        flush=parked.flush if parked is not None else None)
        try:
            hub.add(stream, lambda: b"retry: 2000\n" + first())
            if parked is not None:
                parked.park()
            stream.done.wait()
        finally:
            hub.remove(stream)
            if parked is not None:
                parked.unpark()
            gate.leave(address)

    try:
        return _WrittenStream(run)
    except BaseException:
        gate.leave(address)
        raise
