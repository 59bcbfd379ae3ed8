"""Hero data: one JSON file per hero in this package, loaded once and indexed for the rules.

Heroes are data, not code (DESIGN.md): adding a hero means adding a JSON file. `catalogue()` is what the
phone's setup screen and the dice reader (`dicethrone:<hero>` dice sets) need: ids, names in three
languages and the face layout.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

ROMAN = {1: "I", 2: "II", 3: "III"}


def _files() -> list[str]:
    return sorted(p.name for p in resources.files(__name__).iterdir() if p.name.endswith(".json"))


@cache
def hero_ids() -> tuple[str, ...]:
    """Ids of every hero shipped (the file names without .json)."""
    return tuple(name[:-5] for name in _files())


def _numbered(name: dict[str, str], level: int) -> dict[str, str]:
    """An upgrade card's name in every language the ability has: the ability's name and the level's numeral."""
    return {lang: f"{text} {ROMAN[level]}" for lang, text in name.items()}


def norm(name: str) -> str:
    """Card and ability names compared loosely: case, punctuation and spaces ignored."""
    return "".join(ch for ch in name.lower() if ch.isalnum())


@cache
def hero(hero_id: str) -> dict[str, Any]:
    """The hero's data with indexes added (`by_id`, `cards_by_name`); KeyError for an unknown hero."""
    if hero_id not in hero_ids():
        raise KeyError(hero_id)
    data = json.loads(resources.files(__name__).joinpath(f"{hero_id}.json").read_text(encoding="utf-8"))
    by_id = {a["id"]: a for a in data["abilities"]}
    data["by_id"] = by_id
    cards: dict[str, dict[str, Any]] = {}
    for card in data.get("cards", []):
        _index(cards, card["name"]["en"], card)
    _board_upgrades(data, cards)
    _costed_upgrades(data, cards)
    data["cards_by_name"] = cards
    data["upgrade_cards"] = list({c["id"]: c for c in cards.values() if c.get("type") == "upgrade"}.values())
    data["offensive"] = [a for a in data["abilities"] if a["kind"] in ("offensive", "ultimate")]
    data["defenses"] = [a for a in data["abilities"] if a["kind"] == "defense"]
    data["passives"] = [a for a in data["abilities"] if a["kind"] == "passive"]
    return data


def _index(cards: dict[str, dict[str, Any]], label: str, card: dict[str, Any]) -> None:
    """A card is found by its name and by its id, as a player may write either."""
    cards[norm(label)] = card
    cards[norm(card["id"])] = card


def _board_upgrades(data: dict[str, Any], cards: dict[str, dict[str, Any]]) -> None:
    """Upgrade cards come from the board data: "<Ability> II" installs level 2 of that slot."""
    for ability in data["abilities"]:
        if ability.get("slot"):
            continue
        for level in ability["levels"]:
            if "cost" not in level:
                continue
            label = f"{ability['name']['en']} {ROMAN[level['level']]}"
            card = {"id": f"{ability['id']}_{level['level']}", "name": _numbered(ability["name"], level["level"]),
                    "cost": level["cost"],
                    "type": "upgrade", "slot": ability["id"], "level": level["level"]}
            _index(cards, label, card)


def _costed_upgrades(data: dict[str, Any], cards: dict[str, dict[str, Any]]) -> None:
    """Upgrades whose cost is known but whose board text is not: the card sets the level, effects by hand."""
    names = {norm(a["name"]["en"]): a["id"] for a in data["abilities"] if not a.get("slot")}
    for label, cost in data.get("upgrade_costs", {}).items():
        if norm(label) in cards:
            continue
        base, roman = label.rsplit(" ", 1)
        level = {v: k for k, v in ROMAN.items()}[roman]
        slot = names.get(norm(base))
        if slot is None:
            continue
        card = {"id": f"{slot}_{level}", "name": {"en": label}, "cost": cost, "type": "upgrade", "slot": slot,
                "level": level, "unknown_effect": True}
        _index(cards, label, card)


def catalogue() -> list[dict[str, Any]]:
    """Every hero: id, names (en, zh-TW, ko when known), faces 1-6 as symbols with their names."""
    out = []
    for hero_id in hero_ids():
        data = hero(hero_id)
        out.append({
            "id": hero_id,
            "name": data["name"],
            "faces": list(data["faces"]),
            "symbols": data.get("symbols", {}),
            "dice_set": f"dicethrone:{hero_id}",
            "season": data.get("season"),
            "edition": data.get("edition"),
            "statuses": list(data.get("statuses", [])),
            "abilities": [{"id": a["id"], "kind": a["kind"], "name": a["name"],
                           "levels": [lv["level"] for lv in a["levels"]], **({"slot": a["slot"]} if a.get("slot") else {})}
                          for a in data["abilities"]],
            "cards": [{"id": c["id"], "name": c["name"], "cost": c["cost"], "type": c["type"]}
                      for c in {id(c): c for c in data["cards_by_name"].values()}.values()],
            "complete": data.get("complete", True),
        })
    return out
