"""The box learns its players' dice (DESIGN "Vision": rolls a phone confirms or corrects keep their crops and
faces in the state directory; the reader uses them from the next roll on).

The camera is faked at its boundary only: it hands rendered frames of a tray seen from below (an empty
tray, then a throw lying still) with a clock the test moves, and the real tray service, watcher, reader and
table do the rest. The card fills up when the test says so.
"""

from __future__ import annotations

import errno
import json
import logging
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

import device.atomic as atomic
from device.camera.base import Frame
from device.dice_sets import spec
from device.learnt import Confirmed, LearntDice, face_index
from device.store import DB_NAME, Store
from device.table import Table
from vision import corner_numbers, watcher
from vision.dicesets import DiceSet, get_set
from vision.memory import crop_die
from vision.render import DieSpec, render_tray

SET = "dicethrone:barbarian"
DS = get_set(spec(SET))
# The players' dice: the barbarian's six faces as another printing draws them (the monk's drawings stand in
# for it), which the box's drawn barbarian templates cannot read for sure; what the box learns them from.
# (The drawn templates read dice drawn as they are, corner numbers included: nothing to learn there.)
LOOK = get_set(spec("dicethrone:monk"))


def frame(dice: list[tuple[float, float, float, int]], seed: int = 1, look: DiceSet = LOOK) -> np.ndarray:
    """A tray seen from below with the players' dice (x, y, angle, top face), 64 px across, drawn as `look`."""
    return render_tray([DieSpec(x=x, y=y, size=64, angle=a, value=v, dice_set=look) for x, y, a, v in dice],
                       mount="under", seed=seed, room_seed=3)


class Throws:
    """A camera: an empty tray, then each throw lying still until the test throws the next (`show`)."""

    name = "test-throws"

    def __init__(self) -> None:
        self.t = 0.0
        self.image = frame([])

    def show(self, image: np.ndarray) -> None:
        self.image = image

    def read(self) -> Frame:
        self.t += 0.1
        return Frame(image=self.image, t=self.t)

    def close(self) -> None:
        pass


def settle(table: Table, camera: Throws, image: np.ndarray) -> dict:
    """Put a throw on the tray and step the tray service frame by frame until it is read; the tray view."""
    camera.show(frame([]))
    for _ in range(12):  # the empty tray: the watcher learns its background
        table.tray.step()
    camera.show(image)
    for _ in range(30):
        status = table.tray.step()
        if status.state == "settled":
            break
    return table.snapshot()["tray"]


@pytest.fixture()
def box(tmp_path: Path):
    camera = Throws()
    table = Table(Store(tmp_path / "state"), camera=camera, dice_set=SET, settle_s=0.2)
    yield table, camera
    table.close()


def crop(i: int) -> np.ndarray:
    """A crop of a die showing top face 1 + i % 6 (as the tray would cut it)."""
    img = frame([(160, 120, 15.0 * i, 1 + i % 6)], seed=i)
    return crop_die(img, (160.0, 120.0), (128, 88, 64, 64))


def test_face_index_names_one_face_or_none() -> None:
    assert face_index(DS, 4) == 4
    assert face_index(DS, {"value": 2, "face": "sword"}) == 2
    assert face_index(DS, {"face": "pow"}) == 6
    assert face_index(DS, {"face": "sword"}) is None  # three faces carry a sword: which one is not said
    assert face_index(DS, 9) is None and face_index(DS, True) is None and face_index(DS, "x") is None
    assert face_index(DS, "pow") == 6
    kot = get_set(spec("kingoftokyo"))
    assert face_index(kot, 2) == 2 and face_index(kot, 4) == 4 and face_index(kot, {"face": "claw"}) == 6
    attack = get_set(spec("magewars-attack"))
    assert face_index(attack, 0) is None  # two blank faces
    assert face_index(attack, {"face": "2*"}) == 6 and face_index(attack, "1*") == 5
    assert face_index(attack, "blank") is None


def test_kept_crops_survive_a_restart_and_stay_bounded(tmp_path: Path) -> None:
    kept = LearntDice(tmp_path, "under", max_per_face=3)
    assert kept.keep([Confirmed(SET, crop(i), 1 + i % 6) for i in range(12)]) == 12
    assert kept.counts() == {SET: {"dice": 12, "faces": {str(f): 2 for f in range(1, 7)}}}
    # five more of face 1: three of that face stay, on the card and in the memory
    kept.keep([Confirmed(SET, crop(6 * k), 1) for k in range(5)])
    assert kept.counts()[SET]["faces"]["1"] == 3
    assert kept.memory.counts(SET)[1] == 3
    files = sorted((tmp_path / "learnt").rglob("*.png"))
    assert len(files) == 13 and not list((tmp_path / "learnt").rglob("*.tmp"))
    folder = files[0].parent
    (folder / ".1-99.png.tmp").write_bytes(b"\x89PNG cut short")  # a power cut in the middle of a write
    (folder.parent / ".set.txt.tmp").write_bytes(b"dice")
    again = LearntDice(tmp_path, "under", max_per_face=3)  # the box restarts
    assert not list((tmp_path / "learnt").rglob(".*.tmp"))
    assert again.counts() == kept.counts()
    assert again.memory.counts(SET) == kept.memory.counts(SET)
    # learnt from below: a box whose camera now looks from above starts with nothing
    assert LearntDice(tmp_path, "over").counts() == {}
    assert again.forget(SET) == 13 and again.counts() == {} and not again.memory.knows(SET)
    assert LearntDice(tmp_path, "under").counts() == {}


def test_past_the_bound_the_newer_half_of_a_face_always_stays(tmp_path: Path) -> None:
    """The store is bounded but one night does not wipe the others: past the bound a crop of the older half
    goes, at random, so the newest crops all stay and some of the first night's too (issue 31 item 5)."""
    kept = LearntDice(tmp_path, "under", max_per_face=10)
    first = [Confirmed(SET, crop(k), 1) for k in range(10)]
    kept.keep(first)
    firsts = {p for p, *_ in kept._files[SET][1]}
    for k in range(10):
        kept.keep([Confirmed(SET, crop(100 + k), 1)])
    files = [p for p, *_ in kept._files[SET][1]]
    assert len(files) == 10 and kept.memory.counts(SET) == {1: 10}
    assert len(set(sorted((tmp_path / "learnt").rglob("1-*.png")))) == 10
    newest = files[-5:]
    assert all(p not in firsts for p in newest) and all(p.exists() for p in files)
    assert LearntDice(tmp_path, "under", max_per_face=10).memory.counts(SET) == {1: 10}


def test_a_damaged_crop_is_skipped_with_a_message(tmp_path: Path, caplog) -> None:
    kept = LearntDice(tmp_path, "under")
    kept.keep([Confirmed(SET, crop(0), 1), Confirmed(SET, crop(1), 2)])
    bad = sorted((tmp_path / "learnt").rglob("2-*.png"))[0]
    bad.write_bytes(b"\x89PNG half a file")
    (bad.parent / "0-17.png").write_bytes((bad.parent / sorted(p.name for p in bad.parent.glob("1-*.png"))[0])
                                          .read_bytes())   # a name with neither a face nor a colour
    (tmp_path / "learnt" / "junk").mkdir()  # a folder with no set.txt
    with caplog.at_level(logging.WARNING, logger="dicesight.learnt"):
        again = LearntDice(tmp_path, "under")
    assert again.counts() == {SET: {"dice": 1, "faces": {"1": 1}}}
    assert any("damaged crop" in r.getMessage() for r in caplog.records)
    assert any("set.txt" in r.getMessage() for r in caplog.records)


def test_a_fixed_roll_teaches_each_crop_its_confirmed_face(box) -> None:
    """Two dice read, the second fixed by a phone: each kept crop is the die the player named (the die the
    phone fixed keeps the fixed face), and the reader knows the set from the next roll on."""
    table, camera = box
    image = frame([(180, 240, 10.0, 6), (460, 240, 40.0, 4)])
    tray = settle(table, camera, image)
    assert len(tray["dice"]) == 2 and tray["roll"] > 0
    read = sorted(range(2), key=lambda i: tray["dice"][i]["center"][0])  # tray order -> left, right
    left, right = read
    # the phone sends the dice in its own order: right die first, with a face it fixed; left as read
    dice = [5, tray["dice"][left]["value"] or 6]
    snap = table.submit({"type": "roll", "dice": dice, "source": "manual",
                         "tray": {"roll": tray["roll"], "dice": [right, left]}})
    assert snap["rolls"][0]["dice"] == [{"value": 5}, {"value": dice[1]}]  # the roll itself, as entered
    want_faces = {"5": 1, str(dice[1]): 1} if dice[1] != 5 else {"5": 2}
    assert snap["learnt"][SET]["dice"] == 2 and snap["learnt"][SET]["faces"] == want_faces
    assert snap["learnt"][SET]["name"]["en"]  # the page names the set in its language
    kept = {int(p.stem.split("-")[0]): cv2.imread(str(p)) for p in (table.store.state_dir / "learnt").rglob("*.png")}
    want = crop_die(image, tray["dice"][right]["center"], tray["dice"][right]["box"])
    assert np.abs(kept[5].astype(int) - want.astype(int)).mean() < 1.0  # the fixed die's own crop
    assert table.tray.memory.knows(SET)
    # the same throw confirmed again (an undo and a second confirm) is not learnt twice
    table.undo()
    table.submit({"type": "roll", "dice": dice, "source": "manual",
                  "tray": {"roll": tray["roll"], "dice": [right, left]}})
    assert table.snapshot()["learnt"][SET]["dice"] == 2


SIX = [(110, 150), (320, 150), (530, 150), (110, 340), (320, 340), (530, 340)]


def in_place_order(tray: dict) -> list[int]:
    """Tray indices of the dice lying at SIX's places, top row then bottom row, left to right."""
    return sorted(range(len(tray["dice"])), key=lambda i: (tray["dice"][i]["center"][1] > 245,
                                                          tray["dice"][i]["center"][0]))


def test_the_next_roll_is_read_with_what_was_learnt(box, tmp_path: Path, monkeypatch) -> None:
    """Three throws of the six faces confirmed on a phone; dice of the next throw that the drawn templates
    leave unsure (the players' dice are drawn unlike them) are now certain, and right. The corner numbers'
    second judgement (`corner_numbers.AGREED_AT`, `AGREED_NAMED_AT`, `AGREED_ICON_AT`, `NUMBER_OVER_ICON_AT`,
    `DOUBTED_AT`) is set aside: it makes three of the six certain, and right, before anything is learnt, and
    this is a test of what the box learns; so is the watcher's trust in a number every look read surely
    (`watcher.NAMED_IN_EVERY_LOOK_AT`, which makes all six certain and right)."""
    monkeypatch.setattr(watcher, "NAMED_IN_EVERY_LOOK_AT", None)
    monkeypatch.setattr(corner_numbers, "AGREED_AT", None)
    monkeypatch.setattr(corner_numbers, "AGREED_NAMED_AT", None)
    monkeypatch.setattr(corner_numbers, "AGREED_ICON_AT", None)
    monkeypatch.setattr(corner_numbers, "NUMBER_OVER_ICON_AT", None)
    monkeypatch.setattr(corner_numbers, "DOUBTED_AT", None)
    table, camera = box
    for k in range(3):
        tray = settle(table, camera, frame([(x, y, 25.0 * k + 11 * i, i + 1) for i, (x, y) in enumerate(SIX)],
                                           seed=20 + k))
        assert len(tray["dice"]) == 6
        table.submit({"type": "roll", "dice": [1, 2, 3, 4, 5, 6], "source": "manual",
                      "tray": {"roll": tray["roll"], "dice": in_place_order(tray)}})
    assert table.snapshot()["learnt"][SET]["faces"] == {str(f): 3 for f in range(1, 7)}
    faces = [2, 5, 4, 3, 6, 2]
    throw = frame([(x + 9, y - 7, 40.0 + 13 * i, f) for i, ((x, y), f) in enumerate(zip(SIX, faces, strict=True))],
                  seed=33)
    fresh = Table(Store(tmp_path / "other"), camera=Throws(), dice_set=SET, settle_s=0.2)
    try:
        before = settle(fresh, fresh.camera, throw)
    finally:
        fresh.close()
    after = settle(table, camera, throw)
    read_before = [(before["dice"][i]["value"], before["dice"][i]["certain"]) for i in in_place_order(before)]
    read_after = [(after["dice"][i]["value"], after["dice"][i]["certain"]) for i in in_place_order(after)]
    assert sum(c for _, c in read_before) <= 1  # the drawn templates: unsure of nearly every one
    assert [v for v, c in read_after if c] == [f for f, (_, c) in zip(faces, read_after, strict=True) if c]  # right
    assert sum(c for _, c in read_after) >= sum(c for _, c in read_before) + 2  # more dice certain...


def test_next_confirms_as_read_and_a_stale_link_teaches_nothing(box) -> None:
    table, camera = box
    table.tray.always_confirm = True  # every throw waits for the players, as when teaching
    tray = settle(table, camera, frame([(200, 200, 20.0, 6), (420, 300, 70.0, 4)]))
    assert tray["needs_confirmation"]
    # a phone answering a throw that was picked up since: the roll counts, nothing is learnt
    table.submit({"type": "roll", "dice": [1, 2], "source": "manual", "tray": {"roll": tray["roll"] + 7,
                                                                                "dice": [0, 1]}})
    assert table.snapshot()["learnt"] == {}
    tray = settle(table, camera, frame([(220, 200, 35.0, 6), (400, 300, 5.0, 4)], seed=2))
    assert tray["needs_confirmation"] and all(d["value"] is not None for d in tray["dice"])
    table.next()  # the box's Next button: confirmed as read
    assert table.snapshot()["learnt"][SET]["dice"] == 2


def test_a_full_card_loses_the_learnt_crop_not_the_roll(box, monkeypatch) -> None:
    table, camera = box
    table.tray.always_confirm = True  # the throw waits for the players' answer, which the test gives
    tray = settle(table, camera, frame([(300, 240, 25.0, 6)]))

    def full(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", full)
    snap = table.submit({"type": "roll", "dice": [6], "source": "manual",
                         "tray": {"roll": tray["roll"], "dice": [0]}})
    assert snap["count"] == 1 and table.store.load_game(table.game_id).entries  # the roll is kept
    assert snap["learnt"] == {}
    assert snap["camera"]["status"] != "error" and snap["store"]["faults"] == ["learn"]  # storage, not camera
    assert not list((table.store.state_dir / "learnt").rglob("*.tmp"))
    monkeypatch.undo()
    tray = settle(table, camera, frame([(300, 240, 80.0, 6)], seed=3))
    snap = table.submit({"type": "roll", "dice": [6], "source": "manual",
                         "tray": {"roll": tray["roll"], "dice": [0]}})
    assert snap["learnt"][SET]["dice"] == 1 and "faults" not in snap["camera"]  # works again


def test_dicesight_teach_waits_for_the_phone_on_every_throw_and_keeps_what_it_confirms(tmp_path: Path) -> None:
    """`dicesight teach SET` (device.teach_phone): the demo tray throws the set, every throw waits for a
    confirmation even when the reader is sure of it, a confirmed throw is kept in STATE_DIR/learnt, the
    command reports which faces still need throws, and the box's own games are not touched."""
    from device.box import BoxOptions, run  # a whole box: only this test starts one
    from device.teach_phone import watch

    config = tmp_path / "config.toml"
    config.write_text("[gpio]\npin_factory = \"mock\"\n[web]\nhost = \"127.0.0.1\"\n")
    state = tmp_path / "state"
    records: list[dict] = []
    stop, started = threading.Event(), threading.Event()
    box: dict = {}

    def on_started(table) -> None:
        box["table"] = table
        watch(table, DS, 1, records.append, stop, every_s=0.05)
        started.set()

    def target() -> None:
        try:
            box["code"] = run(BoxOptions(camera="demo", config=config, state_dir=state, port=0, teach=SET,
                                         demo_speed=8.0, demo_throw="auto"), announce=records.append, stop=stop,
                              on_started=on_started)
        except Exception as err:  # fail at once with the reason, not after a timeout
            box["error"] = err
            started.set()

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    assert started.wait(30) and "error" not in box, box.get("error")
    table = box["table"]
    assert table.current_dice_set() == SET and table.match.rules.name == "freeroll"
    waited = threading.Event()
    for _ in range(1200):  # the demo tray throws every ~0.8 s at speed 8
        if table.tray.needs_confirmation and table.tray.dice and all(d["value"] for d in table.tray.dice):
            tray = table.snapshot()["tray"]
            assert tray["message"] == "Teaching: confirm or fix the dice."
            table.next()  # the box's Next button (or the phone's "Yes"): confirmed as read
            if table.snapshot()["learnt"]:
                break  # (else the demo's hand took the dice away first, on a busy machine: the next throw)
        waited.wait(0.05)
    learnt = table.snapshot()["learnt"][SET]
    assert learnt["dice"] == len(tray["dice"])
    for _ in range(100):
        if any(r.get("event") == "learnt" and sum(f["learnt"] for f in r["faces"]) == learnt["dice"]
               for r in records):
            break
        waited.wait(0.05)
    report = [r for r in records if r.get("event") == "learnt"][-1]
    assert sum(f["learnt"] for f in report["faces"]) == learnt["dice"]
    assert set(report["missing"]) == {f for f in range(1, 7) if str(f) not in learnt["faces"]}
    stop.set()
    thread.join(20)
    assert box["code"] == 0
    camera_thread = table.tray._thread  # the box's camera thread must be gone before this process exits
    if camera_thread is not None:
        camera_thread.join(30)
        assert not camera_thread.is_alive()
    assert len(list((state / "learnt").rglob("*.png"))) == learnt["dice"]
    assert not (state / DB_NAME).exists() and (state / "teaching" / DB_NAME).exists()  # games untouched
    assert LearntDice(state, "under").counts()[SET]["dice"] == learnt["dice"]  # `dicesight run` finds them


def test_a_game_that_hides_rolls_teaches_only_its_dice_colours(tmp_path: Path) -> None:
    """DESIGN: hidden dice reach no other phone until the reveal. The learnt counts per face are in every
    phone's snapshot, so a Regidice throw (hidden) must not move them; its dice's colours, which a hidden roll
    shows every phone, are learnt (vision.learnt_colours), and kept without a face."""
    camera = Throws()
    table = Table(Store(tmp_path / "state"), camera=camera, dice_set=SET, settle_s=0.2)
    try:
        table.new_game("regidice", {"players": [{"name": "Ann"}, {"name": "Bo"}]}, seed=3)
        assert table.match.rules.describe()["hidden"]
        # a Regidice die (pips, a colour): what this game's players throw
        tray = settle(table, camera, frame([(300, 240, 25.0, 6)], look=get_set(spec("regidice"))))
        read = table.tray.dice  # the roller's own view (other phones see only colours)
        assert tray["dice"] and read[0]["value"]  # a die read, whose crop could be learnt
        wanted = table.snapshot()["pending"]["input"]
        dice = [{"colour": c, "value": read[0]["value"] if k == 0 else 3}
                for k, c in enumerate(wanted["colours"])]
        snap = table.submit({"type": "roll", "player": wanted["player"], "dice": dice, "source": "manual",
                             "tray": {"roll": tray["roll"], "dice": [0] + [None] * (len(dice) - 1)}})
        assert snap["seq"] == 1  # the roll counts
        learnt = {"dice": 1, "faces": {}, "colours": {wanted["colours"][0]: 1}}
        assert list(table.snapshot()["learnt"]) == ["regidice"]
        assert {k: table.snapshot()["learnt"]["regidice"][k] for k in learnt} == learnt
        kept = list((tmp_path / "state" / "learnt").rglob("*.png"))
        assert [p.name.split("-")[0] for p in kept] == ["0"]   # no face on the card either
        again = LearntDice(tmp_path / "state", "under")   # a restart reads it back, its colour only
        assert again.counts() == {"regidice": learnt} and again.memory.counts("regidice") == {}
        assert again.memory.colour_model("regidice") is None   # one die: under MIN_PER_COLOUR, nothing named yet
    finally:
        table.close()


def test_dicesight_read_uses_what_the_box_learnt(tmp_path: Path, capsys, monkeypatch) -> None:
    """`dicesight read --state-dir S` reads with the box's memory, as `dicesight run` does: dice the drawn
    templates leave unsure are certain (and right) once the box has learnt the set. The corner numbers'
    judgements over the templates' names (`corner_numbers.AGREED_ICON_AT`, `NUMBER_OVER_ICON_AT`) are set
    aside: they make three more dice certain, and right, before anything is learnt."""
    from device.cli import main  # the command line as a user runs it
    from vision.reader import read_dice

    monkeypatch.setattr(corner_numbers, "AGREED_ICON_AT", None)
    monkeypatch.setattr(corner_numbers, "NUMBER_OVER_ICON_AT", None)

    kept = LearntDice(tmp_path / "box", "under")
    for k in range(3):
        image = frame([(x, y, 25.0 * k + 11 * i, i + 1) for i, (x, y) in enumerate(SIX)], seed=20 + k)
        for r in read_dice(image, spec(SET), "under"):
            face = 1 + min(range(6), key=lambda j: (SIX[j][0] - r.center[0]) ** 2 + (SIX[j][1] - r.center[1]) ** 2)
            kept.keep([Confirmed(SET, crop_die(image, r.center, r.box), face)])
    assert kept.counts()[SET]["faces"] == {str(f): 3 for f in range(1, 7)}
    path = tmp_path / "throw.png"
    cv2.imwrite(str(path), frame([(x + 9, y - 7, 40.0 + 13 * i, i + 1) for i, (x, y) in enumerate(SIX)], seed=33))

    def certain(state: Path) -> list[tuple[int, int]]:
        assert main(["read", str(path), "--dice", SET, "--mount", "under", "--json", "--state-dir", str(state)]) == 0
        dice = json.loads(capsys.readouterr().out)["dice"]
        return [(d["value"], 1 + min(range(6), key=lambda j: (SIX[j][0] - d["center"][0]) ** 2
                                            + (SIX[j][1] - d["center"][1]) ** 2)) for d in dice if d["certain"]]

    plain, learnt = certain(tmp_path / "empty"), certain(tmp_path / "box")
    assert all(v == face for v, face in learnt)
    assert len(learnt) >= len(plain) + 2


def test_a_confirmed_reading_keeps_the_trays_photo_and_what_the_camera_read(box, monkeypatch) -> None:
    """DESIGN: a roll read by the camera carries its evidence (the readings and a JPEG of the tray). An unsure
    reading that a phone confirms or fixes is such a roll too, and the one most worth checking later: the
    stored roll names the tray's photo and keeps what the camera read beside the players' dice. A fix the game
    refuses keeps no photo and leaves it for the next try; dice entered by hand, tied to no throw, get none.
    (The watcher's trust in a number every look read surely, `watcher.NAMED_IN_EVERY_LOOK_AT`, is set aside:
    it makes both of these dice certain, and right, and this needs a throw the phone confirms.)"""
    from engine.core import IllegalAction

    monkeypatch.setattr(watcher, "NAMED_IN_EVERY_LOOK_AT", None)
    table, camera = box
    tray = settle(table, camera, frame([(180, 240, 10.0, 6), (460, 240, 40.0, 4)]))
    assert tray["needs_confirmation"] and len(tray["dice"]) == 2
    link = {"roll": tray["roll"], "dice": [0, 1]}
    with pytest.raises(IllegalAction):
        table.submit({"type": "roll", "dice": [9, 4], "source": "manual", "tray": link})
    assert not any((table.store.state_dir).rglob("*.jpg"))  # the refused fix left no photo behind
    snap = table.submit({"type": "roll", "dice": [6, 4], "source": "manual", "tray": link})
    roll = snap["rolls"][0]
    assert roll["dice"] == [{"value": 6}, {"value": 4}]  # the players' dice, not the reading
    path = table.image_path(roll["image"])
    assert path is not None and cv2.imread(str(path)).shape[2] == 3  # the tray's photo, a real JPEG
    evidence = table.store.evidence(table.game_id, 1)
    assert evidence["confirmed"] is True and evidence["image"] == roll["image"]
    assert [d["value"] for d in evidence["readings"]] == [d["value"] for d in tray["dice"]]  # as the camera read
    # dice entered by hand with no tie to a throw: no photo
    snap = table.submit({"type": "roll", "dice": [3], "source": "manual"})
    latest = snap["rolls"][0]  # (newest first)
    assert latest["n"] == 2 and "image" not in latest
