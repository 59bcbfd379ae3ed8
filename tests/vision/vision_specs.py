"""Dice sets as a game would describe them (plain `DiceSetSpec` dicts), for the vision tests.

They are test fixtures, not any game's data: the reader must work with whatever set it is handed."""

from __future__ import annotations

SIX_OPPOSITE = {"1": 6, "6": 1, "2": 5, "5": 2, "3": 4, "4": 3}

SYMBOLS = {
    "id": "test-symbols", "name": {"en": "Numbers and symbols"}, "kind": "icons", "shape": "square",
    "faces": [{"index": 1, "name": "1", "value": 1, "glyph": "text:1"},
              {"index": 2, "name": "2", "value": 2, "glyph": "text:2"},
              {"index": 3, "name": "3", "value": 3, "glyph": "text:3"},
              {"index": 4, "name": "energy", "value": None, "glyph": "icon:energy"},
              {"index": 5, "name": "claw", "value": None, "glyph": "icon:claw"},
              {"index": 6, "name": "heart", "value": None, "glyph": "icon:heart"}],
    "opposite": {"1": 4, "4": 1, "2": 5, "5": 2, "3": 6, "6": 3},
}

ATTACK = {
    "id": "test-attack", "name": {"en": "Blanks, numbers, stars"}, "kind": "icons", "shape": "square",
    "faces": [{"index": 1, "name": "blank", "value": 0, "glyph": "blank"},
              {"index": 2, "name": "blank", "value": 0, "glyph": "blank"},
              {"index": 3, "name": "1", "value": 1, "glyph": "text:1"},
              {"index": 4, "name": "2", "value": 2, "glyph": "text:2"},
              {"index": 5, "name": "1-star", "value": 1, "glyph": "icon:star+text:1"},
              {"index": 6, "name": "2-star", "value": 2, "glyph": "icon:star+text:2"}],
    "opposite": {"1": 2, "2": 1, "3": 5, "5": 3, "4": 6, "6": 4},
}

NUMERALS12 = {
    "id": "test-d12", "name": {"en": "d12"}, "kind": "numerals", "shape": "pentagon",
    "faces": [{"index": i, "name": str(i), "value": i, "glyph": f"text:{i}" + ("_" if i in (6, 9) else "")}
              for i in range(1, 13)],
    "opposite": {str(i): 13 - i for i in range(1, 13)},
}

HERO = {
    "id": "test-hero", "name": {"en": "A hero"}, "kind": "icons", "shape": "square",
    "faces": [{"index": i, "name": n, "value": i, "glyph": f"icon:{n}+corner:{i}"}
              for i, n in enumerate(["sword", "sword", "sword", "heart", "heart", "pow"], start=1)],
    "opposite": SIX_OPPOSITE,
}

ALL = [SYMBOLS, ATTACK, NUMERALS12, HERO]
