"""Helpers for the page's browser tests (a module with its own name, so test files can import it whatever
other conftest.py files exist): serve the app with waitress in-process, take screenshots."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "tests" / "webui") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests" / "webui"))

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SHOTS = ROOT / "test-artifacts" / "screenshots"
PHONE = {"width": 390, "height": 844}


@contextmanager
def serve(app, threads: int = 24, stop_app=None) -> Iterator[str]:
    """The app behind waitress on a free loopback port; yields the base URL. `stop_app(app)` ends its open
    streams at the end (default: the box's page's, webui.stop_streams)."""
    from waitress.server import create_server

    from webui import stop_streams

    server = create_server(app, host="127.0.0.1", port=0, threads=threads, channel_timeout=60,
                           ident="dicesight-test")
    stop = threading.Event()

    def loop() -> None:  # server.run() with a way out, so closing never races the select loop
        while not stop.is_set():
            server.asyncore.loop(timeout=0.1, map=server._map, count=1)

    thread = threading.Thread(target=loop, name="waitress-test", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        (stop_app or stop_streams)(app)  # ends open event streams at once
        time.sleep(0.7)
        stop.set()
        thread.join(timeout=5)
        server.close()


def shot(page, name: str, full: bool = False, at: str | None = None) -> Path:
    """What the phone shows (the 390x844 viewport), scrolled to `at`; full=True for the whole page.

    Screenshots are for people to look at, and cost about a tenth of a CPU second each (about 200 in the
    suite): `make test` turns them off with DICESIGHT_SCREENSHOTS=0; `make screenshots` takes them all."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    if os.environ.get("DICESIGHT_SCREENSHOTS", "1") == "0":
        return path
    page.evaluate("() => { const t = document.getElementById('toast'); if (t) t.hidden = true; }")
    if at:
        page.locator(at).first.scroll_into_view_if_needed()
        page.evaluate("sel => document.querySelector(sel).scrollIntoView({block: 'start'})", at)
        page.evaluate("window.scrollBy(0, -120)")
    page.screenshot(path=str(path), full_page=full)
    return path


CONFIRM_IF_SHOWN = """(want) => {
    // a die's number, or its face when the face has none (King of Tokyo's heart)
    const shown = [...document.querySelectorAll('#tray [data-value]')].map((d) => d.dataset.value || d.dataset.face || '');
    const key = (v) => v.map(String).sort().join();
    const button = document.getElementById('confirmbtn');
    if (!button || button.disabled || key(shown) !== key(want)) return false;
    button.click();
    return true;
}"""


def confirm_if_shown(page, values: list[int | str]) -> bool:
    """Tap "the dice are right" if, and only if, the page's tray shows exactly `values` (in any order): each
    die's number, or its face name when the face has no number.

    A player confirms what the page shows when they tap, so the test looks and taps in one task of the
    page: on a busy machine the demo tray's next throw can reach the page between a separate look and tap,
    and confirming that throw's unsure guesses would be the test's mistake, not the box's."""
    return bool(page.evaluate(CONFIRM_IF_SHOWN, values))


def get_state(url: str) -> dict:
    """The table's state as the shared screen reads it (`GET /api/state`, no phone's seat)."""
    with urllib.request.urlopen(url + "/api/state", timeout=5) as r:
        return json.load(r)


def wait_seq_above(page, seq: int) -> None:
    """Wait until the phone has drawn a snapshot newer than `seq` (the page keeps it as dicesight.snap)."""
    page.wait_for_function("s => window.dicesight && window.dicesight.snap && window.dicesight.snap.seq > s", arg=seq)


def tap_until_box_moves(button, box: str, seq: int, tries: int = 3, wait_s: float = 5.0) -> None:
    """Tap `button` until the box's state passes `seq`, as a player taps again when nothing happened. Why: on a
    loaded machine a snapshot arriving at that phone can redraw the button between the press and the release,
    and the tap is lost (a full run's King of Tokyo test once waited 15 s on a yield that was never sent)."""
    for _ in range(tries):
        button.click()
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if get_state(box)["seq"] > seq:
                return
            time.sleep(0.1)
        if not button.is_visible():
            break
    raise AssertionError(f"the box did not move past seq {seq} after {tries} taps")


def choose_game(page, game: str) -> None:
    """Pick `game` on the setup sheet and wait until the sheet has drawn its seats. Why: the sheet loads the
    game's board first, and a name typed into the old game's seat meanwhile is lost when the seats are redrawn
    (a fresh-clone CI's Mage Wars duel once started with "Player 1" where the test had typed "Ana")."""
    page.select_option("#s_game", game)
    page.locator(f"#setup[data-drawn='{game}']").wait_for(state="attached")


def pair_with_box(page, table) -> None:
    """Pair the phone as a player does: tap "Pair this phone", wait until the box holds the request (the page
    counts down), and press the box's Pair button (pressed earlier, it admits no one)."""
    page.locator("#live.on").wait_for()
    page.locator("#pair").click()
    page.wait_for_function("() => /\\d/.test(document.getElementById('pairmsg').textContent)")
    table.press("pair")
    page.locator("#pairbox").wait_for(state="hidden")


@contextmanager
def demo_box(state_dir: Path, seed: int, speed: float = 1.0) -> Iterator[str]:
    """`dicesight run --camera demo` in a child process, as a user starts it (mock pins, loopback, a free
    port); yields the base URL once the box says it started, and stops it afterwards."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "device.cli", "run", "--camera", "demo", "--gpio", "mock", "--host", "127.0.0.1",
           "--port", str(port), "--state-dir", str(state_dir), "--demo-seed", str(seed), "--demo-speed", str(speed),
           "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    started = threading.Event()
    output: list[str] = []

    def pump() -> None:
        for line in proc.stdout:
            output.append(line)
            if line.startswith("{") and json.loads(line).get("event") == "started":
                started.set()

    threading.Thread(target=pump, daemon=True).start()
    if not started.wait(60):
        proc.kill()
        raise AssertionError("dicesight run did not start:\n" + "".join(output))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
