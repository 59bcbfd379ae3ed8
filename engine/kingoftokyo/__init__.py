"""King of Tokyo: 2-6 monsters, Tokyo City and Bay, the 66 power cards of the base game, dice from the tray."""

from .rules import KingOfTokyo

__all__ = ["KingOfTokyo"]
