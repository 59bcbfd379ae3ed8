"""A table at a glance, for a board of many tables (`dicesight venue`) and its events over MQTT.

Why here and why from the public snapshot only: the venue board and a Home Assistant watching a café's boxes
want the same few things of every table (the game, its players, whose turn, life and VP, the last roll, the
winners) whatever the game, and must never learn a hidden die. So `board` reads nothing but the snapshot a
watcher without a seat gets (the shared screen's view), guided by the game's own `scoreboard` description
(engine.core.Scoreboard): no game is named here, and a hidden roll is only what that view shows (colours).
`events` compares two such boards, so the events (rolls, damage, winners) can tell no more than the boards.
"""

from __future__ import annotations

from typing import Any

from engine.games import GAMES

MAX_PLAYERS = 12  # a board row per player; a snapshot claiming more is not a table's
MAX_DICE = 40
NO_SCOREBOARD: dict[str, Any] = {"scores": [], "turn": "active", "winners": None}


def _at(data: Any, path: str | None) -> Any:
    """The value at a dotted `path` ("mage.left") inside nested dicts, or None."""
    if not path:
        return None
    for part in path.split("."):
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def _number(value: Any) -> int | float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _description(game: Any) -> dict[str, Any] | None:
    rules = GAMES.get(game) if isinstance(game, str) else None
    return rules.describe() if rules is not None else None


def _phase(desc: dict[str, Any] | None, phase: Any) -> dict[str, Any] | None:
    """The phase with its name in every language (the description's), or None when there is none."""
    if not isinstance(phase, str):
        return None
    for row in (desc or {}).get("phases", []):
        if row.get("id") == phase:
            return {"id": phase, "name": row.get("name")}
    return {"id": phase, "name": None}


def _player(row: dict[str, Any], scores: list[dict[str, Any]]) -> dict[str, Any]:
    """A player's id, name and scores (`max` where the game gives one)."""
    pid = row.get("id")
    return {
        "id": pid if isinstance(pid, str) else str(pid),
        "name": _text(row.get("name")) or str(pid),
        "scores": {s["key"]: _number(_at(row, s["key"])) for s in scores},
        "max": {s["key"]: _number(_at(row, s["max"])) for s in scores if s.get("max")},
    }


def _winners(snap: dict[str, Any], spec: dict[str, Any], ids: list[str]) -> list[str]:
    """Who won, as player ids: the list or the single id at the scoreboard's `winners`, or every player when
    the value there is the game's `everyone` (a co-op victory)."""
    value = _at(snap, spec.get("winners"))
    if value is None:
        return []
    if spec.get("everyone") is not None and value == spec["everyone"]:
        return list(ids)
    found = value if isinstance(value, list) else [value]
    return [w for w in found if isinstance(w, str) and w in ids]


def _die(die: Any) -> dict[str, Any] | None:
    """One die of a logged roll as the board draws it: a number, a face name, a colour (whatever of these the
    public log shows: a hidden roll shows only colours)."""
    if isinstance(die, bool):
        return None
    if isinstance(die, int | float):
        return {"value": die}
    if isinstance(die, str):
        return {"face": die[:24]}
    if isinstance(die, dict):
        out = {k: die[k] for k in ("value", "face", "colour")
               if isinstance(die.get(k), int | str) and not isinstance(die.get(k), bool)}
        return out
    return None


def last_roll(snap: dict[str, Any]) -> dict[str, Any] | None:
    """The newest roll in the snapshot's log tail: its move number, roller (when the action names one) and
    dice as the public log shows them."""
    for entry in reversed(snap.get("log") or []):
        action = entry.get("action") if isinstance(entry, dict) else None
        if not isinstance(action, dict) or action.get("type") != "roll":
            continue
        dice = [d for d in map(_die, (action.get("dice") or [])[:MAX_DICE]) if d is not None]
        player = action.get("player")
        return {"seq": _number(entry.get("seq")), "player": player if isinstance(player, str) else None,
                "dice": dice}
    return None


def board(snap: dict[str, Any]) -> dict[str, Any]:
    """The table at a glance, from its public snapshot (see the module doc). Names come as the game's Text
    ({"en", "zh-TW", "ko"}), so one board serves every language."""
    desc = _description(snap.get("game"))
    spec = (desc or {}).get("scoreboard") or NO_SCOREBOARD
    texts = (desc or {}).get("texts", {})
    scores = [s for s in spec.get("scores", []) if isinstance(s, dict) and isinstance(s.get("key"), str)]
    rows = [p for p in (snap.get("players") or [])[:MAX_PLAYERS] if isinstance(p, dict)]
    players = [_player(p, scores) for p in rows]
    ids = [p["id"] for p in players]
    turn = _at(snap, spec.get("turn")) or (snap.get("pending") or {}).get("player")
    winners = _winners(snap, spec, ids)
    phase = _phase(desc, snap.get("phase"))
    return {
        "game": _text(snap.get("game")),
        "title": (desc or {}).get("title"),
        "game_id": _number(snap.get("game_id")),
        "seq": _number(snap.get("seq")) or 0,
        "phase": phase,
        "scores": [{"key": s["key"], "name": texts.get(s.get("text", "")), "life": bool(s.get("life"))}
                   for s in scores],
        "players": players,
        "turn": turn if isinstance(turn, str) and turn in ids else None,
        "winners": winners,
        "over": bool(winners) or (phase or {}).get("id") == "over",
        "last_roll": last_roll(snap),
    }


def _life_key(b: dict[str, Any]) -> str | None:
    return next((s["key"] for s in b.get("scores", []) if s.get("life")), None)


def _names(b: dict[str, Any], ids: list[str]) -> list[str]:
    by_id = {p["id"]: p["name"] for p in b.get("players", [])}
    return [by_id.get(i, i) for i in ids]


def _damage(prev: dict[str, Any], cur: dict[str, Any]) -> list[dict[str, Any]]:
    """A damage event per player whose life went down between the two boards."""
    key = _life_key(cur)
    if key is None:
        return []
    before = {p["id"]: p["scores"].get(key) for p in prev.get("players", [])}
    out = []
    for p in cur.get("players", []):
        was, now = before.get(p["id"]), p["scores"].get(key)
        if _number(was) is not None and _number(now) is not None and now < was:
            out.append({"type": "damage", "player": p["id"], "name": p["name"], "amount": was - now,
                        "score": key, "before": was, "after": now})
    return out


def events(prev: dict[str, Any] | None, cur: dict[str, Any]) -> list[dict[str, Any]]:
    """What happened between two boards of one table: a new game, a roll, damage, winners. Nothing for the
    first board (a box that just started tells its state, not a story)."""
    if prev is None:
        return []
    if (prev.get("game_id"), prev.get("game")) != (cur.get("game_id"), cur.get("game")):
        return [{"type": "game", "game": cur.get("game"), "title": cur.get("title"),
                 "players": [p["name"] for p in cur.get("players", [])]}]
    out: list[dict[str, Any]] = []
    roll, was = cur.get("last_roll"), prev.get("last_roll")
    if roll and roll.get("seq") is not None and (not was or (was.get("seq") or 0) < roll["seq"]):
        name = _names(cur, [roll["player"]])[0] if roll.get("player") else None
        out.append({"type": "roll", **roll, "name": name})
    out += _damage(prev, cur)
    if cur.get("winners") and not prev.get("winners"):
        out.append({"type": "winners", "players": cur["winners"], "names": _names(cur, cur["winners"])})
    return out
