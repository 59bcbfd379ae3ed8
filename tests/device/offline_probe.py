"""Run inside a network namespace with nothing but loopback (tests/device/test_offline.py): start the box as
a user does and fetch what a phone's page loads, then print one JSON report.

Why a separate script: the namespace (`unshare -rn`) holds this process and its children only; the test
process outside cannot reach a box in it, so the looking is done from in here.
"""

from __future__ import annotations

import json
import posixpath
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BASE = "http://127.0.0.1:8080"
ASSET = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']""")
# a module's imports, and the files it names beside itself (a game view's stylesheet: new URL("./x.css", ...))
IMPORT = re.compile(r"""(?:from\s+|import\s*\(\s*|new\s+URL\(\s*)["'](\.{1,2}/[^"']+)["']""")
FOREIGN = re.compile(r"""(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}""", re.I)
NAMESPACES = ("http://www.w3.org",)  # XML namespace names, not addresses anything is loaded from


def route_out() -> str | None:
    """Where a packet to the outside would leave from, or None when there is no route at all."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.254.254.254", 9))
            return s.getsockname()[0]
    except OSError:
        return None


def get(path: str) -> tuple[int, bytes]:
    """Status and body of `path`. The wait is long on purpose: this checks where files come from, not how
    fast, and the first /fairness runs the power analysis (2.7 s on an idle PC; over 10 s on a loaded CI
    runner)."""
    try:
        with urllib.request.urlopen(BASE + path, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as err:
        return err.code, b""


def start_box(state: Path) -> tuple[subprocess.Popen, dict]:
    cmd = [sys.executable, "-m", "device.cli", "run", "--camera", "demo", "--gpio", "mock", "--host", "127.0.0.1",
           "--port", "8080", "--state-dir", str(state), "--json"]
    box = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    deadline = time.monotonic() + 90
    for line in box.stdout:
        if line.startswith("{") and json.loads(line).get("event") == "started":
            return box, json.loads(line)
        if time.monotonic() > deadline:
            break
    box.kill()
    raise SystemExit("the box did not start without a network: " + (box.stdout.read() if box.stdout else ""))


def crawl() -> tuple[dict[str, int], list[str]]:
    """Every file the page loads: its HTML's assets, the modules they import, every game's board (imported
    at run time from the address its description gives), the API the page reads at start and the join code; with their statuses, and any
    address elsewhere the page's files name."""
    status, html = get("/")
    seen: dict[str, int] = {"/": status}
    todo = [u for u in ASSET.findall(html.decode()) if u.startswith("/")]
    _, games = get("/api/games")
    boards = [g["board"] for g in json.loads(games)["games"]]
    todo += [url for board in boards for url in (board["js"], board["css"]) if url]
    todo += ["/api/state", "/api/session", "/healthz", "/join.svg"]
    foreign: list[str] = []
    while todo:
        path = todo.pop().split("?")[0]
        if path in seen:
            continue
        seen[path], body = get(path)
        text = body.decode("utf-8", "replace")
        foreign += [f"{path}: {m}" for m in FOREIGN.findall(text) if not m.startswith(NAMESPACES)
                    and path.endswith((".js", ".css", ".html", "/"))]
        if path.endswith(".js"):
            base = path.rsplit("/", 1)[0]
            todo += [posixpath.normpath(posixpath.join(base, rel)) for rel in IMPORT.findall(text)]
    return seen, foreign


def main() -> None:
    state = Path(sys.argv[1])
    report: dict = {"route_out": route_out()}
    box, started = start_box(state)
    try:
        report["started_urls"] = started["urls"]
        report["fetched"], report["foreign"] = crawl()
    finally:
        box.terminate()
        box.wait(20)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
