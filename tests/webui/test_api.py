"""The HTTP contract (docs/api.md) against the box's real table service, faked only at the hardware
(tests/webui/realbox.py: mock pins, a test camera, an injected clock): reads, pairing, refusals, events."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from realbox import Clock, demo_table, make_table, reading, set_camera, set_tray  # noqa: E402

from engine.games import get_rules  # noqa: E402
from webui import create_app  # noqa: E402

CSRF = "X-Dicesight-CSRF"


JPEG = b"\xff\xd8\xff\xe0fakejpeg"


@pytest.fixture()
def clock():
    return Clock()


@pytest.fixture()
def table(tmp_path, clock):
    table = make_table(tmp_path, clock=clock)
    yield table
    table.close()


@pytest.fixture()
def app(table):
    return create_app(table, secret_key="test-secret", testing=True)


@pytest.fixture()
def client(app):
    return app.test_client()


def pair(client, table) -> str:
    """Pair the test client the way a phone does; returns its CSRF value."""
    r = client.post("/api/pair", headers={CSRF: "ask"})
    assert r.status_code == 202
    rid = r.get_json()["request"]
    assert client.get(f"/api/pair/{rid}").get_json()["status"] == "waiting"
    table.press("pair")  # the Pair button, through the mock pins
    r = client.get(f"/api/pair/{rid}")
    body = r.get_json()
    assert body["status"] == "granted"
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    return body["csrf"]


def state(client) -> dict:
    snap = client.get("/api/state").get_json()
    return {k: v for k, v in snap.items() if k != "pairing"}


# -- reads ----------------------------------------------------------------------------------------
def test_state_is_the_table_snapshot(client, table):
    table.submit({"type": "roll", "dice": [2, 5]})
    snap = client.get("/api/state").get_json()
    assert snap["seq"] == 1
    assert snap["game"] == "freeroll"
    assert [d["value"] for d in snap["rolls"][0]["dice"]] == [2, 5]
    assert snap["tray"]["state"] == "empty" and snap["tray"]["dice"] == []
    assert snap["camera"]["status"] == "ok" and snap["panel"]["leds"]["status"]


def test_healthz_reports_camera_and_store(client, table):
    set_camera(table, "reconnecting", "USB camera unplugged")
    body = client.get("/healthz").get_json()
    assert body["ok"] is True
    assert body["camera"]["status"] == "reconnecting"
    assert body["store"]["ok"] is True and body["store"]["storage_full"] is False


def test_page_is_served_with_its_assets(client):
    page = client.get("/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'id="tray"' in html and 'id="board"' in html
    for asset in ("app.js", "core.js", "dice.js", "setup.js", "rolloff.js", "style.css", "icon.svg"):
        assert client.get(f"/static/{asset}").status_code == 200
    for game in client.get("/api/games").get_json()["games"]:  # each game's board ships in its own folder
        board = game["board"]
        assert board["js"].startswith(f"/games/{game['name']}/board.js?v="), board
        assert client.get(board["js"]).status_code == 200, board
        if board["css"] is not None:
            assert client.get(board["css"]).status_code == 200, board
    assert client.get("/games/dicethrone/rules.py").status_code == 404  # a game's folder serves its board only
    assert client.get("/games/nosuchgame/board.js").status_code == 404
    # no CDN: nothing the page loads names another host (the box's own address is written as text in the
    # "Show join code" dialog, issue 36)
    assert not re.search(r"""(src|href|action)\s*=\s*["']?(https?:)?//""", html), "an asset from elsewhere"


def test_game_descriptions_are_gzipped_for_phones_that_ask_and_not_sent_again(client):
    """/api/games is every card and ability in three languages: a phone gets it gzipped, and on a reload
    the ETag answers 304 with nothing (docs/api.md)."""
    import gzip

    plain = client.get("/api/games")
    assert plain.status_code == 200 and "Content-Encoding" not in plain.headers
    names = {g["name"] for g in plain.get_json()["games"]}
    packed = client.get("/api/games", headers={"Accept-Encoding": "gzip, deflate"})
    assert packed.headers["Content-Encoding"] == "gzip" and packed.headers["Vary"] == "Accept-Encoding"
    assert gzip.decompress(packed.get_data()) == plain.get_data()
    assert len(packed.get_data()) < len(plain.get_data()) / 3
    again = client.get("/api/games", headers={"If-None-Match": plain.headers["ETag"]})
    assert again.status_code == 304 and again.get_data() == b""
    assert {"dicethrone", "kingoftokyo", "regidice", "magewars", "freeroll"} <= names


def test_roll_photos_are_served_and_paths_refused(client, table):
    name = table.submit({"type": "roll", "dice": [3], "source": "camera"}, image=JPEG)["log"][-1]["action"]["image"]
    assert client.get(f"/api/images/{name}").data == JPEG
    r = client.get("/api/images/..%2Fsecret")
    assert r.status_code == 404
    assert client.get("/api/images/nope.jpg").get_json()["code"] == "no_image"


def test_unknown_api_path_is_json_404(client):
    r = client.get("/api/nothing")
    assert r.status_code == 404
    assert r.get_json()["code"] == "not_found"


# -- pairing --------------------------------------------------------------------------------------
def test_pairing_grants_a_token_only_after_the_pair_button(client, table):
    csrf = pair(client, table)
    assert client.get("/api/session").get_json() == {
        "paired": True, "csrf": csrf, "lang": "en", "virtual_pair": True, "seat": None}


def test_pair_request_needs_our_header(client):
    r = client.post("/api/pair")
    assert r.status_code == 403
    assert r.get_json()["code"] == "csrf_missing"


def test_pairing_expires_after_30_seconds(client, table, clock):
    # the window is the box's pairing (one clock), the app keeps no deadlines of its own
    rid = client.post("/api/pair", headers={CSRF: "x"}).get_json()["request"]
    clock.t += 31
    table.press("pair")  # too late
    body = client.get(f"/api/pair/{rid}").get_json()
    assert body["status"] == "expired"
    assert "30 seconds" in body["message"]
    assert client.get(f"/api/pair/{rid}").get_json()["code"] == "unknown_request"


def test_token_is_handed_to_the_asking_phone_only_once(client, table, app):
    rid = client.post("/api/pair", headers={CSRF: "x"}).get_json()["request"]
    table.press("pair")
    assert client.get(f"/api/pair/{rid}").get_json()["status"] == "granted"
    other = app.test_client()
    assert other.get(f"/api/pair/{rid}").status_code == 404


def test_revoking_unpairs_every_phone(client, table):
    csrf = pair(client, table)
    r = client.delete("/api/pair", headers={CSRF: csrf})
    assert r.get_json()["status"] == "revoked"
    r = client.post("/api/actions", json={"type": "roll", "dice": [1]}, headers={CSRF: csrf})
    assert r.status_code == 401


def test_virtual_pair_button_refused_on_a_box_with_real_buttons(table):
    app = create_app(table, secret_key="k", testing=True)
    app.config["DICESIGHT_VIRTUAL_PANEL"] = False  # a Pi with its real buttons
    remote = app.test_client()
    remote.environ_base["REMOTE_ADDR"] = "192.168.1.50"
    rid = remote.post("/api/pair", headers={CSRF: "x"}).get_json()["request"]
    r = remote.post("/api/panel/pair", headers={CSRF: "x"})
    assert r.status_code == 403
    assert r.get_json()["code"] == "panel_physical"
    assert remote.get(f"/api/pair/{rid}").get_json()["status"] == "waiting"  # the press did not happen
    local = app.test_client()  # the box itself (loopback) may still press it
    assert local.post("/api/panel/pair", headers={CSRF: "x"}).status_code == 200
    assert remote.get(f"/api/pair/{rid}").get_json()["status"] == "granted"


def test_page_cannot_hold_pair_long_enough_to_shut_down(client, table):
    r = client.post("/api/panel/pair", json={"hold_s": 6}, headers={CSRF: "x"})
    assert r.status_code == 400
    assert r.get_json()["code"] == "bad_hold"
    assert not table.shutdown_requested.is_set()


# -- every write refused without token or CSRF ----------------------------------------------------
WRITES = [
    ("post", "/api/actions", {"type": "roll", "dice": [3]}),
    ("post", "/api/games", {"game": "freeroll", "setup": {}}),
    ("post", "/api/panel/next", {}),
    ("post", "/api/panel/undo", {"hold_s": 1.0}),
    ("delete", "/api/pair", None),
]


@pytest.mark.parametrize("method,path,body", WRITES)
def test_write_without_token_refused(client, table, method, path, body):
    table.submit({"type": "roll", "dice": [4]})
    before = state(client)
    r = getattr(client, method)(path, json=body, headers={CSRF: "anything"})
    assert r.status_code == 401
    err = r.get_json()
    assert err["code"] == "not_paired" and "Pair" in err["message"]
    assert state(client) == before


@pytest.mark.parametrize("method,path,body", WRITES)
def test_write_without_csrf_refused(client, table, method, path, body):
    pair(client, table)
    table.submit({"type": "roll", "dice": [4]})
    before = state(client)
    r = getattr(client, method)(path, json=body)
    assert r.status_code == 403
    assert r.get_json()["code"] == "csrf_missing"
    r = getattr(client, method)(path, json=body, headers={CSRF: "0" * 40})
    assert r.status_code == 403
    assert r.get_json()["code"] == "csrf_mismatch"
    assert r.get_json()["message"]
    assert state(client) == before
    assert client.get("/api/session").get_json()["paired"] is True  # still paired: nothing revoked


def test_csrf_of_another_phone_does_not_work(app, table):
    a, b = app.test_client(), app.test_client()
    csrf_a = pair(a, table)
    pair(b, table)
    r = b.post("/api/actions", json={"type": "roll", "dice": [1]}, headers={CSRF: csrf_a})
    assert r.status_code == 403


# -- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize("raw,code", [
    ("{not json", "bad_json"),
    ("", "bad_json"),
    ("[1, 2]", "bad_json"),
    ('"roll"', "bad_json"),
    ('{"dice": [1]}', "bad_action"),
    ('{"type": 7}', "bad_action"),
    ("\xff\xfe", "bad_json"),
])
def test_malformed_actions_are_400_and_change_nothing(client, table, raw, code):
    csrf = pair(client, table)
    table.submit({"type": "roll", "dice": [6, 6]})
    before = state(client)
    r = client.post("/api/actions", data=raw.encode("latin-1"), content_type="application/json",
                    headers={CSRF: csrf})
    assert r.status_code == 400
    err = r.get_json()
    assert err["code"] == code and err["message"]
    assert state(client) == before


@pytest.mark.parametrize("action,code", [
    ({"type": "roll", "dice": [7]}, "bad_dice"),
    ({"type": "roll", "dice": []}, "bad_dice"),
    ({"type": "roll", "dice": [1], "source": "ouija"}, "bad_source"),
    ({"type": "attack"}, "unknown_action"),
    ({"type": "redo"}, "nothing_to_redo"),
])
def test_illegal_actions_are_409_with_engine_code_and_change_nothing(client, table, action, code):
    csrf = pair(client, table)
    table.submit({"type": "roll", "dice": [2]})
    before = state(client)
    r = client.post("/api/actions", json=action, headers={CSRF: csrf})
    assert r.status_code == 409
    err = r.get_json()
    assert err["code"] == code
    assert err["message"] and err["message"][0].isupper()
    assert state(client) == before


def test_accepted_action_answers_the_new_snapshot(client, table):
    csrf = pair(client, table)
    r = client.post("/api/actions", json={"type": "roll", "dice": [1, 2, 3], "source": "manual"},
                    headers={CSRF: csrf})
    assert r.status_code == 200
    snap = r.get_json()
    assert snap["seq"] == 1 and snap["rolls"][0]["total"] == 6
    r = client.post("/api/actions", json={"type": "undo"}, headers={CSRF: csrf})
    assert r.get_json()["rolls"] == [] and r.get_json()["can_redo"] is True
    assert client.get("/api/state").get_json()["seq"] == 2


def test_new_game_validation(client, table):
    csrf = pair(client, table)
    h = {CSRF: csrf}
    assert client.post("/api/games", json={"setup": {}}, headers=h).get_json()["code"] == "bad_setup"
    assert client.post("/api/games", json={"game": "freeroll", "setup": []}, headers=h).status_code == 400
    assert client.post("/api/games", json={"game": "freeroll", "seed": "x"}, headers=h).status_code == 400
    r = client.post("/api/games", json={"game": "chess"}, headers=h)
    assert r.status_code == 409 and r.get_json()["code"] == "unknown_game"
    table.submit({"type": "roll", "dice": [1]})
    r = client.post("/api/games", json={"game": "freeroll", "setup": {"title": "Warm-up"}}, headers=h)
    assert r.status_code == 200
    assert r.get_json()["title"] == "Warm-up" and r.get_json()["seq"] == 0


@pytest.mark.parametrize("lang,said", [
    ("en", "Monster: Gigazaur is chosen more than once. Each player needs a different one."),
    ("zh-TW", "怪獸：吉哥拉 被選了不只一次。每位玩家都要選不同的。"),
    ("ko", "괴수: 기가자우르 — 두 명 이상이 골랐습니다. 플레이어마다 서로 달라야 합니다."),
])
def test_a_monster_chosen_twice_is_refused_saying_which_in_the_phone_s_language(client, table, lang, said):
    """Issue 34 #2: King of Tokyo refused two Gigazaurs with an English-only reason (zh-TW and ko got "that
    setup is not possible"). The game's setup form says each monster is played once (`unique`): the box
    names the choice and the monster in the phone's language, and nothing starts."""
    csrf = pair(client, table)
    setup = {"players": [{"name": "Ana", "monster": "gigazaur"}, {"name": "Bo", "monster": "the_king"},
                         {"name": "Cy", "monster": "gigazaur"}]}
    r = client.post("/api/games", json={"game": "kingoftokyo", "setup": setup},
                    headers={CSRF: csrf, "Accept-Language": lang})
    assert r.status_code == 400 and r.get_json() == {"code": "setup_not_unique", "message": said}
    assert client.get("/api/state").get_json()["game"] == "freeroll"
    setup["players"][2]["monster"] = "alienoid"
    assert client.post("/api/games", json={"game": "kingoftokyo", "setup": setup}, headers={CSRF: csrf}).status_code == 200
    heroes = {"mode": "1v1", "players": [{"hero": "monk"}, {"hero": "monk"}]}  # a mirror match is allowed
    assert client.post("/api/games", json={"game": "dicethrone", "setup": heroes}, headers={CSRF: csrf}).status_code == 200


def test_a_new_game_s_refusal_is_worded_by_that_game_not_the_one_on_the_table(client, table):
    """The engine's setup refusal in zh-TW: the texts of the game being set up (before, those of the game on the
    table: King of Tokyo's "2-6 different monsters" for a Dice Throne setup)."""
    csrf = pair(client, table)
    table.new_game("kingoftokyo", {"players": ["gigazaur", "the_king"]}, 1)
    three = {"mode": "1v1", "players": [{"hero": "monk"}, {"hero": "ninja"}, {"hero": "paladin"}]}
    r = client.post("/api/games", json={"game": "dicethrone", "setup": three},
                    headers={CSRF: csrf, "Accept-Language": "zh-TW"})
    assert r.status_code == 409 and r.get_json()["code"] == "bad_setup"
    assert r.get_json()["message"] == get_rules("dicethrone").describe()["texts"]["refusal.bad_setup"]["zh-TW"]


def test_roll_for_who_starts_reads_the_tray_and_records_nothing(client, table):
    """What the page's "roll for it on the tray" relies on: the live tray in the snapshot (state, one reading
    with value and certain), throws that change no game, and the winner passed as `start` to the setup call."""
    csrf = pair(client, table)
    before = client.get("/api/state").get_json()
    for value, certain in ((4, True), (6, False)):  # a throw per player; the second one unsure
        set_tray(table, "moving")
        set_tray(table, "settled", [reading(value, certain)])
        snap = client.get("/api/state").get_json()
        assert snap["tray"]["state"] == "settled"
        assert [(d["value"], d["certain"]) for d in snap["tray"]["dice"]] == [(value, certain)]
        assert (snap["game"], snap["seq"], snap["log"]) == (before["game"], before["seq"], before["log"])
    setup = {"mode": "1v1", "start": "p2", "players": [{"id": "p1", "name": "Ana", "hero": "barbarian"},
                                                       {"id": "p2", "name": "Bo", "hero": "monk"}]}
    r = client.post("/api/games", json={"game": "dicethrone", "setup": setup}, headers={CSRF: csrf})
    assert r.status_code == 200
    snap = r.get_json()
    assert snap["start_player"] == "p2" and snap["active"] == "p2"
    assert [e for e in snap["log"] if e["action"]["type"] == "roll"] == []


def test_too_large_body_is_413_json(client, table):
    csrf = pair(client, table)
    r = client.post("/api/actions", data=b"{" + b" " * 70000 + b"}", content_type="application/json",
                    headers={CSRF: csrf})
    assert r.status_code == 413
    assert r.get_json()["code"] == "too_large"


def test_virtual_panel_buttons_work_when_paired(client, table):
    csrf = pair(client, table)
    table.submit({"type": "roll", "dice": [5]})
    r = client.post("/api/panel/undo", json={"hold_s": 1.0}, headers={CSRF: csrf})
    assert r.status_code == 200
    assert r.get_json()["rolls"] == []
    assert client.post("/api/panel/jump", headers={CSRF: csrf}).status_code == 404


def test_the_demo_tray_throws_from_the_virtual_panel_only_when_the_game_waits_for_dice(tmp_path):
    """Issue 34 #1: the panel's "Throw the dice" (a paired phone's) throws the demo tray's dice; while the
    game waits for a choice it is refused, in the phone's language; a box with another camera has none."""
    table = demo_table(tmp_path, 5)
    try:
        client = create_app(table, secret_key="k", testing=True).test_client()
        assert client.get("/api/state").get_json()["camera"]["throw"] == "ask"
        assert client.post("/api/panel/throw", headers={CSRF: "x"}).status_code == 401
        csrf = pair(client, table)
        table.new_game("dicethrone", {"mode": "1v1", "players": [{"hero": "barbarian"}, {"hero": "monk"}],
                                      "start": "p1"}, 3)  # Main Phase (1): a choice, not dice
        r = client.post("/api/panel/throw", json={}, headers={CSRF: csrf, "Accept-Language": "zh-TW"})
        assert r.status_code == 409 and r.get_json()["code"] == "no_dice_wanted"
        assert r.get_json()["message"] == "遊戲現在不需要擲骰：請看看它正在等什麼。"
        table.submit({"type": "advance"})
        r = client.post("/api/panel/throw", json={}, headers={CSRF: csrf})
        assert r.status_code == 200 and r.get_json()["phase"] == "offensive"
        r = client.post("/api/panel/throw", json={}, headers={CSRF: csrf, "Accept-Language": "ko"})
        assert r.status_code == 409 and r.get_json()["message"] == "주사위를 아직 던지는 중입니다."
    finally:
        table.close()


def test_a_box_with_a_camera_has_no_throw_button(client, table):
    csrf = pair(client, table)
    assert "throw" not in client.get("/api/state").get_json()["camera"]
    r = client.post("/api/panel/throw", json={}, headers={CSRF: csrf})
    assert r.status_code == 409 and r.get_json()["code"] == "no_demo_throw"


# -- server-sent events ---------------------------------------------------------------------------
def read_events(resp, n: int) -> list[tuple[str | None, dict | None, str]]:
    """The first n events (id, data, raw) of a streaming response."""
    out = []
    buf = ""
    for chunk in resp.response:
        buf += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buf:
            block, buf = buf.split("\n\n", 1)
            fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
            data = json.loads(fields["data"]) if "data" in fields else None
            out.append((fields.get("id"), data, block))
            if len(out) == n:
                return out
    return out


def test_events_start_with_a_snapshot_then_follow_changes(app, table):
    table.submit({"type": "roll", "dice": [1]})
    client = app.test_client()
    resp = client.get("/api/events", buffered=False, headers={"Last-Event-ID": "0"})
    assert resp.mimetype == "text/event-stream"
    first = read_events(resp, 1)
    assert first[0][0] == "1" and first[0][1]["seq"] == 1
    assert "retry: " in first[0][2]
    table.submit({"type": "roll", "dice": [2, 2]})
    set_tray(table, "moving")
    nxt = read_events(resp, 2)
    assert [e[1]["seq"] for e in nxt] == [2, 2]
    assert [d["value"] for d in nxt[0][1]["rolls"][0]["dice"]] == [2, 2]
    assert nxt[1][1]["tray"]["state"] == "moving"
    resp.close()
    assert table.broadcaster.count == 0  # the stream's subscription is gone with it


def test_events_send_heartbeats(table):
    app = create_app(table, secret_key="k", testing=True)
    app.config["DICESIGHT_HEARTBEAT_S"] = 0.05
    resp = app.test_client().get("/api/events", buffered=False)
    chunks = iter(resp.response)
    next(chunks)  # the snapshot
    beat = next(chunks)
    assert (beat.decode() if isinstance(beat, bytes) else beat).startswith(": heartbeat")
    resp.close()


def test_tray_observe_needs_pairing_and_a_sane_duration(client, table, clock):
    """Rolling for who starts: the page asks the box to show throws without recording them."""
    assert client.post("/api/tray/observe", json={"seconds": 60}, headers={CSRF: "x"}).status_code == 401
    csrf = pair(client, table)
    for bad in ({"seconds": -1}, {"seconds": 301}, {"seconds": "60"}, {"seconds": True}, {}):
        r = client.post("/api/tray/observe", json=bad, headers={CSRF: csrf})
        assert r.status_code == 400 and r.get_json()["code"] == "bad_observe"
    r = client.post("/api/tray/observe", json={"seconds": 120}, headers={CSRF: csrf})
    assert r.status_code == 200 and r.get_json()["tray"]["observing"] is True
    clock.t += 121  # the window lapses by itself
    assert client.get("/api/state").get_json()["tray"]["observing"] is False
