"""The example games of docs/examples/regidice-* play to their stated end, and docs/actions.md's Regidice
section names every action type and refusal code the engine has."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from rdhelp import RULES

from engine.match import Match
from engine.regidice import flow
from engine.regidice import state as st

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "docs" / "examples").glob("regidice-*.setup.json"))


@pytest.mark.parametrize("setup_path", EXAMPLES, ids=lambda p: p.name)
def test_example_game_plays_to_its_end(setup_path: Path) -> None:
    setup = json.loads(setup_path.read_text(encoding="utf-8"))
    script = setup_path.with_name(setup_path.name.replace(".setup.json", ".jsonl"))
    lines = [ln for ln in script.read_text(encoding="utf-8").splitlines() if ln.strip()]
    match = Match(RULES, setup, setup["seed"])
    for line in lines:
        if not line.startswith("#"):
            match.submit(json.loads(line))
    expected = "victory" if "victory" in setup_path.name else "defeat"
    assert match.state["phase"] == "over" and match.state["result"] == expected
    assert lines[-1].startswith(f"# {expected}")
    if expected == "victory":
        assert match.state["enemy"] == 3


def _section() -> str:
    text = (ROOT / "docs" / "actions.md").read_text(encoding="utf-8")
    return text[text.index("## Regidice"):]


def test_docs_name_every_action_and_refusal_code() -> None:
    doc = _section()
    for kind in flow.HANDLERS:
        assert f'"type": "{kind}"' in doc, kind
    codes = set()
    for path in Path(st.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                arg = {"require": 1, "IllegalAction": 0}.get(node.func.id)
                if arg is not None and len(node.args) > arg and isinstance(node.args[arg], ast.Constant):
                    codes.add(node.args[arg].value)
    refusals = doc[doc.index("### Refusal codes"):doc.index("### Decisions taken")]
    assert sorted(c for c in codes if f"`{c}`" not in refusals) == []
