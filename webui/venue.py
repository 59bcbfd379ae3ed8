"""The venue board's web app (`dicesight venue`): one page with every table of the venue, live.

The same conventions as the box's page (docs/api.md): the language from `?lang=` / the cookie / the browser,
every asset from the package (no CDN), a strict CSP, JSON errors, server-sent events with the whole board on
connect and then each change, a heartbeat, `retry: 2000` so a page reconnects by itself, a stream that ends
after 30 minutes, a gate on how many streams are open. The board (device.venue.Board) is read-only: nothing a
page sends can change it, so there are no writes, tokens or CSRF here.

Events: `board` (the whole board: on connect, and when a page fell too far behind), `table` (one table that
changed), `broker` (the venue's connection to the broker). `id` is the board's version.

`GET /tables/<box>/photo.jpg?v=<tag>`: a box's shared thumbnail of the roll its table shows (device.mqtt's
`photo` topic), from the venue's own memory: the page never loads anything from a box or the internet.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from flask import Flask, Response, current_app, jsonify, redirect, render_template, request, url_for

from . import i18n
from .streams import StreamGate

BOARD = "dicesight.venue"
STOP = "dicesight.venue.stop"
GATE = "dicesight.venue.gate"
HEARTBEAT_S = 15.0
STREAM_MAX_S = 30 * 60.0
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; frame-ancestors 'none'")
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def create_venue_app(board: Any, *, max_streams: int = 60, per_address: int = 20) -> Flask:
    """The venue's app for a device.venue.Board (anything with view/table/broker/watch)."""
    app = Flask(__name__)
    app.config.update(SECRET_KEY="venue", MAX_CONTENT_LENGTH=16 * 1024, SEND_FILE_MAX_AGE_DEFAULT=3600,
                      VENUE_HEARTBEAT_S=HEARTBEAT_S, VENUE_STREAM_MAX_S=STREAM_MAX_S)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions[BOARD] = board
    app.extensions[STOP] = threading.Event()
    app.extensions[GATE] = StreamGate(max_streams=max_streams, per_address=per_address)
    i18n.init_app(app)
    app.add_url_rule("/", "index", index)
    app.add_url_rule("/api/board", "board", board_json)
    app.add_url_rule("/api/events", "events", events)
    app.add_url_rule("/tables/<box>/photo.jpg", "photo", photo)
    app.add_url_rule("/healthz", "healthz", healthz)
    app.add_url_rule("/favicon.ico", "favicon", lambda: redirect(url_for("static", filename="icon.svg")))
    app.after_request(_headers)
    return app


def stop_venue_streams(app: Flask) -> None:
    """End every open stream within a second (call before closing the server)."""
    app.extensions[STOP].set()


def _board() -> Any:
    return current_app.extensions[BOARD]


def _headers(resp):
    if request.path.startswith("/api/") or request.path == "/healthz":
        resp.headers.setdefault("Cache-Control", "no-store")
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "no-referrer")
    if resp.mimetype == "text/html":
        resp.headers.setdefault("Content-Security-Policy", CSP)
    return resp


def index():
    lang = request.args.get("lang")
    if lang:
        resp = redirect(url_for("index"))
        if lang in i18n.LANGS:
            resp.set_cookie(i18n.LANG_COOKIE, lang, max_age=400 * 24 * 3600, samesite="Lax")
        return resp
    return render_template("venue.html", langs=i18n.LANGS, strings=i18n.venue_strings(),
                           lang=i18n.current_code())


def board_json():
    return jsonify(_board().view())


def photo(box: str):
    """The thumbnail while it shows the table's last roll (404 otherwise, or when `v` names another photo).
    The address names the bytes (`v`), so the page may keep them: each render of the board reuses them."""
    found = _board().photo(box)
    if found is None or request.args.get("v", found.tag) != found.tag:
        return jsonify(code="no_photo", message="No shared photo of this table's last roll."), 404
    resp = Response(found.jpeg, mimetype="image/jpeg")
    resp.headers["Cache-Control"] = "private, max-age=3600"
    return resp


def healthz():
    board = _board()
    broker = board.broker()
    tables = board.view()["tables"]
    return jsonify(ok=True, broker=broker, tables=len(tables),
                   online=sum(t["status"] == "online" for t in tables))


def frame(kind: str, version: int, data: Any) -> bytes:
    """One server-sent event."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return f"id: {version}\nevent: {kind}\ndata: {text}\n\n".encode()


def _changes(board: Any, version: int, boxes: set[str | None]) -> bytes:
    out = b""
    for box in sorted(boxes, key=lambda b: (b is None, b or "")):
        if box is None:
            out += frame("broker", version, board.broker())
        else:
            row = board.table(box)
            if row is not None:
                out += frame("table", version, {**row, "now": time.time()})
    return out


def events():
    gate = current_app.extensions[GATE]
    address = request.remote_addr or ""
    refusal = gate.enter(address)
    if refusal is not None:
        resp = jsonify(code=refusal.code, message=i18n.msg(refusal.code))
        resp.status_code = 503 if refusal.code == "too_many_streams" else 429
        resp.headers["Retry-After"] = str(refusal.retry_after)
        return resp
    board = _board()
    stop = current_app.extensions[STOP]
    heartbeat = float(current_app.config["VENUE_HEARTBEAT_S"])
    max_age = float(current_app.config["VENUE_STREAM_MAX_S"])

    def stream():
        watcher = board.watch()  # before the first view, so no change falls between the two
        try:
            first = board.view()
            yield b"retry: 2000\n" + frame("board", first["seq"], first)
            started = last = time.monotonic()
            while not stop.is_set() and time.monotonic() - started < max_age:
                got = watcher.changes(timeout=min(1.0, heartbeat))
                now = time.monotonic()
                if watcher.lost:  # fell too far behind: the whole board, once
                    watcher.lost = False
                    view = board.view()
                    yield frame("board", view["seq"], view)
                    last = now
                elif got is not None:
                    yield _changes(board, *got)
                    last = now
                elif now - last >= heartbeat:
                    yield b": heartbeat\n\n"
                    last = now
        finally:
            watcher.close()

    resp = Response(stream(), mimetype="text/event-stream", headers=HEADERS)
    resp.call_on_close(lambda: gate.leave(address))  # however the stream ends, even before its first byte
    return resp
