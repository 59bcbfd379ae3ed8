"""The JSON API blueprint (docs/api.md): reads anyone on the Wi-Fi may make, writes only a paired phone may.

The pairing/CSRF check runs once, in `before_request`, for every write (any method but GET/HEAD/OPTIONS)
of this blueprint and the blueprints nested in it (pairing, events); a view that must take writes from an
unpaired phone (asking to pair, the virtual Pair button) says so with `@unpaired_write` and checks what
it needs itself.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from functools import cache

from flask import Blueprint, Response, abort, current_app, g, jsonify, request, send_file

from engine.core import IllegalAction, action_type
from engine.games import GAMES

from . import boards, events, fairness, i18n, pair, payload
from .web import (
    UNPAIRED_WRITES,
    ApiError,
    bad_payload,
    is_local,
    json_body,
    require_custom_header,
    require_paired,
    seat,
    session_info,
    shown,
    snapshot,
    table,
    token,
    unpaired_write,
    virtual_panel,
)

PANEL_BUTTONS = ("next", "undo", "pair", "throw")  # throw: the demo tray's, on the page only
IMAGE_NAME_MAX = 100  # roll photo names are ~30 characters; a longer one is no photo (and no 500)
MAX_PAGE_HOLD_S = 2.0
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

bp = Blueprint("api", __name__, url_prefix="/api")
bp.register_blueprint(pair.bp)
bp.register_blueprint(events.bp)
bp.register_blueprint(fairness.api_bp)


@bp.before_request
def _check_writer() -> None:
    if request.method in READ_METHODS:
        return
    view = current_app.view_functions.get(request.endpoint or "")
    if view in UNPAIRED_WRITES:
        return
    require_paired()


# -- reads -------------------------------------------------------------------------------------------
@bp.get("/state")
def state():
    return jsonify(snapshot())


@bp.get("/session")
def session():
    return jsonify(session_info())


@cache
def _games_body() -> tuple[bytes, bytes, str]:
    """/api/games encoded once (the descriptions are constant while the box runs), gzipped once, and its
    ETag: every phone that opens the page fetches it, about 430 KB of JSON (every card, ability and face
    in three languages), 90 KB gzipped, and nothing on a reload (304)."""
    described = [{**rules.describe(), "board": boards.urls(name)} for name, rules in GAMES.items()]
    raw = json.dumps({"games": described}, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return raw, gzip.compress(raw, 6), hashlib.sha256(raw).hexdigest()[:24]


@bp.get("/games")
def games():
    """Every game's self-description (engine.core.GameDescription): the page's game chooser, setup form,
    phase bar and board views read these, with names in every language."""
    raw, packed, tag = _games_body()
    resp = Response(raw, mimetype="application/json")
    if "gzip" in request.accept_encodings:
        resp.set_data(packed)
        resp.headers["Content-Encoding"] = "gzip"
    resp.headers["Vary"] = "Accept-Encoding"
    resp.headers["Cache-Control"] = "no-cache"  # kept by the phone, asked again (304) on each load
    resp.set_etag(tag)
    return resp.make_conditional(request)


@bp.get("/images/<name>")
def image(name: str):
    try:  # while a hidden-information game hides rolls, a roll's photo is its own player's (DESIGN)
        path = table().photo(name, seat()) if len(name) <= IMAGE_NAME_MAX else None
    except IllegalAction as err:
        raise ApiError(403, err.code, i18n.msg(err.code)) from None
    if path is None:
        raise ApiError(404, "no_image", i18n.msg("no_image"))
    return send_file(path, max_age=0 if table().hides() else 24 * 3600)


# -- writes (paired phones) ----------------------------------------------------------------------------
@bp.post("/actions")
def actions():
    action = json_body()
    try:
        action_type(action)  # the one shape check every game and Match share; malformed is a 400 here
    except IllegalAction as err:
        raise ApiError(400, err.code, i18n.msg(err.code)) from None
    mine = seat() if table().hides() else None
    if mine is not None and action.get("player") not in (None, mine):
        # in a game with hidden information a phone bound to a seat acts for its own player only
        raise ApiError(403, "not_your_seat", i18n.msg("not_your_seat"))
    if mine is not None and action.get("player") is None:
        action = {**action, "player": mine}  # a seated phone's roll is its own player's, never the next one's
    return jsonify(shown(table().submit(action)))


@bp.post("/games")
def new_game():
    body = json_body()
    game = body.get("game")
    setup = body.get("setup", {})
    if not isinstance(game, str) or not game:
        raise ApiError(400, "bad_setup", i18n.msg("no_game"))
    if not isinstance(setup, dict):
        raise ApiError(400, "bad_setup", i18n.msg("bad_setup"))
    rules = GAMES.get(game)
    form = rules.describe().get("setup", []) if rules is not None else []
    try:
        seed = payload.check_seed(body.get("seed"))
        if seed is not None and not current_app.config.get("DICESIGHT_ALLOW_SEED"):
            # a phone that picks the seed knows every roll the box will make (issue 32 #3)
            raise ApiError(403, "seed_not_allowed", i18n.msg("seed_not_allowed"))
        if rules is not None:  # an unknown game is the table's to refuse, by name
            payload.check_setup(setup, form)
    except payload.BadPayload as exc:
        raise _setup_refused(exc, form) from None
    g.refusal_game = game  # the engine's refusal is worded by the game being set up, not the one on the table
    return jsonify(shown(table().new_game(game, setup, seed)))


def _setup_refused(exc: payload.BadPayload, form: list[dict]) -> ApiError:
    """A setup refused at the door, worded for players. An option chosen by two seats (King of Tokyo plays
    each monster once) names the choice and the option in the phone's language: the sheet shows it."""
    if exc.code != "setup_not_unique":
        return bad_payload(exc)
    field = next((f for f in form if exc.where.startswith(f"setup.{f.get('key')}[")), {})
    option = next((o for o in field.get("options", []) if o.get("id") == exc.detail), {})
    return ApiError(400, exc.code, i18n.msg("bad_value_setup_not_unique", what=i18n.local(field.get("name")),
                                            name=i18n.local(option.get("name")) or exc.detail))


@bp.post("/tray/observe")
def tray_observe():
    """Camera rolls shown but not recorded for `seconds` (0 ends it): rolling for who starts."""
    seconds = json_body().get("seconds")
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or not 0 <= seconds <= 300:
        raise ApiError(400, "bad_observe", i18n.msg("bad_observe"))
    return jsonify(shown(table().observe(float(seconds))))


@bp.post("/learnt/forget")
def forget_learnt():
    """Forget the dice the box learnt of one set (`{"set": id}`): a paired phone's choice, e.g. after a
    game night with borrowed dice."""
    set_id = json_body().get("set")
    if not isinstance(set_id, str) or set_id not in (table().snapshot().get("learnt") or {}):
        raise ApiError(400, "bad_learnt_set", i18n.msg("bad_learnt_set"))
    return jsonify(shown(table().forget_learnt(set_id)))


@bp.post("/panel/<button>")
@unpaired_write
def panel(button: str):
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
        hold = json_body().get("hold_s", 0.0)
        # Holds from the page stop short of the Pair button's shutdown hold: only the box shuts down.
        if not isinstance(hold, int | float) or isinstance(hold, bool) or not 0 <= hold <= MAX_PAGE_HOLD_S:
            raise ApiError(400, "bad_hold", i18n.msg("bad_hold"))
    if button == "throw":
        return jsonify(shown(_throw_demo()))
    table().press(button, float(hold))
    return jsonify(snapshot())


def _throw_demo() -> dict:
    """The demo tray's "Throw the dice": the new snapshot, or a 409 in the phone's language saying why not
    (no demo tray, the game waits for a choice rather than dice, a throw still landing)."""
    try:
        return table().throw_dice()
    except IllegalAction as err:
        message = i18n.msg(err.code) if err.code in i18n.MESSAGES else err.message
        raise ApiError(409, err.code, message) from None


@bp.post("/seat")
def choose_seat():
    """Bind this phone to a player of the game on the table (`{"player": id}`; null: watch only). In a game
    with hidden information the phone then sees that player's secrets, and only that player's."""
    player = json_body().get("player")
    snap = table().snapshot()
    ids = [p.get("id") for p in snap.get("players") or []]
    if player is not None and player not in ids:
        raise ApiError(400, "bad_seat", i18n.msg("bad_seat"))
    bound = table().pairing.bind_seat(token(), snap.get("game_id"), player)
    if bound == "press":  # held by another phone: the box's Pair button gives it (issue 32 #3)
        raise ApiError(409, "seat_press_pair", i18n.msg("seat_press_pair"))
    if bound != "bound":
        raise ApiError(409, "seat_taken", i18n.msg("seat_taken"))
    return jsonify(session=session_info(), snapshot=snapshot())


@bp.get("/<path:rest>")
def unknown(rest: str):
    abort(404)
