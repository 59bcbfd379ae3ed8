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
        full = {"PATH": f"{self.bin}:/usr/bin:/bin", "HOME": str(self.tmp), "ROOT": str(self.root),
                "PYTHON": str(self.bin / "python3"), **env}
        return subprocess.run(["bash", str(SCRIPT)], env=full, capture_output=True, text=True, timeout=300)

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
    for needed in ("flask", "waitress", "tomli-w", "flask-babel"):
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
