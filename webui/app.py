"""The Flask app factory: blueprints for the page (pages), the JSON API (api, with pairing and events
nested in it), translations (Flask-Babel, webui.i18n) and the error answers every client can read.

The table service is registered as `app.extensions["dicesight"].table`; views reach it through
`webui.web.table()`. See docs/api.md for the HTTP contract and docs/architecture.md for how the parts fit.
"""

from __future__ import annotations

import errno
import logging
import secrets
import sqlite3
from collections.abc import Iterable
from typing import Any

from flask import Flask, current_app, g, jsonify, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from engine.core import IllegalAction
from engine.games import GAMES

from . import api, boards, events, fairness, guard, i18n, pages
from .joincode import JoinInfo
from .streams import StreamGate
from .web import EXTENSION, STREAMS, ApiError, WebState, stop_streams, table

__all__ = ["create_app", "server_message", "set_join", "stop_streams"]

log = logging.getLogger(__name__)

CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
       "connect-src 'self'; frame-ancestors 'none'")


def create_app(table_service: Any, *, secret_key: str | None = None, testing: bool = False,
               host_names: Iterable[str] = (), max_streams: int = 300, streams_per_address: int = 6,
               allow_seed: bool | None = None, join: JoinInfo | None = None) -> Flask:
    """The web app for one table service. `secret_key` signs nothing persistent; it binds CSRF values.
    `host_names`: names besides the machine's own that phones use for the box (the Host check);
    `max_streams`/`streams_per_address`: the live-update stream gate (see webui.streams); `allow_seed`:
    whether a phone may choose a new game's seed (tests and replays; default: only in testing, as a phone
    that chose the seed predicts every roll); `join`: what "Show join code" shows (webui.joincode; the box
    sets it once it knows its port, see `set_join`)."""
    app = Flask(__name__)
    key = secret_key or secrets.token_hex(32)
    app.config.update(
        SECRET_KEY=key,
        TESTING=testing,
        MAX_CONTENT_LENGTH=64 * 1024,
        SEND_FILE_MAX_AGE_DEFAULT=3600,
        DICESIGHT_HEARTBEAT_S=events.HEARTBEAT_S,
        DICESIGHT_STREAM_MAX_S=events.STREAM_MAX_S,
        DICESIGHT_ALLOW_SEED=testing if allow_seed is None else allow_seed,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.compact = True  # type: ignore[attr-defined]
    app.extensions[EXTENSION] = WebState(table_service, key.encode())
    app.extensions[STREAMS] = StreamGate(max_streams=max_streams, per_address=streams_per_address)
    app.config["DICESIGHT_HOST_NAMES"] = guard.own_names(host_names)
    set_join(app, join or JoinInfo())
    i18n.init_app(app)

    boards.check()  # a game without its board stops the start here, not on a phone
    app.register_blueprint(pages.bp)
    app.register_blueprint(boards.bp)
    app.register_blueprint(fairness.page_bp)
    app.register_blueprint(api.bp)

    app.before_request(_guard)
    app.after_request(_headers)
    app.register_error_handler(ApiError, _api_error)
    app.register_error_handler(IllegalAction, _illegal)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected)
    return app


def set_join(app: Flask, join: JoinInfo) -> None:
    """What the page's "Show join code" shows from now on: the box's page address (known only once its
    server has a port) and the hotspot, only where the config lets phones see it."""
    app.config["DICESIGHT_JOIN"] = join


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


def _guard() -> None:
    """Only the box's own names (DNS rebinding) and, for writes, only its own page (see webui.guard)."""
    if not guard.host_allowed(request.headers.get("Host"), current_app.config["DICESIGHT_HOST_NAMES"]):
        raise ApiError(403, "bad_host", i18n.msg("bad_host"))
    if request.method in guard.WRITE_METHODS and not guard.origin_allowed(
            request.headers.get("Origin"), request.headers.get("Sec-Fetch-Site"), request.headers.get("Host")):
        raise ApiError(403, "bad_origin", i18n.msg("bad_origin"))


def _is_api() -> bool:
    return request.path.startswith("/api/") or request.path == "/healthz"


def _headers(resp):
    if _is_api():
        resp.headers.setdefault("Cache-Control", "no-store")
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    resp.headers.setdefault("Referrer-Policy", "no-referrer")
    if resp.mimetype == "text/html":
        resp.headers.setdefault("Content-Security-Policy", CSP)
    return resp


def _api_error(exc: ApiError) -> ResponseReturnValue:
    return jsonify(code=exc.code, message=exc.message), exc.status


def _current_texts() -> dict[str, dict[str, str]]:
    """The texts of the game the refusal is about (its refusals by code live there): the game being set up
    (`g.refusal_game`, a new game's setup), else the game on the table, or none."""
    try:
        name = g.get("refusal_game") or table().snapshot().get("game", "")
        rules = GAMES.get(name)
    except Exception:  # a refusal must be answered even when the table cannot say its game
        return {}
    return rules.describe().get("texts", {}) if rules is not None else {}


def _illegal(exc: IllegalAction) -> ResponseReturnValue:
    body = exc.to_dict()
    translated = i18n.engine_message(exc.code, exc.message, _current_texts())
    if translated != exc.message:
        body["message"] = translated
        body["engine_message"] = exc.message
    return jsonify(body), 409


def _http_error(exc: HTTPException) -> ResponseReturnValue:
    if _is_api():
        code = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(exc.code or 0, "http")
        return jsonify(code=code, message=i18n.msg(code) if code != "http" else exc.description), exc.code or 500
    return exc


def _unexpected(exc: Exception) -> ResponseReturnValue:
    """A full disk is said as such (507: nothing was kept); anything else is logged and answered as a
    JSON 500 without a traceback."""
    if storage_full(exc):
        log.error("storage full: %s", exc)
        return jsonify(code="storage_full", message=i18n.msg("storage_full")), 507
    log.exception("unexpected error on %s %s", request.method, request.path)
    return jsonify(code="internal", message=i18n.msg("internal")), 500


def server_message(app: Flask, status: int, headers: dict[str, str]) -> str:
    """The sentence for a refusal the web server answers itself (body too large...), in the language of
    the request's cookie or Accept-Language (`headers`: lower-case names)."""
    code = "too_large" if status == 413 else "bad_request"
    wanted = {k: v for k, v in (("Accept-Language", headers.get("accept-language")),
                                ("Cookie", headers.get("cookie"))) if v}
    with app.test_request_context("/", headers=wanted):
        return str(i18n.msg(code))
