"""How the free-roll game describes itself: one pip d6 set, one phase, no players to set up."""

from __future__ import annotations

from functools import cache

from ..core import GameDescription
from ..describe import load_game_json, pip_d6


@cache
def description() -> GameDescription:
    data = load_game_json(__package__)
    return {
        "name": "freeroll", "title": data["title"], "modes": data["modes"], "start": data["start"],
        "setup": [], "phases": data["phases"],
        "dice_sets": {"d6": pip_d6("d6", data["title"])},
        "catalogue": {}, "texts": data["texts"], "hidden": False, "scoreboard": data["scoreboard"],
    }
