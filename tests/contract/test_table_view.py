"""The no-hidden-leak guard at the table (issue 35 #1): random play of every hidden-information game on the
real `device.table.Table`, each hidden roll thrown on the tray and kept with its photo as a camera roll is.
Whatever that roll's pips were, every other phone receives the same bytes: its state answer
(`Table.snapshot(viewer)`: the game's view, the log and the tray), its event (`Table.seen_by`), and the
photo is refused to it while the game hides rolls. The engine-level twin of this test is in test_kit.py;
this one covers what the table adds (tray, photos, streams)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from device.store import Store
from device.table import Table
from engine.core import IllegalAction
from engine.games import GAMES

from .kit import other_pips, random_move, random_setup, setups, with_dice

HIDDEN = sorted(name for name, rules in GAMES.items() if rules.describe().get("hidden"))
BOX_KEYS = ("store", "learnt", "pairing", "panel", "camera")  # each box's own, whatever is played
JPEG = cv2.imencode(".jpg", np.full((24, 32, 3), 90, np.uint8))[1].tobytes()
CHECKS = 4  # hidden rolls checked per game (each check replays the game on a second table)


def seen(table: Table, viewer: str | None, snap: dict[str, Any] | None = None) -> str:
    """What `viewer`'s phone receives, as comparable text: the state answer, or a stream's event of `snap`."""
    view = table.snapshot(viewer=viewer) if snap is None else table.seen_by(snap, viewer)
    return json.dumps({k: v for k, v in view.items() if k not in BOX_KEYS}, sort_keys=True)


def throw(table: Table, move: dict[str, Any]) -> None:
    """The roll's dice lie on the tray, as the camera saw them (whose eyes they are for: the table decides)."""
    dice = [{"value": d["value"], "face": str(d["value"]), "colour": d.get("colour"), "certain": True}
            for d in move["dice"] if isinstance(d, dict)]
    table.tray.set_tray("settled", dice)


def replayed(tmp: Path, game: str, setup: dict[str, Any], seed: int, history: list, last: dict[str, Any]) -> Table:
    """A second table that played the same game, but threw `last` for its final move."""
    twin = Table(Store(tmp), camera=None)
    twin.new_game(game, setup, seed)
    for action, image in history:
        if image is not None:
            throw(twin, action)  # the same throws: the tray counts them
        twin.submit(action, image=image)
    throw(twin, last)
    twin.submit(last, image=JPEG)
    return twin


@pytest.mark.parametrize("seed", (0, 5))
@pytest.mark.parametrize("game", HIDDEN)
def test_no_other_phone_can_tell_a_hidden_rolls_pips(game: str, seed: int, tmp_path: Path) -> None:
    rules = GAMES[game]
    rng = random.Random(seed)
    known = setups(game)
    setup = known[seed] if seed < len(known) else random_setup(rules, rng)
    table = Table(Store(tmp_path / "box"), camera=None)
    table.new_game(game, setup, seed)
    history: list[tuple[dict[str, Any], bytes | None]] = []
    checked = 0
    try:
        for _ in range(150):
            move = random_move(rules, table.match.state, rng)
            if move is None or checked >= CHECKS:
                break
            if move.get("type") == "roll" and "dice" not in move:
                move = with_dice(rules, table.match, move, rng)
            hidden = rules.public_action(move) != move
            if hidden:
                throw(table, move)
            try:
                table.submit(move, image=JPEG if hidden else None)
            except IllegalAction:
                continue
            if hidden:
                checked += check(table, game, setup, seed, history, move, rng, tmp_path / f"twin{checked}")
            history.append((move, JPEG if hidden else None))
    finally:
        table.close()
    assert checked, "the random game made no hidden roll to check"


def check(table: Table, game: str, setup: dict[str, Any], seed: int, history: list, move: dict[str, Any],
          rng: random.Random, tmp: Path) -> int:
    """Compare every other phone's bytes with a twin table whose last roll had other pips; 1 when done."""
    owner = move.get("player")
    twin = replayed(tmp, game, setup, seed, history, other_pips(move, rng))
    try:
        photo = table.match.entries[-1].action["image"]
        others = [None] + [p["id"] for p in table.snapshot()["players"] if p["id"] != owner]
        for viewer in others:
            assert seen(table, viewer) == seen(twin, viewer), (viewer, move)
            assert seen(table, viewer, table.snapshot()) == seen(twin, viewer, twin.snapshot()), (viewer, move)
            if table.snapshot().get("hidden"):
                with pytest.raises(IllegalAction, match="photo"):
                    table.photo(photo, viewer)
        assert table.photo(photo, owner) is not None  # the roller's own photo
        assert seen(table, owner) != seen(twin, owner)  # the roller does see the pips: the check can tell
    finally:
        twin.close()
    return 1
