"""An in-process stand-in for `device.table.Table`, exactly the interface the web app is handed.

It is backed by a real `engine.match.Match`, so the rules, undo and snapshots are the engine's own; only
the box's hardware (tray, camera, panel) is simulated, through helpers tests call (`set_tray`,
`set_camera`, `clock`).
"""

from __future__ import annotations

import copy
import pathlib
import queue
import secrets
import threading
import time
from typing import Any

from engine.core import IllegalAction
from engine.games import GAMES, get_rules
from engine.match import Match

PAIR_WINDOW_S = 30.0


class Subscription:
    def __init__(self, owner: FakeTable) -> None:
        self._owner = owner
        self._queue: queue.Queue[dict[str, Any]] = queue.Queue(maxsize=64)

    def _put(self, snap: dict[str, Any]) -> None:
        try:
            self._queue.put_nowait(snap)
        except queue.Full:  # a slow reader only ever needs the newest snapshot
            try:
                self._queue.get_nowait()
            except queue.Empty:
                pass
            self._queue.put_nowait(snap)

    def get(self, timeout: float) -> dict[str, Any] | None:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        self._owner._unsubscribe(self)


class FakeTable:
    """Single writer around a Match, with a simulated tray, camera, panel and Hue-style pairing."""

    def __init__(self, game: str = "freeroll", setup: dict[str, Any] | None = None, seed: int = 1,
                 image_dir: pathlib.Path | None = None, clock=time.monotonic) -> None:
        self._lock = threading.RLock()
        self.clock = clock
        self.match = Match(get_rules(game), setup or {}, seed)
        self.tray: dict[str, Any] = {"state": "empty", "dice": []}
        self.camera: dict[str, Any] = {"status": "ok", "message": "", "source": "fake"}
        self.leds: dict[str, Any] = {"status": "off", "phase": "off"}
        self.buttons: dict[str, bool] = {"next": False, "undo": False, "pair": False}
        self.image_dir = image_dir
        self.virtual_panel = True
        self._subs: list[Subscription] = []
        self._requests: dict[str, dict[str, Any]] = {}
        self._window_until = 0.0
        self._tokens: set[str] = set()
        self.presses: list[tuple[str, float]] = []

    # -- reading ---------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            snap = self.match.snapshot()
            open_ = self.clock() < self._window_until
            snap.update({
                "tray": copy.deepcopy(self.tray),
                "camera": dict(self.camera),
                "panel": {"leds": {**self.leds, "status": "blink" if open_ else self.leds["status"]},
                          "buttons": dict(self.buttons)},
                "pairing": {"open": open_, "expires_in": max(0.0, self._window_until - self.clock())},
                # like the real table: the game's dice set (the rolling hero's) when it names one
                "dice_set": snap.get("dice_set") or "d6",
                "mount": "under",
            })
            return snap

    def health(self) -> dict[str, Any]:
        return {"camera": dict(self.camera), "store": {"status": "ok", "message": ""}}

    def games(self) -> list[dict[str, Any]]:
        out = []
        for name in GAMES:
            modes = ["1v1", "2v2", "koth"] if name == "dicethrone" else []
            out.append({"name": name, "modes": modes})
        return out

    def image_path(self, name: str) -> pathlib.Path | None:
        if self.image_dir is None or "/" in name or "\\" in name or name.startswith("."):
            return None
        path = self.image_dir / name
        return path if path.is_file() else None

    # -- changing --------------------------------------------------------------------------------
    def submit(self, action: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.match.submit(action)  # IllegalAction propagates and changes nothing
            return self._publish()

    def new_game(self, game: str, setup: dict[str, Any], seed: int | None = None) -> dict[str, Any]:
        with self._lock:
            if not isinstance(setup, dict):
                raise IllegalAction("bad_setup", "A setup must be a JSON object.")
            self.match = Match(get_rules(game), setup, 1 if seed is None else seed)
            return self._publish()

    def set_tray(self, state: str, dice: list[dict[str, Any]] | None = None, needs_confirmation: bool = False,
                 message: str = "") -> None:
        with self._lock:
            self.tray = {"state": state, "dice": list(dice or [])}
            if needs_confirmation or message:  # as the real table words an unsure reading
                self.tray.update(needs_confirmation=needs_confirmation, message=message)
            self._publish()

    def set_camera(self, status: str, message: str = "") -> None:
        with self._lock:
            self.camera = {"status": status, "message": message, "source": "fake"}
            self._publish()

    def observe(self, seconds: float) -> dict[str, Any]:
        with self._lock:
            self.observe_s = seconds
            self.tray["observing"] = seconds > 0
            return self._publish()

    def press(self, button: str, hold_s: float = 0.0) -> None:
        with self._lock:
            if button not in self.buttons:
                raise ValueError(f"no button {button!r}")
            self.presses.append((button, hold_s))
            if button == "pair":
                if hold_s >= 5.0:
                    self.revoke_tokens()
                elif self.clock() < self._window_until:
                    for req in self._requests.values():
                        if req["token"] is None and self.clock() < req["expires"]:
                            req["token"] = secrets.token_urlsafe(24)
                            self._tokens.add(req["token"])
                    self._window_until = 0.0
            elif button == "undo" and self.match.can_undo():
                self.match.submit({"type": "undo"})
            elif button == "next":
                try:
                    self.match.submit({"type": "next"})
                except IllegalAction:
                    pass
            self._publish()

    # -- pairing ---------------------------------------------------------------------------------
    def request_pairing(self, address: str = "", label: str = "") -> str:
        with self._lock:
            rid = secrets.token_urlsafe(18)
            self._window_until = self.clock() + PAIR_WINDOW_S
            self._requests[rid] = {"expires": self._window_until, "token": None}
            self._publish()
            return rid

    def pairing_poll(self, request_id: str) -> tuple[str, str | None, float]:
        """As device.pairing.Pairing.poll: granted once, waiting, expired once, then unknown."""
        with self._lock:
            req = self._requests.get(request_id)
            if req is None:
                return "unknown", None, 0.0
            if req["token"] is not None:
                del self._requests[request_id]  # handed out once, like the real box
                return "granted", req["token"], 0.0
            left = req["expires"] - self.clock()
            if left < 0:
                del self._requests[request_id]
                return "expired", None, 0.0
            return "waiting", None, round(left, 1)

    def check_token(self, token: str) -> bool:
        with self._lock:
            return bool(token) and token in self._tokens

    def revoke_tokens(self) -> None:
        with self._lock:
            self._tokens.clear()
            self._requests.clear()

    # -- events ----------------------------------------------------------------------------------
    def subscribe(self) -> Subscription:
        sub = Subscription(self)
        with self._lock:
            self._subs.append(sub)
        return sub

    def _unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            if sub in self._subs:
                self._subs.remove(sub)

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subs)

    def _publish(self) -> dict[str, Any]:
        snap = self.snapshot()
        for sub in list(self._subs):
            sub._put(snap)
        return snap
