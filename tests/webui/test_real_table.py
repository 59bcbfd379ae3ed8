"""The same contract against the box's real table service (device.table.Table, no camera, no panel)."""

from __future__ import annotations

import pytest

from webui import create_app

CSRF = "X-Dicesight-CSRF"


@pytest.fixture()
def table(tmp_path):
    from device.pairing import Pairing
    from device.store import Store
    from device.table import Table

    table = Table(Store(tmp_path / "state"), camera=None, pairing=Pairing(tmp_path / "tokens.json"))
    yield table
    table.close()


@pytest.fixture()
def client(table):
    return create_app(table, secret_key="k", testing=True).test_client()


def pair(client) -> str:
    rid = client.post("/api/pair", headers={CSRF: "x"}).get_json()["request"]
    assert client.get(f"/api/pair/{rid}").get_json()["status"] == "waiting"
    client.post("/api/panel/pair", headers={CSRF: "x"})  # no real panel: the page's button is the panel
    body = client.get(f"/api/pair/{rid}").get_json()
    assert body["status"] == "granted"
    return body["csrf"]


def test_pair_play_refuse_and_undo_on_the_real_table(client, table):
    r = client.post("/api/actions", json={"type": "roll", "dice": [1]}, headers={CSRF: "x"})
    assert r.status_code == 401
    csrf = pair(client)
    h = {CSRF: csrf}
    setup = {"mode": "1v1", "players": [{"id": "p1", "name": "Ana", "hero": "barbarian"},
                                        {"id": "p2", "name": "Bo", "hero": "gunslinger"}], "start": "p1"}
    snap = client.post("/api/games", json={"game": "dicethrone", "setup": setup, "seed": 5}, headers=h).get_json()
    assert snap["game"] == "dicethrone" and snap["phase"] == "main1" and snap["active"] == "p1"
    before = client.get("/api/state").get_json()
    r = client.post("/api/actions", json={"type": "roll", "dice": [1, 2, 3, 4, 5]}, headers=h)
    assert r.status_code == 409 and r.get_json()["code"] == "wrong_time" and r.get_json()["message"]
    r = client.post("/api/actions", data="{oops", content_type="application/json", headers=h)
    assert r.status_code == 400 and r.get_json()["code"] == "bad_json"
    after = client.get("/api/state").get_json()
    assert {k: v for k, v in after.items() if k != "pairing"} == {k: v for k, v in before.items() if k != "pairing"}
    snap = client.post("/api/actions", json={"type": "advance"}, headers=h).get_json()
    assert snap["phase"] == "offensive"
    snap = client.post("/api/actions", json={"type": "roll", "dice": [1, 2, 3, 6, 6]}, headers=h).get_json()
    assert [d["face"] for d in snap["dice"]] == ["sword", "sword", "sword", "pow", "pow"]
    assert {a["id"] for a in snap["abilities"]} >= {"smack", "overpower"}
    snap = client.post("/api/actions", json={"type": "undo"}, headers=h).get_json()
    assert snap["attempts"]["used"] == 0
    games = client.get("/api/games").get_json()
    described = next(g for g in games["games"] if g["name"] == "dicethrone")
    assert {"1v1", "2v2", "koth"} <= {m["id"] for m in described["modes"]}
    assert any(hero["id"] == "gunslinger" and hero["name"]["ko"] == "총잡이" for hero in described["catalogue"]["heroes"])
    health = client.get("/healthz").get_json()
    assert health["camera"]["status"] == "off"
