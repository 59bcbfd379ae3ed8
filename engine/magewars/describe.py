"""How the Mage Wars companion describes itself: two modes, the duel's setup form (a mage per seat), the
round's phases with their panel LEDs, the attack die and the d12 effect die as plain dice-set data, and the
catalogue of mages and condition markers with their rule text in en, zh-TW and ko.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..core import DiceSetSpec, FaceSpec, GameDescription
from ..describe import load_game_json, text
from .state import conditions, mages

# The attack die (§2): blank, blank, 1, 2, 1 in a starburst, 2 in a starburst. Which sides sit opposite
# each other is not in the sources: pairs (blank, 2*), (blank, 1*), (1, 2) are our assumption, so a box
# under the tray should be taught this set from below (docs/dice-sets.md) before trusting it.
_ATTACK_FACES = [("blank", 0, "blank"), ("blank", 0, "blank"), ("1", 1, "text:1"), ("2", 2, "text:2"),
                 ("1*", 1, "icon:starburst+text:1"), ("2*", 2, "icon:starburst+text:2")]


def attack_dice_set() -> DiceSetSpec:
    labels = {"blank": text("blank", "空白", "빈 면"), "1*": text("1 critical", "爆擊 1", "치명 1"),
              "2*": text("2 critical", "爆擊 2", "치명 2")}
    faces: list[FaceSpec] = []
    for i, (name, value, glyph) in enumerate(_ATTACK_FACES, start=1):
        face: FaceSpec = {"index": i, "name": name, "value": value, "glyph": glyph}
        if name in labels:
            face["label"] = labels[name]
        faces.append(face)
    return {"id": "magewars-attack", "name": text("Attack dice", "攻擊骰", "공격 주사위"), "faces": faces,
            "opposite": {"1": 6, "6": 1, "2": 5, "5": 2, "3": 4, "4": 3}, "kind": "icons", "shape": "square"}


def d12_dice_set() -> DiceSetSpec:
    """The effect die: a d12 with numerals; opposite faces add up to 13 as on a standard d12."""
    faces: list[FaceSpec] = [{"index": i, "name": str(i), "value": i, "glyph": f"text:{i}"} for i in range(1, 13)]
    return {"id": "d12", "name": text("Effect die", "效果骰", "효과 주사위"), "faces": faces,
            "opposite": {str(i): 13 - i for i in range(1, 13)}, "kind": "numerals", "shape": "pentagon"}


@cache
def description() -> GameDescription:
    data = load_game_json(__package__)
    texts = data["texts"]
    mage_rows = [{"id": m["id"], "name": m["name"], "life": m["life"]} for m in mages().values()]
    setup: list[dict[str, Any]] = [
        {"key": "mode", "kind": "choice", "name": texts["setup.mode"], "default": "arena",
         "options": [{"id": m["id"], "name": m["name"]} for m in data["modes"]]},
        {"key": "players", "kind": "seat_choice", "choice": "mage", "name": texts["setup.mage"],
         "options": mage_rows, "unique": False, "default": "wizard"},
    ]
    cond_rows = [{k: row[k] for k in ("id", "name", "text", "type", "cost") if k in row}
                 | {"unverified": bool(row.get("unverified"))} for row in conditions().values()]
    return {
        "name": "magewars", "title": data["title"], "modes": data["modes"], "start": data["start"],
        "setup": setup,  # type: ignore[typeddict-item]
        "phases": data["phases"],
        "dice_sets": {"magewars-attack": attack_dice_set(), "d12": d12_dice_set()},
        "catalogue": {"mages": mage_rows, "conditions": cond_rows},
        "texts": texts, "hidden": False, "scoreboard": data["scoreboard"],
    }
