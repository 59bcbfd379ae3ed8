"""`dicesight qr`: the join card's codes are read back with OpenCV's QR decoder, as a phone's camera would,
from the PNG, from the terminal's block characters and from the JSON the command prints; the Wi-Fi text is
checked against the format's escaping (issue 36)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import cv2
import numpy as np
import pytest

from device import joincard
from device.config import Config, HotspotConfig, WebConfig, config_from_dict
from webui.joincode import escape_wifi, wifi_payload

ROOT = Path(__file__).resolve().parents[2]
HOTSPOT = {"hotspot": {"ssid": 'Dice;Night "1"', "password": "roll:the,dice\\now"}}


def decode_columns(image: np.ndarray, columns: int) -> list[str]:
    """The code in each of the card's columns, left to right, as OpenCV reads it (a phone scans one code at
    a time; OpenCV's several-at-once detector misses codes one at a time finds)."""
    width = image.shape[1] // columns
    return [cv2.QRCodeDetector().detectAndDecode(image[:, i * width:(i + 1) * width])[0] for i in range(columns)]


def unescape_fields(payload: str) -> dict[str, str]:
    """A phone's reading of a WIFI: text: fields split on unescaped `;`, each value unescaped."""
    assert payload.startswith("WIFI:") and payload.endswith(";;")
    fields, key, value, escaped = {}, "", "", False
    body = payload[len("WIFI:"):-1]
    for c in body:
        if escaped:
            value += c
            escaped = False
        elif c == "\\":
            escaped = True
        elif c == ";":
            key, _, val = value.partition(":")
            fields[key] = val
            value = ""
        else:
            value += c
    return fields


def render_terminal(text: str) -> np.ndarray:
    """The terminal's block characters back into a picture: each character is two module rows."""
    rows = []
    drawn = [line for line in re.sub(r"\x1b\[[0-9;]*m", "", text).splitlines()
             if line and set(line) <= {" ", joincard.UPPER, joincard.LOWER, joincard.BOTH}]
    for line in drawn:
        top = [c in (joincard.UPPER, joincard.BOTH) for c in line]
        bottom = [c in (joincard.LOWER, joincard.BOTH) for c in line]
        rows += [top, bottom]
    grid = np.array(rows, dtype=bool)
    picture = np.where(grid, 0, 255).astype(np.uint8).repeat(8, 0).repeat(8, 1)
    return np.pad(picture, 16, constant_values=255)


def test_wifi_text_escapes_the_reserved_characters() -> None:
    assert escape_wifi('a;b,c:d"e\\f') == 'a\\;b\\,c\\:d\\"e\\\\f'
    assert escape_wifi("桌遊 night") == "桌遊 night"
    payload = wifi_payload('Dice;Night "1"', "roll:the,dice\\now")
    assert payload == 'WIFI:T:WPA;S:Dice\\;Night \\"1\\";P:roll\\:the\\,dice\\\\now;;'
    assert unescape_fields(payload) == {"T": "WPA", "S": 'Dice;Night "1"', "P": "roll:the,dice\\now"}


def test_png_card_holds_the_wifi_then_the_page(tmp_path: Path) -> None:
    card = joincard.make_card(config_from_dict(HOTSPOT), addresses=["192.168.1.23"], hostname="box")
    out = tmp_path / "card.png"
    assert joincard.save(card, out) == []
    image = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    # Wi-Fi first, then the page at the hotspot's fixed address (phones on the hotspot reach the box there)
    assert decode_columns(image, 2) == [card.wifi, "http://10.42.0.1:8080/"]
    assert unescape_fields(card.wifi) == {"T": "WPA", "S": 'Dice;Night "1"', "P": "roll:the,dice\\now"}


def test_png_card_without_hotspot_is_the_page_alone(tmp_path: Path) -> None:
    card = joincard.make_card(Config(), addresses=["192.168.1.23"], hostname="box")
    joincard.save(card, tmp_path / "card.png")
    image = cv2.imread(str(tmp_path / "card.png"), cv2.IMREAD_GRAYSCALE)
    assert decode_columns(image, 1) == ["http://192.168.1.23:8080/"]


def test_png_card_warns_when_a_name_cannot_be_written() -> None:
    card = joincard.make_card(config_from_dict({"hotspot": {"ssid": "桌遊之夜", "password": "secret123"}}),
                              addresses=[], hostname="box")
    png, warnings = joincard.card_png(card)
    assert warnings and ".svg" in warnings[0]
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert decode_columns(image, 2)[0] == card.wifi  # the code itself carries the name in UTF-8


@pytest.mark.parametrize("ansi", [True, False])
def test_terminal_card_decodes(ansi: bool) -> None:
    url = "http://192.168.1.23:8080/"
    text = joincard.terminal_qr(url, ansi=ansi)
    assert ("\x1b[30;107m" in text) == ansi  # black on white whatever the terminal's theme
    assert cv2.QRCodeDetector().detectAndDecode(render_terminal(text))[0] == url


def test_svg_card_names_both_steps() -> None:
    card = joincard.make_card(config_from_dict(HOTSPOT), addresses=[], hostname="box")
    svg = joincard.card_svg(card)
    root = ElementTree.fromstring(svg)  # well-formed XML, the SSID's quote escaped
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts == ["1. Join the Wi-Fi", 'Wi-Fi: Dice;Night "1"', "Password: roll:the,dice\\now",
                     "2. Open the page", "http://10.42.0.1:8080/"]
    assert len(list(root.iter("{http://www.w3.org/2000/svg}path"))) >= 4  # two codes (the browser test decodes it)


@pytest.mark.parametrize(("web", "hotspot", "addresses", "host", "warned"), [
    (WebConfig(host="192.168.7.2"), HotspotConfig(), ["10.0.0.5"], "192.168.7.2", False),  # bound to one address
    (WebConfig(host="127.0.0.1"), HotspotConfig(), ["10.0.0.5"], "127.0.0.1", True),  # phones cannot reach it
    (WebConfig(), HotspotConfig(ssid="dice", password="12345678"), ["10.0.0.5"], "10.42.0.1", False),
    (WebConfig(), HotspotConfig(ssid="dice", password="12345678", address="192.168.50.1"), [], "192.168.50.1", False),
    (WebConfig(), HotspotConfig(), ["10.0.0.5", "172.17.0.1"], "10.0.0.5", False),  # the LAN
    (WebConfig(), HotspotConfig(), [], "gamebox.local", True),  # nothing better: mDNS
])
def test_which_address_goes_on_the_card(web, hotspot, addresses, host, warned) -> None:
    chosen, warnings = joincard.join_host(Config(web=web, hotspot=hotspot), addresses, "gamebox.lan")
    assert chosen == host and bool(warnings) == warned


def test_card_url_forms() -> None:
    assert joincard.make_card(Config(), address="dicesight.local").url == "http://dicesight.local:8080/"
    assert joincard.make_card(Config(), address="fd00::2", port=80).url == "http://[fd00::2]/"
    with pytest.raises(ValueError, match="--port"):
        joincard.make_card(config_from_dict({"web": {"port": 0}}), address="10.0.0.2")


def test_lan_addresses_are_never_loopback() -> None:
    assert all(not a.startswith("127.") for a in joincard.lan_addresses())


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "device.cli", "qr", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=60, env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"})


def test_cli_prints_the_card(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[web]\nport = 8181\n[hotspot]\nssid = "Dice Night"\npassword = "roll,roll"\n')
    result = cli("--config", str(config), "--json")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record == {"event": "join", "url": "http://10.42.0.1:8181/",
                      "wifi": {"ssid": "Dice Night", "password": "roll,roll",
                               "code": "WIFI:T:WPA;S:Dice Night;P:roll\\,roll;;"},
                      "out": None, "warnings": []}

    text = cli("--config", str(config), "--address", "192.168.1.9").stdout  # the terminal card
    assert text.index("1. Join the Wi-Fi") < text.index("2. Open the page") and "http://192.168.1.9:8181/" in text
    codes = text.split("2. Open the page")
    assert cv2.QRCodeDetector().detectAndDecode(render_terminal(codes[0].split("\n", 1)[1]))[0] == \
        "WIFI:T:WPA;S:Dice Night;P:roll\\,roll;;"
    assert cv2.QRCodeDetector().detectAndDecode(render_terminal(codes[1].split("\n", 1)[1]))[0] == \
        "http://192.168.1.9:8181/"


def test_cli_saves_pictures(tmp_path: Path) -> None:
    for name in ("card.png", "card.svg"):
        result = cli("--address", "10.1.2.3", "--out", str(tmp_path / name), "--json")
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["out"] == str(tmp_path / name)
    assert decode_columns(cv2.imread(str(tmp_path / "card.png"), cv2.IMREAD_GRAYSCALE), 1) == ["http://10.1.2.3:8080/"]
    assert (tmp_path / "card.svg").read_text().startswith("<svg")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["card.png", "card.svg"]  # no temporary file left


def test_cli_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    result = cli("--out", str(tmp_path / "card.jpg"), "--json")
    assert result.returncode == 2 and json.loads(result.stdout)["error"]["code"] == "bad_out"
    config = tmp_path / "config.toml"
    config.write_text('[hotspot]\nssid = "dice"\npassword = "short"\n')
    result = cli("--config", str(config), "--json")
    error = json.loads(result.stdout)["error"]
    assert result.returncode == 2 and error["code"] == "bad_config"
    assert error["message"].startswith("hotspot.password:") and str(config) in error["message"]
