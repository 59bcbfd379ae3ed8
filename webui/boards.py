"""Game boards: each game's view of the table ships in its own folder (engine/<game>/board.js, and
board.css when it has styles of its own) and is served from there by one route, as Flask serves a
blueprint's static files. A registered game without a board is an error when the app is made, not a
blank board on a phone (docs/architecture.md, "Adding a game").
"""

from __future__ import annotations

import hashlib
import inspect
from functools import cache
from pathlib import Path
from typing import Any

from flask import Blueprint, abort, send_from_directory, url_for

from engine.games import GAMES

bp = Blueprint("boards", __name__)
FILES = ("board.js", "board.css")


class MissingBoard(RuntimeError):
    """A registered game has no board.js in its folder."""


def folder(rules: Any) -> Path:
    """The folder of a game's rules: where its data and its board live."""
    return Path(inspect.getfile(type(rules))).resolve().parent


def check(games: dict[str, Any] | None = None) -> None:
    """Every registered game has its board (called when the app is made: a missing one stops the start)."""
    for name, rules in (GAMES if games is None else games).items():
        if not (folder(rules) / "board.js").is_file():
            raise MissingBoard(f"the game \"{name}\" has no board view: add {folder(rules) / 'board.js'}")


@cache
def _version(path: Path, mtime: float) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def urls(name: str) -> dict[str, str | None]:
    """Where the page loads a game's board from: {"js": url, "css": url or None}, each with its content's
    version (so a phone never runs a board from before an update)."""
    base = folder(GAMES[name])
    out: dict[str, str | None] = {}
    for file in FILES:
        path = base / file
        out[file.split(".")[1]] = url_for("boards.board", game=name, file=file,
                                          v=_version(path, path.stat().st_mtime)) if path.is_file() else None
    return out


@bp.get("/games/<game>/<file>")
def board(game: str, file: str):
    rules = GAMES.get(game)
    if rules is None or file not in FILES:
        abort(404)
    return send_from_directory(folder(rules), file, max_age=3600)
