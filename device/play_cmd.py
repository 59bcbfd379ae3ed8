"""`dicesight play GAME`: a game played from a script of actions, with no camera, for rules tests.

Generic over games: the game is looked up by name in `engine.games`; nothing here knows any game's rules.
The first output line is the snapshot right after setup (line 0), then one line per script line: the
events and the snapshot after an accepted action, or the refusal (IllegalAction code and message). A
refusal changes nothing and the script goes on; the exit status is 0 when the script ran to its end,
1 when `--strict` stopped it at the first refusal, 2 when the setup or the script cannot be used.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from engine import checks
from engine.core import IllegalAction
from engine.games import GAMES, get_rules
from engine.match import Match

Emit = Callable[[dict[str, Any]], None]


def game_names() -> str:
    """The games `play` takes, for the command's help."""
    return ", ".join(sorted(GAMES))


def script_lines(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed action or the ValueError) per line that is not blank or a `#` comment."""
    with open(path, encoding="utf-8-sig") as f:   # -sig: a byte-order mark from a Windows editor is no action
        for number, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                yield number, json.loads(line)
            except ValueError as err:
                yield number, err


def start(game: str, setup_path: str | None, seed: Any) -> Match:
    """The match after setup; IllegalAction("bad_setup" / "unknown_game", ...) when it cannot start."""
    rules = get_rules(game)
    try:
        setup = json.loads(Path(setup_path).read_text(encoding="utf-8-sig")) if setup_path else {}
    except (OSError, ValueError) as err:
        raise IllegalAction("bad_setup", f"Cannot use the setup {setup_path}: {err}") from None
    if not isinstance(setup, dict):
        raise IllegalAction("bad_setup", f"The setup {setup_path} must be a JSON object.")
    return Match(rules, setup, checks.seed(setup.get("seed", seed)))


def run(game: str, setup_path: str | None, script_path: str | None, seed: int, as_json: bool,
        strict: bool, emit: Emit, viewer: str | None = None) -> int:
    """Play the script; `viewer` (a player id) prints each snapshot as that seat's phone sees it (the game's own
    per-viewer snapshot: another seat's hidden dice left out) and no engine events, which phones never get."""
    try:
        match = start(game, setup_path, seed)
    except IllegalAction as err:
        emit({"error": err.to_dict()})
        return 2
    try:
        lines = list(script_lines(Path(script_path))) if script_path else []
    except (OSError, ValueError) as err:
        emit({"error": {"code": "bad_script", "message": f"Cannot read the script {script_path}: {err}"}})
        return 2
    snap = match.snapshot(viewer=viewer)
    if as_json:
        emit({"line": 0, "seq": 0, "events": [], "snapshot": snap})
    else:
        print(f"setup: phase {snap.get('phase')}, {snap.get('active')} to act", flush=True)
    refused = 0
    for number, action in lines:
        try:
            if isinstance(action, ValueError):
                raise IllegalAction("bad_json", f"Line {number} is not valid JSON: {action}")
            entry = match.submit(action)
        except IllegalAction as err:
            refused += 1
            emit({"line": number, "error": err.to_dict()} if as_json
                 else {"line": number, "refused": err.code, "message": err.message})
            if strict:
                return 1
            continue
        snap = match.snapshot(viewer=viewer)
        if as_json:
            emit({"line": number, "seq": entry.seq, "events": match.last_events if viewer is None else [],
                  "snapshot": snap})
        else:
            print(f"line {number}: seq {entry.seq} {action.get('type')} -> phase {snap.get('phase')}"
                  + (f", winner {snap['winner']}" if snap.get("winner") else ""), flush=True)
    if not as_json:
        print(f"{len(lines) - refused} actions accepted, {refused} refused.")
    return 0
