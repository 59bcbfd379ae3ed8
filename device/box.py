"""`dicesight run`: put the box together (store, camera, panel, table, web server) and keep it going.

The main thread owns the lifecycle: it serves the page through waitress in a worker thread (sized and
limited by device.webserver), feeds the systemd watchdog while the page's server answers requests, and shuts everything down cleanly on SIGTERM, on Ctrl-C or
when the Pair button is held for five seconds.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import threading
from dataclasses import dataclass
from pathlib import Path

from webui import create_app, server_message, set_join, stop_streams
from webui.joincode import JoinInfo

from . import camera as cameras
from . import dice_sets, sdnotify
from .camera.supervisor import SupervisedSource, detect_auto
from .config import (
    Config,
    apply_overrides,
    check_dice_set,
    load_config,
    load_dice_files,
    prepare_state_dir,
    resolve_state_dir,
)
from .joincard import lan_addresses, make_card
from .pairing import Pairing
from .panel import SHUTDOWN_EXIT_STATUS, Panel
from .store import Store
from .table import Table
from .webserver import ServerLimits, answers, make_server

log = logging.getLogger("dicesight")

TEACH_STORE = "teaching"  # the free roll of a `dicesight teach` session, under the state directory
SHUTDOWN_GRACE_S = 3.0  # how long the page's workers get to end their event streams at shutdown


@dataclass
class BoxOptions:
    """What `dicesight run` was asked for; None means "from the config file"."""

    camera: str | None = None
    gpio: str | None = None
    host: str | None = None
    port: int | None = None
    config: Path | None = None
    state_dir: Path | None = None
    demo_seed: int = 1
    demo_speed: float = 1.0  # the demo tray's time runs this many times faster (browser tests)
    demo_throw: str = "ask"  # the demo tray throws when asked ("ask"), or every few seconds ("auto": benches)
    teach: str | None = None  # `dicesight teach SET`: the dice set being taught (see teach_phone)
    mount: str | None = None
    dice_files: tuple[str, ...] = ()  # `dicesight teach FILE.json`: read with the config's camera.dice_files


def state_dir_for(explicit: Path | None, configured: Path | None) -> Path:
    """--state-dir, else the config's, else $STATE_DIRECTORY (systemd), else ./state; created if new
    (ConfigError("state_dir") when it cannot be used)."""
    return prepare_state_dir(resolve_state_dir(explicit or configured))


def build(options: BoxOptions):
    """The table, the web app and the config, from the options and the config file (no threads started).

    Everything is checked before anything starts (ConfigError names the key): the command-line options
    go through the same checks as the file, the state folder must be writable, and the dice set must be
    one this box can read (else the camera would fail on every frame all night)."""
    config = apply_overrides(load_config(options.config), camera=options.camera, gpio=options.gpio,
                             host=options.host, port=options.port, state_dir=options.state_dir,
                             mount=options.mount, dice=options.teach, dice_files=options.dice_files)
    state_dir = prepare_state_dir(resolve_state_dir(config.state_dir))
    dice_sets.use_files(load_dice_files(config))  # a table's own dice win over the games' descriptions
    check_dice_set(config, known_dice_sets())
    if options.teach:
        # teaching rolls go to a free roll of their own: the box's games are not touched; what is learnt
        # goes where `dicesight run` finds it (STATE_DIR/learnt)
        lesson = state_dir / TEACH_STORE
        shutil.rmtree(lesson, ignore_errors=True)
        store = Store(lesson)
    else:
        store = Store(state_dir)
    spec = config.camera.source
    name = spec
    if spec == "auto":
        found = detect_auto()
        # The demo only when there is no camera at all; a real camera stays "auto" so the supervisor
        # looks again at each reconnect (a webcam plugged in later is found).
        spec, name = ("demo", "demo") if found == "demo" else ("auto", f"auto ({found})")
        log.info("camera auto: using %s", found)
    try:
        if spec == "demo":
            source = cameras.open_source("demo", seed=options.demo_seed, mount=config.camera.mount,
                                         speed=options.demo_speed, throw=options.demo_throw)
        else:
            source = _supervised(spec, name, config.camera.size)
    except cameras.CameraError as err:
        log.error("camera %s: %s; starting without a camera (dice by hand)", spec, err)
        source = None
    table = Table(store, camera=source, dice_set=config.camera.dice, mount=config.camera.mount,
                  settle_s=config.camera.settle_s,
                  pairing=_pairing(state_dir), taught_root=state_dir, learnt_root=state_dir)
    table.tray.always_confirm = bool(options.teach)
    panel = Panel(config.gpio, pin_factory=config.gpio.pin_factory,
                  on_next=table.next, on_undo=table.undo, on_pair=table.approve_pairing,
                  on_shutdown=table.shutdown_requested.set)
    table.panel = panel
    if spec == "demo" and source is not None:
        source.follow = table.tray_request  # throw the dice the game waits for
        source.follow_sets = table.tray_sets
        source.follow_colours = table.tray_colours
    table.mqtt = _publisher(table, config)
    app = create_app(table, secret_key=_secret(state_dir), host_names=config.web.names,
                     max_streams=config.web.max_streams, streams_per_address=config.web.streams_per_address,
                     allow_seed=config.web.allow_seed)
    return table, app, config


def _publisher(table: Table, config):
    """The venue publisher when the config names a broker (device.mqtt), else None; not started yet."""
    if not config.mqtt.broker:
        return None
    from .mqtt import MqttSettings, TablePublisher  # paho is imported only by boxes that publish

    settings = MqttSettings.from_config(config.mqtt)
    log.info("mqtt: publishing the table to %s as %s", settings.broker.url(), settings.box)
    return TablePublisher(table, settings)


def known_dice_sets() -> set[str]:
    """Dice sets this box can hand the reader: those the registered games describe, and the pip d6
    (faces taught with `dicesight teach` refine one of these sets)."""
    return set(dice_sets.ids())


def join_info(config: Config, port: int) -> JoinInfo:
    """What the page's "Show join code" may show: the address the join card prints, and the hotspot only
    where the config says phones may see its password (hotspot.show_on_page)."""
    card = make_card(config, port=port)
    shown = config.hotspot.enabled and config.hotspot.show_on_page
    return JoinInfo(url=card.url, ssid=card.ssid if shown else None, password=card.password if shown else None)


def _supervised(spec: str, name: str, size: tuple[int, int] | None = None):
    return SupervisedSource(lambda: cameras.open_source(spec, size=size), name=name)


def _pairing(state_dir: Path):
    return Pairing(state_dir / "tokens.json")


def _secret(state_dir: Path) -> str:
    """A per-box secret for signed cookies, kept in the state directory across restarts."""
    path = state_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    secret = os.urandom(32).hex()
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secret)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return secret


def run(options: BoxOptions, announce=print, *, stop: threading.Event | None = None,
        on_started=None) -> int:
    """Start the box and block until asked to stop (SIGTERM, Ctrl-C, `stop`, or Pair held).

    Returns the exit code: 0, or SHUTDOWN_EXIT_STATUS when Pair was held (the unit then powers off).
    `on_started(table)` is called once the page is served (tests use it to reach the panel).
    """
    table, app, config = build(options)
    web_config = config.web
    host, port = web_config.host, web_config.port
    limits = ServerLimits(max_streams=web_config.max_streams, streams_per_address=web_config.streams_per_address,
                          request_threads=web_config.request_threads)
    server = make_server(app, host, port, limits, describe=lambda status, headers: server_message(
        app, status, headers))
    actual_port = server.effective_port
    set_join(app, join_info(config, int(actual_port)))  # waitress may give the port as text
    table.start()
    if table.mqtt is not None:
        table.mqtt.start()
    web = threading.Thread(target=server.run, name="web", daemon=True)
    web.start()
    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda _signum, _frame: stop.set())
    exit_code = 0
    urls = [f"http://127.0.0.1:{actual_port}"]
    if host in ("0.0.0.0", ""):
        urls += [f"http://{a}:{actual_port}" for a in lan_addresses()]
    announce({"event": "started", "urls": urls, "port": actual_port, "camera": table.snapshot()["camera"],
              "game": table.match.rules.name, "seq": table.match.seq})
    sdnotify.notify("READY=1", f"STATUS=Serving on port {actual_port}")
    if on_started is not None:
        on_started(table)
    interval = sdnotify.watchdog_interval()
    tick = min(interval / 2, 1.0) if interval else 1.0
    try:
        while not stop.wait(tick):
            if table.shutdown_requested.is_set():
                # The unit powers the Pi off on this status (systemd/dicesight.service).
                announce({"event": "shutdown", "reason": "pair button held"})
                exit_code = SHUTDOWN_EXIT_STATUS
                break
            # Fed only when the page's server answers a real request: a live thread that answers
            # nobody (every worker stuck) must let systemd restart the box.
            if interval and web.is_alive() and answers(host, actual_port, timeout=min(interval / 2, 5.0)):
                sdnotify.notify("WATCHDOG=1")
    finally:
        sdnotify.notify("STOPPING=1")
        stop_streams(app)  # open event streams end within half a second, so the close below is quick
        # Let the workers finish those streams before the server's wake-up pipe closes: a worker that
        # ends a stream after `close` writes to a closed fd (an EBADF traceback per stream, issue 11 #10).
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=SHUTDOWN_GRACE_S)
        server.close()
        if table.mqtt is not None:
            table.mqtt.close()  # says "offline" to the venue; bounded in time whatever the broker does
        table.close()
        announce({"event": "stopped"})
    return exit_code
