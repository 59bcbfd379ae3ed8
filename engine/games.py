"""Registry of the games the engine keeps, by the name used in setups, the CLI and the store. A new game adds
one line here (docs/architecture.md, "Adding a game"); nothing registers itself at import."""

from __future__ import annotations

from .core import IllegalAction, Rules
from .dicethrone import DiceThrone
from .freeroll import FreeRoll
from .kingoftokyo import KingOfTokyo
from .magewars import MageWars
from .regidice import Regidice

GAMES: dict[str, Rules] = {
    "freeroll": FreeRoll(),
    "dicethrone": DiceThrone(),
    "kingoftokyo": KingOfTokyo(),
    "regidice": Regidice(),
    "magewars": MageWars(),
}

# The box's own game, played when it has no other: a fresh box, a saved game that cannot resume, the dice
# test of the fairness page. Named here so that nothing outside the registry and the game's folder names a game.
FALLBACK_GAME = "freeroll"


def describe_all() -> list[dict]:
    """Every game's self-description, for the page's game chooser and the CLI."""
    return [rules.describe() for rules in GAMES.values()]


def get_rules(name: str) -> Rules:
    """The rules for `name`, or IllegalAction naming the games that exist."""
    try:
        return GAMES[name]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise IllegalAction("unknown_game", f"There is no game called \"{name}\" (known: {known}).") from None
