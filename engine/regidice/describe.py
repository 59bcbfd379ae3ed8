"""How Regidice describes itself (engine.core.GameDescription): one co-op mode for 2-4 players, the setup
form, the six round phases with their panel LEDs, the coloured pip d6 the camera reads, and the catalogue
(actions, spells, enemies) with every word in en, zh-TW and ko. Words and facts are data in game.json.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..core import GameDescription, Text
from ..describe import load_game_json, pip_d6
from .state import COLOURS


@cache
def description() -> GameDescription:
    data = load_game_json(__package__)
    texts: dict[str, Text] = dict(data["texts"])
    # Players and the first player come from the page's setup sheet (`players` from the mode's player count,
    # `start` = the first player's id); Regidice has no other option to set.
    setup: list[dict[str, Any]] = []
    return {
        "name": "regidice", "title": data["title"], "modes": data["modes"], "start": data["start"],
        "setup": setup,  # type: ignore[typeddict-item]
        "phases": data["phases"],
        "dice_sets": {"regidice": pip_d6("regidice", data["title"], list(COLOURS))},
        "catalogue": data["catalogue"], "texts": texts, "hidden": True, "scoreboard": data["scoreboard"],
    }
