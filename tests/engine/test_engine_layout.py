"""The engine's module layout (issue 9, "Engine tidy"): imports at the top of each module, no import circles,
and every effect the hero and card data use has a handler.

Read from the source with `ast`, so the check covers modules no test happens to import.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from engine.dicethrone import effects

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ENGINE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> tuple[set[str], list[int]]:
    """(engine modules imported at module level, line numbers of imports inside functions or classes)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    me = _module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    top: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            mod = (f"{base}.{node.module}" if node.module else base) if node.level else (node.module or "")
            if mod.startswith("engine"):
                if node.module:  # `from .heroes import hero`: the module heroes
                    top.add(mod)
                top.update(f"{mod}.{a.name}" for a in node.names)  # `from . import flow`: the module flow
        elif isinstance(node, ast.Import):
            top.update(a.name for a in node.names if a.name.startswith("engine"))
    nested = [n.lineno for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
              and not any(n is top_node for top_node in tree.body)]
    return top, nested


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in ENGINE.rglob("*.py")}
    graph = {}
    for name, path in files.items():
        top, _ = _imports(path)
        graph[name] = {m for m in top if m in files and m != name}
    return graph


def test_no_import_inside_a_function_in_engine():
    """Style rule (TEAM.md): no function-level imports, so the dependency graph is what the tops say."""
    found = {str(p.relative_to(ENGINE.parent)): lines for p in ENGINE.rglob("*.py")
             if (lines := _imports(p)[1])}
    assert found == {}


def test_no_import_circles_in_engine():
    """Issue 9: combat and flow no longer import each other (their shared steps are in rollphase); no other
    module of engine/ reaches itself through its imports either."""
    graph = _graph()
    cycles = []

    def visit(node: str, path: list[str]) -> None:
        for nxt in sorted(graph[node]):
            if nxt in path:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif len(path) < 30:
                visit(nxt, path + [nxt])

    for start in sorted(graph):
        visit(start, [start])
    assert cycles == []
    assert "engine.dicethrone.rollphase" in graph["engine.dicethrone.flow"]  # the graph is really read


def _effects(node: object) -> list[dict]:
    """Every effect object ({"do": ...}) anywhere in a data file."""
    if isinstance(node, dict):
        found = [node] if isinstance(node.get("do"), str) else []
        for v in node.values():
            found += _effects(v)
        return found
    if isinstance(node, list):
        return [e for v in node for e in _effects(v)]
    return []


def _data_effects() -> list[dict]:
    data = ENGINE / "dicethrone"
    return [e for path in [*data.glob("*.json"), *(data / "heroes").glob("*.json")]
            for e in _effects(json.loads(path.read_text(encoding="utf-8")))]


def _dos(node: object) -> set[str]:
    return {e["do"] for e in _effects(node)}


def test_every_effect_in_the_data_has_a_handler():
    """Every `do` written in hero, card and status data is either applied by effects.HANDLERS or is one of
    the effects that wait for dice (run by the roll-phase code): none is silently skipped."""
    data = ENGINE / "dicethrone"
    used: set[str] = set()
    for path in [*data.glob("*.json"), *(data / "heroes").glob("*.json")]:
        used |= _dos(json.loads(path.read_text(encoding="utf-8")))
    assert "damage" in used and "roll" in used
    assert used - set(effects.HANDLERS) - effects.PAUSING == set()


def test_every_chosen_player_effect_can_go_to_a_player():
    """Effects with `to` (a chosen player) are of a kind effects.TO_PLAYER applies to a player, with a known
    `to`; their `also` effects too."""
    chosen = [e for e in _data_effects() if "to" in e]
    assert chosen                                   # the Seraph's Take Flight at least
    for eff in chosen:
        assert eff["to"] in ("chosen", "opponent", "teammate"), eff
        assert eff["do"] in effects.TO_PLAYER, eff
        assert all(sub["do"] in effects.TO_PLAYER for sub in eff.get("also", [])), eff


def _games() -> list[str]:
    return sorted(p.parent.name for p in ENGINE.glob("*/__init__.py"))


def test_a_game_imports_no_other_game_and_the_engine_nothing_above_it():
    """Issue 35, a game is one folder: a game's modules import the shared engine and their own folder only
    (another game's helpers would tie the two), the shared modules import no game but in the registry
    (engine/games.py), and no engine module imports the box, the page or vision
    (the engine is pure: device/, webui/ and vision/ build on it, never the reverse)."""
    games = _games()
    crossing, upward = [], []
    for path in ENGINE.rglob("*.py"):
        name = _module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        absolute = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level}
        absolute |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        upward += [f"{name}: {m}" for m in absolute if m.split(".")[0] in ("device", "webui", "vision")]
        own = name.split(".")[1] if name.count(".") >= 1 and name.split(".")[1] in games else None
        for mod in _imports(path)[0]:
            other = mod.split(".")[1] if mod.count(".") >= 1 else None
            if other in games and other != own and name != "engine.games":  # the registry lists them all
                crossing.append(f"{name} -> {mod}")
    assert "dicethrone" in games and "regidice" in games  # the folders are really read
    assert crossing == [] and upward == []
