"""The real box for web and browser tests, faked only at the hardware: the real table service
(device.table.Table) with its store, pairing and tray service, the panel on gpiozero's mock pins, a camera
that is a FrameSource test double (or none, or the demo tray), and one injected clock for the pairing
window and the panel's debounce, so no test waits in real time.

What the camera would have read is put on the tray through the tray service's own door
(`TrayService.set_tray`, the one a venue's remote tray uses) and published like any change.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
from gpiozero.pins.mock import MockFactory

from device.camera.base import Frame
from device.camera.demo import DemoTray
from device.config import GpioConfig
from device.pairing import Pairing
from device.panel import Panel
from device.store import Store
from device.table import Table


class Clock:
    """Time that moves only when a test (or a press's hold) moves it."""

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += max(0.0, seconds)


class StatusCamera:
    """A camera at the hardware boundary: blank frames and the status a USB camera reports
    ("ok", "reconnecting" after an unplug...). Tests step the tray service by hand (`show_camera`)."""

    name = "test-camera"

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.state = {"status": "ok", "message": ""}

    def read(self) -> Frame:
        return Frame(image=np.zeros((48, 64, 3), np.uint8), t=self.clock())

    def status(self) -> dict[str, str]:
        return dict(self.state)

    def close(self) -> None:
        pass


def make_table(tmp_path: Path, *, clock: Clock | None = None, camera: Any = "status",
               game: str | None = None, setup: dict | None = None, seed: int = 1) -> Table:
    """A real table in `tmp_path` with a mock-pin panel. `camera`: "status" (a StatusCamera reporting ok),
    None (no camera: dice by hand) or a FrameSource (the demo tray)."""
    clock = clock or Clock()
    if camera == "status":
        camera = StatusCamera(clock)
    # Phones in tests ask from one loopback address: allow them all (the limit is tested by hardening).
    pairing = Pairing(tmp_path / "tokens.json", clock=clock, asks_per_address=1000)
    seeds = random.Random(seed)  # games the page starts get seeds from here: the same games every run
    table = Table(Store(tmp_path / "state"), camera=camera, pairing=pairing, clock=clock,
                  seeds=lambda: seeds.getrandbits(32))
    table.panel = Panel(GpioConfig(), MockFactory(), on_next=table.next, on_undo=table.undo,
                        on_pair=table.approve_pairing, on_shutdown=table.shutdown_requested.set,
                        clock=clock, sleep=clock.sleep, autotick=False)
    if isinstance(camera, StatusCamera):
        table.tray.step()  # the camera's first frame: it reports ok
        table.tray.set_tray("empty", [])  # and the tray starts empty (not settling on that one frame)
    if game is not None:
        table.new_game(game, setup or {}, seed)
    else:
        table.publish()
    return table


def demo_table(tmp_path: Path, seed: int, *, mount: str = "under", throw: str = "ask") -> Table:
    """A real table whose camera is the demo tray with no clock of its own (`realtime=False`): each frame
    is 1/15 s of tray time later, and nothing moves until a test steps it (`throw_demo`). The tray throws
    what the game waits for, when asked (`throw="ask"`, as `dicesight run` does) or every cycle ("auto"),
    wired as `dicesight run --camera demo` wires it (device/box.py)."""
    tray = DemoTray(seed=seed, realtime=False, mount=mount, throw=throw)
    table = make_table(tmp_path, camera=tray)
    tray.follow = table.tray_request
    tray.follow_sets = table.tray_sets
    tray.follow_colours = table.tray_colours
    return table


def throw_demo(table: Table, max_frames: int = 400, *, ask: bool = True) -> tuple[list, Any]:
    """Ask the demo tray for a throw as the page's "Throw the dice" does (`ask=False`: a phone asked
    already), then step it frame by frame until the watcher says the throw has settled; returns (the dice
    the tray threw, as `DemoTray` planned them; the watcher's status). The table acts on the settled throw
    as the camera thread would (a sure reading is the roll; an unsure one is shown to the phones to check)."""
    tray: DemoTray = table.tray.camera
    if ask and tray.throw_mode == "ask":
        table.throw_dice()
    was_settled = True  # a throw still lying there from before is not the next one
    for _ in range(max_frames):
        status = table.tray.step()
        if status.state == "settled" and not was_settled:
            return tray.planned(tray.current_throw()), status
        was_settled = status.state == "settled"
    raise AssertionError(f"the demo tray's throw did not settle in {max_frames} frames")


def set_tray(table: Table, state: str, dice: list[dict] | None = None, needs_confirmation: bool = False,
             message: str = "") -> None:
    """What the watcher would report: the tray's state and the dice read on it, published to the phones."""
    table.tray.set_tray(state, list(dice or []), needs_confirmation, message)
    table.publish()


def set_camera(table: Table, status: str, message: str = "") -> None:
    """The camera reports `status` (an unplug: "reconnecting"); the tray service reads one frame."""
    table.tray.camera.state = {"status": status, "message": message}
    tray = table.tray.tray_view()
    table.tray.step()
    table.tray.set_tray(tray["state"], tray["dice"], tray["needs_confirmation"], tray["message"])  # only the camera
    table.publish()


def reading(value: int, certain: bool = True, colour: str = "white", face: str | None = None) -> dict:
    """One die as the reader reports it."""
    return {"value": value, "face": face or str(value), "colour": colour, "confidence": 0.95 if certain else 0.4,
            "center": [10, 10], "box": [0, 0, 20, 20], "certain": certain}


def camera_rolls(table: Table, throws: int, *, seed: int, loaded: str = "red", fair: str = "blue",
                 set_id: str = "d6", face: int = 1, share: float = 1 / 3) -> None:
    """`throws` camera throws of two dice, as the tray service submits them (the readings and the set read as
    evidence): the `loaded` die shows `face` a `share` of the time, the `fair` one is fair (issue 36)."""
    rng = random.Random(seed)
    for _ in range(throws):
        bad = face if rng.random() < share else rng.choice([v for v in range(1, 7) if v != face])
        dice = [{"value": bad, "face": str(bad), "colour": loaded}]
        if fair:
            good = rng.randint(1, 6)
            dice.append({"value": good, "face": str(good), "colour": fair})
        table.submit({"type": "roll", "source": "camera", "dice": dice,
                      "evidence": {"readings": [reading(d["value"], colour=d["colour"]) for d in dice], "set": set_id}})
