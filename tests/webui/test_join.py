"""The page's "Show join code" (issue 36): which address the code says, and that the hotspot's password
reaches a phone only where the config says so. The browser test (tests/e2e/test_page_join.py) decodes the
pictures; here the routes and the page are checked against the real table."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from realbox import make_table  # noqa: E402

from device.box import join_info  # noqa: E402
from device.config import config_from_dict  # noqa: E402
from webui import create_app, set_join  # noqa: E402
from webui.joincode import JoinInfo, svg, url_for_phones  # noqa: E402

BOX = "http://10.42.0.1:8080/"
HOTSPOT = {"ssid": "Dice Night", "password": "roll;the,dice"}


@pytest.fixture()
def table(tmp_path):
    table = make_table(tmp_path)
    yield table
    table.close()


@pytest.fixture()
def app(table):
    return create_app(table, secret_key="k", testing=True, join=JoinInfo(url=BOX))


def test_code_says_the_address_the_phone_used(app) -> None:
    client = app.test_client()
    r = client.get("/join.svg", headers={"Host": "192.168.1.23:8080"})
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    assert r.headers["Cache-Control"] == "no-store"  # another phone may have reached the box another way
    assert r.get_data(as_text=True) == svg("http://192.168.1.23:8080/", "http://192.168.1.23:8080/")
    assert "<script" not in r.get_data(as_text=True)


@pytest.mark.parametrize("host", ["127.0.0.1:8080", "localhost:8080", f"{socket.gethostname()}.local:8080",
                                  "[::1]:8080"])
def test_box_itself_or_a_name_gives_the_box_s_address(app, host) -> None:
    """Loopback is the box itself (useless to another phone); a .local name may not resolve on the next
    phone: both get the address the join card prints."""
    r = app.test_client().get("/join.svg", headers={"Host": host})
    assert r.status_code == 200 and r.get_data(as_text=True) == svg(BOX, BOX)


def test_url_for_phones_without_a_configured_address() -> None:
    assert url_for_phones("dicesight.local:8080", None) == "http://dicesight.local:8080/"
    assert url_for_phones("[fd00::5]:8080", None) == "http://[fd00::5]:8080/"
    assert url_for_phones("", None) is None


def test_foreign_names_are_still_refused(app) -> None:
    assert app.test_client().get("/join.svg", headers={"Host": "evil.example"}).status_code == 403


def test_page_offers_the_code_in_every_language(app) -> None:
    client = app.test_client()
    for lang, button in (("en", "Show join code"), ("zh-TW", "顯示加入 QR 碼"), ("ko", "참여 QR 코드 보기")):
        html = client.get("/", headers={"Accept-Language": lang, "Host": "192.168.1.23:8080"}).get_data(as_text=True)
        assert button in html and 'id="joindlg"' in html
        assert ">http://192.168.1.23:8080/<" in html  # the address under the code, as the code says it
        assert "join-wifi.svg" not in html


def test_wifi_code_only_where_the_config_shows_it(table) -> None:
    hidden = join_info(config_from_dict({"hotspot": HOTSPOT}), 8080)
    assert hidden == JoinInfo(url=BOX)  # the default: phones are never told the password
    app = create_app(table, secret_key="k", testing=True, join=hidden)
    client = app.test_client()
    assert client.get("/join-wifi.svg").status_code == 404
    assert "roll;the,dice" not in client.get("/").get_data(as_text=True)

    shown = join_info(config_from_dict({"hotspot": {**HOTSPOT, "show_on_page": True}}), 8080)
    set_join(app, shown)
    r = client.get("/join-wifi.svg")
    assert r.status_code == 200 and r.get_data(as_text=True) == svg(shown.wifi, "Dice Night")
    assert shown.wifi == "WIFI:T:WPA;S:Dice Night;P:roll\\;the\\,dice;;"
    html = client.get("/", headers={"Accept-Language": "ko"}).get_data(as_text=True)
    assert "1. Wi-Fi에 연결하기" in html and "Dice Night" in html and "roll;the,dice" in html


def test_show_on_page_without_a_hotspot_shows_nothing(table) -> None:
    info = join_info(config_from_dict({"hotspot": {"show_on_page": True}}), 8181)
    assert info.wifi is None and info.url and info.url.endswith(":8181/")
