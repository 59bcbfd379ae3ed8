"""The box on a venue's MQTT broker: its table's public state, its events and whether it is online.

Topics (docs/venue.md), under `mqtt.topic_prefix` (default `dicesight`) and the box's name:
- `<prefix>/<box>/status`: "online" (retained) once connected; "offline" when the box stops, and as its last
  will when it vanishes (the broker says it for the box, `mqtt.keepalive_s` x 1.5 later at most);
- `<prefix>/<box>/state`: retained JSON `{"box", "name", "board", "snapshot"}`: the snapshot a watcher with no
  seat gets (the shared screen's view: never a hidden die) and the table at a glance (webui.scoreboard);
- `<prefix>/<box>/events`: JSON per event (roll, damage, winners, a new game), not retained;
- `<prefix>/<box>/photo`: only with `mqtt.share_photos`: retained JSON `{"box", "game_id", "seq", "width",
  "height", "jpeg"}`, a thumbnail (base64 JPEG, at most THUMB_PX long) of the last roll's photo, when the shared
  screen may see that photo (Table.photo(name, None): never a hidden throw's) and the roll has one.
All at QoS 1.

Why its own thread, and paho's: nothing about the broker may stop or slow a game. The table only hands each
change to a subscription queue (device.broadcaster), which never blocks; this module's thread turns changes
into messages, and paho's network thread connects, reconnects (1 to 10 s apart) and sends. While the broker is
away, nothing is queued but the latest state: events of that time are dropped (counted; a Home Assistant
flashing the lights for a hit ten minutes late is worse than not at all), and the state is sent when the
broker is back.
"""

from __future__ import annotations

import base64
import json
import logging
import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.core import IllegalAction
from webui.scoreboard import board, events

from .config import BOX_ID, Broker, ConfigError, MqttConfig, parse_broker

log = logging.getLogger("dicesight.mqtt")

QOS = 1
QUEUE = 256  # changes the publisher may fall behind before the oldest are dropped (their events with them)
PAHO_QUEUE = 64  # messages paho may hold unsent while connected (a slow broker): beyond, dropped and counted
CONNECT_TIMEOUT_S = 5.0
CLOSE_WAIT_S = 1.0  # how long a stopping box waits for its "offline" to reach the broker
THUMB_PX = 160  # a shared photo's longest side: enough to recognise the dice on a board, a few KB
THUMB_QUALITY = 70


@dataclass(frozen=True)
class MqttSettings:
    """Where and who: the broker, this box's name in topics and on the board, the credentials."""

    broker: Broker
    box: str
    name: str
    username: str | None = None
    password: str | None = None
    ca_file: str | None = None
    prefix: str = "dicesight"
    keepalive_s: int = 10
    share_photos: bool = False

    def topic(self, kind: str, box: str | None = None) -> str:
        """`<prefix>/<box>/<kind>` (kind: state, events, status, photo; box "+" for every box)."""
        return f"{self.prefix}/{box or self.box}/{kind}"

    @classmethod
    def from_config(cls, cfg: MqttConfig) -> MqttSettings | None:
        """The settings of `[mqtt]`, None when no broker is named. The password file is read here, at start,
        so a missing one stops the start naming its key (ConfigError) rather than failing on the broker."""
        if not cfg.broker:
            return None
        box = cfg.box or box_from_hostname(socket.gethostname())
        return cls(broker=parse_broker(cfg.broker), box=box, name=cfg.name or box,
                   username=cfg.username or None, password=_password(cfg), ca_file=cfg.ca_file or None,
                   prefix=cfg.topic_prefix, keepalive_s=cfg.keepalive_s, share_photos=cfg.share_photos)


def box_from_hostname(hostname: str) -> str:
    """A box name for topics from the machine's hostname: its first label, other characters as "-"."""
    label = hostname.split(".")[0] or "dicesight"
    name = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "-" for c in label)[:64]
    return name if BOX_ID.match(name) else "dicesight"


def _password(cfg: MqttConfig) -> str | None:
    if not cfg.password_file:
        return cfg.password or None
    try:
        lines = Path(cfg.password_file).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError("mqtt.password_file", f"{cfg.password_file} cannot be read: {exc}") from None
    return lines[0] if lines else ""


def make_client(client_id: str, settings: MqttSettings, will: tuple[str, bytes] | None = None):
    """A paho client set up from `settings`: MQTT 3.1.1, credentials, TLS for mqtts:// (the broker's name
    checked against its certificate), reconnects 1 to 10 s apart, `will` = (topic, payload) retained."""
    import paho.mqtt.client as mqtt  # only a box or venue that uses a broker pays for importing it

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311)
    if settings.username is not None:
        client.username_pw_set(settings.username, settings.password)
    if settings.broker.tls:
        client.tls_set(ca_certs=settings.ca_file)
    client.reconnect_delay_set(min_delay=1, max_delay=10)
    client.connect_timeout = CONNECT_TIMEOUT_S
    if will is not None:
        client.will_set(will[0], will[1], qos=QOS, retain=True)
    return client


class _Reconnected:
    """Queued by paho's thread when the broker (re)accepts the box: the publisher's thread then says "online"
    and sends the latest state, in order with every other message."""


class _Resend:
    """Queued a moment after a reconnect: the latest state again. paho sends what it still held from before
    the broker went away (in flight, or handed over just as the connection dropped) after the box's first
    messages of the new connection, so the broker may have kept an older state: this puts the newest back."""


RECONNECTED = _Reconnected()
RESEND = _Resend()
RESEND_AFTER_S = 1.0
STOP = object()


class TablePublisher:
    """The table's public state, events and status on the broker (see the module doc)."""

    def __init__(self, table: Any, settings: MqttSettings) -> None:
        self.settings = settings
        self._table = table
        self._sub: Any = None
        self._client = make_client(f"dicesight-{settings.box}", settings,
                                   will=(settings.topic("status"), b"offline"))
        self._client.max_queued_messages_set(PAHO_QUEUE)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._connected = threading.Event()
        self._thread: threading.Thread | None = None
        self._board: dict[str, Any] | None = None
        self._state: bytes | None = None  # the latest state message, sent on (re)connect
        self._sent: bytes | None = None  # the state last handed to paho while connected
        self._photo: bytes | None = None  # the latest photo message (share_photos), sent again on (re)connect
        self._photo_key: tuple[Any, ...] | None = None  # (game_id, seq, image) of the roll last decided on
        self.counts = {"states": 0, "events": 0, "dropped": 0, "connects": 0}
        self.error: str | None = None

    # -- lifecycle ------------------------------------------------------------------------------------
    def start(self) -> None:
        """Subscribe to the table and start connecting (in paho's thread: a broker that is away, or a name
        that does not resolve, costs the box nothing but retries)."""
        self._sub = self._table.broadcaster.subscribe(maxsize=QUEUE)
        latest = self._table.broadcaster.latest
        if latest is not None:
            self._sub.put(latest)
        self._thread = threading.Thread(target=self._run, name="mqtt", daemon=True)
        self._thread.start()
        b = self.settings.broker
        self._client.connect_async(b.host, b.port, keepalive=self.settings.keepalive_s)
        self._client.loop_start()

    def close(self) -> None:
        """Say "offline" (when connected) and disconnect; bounded in time whatever the broker does."""
        if self._sub is not None:
            self._sub.put(STOP)
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        if self._connected.is_set():
            info = self._client.publish(self.settings.topic("status"), b"offline", qos=QOS, retain=True)
            try:
                info.wait_for_publish(timeout=CLOSE_WAIT_S)
            except (RuntimeError, ValueError):  # the connection went meanwhile: the will says it
                pass
        self._client.disconnect()
        stopper = threading.Thread(target=self._client.loop_stop, name="mqtt-stop", daemon=True)
        stopper.start()
        stopper.join(timeout=CONNECT_TIMEOUT_S)
        if self._sub is not None:
            self._sub.close()

    def status(self) -> dict[str, Any]:
        """For /healthz: where, whether connected, what was sent and dropped. Never makes the box unhealthy."""
        return {"broker": self.settings.broker.url(), "box": self.settings.box,
                "connected": self._connected.is_set(), "error": self.error, **self.counts}

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    # -- paho's thread ----------------------------------------------------------------------------------
    def _on_connect(self, _client, _userdata, _flags, reason_code, _properties) -> None:
        if reason_code.is_failure:
            self.error = f"The broker refused the box: {reason_code}"
            log.warning("mqtt: %s", self.error)
            return
        self.error = None
        self.counts["connects"] += 1
        self._connected.set()
        self._sub.put(RECONNECTED)

    def _on_disconnect(self, _client, _userdata, _flags, reason_code, _properties) -> None:
        was = self._connected.is_set()
        self._connected.clear()
        if was and reason_code.is_failure:  # (a refusal keeps its own message)
            self.error = f"The broker is away ({reason_code}); the box plays on and retries."
            log.info("mqtt: %s", self.error)

    # -- the publisher's thread -----------------------------------------------------------------------
    def _run(self) -> None:
        """Turn each change into messages until closed; a fault is logged and the next change goes on."""
        while True:
            item = self._sub.get_update(timeout=5.0)
            if item is STOP:
                return
            if item is None:
                continue
            try:
                self._handle(item)
            except Exception as exc:  # noqa: BLE001 - the publisher must outlive any one bad change
                log.exception("mqtt: a change could not be published")
                self.error = f"A change could not be published: {exc}"

    def _handle(self, item: Any) -> None:
        if item is RECONNECTED or item is RESEND:
            self._reconnected(item is RECONNECTED)
            return
        snap = item.snapshot  # the table publishes the shared screen's view (Table.snapshot(None)): no secret
        now = board(snap)
        said, self._board = events(self._board, now), now
        self._state = self._encode({"box": self.settings.box, "name": self.settings.name, "board": now,
                                    "snapshot": snap})
        photo = self._photo_message(snap) if self.settings.share_photos else None
        if photo is not None:
            self._photo = photo
        if not self._connected.is_set():
            self.counts["dropped"] += len(said)
            return
        if photo is not None:  # before the state naming its roll: a board that has the state has the photo
            self._send(self.settings.topic("photo"), photo)
        for event in said:
            self._send(self.settings.topic("events"), self._encode(
                {"box": self.settings.box, "game": now["game"], "game_id": now["game_id"], "seq": now["seq"],
                 **event}), retain=False)
            self.counts["events"] += 1
        if self._state != self._sent:
            self._send_state(self._state)

    def _reconnected(self, first: bool) -> None:
        """After a (re)connect: "online" (first) and the latest state and photo. With share_photos off, an
        empty retained photo: it takes back a photo shared before the option was turned off."""
        if first:
            self._send(self.settings.topic("status"), b"online")
            if not self.settings.share_photos:
                self._send(self.settings.topic("photo"), b"")
            timer = threading.Timer(RESEND_AFTER_S, self._sub.put, (RESEND,))
            timer.daemon = True
            timer.start()
        if not self._connected.is_set():
            return
        if self._photo is not None:
            self._send(self.settings.topic("photo"), self._photo)
        if self._state is not None:
            self._send_state(self._state)

    def _photo_message(self, snap: dict[str, Any]) -> bytes | None:
        """The photo message of the snapshot's last roll when that roll is new here, has a photo and the shared
        screen may see it (the table's one decision, Table.photo(name, None)); None otherwise. A photo hidden
        now is asked about again at the next change: once revealed it is everyone's, and shared then."""
        found = last_roll_image(snap)
        if found is None:
            return None
        key = (snap.get("game_id"), *found)
        if key == self._photo_key:
            return None
        try:
            path = self._table.photo(found[1], None)
        except IllegalAction:
            return None
        self._photo_key = key
        thumb = thumbnail(path) if path is not None else None
        if thumb is None:
            return None
        jpeg, width, height = thumb
        return self._encode({"box": self.settings.box, "game_id": key[0], "seq": found[0], "width": width,
                             "height": height, "jpeg": base64.b64encode(jpeg).decode("ascii")})

    def _send_state(self, payload: bytes) -> None:
        if self._send(self.settings.topic("state"), payload):
            self._sent = payload
            self.counts["states"] += 1

    def _send(self, topic: str, payload: bytes, retain: bool = True) -> bool:
        """Hand one message to paho (it never blocks: paho's thread sends it); False when paho's queue is full
        and the message was dropped."""
        info = self._client.publish(topic, payload, qos=QOS, retain=retain)
        if info.rc not in (0, 4):  # 4: the connection dropped just now; paho sends it on the next one
            self.counts["dropped"] += 1
            return False
        return True

    @staticmethod
    def _encode(data: dict[str, Any]) -> bytes:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def last_roll_image(snap: dict[str, Any]) -> tuple[int, str] | None:
    """(seq, kept photo's name) of the newest roll in the snapshot's log tail; None when that roll has no
    photo (typed in, the box's own dice) or the tail holds no roll."""
    for entry in reversed(snap.get("log") or []):
        action = entry.get("action") if isinstance(entry, dict) else None
        if not isinstance(action, dict) or action.get("type") != "roll":
            continue
        image, seq = action.get("image"), entry.get("seq")
        return (seq, image) if isinstance(image, str) and image and isinstance(seq, int) else None
    return None


def thumbnail(path: Path) -> tuple[bytes, int, int] | None:
    """(JPEG, width, height) of the photo at most THUMB_PX long; None when it cannot be read. Re-encoded from
    pixels, so nothing of the kept file but its picture (no metadata) leaves the box."""
    import cv2  # only a box that shares photos pays for it here (the camera has it loaded anyway)

    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        return None
    height, width = image.shape[:2]
    scale = THUMB_PX / max(height, width)
    if scale < 1:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, THUMB_QUALITY])
    return (buf.tobytes(), image.shape[1], image.shape[0]) if ok else None
