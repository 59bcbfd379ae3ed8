"""The web app against hostile and clumsy requests (issue 11, points 2, 3, 7, 9), on the real table service.

Every refusal is a 4xx (or 507 for a full disk) with a `code` and a translated `message`, and leaves the
game exactly as it was.
"""

from __future__ import annotations

import socket

import pytest

from device.pairing import Pairing
from device.store import Store
from device.table import Table
from webui import create_app

CSRF = "X-Dicesight-CSRF"
SETUP = {"mode": "1v1", "players": [{"id": "p1", "name": "Ana", "hero": "barbarian"},
                                    {"id": "p2", "name": "Bo", "hero": "gunslinger"}], "start": "p1"}


class Clock:
    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def clock() -> Clock:
    return Clock()


@pytest.fixture()
def table(tmp_path, clock):
    table = Table(Store(tmp_path / "state"), camera=None, pairing=Pairing(tmp_path / "tokens.json", clock=clock))
    yield table
    table.close()


@pytest.fixture()
def app(table):
    return create_app(table, secret_key="k", testing=True, host_names=["dicesight.lan"])


def phone(app, address: str):
    """A test client that comes from `address` (each phone on the Wi-Fi has its own)."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def pair(app, address: str = "10.0.0.5") -> tuple[object, dict[str, str]]:
    client = phone(app, address)
    rid = client.post("/api/pair", headers={CSRF: "x"}).get_json()["request"]
    phone(app, "127.0.0.1").post("/api/panel/pair", headers={CSRF: "x"})  # the box's own Pair button
    body = client.get(f"/api/pair/{rid}").get_json()
    assert body["status"] == "granted", body
    return client, {CSRF: body["csrf"]}


def game_part(snap: dict) -> dict:
    return {k: v for k, v in snap.items() if k not in ("pairing", "tray", "camera", "panel")}


# -- point 2: pairing ------------------------------------------------------------------------------------
def test_two_phones_asking_at_once_are_both_told_and_neither_paired(app, table) -> None:
    player, attacker = phone(app, "10.0.0.5"), phone(app, "10.0.0.66")
    rid_player = player.post("/api/pair", headers={CSRF: "x"}).get_json()["request"]
    rid_attacker = attacker.post("/api/pair", headers={CSRF: "x"}).get_json()["request"]
    phone(app, "127.0.0.1").post("/api/panel/pair", headers={CSRF: "x"})
    for client, rid in ((player, rid_player), (attacker, rid_attacker)):
        body = client.get(f"/api/pair/{rid}", headers={"Accept-Language": "ko"}).get_json()
        assert body["status"] == "conflict" and body["paired"] is False
        assert "연결" in body["message"]  # told in the phone's language
    assert table.pairing.phones() == []
    assert table.snapshot()["pairing"]["conflict"] is True


def test_pair_requests_are_rate_limited_per_address_and_the_window_closes(app, table, clock) -> None:
    flood = phone(app, "10.0.0.66")
    statuses = [flood.post("/api/pair", headers={CSRF: "x"}).status_code for _ in range(300)]
    assert statuses.count(202) == 3 and statuses.count(429) == 297
    refused = flood.post("/api/pair", headers={CSRF: "x"})
    assert refused.get_json()["code"] == "too_many_pair_requests" and int(refused.headers["Retry-After"]) >= 1
    assert phone(app, "10.0.0.5").post("/api/pair", headers={CSRF: "x"}).status_code == 202  # others still ask
    clock.now += 31
    assert table.snapshot()["pairing"]["open"] is False


def test_a_paired_phone_lists_paired_phones_and_revokes_one(app, table) -> None:
    first, h1 = pair(app, "10.0.0.5")
    second, h2 = pair(app, "10.0.0.6")
    assert phone(app, "10.0.0.7").get("/api/pair/phones").status_code == 401  # watchers see no list
    phones = first.get("/api/pair/phones").get_json()["phones"]
    assert len(phones) == 2 and [p["this"] for p in phones] == [True, False]
    assert first.delete(f"/api/pair/phones/{phones[1]['id']}").status_code == 403  # no CSRF header
    r = first.delete(f"/api/pair/phones/{phones[1]['id']}", headers=h1)
    assert r.status_code == 200 and r.get_json()["paired"] is True
    assert second.post("/api/actions", json={"type": "roll", "dice": [3]}, headers=h2).status_code == 401
    assert first.post("/api/actions", json={"type": "roll", "dice": [3]}, headers=h1).status_code == 200
    r = first.delete("/api/pair/phones/nosuchphone", headers=h1)
    assert r.status_code == 404 and r.get_json()["code"] == "no_phone"


# -- point 3: Host and Origin ---------------------------------------------------------------------------
def test_requests_for_a_foreign_host_name_are_refused(app) -> None:
    client = phone(app, "10.0.0.5")
    r = client.get("/api/state", headers={"Host": "attacker.example:8080"})
    assert r.status_code == 403 and r.get_json()["code"] == "bad_host" and r.get_json()["message"]
    for host in ("192.168.1.20:8080", "[fe80::1]:8080", "localhost:8080", "dicesight.lan",
                 f"{socket.gethostname()}:8080", f"{socket.gethostname().split('.')[0]}.local:8080"):
        assert client.get("/api/state", headers={"Host": host}).status_code == 200, host


def test_writes_from_a_foreign_origin_are_refused_and_change_nothing(app, table) -> None:
    client, h = pair(app)
    before = game_part(client.get("/api/state").get_json())
    for headers in ({"Origin": "http://attacker.example"}, {"Origin": "null"},
                    {"Origin": "http://localhost:9999"}, {"Sec-Fetch-Site": "cross-site"}):
        r = client.post("/api/actions", json={"type": "roll", "dice": [4]}, headers={**h, **headers})
        assert r.status_code == 403 and r.get_json()["code"] == "bad_origin", headers
    assert game_part(client.get("/api/state").get_json()) == before
    ok = client.post("/api/actions", json={"type": "roll", "dice": [4]},
                     headers={**h, "Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"})
    assert ok.status_code == 200


# -- point 7: malformed input ---------------------------------------------------------------------------
MALFORMED = [
    ("/api/actions", "[" * 30_000 + "]" * 30_000, "too_deep"),
    ("/api/actions", '{"type": "roll", "dice": ' + "[" * 5000 + "]" * 5000 + "}", "too_deep"),
    ("/api/actions", '{"type": "roll", "dice": [NaN]}', "bad_number"),
    ("/api/actions", '{"type": "roll", "dice": [Infinity]}', "bad_number"),
    ("/api/actions", '{"type": "roll", "dice": [1e300]}', "bad_number"),
    ("/api/actions", '{"type": "roll", "dice": [1e400]}', "bad_number"),
    ("/api/actions", '{"type": "roll", "dice": [123456789012345678901234567890]}', "bad_number"),
    ("/api/actions", '{"type": "roll", "dice": [' + "9" * 5000 + "]}", "bad_json"),
    ("/api/actions", '{"type": "\\ud800"}', "bad_text"),
    ("/api/actions", b'{"type": "\xff"}', "bad_json"),
    ("/api/games", '{"game": "dicethrone", "setup": {"mode": "1v1"}, "seed": 9223372036854775808}', "bad_number"),
    ("/api/games", '{"game": "dicethrone", "setup": {"mode": "1v1"}, "seed": -1}', "bad_setup"),
    ("/api/games", '{"game": "dicethrone", "setup": {"mode": "1v1"}, "seed": "7"}', "bad_setup"),
    ("/api/games", '{"game": "dicethrone", "setup": {"mode": ["1v1"]}}', "setup_bad_choice"),
    ("/api/games", '{"game": "dicethrone", "setup": {"mode": "9v9"}}', "setup_bad_choice"),
    ("/api/games", '{"game": "dicethrone", "setup": {"players": [{"id": "a", "hero": 3}]}}', "setup_bad_choice"),
    ("/api/games", '{"game": "dicethrone", "setup": {"players": [{"id": "a", "name": "\\udc00", "hero": "monk"}]}}',
     "bad_text"),
    ("/api/games", '{"game": "kingoftokyo", "setup": {"players": ["gigazaur", {"monster": "gigazaur"}]}}',
     "setup_not_unique"),
]


@pytest.mark.parametrize(("path", "body", "code"), MALFORMED)
def test_malformed_bodies_are_4xx_with_a_message_and_change_nothing(app, path, body, code) -> None:
    client, h = pair(app)
    before = game_part(client.get("/api/state").get_json())
    r = client.post(path, data=body, content_type="application/json", headers=h)
    assert r.status_code == 400, r.get_data(as_text=True)[:300]
    assert r.get_json()["code"] == code and r.get_json()["message"]
    assert game_part(client.get("/api/state").get_json()) == before


def test_setup_numbers_given_as_strings_or_out_of_range_are_refused_by_the_form(app, table, monkeypatch) -> None:
    """A game's setup form may declare int fields with bounds; the door holds any setup against it."""
    rules = table.match.rules.__class__  # freeroll: give its form an int field for this test
    from engine.games import GAMES

    form = [{"key": "dice", "kind": "int", "name": {"en": "Dice"}, "min": 1, "max": 40}]
    original = GAMES["freeroll"].describe

    def describe():
        return {**original(), "setup": form}

    monkeypatch.setattr(GAMES["freeroll"], "describe", describe)
    client, h = pair(app)
    for value, code in (("5", "setup_not_int"), (True, "setup_not_int"), (0, "setup_out_of_range"),
                        (41, "setup_out_of_range"), (2.5, "setup_not_int")):
        r = client.post("/api/games", json={"game": "freeroll", "setup": {"dice": value}}, headers=h)
        assert r.status_code == 400 and r.get_json()["code"] == code, (value, r.get_json())
        assert "setup.dice" in r.get_json()["message"]
    assert rules is not None


def test_every_kind_of_setup_field_refuses_a_value_not_of_its_kind() -> None:
    """`check_setup`, field kind by kind: what each refuses and the code it answers with; a key the form does
    not declare, or a kind it does not know, is left to the engine."""
    from webui.payload import BadPayload, check_setup

    form = [{"key": "n", "kind": "int", "min": 1, "max": 4}, {"key": "fast", "kind": "bool"},
            {"key": "name", "kind": "text"}, {"key": "mode", "kind": "choice", "options": [{"id": "1v1"}]},
            {"key": "heroes", "kind": "seat_choice", "unique": True, "options": [{"id": "a"}, {"id": "b"}]},
            {"key": "odd", "kind": "unknown"}]
    check_setup({"n": 2, "fast": False, "name": "Ana", "mode": "1v1", "heroes": ["a", "b"], "odd": [1],
                 "later": {"hp": 3}}, form)
    for setup, code in (({"n": "2"}, "setup_not_int"), ({"n": 5}, "setup_out_of_range"),
                        ({"fast": 1}, "setup_not_bool"), ({"name": 7}, "setup_not_text"),
                        ({"name": "x" * 10_000}, "too_long"), ({"mode": "2v2"}, "setup_bad_choice"),
                        ({"heroes": ["a", "c"]}, "setup_bad_choice"),
                        ({"heroes": ["a", "a"]}, "setup_not_unique"),
                        ({"heroes": "a"}, "setup_bad_choice")):
        with pytest.raises(BadPayload) as refused:
            check_setup(setup, form)
        assert refused.value.code == code, setup
    with pytest.raises(BadPayload):
        check_setup(["n"], form)


def test_over_long_image_names_are_404_not_500(app) -> None:
    client = phone(app, "10.0.0.5")
    for name in ("g1-s" + "9" * 5000 + "-abcdef12.jpg", "x" * 300, "g1-s1-abcdef12.jpg"):
        r = client.get(f"/api/images/{name}")
        assert r.status_code == 404 and r.get_json()["code"] == "no_image"


# -- point 9: a full disk ---------------------------------------------------------------------------------
def test_a_full_disk_is_said_as_storage_full_and_nothing_is_half_kept(app, table) -> None:
    client, h = pair(app)
    assert client.post("/api/actions", json={"type": "roll", "dice": [2]}, headers=h).status_code == 200
    seq = table.match.seq
    store = table.store
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count={pages}").fetchone()  # SQLite's own "disk is full"
    refused = None
    for i in range(200):  # fill the last free pages, then the next action cannot be kept
        r = client.post("/api/actions", json={"type": "roll", "dice": [1 + i % 6] * 30}, headers=h)
        if r.status_code != 200:
            refused = r
            break
    assert refused is not None and refused.status_code == 507
    assert refused.get_json()["code"] == "storage_full"
    kept = table.match.seq
    assert kept >= seq and store.load_game(table.game_id).entries[-1].seq == kept, "the game is what the store holds"
    zh = client.post("/api/actions", json={"type": "roll", "dice": [1] * 30},
                     headers={**h, "Accept-Language": "zh-TW"})
    assert zh.status_code == 507 and "儲存空間已滿" in zh.get_json()["message"]
    health = client.get("/healthz")
    assert health.status_code == 503 and health.get_json()["ok"] is False
    assert health.get_json()["code"] == "storage_full"
    store._conn.execute("PRAGMA max_page_count=1000000").fetchone()  # space freed: the box goes on
    assert client.post("/api/actions", json={"type": "roll", "dice": [6]}, headers=h).status_code == 200
    assert client.get("/healthz").status_code == 200


def test_paired_phones_are_listed_by_a_name_players_recognise() -> None:
    from webui.pair import phone_label

    iphone = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
              "Version/17.4 Mobile/15E148 Safari/604.1")
    android = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
               "Chrome/124.0 Mobile Safari/537.36")
    assert phone_label(iphone) == "iPhone · Safari"
    assert phone_label(android) == "Android · Chrome"
    assert phone_label("curl/8.5") == "curl/8.5"
