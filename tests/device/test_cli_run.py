"""`dicesight run` on a port another program holds (`make run` while a box already runs) says so in words and
how to start a second box, instead of printing a JSON record (issue 34, point 8)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_on_a_taken_port(tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess, int]:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "device.cli", "run", "--camera", "demo", "--gpio", "mock",
                               "--host", "127.0.0.1", "--port", str(port), "--state-dir", str(tmp_path / "s"), *extra],
                              capture_output=True, text=True, cwd=ROOT, timeout=60)
    return done, port


def test_a_taken_port_is_explained_with_the_way_out(tmp_path):
    done, port = run_on_a_taken_port(tmp_path)
    assert done.returncode == 2
    assert f"port {port} is already in use" in done.stdout
    assert f'make run RUN_ARGS="--port {port + 1}"' in done.stdout
    assert not done.stdout.lstrip().startswith("{")


def test_json_output_keeps_the_code_and_adds_the_hint(tmp_path):
    done, port = run_on_a_taken_port(tmp_path, "--json")
    record = json.loads(done.stdout.strip().splitlines()[-1])
    assert record["error"]["code"] == "cannot_start" and f"--port {port + 1}" in record["error"]["hint"]
