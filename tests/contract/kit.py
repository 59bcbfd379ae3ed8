"""The contract every game keeps (issue 35: written once, run over every registered game and the test suite's
tiny game): what a random player does, and the setups to play from. The checks are in test_kit.py."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from engine.core import IllegalAction, Rules
from engine.games import GAMES
from engine.match import Match

from .pig import Pig

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
KIT_GAMES: dict[str, Rules] = {**GAMES, "pig": Pig()}
PIG_SETUP = {"players": [{"id": "ann"}, {"id": "bo"}]}


def setups(name: str) -> list[dict[str, Any]]:
    """The setups a game is played from: its documented examples (docs/examples), else the tiny game's."""
    found = []
    for path in sorted(EXAMPLES.glob(f"{name}-*.setup.json")):
        setup = json.loads(path.read_text())
        setup.pop("seed", None)
        found.append(setup)
    return found or [PIG_SETUP]


def random_setup(rules: Rules, rng: random.Random) -> dict[str, Any]:
    """A setup as the page's setup sheet makes one from the game's description: a mode, its number of
    players, a choice per seat (heroes, monsters, mages: unique where the game says so)."""
    desc = rules.describe()
    mode = rng.choice(desc["modes"])
    low, high = mode["players"]
    count = rng.randint(low, high)
    setup: dict[str, Any] = {"mode": mode["id"]} if len(desc["modes"]) > 1 else {}
    seats: list[dict[str, Any]] = [{"id": f"p{k + 1}", "name": f"P{k + 1}"} for k in range(count)]
    for field in desc["setup"]:
        if field["kind"] != "seat_choice":
            continue
        ids = [o["id"] for o in field["options"]]
        picks = rng.sample(ids, count) if field.get("unique") else [rng.choice(ids) for _ in seats]
        for seat, pick in zip(seats, picks, strict=True):
            seat[field["choice"]] = pick
    if count:
        setup["players"] = seats
    return setup


def dump(rules: Rules, state: Any) -> str:
    """A state as comparable text (its dump as sorted JSON)."""
    return json.dumps(rules.dump(state), sort_keys=True, default=str)


def random_move(rules: Rules, state: Any, rng: random.Random) -> dict[str, Any] | None:
    """A random legal-looking move: one of the offered options, else (a game whose input is free, the free
    roll) a throw of the dice its pending input asks for; None when the game waits for nothing."""
    options = rules.options(state)
    if options:
        return json.loads(json.dumps(rng.choice(options)))
    pending = rules.snapshot(state, None).get("pending") or {}
    wanted = pending.get("input") or {}
    if wanted.get("type") != "dice":
        return None
    faces = wanted.get("faces") or [1, 2, 3, 4, 5, 6]
    count = wanted.get("count") or rng.randint(1, 5)
    return {"type": "roll", "dice": [rng.choice(faces) for _ in range(count)]}


def play(name: str, seed: int, moves: int, undo_share: float = 0.0) -> Match:
    """A random game of `moves` accepted actions (fewer if it ends), undos and redos mixed in."""
    rules = KIT_GAMES[name]
    rng = random.Random(seed)
    all_setups = setups(name)
    # the documented setups first, then ones drawn as the page draws them (other heroes, monsters, counts)
    setup = all_setups[seed] if seed < len(all_setups) else random_setup(rules, rng)
    match = Match(rules, setup, seed)
    for _ in range(moves * 3):
        if len(match.entries) >= moves:
            break
        if rng.random() < undo_share:
            kind = rng.choice(["undo", "redo"])
            if (kind == "undo" and match.can_undo()) or (kind == "redo" and match.can_redo()):
                match.submit({"type": kind})
            continue
        move = random_move(rules, match.state, rng)
        if move is None:
            break
        try:
            match.submit(move)
        except IllegalAction:
            pass  # a sample throw may not fit (the free roll takes any: the others offer legal options)
    return match


def other_pips(action: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The same roll with other pips: what another player must not be able to tell apart."""
    out = json.loads(json.dumps(action))
    for k, die in enumerate(out.get("dice") or []):
        if isinstance(die, dict) and isinstance(die.get("value"), int):
            die["value"] = rng.choice([v for v in range(1, 7) if v != die["value"]])
        elif isinstance(die, int):
            out["dice"][k] = rng.choice([v for v in range(1, 7) if v != die])
    return out


def with_dice(rules: Rules, match: Match, move: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A roll the engine would make itself, given dice instead (so they can be varied): as many as asked."""
    wanted = (rules.snapshot(match.state, move.get("player")).get("pending") or {}).get("input") or {}
    count = wanted.get("count") or 0
    colours = wanted.get("colours") or []
    if not count:
        return move
    dice = [{"value": rng.randint(1, 6), **({"colour": colours[k]} if k < len(colours) else {})} for k in range(count)]
    return {**move, "dice": dice}
