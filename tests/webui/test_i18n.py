"""Languages: chosen from the browser, switched by cookie, every string translated, catalogues compiled."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

sys.path.insert(0, str(Path(__file__).parent))

from realbox import make_table  # noqa: E402

from engine.games import get_rules  # noqa: E402
from webui import create_app  # noqa: E402
from webui.i18n import JS_STRINGS, TRANSLATIONS, engine_message, pick_code  # noqa: E402


@pytest.fixture()
def table(tmp_path):
    table = make_table(tmp_path)
    yield table
    table.close()


@pytest.fixture()
def client(table):
    return create_app(table, secret_key="k", testing=True).test_client()


def boot(html: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="boot">(.*?)</script>', html, re.S).group(1))


@pytest.mark.parametrize("header,code", [
    ("zh-TW,zh;q=0.9,en;q=0.8", "zh-TW"), ("zh-HK", "zh-TW"), ("zh", "zh-TW"), ("ko-KR,ko;q=0.9", "ko"),
    ("fr-FR,ko;q=0.5", "ko"), ("de", "en"), ("", "en"), ("en-GB,zh-TW;q=0.2", "en"),
])
def test_language_from_accept_language(header, code):
    from werkzeug.datastructures import LanguageAccept
    from werkzeug.http import parse_accept_header

    assert pick_code(list(parse_accept_header(header, LanguageAccept)), None) == code


@pytest.mark.parametrize("header,lang,pair_text,tray", [
    ("zh-TW", "zh-TW", "配對這支手機", "托盤上"),
    ("ko-KR", "ko", "이 휴대폰 페어링", "트레이 위"),
    ("en-US", "en", "Pair this phone", "On the tray"),
])
def test_page_speaks_the_browser_language(client, header, lang, pair_text, tray):
    html = client.get("/", headers={"Accept-Language": header}).get_data(as_text=True)
    assert f'<html lang="{lang}">' in html
    assert pair_text in html and tray in html
    data = boot(html)
    assert data["lang"] == lang
    assert data["strings"]["pair"] == pair_text


def test_switch_sets_a_cookie_that_wins_over_the_browser(client):
    r = client.get("/?lang=ko", headers={"Accept-Language": "zh-TW"})
    assert r.status_code == 302 and "dicesight_lang=ko" in r.headers["Set-Cookie"]
    html = client.get("/", headers={"Accept-Language": "zh-TW"}).get_data(as_text=True)
    assert boot(html)["lang"] == "ko"


def test_api_errors_are_translated(client):
    r = client.post("/api/actions", json={"type": "roll"}, headers={"Accept-Language": "zh-TW",
                                                                     "X-Dicesight-CSRF": "x"})
    assert r.status_code == 401
    assert r.get_json()["code"] == "not_paired"
    assert "配對" in r.get_json()["message"]


@pytest.mark.parametrize("locale", ["zh_Hant_TW", "ko"])
def test_every_string_is_translated_and_compiled(locale):
    folder = TRANSLATIONS / locale / "LC_MESSAGES"
    with (folder / "messages.po").open("rb") as fh:
        po = read_po(fh)
    with (folder / "messages.mo").open("rb") as fh:
        mo = read_mo(fh)
    ids = {m.id for m in po if m.id}
    assert all(po[i].string for i in ids), "untranslated strings"
    assert all(po[i].string == mo[i].string for i in ids), "messages.mo is stale: python -m webui.i18n compile"
    assert {str(v._args[0]) if hasattr(v, "_args") else str(v) for v in JS_STRINGS.values()} <= ids | {""}
    for m in po:  # placeholders survive translation
        if m.id:
            assert sorted(re.findall(r"%\(\w+\)s", m.id)) == sorted(re.findall(r"%\(\w+\)s", m.string))


def test_engine_refusals_are_translated_by_code(table):
    app = create_app(table, secret_key="k", testing=True)
    client = app.test_client()
    rid = client.post("/api/pair", headers={"X-Dicesight-CSRF": "x"}).get_json()["request"]
    table.press("pair")
    csrf = client.get(f"/api/pair/{rid}").get_json()["csrf"]
    h = {"X-Dicesight-CSRF": csrf}
    r = client.post("/api/actions", json={"type": "undo"}, headers={**h, "Accept-Language": "ko"})
    assert r.status_code == 409
    body = r.get_json()
    assert body["code"] == "nothing_to_undo"
    assert body["message"] == "되돌릴 것이 없습니다."
    assert body["engine_message"] == "There is nothing to undo."
    r = client.post("/api/actions", json={"type": "undo"}, headers=h)
    assert r.get_json() == {"code": "nothing_to_undo", "message": "There is nothing to undo."}


def test_refusals_use_the_game_s_own_text_for_its_codes(client):
    """A refusal code the game words itself (its description's `refusal.<code>`) reaches a zh-TW phone in
    the game's words; codes every game shares fall back to the page's catalogue."""
    texts = get_rules("dicethrone").describe()["texts"]
    app = client.application
    with app.test_request_context("/", headers={"Accept-Language": "zh-TW"}):
        assert engine_message("no_attempts", "All used.", texts) == texts["refusal.no_attempts"]["zh-TW"]
        assert engine_message("nothing_to_undo", "There is nothing to undo.", texts) == "沒有可以復原的動作。"
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        assert engine_message("no_attempts", "All used.", texts) == "All used."
