"""The pairing blueprint (the Philips Hue pattern, kept by the box's device.pairing): a phone asks, a
person presses Pair on the box, the phone collects an HttpOnly token cookie. Nested in the API blueprint
(addresses under /api/pair), whose write check lets only the asking through unpaired."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request

from . import i18n
from .web import (
    TOKEN_COOKIE,
    ApiError,
    client_address,
    require_custom_header,
    require_paired_read,
    table,
    token,
    unpaired_write,
    web,
)

bp = Blueprint("pairing", __name__, url_prefix="/pair")

# (what a User-Agent contains, how players call it), first match wins
_SYSTEMS = (("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("Windows", "Windows"),
            ("Mac OS X", "Mac"), ("CrOS", "Chromebook"), ("Linux", "Linux"))
_BROWSERS = (("SamsungBrowser", "Samsung Internet"), ("Edg", "Edge"), ("Firefox", "Firefox"),
             ("FxiOS", "Firefox"), ("CriOS", "Chrome"), ("Chrome", "Chrome"), ("Safari", "Safari"))


def phone_label(user_agent: str) -> str:
    """A name players recognise in the list of paired phones ("iPhone · Safari"), from the User-Agent;
    the raw header is long and says little to a person."""
    system = next((name for mark, name in _SYSTEMS if mark in user_agent), "")
    browser = next((name for mark, name in _BROWSERS if mark in user_agent), "")
    return " · ".join(p for p in (system, browser) if p) or user_agent[:40]


def _set_token_cookie(resp: Response, value: str) -> None:
    resp.set_cookie(TOKEN_COOKIE, value, max_age=400 * 24 * 3600, httponly=True, samesite="Strict",
                    secure=request.is_secure, path="/")


@bp.post("")
@unpaired_write
def ask():
    require_custom_header()
    try:
        rid = table().request_pairing(client_address(), phone_label(request.headers.get("User-Agent", "")))
    except Exception as exc:  # device.pairing.PairingRefused: this address asks too often
        retry = getattr(exc, "retry_after", None)
        if retry is None:
            raise
        code = getattr(exc, "code", "too_many_pair_requests")
        resp = jsonify(code=code, message=i18n.msg(code))
        resp.status_code = 429
        resp.headers["Retry-After"] = str(int(retry))
        return resp
    # a new request has the whole window. (Asking the pairing for the seconds left would be a poll, and a poll
    # hands out a verdict once: a Pair press landing between the request and that poll would have its
    # "conflict" taken by this answer, and the phone's own poll would find the request unknown.)
    return jsonify(request=rid, expires_in=table().pairing.window_s, status="waiting"), 202


@bp.get("/<rid>")
def result(rid: str):
    # The box's pairing keeps the window: one clock, one place that decides.
    status, value, left = table().pairing_poll(rid)
    if status == "granted":
        resp = jsonify(status="granted", paired=True, csrf=web().csrf_for(value))
        _set_token_cookie(resp, value)
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


@bp.delete("")
def revoke():
    table().revoke_tokens()
    resp = jsonify(status="revoked", paired=False)
    resp.delete_cookie(TOKEN_COOKIE, path="/", samesite="Strict", httponly=True)
    return resp


@bp.get("/phones")
def phones():
    """The paired phones (for a paired phone only): who they are, and which one is the asker."""
    value = require_paired_read()
    mine = table().pairing.phone_id(value)
    return jsonify(phones=[{**p, "this": p["id"] == mine} for p in table().pairing.phones()])


@bp.delete("/phones/<phone_id>")
def revoke_phone(phone_id: str):
    value = token()
    if len(phone_id) > 64 or not table().revoke_phone(phone_id):
        raise ApiError(404, "no_phone", i18n.msg("no_phone"))
    mine = table().pairing.phone_id(value)  # None if this phone unpaired itself
    resp = jsonify(status="revoked", paired=mine is not None)
    if mine is None:
        resp.delete_cookie(TOKEN_COOKIE, path="/", samesite="Strict", httponly=True)
    return resp
