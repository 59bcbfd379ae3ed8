"""docs/actions.md's Dice Throne section against the engine: every documented action type and setup key
exists, every action type, setup key and refusal code of the engine is documented, and the documented
setups are accepted (issue 9: "every documented action, setup key and example script keeps working")."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from engine.dicethrone import actions
from engine.dicethrone import state as dts
from engine.games import get_rules

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "actions.md").read_text(encoding="utf-8")
SECTION = DOC[DOC.index("## Dice Throne (`dicethrone`)"):]
SECTION = SECTION[:SECTION.index("\n## ", 10)] if "\n## " in SECTION[10:] else SECTION
COMMON = DOC[:DOC.index("## Dice Throne (`dicethrone`)")]
RULES = get_rules("dicethrone")


def _table_keys(heading: str) -> set[str]:
    """The backquoted words of the first column of the table under `heading`."""
    part = SECTION[SECTION.index(heading):]
    rows = []
    for line in part.splitlines()[1:]:
        if line.startswith("#"):
            break
        if line.startswith("|") and not line.startswith("|---"):
            rows.append(line.split("|")[1])
    return {w for row in rows for w in re.findall(r"`([^`]+)`", row)}


def test_every_documented_action_type_exists():
    documented = set(re.findall(r'\{"type": "([a-z_]+)"', SECTION))
    assert documented and documented - set(actions.HANDLERS) - {"undo", "redo"} == set()


def test_every_action_type_has_its_fields_documented():
    assert set(actions.HANDLERS) - _table_keys("#### Every field, by action") == set()


def test_every_setup_key_is_documented():
    game_keys = _table_keys("### Setup")
    player_keys = _table_keys("Per player:")
    position = _table_keys("#### A mid-game position")
    assert set(dts.SETUP_KEYS) - game_keys - position == set()
    assert set(dts.PLAYER_KEYS) - player_keys - position == set()
    assert set(dts.POSITION_PHASES) <= set(re.findall(r'`"([a-z0-9]+)"`', SECTION))


def test_documented_setups_are_accepted():
    blocks = re.findall(r"```json\n(.*?)```", SECTION, re.S)
    setups = [json.loads(b) for b in blocks if b.lstrip().startswith('{"mode"')]
    assert len(setups) >= 2                   # the plain setup and the mid-game position
    for setup in setups:
        s = RULES.setup(setup, setup.get("seed", 0))
        assert s["pending"] is not None


def _codes_raised() -> set[str]:
    """Codes of every IllegalAction(...) and require(...) written in the Dice Throne engine and its checks."""
    codes = set()
    files = [*(ROOT / "engine" / "dicethrone").glob("*.py"), ROOT / "engine" / "checks.py"]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                k = {"IllegalAction": 0, "require": 1}.get(node.func.id)
                if k is not None and len(node.args) > k and isinstance(node.args[k], ast.Constant):
                    codes.add(node.args[k].value)
    return codes


def test_every_refusal_code_is_documented():
    documented = _table_keys("### Refusal codes")
    raised = _codes_raised()
    assert {"bad_setup", "wrong_time", "not_satisfied"} <= raised
    assert raised - documented == set()


def test_the_play_command_is_documented_once_for_every_game():
    assert "dicesight play GAME" in COMMON and "--strict" in COMMON and "line 0" in COMMON
