"""Pig, a tiny dice game that exists only to prove the recipe for adding a game (docs/architecture.md,
"Adding a game"): its folder (rules, game.json, board.js) and one registry line, nothing else."""

from .rules import Pig

__all__ = ["Pig"]
