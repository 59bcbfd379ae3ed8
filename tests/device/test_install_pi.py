"""scripts/install-pi.sh in a fake root, with apt-get, systemctl, useradd... stubbed on PATH.

What can be checked off a Pi is checked for real: the files it lays down (unit, config, app copy), the
commands it runs and their arguments (apt packages, venv flags, what pip may install), that it refuses
a venv where numpy/OpenCV are not apt's, and that a second run keeps the config and the user.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from device.config import Config, load_config

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "install-pi.sh"

STUB = """#!/bin/sh
echo "{name} $*" >> "{log}"
{body}
"""


class Rig:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.root = tmp / "root"
        self.bin = tmp / "bin"
        self.log = tmp / "calls.log"
        self.users = tmp / "users"
        self.groups = tmp / "groups"
        self.dist = tmp / "usr" / "lib" / "python3" / "dist-packages"  # where apt puts numpy and cv2
        self.root.mkdir()
        self.bin.mkdir()
        self.users.write_text("")
        self.groups.write_text("video\n")  # like a plain Debian: video exists, gpio does not
        self.dist.mkdir(parents=True)
        (self.dist / "numpy.py").write_text("")
        (self.dist / "cv2.py").write_text("")
        self.apt_fails = False
        self._stub("apt-get", 'exit "${APT_RC:-0}"')
        self._stub("systemctl", "exit 0")
        self._stub("groupadd", f'echo "$2" >> "{self.groups}"')
        self._stub("usermod", "exit 0")
        self._stub("useradd", f'for last; do :; done; echo "$last" >> "{self.users}"')
        self._stub("getent", f'''case "$1" in
  passwd) grep -qx "$2" "{self.users}" ;;
  group) grep -qx "$2" "{self.groups}" ;;
esac''')
        # The system python: `-m venv` makes a venv whose pip logs and whose python sees only `dist`.
        venv_python = f'#!/bin/sh\nexec env PYTHONPATH="${{FAKE_SITE:-{self.dist}}}" {sys.executable} -S "$@"\n'
        self._stub("python3", f'''if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  for last; do :; done
  mkdir -p "$last/bin"
  printf '#!/bin/sh\\necho "pip $*" >> "{self.log}"\\n' > "$last/bin/pip"
  printf '%s' '{venv_python}' > "$last/bin/python"
  chmod +x "$last/bin/pip" "$last/bin/python"
  exit 0
fi
exec {sys.executable} "$@"''')

    def _stub(self, name: str, body: str) -> None:
        path = self.bin / name
        path.write_text(STUB.format(name=name, log=self.log, body=body))
        path.chmod(0o755)

    def run(self, **env: str) -> subprocess.CompletedProcess:
        return self.run_with(**env)

    def run_with(self, *args: str, **env: str) -> subprocess.CompletedProcess:
        full = {"PATH": f"{self.bin}:/usr/bin:/bin", "HOME": str(self.tmp), "ROOT": str(self.root),
                "PYTHON": str(self.bin / "python3"), **env}
        return subprocess.run(["bash", str(SCRIPT), *args], env=full, capture_output=True, text=True, timeout=300)

    def calls(self, name: str) -> list[list[str]]:
        if not self.log.exists():
            return []
        return [shlex.split(line)[1:] for line in self.log.read_text().splitlines()
                if line.split(" ", 1)[0] == name]


@pytest.fixture
def rig(tmp_path: Path) -> Rig:
    return Rig(tmp_path)


def test_fresh_install(rig: Rig) -> None:
    result = rig.run()
    assert result.returncode == 0, result.stderr + result.stdout

    installs = [c for c in rig.calls("apt-get") if c[:1] == ["install"]]
    assert len(installs) == 1
    assert {"python3-picamera2", "python3-opencv", "python3-gpiozero", "python3-lgpio"} <= set(installs[0])
    assert ["update", "-q"] in rig.calls("apt-get")

    assert rig.calls("python3")[0][:3] == ["-m", "venv", "--system-site-packages"]
    pips = rig.calls("pip")
    assert len(pips) == 2
    everything = " ".join(" ".join(c) for c in pips).lower()
    for forbidden in ("numpy", "opencv", "gpiozero"):
        assert forbidden not in everything, f"pip was asked for {forbidden}: {pips}"
    # and pip is constrained so no dependency can pull numpy or an OpenCV wheel in behind our back
    constraints = rig.root / "opt/dicesight/pip-constraints.txt"
    for call in pips:
        assert call[call.index("-c") + 1] == str(constraints)
    lines = constraints.read_text().splitlines()
    assert f"numpy=={np.__version__}" in lines and "opencv-python-headless<0" in lines
    deps = " ".join(pips[0])
    for needed in ("flask", "waitress", "tomli-w", "flask-babel", "segno"):
        assert needed in deps
    assert "--no-deps" in pips[1] and pips[1][-1] == str(rig.root / "opt/dicesight/app")

    assert ["--system", "gpio"] in rig.calls("groupadd")  # made because it was missing
    useradd = rig.calls("useradd")
    assert len(useradd) == 1 and "--system" in useradd[0] and useradd[0][-1] == "dicesight"
    assert useradd[0][useradd[0].index("--groups") + 1] == "gpio,video"

    unit = rig.root / "etc/systemd/system/dicesight.service"
    assert unit.read_text() == (ROOT / "systemd/dicesight.service").read_text()
    assert oct(unit.stat().st_mode & 0o777) == "0o644"
    assert load_config(rig.root / "etc/dicesight/config.toml") == Config()  # documented defaults
    app = rig.root / "opt/dicesight/app"
    assert (app / "device/store.py").is_file() and (app / "pyproject.toml").is_file()
    assert not (app / ".git").exists() and not (app / ".venv").exists()
    # nor build/ (renders, training caches: gigabytes in a developer's checkout; the models ship in vision/models)
    assert not (app / "build").exists()

    assert rig.calls("systemctl") == [["daemon-reload"], ["enable", "dicesight.service"],
                                      ["restart", "dicesight.service"]]


def test_second_run_keeps_config_and_user(rig: Rig) -> None:
    assert rig.run().returncode == 0
    config = rig.root / "etc/dicesight/config.toml"
    config.write_text('[camera]\nsource = "usb:0"\n')
    rig.log.unlink()
    result = rig.run(NO_START="1", SKIP_APT="1")
    assert result.returncode == 0, result.stderr
    assert load_config(config).camera.source == "usb:0"
    assert rig.calls("useradd") == [] and rig.calls("groupadd") == []
    assert rig.calls("usermod") == [["--append", "--groups", "gpio,video", "dicesight"]]
    assert rig.calls("apt-get") == []
    assert rig.calls("python3")[:1] != [["-m", "venv"]]  # the venv is reused
    assert rig.calls("systemctl") == [["daemon-reload"], ["enable", "dicesight.service"]]


def test_refuses_numpy_from_pip(rig: Rig, tmp_path: Path) -> None:
    wheels = tmp_path / "venv-site-packages"  # numpy as pip would put it in the venv
    wheels.mkdir()
    (wheels / "numpy.py").write_text("")
    (wheels / "cv2.py").write_text("")
    result = rig.run(FAKE_SITE=str(wheels))
    assert result.returncode != 0
    assert "not the apt ones" in result.stderr and "numpy" in result.stderr
    assert rig.calls("systemctl") == []  # nothing started on a broken install


def test_apt_failure_stops_with_a_message(rig: Rig) -> None:
    result = rig.run(APT_RC="100")
    assert result.returncode != 0
    assert "apt-get" in result.stderr
    assert rig.calls("useradd") == [] and rig.calls("systemctl") == []


def test_other_prefix_and_user(rig: Rig) -> None:
    result = rig.run(PREFIX="/srv/dice", SERVICE_USER="games")
    assert result.returncode == 0, result.stderr
    unit = (rig.root / "etc/systemd/system/dicesight.service").read_text()
    assert "ExecStart=/srv/dice/venv/bin/dicesight run" in unit
    assert "\nUser=games\n" in unit and "\nGroup=games\n" in unit
    assert "/opt/dicesight" not in unit
    assert rig.calls("useradd")[0][-1] == "games"


def test_needs_root_on_a_real_system(rig: Rig) -> None:
    rig._stub("id", "echo 1000")  # a normal user
    env = {"PATH": f"{rig.bin}:/usr/bin:/bin", "PYTHON": str(rig.bin / "python3")}
    result = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True)
    assert result.returncode != 0 and "run as root" in result.stderr
    assert rig.calls("apt-get") == []


# -- --hotspot: NetworkManager's access point, the config's [hotspot], dicesight.local (issue 36) ----------
NMCLI = '''#!/bin/bash
# logged with bash's %q, so a name holding quotes, spaces or ; is read back whole
{{ printf nmcli; printf ' %q' "$@"; printf '\\n'; }} >> "{log}"
case "$*" in
  "-t -f NAME connection show") cat "{conns}" 2>/dev/null ;;
  "connection add"*) echo dicesight-hotspot >> "{conns}" ;;
  "connection delete"*) : > "{conns}" ;;
esac'''


def hotspot_rig(rig: Rig) -> Rig:
    """The rig with what --hotspot runs: nmcli (remembering its connections), hostnamectl, hostname, chgrp
    (the service's group exists only on the Pi)."""
    nmcli = rig.bin / "nmcli"
    nmcli.write_text(NMCLI.format(conns=rig.tmp / "connections", log=rig.log))
    nmcli.chmod(0o755)
    rig._stub("hostnamectl", "exit 0")
    rig._stub("hostname", "echo raspberrypi")
    rig._stub("chgrp", "exit 0")
    return rig


def option(call: list[str], name: str) -> str:
    """The value after `name` in an nmcli call (its settings are name value pairs)."""
    return call[call.index(name) + 1]


def test_hotspot_sets_up_an_access_point_and_the_config(rig: Rig) -> None:
    from device import joincard
    from device.config import HotspotConfig
    from webui.joincode import wifi_payload

    hotspot_rig(rig)
    ssid, password = 'Dice;Night "1"', "roll:the,dice\\now"
    result = rig.run_with("--hotspot", HOTSPOT_SSID=ssid, HOTSPOT_PASSWORD=password)
    assert result.returncode == 0, result.stderr + result.stdout

    install = next(c for c in rig.calls("apt-get") if c[:1] == ["install"])
    assert {"network-manager", "dnsmasq-base", "avahi-daemon", "libnss-mdns"} <= set(install)

    config_path = rig.root / "etc/dicesight/config.toml"
    config = load_config(config_path)
    assert config == Config(hotspot=HotspotConfig(ssid=ssid, password=password))  # the rest: the defaults
    assert oct(config_path.stat().st_mode & 0o777) == "0o640"  # it holds the password
    assert ["dicesight", str(config_path)] in rig.calls("chgrp")

    nmcli = rig.calls("nmcli")
    add = next(c for c in nmcli if c[:2] == ["connection", "add"])
    assert option(add, "type") == "wifi" and option(add, "ifname") == "wlan0"
    assert option(add, "con-name") == "dicesight-hotspot" and option(add, "ssid") == ssid
    assert option(add, "802-11-wireless.mode") == "ap" and option(add, "ipv4.method") == "shared"
    assert option(add, "ipv4.addresses") == "10.42.0.1/24"  # the fixed address
    assert option(add, "wifi-sec.key-mgmt") == "wpa-psk" and option(add, "wifi-sec.psk") == password
    assert nmcli[-1] == ["connection", "up", "dicesight-hotspot"]
    assert ["connection", "delete", "dicesight-hotspot"] not in nmcli  # there was none to replace

    assert (rig.root / "etc/hostname").read_text() == "dicesight\n"
    assert "127.0.1.1\tdicesight\n" in (rig.root / "etc/hosts").read_text()
    assert rig.calls("hostnamectl") == [["set-hostname", "dicesight"]]
    systemctl = rig.calls("systemctl")
    assert ["enable", "avahi-daemon.service"] in systemctl and ["restart", "avahi-daemon.service"] in systemctl
    assert systemctl[-1] == ["restart", "dicesight.service"]  # the box starts with the hotspot's config

    card = joincard.make_card(config)  # the join card the box prints from it
    assert card.wifi == wifi_payload(ssid, password) and card.url == "http://10.42.0.1:8080/"


def test_hotspot_again_keeps_the_password_and_the_rest_of_the_config(rig: Rig) -> None:
    hotspot_rig(rig)
    assert rig.run_with("--hotspot").returncode == 0
    config_path = rig.root / "etc/dicesight/config.toml"
    first = load_config(config_path).hotspot
    assert first.ssid == "dicesight" and len(first.password) == 12  # a new random password
    config_path.write_text(config_path.read_text().replace('source = "auto"', 'source = "usb:0"')
                           .replace("show_on_page = false", "show_on_page = true"))
    rig.log.unlink()

    result = rig.run_with("--hotspot", HOTSPOT_SSID="Game night", NO_START="1", SKIP_APT="1")
    assert result.returncode == 0, result.stderr
    again = load_config(config_path)
    assert again.hotspot.ssid == "Game night" and again.hotspot.password == first.password  # cards still work
    assert again.hotspot.show_on_page and again.camera.source == "usb:0"  # the owner's choices kept
    assert config_path.read_text().count("[hotspot]") == 1
    nmcli = rig.calls("nmcli")
    assert ["connection", "delete", "dicesight-hotspot"] in nmcli  # remade, not doubled
    assert ["connection", "up", "dicesight-hotspot"] not in nmcli  # NO_START: it comes up at the next boot
    assert rig.calls("hostnamectl") == []  # the name was already set


@pytest.mark.parametrize(("env", "says"), [
    ({"HOTSPOT_PASSWORD": "short"}, "HOTSPOT_PASSWORD"),
    ({"HOTSPOT_PASSWORD": "pässwörd-long"}, "HOTSPOT_PASSWORD"),
    ({"HOTSPOT_SSID": "x" * 33}, "HOTSPOT_SSID"),
    ({"HOTSPOT_ADDRESS": "10.42.0"}, "HOTSPOT_ADDRESS"),
    ({"BOX_NAME": "dice/sight"}, "BOX_NAME"),
])
def test_hotspot_refuses_bad_settings_before_changing_anything(rig: Rig, env: dict, says: str) -> None:
    hotspot_rig(rig)
    result = rig.run_with("--hotspot", **env)
    assert result.returncode != 0 and says in result.stderr
    assert rig.calls("apt-get") == [] and rig.calls("nmcli") == [] and rig.calls("useradd") == []
    assert not (rig.root / "etc").exists()


def test_hotspot_in_an_image_being_built_writes_files_only(rig: Rig) -> None:
    hotspot_rig(rig)
    result = rig.run_with("--hotspot", NO_SYSTEMD="1", BOX_NAME="")
    assert result.returncode == 0, result.stderr
    assert load_config(rig.root / "etc/dicesight/config.toml").hotspot.enabled
    assert rig.calls("nmcli") == [] and rig.calls("hostnamectl") == []  # NetworkManager is not running
    assert "run 'sudo scripts/install-pi.sh --hotspot' again on the Pi" in result.stdout
    assert not (rig.root / "etc/hostname").exists()  # BOX_NAME empty: the hostname is left alone


def test_unknown_option_is_refused(rig: Rig) -> None:
    result = rig.run_with("--hotpsot")
    assert result.returncode == 2 and "unknown option --hotpsot" in result.stderr
    assert rig.calls("apt-get") == []
