"""The live-update blueprint: `GET /api/events`, server-sent events (a snapshot on connect, then one per
change, a heartbeat in between). Nested in the API blueprint, so its address is /api/events."""

from __future__ import annotations

import time

from flask import Blueprint, Response, current_app, jsonify, request

from . import i18n, viewers
from .web import STOP, STREAMS, client_address, table, token, web

HEARTBEAT_S = 15.0
STREAM_MAX_S = 30 * 60.0  # a stream ends now and then; the browser reconnects (frees stuck threads)
# How often an idle stream looks whether its phone has gone. Each look wakes the stream's thread: with
# 200 phones watching, every half second halved the API's throughput; every few seconds costs nothing.
STREAM_CHECK_S = 4.0

bp = Blueprint("events", __name__)


@bp.get("/events")
def events():
    state = web()
    # Each stream holds a server thread: the gate keeps the threads that answer requests (503 when the
    # box is full, 429 when this address holds its share). The place is freed when the stream ends,
    # however it ends.
    gate = current_app.extensions[STREAMS]
    address = client_address()
    refusal = gate.enter(address)
    if refusal is not None:
        resp = jsonify(code=refusal.code, message=i18n.msg(refusal.code))
        resp.status_code = 503 if refusal.code == "too_many_streams" else 429
        resp.headers["Retry-After"] = str(refusal.retry_after)
        return resp
    tbl = table()
    phone = token()  # a paired phone bound to a seat sees its own secrets (webui.viewers)
    try:
        sub = tbl.subscribe()  # before the snapshot, so no change falls between the two
        first = tbl.snapshot()
    except BaseException:
        gate.leave(address)
        raise
    with state.lock:
        state.subscriptions.add(sub)
    heartbeat = float(current_app.config["DICESIGHT_HEARTBEAT_S"])
    max_age = float(current_app.config["DICESIGHT_STREAM_MAX_S"])
    # waitress tells when the phone has gone (it keeps reading the connection: request lookahead), so a
    # closed page frees its place within STREAM_CHECK_S, not at the next heartbeat.
    gone = request.environ.get("waitress.client_disconnected") or (lambda: False)

    def frame(snap: dict) -> bytes:
        if not viewers.is_hidden(snap.get("game")):
            return state.frame(snap)  # one text for every phone
        seat = viewers.seat_of(tbl, phone, snap)
        return state.encode(viewers.for_viewer(tbl, snap, seat))

    def stream():
        try:
            yield b"retry: 2000\n" + frame(first)
            started = last = time.monotonic()
            while not state.stopping.is_set() and not gone():
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

    return Response(stream(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
