""""Show join code" in a real Chromium at 390x844 (issue 36): a phone following the game opens the dialog and
the code it shows, decoded by OpenCV from what the phone draws, is the page's address (and, where the
config shows the hotspot to phones, the Wi-Fi code first). The printed SVG card is decoded the same way."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from pagekit import serve, shot
from playwright.sync_api import expect

from device import joincard
from device.config import config_from_dict
from device.pairing import Pairing
from device.store import Store
from device.table import Table
from webui import create_app
from webui.joincode import JoinInfo

pytestmark = pytest.mark.e2e

HOTSPOT = {"ssid": "桌遊之夜 Dice", "password": "roll;the,dice"}


@pytest.fixture()
def table(tmp_path):
    table = Table(Store(tmp_path / "state"), camera=None, pairing=Pairing(tmp_path / "tokens.json"))
    yield table
    table.close()


def decode(png: bytes) -> str:
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    return cv2.QRCodeDetector().detectAndDecode(image)[0]


def drawn_code(page, selector: str, tries: int = 20) -> str:
    """The code as the phone draws it, read by OpenCV.

    An SVG picture can count as loaded a frame or two before Chromium paints it (CI once caught a white
    square), so this waits for the picture to decode, then reads a few screenshots until one holds a code;
    a wrong code is still returned at once, and a square that never shows one returns ''."""
    img = page.locator(f"{selector} img")
    expect(img).to_be_visible()
    page.evaluate("(sel) => document.querySelector(sel + ' img').decode()", selector)
    for _ in range(tries):
        text = decode(img.screenshot())
        if text:
            return text
        page.wait_for_timeout(250)
    return ""


def test_show_join_code_gives_the_page_address(table, phone):
    app = create_app(table, secret_key="e2e")
    with serve(app) as url:
        app.config["DICESIGHT_JOIN"] = JoinInfo(url=url + "/")  # what the box sets once it has its port
        page = phone("en-US")
        page.goto(url)
        page.locator("#live.on").wait_for()
        shot(page, "join-button-en", at="#joinbtn")
        page.get_by_role("button", name="Show join code").click()
        dialog = page.locator("#joindlg")
        expect(dialog).to_be_visible()
        expect(dialog.locator("#joinurl")).to_have_text(url + "/")
        assert drawn_code(page, "#joinpage") == url + "/"
        expect(dialog.locator("#joinwifi")).to_have_count(0)  # no hotspot: the address alone
        shot(page, "join-code-en")
        dialog.get_by_role("button", name="Close").click()
        expect(dialog).to_be_hidden()
        assert page.js_errors == []


@pytest.mark.parametrize(("locale", "wifi_step"), [("zh-TW", "1. 連上 Wi-Fi"), ("ko-KR", "1. Wi-Fi에 연결하기")])
def test_wifi_code_then_the_page_where_the_config_shows_it(table, phone, locale, wifi_step):
    config = config_from_dict({"hotspot": {**HOTSPOT, "show_on_page": True}})
    card = joincard.make_card(config, port=8080)
    app = create_app(table, secret_key="e2e")
    with serve(app) as url:
        app.config["DICESIGHT_JOIN"] = JoinInfo(url=url + "/", ssid=card.ssid, password=card.password)
        page = phone(locale)
        page.goto(url)
        page.locator("#live.on").wait_for()
        page.locator("#joinbtn").click()
        expect(page.locator("#joinwifi figcaption")).to_have_text(wifi_step)
        expect(page.locator("#joinwifi")).to_contain_text("桌遊之夜 Dice")
        assert drawn_code(page, "#joinwifi") == "WIFI:T:WPA;S:桌遊之夜 Dice;P:roll\\;the\\,dice;;"
        assert drawn_code(page, "#joinpage") == url + "/"
        shot(page, f"join-code-wifi-{locale}")
        assert page.js_errors == []


def test_printed_svg_card_scans(tmp_path, phone):
    """The card `dicesight qr --out card.svg` writes, as a browser draws it: the Wi-Fi, then the page."""
    card = joincard.make_card(config_from_dict({"hotspot": HOTSPOT}), port=8080)
    out = tmp_path / "card.svg"
    joincard.save(card, out)
    page = phone("en-US", dark=False)
    page.set_viewport_size({"width": 1000, "height": 600})  # a computer opening the card to print it
    page.goto(out.as_uri())
    png = page.locator("svg").first.screenshot()
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    half = image.shape[1] // 2
    read = [cv2.QRCodeDetector().detectAndDecode(part)[0] for part in (image[:, :half], image[:, half:])]
    assert read == [card.wifi, "http://10.42.0.1:8080/"]
    expect(page.locator("text").first).to_have_text("1. Join the Wi-Fi")
    shot(page, "join-card-svg")
