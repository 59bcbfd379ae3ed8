"""The table service: the game's lifecycle and its one writer, `submit`.

Every change (a camera roll, a button, a phone) goes through `submit`, one at a time under one lock; an
accepted action is in the store (fsync'd) before anyone hears of it. The parts around it live apart:
the tray service (`device.tray`) owns the camera thread, the watcher, the tray state and the roll photo;
the broadcaster (`device.broadcaster`) owns the subscriptions and sends each new snapshot once, encoded
once, in order; pairing is `device.pairing.Pairing`, which the web app also gets directly.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.core import IllegalAction
from engine.games import FALLBACK_GAME, get_rules
from engine.match import Match

from .broadcaster import Broadcaster, Subscription
from .camera.base import FrameSource
from .dice_sets import spec
from .learnt import Confirmed, LearntDice, confirmed_dice
from .pairing import Pairing
from .store import StagedImage, StoreError
from .tray import NOBODY, OBSERVE_MAX_S, TrayService

log = logging.getLogger(__name__)

CHECKPOINT_EVERY = 100   # entries between store checkpoints, so a restart replays at most this many
__all__ = ["CHECKPOINT_EVERY", "OBSERVE_MAX_S", "Subscription", "Table", "phase_led"]


class Table:
    """See the module doc. `store` is a device.store.Store; camera and panel are optional."""

    def __init__(self, store, *, camera: FrameSource | None = None, panel=None,
                 dice_set: str = "d6", mount: str = "under", settle_s: float = 0.3,
                 pairing: Pairing | None = None, taught_root: Path | None = None,
                 learnt_root: Path | None = None, clock: Callable[[], float] = time.monotonic,
                 seeds: Callable[[], int] | None = None) -> None:
        self.store = store
        # Where a new game's seed comes from when the phone gives none: the OS on the box; a seeded
        # source in tests, so that a test's games (their dice, their length) are the same every run.
        self._seeds = seeds or (lambda: int.from_bytes(os.urandom(4), "little"))
        self.panel = panel
        self.dice_set = dice_set
        self.mount = mount
        self.pairing = pairing or Pairing()
        self.broadcaster = Broadcaster()
        self.mqtt: Any = None  # the venue publisher (device.mqtt.TablePublisher) when the config names a broker
        self._lock = threading.RLock()
        self._engine_snapshot: dict[str | None, dict[str, Any]] | None = None  # per viewer, per change
        self._notice = ""  # a word from the lifecycle for logs and scripts (a saved game that could not resume)
        self._not_resumed: dict[str, Any] | None = None  # that game, for the page to word in its language
        self.shutdown_requested = threading.Event()
        self._fairness_tallies: dict[int, tuple] = {}  # game id -> (its log's mark, its dice's tally)
        self._fairness_lock = threading.Lock()
        # dice learnt from confirmed rolls (kept beside the store unless told otherwise)
        learnt_root = learnt_root or getattr(store, "state_dir", None)
        self.learnt = LearntDice(learnt_root, mount) if learnt_root is not None else None
        self.tray = TrayService(camera, request=self.tray_request, sets=self.tray_sets, submit=self.submit,
                                changed=self.publish, stage_image=store.stage_image,
                                private_to=self.hidden_roller, mount=mount, settle_s=settle_s,
                                taught_root=taught_root, clock=clock,
                                memory=self.learnt.memory if self.learnt is not None else None,
                                opposites=self.learnt.opposites if self.learnt is not None else None)
        self._load_active()

    @property
    def camera(self) -> FrameSource | None:
        return self.tray.camera

    @property
    def virtual_panel(self) -> bool:
        """True when the page's panel stands in for real buttons: no panel, or mock pins that were asked
        for (`--gpio mock`, or off a Pi). A Pi whose GPIO failed is not one: its page Pair stays local."""
        return self.panel is None or bool(getattr(self.panel, "mock", False))

    # -- game lifecycle ---------------------------------------------------------------------------
    def _load_active(self) -> None:
        """Resume the active game by replaying its log. Nothing stored may keep the box from starting: a log
        this version cannot replay (a rule changed by an update, an unknown game) or a game whose own record
        is damaged stays in the store untouched, a fresh free-roll game becomes active, and every phone is
        told in its language (`_store_view`). Damaged log entries never get this far: the store sets them
        aside and hands back the game as far as it stands without them (`device.records`)."""
        game_id = self.store.active_game_id()
        if game_id is None:
            game_id = self.store.new_game(FALLBACK_GAME, {}, 0)
        try:
            record = self.store.load_game(game_id)
            self.match = Match.replay(get_rules(record.game), record.setup, record.seed, record.entries,
                                      checkpoint=record.checkpoint)
            self.game_id = game_id
        except Exception as err:  # noqa: BLE001 - any stored byte may be wrong: the box starts regardless
            self._start_beside(game_id, err)
        self._engine_snapshot = None

    def _start_beside(self, game_id: int, err: Exception) -> None:
        """Keep the game that cannot resume where it is and start a free roll beside it."""
        why = err.message if isinstance(err, IllegalAction) else str(err)
        log.error("game %s cannot be resumed: %s; it is kept, a new free roll starts", game_id, why)
        self.game_id = self.store.new_game(FALLBACK_GAME, {}, 0)
        self.match = Match(get_rules(FALLBACK_GAME), {}, 0)
        self._not_resumed = {"game": game_id, "damaged": isinstance(err, StoreError)}
        self._notice = f"The saved game {game_id} could not be resumed ({why}); it is kept as game {game_id}."

    def new_game(self, game: str, setup: dict, seed: int | None = None) -> dict:
        """Start a new game (the old one stays in the store); IllegalAction for a bad setup."""
        if not isinstance(setup, dict):
            raise IllegalAction("bad_setup", "A setup must be a JSON object.")
        if seed is None:
            seed = self._seeds()
        rules = get_rules(game)
        with self._lock:
            match = Match(rules, setup, seed)  # raises IllegalAction before anything is stored
            self.game_id = self.store.new_game(game, setup, seed)
            self.match = match
            self.tray.observe(0)  # the roll-off that chose the start player is over
            self.tray.new_game()  # the dice lying there are the last game's (or the roll-off's), not a roll
            self._engine_snapshot = None
            self._notice = ""
            self._not_resumed = None
            if getattr(self.store, "recovery", None) or getattr(self.store, "set_aside", None):
                self.store.dismiss_recovery()
            self.tray.set_message("")
            return self.publish()

    def observe(self, seconds: float) -> dict:
        """Show camera rolls without recording them for `seconds` (0 ends it): throws that belong to no
        game, such as rolling for who starts. It lapses by itself so a forgotten phone cannot mute the box."""
        self.tray.observe(seconds)
        return self.publish()

    def observing(self) -> bool:
        return self.tray.observing()

    # -- the one way to change the game -----------------------------------------------------------
    def submit(self, action: dict, *, image: bytes | StagedImage | None = None) -> dict:
        """Apply one action; returns the new snapshot. IllegalAction changes nothing and keeps no file.

        `evidence` in the action (camera readings) is stored beside the log entry, not in the rules'
        action. `image` is a JPEG of the tray (or one the tray service already staged): it gets its final
        name only once the engine accepted the action, and that name joins the action and its evidence.
        """
        if not isinstance(action, dict):
            raise IllegalAction("bad_action", "An action must be a JSON object with a \"type\".")
        action = dict(action)
        evidence = action.pop("evidence", None)
        # which die of the tray each die of this roll is (a phone's confirm or fix): for learning, not rules
        link = action.pop("tray", None)
        roll = link.get("roll") if isinstance(link, dict) else None
        if image is None and evidence is None and type(roll) is int:  # (a throw's number; not True)
            # a confirmed or fixed camera reading keeps the tray's photo and what the camera read, as a camera
            # roll does (DESIGN: a roll read by the camera carries its evidence); the dice are the players'
            got = self.tray.unsure_evidence(roll)
            if got is not None:
                image, evidence = got
        staged = self.store.stage_image(image) if isinstance(image, bytes | bytearray) else image
        with self._lock:
            seq = self.match.seq + 1
            self._name_the_roller(action)
            if staged is not None:
                action["image"] = self.store.image_name(staged, self.game_id, seq)
            try:
                entry = self.match.submit(action)
            except BaseException:
                if staged is not None:
                    self.store.discard_image(staged)  # a refused roll leaves no photo behind
                raise
            if staged is not None and isinstance(evidence, dict):
                evidence = {**evidence, "image": action["image"]}
            try:
                self.store.append(self.game_id, entry, evidence)
            except Exception:
                # The store refused it: the game must be exactly what the store holds.
                log.exception("store append failed; rebuilding the game from the store")
                if staged is not None:
                    self.store.discard_image(staged)
                self._load_active()
                raise
            if staged is not None:
                try:
                    self.store.commit_image(staged, self.game_id, seq)
                except OSError:  # the roll counts without its photo; the log names a missing image
                    log.exception("the photo of action %s could not be kept", seq)
                    self.store.discard_image(staged)
            if entry.seq % CHECKPOINT_EVERY == 0:
                self._checkpoint()
            self._engine_snapshot = None
            if action.get("type") == "roll":  # a reading waiting for confirmation is settled by any roll
                self.tray.roll_recorded()
            confirmed = self._to_learn(link, action["dice"]) if link is not None and isinstance(
                action.get("dice"), list) else []
            snap = self.publish()
        # written outside the lock: an fsync per crop on an SD card must not hold up the game's other writers
        return self._learn(confirmed) if confirmed else snap

    def _to_learn(self, link: Any, dice: list) -> list[Confirmed]:
        """The dice of a roll the players confirmed or fixed that can be learnt (`link`: `{"roll": the tray's
        throw, "dice": [index of the tray die each die of the roll is, or null for one entered by hand]}`)."""
        if self.learnt is None or not isinstance(link, dict):
            return []
        roll, picks = link.get("roll"), link.get("dice")
        if not isinstance(roll, int) or not isinstance(picks, list) or len(picks) != len(dice) or not all(
                p is None or (isinstance(p, int) and not isinstance(p, bool)) for p in picks):
            return []
        if len({p for p in picks if p is not None}) != sum(p is not None for p in picks):
            return []  # one tray die named twice: not a confirmation the box can trust
        # a game that hides rolls (Regidice): the page's counts per face would tell every phone the faces of a
        # throw before its reveal, so its throws teach only their dice's colours (which its hidden rolls show)
        return confirmed_dice(self.tray.take_crops(roll), dice, picks, faces=not self.hides())

    def _learn(self, confirmed: list[Confirmed]) -> dict:
        """Keep the crops of confirmed dice; the new snapshot. The roll is already stored: nothing here may
        refuse or lose it, so a full card is reported (the camera's status) and goes no further."""
        try:
            self.learnt.keep(confirmed)
        except OSError as err:
            log.error("the learnt dice could not be kept: %s", err)
            self.tray.fault("learn", f"The box cannot keep the dice it learns ({err.strerror or err}); rolls "
                                     f"are still recorded.")
            return self.publish()
        self.tray.fault("learn", None)
        return self.publish()

    def forget_learnt(self, set_id: str) -> dict:
        """Forget every die the box learnt of a set (a phone's Forget); the new snapshot."""
        if self.learnt is not None:
            n = self.learnt.forget(set_id)
            log.info("forgot %s learnt dice of %s", n, set_id)
        return self.publish()

    def _checkpoint(self) -> None:
        """Save a checkpoint; a failure only makes the next restart replay more, so it is logged, no more."""
        try:
            seq, data = self.match.checkpoint()
            self.store.save_checkpoint(self.game_id, seq, data)
        except Exception:
            log.exception("checkpoint at %s could not be saved", self.match.seq)

    def next(self) -> dict | None:
        """The box's Next button: confirm an uncertain reading, else take the pending default option."""
        with self._lock:
            if self.tray.needs_confirmation:
                return self.confirm_tray()
            pending = self._engine_view().get("pending") or {}
            for option in pending.get("options", []):
                if option.get("default"):
                    return self._try(option["action"])
        return None

    def confirm_tray(self, values: list[int] | None = None) -> dict | None:
        """Record the dice on the tray as read (or as corrected by a player). Confirmed as read, each die goes
        with its face, colour and set as a camera roll's do: a game may need them (Regidice's colours, Mage
        Wars' attack faces and effect die)."""
        with self._lock:
            dice: list = list(values) if values is not None else []
            if values is None:
                read = self.tray.dice
                if any(d.get("value") is None for d in read):
                    self.tray.set_message("A die could not be read: enter it by hand.", "unread")
                    self.publish()
                    return None
                dice = [{k: d[k] for k in ("value", "face", "colour", "set") if d.get(k) is not None} for d in read]
            roll = self.tray.tray_view().get("roll")
            self.tray.take_confirmation()
            # confirmed as read, die i is the tray's die i (learnt from); values typed in are not linked
            link = {"roll": roll, "dice": list(range(len(dice)))} if values is None else None
            return self._try({"type": "roll", "dice": dice, "source": "manual",
                              **({"tray": link} if link else {})})

    def image_owner(self, name: str) -> str | None:
        """The player whose roll a kept photo shows (the accepted action that names it), or None."""
        with self._lock:
            for entry in reversed(self.match.entries):
                if entry.action.get("image") == name:
                    player = entry.action.get("player")
                    return str(player) if player is not None else None
            return None

    def undo(self) -> dict | None:
        return self._try({"type": "undo"})

    def _try(self, action: dict) -> dict | None:
        """Submit for a button press: an illegal press shows its message instead of raising."""
        try:
            return self.submit(action)
        except IllegalAction as err:
            self.tray.set_message(err.message, err.code)
            self.publish()
            return None

    # -- snapshots --------------------------------------------------------------------------------
    def _engine_view(self, viewer: str | None = None) -> dict:
        """The engine's snapshot of the current state for `viewer` (a player id; None: the shared view),
        built once per change and viewer (it carries odds: not cheap)."""
        with self._lock:
            if self._engine_snapshot is None:
                self._engine_snapshot = {}
            view = self._engine_snapshot.get(viewer)
            if view is None:
                view = self._engine_snapshot[viewer] = self.match.snapshot(viewer=viewer)
            return view

    # -- what each phone may see: the one place it is decided (issue 35) ------------------------------
    def hides(self) -> bool:
        """Does the game on the table hide some of a player's state from the other phones (its
        description's `hidden`)? Only then does a snapshot differ by viewer."""
        return bool(self.match.rules.describe().get("hidden"))

    def snapshot(self, viewer: str | None = None) -> dict:
        """The table as `viewer` may see it: the player a paired phone plays (a game with hidden information
        then shows that player's own secrets, the tray's hidden throw included), None for the shared screen,
        watchers, the broadcaster and the venue. A game that hides nothing shows every phone the same."""
        with self._lock:
            if not self.hides():
                viewer = None
            snap = dict(self._engine_view(viewer))
            snap.update(
                viewer=viewer,
                game_id=self.game_id,
                tray=self.tray.tray_view(viewer),
                camera=self.tray.camera_view(),
                panel=self._panel_state(),
                pairing=self.pairing.status(),
                # The game may say whose dice are on the tray (a Dice Throne hero's); else the config's set.
                dice_set=self.current_dice_set(),
                mount=self.mount,
                store=self._store_view(),
                learnt=self._learnt_view(),
            )
            return snap

    def seen_by(self, snap: dict, viewer: str | None) -> dict:
        """A published snapshot (the shared view) as `viewer` may see it, for the event streams. A game that
        hides nothing: `snap` itself, so its event is encoded once for every phone. Otherwise the viewer's
        own snapshot when it is of the same moment; a viewer whose game has moved on gets the shared view."""
        if viewer is None or not self.hides():
            return snap
        own = self.snapshot(viewer=viewer)
        if own.get("game_id") == snap.get("game_id") and own.get("seq", 0) >= snap.get("seq", 0):
            return own
        return snap

    def photo(self, name: str, viewer: str | None) -> Path | None:
        """The kept roll photo `name` if `viewer` may see it (None: no such photo). While a game with hidden
        information hides its rolls, a roll's photo is its own player's: IllegalAction("hidden_photo")."""
        path = self.image_path(name)
        if path is None or not self.hides():
            return path
        if self._engine_view().get("hidden"):
            owner = self.image_owner(name)
            if owner is not None and owner != viewer:
                raise IllegalAction("hidden_photo", "This roll's photo is its player's until the reveal.")
        return path

    def _learnt_view(self) -> dict[str, dict[str, Any]]:
        """For the page: per dice set, how many dice the box learnt (and of which faces), the set's name and
        how to draw each face learnt."""
        if self.learnt is None:
            return {}
        out = {}
        for set_id, row in self.learnt.counts().items():
            try:
                desc = spec(set_id)
            except KeyError:  # a set no game names any more: still shown, so it can be forgotten
                desc = None
            faces = desc.get("faces") if isinstance(desc, dict) else None
            shown = {}
            for pos, face in enumerate(faces or [], start=1):  # every face: the page shows which are still wanted
                shown[str(pos)] = {"face": face.get("name"), "value": face.get("value"), "glyph": face.get("glyph")}
            out[set_id] = {**row, "name": desc.get("name") if isinstance(desc, dict) else None, "shown": shown}
        return out

    def _panel_state(self) -> dict | None:
        if self.panel is None:
            return None
        try:
            return self.panel.state()
        except Exception as exc:  # the page must render even if the panel is broken
            log.exception("panel state failed")
            return {"error": str(exc)}

    def _store_view(self) -> dict:
        """For the page: whether the store works and what it had to repair. `code` and the numbers are what
        the page words in its own language (never SQLite's own report); `message` is the English sentence
        for logs and scripts."""
        recovered = self.store.recovery_report() if hasattr(self.store, "recovery_report") else None
        view: dict[str, Any] = {"recovered": recovered,
                                "set_aside": list(getattr(self.store, "set_aside", [])),
                                "not_resumed": self._not_resumed,
                                "storage_full": bool(getattr(self.store, "storage_full", False)),
                                "faults": self.tray.storage_faults()}
        if recovered:
            view["code"] = "recovered"
            lost = recovered.get("lost_games", 0)
            view["message"] = (
                f"The saved games were damaged. Recovered {recovered.get('games', 0)} game(s) and "
                f"{recovered.get('actions', 0)} action(s)" + (f"; {lost} game(s) could not be read" if lost else "")
                + f". The damaged file is kept as {recovered.get('kept_as', '?')}.")
        elif view["set_aside"]:
            view["code"] = "set_aside"
            view["message"] = "; ".join(
                f"Game {a['game']}: {a['records']} damaged record(s) set aside, resumed after move {a['resumed_at']}"
                for a in view["set_aside"])
        if self._not_resumed:
            view.setdefault("code", "not_resumed")
            view["message"] = " ".join(filter(None, [view.get("message"), self._notice]))
        return view

    def subscribe(self) -> Subscription:
        return self.broadcaster.subscribe()

    def publish(self) -> dict:
        """Show the current state: the panel's LEDs, then every watcher (in order: under the table lock)."""
        with self._lock:
            snap = self.snapshot()
            if self.panel is not None:
                try:
                    self.panel.show(snap.get("phase"), self._status_pattern(snap),
                                    phase_led(self.match.rules, snap.get("phase")))
                except Exception:  # the LEDs must never take the game down
                    log.exception("panel update failed")
            self.broadcaster.publish(snap)
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
        if button not in ("next", "undo", "pair", "throw"):
            raise IllegalAction("unknown_button", f"The box has Next, Undo and Pair buttons, not \"{button}\".")
        if button == "throw":  # the demo tray's throw button: on the page only, no pin of the box
            self.throw_dice()
        elif self.panel is not None:
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
        self.publish()
        if result == "conflict":  # the warning blink ends by itself: show the panel when it has
            self._republish_after(self.pairing.status_changes_in())
        return result

    def request_pairing(self, address: str = "", label: str = "") -> str:
        """A phone asks to pair (device.pairing.PairingRefused when this address asks too often)."""
        request_id = self.pairing.request(address, label)
        self.publish()
        self._republish_after(self.pairing.status_changes_in())  # the blink stops when the window closes
        return request_id

    def _republish_after(self, seconds: float | None) -> None:
        """Publish again once a pairing window or warning has lapsed, so the status LED and the pages stop
        showing it (nothing else changes at that moment to trigger a publish)."""
        if seconds is None:
            return
        timer = threading.Timer(seconds + 0.1, self.publish)
        timer.daemon = True
        timer.start()

    def pairing_poll(self, request_id: str) -> tuple[str, str | None, float]:
        """(status, token, seconds left) for a phone waiting to pair: see Pairing.poll."""
        return self.pairing.poll(request_id)

    def check_token(self, token: str | None) -> bool:
        return self.pairing.check(token)

    def revoke_tokens(self) -> None:
        self.pairing.revoke_all()
        self.publish()

    def revoke_phone(self, phone_id: str) -> bool:
        """Unpair one phone by its public id (Pairing.revoke)."""
        found = self.pairing.revoke(phone_id)
        if found:
            self.publish()
        return found

    # -- camera -----------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the tray service's camera thread (no-op without a camera)."""
        self.tray.start()

    def current_dice_set(self) -> str:
        """The dice set to read now: the game's (whose dice are being rolled), else the configured one."""
        return self._engine_view().get("dice_set") or self.dice_set

    def _name_the_roller(self, action: dict) -> None:
        """A camera roll is the throw of the player the game waits for: it carries that player, so the log
        says who rolled (a hand entry names its roller through the input's action already)."""
        if action.get("type") == "roll" and action.get("source") == "camera" and "player" not in action:
            roller = self._dice_input().get("player")
            if roller:
                action["player"] = roller

    def _dice_input(self) -> dict:
        """The pending decision's input when it waits for dice (engine.core: `{"type": "dice", ...}`), else {}."""
        wanted = (self._engine_view().get("pending") or {}).get("input") or {}
        return wanted if wanted.get("type") == "dice" else {}

    def tray_request(self) -> tuple[str, int | None]:
        """(dice set, how many dice) the game waits for on the tray now; the count is None when any will do.
        While phones roll for who starts (`observe`) a throw is one die, whatever the game waits for."""
        with self._lock:
            count = 1 if self.tray.observing() else self._dice_input().get("count")
            return self.current_dice_set(), count if isinstance(count, int) else None

    def wants_dice(self) -> bool:
        """True when a throw is of use now: the game waits for dice, or phones roll for who starts."""
        with self._lock:
            return self.tray.observing() or bool(self._dice_input())

    def throw_dice(self) -> dict:
        """The demo tray's "Throw the dice" (the page's panel): a throw of the dice the game waits for, and
        only when it waits for dice, so the demo never plays the game by itself. IllegalAction says why not
        (a camera that is no such tray, a game waiting for a choice, a throw still landing)."""
        if not self.tray.throws_on_ask:
            raise IllegalAction("no_demo_throw", "Only the demo tray throws dice when asked; throw real dice.")
        if not self.wants_dice():
            raise IllegalAction("no_dice_wanted", "The game is not waiting for dice now.")
        if not self.tray.throw():
            raise IllegalAction("tray_busy", "The dice are still being thrown.")
        return self.publish()

    def tray_colours(self) -> list[str]:
        """The colours of the dice the game waits for: one per die in order (Regidice's pool) or the colours
        allowed (King of Tokyo's black dice); [] when the game does not say (the demo tray's colours)."""
        with self._lock:
            colours = self._dice_input().get("colours")
            return [c for c in colours if isinstance(c, str)] if isinstance(colours, list) else []

    def hidden_roller(self) -> str | None:
        """Whose eyes only a throw settling now is for: decided once, when it settles (device.tray keeps it
        until the dice are picked up). In a game that hides information, the player whose hidden throw the
        game waits for, or NOBODY (a throw the game does not wait for shows no one its faces); else None."""
        with self._lock:
            if not self.hides():
                return None
            wanted = self._dice_input()
            player = wanted.get("player") if wanted.get("hidden") else None
            return str(player) if player is not None else NOBODY

    def tray_sets(self) -> dict[str, int | None]:
        """{dice set: how many} of the throw the game waits for, when it mixes sets (the pending input's
        `sets`, e.g. attack dice with an effect die); a single set otherwise; nothing ({}) while the game
        waits for a choice rather than dice (the demo tray then throws nothing)."""
        with self._lock:
            if self.tray.observing():  # rolling for who starts: one die of one set
                return dict([self.tray_request()])
            wanted = self._dice_input()
            sets = wanted.get("sets")
            if isinstance(sets, dict) and sets:
                return {str(k): (v if isinstance(v, int) else None) for k, v in sets.items()}
            if not wanted and self._engine_view().get("pending") is not None:
                return {}  # the game waits for a choice, not for dice (a Main phase): nothing to throw
            dice_set, count = self.tray_request()
            return {dice_set: count}

    # -- status -----------------------------------------------------------------------------------
    def health(self) -> dict:
        """For /healthz: the store, the camera (any fault of the tray's work counts), the threads."""
        store = self.store.status()
        store["faults"] = self.tray.storage_faults()  # writes the card refused (storage, not the camera)
        camera = self.tray.camera_view()
        threads = {"camera": self.tray.healthy()}
        if self.panel is not None and hasattr(self.panel, "healthy"):
            threads["panel"] = self.panel.healthy()
        if self.broadcaster.error:
            threads["broadcaster"] = False
        ok = bool(store.get("ok", True)) and all(threads.values())
        health = {"ok": ok, "camera": camera, "store": store, "threads": threads,
                  "seq": self.match.seq, "game": self.match.rules.name}
        if self.mqtt is not None:  # shown, never counted against `ok`: the box plays on without its broker
            health["mqtt"] = self.mqtt.status()
        return health

    def image_path(self, name: str) -> Path | None:
        return self.store.image_path(name)

    # -- are these dice fair? ---------------------------------------------------------------------
    def fairness(self, set_id: str | None = None, bias: float | None = None, game: int | None = None) -> dict:
        """The fairness report of every die the log holds (device.fairness_report). Each game's dice are tallied
        once and kept until its log changes, so a page load reads only the game being played. A game that hides
        rolls keeps its dice out while it is on the table: counts that move with each throw would tell every
        phone the faces of a throw before its reveal. `game`: that game's dice only (a "test my dice" is a free
        roll of its own); `plan` is how many throws such a test asks for with the dice the box reads now."""
        from . import dice_log, dice_sets, fairness, fairness_report

        with self._lock:
            hidden = self.game_id if self.hides() else None
            reading = self.current_dice_set()
        with self._fairness_lock:  # web threads ask at once; the game's writer never waits for this
            marks = dice_log.log_marks(self.store.path)
            kept = self._fairness_tallies
            stale = [g for g, mark in marks.items() if kept.get(g, (None,))[0] != mark]
            if stale:
                specs, game_sets = dice_sets.specs(), dice_sets.game_sets()
                by_game: dict[int, list] = {g: [] for g in stale}
                for row in dice_log.read_log(self.store.path, stale):
                    by_game[row.game_id].append(row)
                for gid, rows in by_game.items():
                    dice, virtual = dice_log.die_rolls(rows)
                    kept[gid] = (marks[gid], fairness_report.tally(dice, specs, game_sets, virtual))
            total = fairness_report.Tally()
            for g, (_mark, part) in kept.items():
                if g in marks and g != hidden and game in (None, g):
                    total.add(part)
        bias = fairness.DEFAULT_BIAS if bias is None else bias
        specs = dice_sets.specs()
        report = fairness_report.build(total, specs, only_set=set_id, bias=bias)
        report["left_out_game"] = hidden
        report["game"] = game
        report["plan"] = ({"set": reading, "throws": fairness_report.plan(specs[reading], bias)}
                          if reading in specs else None)
        return report

    def close(self) -> None:
        self.tray.close()
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
