"""How King of Tokyo describes itself to the box: modes (City; City and Bay), the setup form (a monster per
seat, each monster once), phases with their panel LEDs, the `kingoftokyo` dice set, and the catalogue of
monsters, power cards and tokens with their rule text, in en/zh-TW/ko.

Opposite faces: the rulebooks do not print the layout of the dice, so the set takes the same assumption as
vision's own `kingoftokyo` set (docs/dice-sets.md): "1" opposite "energy", "2" opposite "claw", "3" opposite
"heart" (sides 1-5, 2-6, 3-4 in this set's order). A documented choice, not a measured fact: a box whose
dice differ teaches its faces from below (DESIGN.md).

Colours: the set names none. The green dice carry the same six faces as the black ones and only count when a
card grants an extra die (reference section 1, "Components"), so no rule reads a die's colour. A set that
names colours makes the reader unsure of every die whose colour it does not find among them
(`vision.decide.colour_sure`): from below that made 101 of 278 dice unsure whose face was read right and sure
(docs/dice-sets.md, thirteenth session).
The game still asks the demo tray for black dice (`view.py`, the decision's "colours").
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..core import DiceSetSpec, FaceSpec, GameDescription, Text
from .data import FACES, cards, game_json

OPPOSITE = {"1": 5, "5": 1, "2": 6, "6": 2, "3": 4, "4": 3}
GLYPHS = {"1": "text:1", "2": "text:2", "3": "text:3", "heart": "icon:heart", "energy": "icon:energy",
          "claw": "icon:claw"}


def dice_set(texts: dict[str, Text]) -> DiceSetSpec:
    faces: list[FaceSpec] = []
    for i, face in enumerate(FACES, start=1):
        faces.append({"index": i, "name": face, "value": int(face) if face.isdigit() else None,
                      "glyph": GLYPHS[face], "label": texts[f"face.{face}"]})
    return {"id": "kingoftokyo", "name": dict(game_json()["title"]), "faces": faces,
            "opposite": dict(OPPOSITE), "kind": "icons", "shape": "square"}


def _cards() -> list[dict[str, Any]]:
    return [{k: row[k] for k in ("id", "name", "cost", "type", "count", "text")} for row in cards().values()]


@cache
def description() -> GameDescription:
    data = game_json()
    texts: dict[str, Text] = dict(data["texts"])
    monsters = [dict(m) for m in data["monsters"]]
    setup: list[dict[str, Any]] = [
        {"key": "players", "kind": "seat_choice", "choice": "monster", "name": texts["setup.monster"],
         "options": [{"id": m["id"], "name": m["name"]} for m in monsters], "unique": True,
         "min": 2, "max": 6, "default": monsters[0]["id"]},
    ]
    return {
        "name": "kingoftokyo", "title": data["title"], "modes": data["modes"], "start": data["start"],
        "setup": setup,  # type: ignore[typeddict-item]
        "phases": data["phases"],
        "dice_sets": {"kingoftokyo": dice_set(texts)},
        "catalogue": {"monsters": monsters, "cards": _cards(), "tokens": data["tokens"]},
        "texts": texts, "hidden": False, "scoreboard": data["scoreboard"],
    }
