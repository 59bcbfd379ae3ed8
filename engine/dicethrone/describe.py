"""How Dice Throne describes itself to the box: modes, setup form, phases with their panel LEDs, one dice set
per hero (the symbols printed on faces 1-6), and the catalogue of heroes, cards and statuses with their names.

The page, the panel and the camera read only this (engine.core.GameDescription), so none of them names the
game or its heroes. Titles, modes, phases and texts are data in game.json; heroes, cards and statuses come
from their own data files.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..core import DiceSetSpec, FaceSpec, GameDescription, Text
from ..describe import SIX_OPPOSITE, load_game_json
from . import texts
from .data import generic_cards, statuses
from .heroes import catalogue, hero, hero_ids
from .state import MODES


def hero_dice_set(row: dict[str, Any]) -> DiceSetSpec:
    """A hero's dice: faces 1-6 carry the hero's symbols (and the number in a corner, which the rules use for
    straights); opposite faces add up to 7 as on any d6."""
    faces: list[FaceSpec] = []
    for i, symbol in enumerate(row["faces"], start=1):
        label: Text = dict(row.get("symbols", {}).get(symbol) or {"en": symbol})
        faces.append({"index": i, "name": symbol, "value": i, "glyph": f"icon:{symbol}+corner:{i}", "label": label})
    return {"id": row["dice_set"], "name": row["name"], "faces": faces, "opposite": dict(SIX_OPPOSITE),
            "kind": "icons", "shape": "square"}


def _cards() -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for card in generic_cards().values():
        seen.setdefault(card["id"], {k: card[k] for k in ("id", "name", "cost", "type", "text") if k in card})
    return list(seen.values())


def _statuses() -> list[dict[str, Any]]:
    return [{k: row[k] for k in ("id", "name", "kind", "limit", "text", "roll", "spend") if k in row}
            for row in statuses().values()]


def _with_texts(row: dict[str, Any]) -> dict[str, Any]:
    """A catalogue hero with its board and cards readable in three languages (texts.py): per ability each
    level's requirement and effect, per card what it does; the page shows them on tap."""
    data = hero(row["id"])
    names = data["symbols"]
    for ability in row["abilities"]:
        ability["board"] = [texts.level_text(level, names) for level in data["by_id"][ability["id"]]["levels"]]
    for card in row["cards"]:
        full = data["cards_by_name"].get(card["id"].replace("_", "")) or next(
            c for c in data["cards_by_name"].values() if c["id"] == card["id"])
        card["text"] = texts.card_text(full, names, data["by_id"])
    return row


@cache
def description() -> GameDescription:
    data = load_game_json(__package__)
    heroes = [_with_texts(row) for row in catalogue()]
    hero_options = [{"id": h["id"], "name": h["name"], "faces": h["faces"], "symbols": h["symbols"],
                     "complete": h["complete"]} for h in heroes]
    texts: dict[str, Text] = dict(data["texts"])
    setup: list[dict[str, Any]] = [
        {"key": "mode", "kind": "choice", "name": texts["setup.mode"], "default": "1v1",
         "options": [{"id": m["id"], "name": m["name"]} for m in data["modes"]]},
        {"key": "players", "kind": "seat_choice", "choice": "hero", "name": texts["setup.hero"],
         "options": hero_options, "unique": False, "default": hero_ids()[0]},
        {"key": "health", "kind": "int", "name": texts["setup.health"], "min": 1, "max": 99,
         "default_by_mode": {mode: health for mode, (_count, health) in MODES.items()}},
    ]
    return {
        "name": "dicethrone", "title": data["title"], "modes": data["modes"], "start": data["start"],
        "setup": setup,  # type: ignore[typeddict-item]
        "phases": data["phases"],
        "dice_sets": {h["dice_set"]: hero_dice_set(h) for h in heroes},
        "catalogue": {"heroes": heroes, "cards": _cards(), "statuses": _statuses()},
        "texts": texts, "hidden": False, "scoreboard": data["scoreboard"],
    }
