"""The box's buttons and LEDs through gpiozero: Next, Undo (long press), Pair (held = shut down).

Why debounce, long press and hold live here and not in gpiozero: gpiozero's mock pins ignore bounce_time,
so behaviour that only the library implemented could never be tested off the Pi. Here every pin edge is
stamped with our own `clock`, a button counts as pressed or released only once its level has been stable
for `debounce_s`, and time-based events (Undo's long press, Pair's shutdown hold, the status LED's blink
pattern) are decided in `tick()`, which a small background thread calls every few milliseconds. Tests
drive the mock pins, move a fake clock and call `tick()` themselves: no sleeps, no timing asserts.

What each button does:
- Next: acts as soon as a press is stable (advance the phase, or confirm the dice the camera read).
- Undo: acts once the press has lasted `long_press_s` (a brushed button undoes nothing).
- Pair: a press released before `shutdown_hold_s` approves a phone; held that long shuts the box down.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpiozero import ButtonBoard, Device, LEDBoard
from gpiozero.pins.mock import MockFactory

from .config import PHASE_LED_NAMES, GpioConfig

log = logging.getLogger("dicesight.panel")

# Status LED patterns: (level, seconds) steps repeated forever. Distinct by rhythm, not brightness, so a
# single plain LED shows them all.
PATTERNS: dict[str, list[tuple[bool, float]]] = {
    "off": [(False, 1.0)],
    "ready": [(True, 1.0)],  # steady
    "reading": [(True, 0.1), (False, 0.1)],  # fast blink
    "confirm": [(True, 0.6), (False, 0.6)],  # slow blink: look at the phone and confirm
    "pairing": [(True, 0.1), (False, 0.15), (True, 0.1), (False, 0.65)],  # double blink
    # A press of Pair admitted nobody (two or more phones were waiting): a quick burst of four.
    "pair_conflict": [(True, 0.05), (False, 0.05)] * 4 + [(False, 0.6)],
    "camera_error": [(True, 0.15), (False, 0.15)] * 3 + [(False, 0.9)],  # triple flash, pause
    "gpio_error": [(True, 1.0), (False, 0.15), (True, 0.15), (False, 0.7)],  # long-short: the panel is faulty
}

TICK_S = 0.01
# Exit status of `dicesight run` after Pair was held for shutdown_hold_s: systemd/dicesight.service powers
# the Pi off on exactly this status (ExecStopPost=), and on no other stop or exit.
SHUTDOWN_EXIT_STATUS = 75
BUTTON_NAMES = ("next", "undo", "pair")
GPIO_MESSAGE = ("The box's buttons and LEDs cannot be used ({error}). Use the page's panel; pairing a phone "
                "then needs the box itself (loopback) until the GPIO is fixed.")
Callback = Callable[[], Any]


class GpioUnavailable(Exception):
    """The real pins of this Pi cannot be opened (no lgpio, no access to /dev/gpiochip*, pin busy)."""


def on_raspberry_pi(model_path: Path = Path("/proc/device-tree/model")) -> bool:
    """True on a Raspberry Pi (its device tree names the board)."""
    try:
        return "raspberry pi" in model_path.read_bytes().decode("ascii", "replace").lower()
    except OSError:
        return False


def make_pin_factory(kind: str = "auto", *, on_pi: bool | None = None) -> Any:
    """The ONE gpiozero pin factory of the box: mock pins when asked (`mock`) or off a Pi, else the real ones.

    On a Pi a failure to open the real pins raises GpioUnavailable: it must never turn into mock pins by
    itself, because mock pins switch the page's virtual Pair button on for every phone (issue 11).
    """
    if kind == "mock" or not (on_raspberry_pi() if on_pi is None else on_pi):
        return MockFactory()
    try:
        Device.ensure_pin_factory()
    except Exception as exc:
        raise GpioUnavailable(str(exc) or type(exc).__name__) from exc
    return Device.pin_factory


@dataclass
class _Button:
    """Debounce and press-timing state of one button (all times from the panel's clock)."""

    name: str
    raw: bool = False  # level as last seen on the pin (True = pressed)
    raw_since: float = 0.0
    pressed: bool = False  # debounced
    press_start: float = 0.0
    acted: bool = False  # this press already did its long-press / hold action


class Panel:
    """Buttons and LEDs of the box, with the page's virtual copy (`state`, `press`).

    `pin_factory` is the box's one gpiozero pin factory (see `make_pin_factory`), passed to the
    ButtonBoard and the LEDBoard; a string ("auto"/"mock") makes it here. When the real pins cannot be
    used the panel still runs without them: `gpio_error` says why, the status pattern becomes
    "gpio_error", `mock` stays False (so the page's Pair button stays loopback-only), and the page's
    virtual buttons act through `press`.
    """

    def __init__(self, pins_config: GpioConfig | None = None, pin_factory: Any = None, *,
                 on_next: Callback | None = None, on_undo: Callback | None = None,
                 on_pair: Callback | None = None, on_shutdown: Callback | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep,
                 autotick: bool = True) -> None:
        self.config = pins_config or GpioConfig()
        self.gpio_error: str | None = None
        self.tick_error: str | None = None
        if pin_factory is None or isinstance(pin_factory, str):
            try:
                pin_factory = make_pin_factory(pin_factory or self.config.pin_factory)
            except GpioUnavailable as exc:
                pin_factory = None
                self._gpio_failed(exc)
        self.factory = pin_factory
        self.mock = isinstance(pin_factory, MockFactory)
        self._clock = clock
        self._sleep = sleep
        self._callbacks: dict[str, Callback | None] = {
            "next": on_next, "undo": on_undo, "pair": on_pair, "shutdown": on_shutdown}
        self._lock = threading.RLock()
        # Pins are driven (a virtual press) and released (close) one at a time: see `_drive`.
        self._pins_lock = threading.Lock()
        self._closed = False
        self._phase: str | None = None
        self._slot: int | None = None
        self._status = "off"
        self._pattern_start = clock()
        self._status_level = False

        now = clock()
        self._buttons = {name: _Button(name, raw_since=now) for name in BUTTON_NAMES}
        self.button_board: ButtonBoard | None = None
        self.led_board: LEDBoard | None = None
        self.led_names = [n for n in dict.fromkeys([*PHASE_LED_NAMES, *self.config.leds]) if n != "status"]
        if pin_factory is not None:
            self._open_boards(pin_factory)
        self._phase_lit: dict[str, bool] = dict.fromkeys(self.led_names, False)
        self.show(None, "ready")

        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if autotick:
            self._thread = threading.Thread(target=self._run, name="panel", daemon=True)
            self._thread.start()

    def _gpio_failed(self, exc: BaseException) -> None:
        self.gpio_error = str(exc) or type(exc).__name__
        log.error("panel: the GPIO pins cannot be used (%s); buttons work only on the page, and pairing "
                  "a phone needs the box itself", self.gpio_error)

    def _open_boards(self, pin_factory: Any) -> None:
        """One ButtonBoard and one LEDBoard on the given factory; each may fail on its own (a busy pin)."""
        buttons = {n: pin for n in BUTTON_NAMES if (pin := self.config.buttons.get(n)) is not None}
        leds = {n: pin for n in [*self.led_names, "status"] if (pin := self.config.leds.get(n)) is not None}
        if buttons:
            try:
                # bounce_time=None: debounce is ours (module doc); the pins only report raw edges.
                board = ButtonBoard(pull_up=True, bounce_time=None, pin_factory=pin_factory,
                                    _order=list(buttons), **buttons)
            except Exception as exc:
                if self.mock:
                    raise
                self._gpio_failed(exc)
            else:
                for name in buttons:
                    button = getattr(board, name)
                    button.when_pressed = lambda n=name: self._edge(n, True)
                    button.when_released = lambda n=name: self._edge(n, False)
                self.button_board = board
        if leds:
            try:
                self.led_board = LEDBoard(pin_factory=pin_factory, _order=list(leds), **leds)
            except Exception as exc:
                if self.mock:
                    raise
                self._gpio_failed(exc)

    @property
    def wired(self) -> list[str]:
        """Names of the buttons and LEDs that have a real (or mock) pin."""
        names: list[str] = []
        for board in (self.button_board, self.led_board):
            if board is not None:
                names += list(board.namedtuple._fields)
        return sorted(names)

    # -- LEDs -----------------------------------------------------------------------------------
    def show(self, phase: str | None, status: str, led: int | None = None) -> None:
        """Light phase LED slot `led` (0-4, from the game's description of `phase`) and set the status
        pattern. An extra LED named like a phase lights for that phase too."""
        if self.gpio_error is not None and status not in ("camera_error",):
            status = "gpio_error"
        if status not in PATTERNS:
            raise ValueError(f"Unknown status pattern {status!r} (known: {', '.join(PATTERNS)})")
        slot_name = PHASE_LED_NAMES[led] if isinstance(led, int) and 0 <= led < len(PHASE_LED_NAMES) else None
        with self._lock:
            self._phase = phase
            self._slot = led if slot_name is not None else None
            for name in self.led_names:
                lit = phase is not None and (name == slot_name or name == phase)
                self._phase_lit[name] = lit
                self._write_led(name, lit)
            if status != self._status:
                self._status = status
                self._pattern_start = self._clock()
            self._update_status_led(self._clock())

    def _update_status_led(self, now: float) -> None:
        steps = PATTERNS[self._status]
        period = sum(d for _, d in steps)
        pos = (now - self._pattern_start) % period
        level = steps[-1][0]
        for on, dur in steps:
            if pos < dur:
                level = on
                break
            pos -= dur
        if level != self._status_level:
            self._status_level = level
            self._write_led("status", level)

    def _write_led(self, name: str, on: bool) -> None:
        dev = getattr(self.led_board, name, None) if self.led_board is not None else None
        if dev is not None:
            try:
                dev.value = 1 if on else 0
            except Exception as exc:  # a GPIO glitch must never stop the game
                log.warning("panel: LED %s could not be set: %s", name, exc)

    # -- buttons --------------------------------------------------------------------------------
    def _edge(self, name: str, pressed: bool) -> None:
        """A raw pin change (gpiozero's callback thread, or `press` without mock pins)."""
        now = self._clock()
        fire: list[str] = []
        with self._lock:
            b = self._buttons[name]
            self._settle(b, now, fire)
            if pressed != b.raw:
                b.raw = pressed
                b.raw_since = now
        self._fire(fire)

    def tick(self) -> None:
        """Decide everything that depends on time passing: debounce, long press, hold, blinking."""
        now = self._clock()
        fire: list[str] = []
        with self._lock:
            for b in self._buttons.values():
                self._settle(b, now, fire)
                self._held(b, now, fire)
            self._update_status_led(now)
        self._fire(fire)

    def _settle(self, b: _Button, now: float, fire: list[str]) -> None:
        """Commit the raw level once it has been stable for debounce_s."""
        if b.raw == b.pressed or now - b.raw_since < self.config.debounce_s:
            return
        at = b.raw_since
        if b.raw:
            b.pressed, b.press_start, b.acted = True, at, False
            if b.name == "next":
                fire.append("next")
            return
        self._held(b, at, fire)  # a hold that ended between ticks still counts
        b.pressed = False
        if b.name == "pair" and not b.acted:
            fire.append("pair")

    def _held(self, b: _Button, now: float, fire: list[str]) -> None:
        if not b.pressed or b.acted:
            return
        held = now - b.press_start
        if b.name == "undo" and held >= self.config.long_press_s:
            b.acted = True
            fire.append("undo")
        elif b.name == "pair" and held >= self.config.shutdown_hold_s:
            b.acted = True
            fire.append("shutdown")

    def _fire(self, events: list[str]) -> None:
        for event in events:
            log.info("panel: %s", event)
            callback = self._callbacks.get(event)
            if callback is None:
                continue
            try:
                callback()
            except Exception:  # a failing action must not kill the button thread
                log.exception("panel: the %s action failed", event)

    def press(self, button: str, hold_s: float = 0.0) -> None:
        """Press `button` as a finger would: down, held `hold_s` (at least past debounce), up.

        With mock pins the pin itself is driven, so the page's virtual buttons go through exactly the
        path of a real press. Blocks for the hold; call it from a worker thread for long holds.
        """
        if button not in self._buttons:
            raise ValueError(f"Unknown button {button!r} (known: {', '.join(BUTTON_NAMES)})")
        hold = max(float(hold_s), 2 * self.config.debounce_s, 0.05)
        dev = getattr(self.button_board, button, None) if self.button_board is not None else None
        if self.mock and dev is not None:
            if not self._drive(dev, pressed=True):
                return
        else:
            self._edge(button, True)
        self._sleep(hold)
        self.tick()
        if self.mock and dev is not None:
            if not self._drive(dev, pressed=False):
                return  # the panel was closed during the hold (a held Pair shuts the box down)
        else:
            self._edge(button, False)
        self._sleep(2 * self.config.debounce_s)
        self.tick()

    def _drive(self, dev: Any, *, pressed: bool) -> bool:
        """Drive a button's mock pin as a finger would; False (nothing done) once the panel is closed.

        Why a lock: a held Pair shuts the box down, and the box's main thread then closes the panel (and
        its pins) while the pressing thread is still in its hold. Unsynchronised, the release could drive a
        pin that `close` was releasing at that moment: gpiozero's mock pin checks its edge callback, then
        calls it, and `close` clears it in between (TypeError: 'NoneType' object is not callable), or the
        pin is already gone (DeviceClosed, AttributeError). Under `_pins_lock` a drive happens wholly
        before the pins are released, or not at all.
        """
        with self._pins_lock:
            if self._closed:
                return False
            if pressed:
                dev.pin.drive_low()
            else:
                dev.pin.drive_high()
            return True

    # -- the page's view ------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """LEDs and buttons as the page's virtual panel draws them."""
        with self._lock:
            leds: dict[str, Any] = dict(self._phase_lit)
            leds["status"] = {"on": self._status_level, "pattern": self._status}
            buttons = {name: b.pressed for name, b in self._buttons.items()}
            out = {"phase": self._phase, "slot": self._slot, "leds": leds, "buttons": buttons,
                   "wired": self.wired, "mock": self.mock, "gpio_error": self.gpio_error}
            if self.tick_error is not None:
                out["tick_error"] = self.tick_error
            if self.gpio_error is not None:
                out["message"] = GPIO_MESSAGE.format(error=self.gpio_error)
            return out

    # -- lifetime -------------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.wait(TICK_S):
            try:
                self.tick()
            except Exception as exc:  # a GPIO glitch: report it, keep ticking (it may pass)
                if self.tick_error is None:
                    log.exception("panel: tick failed")
                self.tick_error = str(exc) or type(exc).__name__
            else:
                self.tick_error = None

    def healthy(self) -> bool:
        """False when the panel's thread died or its last tick failed (for /healthz)."""
        thread = getattr(self, "_thread", None)
        alive = thread is None or thread.is_alive() or self._stop.is_set()
        return alive and self.tick_error is None

    def close(self) -> None:
        """Stop the thread, switch the LEDs off and release the pins."""
        if hasattr(self, "_stop"):
            self._stop.set()
        if getattr(self, "_thread", None) is not None:
            self._thread.join(timeout=1.0)
        with self._pins_lock:  # never while a virtual press drives a pin (see `_drive`)
            self._closed = True
            _wake_hold_threads(self.button_board)
            for board in (self.button_board, self.led_board):
                if board is None:
                    continue
                try:
                    if board is self.led_board:
                        board.off()
                    board.close()
                except Exception:  # closing is best effort: the process is ending anyway
                    log.warning("panel: could not release the pins", exc_info=True)
            self.button_board = self.led_board = None

    def __enter__(self) -> Panel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _wake_hold_threads(board) -> None:
    """gpiozero stops each button's hold thread in turn when a board closes, and each notices only at its
    next 0.1 s poll: a panel took 0.2-0.3 s to close. Telling every hold thread to stop, and waking it,
    before the close makes them end together. (gpiozero's `_hold_thread` is not public: without it the
    close is only slower.)"""
    if board is None:
        return
    for device in (board, *getattr(board, "all", ())):
        thread = getattr(device, "_hold_thread", None)
        if thread is not None:
            thread.stopping.set()
            thread.holding.set()
