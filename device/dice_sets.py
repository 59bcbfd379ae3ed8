"""Dice sets by id, resolved through the games' own descriptions, for the reader and the demo tray.

`vision/` knows no game: it is handed a set as plain data (`engine.core.DiceSetSpec`). The box names sets by
id ("d6", "<game>:<hero>"...); this module finds the description that a registered game gives for that id,
unless the box was given a dice-set file for that id (`camera.dice_files`, `use_files`): a table's own dice
override the game's description of them (device.dice_file).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from engine import games

if TYPE_CHECKING:
    from .dice_file import DiceFile

# dice-set files the box was started with, by set id (`use_files`); they win over the games' descriptions
_files: dict[str, DiceFile] = {}


def use_files(files: list[DiceFile]) -> None:
    """Read these sets from their files from now on (the box, at start: exactly the configured files)."""
    _files.clear()
    _files.update({f.id: f for f in files})


def dice_file(set_id: str) -> DiceFile | None:
    """The file the box was given for `set_id`, if any (its face pictures are taught faces)."""
    return _files.get(set_id)


@lru_cache(maxsize=1)
def _all_specs() -> dict[str, dict[str, Any]]:
    """Every dice set any registered game describes, by id (descriptions are constant: cached once)."""
    out: dict[str, dict[str, Any]] = {}
    for desc in games.describe_all():
        out.update(desc.get("dice_sets") or {})
    return out


def ids() -> list[str]:
    """Ids of every dice set the registered games use, plus the generic pip "d6" and the files' sets."""
    return sorted(set(_all_specs()) | {"d6"} | set(_files))


def spec(set_id: str | dict[str, Any]) -> dict[str, Any] | str:
    """The description of `set_id` for `vision` (a dict as it is; "d6" falls back to vision's own pip d6).
    Raises KeyError with a sentence naming the known ids for anything else."""
    if isinstance(set_id, dict):
        return set_id
    if set_id in _files:
        return _files[set_id].spec
    found = _all_specs().get(set_id)
    if found is not None:
        return found
    if set_id == "d6":
        return "d6"
    raise KeyError(f"unknown dice set {set_id!r} (known: {', '.join(ids())})")


def specs() -> dict[str, dict[str, Any]]:
    """Every set the registered games describe, by id, as the box reads them (a file's set wins; a copy)."""
    return {**_all_specs(), **{sid: f.spec for sid, f in _files.items()}}


@lru_cache(maxsize=1)
def _by_game() -> dict[str, tuple[str, ...]]:
    return {desc["name"]: tuple(desc.get("dice_sets") or {}) for desc in games.describe_all()}


def game_sets() -> dict[str, list[str]]:
    """Each registered game's set ids: which dice a roll of that game can be, when its log does not say."""
    return {name: list(ids_) for name, ids_ in _by_game().items()}
