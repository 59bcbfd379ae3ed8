"""The table service: the one writer of the game, and the hub every part of the box talks through.

Every change (a camera roll, a button, a phone) goes through `submit`, one at a time under one lock;
an accepted action is in the store (fsync'd) before anyone hears of it, and then every subscriber
(phones over SSE, the panel's LEDs) receives the new snapshot. The camera runs in its own thread and
turns each settled roll into an action like any other, carrying its evidence.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2

from engine.core import IllegalAction
from engine.games import GAMES, get_rules
from engine.match import Match
from vision.reader import read_dice
from vision.watcher import TrayWatcher

from .camera.base import CameraError, FrameSource
from .dice_sets import spec
from .pairing import Pairing
from .taught import load_taught

log = logging.getLogger(__name__)

CHECKPOINT_EVERY = 100   # entries between store checkpoints, so a restart replays at most this many
EVIDENCE_WIDTH = 320     # roll photos are kept small: they are evidence, not art
OBSERVE_MAX_S = 300.0    # longest "show but do not record" window a phone may ask for


class Subscription:
    """A phone's (or the panel's) view of the table: the latest snapshots, oldest dropped first."""

    def __init__(self, table: Table, maxsize: int = 8) -> None:
        self._table = table
        self._queue: queue.Queue[dict] = queue.Queue(maxsize)

    def put(self, snapshot: dict) -> None:
        while True:
            try:
                self._queue.put_nowait(snapshot)
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()  # a slow phone only needs the newest state
                except queue.Empty:
                    pass

    def get(self, timeout: float) -> dict | None:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        self._table._unsubscribe(self)


class Table:
    """See the module doc. `store` is a device.store.Store; camera and panel are optional."""

    def __init__(self, store, *, camera: FrameSource | None = None, panel=None,
                 dice_set: str = "d6", mount: str = "under", settle_s: float = 0.3,
                 pairing: Pairing | None = None, taught_root: Path | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.camera = camera
        self.panel = panel
        self.dice_set = dice_set
        self.mount = mount
        self.settle_s = settle_s
        self.pairing = pairing or Pairing()
        self.taught_root = taught_root  # state directory holding faces taught with `dicesight teach`
        self._taught: dict[str, dict | None] = {}
        self._clock = clock
        self._lock = threading.RLock()
        self._subs: set[Subscription] = set()
        self._subs_lock = threading.Lock()
        self._tray: dict[str, Any] = {"state": "empty", "dice": [], "needs_confirmation": False,
                                      "message": ""}
        self._camera_status: dict[str, Any] = {
            "status": "off" if camera is None else "starting",
            "message": "No camera: enter dice by hand." if camera is None else "Starting the camera.",
            "source": getattr(camera, "name", "none"),
        }
        self._observe_until = 0.0  # until then camera rolls are shown but not recorded (a roll-off)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._engine_snapshot: dict[str, Any] | None = None
        self.shutdown_requested = threading.Event()
        self._load_active()

    # -- game lifecycle ---------------------------------------------------------------------------
    def _load_active(self) -> None:
        """Resume the active game by replaying its log. A log this version cannot replay (a rule changed
        by an update, an unknown game) must not keep the box from starting: the game stays in the store
        untouched, a fresh free-roll game becomes active, and the tray message says what happened."""
        game_id = self.store.active_game_id()
        if game_id is None:
            game_id = self.store.new_game("freeroll", {}, 0)
        record = self.store.load_game(game_id)
        try:
            self.match = Match.replay(get_rules(record.game), record.setup, record.seed, record.entries,
                                      checkpoint=record.checkpoint)
            self.game_id = game_id
        except IllegalAction as err:
            log.error("game %s (%s) cannot be replayed: %s; it is kept, a new free roll starts",
                      game_id, record.game, err.message)
            self.game_id = self.store.new_game("freeroll", {}, 0)
            self.match = Match(get_rules("freeroll"), {}, 0)
            self._tray["message"] = (f"The saved {record.game} game could not be resumed ({err.message}); "
                                     f"it is kept as game {game_id}.")
        self._engine_snapshot = None

    def new_game(self, game: str, setup: dict, seed: int | None = None) -> dict:
        """Start a new game (the old one stays in the store); IllegalAction for a bad setup."""
        if not isinstance(setup, dict):
            raise IllegalAction("bad_setup", "A setup must be a JSON object.")
        if seed is None:
            seed = int.from_bytes(os.urandom(4), "little")
        rules = get_rules(game)
        with self._lock:
            match = Match(rules, setup, seed)  # raises IllegalAction before anything is stored
            self.game_id = self.store.new_game(game, setup, seed)
            self.match = match
            self._observe_until = 0.0  # the roll-off that chose the start player is over
            self._engine_snapshot = None
            self._tray["message"] = ""
        return self._publish()

    def observe(self, seconds: float) -> dict:
        """Show camera rolls without recording them for `seconds` (0 ends it): throws that belong to no
        game, such as rolling for who starts. It lapses by itself so a forgotten phone cannot mute the box."""
        with self._lock:
            self._observe_until = self._clock() + max(0.0, min(float(seconds), OBSERVE_MAX_S))
        return self._publish()

    def observing(self) -> bool:
        return self._clock() < self._observe_until

    def games(self) -> list[dict]:
        return [{"name": name, "modes": list(getattr(rules, "modes", []))} for name, rules in GAMES.items()]

    # -- the one way to change the game -----------------------------------------------------------
    def submit(self, action: dict, *, image: bytes | None = None) -> dict:
        """Apply one action; returns the new snapshot. IllegalAction changes nothing.

        `evidence` in the action (camera readings) is stored beside the log entry, not in the rules'
        action; `image` is a JPEG of the tray saved with the entry.
        """
        if not isinstance(action, dict):
            raise IllegalAction("bad_action", "An action must be a JSON object with a \"type\".")
        action = dict(action)
        evidence = action.pop("evidence", None)
        with self._lock:
            if image is not None:
                action["image"] = self.store.save_image(self.game_id, self.match.seq + 1, image)
            entry = self.match.submit(action)
            try:
                self.store.append(self.game_id, entry, evidence)
            except Exception:
                # The store refused it: the game must be exactly what the store holds.
                log.exception("store append failed; rebuilding the game from the store")
                self._load_active()
                raise
            if entry.seq % CHECKPOINT_EVERY == 0:
                seq, data = self.match.checkpoint()
                self.store.save_checkpoint(self.game_id, seq, data)
            self._engine_snapshot = None
            if action.get("type") == "roll":  # a reading waiting for confirmation is settled by any roll
                self._tray.update(needs_confirmation=False, message="")
        return self._publish()

    def next(self) -> dict | None:
        """The box's Next button: confirm an uncertain reading, else take the pending default option."""
        with self._lock:
            if self._tray["needs_confirmation"]:
                return self.confirm_tray()
            pending = self._engine_view().get("pending") or {}
            for option in pending.get("options", []):
                if option.get("default"):
                    return self._try(option["action"])
        return None

    def confirm_tray(self, values: list[int] | None = None) -> dict | None:
        """Record the dice on the tray as read (or as corrected by a player)."""
        with self._lock:
            dice = self._tray["dice"]
            if values is None:
                if any(d.get("value") is None for d in dice):
                    self._tray["message"] = "A die could not be read: enter it by hand."
                    self._publish()
                    return None
                values = [d["value"] for d in dice]
            self._tray["needs_confirmation"] = False
            return self._try({"type": "roll", "dice": values, "source": "manual"})

    def undo(self) -> dict | None:
        return self._try({"type": "undo"})

    def _try(self, action: dict) -> dict | None:
        """Submit for a button press: an illegal press shows its message instead of raising."""
        try:
            return self.submit(action)
        except IllegalAction as err:
            with self._lock:
                self._tray["message"] = err.message
            self._publish()
            return None

    # -- snapshots and subscribers ----------------------------------------------------------------
    def _engine_view(self) -> dict:
        """The engine's snapshot of the current state, built once per change (it carries odds: not cheap)."""
        with self._lock:
            if self._engine_snapshot is None:
                self._engine_snapshot = self.match.snapshot()
            return self._engine_snapshot

    def snapshot(self) -> dict:
        with self._lock:
            snap = dict(self._engine_view())
            snap.update(
                game_id=self.game_id,
                tray={**self._tray, "dice": list(self._tray["dice"]), "observing": self.observing()},
                camera=dict(self._camera_status),
                panel=self.panel.state() if self.panel is not None else None,
                pairing=self.pairing.status(),
                # The game may say whose dice are on the tray (a Dice Throne hero's); else the config's set.
                dice_set=self.current_dice_set(),
                mount=self.mount,
            )
            return snap

    def subscribe(self) -> Subscription:
        sub = Subscription(self)
        with self._subs_lock:
            self._subs.add(sub)
        return sub

    def _unsubscribe(self, sub: Subscription) -> None:
        with self._subs_lock:
            self._subs.discard(sub)

    def _publish(self) -> dict:
        snap = self.snapshot()
        if self.panel is not None:
            try:
                self.panel.show(snap.get("phase"), self._status_pattern(snap),
                                phase_led(self.match.rules, snap.get("phase")))
            except Exception:  # the LEDs must never take the game down
                log.exception("panel update failed")
        with self._subs_lock:
            subs = list(self._subs)
        for sub in subs:
            sub.put(snap)
        return snap

    @staticmethod
    def _status_pattern(snap: dict) -> str:
        if snap["camera"]["status"] in ("error", "reconnecting"):
            return "camera_error"
        if (snap.get("panel") or {}).get("gpio_error"):
            return "gpio_error"
        if snap["pairing"].get("conflict"):
            return "pair_conflict"
        if snap["pairing"]["open"]:
            return "pairing"
        if snap["tray"]["needs_confirmation"]:
            return "confirm"
        if snap["tray"]["state"] in ("moving", "settling"):
            return "reading"
        return "ready"

    # -- panel and pairing ------------------------------------------------------------------------
    def press(self, button: str, hold_s: float = 0.0) -> None:
        """A press of the virtual panel: through the mock pins when there is a panel, else directly."""
        if button not in ("next", "undo", "pair"):
            raise IllegalAction("unknown_button", f"The box has Next, Undo and Pair buttons, not \"{button}\".")
        if self.panel is not None:
            self.panel.press(button, hold_s)
        elif button == "next":
            self.next()
        elif button == "undo":
            self.undo()
        else:
            self.approve_pairing()

    def approve_pairing(self) -> str:
        """The Pair button: admits the one waiting phone, or none when several wait (see Pairing.approve)."""
        result = self.pairing.approve()
        self._publish()
        if result == "conflict":  # the warning blink ends by itself: show the panel when it has
            self._republish_after(self.pairing.status_changes_in())
        return result

    def request_pairing(self, address: str = "", label: str = "") -> str:
        """A phone asks to pair (device.pairing.PairingRefused when this address asks too often)."""
        request_id = self.pairing.request(address, label)
        self._publish()
        self._republish_after(self.pairing.status_changes_in())  # the blink stops when the window closes
        return request_id

    def _republish_after(self, seconds: float | None) -> None:
        """Publish again once a pairing window or warning has lapsed, so the status LED and the pages stop
        showing it (nothing else changes at that moment to trigger a publish)."""
        if seconds is None:
            return
        timer = threading.Timer(seconds + 0.1, self._publish)
        timer.daemon = True
        timer.start()

    def pairing_poll(self, request_id: str) -> tuple[str, str | None, float]:
        """(status, token, seconds left) for a phone waiting to pair: see Pairing.poll."""
        return self.pairing.poll(request_id)

    def check_token(self, token: str | None) -> bool:
        return self.pairing.check(token)

    def revoke_tokens(self) -> None:
        self.pairing.revoke_all()
        self._publish()

    def revoke_phone(self, phone_id: str) -> bool:
        """Unpair one phone by its public id (Pairing.revoke)."""
        found = self.pairing.revoke(phone_id)
        if found:
            self._publish()
        return found

    # -- camera -----------------------------------------------------------------------------------
    def start(self) -> None:
        """Start reading the camera in a background thread (no-op without a camera)."""
        if self.camera is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._camera_loop, name="camera", daemon=True)
        self._thread.start()

    def _camera_loop(self) -> None:
        watcher = TrayWatcher(read=self._read_tray, settle_s=self.settle_s)
        backoff = 0.5
        while not self._stop.is_set():
            try:
                frame = self.camera.read()
            except CameraError as err:
                self._set_camera("error", f"{err} Retrying; enter dice by hand meanwhile.")
                self._stop.wait(backoff)
                backoff = min(backoff * 2, 10.0)
                continue
            except Exception as err:  # a camera bug must not end the game night
                log.exception("camera read failed")
                self._set_camera("error", f"Camera failed: {err}")
                self._stop.wait(backoff)
                continue
            backoff = 0.5
            status_fn = getattr(self.camera, "status", None)
            if callable(status_fn):
                status = status_fn()
                self._set_camera(status.get("status", "ok"), status.get("message", ""))
            else:
                self._set_camera("ok", "")
            try:
                status = watcher.feed(frame.image, frame.t)
            except Exception:
                log.exception("reader failed on a frame")
                continue
            self._on_tray(status, frame.image)

    def current_dice_set(self) -> str:
        """The dice set to read now: the game's (whose dice are being rolled), else the configured one."""
        return self._engine_view().get("dice_set") or self.dice_set

    def tray_request(self) -> tuple[str, int | None]:
        """(dice set, how many dice) the game waits for on the tray now; the count is None when any will do."""
        with self._lock:
            dice_set = self.current_dice_set()
            wanted = (self._engine_view().get("pending") or {}).get("input") or {}
            count = wanted.get("count") if wanted.get("type") == "dice" else None
            return dice_set, count if isinstance(count, int) else None

    def _read_tray(self, frame, background=None):
        """The watcher's reader: the current dice set, the learnt background, faces taught for this box."""
        dice_set = self.current_dice_set()
        return read_dice(frame, spec(dice_set), self.mount, background=background,
                         taught=self._taught_faces(dice_set))

    def _taught_faces(self, dice_set: str) -> dict | None:
        if self.taught_root is None:
            return None
        if dice_set not in self._taught:
            try:
                self._taught[dice_set] = load_taught(self.taught_root, dice_set, self.mount)
            except Exception:  # damaged teach files: read with the drawn templates, say so in the log
                log.exception("cannot load the taught faces of %s", dice_set)
                self._taught[dice_set] = None
        return self._taught[dice_set]

    def _set_camera(self, status: str, message: str) -> None:
        with self._lock:
            changed = (self._camera_status["status"], self._camera_status["message"]) != (status, message)
            self._camera_status.update(status=status, message=message)
        if changed:
            self._publish()

    def _on_tray(self, status, image) -> None:
        dice = [r.to_dict() for r in status.readings] if status.state == "settled" else []
        with self._lock:
            changed = status.state != self._tray["state"] or (status.new_roll and dice != self._tray["dice"])
            self._tray["state"] = status.state
            if status.state == "settled":
                self._tray["dice"] = dice
            elif status.state in ("empty", "moving"):
                # Dice picked up or thrown again: an unconfirmed reading is gone with them.
                self._tray.update(dice=[], needs_confirmation=False, message="")
        if status.new_roll and dice:
            self._record_roll(status.readings, dice, image)
        elif changed:
            self._publish()

    def _record_roll(self, readings, dice: list[dict], image) -> None:
        """A settled roll: submit it when every die is certain, else ask the players to confirm."""
        if self.observing():
            self._publish()  # on the page only (the roll-off reads it from the tray)
            return
        if not all(r.certain for r in readings):
            with self._lock:
                self._tray["needs_confirmation"] = True
                self._tray["message"] = "Not sure of every die: confirm or fix the dice."
            self._publish()
            return
        action = {
            "type": "roll", "source": "camera",
            "dice": [{"value": r.value, "face": r.face, "colour": r.colour} for r in readings],
            "evidence": {"readings": dice},
        }
        try:
            self.submit(action, image=_evidence_jpeg(image))
        except IllegalAction as err:
            with self._lock:
                self._tray["message"] = err.message
            self._publish()

    # -- status -----------------------------------------------------------------------------------
    def health(self) -> dict:
        store = self.store.status()
        return {"ok": bool(store.get("ok", True)), "camera": dict(self._camera_status), "store": store,
                "seq": self.match.seq, "game": self.match.rules.name}

    def image_path(self, name: str) -> Path | None:
        return self.store.image_path(name)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.camera is not None:
            self.camera.close()
        if self.panel is not None:
            self.panel.close()
        self.store.close()


def phase_led(rules, phase: str | None) -> int | None:
    """The panel LED slot (0-4) the game's description says `phase` lights, or None."""
    for row in rules.describe().get("phases", []) if phase is not None else []:
        if row.get("id") == phase:
            led = row.get("led")
            return led if isinstance(led, int) else None
    return None


def _evidence_jpeg(image) -> bytes | None:
    """A small JPEG of the tray for the log; None if it cannot be encoded (the roll still counts)."""
    try:
        h, w = image.shape[:2]
        scale = EVIDENCE_WIDTH / w
        small = cv2.resize(image, (EVIDENCE_WIDTH, max(1, int(h * scale))), interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 70])
        return buf.tobytes() if ok else None
    except Exception:
        return None
