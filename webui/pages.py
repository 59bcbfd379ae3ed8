"""The pages blueprint: the phone page itself, its join codes, the icon and the box's liveness answer."""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)

from . import i18n, joincode
from .web import session_info, table

bp = Blueprint("pages", __name__)


@bp.get("/")
def index():
    lang = request.args.get("lang")
    if lang:
        resp = redirect(url_for("pages.index"))
        if lang in i18n.LANGS:
            resp.set_cookie(i18n.LANG_COOKIE, lang, max_age=400 * 24 * 3600, samesite="Lax")
        return resp
    return render_template("index.html", session=session_info(), langs=i18n.LANGS,
                           strings=i18n.js_strings(), lang=i18n.current_code(), join=_join_for_page())


def _join() -> joincode.JoinInfo:
    return current_app.config["DICESIGHT_JOIN"]


def _join_for_page() -> dict[str, Any]:
    """What "Show join code" writes under its codes: the address this phone should pass on and, only where
    the config shows the hotspot to phones (hotspot.show_on_page), its name and password."""
    join = _join()
    url = joincode.url_for_phones(request.headers.get("Host"), join.url)
    return {"url": url, "ssid": join.ssid if join.wifi else None, "password": join.password if join.wifi else None}


def _svg(text: str, title: str) -> Response:
    """A code as an SVG picture, drawn here by segno (no script, no CDN); never cached, since the address
    in it depends on how the phone reached the box."""
    resp = Response(joincode.svg(text, title=title), mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/join.svg")
def join_svg():
    """The page's address as a QR code, for the next phone to scan off this one's screen."""
    url = joincode.url_for_phones(request.headers.get("Host"), _join().url)
    if not url:
        abort(404)
    return _svg(url, url)


@bp.get("/join-wifi.svg")
def join_wifi_svg():
    """The hotspot's Wi-Fi code: only where the config shows it to phones (else 404: the password is not
    served to anyone who can open the page)."""
    join = _join()
    if not join.wifi:
        abort(404)
    return _svg(join.wifi, join.ssid or "")


@bp.get("/healthz")
def healthz():
    try:
        health = table().health()
    except Exception as exc:  # liveness must answer even when a part is broken
        return jsonify(ok=False, error=str(exc)), 503
    body = {"ok": True, **health}
    if (health.get("store") or {}).get("storage_full"):
        body.update(ok=False, code="storage_full", message=i18n.msg("storage_full"))
    return jsonify(body), 200 if body["ok"] else 503


@bp.get("/favicon.ico")
def favicon():
    return redirect(url_for("static", filename="icon.svg"))
