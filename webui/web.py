"""What the web app keeps of its own and the request helpers every blueprint shares.

The app holds no game state: every read asks the table service (`device.table.Table`, found in
`app.extensions["dicesight"].table`) and every write goes through `table.submit`/`table.new_game`, so the
box's single writer stays the only writer.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from flask import Flask, current_app, request

from . import i18n, payload
from .streams import StreamHub

TOKEN_COOKIE = "dicesight_token"
CSRF_HEADER = "X-Dicesight-CSRF"
EXTENSION = "dicesight"
STREAMS = "dicesight.streams"  # the webui.streams.StreamGate of the app
UNPAIRED_WRITES: set[Callable[..., Any]] = set()


def unpaired_write(view: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a write an unpaired phone may make (asking to pair, the virtual Pair button): the API
    blueprint's check lets it through and the view does its own, narrower check."""
    UNPAIRED_WRITES.add(view)
    return view


class ApiError(Exception):
    """A refusal with an HTTP status, a code for programs and a sentence for players."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class WebState:
    """The app's own state: the table it serves, the CSRF secret, encoded SSE frames and the stop flag (the
    pairing window and tokens are the box's: device.pairing)."""

    def __init__(self, table: Any, secret_key: bytes) -> None:
        self.table = table
        self.secret = secret_key
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.frames: OrderedDict[int, tuple[dict[str, Any], bytes]] = OrderedDict()
        self.subscriptions: set[Any] = set()  # of the open streams, to wake them at shutdown
        self._hub: StreamHub | None = None

    def stream_hub(self, heartbeat_s: float, check_s: float) -> StreamHub:
        """The app's one writer for every open stream (created with the first stream)."""
        with self.lock:
            if self._hub is None:
                self._hub = StreamHub(self.table.subscribe, self.frame, heartbeat_s=heartbeat_s, check_s=check_s,
                                      stopping=self.stopping)
            return self._hub

    def frame(self, snap: dict[str, Any]) -> bytes:
        """One SSE event for a snapshot. Every phone is handed the same snapshot object, so it is encoded
        once (to UTF-8 bytes too: hundreds of streams send it) and shared (a small cache keyed by identity,
        holding the object so ids stay unique)."""
        key = id(snap)
        with self.lock:
            hit = self.frames.get(key)
            if hit is not None and hit[0] is snap:
                return hit[1]
        text = self.encode(snap)
        with self.lock:
            self.frames[key] = (snap, text)
            while len(self.frames) > 16:
                self.frames.popitem(last=False)
        return text

    @staticmethod
    def encode(snap: dict[str, Any]) -> bytes:
        """A snapshot as one server-sent event (`id` is the game's seq, so a phone can say where it was)."""
        data = json.dumps(snap, separators=(",", ":"), ensure_ascii=False)
        return f"id: {snap.get('seq', 0)}\nevent: snapshot\ndata: {data}\n\n".encode()

    def csrf_for(self, token: str) -> str:
        """The CSRF value bound to a control token: the page gets it, a cross-site form cannot."""
        return hmac.new(self.secret, b"csrf:" + token.encode(), hashlib.sha256).hexdigest()[:40]


class _Stop:
    """Put into every open stream's subscription at shutdown to wake it: the woken stream sees `stopping`
    set and ends at once. `snapshot` is None so a subscription's get() hands it on like a timeout."""

    snapshot = None
    seq = 0
    version = 0


STOP = _Stop()


def web() -> WebState:
    """The WebState of the app handling this request."""
    return current_app.extensions[EXTENSION]


def table() -> Any:
    """The table service of the app handling this request."""
    return web().table


def stop_streams(app: Flask) -> None:
    """End every open event stream at once (call before closing the WSGI server): each is woken by STOP."""
    state = app.extensions[EXTENSION]
    state.stopping.set()
    with state.lock:
        open_streams = list(state.subscriptions)
        hub = state._hub
    if hub is not None:
        hub.stop()
    for sub in open_streams:
        sub.put(STOP)


def token() -> str | None:
    """The caller's control token when it is one the box granted, else None."""
    value = request.cookies.get(TOKEN_COOKIE)
    if value and table().check_token(value):
        return value
    return None


def require_paired() -> str:
    """The caller's control token, or refuse: no token -> 401, token but no/wrong CSRF -> 403."""
    value = token()
    if value is None:
        raise ApiError(401, "not_paired", i18n.msg("not_paired"))
    sent = request.headers.get(CSRF_HEADER, "")
    if not sent:
        raise ApiError(403, "csrf_missing", i18n.msg("csrf_missing"))
    if not hmac.compare_digest(sent, web().csrf_for(value)):
        raise ApiError(403, "csrf_mismatch", i18n.msg("csrf_mismatch"))
    return value


def require_custom_header() -> None:
    """Unpaired writes (asking to pair) still need our header: a cross-site form cannot send it."""
    if CSRF_HEADER not in request.headers:
        raise ApiError(403, "csrf_missing", i18n.msg("csrf_missing"))


def require_paired_read() -> str:
    """A paired phone's token for a read that only paired phones may do (no CSRF: nothing changes)."""
    value = token()
    if value is None:
        raise ApiError(401, "not_paired", i18n.msg("not_paired"))
    return value


def json_body() -> dict[str, Any]:
    """The request's JSON object, checked at the door (webui.payload): 400 with the value's path."""
    try:
        return payload.parse_object(request.get_data(cache=True))
    except payload.BadPayload as exc:
        raise bad_payload(exc) from None


def bad_payload(exc: payload.BadPayload) -> ApiError:
    """The 400 for a request value refused at the door, worded for players."""
    if exc.code == "empty_body":
        return ApiError(400, "bad_json", i18n.msg("empty_body"))
    if exc.code == "not_object":
        return ApiError(400, "bad_json", i18n.msg("not_object"))
    if exc.code == "bad_json":
        return ApiError(400, "bad_json", i18n.msg("bad_json", detail=exc.detail))
    if exc.code == "bad_seed":
        return ApiError(400, "bad_setup", i18n.msg("bad_seed"))
    if exc.code == "bad_setup":
        return ApiError(400, "bad_setup", i18n.msg("bad_setup"))
    return ApiError(400, exc.code, i18n.msg("bad_value_" + exc.code, where=exc.where))


def client_address() -> str:
    return request.remote_addr or ""


def is_local() -> bool:
    """The request comes from the box itself (loopback)."""
    try:
        return ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        return False


def virtual_panel() -> bool:
    """The box has no real buttons (mock pins, demo tray): the page's panel stands in for them."""
    flag = current_app.config.get("DICESIGHT_VIRTUAL_PANEL")
    tbl = table()
    if flag is None:
        flag = getattr(tbl, "virtual_panel", None)
    if flag is None:
        panel = getattr(tbl, "panel", None)
        flag = getattr(panel, "mock", None) if panel is not None else True  # no panel: page is the panel
    return bool(flag)


def session_info() -> dict[str, Any]:
    """What the page needs to know about its own phone: paired or not, its CSRF value, its language, and
    the player seat it is bound to in the current game (None: watching)."""
    value = token()
    return {
        "paired": value is not None,
        "csrf": web().csrf_for(value) if value else None,
        "lang": i18n.current_code(),
        "virtual_pair": virtual_panel() or is_local(),
        "seat": seat_of(table(), value),
    }


def seat_of(tbl: Any, value: str | None) -> str | None:
    """The player the phone holding token `value` plays in the game on `tbl` (device.pairing.Pairing.bind_seat),
    or None: watching, unpaired, or bound to a seat of an earlier game."""
    pairing = getattr(tbl, "pairing", None)
    if not value or pairing is None or not hasattr(pairing, "seat"):
        return None
    return pairing.seat(value, getattr(tbl, "game_id", None))


def seat() -> str | None:
    """The player seat of the calling phone in the game on the table (None: watching, or not paired)."""
    return seat_of(table(), token())


def shown(snap: dict[str, Any]) -> dict[str, Any]:
    """A snapshot the table published, as the calling phone may see it (device.table.Table.seen_by: the
    table is the one place that filters what a phone sees)."""
    return table().seen_by(snap, seat())


def snapshot() -> dict[str, Any]:
    """The table's snapshot as the calling phone may see it."""
    return table().snapshot(viewer=seat())
