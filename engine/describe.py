"""Helpers for games describing themselves (engine.core.GameDescription): shared dice sets and text checks.

Each game keeps its own title, modes, phases and texts in a `game.json` beside its rules; these helpers only
load that file and build the dice sets more than one game throws (a pip d6), so no game copies them.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from .core import LANGS, DiceSetSpec, FaceSpec, Text

SIX_OPPOSITE = {"1": 6, "6": 1, "2": 5, "5": 2, "3": 4, "4": 3}


def load_game_json(package: str) -> dict[str, Any]:
    """The `game.json` data file of a game package (without its `_about` note)."""
    data = json.loads(resources.files(package).joinpath("game.json").read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def text(en: str, zh_tw: str | None = None, ko: str | None = None) -> Text:
    """A Text from its three languages (a missing one falls back to English)."""
    return {"en": en, "zh-TW": zh_tw or en, "ko": ko or en}


def pip_d6(set_id: str, name: Text, colours: list[str] | None = None) -> DiceSetSpec:
    """An ordinary pip d6 (opposite faces add up to 7), optionally in colours the game tells apart."""
    faces: list[FaceSpec] = [{"index": i, "name": str(i), "value": i, "glyph": f"pips:{i}"} for i in range(1, 7)]
    spec: DiceSetSpec = {"id": set_id, "name": name, "faces": faces, "opposite": dict(SIX_OPPOSITE),
                         "kind": "pips", "shape": "square"}
    if colours:
        spec["colours"] = list(colours)
    return spec


def untranslated(value: Any, path: str = "") -> list[str]:
    """Paths of every Text (a dict with an "en" key) inside `value` that lacks a language or repeats the
    English in it; tests use this to find strings a zh-TW or ko player would see in English."""
    out: list[str] = []
    if isinstance(value, dict):
        if isinstance(value.get("en"), str) and set(value) <= {*LANGS, "en"}:
            for lang in LANGS[1:]:
                if not value.get(lang) or (value[lang] == value["en"] and any(c.isalpha() for c in value["en"])):
                    out.append(f"{path}[{lang}]")
            return out
        for key, item in value.items():
            out += untranslated(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += untranslated(item, f"{path}[{i}]")
    return out
