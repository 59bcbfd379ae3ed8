"""The Flask app factory: the page, the JSON API, server-sent events and pairing.

The app holds no game state of its own: every read asks the table service (`device.table.Table`) for a
snapshot and every write goes through `table.submit`/`table.new_game`, so the box's single writer stays the
only writer. See docs/api.md for the HTTP contract.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import ipaddress
import json
import logging
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from flask import Flask, Response, abort, g, jsonify, redirect, render_template, request, send_file, url_for
from werkzeug.exceptions import HTTPException

from engine.core import IllegalAction
from engine.games import GAMES

from . import guard, i18n, payload
from .streams import StreamGate

log = logging.getLogger(__name__)

TOKEN_COOKIE = "dicesight_token"
CSRF_HEADER = "X-Dicesight-CSRF"
HEARTBEAT_S = 15.0
STREAM_MAX_S = 30 * 60.0  # a stream ends now and then; the browser reconnects (frees stuck threads)
PANEL_BUTTONS = ("next", "undo", "pair")
MAX_PAGE_HOLD_S = 2.0
IMAGE_NAME_MAX = 100  # roll photo names are ~30 characters; a longer one is no photo (and no 500)


class ApiError(Exception):
    """A refusal with an HTTP status, a code for programs and a sentence for players."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class WebState:
    """What the app itself keeps: the CSRF secret, encoded SSE frames and the stop flag (the pairing
    window is the box's: device.pairing)."""

    def __init__(self, table: Any, secret_key: bytes) -> None:
        self.table = table
        self.secret = secret_key
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.frames: OrderedDict[int, tuple[dict[str, Any], str]] = OrderedDict()

    def frame(self, snap: dict[str, Any]) -> str:
        """One SSE event for a snapshot. Every phone is handed the same snapshot object, so it is encoded
        once and the text shared (a small cache keyed by identity, holding the object so ids stay unique)."""
        key = id(snap)
        with self.lock:
            hit = self.frames.get(key)
            if hit is not None and hit[0] is snap:
                return hit[1]
        data = json.dumps(snap, separators=(",", ":"), ensure_ascii=False)
        text = f"id: {snap.get('seq', 0)}\nevent: snapshot\ndata: {data}\n\n"
        with self.lock:
            self.frames[key] = (snap, text)
            while len(self.frames) > 16:
                self.frames.popitem(last=False)
        return text

    def csrf_for(self, token: str) -> str:
        """The CSRF value bound to a control token: the page gets it, a cross-site form cannot."""
        return hmac.new(self.secret, b"csrf:" + token.encode(), hashlib.sha256).hexdigest()[:40]


def storage_full(exc: BaseException | None) -> bool:
    """Did this error (or one it was raised from) come from a full disk? OSError ENOSPC/EDQUOT, or SQLite's
    "database or disk is full"; the box then says "storage full" instead of a generic internal error."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            return True
        if isinstance(exc, sqlite3.Error) and (getattr(exc, "sqlite_errorcode", None) == 13  # SQLITE_FULL
                                               or "disk is full" in str(exc)):
            return True
        if getattr(exc, "storage_full", False):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def create_app(table: Any, *, secret_key: str | None = None, testing: bool = False,
               host_names: Iterable[str] = (), max_streams: int = 300, streams_per_address: int = 6) -> Flask:
    """The web app for one table service. `secret_key` signs nothing persistent; it binds CSRF values.
    `host_names`: names besides the machine's own that phones use for the box (the Host check);
    `max_streams`/`streams_per_address`: the live-update stream gate (see webui.streams)."""
    app = Flask(__name__)
    key = secret_key or secrets.token_hex(32)
    app.config.update(
        SECRET_KEY=key,
        TESTING=testing,
        MAX_CONTENT_LENGTH=64 * 1024,
        JSON_SORT_KEYS=False,
        SEND_FILE_MAX_AGE_DEFAULT=3600,
        DICESIGHT_HEARTBEAT_S=HEARTBEAT_S,
        DICESIGHT_STREAM_MAX_S=STREAM_MAX_S,
    )
    app.json.sort_keys = False
    app.json.compact = True
    web = WebState(table, key.encode())
    app.extensions["dicesight"] = web
    gate = StreamGate(max_streams=max_streams, per_address=streams_per_address)
    app.extensions["dicesight.streams"] = gate
    names = guard.own_names(host_names)
    i18n.init_app(app)

    # -- helpers ---------------------------------------------------------------------------------
    def token() -> str | None:
        value = request.cookies.get(TOKEN_COOKIE)
        if value and table.check_token(value):
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
        if not hmac.compare_digest(sent, web.csrf_for(value)):
            raise ApiError(403, "csrf_mismatch", i18n.msg("csrf_mismatch"))
        return value

    def require_paired_read() -> str:
        """A paired phone's token for a read that only paired phones may do (no CSRF: nothing changes)."""
        value = token()
        if value is None:
            raise ApiError(401, "not_paired", i18n.msg("not_paired"))
        return value

    def require_custom_header() -> None:
        """Unpaired writes (asking to pair) still need our header: a cross-site form cannot send it."""
        if CSRF_HEADER not in request.headers:
            raise ApiError(403, "csrf_missing", i18n.msg("csrf_missing"))

    def json_body() -> dict[str, Any]:
        """The request's JSON object, checked at the door (webui.payload): 400 with the value's path."""
        try:
            return payload.parse_object(request.get_data(cache=True))
        except payload.BadPayload as exc:
            raise bad_payload(exc) from None

    def bad_payload(exc: payload.BadPayload) -> ApiError:
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
        try:
            return ipaddress.ip_address(request.remote_addr or "").is_loopback
        except ValueError:
            return False

    def virtual_panel() -> bool:
        """The box has no real buttons (mock pins, demo tray): the page's panel stands in for them."""
        flag = app.config.get("DICESIGHT_VIRTUAL_PANEL")
        if flag is None:
            flag = getattr(table, "virtual_panel", None)
        if flag is None:
            panel = getattr(table, "panel", None)
            flag = getattr(panel, "mock", None) if panel is not None else True  # no panel: page is the panel
        return bool(flag)

    def session_info() -> dict[str, Any]:
        value = token()
        return {
            "paired": value is not None,
            "csrf": web.csrf_for(value) if value else None,
            "lang": i18n.current_code(),
            "virtual_pair": virtual_panel() or is_local(),
        }

    def set_token_cookie(resp: Response, value: str) -> None:
        resp.set_cookie(TOKEN_COOKIE, value, max_age=400 * 24 * 3600, httponly=True, samesite="Strict",
                        secure=request.is_secure, path="/")

    @app.before_request
    def _guard() -> None:
        """Only the box's own names (DNS rebinding) and, for writes, only its own page (see webui.guard)."""
        g.t0 = time.perf_counter()
        if not guard.host_allowed(request.headers.get("Host"), names):
            raise ApiError(403, "bad_host", i18n.msg("bad_host"))
        if request.method in guard.WRITE_METHODS and not guard.origin_allowed(
                request.headers.get("Origin"), request.headers.get("Sec-Fetch-Site"),
                request.headers.get("Host")):
            raise ApiError(403, "bad_origin", i18n.msg("bad_origin"))

    @app.after_request
    def _headers(resp: Response) -> Response:
        if request.path.startswith("/api/") or request.path == "/healthz":
            resp.headers.setdefault("Cache-Control", "no-store")
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "no-referrer")
        if resp.mimetype == "text/html":
            resp.headers.setdefault(
                "Content-Security-Policy",
                "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                "connect-src 'self'; frame-ancestors 'none'")
        return resp

    # -- errors ----------------------------------------------------------------------------------
    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError):
        return jsonify(code=exc.code, message=exc.message), exc.status

    @app.errorhandler(IllegalAction)
    def _illegal(exc: IllegalAction):
        body = exc.to_dict()
        translated = i18n.engine_message(exc.code, exc.message)
        if translated != exc.message:
            body["message"] = translated
            body["engine_message"] = exc.message
        return jsonify(body), 409

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        if request.path.startswith("/api/") or request.path == "/healthz":
            code = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(exc.code or 0, "http")
            return jsonify(code=code, message=i18n.msg(code) if code != "http" else exc.description), exc.code
        return exc

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        """A full disk is said as such (507: nothing was kept); anything else is logged and answered as a
        JSON 500 without a traceback."""
        if storage_full(exc):
            log.error("storage full: %s", exc)
            return jsonify(code="storage_full", message=i18n.msg("storage_full")), 507
        log.exception("unexpected error on %s %s", request.method, request.path)
        return jsonify(code="internal", message=i18n.msg("internal")), 500

    # -- pages -----------------------------------------------------------------------------------
    @app.get("/")
    def index():
        lang = request.args.get("lang")
        if lang:
            resp = redirect(url_for("index"))
            if lang in i18n.LANGS:
                resp.set_cookie(i18n.LANG_COOKIE, lang, max_age=400 * 24 * 3600, samesite="Lax")
            return resp
        return render_template("index.html", session=session_info(), langs=i18n.LANGS,
                               strings=i18n.js_strings(), lang=i18n.current_code())

    # -- reading API -----------------------------------------------------------------------------
    @app.get("/api/state")
    def api_state():
        return jsonify(table.snapshot())

    @app.get("/api/session")
    def api_session():
        return jsonify(session_info())

    @app.get("/api/games")
    def api_games():
        games = []
        for row in table.games():
            row = dict(row)
            if row.get("name") == "dicethrone" and not row.get("modes"):
                row["modes"] = ["1v1", "2v2", "koth"]
            games.append(row)
        return jsonify(games=games, heroes=i18n.hero_catalogue(), statuses=i18n.status_catalogue(),
                       cards=i18n.card_catalogue())

    @app.get("/healthz")
    def healthz():
        try:
            health = table.health()
        except Exception as exc:  # liveness must answer even when a part is broken
            return jsonify(ok=False, error=str(exc)), 503
        body = {"ok": True, **health}
        if (health.get("store") or {}).get("storage_full"):
            body.update(ok=False, code="storage_full", message=i18n.msg("storage_full"))
        return jsonify(body), 200 if body["ok"] else 503

    @app.get("/api/images/<name>")
    def api_image(name: str):
        path = table.image_path(name) if len(name) <= IMAGE_NAME_MAX else None
        if path is None:
            raise ApiError(404, "no_image", i18n.msg("no_image"))
        return send_file(path, max_age=24 * 3600)

    @app.get("/api/events")
    def api_events():
        # Each stream holds a server thread: the gate keeps the threads that answer requests (503 when
        # the box is full, 429 when this address holds its share). The place is freed when the stream
        # ends, however it ends.
        address = client_address()
        refusal = gate.enter(address)
        if refusal is not None:
            status = 503 if refusal.code == "too_many_streams" else 429
            resp = jsonify(code=refusal.code, message=i18n.msg(refusal.code))
            resp.status_code = status
            resp.headers["Retry-After"] = str(refusal.retry_after)
            return resp
        try:
            sub = table.subscribe()  # before the snapshot, so no change falls between the two
        except BaseException:
            gate.leave(address)
            raise
        heartbeat = float(app.config["DICESIGHT_HEARTBEAT_S"])
        max_age = float(app.config["DICESIGHT_STREAM_MAX_S"])

        frame = web.frame
        # waitress tells when the phone has gone (it keeps reading the connection: request lookahead),
        # so a closed page frees its place within half a second, not at the next heartbeat.
        gone = request.environ.get("waitress.client_disconnected") or (lambda: False)

        def stream():
            try:
                yield "retry: 2000\n" + frame(table.snapshot())
                started = last = time.monotonic()
                while not web.stopping.is_set() and not gone():
                    snap = sub.get(timeout=min(0.5, heartbeat))
                    now = time.monotonic()
                    if snap is not None:
                        yield frame(snap)
                        last = now
                    elif now - last >= heartbeat:
                        yield ": heartbeat\n\n"
                        last = now
                    if now - started >= max_age:
                        break
            finally:
                sub.close()
                gate.leave(address)

        return Response(stream(), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    # -- writing API -----------------------------------------------------------------------------
    @app.post("/api/actions")
    def api_actions():
        require_paired()
        action = json_body()
        if not isinstance(action.get("type"), str) or not action["type"]:
            raise ApiError(400, "bad_action", i18n.msg("bad_action"))
        return jsonify(table.submit(action))

    @app.post("/api/games")
    def api_new_game():
        require_paired()
        body = json_body()
        game = body.get("game")
        setup = body.get("setup", {})
        if not isinstance(game, str) or not game:
            raise ApiError(400, "bad_setup", i18n.msg("no_game"))
        if not isinstance(setup, dict):
            raise ApiError(400, "bad_setup", i18n.msg("bad_setup"))
        try:
            seed = payload.check_seed(body.get("seed"))
            rules = GAMES.get(game)
            if rules is not None:  # an unknown game is the table's to refuse, by name
                payload.check_setup(setup, rules.describe().get("setup", []))
        except payload.BadPayload as exc:
            raise bad_payload(exc) from None
        return jsonify(table.new_game(game, setup, seed))

    @app.post("/api/pair")
    def api_pair():
        require_custom_header()
        try:
            rid = table.request_pairing(client_address(), request.headers.get("User-Agent", ""))
        except Exception as exc:  # device.pairing.PairingRefused: this address asks too often
            retry = getattr(exc, "retry_after", None)
            if retry is None:
                raise
            code = getattr(exc, "code", "too_many_pair_requests")
            resp = jsonify(code=code, message=i18n.msg(code))
            resp.status_code = 429
            resp.headers["Retry-After"] = str(int(retry))
            return resp
        _status, _token, left = table.pairing_poll(rid)
        return jsonify(request=rid, expires_in=left, status="waiting"), 202

    @app.get("/api/pair/<rid>")
    def api_pair_result(rid: str):
        # The box's pairing keeps the window: one clock, one place that decides.
        status, value, left = table.pairing_poll(rid)
        if status == "granted":
            resp = jsonify(status="granted", paired=True, csrf=web.csrf_for(value))
            set_token_cookie(resp, value)
            return resp
        if status == "expired":
            return jsonify(status="expired", paired=False, message=i18n.msg("pair_expired"))
        if status == "conflict":  # two phones asked at once: the press admitted neither
            return jsonify(status="conflict", paired=False, message=i18n.msg("pair_conflict"))
        if status == "storage_full":
            return jsonify(status="storage_full", paired=False, code="storage_full",
                           message=i18n.msg("storage_full")), 507
        if status == "unknown":
            raise ApiError(404, "unknown_request", i18n.msg("unknown_request"))
        return jsonify(status="waiting", paired=False, expires_in=left)

    @app.delete("/api/pair")
    def api_revoke():
        require_paired()
        table.revoke_tokens()
        resp = jsonify(status="revoked", paired=False)
        resp.delete_cookie(TOKEN_COOKIE, path="/", samesite="Strict", httponly=True)
        return resp

    @app.get("/api/pair/phones")
    def api_phones():
        """The paired phones (for a paired phone only): who they are, and which one is the asker."""
        value = require_paired_read()
        mine = table.pairing.phone_id(value)
        return jsonify(phones=[{**p, "this": p["id"] == mine} for p in table.pairing.phones()])

    @app.delete("/api/pair/phones/<phone_id>")
    def api_revoke_phone(phone_id: str):
        value = require_paired()
        if len(phone_id) > 64 or not table.revoke_phone(phone_id):
            raise ApiError(404, "no_phone", i18n.msg("no_phone"))
        mine = table.pairing.phone_id(value)  # None if this phone unpaired itself
        resp = jsonify(status="revoked", paired=mine is not None)
        if mine is None:
            resp.delete_cookie(TOKEN_COOKIE, path="/", samesite="Strict", httponly=True)
        return resp

    @app.post("/api/tray/observe")
    def api_tray_observe():
        """Camera rolls shown but not recorded for `seconds` (0 ends it): rolling for who starts."""
        require_paired()
        seconds = json_body().get("seconds")
        if not isinstance(seconds, int | float) or isinstance(seconds, bool) or not 0 <= seconds <= 300:
            raise ApiError(400, "bad_observe", i18n.msg("bad_observe"))
        return jsonify(table.observe(float(seconds)))

    @app.post("/api/panel/<button>")
    def api_panel(button: str):
        if button not in PANEL_BUTTONS:
            raise ApiError(404, "no_button", i18n.msg("no_button"))
        if button == "pair":
            # Pressing Pair grants tokens, so only someone at the box may: the box itself (loopback)
            # or, on a box with no real buttons (demo tray, mock pins), the page's virtual panel.
            require_custom_header()
            if not (virtual_panel() or is_local()):
                raise ApiError(403, "panel_physical", i18n.msg("panel_physical"))
        else:
            require_paired()
        hold = 0.0
        if request.get_data(cache=True).strip():
            body = json_body()
            hold = body.get("hold_s", 0.0)
            # Holds from the page stop short of the Pair button's shutdown hold: only the box shuts down.
            if not isinstance(hold, int | float) or isinstance(hold, bool) or not 0 <= hold <= MAX_PAGE_HOLD_S:
                raise ApiError(400, "bad_hold", i18n.msg("bad_hold"))
        table.press(button, float(hold))
        return jsonify(table.snapshot())

    @app.get("/favicon.ico")
    def favicon():
        return redirect(url_for("static", filename="icon.svg"))

    @app.get("/api/<path:rest>")
    def api_unknown(rest: str):
        abort(404)

    return app


def server_message(app: Flask, status: int, headers: dict[str, str]) -> str:
    """The sentence for a refusal the web server answers itself (body too large...), in the language of
    the request's cookie or Accept-Language (`headers`: lower-case names)."""
    code = "too_large" if status == 413 else "bad_request"
    wanted = {k: v for k, v in (("Accept-Language", headers.get("accept-language")),
                                ("Cookie", headers.get("cookie"))) if v}
    with app.test_request_context("/", headers=wanted):
        return str(i18n.msg(code))


def stop_streams(app: Flask) -> None:
    """End every open event stream within half a second (call before closing the WSGI server)."""
    app.extensions["dicesight"].stopping.set()
