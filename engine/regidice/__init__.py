"""Regidice: the co-operative coloured-dice game against three black-dice enemies, with hidden rolls."""

from .rules import Regidice

__all__ = ["Regidice"]
