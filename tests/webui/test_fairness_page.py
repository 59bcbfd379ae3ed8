"""Are these dice fair? on the page and in the API (issue 36): the loaded red die is named in the phone's
language, the fair blue one is not; the chart is the box's own SVG, allowed by the page's CSP as it is; a game
that hides rolls leaks none of its dice through the counts."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from realbox import camera_rolls, make_table  # noqa: E402

from webui import create_app  # noqa: E402


@pytest.fixture()
def table(tmp_path):
    table = make_table(tmp_path)
    yield table
    table.close()


@pytest.fixture()
def client(table):
    return create_app(table, secret_key="k", testing=True).test_client()


def dice_of(html: str) -> dict[str, str]:
    """{colour: the die's article} of the fairness page."""
    return {m.group(1): m.group(0) for m in re.finditer(r'<article class="fairdie[^"]*" data-colour="(\w*)".*?</article>',
                                                         html, re.S)}


def test_the_api_answers_the_report_with_codes_numbers_and_english(client, table) -> None:
    camera_rolls(table, 300, seed=36)
    body = client.get("/api/fairness").get_json()
    (d6,) = body["sets"]
    blue, red = d6["dice"]
    assert red["verdict"]["code"] == "biased" and red["verdict"]["face"] == 0 and red["verdict"]["direction"] == "often"
    assert blue["verdict"]["code"] == "no_evidence" and sum(blue["counts"]) == 300
    assert red["message"].startswith("the red die shows 1 far too often")
    assert body["alpha"] == 0.05 and body["bias"] == 0.5 and body["left_out_game"] is None
    assert client.get("/api/fairness?set=d6&bias=0.25").get_json()["sets"][0]["needed"] > d6["needed"]


@pytest.mark.parametrize(("query", "status", "code"), [("set=d7", 404, "no_dice_set"), ("bias=2", 400, "bad_bias"),
                                                       ("bias=lots", 400, "bad_bias")])
def test_a_bad_query_is_a_clear_refusal(client, query, status, code) -> None:
    r = client.get(f"/api/fairness?{query}", headers={"Accept-Language": "ko"})
    assert r.status_code == status and r.get_json()["code"] == code
    assert re.search("[가-힣]", r.get_json()["message"])  # in the phone's language


@pytest.mark.parametrize(("lang", "bad", "good"), [
    ("en", "Shows 1 far too often: p &lt; 0.001", "No evidence of bias after 300 rolls."),
    ("zh-TW", "1 出現得太頻繁：p &lt; 0.001", "擲了 300 次，沒有偏差的證據。"),
    ("ko", "1 면이 너무 자주 나옵니다: p &lt; 0.001", "300번 굴린 결과, 치우침의 증거가 없습니다."),
])
def test_the_page_names_the_loaded_die_in_the_phones_language(client, table, lang, bad, good) -> None:
    camera_rolls(table, 300, seed=36)
    html = client.get("/fairness", headers={"Accept-Language": lang}).get_data(as_text=True)
    dice = dice_of(html)
    assert bad in dice["red"] and 'data-verdict="biased"' in dice["red"]
    assert good in dice["blue"] and 'data-verdict="no_evidence"' in dice["blue"]
    assert dice["red"].count('class="bar hot"') == 1 and "bar hot" not in dice["blue"]  # the 1, drawn apart
    assert html.count("<svg") == 2


def test_the_chart_needs_nothing_the_pages_policy_forbids(client, table) -> None:
    camera_rolls(table, 40, seed=1)
    r = client.get("/fairness")
    html = r.get_data(as_text=True)
    assert "script-src 'self'" in r.headers["Content-Security-Policy"] and "style-src 'self'" in r.headers[
        "Content-Security-Policy"]
    scripts = re.findall(r"<script[^>]*>", html)
    assert scripts == ['<script type="module" src="/static/fairness.js">']  # the test's button; nothing inline
    assert "style=" not in html and "<style" not in html
    assert "http://" not in html and "https://" not in html  # no CDN, nothing fetched from elsewhere
    assert 'href="/fairness"' in client.get("/").get_data(as_text=True)  # the game's page leads here


def test_a_game_that_hides_rolls_shows_none_of_its_dice_while_it_is_on(client, table) -> None:
    table.new_game("regidice", {"players": [{"id": "p1", "name": "Ann"}, {"id": "p2", "name": "Ben"}], "first": 0},
                   seed=0)
    pool = [("red", 5), ("red", 2), ("red", 5), ("blue", 4), ("blue", 3), ("blue", 5), ("yellow", 1), ("yellow", 5),
            ("yellow", 6)]
    dice = [{"value": v, "face": str(v), "colour": c} for c, v in pool]
    table.submit({"type": "roll", "player": "p1", "source": "camera", "dice": dice,
                  "evidence": {"readings": dice, "set": "regidice"}})
    body = client.get("/api/fairness").get_json()
    assert body["sets"] == [] and body["left_out_game"] == table.game_id
    html = client.get("/fairness", headers={"Accept-Language": "zh-TW"}).get_data(as_text=True)
    assert "隱藏擲骰結果" in html and "<svg" not in html


def test_few_rolls_say_how_many_are_wanted(client, table) -> None:
    camera_rolls(table, 12, seed=2)
    html = client.get("/fairness", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Too few rolls to judge yet: 12 of the 30 needed." in dice_of(html)["red"]


def test_test_my_dice_counts_only_its_own_game_and_follows_it(client, table) -> None:
    camera_rolls(table, 200, seed=7)  # the dice of earlier games do not count in the test
    html = client.get("/fairness").get_data(as_text=True)
    plan = re.search(r'name="throws"[^>]*value="(\d+)"', html)
    assert plan and int(plan.group(1)) == table.fairness()["plan"]["throws"] == 277  # one d6, a face 50% off
    table.new_game("freeroll", {"title": "Dice test"})  # what the page's button asks the box (POST /api/games)
    test = table.game_id
    camera_rolls(table, 25, seed=8, fair="")  # one red die
    body = client.get(f"/api/fairness?game={test}").get_json()
    assert body["throws"] == 25 and body["game"] == test and body["sets"][0]["dice"][0]["rolls"] == 25
    page = client.get(f"/fairness?game={test}&throws=40", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Testing the dice: 25 of 40 throws." in page and '<meta http-equiv="refresh" content="5">' in page
    assert 'id="testform"' not in page  # no new test from inside one
    camera_rolls(table, 15, seed=9, fair="")
    page = client.get(f"/fairness?game={test}&throws=40", headers={"Accept-Language": "ko"}).get_data(as_text=True)
    assert "완료: 40번 던졌습니다." in page and "http-equiv" not in page  # done: the page stops following


@pytest.mark.parametrize("query", ["game=0", "game=x", "game=1&throws=3", "game=1&throws=1e9"])
def test_a_bad_test_is_refused(client, query) -> None:
    r = client.get(f"/api/fairness?{query}") if "throws" not in query else client.get(f"/fairness?{query}")
    assert r.status_code == 400 and r.get_json()["code"] == "bad_test"
