"""Config: documented defaults, strict checking that names the bad key, atomic save."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from device import config as cfgmod
from device.config import (
    Config,
    ConfigError,
    apply_overrides,
    load_config,
    resolve_state_dir,
    save_config,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "config.md"


def test_defaults() -> None:
    c = load_config(None)
    assert c.camera.source == "auto" and c.camera.mount == "under" and c.camera.dice == "d6"
    assert c.camera.settle_s == 0.3
    assert c.gpio.pin_factory == "auto"
    assert set(c.gpio.buttons) == {"next", "undo", "pair"}
    assert "status" in c.gpio.leds
    assert (c.web.host, c.web.port) == ("0.0.0.0", 8080)
    assert c.state_dir is None


def test_partial_file_keeps_other_defaults(tmp_path: Path) -> None:
    p = tmp_path / "c.toml"
    p.write_text('[camera]\nsource = "usb:1"\nmount = "over"\n[gpio.buttons]\nnext = 4\n'
                 '[gpio.leds]\nphase3 = false\nextra = 21\n[web]\nport = 9000\n')
    c = load_config(p)
    assert c.camera.source == "usb:1" and c.camera.mount == "over" and c.camera.dice == "d6"
    assert c.gpio.buttons == {"next": 4, "undo": 27, "pair": 22}
    assert c.gpio.leds["phase3"] is None and c.gpio.leds["extra"] == 21 and c.gpio.leds["status"] == 12
    assert c.web.port == 9000 and c.web.host == "0.0.0.0"


@pytest.mark.parametrize(("text", "key"), [
    ('[camera]\nsorce = "demo"\n', "camera.sorce"),
    ('[camera]\nsource = "webcam"\n', "camera.source"),
    ('[camera]\nmount = "side"\n', "camera.mount"),
    ('[camera]\nsettle_s = "slow"\n', "camera.settle_s"),
    ('[camera]\nsettle_s = -1\n', "camera.settle_s"),
    ('[gpio]\npin_factory = "magic"\n', "gpio.pin_factory"),
    ('[gpio.buttons]\nnext = 40\n', "gpio.buttons.next"),
    ('[gpio.buttons]\nshutdown = 4\n', "gpio.buttons.shutdown"),
    ('[gpio.buttons]\nundo = "27"\n', "gpio.buttons.undo"),
    ('[gpio.leds]\nstatus = 17\n', "gpio.leds.status"),  # clashes with the Next button
    ('[gpio]\nlong_press_s = 6.0\n', "gpio.long_press_s"),
    ('[web]\nport = 70000\n', "web.port"),
    ('[web]\nport = true\n', "web.port"),
    ("state_dir = 3\n", "state_dir"),
    ("colour = 1\n", "colour"),
    ('[hotspot]\nssid = "dice"\npassword = "short"\n', "hotspot.password"),  # WPA2: 8-63 characters
    ('[hotspot]\nssid = "dice"\n', "hotspot.password"),  # a hotspot needs a password
    ('[hotspot]\nssid = "dice"\npassword = "pässword1"\n', "hotspot.password"),  # printable ASCII only
    ('[hotspot]\nssid = "%s"\npassword = "12345678"\n' % ("x" * 33), "hotspot.ssid"),  # 32 bytes at most
    ('[hotspot]\naddress = "dicesight.local"\n', "hotspot.address"),
    ('[hotspot]\nshow_on_page = "yes"\n', "hotspot.show_on_page"),
    ('[hotspot]\nchannel = 6\n', "hotspot.channel"),

    ("[camera]\nsize = [960]\n", "camera.size"),
    ("[camera]\nsize = [960, 100]\n", "camera.size"),  # a side below 160 px
    ('[camera]\nsize = ["960", "720"]\n', "camera.size"),
    ('[mqtt]\nbroker = "http://pi.local"\n', "mqtt.broker"),
    ('[mqtt]\nbroker = "mqtt://user:secret@pi.local"\n', "mqtt.broker"),
    ('[mqtt]\nbroker = "mqtt://pi.local:99999"\n', "mqtt.broker"),
    ('[mqtt]\nbox = "table/3"\n', "mqtt.box"),
    ('[mqtt]\nbox = "#"\n', "mqtt.box"),
    ('[mqtt]\npassword = "a"\npassword_file = "/etc/p"\n', "mqtt.password_file"),
    ('[mqtt]\ntopic_prefix = "club/+"\n', "mqtt.topic_prefix"),
    ('[mqtt]\nkeepalive_s = 1\n', "mqtt.keepalive_s"),
    ('[mqtt]\nport = 1883\n', "mqtt.port"),
])
def test_bad_values_name_the_key(tmp_path: Path, text: str, key: str) -> None:
    p = tmp_path / "c.toml"
    p.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(p)
    assert info.value.key == key
    assert str(info.value).startswith(key + ":")
    assert str(p) in str(info.value)


def test_hotspot_keys(tmp_path: Path) -> None:
    assert not Config().hotspot.enabled and Config().hotspot.address == "10.42.0.1"
    p = tmp_path / "c.toml"
    p.write_text('[hotspot]\nssid = "桌遊之夜"\npassword = "roll;the,dice"\nshow_on_page = true\n')
    c = load_config(p)
    assert c.hotspot.enabled and c.hotspot.ssid == "桌遊之夜" and c.hotspot.password == "roll;the,dice"
    assert c.hotspot.show_on_page and c.hotspot.address == "10.42.0.1"
    save_config(c, tmp_path / "again.toml")
    assert load_config(tmp_path / "again.toml") == c


def test_mqtt_is_off_by_default_and_takes_a_broker_address(tmp_path: Path) -> None:
    assert Config().mqtt.broker == ""
    p = tmp_path / "c.toml"
    p.write_text('[mqtt]\nbroker = "mqtts://venue.lan"\nbox = "table-3"\nname = "Table 3"\nusername = "t3"\n')
    c = load_config(p)
    assert (c.mqtt.box, c.mqtt.name, c.mqtt.username, c.mqtt.keepalive_s) == ("table-3", "Table 3", "t3", 10)
    assert cfgmod.parse_broker(c.mqtt.broker) == cfgmod.Broker("venue.lan", 8883, True)
    assert cfgmod.parse_broker("mqtt://10.0.0.2:1999") == cfgmod.Broker("10.0.0.2", 1999, False)
    assert cfgmod.parse_broker("mqtt://pi.local").url() == "mqtt://pi.local:1883"
    assert load_config(p) == c and cfgmod.config_from_dict(cfgmod.config_to_dict(c)) == c


def test_the_camera_keeps_its_own_size_unless_the_config_asks_for_one(tmp_path: Path) -> None:
    assert Config().camera.size is None and "size" not in cfgmod.config_to_dict(Config())["camera"]
    p = tmp_path / "c.toml"
    p.write_text('[camera]\nsource = "picamera2"\nsize = [960, 720]\n')
    c = load_config(p)
    assert c.camera.size == (960, 720)
    save_config(c, tmp_path / "again.toml")
    assert load_config(tmp_path / "again.toml") == c


def test_unreadable_files_say_so(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.toml")
    p = tmp_path / "c.toml"
    p.write_text("[camera\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(p)


def test_save_round_trips_and_is_atomic(tmp_path: Path, monkeypatch) -> None:
    p = tmp_path / "sub" / "config.toml"
    c = apply_overrides(Config(), camera="replay:/tmp/x", port=8181, state_dir=tmp_path / "st")
    save_config(c, p)
    assert load_config(p) == c

    # a crash between writing and renaming leaves the old file intact and no temp file behind
    def boom(src: str, dst: str) -> None:
        raise OSError("power cut")

    monkeypatch.setattr(cfgmod.os, "replace", boom)
    with pytest.raises(OSError):
        save_config(apply_overrides(c, port=1234), p)
    assert load_config(p) == c
    assert os.listdir(p.parent) == ["config.toml"]


def test_overrides_are_checked() -> None:
    c = apply_overrides(Config(), camera="demo", gpio="mock", host="127.0.0.1", port=8000)
    assert (c.camera.source, c.gpio.pin_factory, c.web.host, c.web.port) == ("demo", "mock", "127.0.0.1", 8000)
    with pytest.raises(ConfigError, match="camera.source"):
        apply_overrides(Config(), camera="usb:x")


def test_state_dir_resolution(tmp_path: Path) -> None:
    assert resolve_state_dir(None, {"STATE_DIRECTORY": "/var/lib/dicesight:/var/lib/other"}) == \
        Path("/var/lib/dicesight")
    assert resolve_state_dir(None, {}) == Path("state").absolute()  # issue 34 #3: absolute once, at start
    assert resolve_state_dir(Path("rel/dir")).is_absolute()
    assert Config(state_dir=tmp_path).resolved_state_dir({"STATE_DIRECTORY": "/x"}) == tmp_path


def test_docs_list_every_key() -> None:
    text = DOCS.read_text()
    data = cfgmod.config_to_dict(Config())
    for section in ("camera", "gpio", "web", "hotspot", "mqtt"):
        for key, value in data[section].items():
            names = [f"{section}.{key}.{k}" for k in value] if isinstance(value, dict) else [f"{section}.{key}"]
            for name in names:
                assert f"`{name}`" in text, f"{name} is not documented in docs/config.md"
    assert "`state_dir`" in text


def test_wiring_docs_match_the_default_pins() -> None:
    docs = DOCS.parent
    wiring = (docs / "wiring.md").read_text()
    svg = (docs / "wiring.svg").read_text()
    assert "wiring.svg" in wiring
    gpio = Config().gpio
    for name, pin in [*gpio.buttons.items(), *gpio.leds.items()]:
        rows = [line for line in wiring.splitlines() if line.startswith(f"| {name}") or
                line.lower().startswith(f"| {name} ")]
        assert rows and f"GPIO{pin} " in rows[0], f"docs/wiring.md: {name} is not on GPIO{pin}"
        assert f"GPIO{pin} (pin" in svg, f"docs/wiring.svg does not show GPIO{pin} for {name}"
