"""Every refusal an engine can give has words in zh-TW and ko (issue 34 #5: a phone showed "지수 rolls 6 dice,
but 8 were given." and "The dice are rolled in the Roll phase only." on a zh-TW page).

A refusal reaches a phone by its code: the API words it through the game's `refusal.<code>` text, else the
page's catalogue (webui.i18n.ENGINE_MESSAGES); the page does the same for the refusals it shows under the
tray. The codes are read from the engine's source (each `require(condition, "code", ...)` and
`IllegalAction("code", ...)`), so a new refusal without words fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine.games import GAMES, get_rules
from webui.i18n import ENGINE_MESSAGES

ENGINE = Path(__file__).resolve().parents[2] / "engine"
SHARED = ["checks.py", "core.py", "kernel.py", "match.py", "odds.py", "rng.py"]  # machinery every game's actions go through


def refusal_codes(path: Path) -> set[str]:
    """The codes a module refuses with, where the code is written out."""
    codes = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        arg = node.args[1] if func == "require" and len(node.args) > 1 else (
            node.args[0] if func == "IllegalAction" and node.args else None)
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            codes.add(arg.value)
    return codes


def test_the_scan_finds_refusals():
    """The scan reads the engine as written: a game's own codes and the shared ones are found."""
    assert {"wrong_time", "wrong_dice_count"} <= refusal_codes(ENGINE / "regidice" / "flow.py")
    assert "bad_action" in set().union(*(refusal_codes(ENGINE / name) for name in SHARED))


@pytest.mark.parametrize("game", sorted(GAMES))  # every registered game: a new one is checked with no edit here
def test_every_refusal_has_words_in_every_language(game):
    codes = set().union(*(refusal_codes(p) for p in (ENGINE / game).rglob("*.py")),
                        *(refusal_codes(ENGINE / name) for name in SHARED))
    texts = get_rules(game).describe()["texts"]
    missing = sorted(c for c in codes if f"refusal.{c}" not in texts and c not in ENGINE_MESSAGES)
    assert missing == [], f"{game}: refusals with no words in zh-TW and ko"
    for code in codes:
        own = texts.get(f"refusal.{code}")
        if own:
            assert own.get("zh-TW") and own.get("ko") and own["zh-TW"] != own["en"] != own["ko"], code
