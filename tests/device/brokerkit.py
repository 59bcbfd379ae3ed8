"""A real MQTT broker for the venue tests: Debian's mosquitto, started by the test on a free loopback port with
a temporary config (never the system service), optionally with a password file; and a listening client that
keeps every message it receives, byte for byte."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(check: Callable[[], Any], timeout: float = 10.0, every: float = 0.02) -> Any:
    """Poll `check` until it returns something true (returned), else fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {check}")
        time.sleep(every)


class Mosquitto:
    """One mosquitto process on 127.0.0.1:`port`; `users` = {name: password} turns anonymous access off."""

    def __init__(self, folder: Path, users: dict[str, str] | None = None) -> None:
        if not os.path.exists(MOSQUITTO):
            pytest.fail("Debian's mosquitto is missing: apt-get install mosquitto (make test does it)")
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.users = users or {}
        self.proc: subprocess.Popen | None = None
        self.conf = self._write_config()

    def _write_config(self) -> Path:
        lines = [f"listener {self.port} 127.0.0.1", "persistence false",
                 f"log_dest file {self.folder / 'mosquitto.log'}", "log_type error", "log_type warning"]
        if os.geteuid() == 0:
            lines.append("user root")  # else it drops to the mosquitto user, who cannot read the test's files
        if self.users:
            passwd = self.folder / "passwd"
            for i, (name, password) in enumerate(self.users.items()):
                subprocess.run([MOSQUITTO_PASSWD, "-b", *(["-c"] if i == 0 else []), str(passwd), name, password],
                               check=True, capture_output=True)
            lines += ["allow_anonymous false", f"password_file {passwd}"]
        else:
            lines.append("allow_anonymous true")
        conf = self.folder / "mosquitto.conf"
        conf.write_text("\n".join(lines) + "\n")
        return conf

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> Mosquitto:
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        wait_until(self._answers, timeout=10)
        return self

    def _answers(self) -> bool:
        if self.proc is not None and self.proc.poll() is not None:
            raise AssertionError(f"mosquitto stopped: {self.proc.stderr.read().decode(errors='replace')}")
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    close = stop

    def restart(self) -> None:
        self.stop()
        self.start()


@dataclass
class Message:
    topic: str
    payload: bytes
    retain: bool
    at: float

    def json(self) -> Any:
        return json.loads(self.payload)


class Listener:
    """A plain MQTT client subscribed to `topics`, keeping every message it receives (and resubscribing after
    a reconnect, as a venue would)."""

    def __init__(self, broker: Mosquitto, topics: list[str], username: str | None = None,
                 password: str | None = None) -> None:
        import paho.mqtt.client as mqtt

        self.messages: list[Message] = []
        self.lock = threading.Lock()
        self.topics = topics
        self.connack: list[Any] = []
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"listener-{free_port()}")
        if username is not None:
            self.client.username_pw_set(username, password)
        self.client.reconnect_delay_set(0.2, 1)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.connect_async("127.0.0.1", broker.port, keepalive=10)
        self.client.loop_start()

    def _on_connect(self, client, _userdata, _flags, reason_code, _properties) -> None:
        self.connack.append(reason_code)
        if not reason_code.is_failure:
            for topic in self.topics:
                client.subscribe(topic, qos=1)

    def _on_message(self, _client, _userdata, msg) -> None:
        with self.lock:
            self.messages.append(Message(msg.topic, bytes(msg.payload), bool(msg.retain), time.monotonic()))

    def on(self, topic: str) -> list[Message]:
        with self.lock:
            return [m for m in self.messages if m.topic == topic]

    def last(self, topic: str) -> Message | None:
        got = self.on(topic)
        return got[-1] if got else None

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


ROOT = Path(__file__).resolve().parents[2]


class BoxProcess:
    """`dicesight run --camera demo` in a child process, as a user starts it, publishing to the broker through
    the `[mqtt]` of its config file; `kill()` is a box that vanishes (power cut: no goodbye to the broker)."""

    def __init__(self, folder: Path, mqtt: dict[str, Any], seed: int = 1, speed: float = 4.0) -> None:
        import sys

        import tomli_w

        folder.mkdir(parents=True, exist_ok=True)
        config = folder / "config.toml"
        config.write_text(tomli_w.dumps({"mqtt": mqtt}))
        cmd = [sys.executable, "-m", "device.cli", "run", "--camera", "demo", "--gpio", "mock", "--host",
               "127.0.0.1", "--port", "0", "--state-dir", str(folder / "state"), "--config", str(config),
               "--demo-seed", str(seed), "--demo-speed", str(speed), "--demo-throw", "auto", "--json"]
        self.output: list[str] = []
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
        started = threading.Event()

        def pump() -> None:
            for line in self.proc.stdout:
                self.output.append(line)
                if line.startswith("{") and json.loads(line).get("event") == "started":
                    started.set()

        threading.Thread(target=pump, daemon=True).start()
        if not started.wait(60):
            self.proc.kill()
            raise AssertionError("dicesight run did not start:\n" + "".join(self.output))

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()
