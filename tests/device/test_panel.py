"""Panel: buttons through gpiozero's mock pins, timed with a fake clock; LEDs and their patterns."""

from __future__ import annotations

import threading

import pytest
from gpiozero.pins.mock import MockFactory

from device.config import PHASE_LED_NAMES, GpioConfig
from device.panel import PATTERNS, GpioUnavailable, Panel, make_pin_factory


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.t += s


class Rig:
    """A panel on mock pins with recorded actions and helpers for timed pin drives."""

    def __init__(self, config: GpioConfig | None = None) -> None:
        self.clock = Clock()
        self.factory = MockFactory()
        self.events: list[str] = []
        self.config = config or GpioConfig()
        self.panel = Panel(self.config, self.factory, clock=self.clock, sleep=self.clock.sleep, autotick=False,
                           **{f"on_{e}": (lambda e=e: self.events.append(e))
                              for e in ("next", "undo", "pair", "shutdown")})

    def pin(self, button: str):
        return self.factory.pin(self.config.buttons[button])

    def at(self, dt: float) -> None:
        """Let `dt` seconds pass, ticking every 10 ms as the panel thread does."""
        end = self.clock.t + dt
        while self.clock.t < end - 1e-9:
            self.clock.t = min(end, self.clock.t + 0.01)
            self.panel.tick()

    def drive(self, button: str, *levels: tuple[bool, float]) -> None:
        """Timed drive: (pressed, seconds) steps on the button's pin."""
        pin = self.pin(button)
        for pressed, dt in levels:
            pin.drive_low() if pressed else pin.drive_high()
            self.at(dt)


@pytest.fixture
def rig():
    r = Rig()
    yield r
    r.panel.close()


def test_clean_short_press_of_next(rig: Rig) -> None:
    rig.drive("next", (True, 0.1), (False, 0.1))
    assert rig.events == ["next"]


def test_bouncy_contact_counts_once(rig: Rig) -> None:
    # a real switch chatters for a few ms on the way down and on the way up
    rig.drive("next", (True, 0.002), (False, 0.003), (True, 0.001), (False, 0.002), (True, 0.15),
              (False, 0.004), (True, 0.002), (False, 0.2))
    assert rig.events == ["next"]


def test_glitch_shorter_than_debounce_is_ignored(rig: Rig) -> None:
    rig.drive("next", (True, 0.01), (False, 0.5))
    rig.drive("pair", (True, 0.01), (False, 0.5))
    assert rig.events == []


def test_undo_needs_a_long_press(rig: Rig) -> None:
    rig.drive("undo", (True, 0.3), (False, 0.2))
    assert rig.events == []
    rig.drive("undo", (True, 0.9), (False, 0.2))
    assert rig.events == ["undo"]


def test_undo_acts_while_still_held_and_only_once(rig: Rig) -> None:
    rig.drive("undo", (True, 3.0))
    assert rig.events == ["undo"]
    assert rig.panel.state()["buttons"]["undo"] is True
    rig.drive("undo", (False, 0.2))
    assert rig.events == ["undo"]
    assert rig.panel.state()["buttons"]["undo"] is False


def test_bounce_inside_a_long_press_does_not_split_it(rig: Rig) -> None:
    rig.drive("undo", (True, 0.5), (False, 0.005), (True, 0.5), (False, 0.2))
    assert rig.events == ["undo"]


def test_pair_short_press_approves_hold_shuts_down(rig: Rig) -> None:
    rig.drive("pair", (True, 0.3), (False, 0.1))
    assert rig.events == ["pair"]
    rig.drive("pair", (True, 4.5))
    assert rig.events == ["pair"]  # not yet: still short of the 5 s hold
    rig.drive("pair", (True, 0.6))
    assert rig.events == ["pair", "shutdown"]
    rig.drive("pair", (False, 0.2))
    assert rig.events == ["pair", "shutdown"]  # releasing after a shutdown hold does not also pair


def test_long_press_seen_at_release_even_without_ticks(rig: Rig) -> None:
    pin = rig.pin("undo")
    pin.drive_low()
    rig.clock.t += 2.0  # the tick thread was starved
    pin.drive_high()
    rig.at(0.1)
    assert rig.events == ["undo"]


def test_virtual_press_goes_through_the_pins(rig: Rig) -> None:
    rig.panel.press("next")
    rig.panel.press("undo")  # a tap: too short for undo
    rig.panel.press("undo", hold_s=1.0)
    rig.panel.press("pair")
    rig.panel.press("pair", hold_s=5.0)
    assert rig.events == ["next", "undo", "pair", "shutdown"]
    with pytest.raises(ValueError):
        rig.panel.press("reset")


def test_the_shutdown_s_close_never_overlaps_the_release_of_the_held_pair() -> None:
    """A held Pair shuts the box down: the box's main thread closes the panel while the pressing thread is
    still holding. gpiozero's close of a held button waits for the release, then went on releasing the pins
    while the release's own callbacks still ran on them, and the press raised from inside gpiozero
    (TypeError: ButtonBoardValue.__new__() missing 3 required positional arguments, a board read
    half-closed): the flaky poweroff test of test_box.py. Now a release is driven wholly before the close
    or not at all."""
    r = Rig()
    closer = threading.Thread(target=r.panel.close)
    closed = threading.Event()
    overlaps: list[bool] = []

    def hold(seconds: float) -> None:  # the shutdown arrives during the hold
        r.clock.sleep(seconds)
        if not closer.is_alive() and not closed.is_set():
            closer.start()
            closer.join(0.3)  # let it reach gpiozero's wait for the release

    edge = r.panel._edge

    def release_callback(name: str, pressed: bool) -> None:  # runs inside the pin's release
        if not pressed:
            overlaps.append(closed.wait(1.0))  # did the close finish while the release was running?
        edge(name, pressed)

    def close_then_flag() -> None:
        Panel.close(r.panel)
        closed.set()

    closer = threading.Thread(target=close_then_flag)
    r.panel._sleep = hold
    r.panel._edge = release_callback
    r.panel.press("pair", hold_s=0.2)
    closer.join(5)
    assert closed.is_set() and True not in overlaps  # (a release after the close is not driven at all)
    r.panel.press("pair")  # a press after the close touches no pin and raises nothing


def test_custom_timings_from_config() -> None:
    r = Rig(GpioConfig(long_press_s=2.0, shutdown_hold_s=3.0))
    try:
        r.drive("undo", (True, 1.5), (False, 0.1))
        r.drive("pair", (True, 3.1), (False, 0.1))
        assert r.events == ["shutdown"]
    finally:
        r.panel.close()


def test_phase_leds_light_the_slot_the_game_names(rig: Rig) -> None:
    """The panel knows no phase names: the table passes the LED slot from the game's description."""
    leds = {name: rig.factory.pin(pin) for name, pin in rig.config.leds.items()}
    rig.panel.show("offensive", "ready", 2)
    assert leds["phase3"].state and not leds["phase2"].state and not leds["phase1"].state
    state = rig.panel.state()
    assert state["leds"]["phase3"] is True and state["leds"]["phase2"] is False and state["slot"] == 2
    rig.panel.show("main2", "ready", 1)
    assert leds["phase2"].state and not leds["phase3"].state
    rig.panel.show("over", "ready", None)  # a phase with no LED
    assert not any(leds[n].state for n in PHASE_LED_NAMES)
    rig.panel.show("roll", "ready", 7)  # a slot the row does not have lights nothing
    assert not any(leds[n].state for n in PHASE_LED_NAMES)


def _runs(rig: Rig, status: str, seconds: float = 6.0, step: float = 0.025) -> list[tuple[bool, float]]:
    """Watch the status LED pin: (level, how long) runs, the first and last (cut) runs dropped."""
    led = rig.factory.pin(rig.config.leds["status"])
    rig.panel.show(None, status)
    levels = []
    for _ in range(round(seconds / step)):
        rig.at(step)
        levels.append(bool(led.state))
        assert rig.panel.state()["leds"]["status"] == {"on": bool(led.state), "pattern": status}
    runs: list[list] = []
    for level in levels:
        if runs and runs[-1][0] == level:
            runs[-1][1] += step
        else:
            runs.append([level, step])
    kept = runs[1:-1] if len(runs) > 2 else runs
    return [(lv, round(d, 3)) for lv, d in kept]


def _flash_groups(runs: list[tuple[bool, float]]) -> list[int]:
    """Flashes per whole group, groups being split by a dark pause of at least 0.4 s."""
    groups, count = [], 0
    for level, duration in runs:
        if level:
            count += 1
        elif duration >= 0.4 and count:
            groups.append(count)
            count = 0
    return groups[1:]  # the first group may have started before we looked


def test_status_patterns_are_distinct(rig: Rig) -> None:
    assert _runs(rig, "ready") == [(True, 6.0)]  # steady on
    reading = _runs(rig, "reading")
    assert len(reading) > 20 and all(d <= 0.15 for _, d in reading)  # fast, even blink
    confirm = _runs(rig, "confirm")
    assert len(confirm) >= 4 and all(d >= 0.5 for _, d in confirm)  # slow blink
    assert set(_flash_groups(_runs(rig, "pairing"))) == {2}  # double blink
    assert set(_flash_groups(_runs(rig, "camera_error"))) == {3}  # triple flash
    with pytest.raises(ValueError):
        rig.panel.show(None, "party")
    assert set(PATTERNS) >= {"ready", "reading", "confirm", "pairing", "camera_error"}


def test_state_lists_every_button_and_led(rig: Rig) -> None:
    state = rig.panel.state()
    assert set(state["buttons"]) == {"next", "undo", "pair"}
    assert set(PHASE_LED_NAMES) <= set(state["leds"])
    assert state["leds"]["status"]["pattern"] == "ready"
    assert state["mock"] is True


def test_unwired_pins_and_extra_leds() -> None:
    config = GpioConfig(buttons={"next": 17, "undo": None, "pair": 22},
                        leds={"phase1": 5, "phase2": None, "status": 12, "victory": 21})
    r = Rig(config)
    try:
        r.panel.press("undo", hold_s=1.0)  # not wired: the virtual button still works
        assert r.events == ["undo"]
        r.panel.show("victory", "ready")  # an extra LED lights for the phase of its own name
        assert r.factory.pin(21).state and r.panel.state()["leds"]["victory"] is True
    finally:
        r.panel.close()


def test_failing_action_does_not_break_the_panel() -> None:
    clock = Clock()
    calls = []

    def broken() -> None:
        calls.append(1)
        raise RuntimeError("boom")

    panel = Panel(GpioConfig(), MockFactory(), on_next=broken, clock=clock, sleep=clock.sleep, autotick=False)
    try:
        panel.press("next")
        panel.press("next")
        assert len(calls) == 2
    finally:
        panel.close()


def test_background_thread_with_real_clock() -> None:
    got = []
    panel = Panel(GpioConfig(), MockFactory(), on_next=lambda: got.append("next"))
    try:
        panel.press("next")
        assert got == ["next"]
    finally:
        panel.close()


class BrokenFactory:
    """A real pin factory on a Pi whose /dev/gpiochip0 the service may not open."""

    def __getattr__(self, name):
        raise PermissionError("can not open gpiochip")


# gpiozero's Button.__del__ trips over the half-built button the broken factory leaves behind: its noise.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_unusable_gpio_is_an_error_never_mock_pins(caplog) -> None:
    """Issue 11 (3): real pins that cannot be opened must not turn into mock pins (which would switch the
    page's virtual Pair on for every phone): the panel runs without pins, says why, blinks gpio_error."""
    got = []
    clock = Clock()
    panel = Panel(GpioConfig(), BrokenFactory(), on_next=lambda: got.append("next"), clock=clock,
                  sleep=clock.sleep, autotick=False)
    try:
        state = panel.state()
        assert state["mock"] is False and "gpiochip" in state["gpio_error"]
        assert "gpiochip" in state["message"] and state["wired"] == []
        assert state["leds"]["status"]["pattern"] == "gpio_error"
        panel.show("roll", "ready", 2)
        assert panel.state()["leds"]["status"]["pattern"] == "gpio_error"  # stays until the GPIO is fixed
        assert "cannot be used" in caplog.text
        panel.press("next")  # the page's virtual Next still acts
        assert got == ["next"]
    finally:
        panel.close()


def test_pin_factory_is_mock_only_when_asked_or_off_a_pi(monkeypatch) -> None:
    assert isinstance(make_pin_factory("mock", on_pi=True), MockFactory)
    assert isinstance(make_pin_factory("auto", on_pi=False), MockFactory)

    def refuse() -> None:
        raise OSError("no access to /dev/gpiochip0")

    monkeypatch.setattr("device.panel.Device.ensure_pin_factory", staticmethod(refuse))
    with pytest.raises(GpioUnavailable, match="gpiochip0"):
        make_pin_factory("auto", on_pi=True)


def test_a_pi_whose_gpio_fails_gets_a_panel_without_pins(monkeypatch) -> None:
    monkeypatch.setattr("device.panel.on_raspberry_pi", lambda: True)

    def refuse() -> None:
        raise OSError("no access to /dev/gpiochip0")

    monkeypatch.setattr("device.panel.Device.ensure_pin_factory", staticmethod(refuse))
    clock = Clock()
    panel = Panel(GpioConfig(), "auto", clock=clock, sleep=clock.sleep, autotick=False)
    try:
        assert panel.factory is None and panel.mock is False and "gpiochip0" in panel.gpio_error
    finally:
        panel.close()


def test_the_panel_thread_survives_a_failing_tick() -> None:
    """Issue 11 #4: every thread of the box survives an error of its work and reports it."""
    clock = Clock()
    panel = Panel(GpioConfig(), MockFactory(), clock=clock, sleep=clock.sleep, autotick=False)
    ticks = {"n": 0}
    real_tick = panel.tick

    def flaky() -> None:
        ticks["n"] += 1
        if ticks["n"] == 1:
            raise OSError("GPIO glitch")
        if ticks["n"] == 3:
            panel._stop.set()
        real_tick()

    panel.tick = flaky
    try:
        panel._stop.wait = lambda _s: panel._stop.is_set()  # no real waiting between ticks
        panel._run()
        assert ticks["n"] == 3 and panel.tick_error is None and panel.healthy()
    finally:
        panel.close()


def test_a_failing_tick_is_reported_until_it_passes() -> None:
    clock = Clock()
    panel = Panel(GpioConfig(), MockFactory(), clock=clock, sleep=clock.sleep, autotick=False)

    def broken() -> None:
        panel._stop.set()
        raise OSError("GPIO glitch")

    panel.tick = broken
    try:
        panel._stop.wait = lambda _s: panel._stop.is_set()
        panel._run()
        assert panel.healthy() is False and panel.state()["tick_error"] == "GPIO glitch"
    finally:
        panel.close()


# gpiozero's Button.__del__ trips over the half-built button the broken factory leaves behind: its noise.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_box_whose_gpio_failed_keeps_the_virtual_pair_to_itself(tmp_path) -> None:
    """Issue 11 (3): mock pins used to stand in for broken GPIO, which turned the page's Pair button on for
    every phone. Now a phone on the Wi-Fi is refused; the box itself (loopback) may still press it; the
    page is told why (snapshot panel.gpio_error / message) and the status LED pattern says so."""
    from device.store import Store
    from device.table import Table
    from webui import create_app

    clock = Clock()
    table = Table(Store(tmp_path))
    table.panel = Panel(GpioConfig(), BrokenFactory(), on_pair=table.approve_pairing, clock=clock,
                        sleep=clock.sleep, autotick=False)
    try:
        assert table.virtual_panel is False
        snap = table.snapshot()
        assert snap["panel"]["mock"] is False and "gpiochip" in snap["panel"]["message"]
        table.publish()
        assert table.snapshot()["panel"]["leds"]["status"]["pattern"] == "gpio_error"
        app = create_app(table, secret_key="k", testing=True)
        phone = app.test_client()
        phone.environ_base["REMOTE_ADDR"] = "192.168.1.50"
        r = phone.post("/api/panel/pair", headers={"X-Dicesight-CSRF": "x"})
        assert r.status_code == 403 and r.get_json()["code"] == "panel_physical"
        assert phone.get("/api/session").get_json()["virtual_pair"] is False
        box = app.test_client()  # loopback: someone at the box
        assert box.post("/api/panel/pair", headers={"X-Dicesight-CSRF": "x"}).status_code == 200
    finally:
        table.close()
