"""The pages blueprint: the phone page itself, the icon and the box's liveness answer."""

from __future__ import annotations

from flask import Blueprint, jsonify, redirect, render_template, request, url_for

from . import i18n
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
                           strings=i18n.js_strings(), lang=i18n.current_code())


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
