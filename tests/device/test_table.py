"""The table service: single writer, durable before published, illegal actions change nothing."""

from __future__ import annotations

import pytest

from device.pairing import Pairing
from device.store import Store
from device.table import Table
from engine.core import IllegalAction


@pytest.fixture
def table(tmp_path):
    t = Table(Store(tmp_path))
    yield t
    t.close()


def test_fresh_box_starts_a_free_roll_game(table):
    snap = table.snapshot()
    assert snap["game"] == "freeroll"
    assert snap["seq"] == 0
    assert snap["camera"]["status"] == "off"
    assert snap["tray"]["state"] == "empty"


def test_manual_roll_is_logged_stored_and_published(table, tmp_path):
    sub = table.subscribe()
    snap = table.submit({"type": "roll", "dice": [6, 1, 3], "source": "manual"})
    assert snap["seq"] == 1
    assert [d["value"] for d in snap["rolls"][0]["dice"]] == [6, 1, 3]
    published = sub.get(timeout=1)
    assert published is not None and published["seq"] == 1
    record = table.store.load_game(table.game_id)
    assert [e.action["dice"] for e in record.entries] == [[6, 1, 3]]


def test_illegal_action_changes_nothing(table):
    table.submit({"type": "roll", "dice": [2, 2]})
    before = table.snapshot()
    for bad in ({"type": "roll", "dice": [7]}, {"type": "fly"}, {"dice": [1]}, ["roll"], {"type": "redo"}):
        with pytest.raises(IllegalAction) as err:
            table.submit(bad)
        assert err.value.message
    assert table.snapshot()["seq"] == before["seq"]
    assert len(table.store.load_game(table.game_id).entries) == 1


def test_restart_replays_the_log(tmp_path):
    first = Table(Store(tmp_path))
    for values in ([1, 2], [3, 4], [5, 6]):
        first.submit({"type": "roll", "dice": values})
    first.undo()
    before = first.snapshot()
    first.close()
    second = Table(Store(tmp_path))
    after = second.snapshot()
    assert after["seq"] == before["seq"] == 4
    assert after["rolls"] == before["rolls"]
    assert [r["n"] for r in after["rolls"]] == [2, 1]
    second.close()


def test_next_confirms_an_uncertain_reading(table):
    table.tray.set_tray("settled", [{"value": 4, "certain": True}, {"value": 2, "certain": False}],
                        needs_confirmation=True)
    snap = table.next()
    assert snap is not None
    assert [d["value"] for d in snap["rolls"][0]["dice"]] == [4, 2]
    assert snap["tray"]["needs_confirmation"] is False


def test_unreadable_die_is_not_confirmed_blindly(table):
    table.tray.set_tray("settled", [{"value": None, "certain": False}], needs_confirmation=True)
    assert table.next() is None
    snap = table.snapshot()
    assert snap["seq"] == 0
    assert "by hand" in snap["tray"]["message"]


def test_undo_button_without_panel(table):
    table.submit({"type": "roll", "dice": [5]})
    table.press("undo")
    assert table.snapshot()["count"] == 0
    with pytest.raises(IllegalAction):
        table.press("launch")


def test_new_game_keeps_the_old_one(table):
    table.submit({"type": "roll", "dice": [5]})
    old = table.game_id
    table.new_game("freeroll", {"title": "Second"}, seed=3)
    assert table.game_id != old
    assert table.snapshot()["seq"] == 0
    assert len(table.store.load_game(old).entries) == 1
    with pytest.raises(IllegalAction):
        table.new_game("chess", {})


def test_pairing_hue_pattern(tmp_path):
    now = [0.0]
    pairing = Pairing(tmp_path / "tokens.json", clock=lambda: now[0])
    late = pairing.request()
    now[0] = 31.0
    asked = pairing.request()
    assert pairing.status()["open"]
    assert pairing.poll(asked) == ("waiting", None, 30.0)
    pairing.approve()
    status, token, _ = pairing.poll(asked)
    assert status == "granted" and token and pairing.check(token)
    assert pairing.poll(late)[0] == "expired", "a request older than the window is not granted"
    assert pairing.poll(late)[0] == "unknown", "expiry is told once"
    assert pairing.poll(asked)[0] == "unknown", "a token is handed out once"
    reloaded = Pairing(tmp_path / "tokens.json")
    assert reloaded.check(token), "paired phones stay paired across a restart"
    assert not reloaded.check("guess") and not reloaded.check(None)
    reloaded.revoke_all()
    assert not reloaded.check(token)


def test_camera_reads_the_rolling_heros_dice(table):
    """In Dice Throne the tray holds the active hero's dice: the reader must use that hero's dice set."""
    assert table.current_dice_set() == "d6"
    table.new_game("dicethrone", {"mode": "1v1", "players": [{"name": "Ann", "hero": "barbarian"},
                                                             {"name": "Bo", "hero": "gunslinger"}]}, seed=4)
    for _ in range(10):
        snap = table.snapshot()
        if snap["phase"] == "offensive":
            break
        table.next()
    assert snap["phase"] == "offensive"
    hero = next(p["hero"] for p in snap["players"] if p["id"] == snap["active"])
    assert table.current_dice_set() == snap["dice_set"] == f"dicethrone:{hero}"


def test_phase_leds_follow_the_games_description(tmp_path):
    """The panel lights the LED slot the game's description gives each phase (engine.core.PhaseSpec);
    Dice Throne's turn order is rules digest section 2."""
    from gpiozero.pins.mock import MockFactory

    from device.config import PHASE_LED_NAMES, GpioConfig
    from device.panel import Panel

    table = Table(Store(tmp_path))
    table.panel = Panel(GpioConfig(), MockFactory(), autotick=False)
    try:
        table.new_game("dicethrone", {"mode": "1v1", "players": [{"name": "Ann", "hero": "barbarian"},
                                                                 {"name": "Bo", "hero": "monk"}]}, seed=9)
        slots = {p["id"]: p["led"] for p in table.match.rules.describe()["phases"]}
        seen = set()
        for _ in range(60):
            snap = table.snapshot()
            seen.add(snap["phase"])
            leds = snap["panel"]["leds"]
            lit = [n for n in PHASE_LED_NAMES if leds[n]]
            want = slots.get(snap["phase"])
            assert lit == ([] if want is None else [PHASE_LED_NAMES[want]]), snap["phase"]
            if snap["winner"] or (table.next() is None and not _answer(table, snap)):
                break
        assert {"main1", "offensive"} <= seen
    finally:
        table.close()


def _answer(table, snap) -> bool:
    """Take the first legal option (or a seeded roll) when there is no default to press Next for."""
    pending = snap["pending"] or {}
    for action in [o["action"] for o in pending.get("options", [])] + [{"type": "roll"}]:
        try:
            table.submit(action)
            return True
        except IllegalAction:
            continue
    return False


def test_a_later_roll_clears_a_stale_confirmation(table):
    table.tray.set_tray("settled", [], needs_confirmation=True, message="Not sure of every die")
    table.submit({"type": "roll", "dice": [3], "source": "camera"})
    assert table.snapshot()["tray"]["needs_confirmation"] is False


def test_tray_request_says_what_the_game_waits_for(table):
    assert table.tray_request() == ("d6", None)
    table.new_game("dicethrone", {"mode": "1v1", "players": [{"name": "Ann", "hero": "barbarian"},
                                                             {"name": "Bo", "hero": "gunslinger"}]}, seed=4)
    while table.snapshot()["phase"] != "offensive":
        table.next()
    snap = table.snapshot()
    assert table.tray_request() == (snap["dice_set"], 5)


def test_observe_window_shows_camera_rolls_without_recording(tmp_path):
    """While players roll for who starts, a settled throw is shown on the tray but joins no game."""
    from vision.reading import Reading

    now = [0.0]
    t = Table(Store(tmp_path), clock=lambda: now[0])
    die = Reading(value=5, face="5", colour="white", confidence=0.99, center=(10.0, 10.0), box=(0, 0, 20, 20),
                  certain=True)
    t.observe(60)
    assert t.snapshot()["tray"]["observing"] is True
    t.tray.record_roll([die], [die.to_dict()], image=None)
    assert t.snapshot()["seq"] == 0
    now[0] = 61.0  # the window lapses by itself
    assert t.snapshot()["tray"]["observing"] is False
    t.tray.record_roll([die], [die.to_dict()], image=None)
    assert t.snapshot()["seq"] == 1
    t.observe(60)
    t.new_game("freeroll", {})  # a new game ends the roll-off that chose its start player
    assert t.observing() is False
    t.close()


def test_a_log_this_version_cannot_replay_does_not_stop_the_box(tmp_path):
    """A rule changed by an update can make an old log unreplayable: the box still starts, keeps the game."""
    from engine.match import Entry

    store = Store(tmp_path)
    old = store.new_game("freeroll", {}, 0)
    store.append(old, Entry(1, {"type": "roll", "dice": [3]}))
    store.append(old, Entry(2, {"type": "roll", "dice": [9]}))  # no longer a legal face
    store.close()
    table = Table(Store(tmp_path))
    snap = table.snapshot()
    assert table.game_id != old and snap["seq"] == 0
    assert snap["store"]["not_resumed"] == {"game": old, "damaged": False}  # the page words it
    assert f"kept as game {old}" in snap["store"]["message"]
    assert len(table.store.load_game(old).entries) == 2
    table.close()
