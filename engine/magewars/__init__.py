"""Mage Wars companion: the attack sequence from the dice on the tray, conditions, upkeep, mana and victory."""

from .rules import MageWars

__all__ = ["MageWars"]
