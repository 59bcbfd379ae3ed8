"""`dicesight venue --broker URL`: every table of a venue on one board, as the boxes tell the broker.

Why a board of its own, fed by the broker and not by asking each box: a café with ten boxes, or a tournament
screen, wants every table at once, and the broker already carries the fan-out (device/mqtt.py publishes each
box's public state, events and status). The venue keeps only what the boxes last said (`Board`), sends each
change to its pages (webui/venue.py: server-sent events, as the box's own page), and trusts nothing it receives:
any client of the broker may publish anything, so payloads are size-capped, parsed defensively, box names
checked, the number of tables bounded, and the page writes every word as text (never as HTML).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import logging
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webui.scoreboard import board as scoreboard

from .config import BOX_ID, Config, ConfigError, MqttConfig, config_from_dict, config_to_dict, load_config
from .mqtt import QOS, MqttSettings, make_client

log = logging.getLogger("dicesight.venue")

MAX_PAYLOAD = 256 * 1024  # a box's state is a few KB; anything this big is not one
MAX_TABLES = 500
RECENT_EVENTS = 3  # per table, newest first: what the board shows beside the table
NAME_CHARS = 80
WATCH_QUEUE = 256  # changes a page may fall behind before it is sent the whole board instead
STATUSES = ("online", "offline")
KINDS = ("status", "state", "events", "photo")
MAX_PHOTO = 64 * 1024  # a box's thumbnail is a few KB (device.mqtt.THUMB_PX); the JPEG's bytes, decoded
PHOTO_SIDE = 1024  # the largest width or height the page is told to draw


@dataclass(frozen=True)
class Photo:
    """A box's latest shared thumbnail: the roll it shows (game and move) and the JPEG, checked as one."""

    game_id: int | None
    seq: int
    width: int | None
    height: int | None
    jpeg: bytes

    @property
    def tag(self) -> str:
        """Names these bytes in the page's URL: a new photo is a new address, so a cached one is never stale."""
        return hashlib.sha256(self.jpeg).hexdigest()[:16]

    def shows(self, board: dict[str, Any] | None) -> bool:
        """Is this the photo of the roll the board shows (same game, same move)? Else it is not shown."""
        roll = (board or {}).get("last_roll") or {}
        return (board or {}).get("game_id") == self.game_id and roll.get("seq") == self.seq


class Watcher:
    """One page's queue of changed tables (box names, None for the broker's own status). When it falls too far
    behind, `lost` is set and the page is sent the whole board: nothing is skipped silently."""

    def __init__(self, board: Board) -> None:
        self.queue: queue.Queue[tuple[int, str | None]] = queue.Queue(WATCH_QUEUE)
        self.lost = False
        self._board = board

    def put(self, version: int, box: str | None) -> None:
        try:
            self.queue.put_nowait((version, box))
        except queue.Full:
            self.lost = True

    def changes(self, timeout: float) -> tuple[int, set[str | None]] | None:
        """(newest version, the boxes changed since the last call) after waiting at most `timeout` seconds for
        the first; None when nothing changed. Several changes of one table become one."""
        try:
            version, box = self.queue.get(timeout=timeout)
        except queue.Empty:
            return None
        boxes = {box}
        while True:
            try:
                version, box = self.queue.get_nowait()
            except queue.Empty:
                return version, boxes
            boxes.add(box)

    def close(self) -> None:
        self._board.unwatch(self)


class Board:
    """What every box last said: its status, its table at a glance, its latest events. Thread-safe: paho's
    thread writes, the pages' threads read."""

    def __init__(self, prefix: str = "dicesight", broker_url: str = "", clock: Callable[[], float] = time.time):
        self.prefix = prefix
        self._clock = clock
        self._lock = threading.Lock()
        self._tables: dict[str, dict[str, Any]] = {}
        self._photos: dict[str, Photo] = {}
        self._broker: dict[str, Any] = {"url": broker_url, "connected": False, "error": None}
        self._version = 0
        self._watchers: set[Watcher] = set()

    # -- what the broker says ----------------------------------------------------------------------------
    def receive(self, topic: str, payload: bytes) -> bool:
        """Take one message of `<prefix>/<box>/<kind>`; False when it was not one the board can use."""
        box, kind = self._split(topic)
        if box is None or len(payload) > MAX_PAYLOAD:
            return False
        with self._lock:
            table = self._tables.get(box)
            if table is None:
                if not payload or len(self._tables) >= MAX_TABLES:
                    return False
                table = self._tables[box] = {"box": box, "name": box, "status": "unknown", "since": None,
                                             "updated": None, "board": None, "events": []}
            taken = {"status": self._status, "state": self._state, "events": self._event,
                     "photo": self._photo}[kind](table, payload)
            if taken:
                self._changed(box)
            return taken

    def _split(self, topic: str) -> tuple[str | None, str]:
        rest = topic[len(self.prefix) + 1:] if topic.startswith(self.prefix + "/") else ""
        parts = rest.split("/")
        if len(parts) != 2 or not BOX_ID.match(parts[0]) or parts[1] not in KINDS:
            return None, ""
        return parts[0], parts[1]

    def _status(self, table: dict[str, Any], payload: bytes) -> bool:
        word = payload.decode("ascii", "replace").strip()
        if word not in STATUSES:
            return False
        if word != table["status"]:
            table["status"], table["since"] = word, self._clock()
        return True

    def _state(self, table: dict[str, Any], payload: bytes) -> bool:
        data = _json(payload)
        if not isinstance(data, dict):
            return False
        now = data.get("board")
        if not isinstance(now, dict):  # a box that sends only its snapshot: read it here
            snap = data.get("snapshot")
            if not isinstance(snap, dict):
                return False
            now = scoreboard(snap)
        old = table["board"]
        if now.get("last_roll") is None and old and old.get("game_id") == now.get("game_id"):
            now = {**now, "last_roll": old.get("last_roll")}  # a roll that left the log's tail stays shown
        name = data.get("name")
        table["name"] = name[:NAME_CHARS] if isinstance(name, str) and name.strip() else table["box"]
        table["board"], table["updated"] = now, self._clock()
        return True

    def _event(self, table: dict[str, Any], payload: bytes) -> bool:
        data = _json(payload)
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            return False
        table["events"] = [data, *table["events"]][:RECENT_EVENTS]
        return True

    def _photo(self, table: dict[str, Any], payload: bytes) -> bool:
        """A box's thumbnail; an empty message (the box took its photo back) forgets it."""
        if not payload:
            return self._photos.pop(table["box"], None) is not None
        photo = _photo(_json(payload))
        if photo is None:
            return False
        self._photos[table["box"]] = photo
        return True

    def set_broker(self, connected: bool, error: str | None = None) -> None:
        with self._lock:
            self._broker.update(connected=connected, error=error)
            self._changed(None)

    # -- what the pages get -----------------------------------------------------------------------------
    def _changed(self, box: str | None) -> None:
        self._version += 1
        for watcher in list(self._watchers):
            watcher.put(self._version, box)

    def watch(self) -> Watcher:
        watcher = Watcher(self)
        with self._lock:
            self._watchers.add(watcher)
        return watcher

    def unwatch(self, watcher: Watcher) -> None:
        with self._lock:
            self._watchers.discard(watcher)

    def view(self) -> dict[str, Any]:
        """The whole board: every table (by name), the broker's status, the version (`seq`)."""
        with self._lock:
            tables = sorted(self._tables.values(), key=lambda t: (t["name"].lower(), t["box"]))
            return {"seq": self._version, "broker": dict(self._broker), "now": self._clock(),
                    "tables": [self._row(t) for t in tables]}

    def table(self, box: str) -> dict[str, Any] | None:
        with self._lock:
            found = self._tables.get(box)
            return self._row(found) if found is not None else None

    def _row(self, table: dict[str, Any]) -> dict[str, Any]:
        """A table for the pages: `photo` ({seq, width, height, tag}) only while it shows the roll on the
        board; a photo of an earlier roll (or game) is kept until its roll's comes, but not shown."""
        photo = self._photos.get(table["box"])
        shown = photo is not None and photo.shows(table["board"])
        return {**table, "photo": {"seq": photo.seq, "width": photo.width, "height": photo.height,
                                   "tag": photo.tag} if shown else None}

    def photo(self, box: str) -> Photo | None:
        """The box's thumbnail, only while it shows the roll its table shows."""
        with self._lock:
            found, table = self._photos.get(box), self._tables.get(box)
            return found if found is not None and table is not None and found.shows(table["board"]) else None

    def broker(self) -> dict[str, Any]:
        with self._lock:
            return dict(self._broker)


def _photo(data: Any) -> Photo | None:
    """A photo message as device.mqtt sends it, or None: seq a whole number, game_id one or null, the JPEG
    base64 of at most MAX_PHOTO bytes that starts as a JPEG does (the page is served it as image/jpeg)."""
    if not isinstance(data, dict) or not isinstance(data.get("jpeg"), str):
        return None
    seq, game_id = data.get("seq"), data.get("game_id")
    if not _whole(seq) or not (game_id is None or _whole(game_id)):
        return None
    if len(data["jpeg"]) > MAX_PHOTO * 4 // 3 + 4:
        return None
    try:
        jpeg = base64.b64decode(data["jpeg"], validate=True)
    except (binascii.Error, ValueError):
        return None
    if not jpeg.startswith(b"\xff\xd8\xff") or len(jpeg) > MAX_PHOTO:
        return None
    width, height = (v if _whole(v) and 0 < v <= PHOTO_SIDE else None for v in (data.get("width"), data.get("height")))
    return Photo(game_id=game_id, seq=seq, width=width, height=height, jpeg=jpeg)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _json(payload: bytes) -> Any:
    try:
        return json.loads(payload)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


# -- the broker connection ---------------------------------------------------------------------------------
class VenueClient:
    """The venue's subscription: every box's status, state and events into the Board (paho's thread),
    resubscribing after each reconnect; the broker's own state shown on the board."""

    def __init__(self, board: Board, settings: MqttSettings) -> None:
        self.board = board
        self.settings = settings
        self._client = make_client(f"dicesight-venue-{secrets.token_hex(4)}", settings)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message

    def start(self) -> None:
        b = self.settings.broker
        self._client.connect_async(b.host, b.port, keepalive=self.settings.keepalive_s)
        self._client.loop_start()

    def close(self) -> None:
        self._client.disconnect()
        stopper = threading.Thread(target=self._client.loop_stop, name="venue-mqtt-stop", daemon=True)
        stopper.start()
        stopper.join(timeout=5.0)

    def _on_connect(self, client, _userdata, _flags, reason_code, _properties) -> None:
        if reason_code.is_failure:
            self.board.set_broker(False, f"The broker refused the venue: {reason_code}")
            return
        for kind in KINDS:
            client.subscribe(self.settings.topic(kind, box="+"), qos=QOS)
        self.board.set_broker(True)

    def _on_disconnect(self, _client, _userdata, _flags, reason_code, _properties) -> None:
        if self.board.broker().get("connected"):
            self.board.set_broker(False, f"The broker is away ({reason_code}); retrying.")

    def _on_message(self, _client, _userdata, message) -> None:
        try:
            self.board.receive(message.topic, bytes(message.payload))
        except Exception:  # noqa: BLE001 - one bad message must not end paho's loop (and the board with it)
            log.exception("venue: a message on %s could not be taken", message.topic)


# -- the command ---------------------------------------------------------------------------------------
@dataclass
class VenueOptions:
    """What `dicesight venue` was asked for; None means "from the config's [mqtt]"."""

    broker: str | None = None
    host: str = "0.0.0.0"
    port: int = 8081
    prefix: str | None = None
    username: str | None = None
    password_file: str | None = None
    ca_file: str | None = None
    config: Path | None = None


def settings_for(options: VenueOptions) -> MqttSettings:
    """The broker and credentials: the options over the config's `[mqtt]`, checked as the config is
    (ConfigError naming the key; "--broker" when no broker is named anywhere)."""
    cfg = load_config(options.config).mqtt if options.config else MqttConfig()
    wanted = {**config_to_dict(Config(mqtt=cfg))["mqtt"], "box": "venue", "name": "venue"}
    for key, value in (("broker", options.broker), ("topic_prefix", options.prefix),
                       ("username", options.username), ("ca_file", options.ca_file)):
        if value is not None:
            wanted[key] = value
    if options.password_file is not None:
        wanted.update(password_file=options.password_file, password="")
    if not wanted["broker"]:
        raise ConfigError("--broker", "name the broker: dicesight venue --broker mqtt://HOST")
    return MqttSettings.from_config(config_from_dict({"mqtt": wanted}).mqtt)


def run(options: VenueOptions, announce: Callable[[dict], None] = print, *,
        stop: threading.Event | None = None, on_started: Callable[[Board, int], None] | None = None) -> int:
    """Serve the venue board until asked to stop (SIGTERM, Ctrl-C or `stop`)."""
    import signal

    from webui.venue import create_venue_app, stop_venue_streams

    from .box import lan_addresses
    from .webserver import ServerLimits, make_server

    settings = settings_for(options)
    board = Board(settings.prefix, settings.broker.url())
    client = VenueClient(board, settings)
    app = create_venue_app(board)
    server = make_server(app, options.host, options.port, ServerLimits(max_streams=60, streams_per_address=60,
                                                                      request_threads=8))
    port = server.effective_port
    web = threading.Thread(target=server.run, name="venue-web", daemon=True)
    web.start()
    client.start()
    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda _signum, _frame: stop.set())
    urls = [f"http://127.0.0.1:{port}"]
    if options.host in ("0.0.0.0", ""):
        urls += [f"http://{a}:{port}" for a in lan_addresses()]
    announce({"event": "venue", "urls": urls, "port": port, "broker": settings.broker.url(),
              "prefix": settings.prefix})
    if on_started is not None:
        on_started(board, port)
    try:
        stop.wait()
    finally:
        stop_venue_streams(app)
        client.close()
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=3.0)
        server.close()
        announce({"event": "stopped"})
    return 0
