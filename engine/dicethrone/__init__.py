"""Dice Throne: 1v1, 2v2 and King of the Hill, with heroes as JSON data (engine/dicethrone/heroes/)."""

from .rules import DiceThrone

__all__ = ["DiceThrone"]
