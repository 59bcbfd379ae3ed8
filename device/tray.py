"""The tray service: the camera thread, the tray watcher, what lies on the tray, and the roll photo.

Why apart from the table: the table keeps the game and is its one writer; this service only watches the
tray and turns a settled, certain throw into a roll action (with its readings as evidence and a small
photo of the tray) that it hands to the table's `submit` like any other client. The photo is written
under a temporary name first and kept only when the engine accepts the roll (`Store.stage_image`), so a
refused roll leaves no file behind.

Every fault of its work (a camera that stops, a reader bug, a full card while saving a photo, a store
that refuses the roll) is caught here: the thread goes on, the camera status says what is wrong (the page
shows it, `/healthz` says the camera is not fine), and the status clears by itself once the same work
succeeds again. `step()` does one frame's work synchronously, so tests drive it frame by frame with no
thread and no waiting.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2

from engine.core import IllegalAction
from vision.dicesets import DiceSet, get_set
from vision.memory import Memory, crop_die
from vision.mixed import read_mixed
from vision.reader import read_dice
from vision.teach import seen_faces
from vision.watcher import TrayStatus, TrayWatcher

from .camera.base import CameraError, FrameSource
from .dice_sets import dice_file, spec
from .opposites import Opposites
from .store import StagedImage
from .taught import load_taught

log = logging.getLogger("dicesight.tray")

EVIDENCE_WIDTH = 320     # roll photos are kept small: they are evidence, not art
OBSERVE_MAX_S = 300.0    # longest "show but do not record" window a phone may ask for
MAX_BACKOFF_S = 10.0

# Ask the table: (dice set id, how many dice or None) the game waits for on the tray now.
Request = Callable[[], tuple[str, int | None]]
# Hand a roll to the table: submit(action, image=staged photo or None) -> snapshot, or IllegalAction.
Submit = Callable[..., dict]
Stage = Callable[[bytes], StagedImage]



# Faults of writing to the card, not of the camera (camera_view leaves them out; the page says "storage")
STORAGE_FAULTS = ("photo", "roll", "learn")
NOBODY = ""  # a throw's owner when the game hides throws but waits for none: no phone sees its faces
DECIDE = object()  # set_tray: decide the owner as for a camera throw

class TrayService:
    """See the module doc. `changed()` is called (never under this service's lock) when the tray's view
    changed and the watchers should hear of it."""

    def __init__(self, camera: FrameSource | None, *, request: Request, submit: Submit,
                 changed: Callable[[], Any], stage_image: Stage | None = None,
                 private_to: Callable[[], str | None] | None = None,
                 sets: Callable[[], dict[str, int | None]] | None = None,
                 mount: str = "under", settle_s: float = 0.3, taught_root: Path | None = None,
                 memory: Memory | None = None, opposites: Opposites | None = None,
                 clock: Callable[[], float] = time.monotonic, backoff_s: float = 0.5) -> None:
        self.camera = camera
        self.backoff_s = backoff_s  # first wait after a camera fault, doubling up to MAX_BACKOFF_S
        self.mount = mount
        self.settle_s = settle_s
        self.taught_root = taught_root
        self.memory = memory  # the dice this box learnt from confirmed rolls (device.learnt)
        # teaching (`dicesight teach`): every throw waits for a phone's confirmation, even a certain one,
        # so each die learnt is one a player looked at
        self.always_confirm = False
        self._request = request
        self._sets = sets  # {set id: count} of a throw that mixes dice sets (Mage Wars), else one set
        self._submit = submit
        self._changed = changed
        self._stage_image = stage_image
        self._private_to = private_to  # whose eyes only a throw is for, when the game hides rolls
        self._clock = clock
        self._lock = threading.RLock()
        # `message` is the tray's English sentence; `code` names it for the page, which words it in the phone's
        # language (an engine refusal by its code, through the game's texts; the tray's own by MESSAGE_CODES)
        self._tray: dict[str, Any] = {"state": "empty", "dice": [], "needs_confirmation": False,
                                      "message": "", "code": None, "private_to": None, "roll": 0}
        # (set id, crop) of each die of the throw on the tray, for learning once players confirm it
        self._crops: list[tuple[str, Any, int | None] | None] = []
        # the photo (JPEG, each die marked as read) and the readings of a throw waiting for a phone's
        # confirmation: they join the roll the players confirm or fix, as a camera roll's own evidence does
        self._unsure: tuple[bytes | None, dict[str, Any]] | None = None  # (photo, evidence)
        self._rolls = 0
        self._camera: dict[str, Any] = {
            "status": "off" if camera is None else "starting",
            "message": "No camera: enter dice by hand." if camera is None else "Starting the camera.",
            "source": getattr(camera, "name", "none"),
        }
        self._faults: dict[str, str] = {}  # what failed ("camera", "reader", "photo", "roll") -> message
        self._taught: dict[str, dict | None] = {}
        # the opposite faces learnt of the table's dice (device.opposites): what the tray reads with
        self._opposites = opposites or (Opposites(taught_root) if taught_root is not None else None)
        self._file_taught: dict[str, tuple[Any, dict | None]] = {}  # set id -> ((file, map), its pictures)
        self._observe_until = 0.0
        self._watcher = TrayWatcher(read=self._read, settle_s=settle_s)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- the page's view ------------------------------------------------------------------------
    def tray_view(self, viewer: str | None = None) -> dict[str, Any]:
        """The tray for `viewer`. A hidden throw (`private_to` a player) shows others only how many dice
        of which colours lie there, never their faces (DESIGN: hidden dice reach no other phone)."""
        with self._lock:
            view = {**self._tray, "dice": list(self._tray["dice"]), "observing": self.observing()}
        owner = view.get("private_to")
        if owner is not None and viewer != owner:  # (NOBODY is no viewer: hidden from every phone)
            view["dice"] = [{"colour": d.get("colour"), "value": None, "face": None, "hidden": True,
                             "center": d.get("center"), "box": d.get("box"), "certain": d.get("certain")}
                            for d in view["dice"]]
        return view

    def camera_view(self) -> dict[str, Any]:
        """The camera's status for the page and /healthz: a fault of the camera or the reader makes it an
        error. What the card refused (`STORAGE_FAULTS`) is not the camera's: phones are told "storage full"
        by `storage_faults` (issue 32 #6: a full card read as a camera problem)."""
        with self._lock:
            view = dict(self._camera)
            mode = getattr(self.camera, "throw_mode", None)
            if mode is not None:  # the demo tray: the page offers "Throw the dice" when it throws on ask
                view["throw"] = mode
            faults = {k: v for k, v in self._faults.items() if k not in STORAGE_FAULTS}
            if faults:
                view["status"] = "error"
                view["message"] = " ".join(faults.values())
                view["faults"] = sorted(faults)
            return view

    def storage_faults(self) -> list[str]:
        """Which of the tray's writes the card refused ("photo": photos are not kept, rolls are; "roll": the
        last roll could not be recorded, its dice wait for a retry; "learn": learnt dice are not kept)."""
        with self._lock:
            return sorted(k for k in self._faults if k in STORAGE_FAULTS)

    def healthy(self) -> bool:
        """False when the camera thread should run and does not, or a fault is standing."""
        with self._lock:
            if self._faults:
                return False
        return self._thread is None or self._thread.is_alive() or self._stop.is_set()

    @property
    def needs_confirmation(self) -> bool:
        with self._lock:
            return bool(self._tray["needs_confirmation"])

    @property
    def dice(self) -> list[dict]:
        with self._lock:
            return list(self._tray["dice"])

    def set_message(self, message: str, code: str | None = None) -> None:
        """What the page shows under the tray: an English sentence, and the code the page words it by in the
        phone's language (an engine refusal's code, or the tray's own: "unread", "teaching")."""
        with self._lock:
            self._tray["message"] = message
            self._tray["code"] = code if message else None

    def set_tray(self, state: str, dice: list[dict], needs_confirmation: bool = False, message: str = "",
                 private_to: str | None | object = DECIDE) -> None:
        """Put a tray state as the watcher would and tell the watchers (the page's tests use it with a real
        table in place of a camera; a venue's remote tray could too). Whose eyes only the dice are for is
        decided as for a camera throw unless `private_to` says."""
        if private_to is DECIDE:
            private_to = self._private_to() if dice and self._private_to is not None else None
        with self._lock:
            if list(dice) != self._tray["dice"]:
                self._crops = []  # no crops for dice put there by hand: nothing to learn from them
                self._unsure = None
                self._rolls += 1
                self._tray["roll"] = self._rolls
            self._tray.update(state=state, dice=list(dice), needs_confirmation=needs_confirmation,
                              message=message, code=None, private_to=private_to)
        self._changed()

    def new_game(self) -> None:
        """A new game starts: what lies on the tray belongs to the last one. A reading waiting for its
        confirmation is dropped (confirmed now, it would be the new game's first roll), and a camera that
        can (the demo tray) has its dice picked up."""
        with self._lock:
            self._tray.update(needs_confirmation=False, message="", private_to=None)
            self._crops = []
            self._unsure = None
        sweep = getattr(self.camera, "sweep", None)
        if callable(sweep):
            sweep()

    @property
    def throws_on_ask(self) -> bool:
        """True when the camera is a demo tray that throws only when asked (`throw`)."""
        return getattr(self.camera, "throw_mode", None) == "ask"

    def throw(self) -> bool:
        """Ask the demo tray for a throw; False when it is not one that throws on ask, or one is landing."""
        return self.throws_on_ask and bool(self.camera.throw())

    def roll_recorded(self) -> None:
        """Any roll settles a reading that waited for confirmation (the table calls this on every roll)."""
        with self._lock:
            self._tray.update(needs_confirmation=False, message="", code=None)

    def take_confirmation(self) -> list[dict]:
        """The dice waiting for a confirmation, now confirmed (the table submits them)."""
        with self._lock:
            self._tray["needs_confirmation"] = False
            return list(self._tray["dice"])

    # -- roll-off window ------------------------------------------------------------------------
    def observe(self, seconds: float) -> None:
        """Show camera rolls without recording them for `seconds` (0 ends it), at most OBSERVE_MAX_S."""
        with self._lock:
            self._observe_until = self._clock() + max(0.0, min(float(seconds), OBSERVE_MAX_S))

    def observing(self) -> bool:
        return self._clock() < self._observe_until

    # -- the camera thread ----------------------------------------------------------------------
    def start(self) -> None:
        """Read the camera in a background thread (no-op without a camera or when already running)."""
        if self.camera is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        backoff = self.backoff_s
        while not self._stop.is_set():
            try:
                self.step()
                backoff = self.backoff_s
            except CameraError as err:
                self._set_camera("error", f"{err} Retrying; enter dice by hand meanwhile.")
                self._stop.wait(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_S)
            except Exception as err:  # any bug of the work: report it, wait a little, go on
                log.exception("tray: the camera's work failed")
                self._fault("camera", f"The camera stopped on an error ({err}); retrying.")
                self._stop.wait(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_S)

    def step(self) -> TrayStatus:
        """One frame's work: read it, update the camera status, feed the watcher, act on a settled roll.

        CameraError (and any other error of the camera itself) propagates, for the thread's backoff."""
        if self.camera is None:
            raise CameraError("There is no camera.")
        frame = self.camera.read()
        self._clear("camera")
        status_fn = getattr(self.camera, "status", None)
        if callable(status_fn):
            status = status_fn()
            self._set_camera(status.get("status", "ok"), status.get("message", ""))
        else:
            self._set_camera("ok", "")
        try:
            tray = self._watcher.feed(frame.image, frame.t)
        except Exception as err:  # a reader bug on one frame: report it, the next frame may be fine
            log.exception("tray: the reader failed on a frame")
            self._fault("reader", f"The dice reader failed ({err}).")
            return TrayStatus("moving", [], False, 0.0, frame.t)
        self._clear("reader")
        self._on_tray(tray, frame.image)
        return tray

    def _read(self, frame, background=None):
        """The watcher's reader: the dice set the game waits for, the learnt background, taught faces."""
        mixed = self._sets() if self._sets is not None else {}
        if len(mixed) > 1:  # one throw, several kinds of dice: each die goes to the set that reads it best
            return read_mixed(frame, {sid: self._dice_set(sid) for sid in mixed}, self.mount, background=background,
                              taught={sid: self._taught_faces(sid) for sid in mixed}, memory=self.memory)
        set_id, _count = self._request()
        return read_dice(frame, self._dice_set(set_id), self.mount, background=background,
                         taught=self._taught_faces(set_id), memory=self.memory)

    def _dice_set(self, set_id: str) -> DiceSet:
        """The set as this box reads it: the game's description or the box's dice-set file for that id, with the
        opposite map learnt of the table's own dice once it is whole (device.opposites)."""
        return self._opposites.apply(spec(set_id)) if self._opposites is not None else get_set(spec(set_id))

    def _taught_faces(self, set_id: str) -> dict | None:
        """Faces taught on this box, else the face pictures of the box's dice-set file for the set, else None."""
        if set_id not in self._taught:
            try:
                taught = load_taught(self.taught_root, set_id, self.mount) if self.taught_root is not None else None
            except Exception:  # damaged teach files: read with the drawn templates, say so in the log
                log.exception("tray: cannot load the taught faces of %s", set_id)
                taught = None
            self._taught[set_id] = taught
        if self._taught[set_id] is not None:
            return self._taught[set_id]
        found = dice_file(set_id)
        if found is None:
            return None
        # the same dict while the map stays: the reader builds its templates once per taught dict
        ds = self._dice_set(set_id)
        key = (id(found), tuple(sorted(ds.opposite.items())))
        cached = self._file_taught.get(set_id)
        if cached is None or cached[0] != key:
            cached = self._file_taught[set_id] = (key, found.taught(ds))
        return cached[1]

    def _on_tray(self, status: TrayStatus, image) -> None:
        dice = [r.to_dict() for r in status.readings] if status.state == "settled" else []
        # A throw the game hides (Regidice's rolls) is for its roller's eyes only: who that is is fixed
        # when the throw settles, so the next roller does not see it while it still lies there.
        private_to = self._private_to() if status.new_roll and dice and self._private_to is not None else None
        crops = self._cut(status.readings, image) if status.new_roll and dice else []  # (asks the table: unlocked)
        with self._lock:
            changed = status.state != self._tray["state"] or (status.new_roll and dice != self._tray["dice"])
            self._tray["state"] = status.state
            if status.state == "settled":
                self._tray["dice"] = dice
                if status.new_roll:
                    self._tray["private_to"] = private_to
                    if dice:
                        self._rolls += 1
                        self._tray["roll"] = self._rolls
                        self._crops = crops
                        self._unsure = None
            elif status.state in ("empty", "moving"):
                # Dice picked up or thrown again: an unconfirmed reading is gone with them.
                self._tray.update(dice=[], needs_confirmation=False, message="", code=None, private_to=None)
                self._crops = []
                self._unsure = None
        if status.new_roll and dice:
            self.record_roll(status.readings, dice, image)
        elif changed:
            self._changed()

    def _cut(self, readings, image) -> list[tuple[str, Any, int | None] | None]:
        """(set id, crop, glass face) of each read die, in the tray's order, kept until the dice are picked up:
        what the box learns from once a phone confirms the throw (None where a die cannot be cut). The glass
        face (under the tray, of a throw that will wait for a phone) is the face the reader saw on the glass,
        read with no opposite map: against the confirmed top it teaches the dice's opposite faces."""
        if image is None:
            return [None for _ in readings]
        default = None
        sets: list[str] = []
        for r in readings:
            if not r.set and default is None:
                default = self._request()[0]
            sets.append(r.set or default)
        glass = self._glass(readings, sets, image)
        out: list[tuple[str, Any, int | None] | None] = []
        for r, set_id, seen in zip(readings, sets, glass, strict=True):
            try:
                out.append((set_id, crop_die(image, r.center, r.box), seen))
            except (cv2.error, ValueError, TypeError):
                out.append(None)
        return out

    def _glass(self, readings, sets: list[str], image) -> list[int | None]:
        """The face seen on the glass of each die, where the throw can teach opposite faces (see `_cut`)."""
        if self.mount != "under" or self._opposites is None or \
                not (self.always_confirm or not all(r.certain for r in readings)):
            return [None] * len(readings)
        out: list[int | None] = [None] * len(readings)
        try:
            for set_id in set(sets):
                mine = [i for i, s in enumerate(sets) if s == set_id]
                seen = seen_faces(image, spec(set_id), [(*readings[i].center, max(readings[i].box[2:]) / 2)
                                                        for i in mine])
                for i, g in zip(mine, seen, strict=True):
                    out[i] = g
        except Exception:  # a reader fault here must not cost the throw: it only teaches nothing
            log.exception("tray: cannot name the faces on the glass")
        return out

    def take_crops(self, roll: int | None = None) -> list[tuple[str, Any, int | None] | None]:
        """The crops of the throw on the tray (`roll`: only if it is still that throw), else []. They are
        handed out once: a throw confirmed, undone and confirmed again is learnt once."""
        with self._lock:
            if roll is not None and roll != self._tray.get("roll"):
                return []
            crops, self._crops = self._crops, []
            return crops

    def unsure_evidence(self, roll: int) -> tuple[bytes | None, dict] | None:
        """(the photo, the evidence) of throw `roll` while it lies on the tray waiting for a confirmation, else
        None. Not handed out once only: a confirmation the game refuses (a die too many) is sent again."""
        with self._lock:
            if self._unsure is None or roll != self._tray.get("roll"):
                return None
            jpeg, evidence = self._unsure
            return jpeg, {**evidence, "confirmed": True}

    def fault(self, kind: str, message: str | None) -> None:
        """Report a fault of the tray's work done elsewhere (keeping learnt dice), or clear it (None)."""
        if message is None:
            self._clear(kind)
        else:
            self._fault(kind, message)

    def record_roll(self, readings, dice: list[dict], image) -> None:
        """A settled roll: submit it when every die is certain, else ask the players to confirm."""
        if self.observing():
            self._changed()  # on the page only (the roll-off reads it from the tray)
            return
        # the set the throw was read as goes with its readings: which dice a roll was is what "are these dice
        # fair?" counts by (device.dice_log), and the game's action does not say it
        evidence = {"readings": dice, "set": self._request()[0]}
        if self.always_confirm or not all(r.certain for r in readings):
            jpeg = evidence_jpeg(image, readings) if image is not None else None
            with self._lock:
                self._unsure = (jpeg, evidence)
                self._tray["needs_confirmation"] = True
                self._tray["message"] = ("Teaching: confirm or fix the dice." if self.always_confirm else
                                         "Not sure of every die: confirm or fix the dice.")
                self._tray["code"] = "teaching" if self.always_confirm else "unsure"
            self._changed()
            return
        action = {
            "type": "roll", "source": "camera",
            "dice": [{"value": r.value, "face": r.face, "colour": r.colour, **({"set": r.set} if r.set else {})}
                     for r in readings],
            "evidence": evidence,
        }
        private = self._tray.get("private_to")
        if private:  # a hidden throw is its roller's: its photo too (issue 32 #3); NOBODY's is no one's roll
            action["player"] = private
        staged = self._photo(image, readings)
        try:
            self._submit(action, image=staged)
        except IllegalAction as err:
            self.set_message(err.message, err.code)
            self._changed()
            return
        except Exception as err:  # the store refused it (full card...): the dice stay for a retry by hand
            log.exception("tray: the roll could not be recorded")
            with self._lock:
                self._tray["needs_confirmation"] = True
                self._tray["message"] = ""  # the page words the "roll" storage fault in its language
                self._tray["code"] = None
            self._fault("roll", f"The roll could not be saved ({err}).")
            self._changed()
            return
        self._clear("roll")

    def _photo(self, image, readings=()) -> StagedImage | None:
        """The roll's small JPEG written under a temporary name, or None (no image, or it cannot be kept:
        the roll still counts, and the fault says why until a later photo is kept)."""
        if image is None or self._stage_image is None:
            return None
        jpeg = evidence_jpeg(image, readings)
        if jpeg is None:
            return None
        try:
            staged = self._stage_image(jpeg)
        except OSError as err:
            log.error("tray: the roll photo could not be saved: %s", err)
            self._fault("photo", f"Roll photos cannot be saved ({err.strerror or err}); rolls are still "
                                 f"recorded.")
            return None
        self._clear("photo")
        return staged

    # -- status ---------------------------------------------------------------------------------
    def _set_camera(self, status: str, message: str) -> None:
        with self._lock:
            changed = (self._camera["status"], self._camera["message"]) != (status, message)
            self._camera.update(status=status, message=message)
        if changed:
            self._changed()

    def _fault(self, kind: str, message: str) -> None:
        with self._lock:
            changed = self._faults.get(kind) != message
            self._faults[kind] = message
        if changed:
            self._changed()

    def _clear(self, kind: str) -> None:
        with self._lock:
            changed = self._faults.pop(kind, None) is not None
        if changed:
            log.info("tray: %s works again", kind)
            self._changed()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.camera is not None:
            self.camera.close()


def evidence_jpeg(image, readings=()) -> bytes | None:
    """A small JPEG of the tray for the log, each read die marked with the value it was read as (a ring and
    the number; orange with "?" when unsure), so players can check the reading against the photo; None if it
    cannot be encoded (the roll still counts)."""
    try:
        h, w = image.shape[:2]
        scale = EVIDENCE_WIDTH / w
        small = cv2.resize(image, (EVIDENCE_WIDTH, max(1, int(h * scale))), interpolation=cv2.INTER_AREA)
        for r in readings:
            colour = (40, 200, 60) if r.certain else (0, 160, 255)
            cx, cy = int(r.center[0] * scale), int(r.center[1] * scale)
            radius = max(6, int(0.6 * max(r.box[2], r.box[3]) * scale))
            cv2.circle(small, (cx, cy), radius, colour, 2, cv2.LINE_AA)
            label = (str(r.value) if r.value is not None else "") + ("" if r.certain else "?")
            at = (cx + radius - 4, cy - radius + 10)
            cv2.putText(small, label, at, cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA)
            cv2.putText(small, label, at, cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
        ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 70])
        return buf.tobytes() if ok else None
    except (cv2.error, AttributeError, ValueError, ZeroDivisionError):
        return None
