"""Free roll: no rules, just a log of the rolls read from the tray (the walking skeleton's game)."""

from .rules import FreeRoll

__all__ = ["FreeRoll"]
