"""docs/actions.md is the interface a referee, a script and a second client read (issue 33): every field of
every game's snapshot and every refusal code is documented there, and nothing documented is invented.

The snapshots come from the example games of docs/examples/ (as every seat sees them, and as the shared screen
does) and from seeded random play through each game's own options, so a field that only shows up mid-game is
met too. The refusal codes come from the engine's source, where each `IllegalAction` is raised.

How a snapshot table names fields (first column of any `| field | ... |` table in the game's section or in the
common part before the first game):
- `players[].health`: a key of each item of the list `players`;
- `stats{}.dealt`: `stats` is a map whose keys are data (player ids, ability ids...), each value has `dealt`;
- `story.*`: the field's content is described in words (events, actions), not field by field.
"""

from __future__ import annotations

import ast
import json
import random
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from dthelp import random_action as dice_throne_move

from engine.core import IllegalAction
from engine.games import GAMES, get_rules
from engine.match import Match

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "actions.md").read_text(encoding="utf-8")
ENGINE = ROOT / "engine"
# each registered game's section is headed by its English title (its description's): a new game needs no edit here
GAME_TITLES = {name: rules.describe()["title"]["en"] for name, rules in GAMES.items()}
SHARED_SOURCES = ("kernel.py", "core.py", "match.py", "checks.py", "games.py")
RANDOM_GAMES = 6       # seeded random games per game, each from one of its example setups
RANDOM_MOVES = 250
# Positions where fields that need particular cards or creatures show up soon in random play.
EXTRA_SETUPS: dict[str, list[dict[str, Any]]] = {
    "kingoftokyo": [
        {"first": "p1", "market": ["corner_store", "heal", "tank"], "deck_top": ["skyscraper", "commuter_train"],
         "players": [
             {"id": "p1", "monster": "gigazaur", "energy": 9, "cards": ["mimic", "healing_ray", "smoke_cloud"]},
             {"id": "p2", "monster": "cyber_kitty", "location": "city", "health": 5, "energy": 9,
              "cards": ["camouflage", "opportunist", "battery_monster"]}]},
    ],
    "dicethrone": [
        {"mode": "1v1", "start": "hu", "players": [{"id": "hu", "name": "Hu", "hero": "huntress"},
                                                   {"id": "tr", "name": "Tr", "hero": "treant"}]},
    ],
    "magewars": [
        {"initiative": "p1", "phase": "actions",
         "players": [
             {"name": "Ana", "mage": "wizard", "conditions": {"daze": 1},
              "attacks": [{"name": "Flurry", "dice": 2, "strikes": 2, "type": "flame", "effects": "6+ = Daze"}]},
             {"name": "Ben", "mage": "warlock", "traits": {"tough": [-1], "type_mods": {"flame": 2}},
              "defenses": [{"min": 5, "uses": 2}], "attacks": [{"name": "Jab", "dice": 1}]}],
         "objects": [{"name": "Ward", "owner": "p2", "kind": "enchantment", "on": "p2", "grants": {"aegis": 1}}]},
    ],
}


def section(game: str) -> str:
    """The game's part of docs/actions.md: from its `## Title (`id`)` heading to the next `## `."""
    start = DOC.index(f"## {GAME_TITLES[game]} (`{game}`)")
    end = DOC.find("\n## ", start + 3)
    return DOC[start:end if end > 0 else len(DOC)]


def common_part() -> str:
    """What every game shares: the text before the first game's section."""
    return DOC[:min(DOC.index(f"## {t} (`{g}`)") for g, t in GAME_TITLES.items())]


def table_rows(text: str, header: str) -> Iterator[str]:
    """The first cells of every markdown table whose header's first cell is `header`."""
    inside = False
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]] if line.startswith("|") else []
        if not cells:
            inside = False
        elif cells[0] == header:
            inside = True
        elif inside and not cells[0].startswith("---"):
            yield cells[0]


def documented_fields(text: str) -> set[str]:
    return {f for cell in table_rows(text, "field") for f in re.findall(r"`([^`]+)`", cell)}


def documented_codes(text: str) -> set[str]:
    return {c for cell in table_rows(text, "code") for c in re.findall(r"`([a-z_]+)`", cell)}


# -- the snapshots -------------------------------------------------------------------------------------------
def walk(value: Any, path: str, fields: set[str], seen: set[str]) -> None:
    """Add to `seen` the documented-form path of every key in `value` (see the module's docstring)."""
    if path and f"{path}.*" in fields:
        seen.add(f"{path}.*")
        return
    if isinstance(value, list):
        for item in value:
            walk(item, f"{path}[]", fields, seen)
    elif isinstance(value, dict):
        is_map = f"{path}{{}}" in fields or any(f.startswith(f"{path}{{}}") for f in fields)
        for key, item in value.items():
            child = f"{path}{{}}" if is_map else (f"{path}.{key}" if path else key)
            seen.add(child)
            walk(item, child, fields, seen)


def example_setups(game: str) -> list[Path]:
    return sorted((ROOT / "docs" / "examples").glob(f"{game}-*.setup.json"))


def viewers(match: Match) -> list[str | None]:
    return [None, *(p["id"] for p in match.snapshot().get("players", []))]


def look(match: Match, fields: set[str], seen: set[str]) -> None:
    for viewer in viewers(match):
        walk(match.snapshot(viewer=viewer), "", fields, seen)


def play_examples(game: str, fields: set[str], seen: set[str]) -> list[dict[str, Any]]:
    setups = []
    for setup_path in example_setups(game):
        setup = json.loads(setup_path.read_text(encoding="utf-8"))
        setups.append(setup)
        match = Match(get_rules(game), setup, setup.get("seed", 0))
        look(match, fields, seen)
        script = setup_path.with_name(setup_path.name.replace(".setup.json", ".jsonl"))
        for line in script.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                match.submit(json.loads(line))
                look(match, fields, seen)
    return setups


def random_move(game: str, match: Match, rng: random.Random) -> dict[str, Any] | None:
    """A random legal move. Dice Throne's random player also plays cards and spends tokens out of turn
    (tests/engine/dthelp.py), which its options do not list (hands are counts, docs/actions.md)."""
    if game == "dicethrone":
        return dice_throne_move(match, rng) if match.state["pending"] is not None else None
    options = get_rules(game).options(match.state)
    return rng.choice(options) if options else None


def play_randomly(game: str, setups: list[dict[str, Any]], fields: set[str], seen: set[str]) -> None:
    for seed in range(RANDOM_GAMES):
        rng = random.Random(seed)
        match = Match(get_rules(game), setups[seed % len(setups)], seed)
        for _ in range(RANDOM_MOVES):
            move = random_move(game, match, rng)
            if move is None:
                break
            try:
                match.submit(move)
            except IllegalAction:
                continue
            look(match, fields, seen)


@cache
def observed(game: str) -> frozenset[str]:
    """Every snapshot field the examples and the random games show, in documented form."""
    fields = documented_fields(common_part()) | documented_fields(section(game))
    seen: set[str] = set()
    setups = play_examples(game, fields, seen) + EXTRA_SETUPS.get(game, [])
    play_randomly(game, setups or [{}], fields, seen)
    return frozenset(seen)


def is_documented(path: str, fields: set[str]) -> bool:
    """A path is documented when it has its own row, or when rows name fields inside it."""
    return path in fields or any(f.startswith((f"{path}.", f"{path}[]", f"{path}{{}}")) for f in fields)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_snapshot_field_is_documented(game: str) -> None:
    fields = documented_fields(common_part()) | documented_fields(section(game))
    missing = sorted(p for p in observed(game) if not is_documented(p, fields))
    assert not missing, f"snapshot fields no table of docs/actions.md names: {', '.join(missing)}"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_documented_field_of_a_game_appears(game: str) -> None:
    seen = observed(game)
    unseen = sorted(f for f in documented_fields(section(game)) if not is_documented_seen(f, seen))
    assert not unseen, f"documented fields no snapshot showed: {', '.join(unseen)}"


def test_every_common_field_appears_in_some_game() -> None:
    seen = set().union(*(observed(g) for g in GAMES))
    unseen = sorted(f for f in documented_fields(common_part()) if not is_documented_seen(f, seen))
    assert not unseen, f"documented fields no snapshot showed: {', '.join(unseen)}"


def is_documented_seen(field: str, seen: frozenset[str] | set[str]) -> bool:
    """A documented field was met if it, or a field inside it, was."""
    return field in seen or any(p.startswith((f"{field}.", f"{field}[]", f"{field}{{}}")) for p in seen)


# -- the refusal codes ---------------------------------------------------------------------------------------
# where a call takes its refusal code: IllegalAction(code, ...), require(cond, code, ...), and the input checks
# of engine/checks.py (whole(value, what, low, high, code), text(value, what, max_len, code), ...)
CODE_POSITION = {"IllegalAction": 0, "require": 1, "whole": 4, "text": 3, "choice": 3, "mapping": 2}


def codes_in(path: Path) -> set[str]:
    """The refusal codes a source file raises (CODE_POSITION), given by position or as `code=`."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", getattr(node.func, "attr", ""))
        position = CODE_POSITION.get(name)
        args = list(node.args)
        if position is not None and len(args) > position and isinstance(args[position], ast.Constant):
            found.add(args[position].value)
        found |= {k.value.value for k in node.keywords
                  if k.arg == "code" and isinstance(k.value, ast.Constant)}
    return {c for c in found if isinstance(c, str)}


def engine_codes(game: str) -> set[str]:
    return set().union(*(codes_in(p) for p in (ENGINE / game).rglob("*.py")))


def shared_codes() -> set[str]:
    return set().union(*(codes_in(ENGINE / name) for name in SHARED_SOURCES))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_refusal_code_is_documented(game: str) -> None:
    documented = documented_codes(section(game)) | documented_codes(common_part())
    missing = sorted(engine_codes(game) - documented)
    assert not missing, f"refusal codes the engine raises and no `| code |` table lists: {', '.join(missing)}"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_documented_refusal_code_is_raised(game: str) -> None:
    invented = sorted(documented_codes(section(game)) - engine_codes(game) - shared_codes())
    assert not invented, f"documented refusal codes the engine never raises: {', '.join(invented)}"


def test_every_shared_refusal_code_is_documented_once_for_all() -> None:
    assert sorted(shared_codes() - documented_codes(common_part())) == []
