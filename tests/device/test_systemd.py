"""systemd/dicesight.service: verified by systemd-analyze (warnings fail), hardened, and the box speaks
sd_notify to it (READY, WATCHDOG from the main loop, STOPPING)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from device.panel import SHUTDOWN_EXIT_STATUS

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "dicesight.service"
EXEC = "/opt/dicesight/venv/bin/dicesight"


def _analyze() -> str:
    if not sys.platform.startswith("linux"):
        pytest.skip("systemd-analyze exists only on Linux")
    tool = shutil.which("systemd-analyze")
    assert tool, "systemd-analyze is missing: `apt-get install systemd` (make test installs it)"
    return tool


def _unit_here(tmp_path: Path) -> Path:
    """The unit as shipped, with only the install prefix pointed at a stand-in executable here.

    systemd-analyze checks that ExecStart= exists; /opt/dicesight is only there on an installed Pi.
    """
    fake = tmp_path / "opt" / "dicesight" / "venv" / "bin" / "dicesight"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    text = UNIT.read_text()
    assert EXEC in text
    unit = tmp_path / "dicesight.service"
    unit.write_text(text.replace(EXEC, str(fake)))
    return unit


def _settings() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    section = ""
    for line in UNIT.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        out.setdefault(f"{section}.{key}", []).append(value)
    return out


def test_systemd_analyze_verify_has_no_warnings(tmp_path: Path) -> None:
    tool = _analyze()
    unit = _unit_here(tmp_path)
    result = subprocess.run([tool, "verify", "--man=no", str(unit)], capture_output=True, text=True,
                            cwd=tmp_path, timeout=120)
    output = (result.stdout + result.stderr).strip()
    assert result.returncode == 0 and output == "", output


def test_verify_would_catch_a_mistake(tmp_path: Path) -> None:
    """The check above can fail: a misspelt key in a copy of the unit makes systemd-analyze speak."""
    tool = _analyze()
    unit = _unit_here(tmp_path)
    unit.write_text(unit.read_text().replace("WatchdogSec=", "WatchDogSec="))
    result = subprocess.run([tool, "verify", "--man=no", str(unit)], capture_output=True, text=True,
                            cwd=tmp_path, timeout=120)
    assert "WatchDogSec" in result.stdout + result.stderr


def test_security_exposure_is_low(tmp_path: Path) -> None:
    tool = _analyze()
    unit = _unit_here(tmp_path)
    result = subprocess.run([tool, "security", "--offline=true", "--no-pager", str(unit)],
                            capture_output=True, text=True, cwd=tmp_path, timeout=120)
    match = re.search(r"Overall exposure level for \S+: ([\d.]+)", result.stdout)
    if match is None:
        pytest.skip(f"this systemd-analyze cannot rate offline units: {result.stderr.strip()[:200]}")
    assert float(match.group(1)) <= 3.0, result.stdout[-2000:]


def test_unit_contract() -> None:
    s = _settings()
    assert s["Service.Type"] == ["notify"]
    assert int(s["Service.WatchdogSec"][0]) >= 10  # the box pings at least every second
    assert s["Service.Restart"] == ["on-failure"]
    assert s["Unit.StartLimitBurst"] and s["Unit.StartLimitIntervalSec"]
    assert s["Service.User"] == ["dicesight"]
    assert set(s["Service.SupplementaryGroups"][0].split()) >= {"gpio", "video"}
    assert s["Service.StateDirectory"] == ["dicesight"]
    # lgpio writes notification pipes to the working directory: the (writable) state directory
    assert s["Service.WorkingDirectory"] == ["%S/dicesight"]
    assert s["Service.ExecStart"][0].startswith(EXEC + " run")
    # hardening that would cut the camera or GPIO off must not be there
    for key in ("PrivateDevices", "DevicePolicy", "DeviceAllow", "ProtectClock", "DynamicUser"):
        assert f"Service.{key}" not in s, key
    assert s["Service.ProtectSystem"] == ["strict"] and s["Service.NoNewPrivileges"] == ["yes"]
    assert s["Install.WantedBy"] == ["multi-user.target"]


def test_pair_hold_exit_status_powers_off_and_nothing_else(tmp_path: Path) -> None:
    """ExecStopPost= powers the Pi off only when dicesight exited with the shutdown status (75)."""
    line = _settings()["Service.ExecStopPost"][0]
    m = re.fullmatch(r"\+/bin/sh -c '(.*)'", line)
    assert m, line
    script = m.group(1).replace("$$", "$")  # systemd turns $$ into $
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "calls"
    (bindir / "systemctl").write_text(f"#!/bin/sh\necho \"$@\" >> {log}\n")
    (bindir / "systemctl").chmod(0o755)
    env = {"PATH": f"{bindir}:/usr/bin:/bin"}
    for status in ("0", "1", "143", "75"):
        subprocess.run(["/bin/sh", "-c", script], env={**env, "EXIT_STATUS": status}, check=True)
    assert log.read_text().split("\n")[:-1] == ["--no-block poweroff"]
    s = _settings()
    assert "75" in s["Service.SuccessExitStatus"][0] and "75" in s["Service.RestartPreventExitStatus"][0]
    assert SHUTDOWN_EXIT_STATUS == 75  # what `dicesight run` returns after a Pair hold


def test_box_notifies_ready_watchdog_stopping(tmp_path: Path) -> None:
    """`dicesight run` under a fake systemd: READY=1, then WATCHDOG=1 pings, STOPPING=1 on SIGTERM."""
    sock_path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(sock_path)
    sock.settimeout(1)
    env = {**os.environ, "NOTIFY_SOCKET": sock_path, "WATCHDOG_USEC": "2000000", "PYTHONUNBUFFERED": "1"}
    env.pop("WATCHDOG_PID", None)
    out = open(tmp_path / "box.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, "-m", "device.cli", "run", "--camera", "demo", "--gpio", "mock", "--host", "127.0.0.1",
         "--port", "0", "--state-dir", str(tmp_path / "state"), "--json"],
        cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)  # a file: a full pipe would block it
    def until(line: str) -> None:
        for _ in range(120):  # up to about two minutes on a very slow machine; only a guard against a hang
            if line in got:
                return
            try:
                got.extend(sock.recv(4096).decode().split("\n"))
            except TimeoutError:
                assert proc.poll() is None, f"dicesight exited early:\n{(tmp_path / 'box.log').read_text()}"
        raise AssertionError(f"no {line} from dicesight; got {got}")

    got: list[str] = []
    try:
        until("WATCHDOG=1")
        assert "READY=1" in got and got.index("READY=1") < got.index("WATCHDOG=1")
        proc.send_signal(signal.SIGTERM)
        until("STOPPING=1")
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        sock.close()
        out.close()


def test_unit_starts_the_box_with_one_malloc_arena_and_no_thread_cache() -> None:
    """bench/soak.py: with glibc's defaults the box's memory grew all night (hundreds of server threads,
    each with a thread cache, over 16 arenas); the unit's malloc settings keep it flat."""
    lines = UNIT.read_text(encoding="utf-8").splitlines()
    assert "Environment=MALLOC_ARENA_MAX=1" in lines
    assert "Environment=GLIBC_TUNABLES=glibc.malloc.tcache_count=0" in lines
