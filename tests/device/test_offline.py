"""The box with the network cut (issue 36): no Wi-Fi router, no internet, no DNS. `dicesight run` starts in
a network namespace that has loopback only (`unshare -rn`, no root needed) and serves the page and every
file it loads from the box alone (tests/device/offline_probe.py looks from inside). The browser's side of
it, every request a phone makes going to the box, is tests/e2e/test_page_offline.py."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = Path(__file__).with_name("offline_probe.py")


def isolated(*cmd: str, timeout: float = 180) -> subprocess.CompletedProcess:
    """`cmd` in a new user and network namespace whose only interface is loopback, brought up."""
    script = 'ip link set lo up && exec "$@"'
    return subprocess.run(["unshare", "-rn", "sh", "-c", script, "sh", *cmd], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


@pytest.fixture(scope="module")
def namespaces() -> None:
    if not shutil.which("unshare") or not shutil.which("ip"):
        pytest.skip("needs unshare (util-linux) and ip (iproute2)")
    probe = isolated("true", timeout=30)
    if probe.returncode != 0:
        pytest.skip(f"this machine gives no unprivileged network namespace: {probe.stderr.strip()[:200]}")


@pytest.mark.slow(8)
def test_box_serves_everything_with_no_network_at_all(namespaces, tmp_path: Path) -> None:
    result = isolated(sys.executable, str(PROBE), str(tmp_path / "state"))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["route_out"] is None  # really cut: not even a route to leave by
    assert report["started_urls"] == ["http://127.0.0.1:8080"]
    fetched = report["fetched"]
    assert {"/", "/static/app.js", "/static/core.js", "/static/style.css", "/games/dicethrone/board.js",
            "/games/dicethrone/board.css", "/api/state", "/healthz", "/join.svg"} <= set(fetched)
    assert {path: status for path, status in fetched.items() if status != 200} == {}
    assert report["foreign"] == []  # no file of the page names another host to load from
