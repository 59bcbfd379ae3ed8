"""King of Tokyo on the engine.core contract: setup, apply, snapshot, describe, options, default action,
dump and load. The rules themselves are in flow.py (the turn), actions.py (what players do), cards.py
(what bought cards do) and state.py (health, VP, energy, Tokyo)."""

from __future__ import annotations

from typing import Any

from ..core import Action, Event, GameDescription, require
from ..kernel import GameRules, find_seat
from . import actions as act
from . import flow, view
from . import state as st
from .data import START_HEALTH, cards, deck_ids, monsters
from .describe import description

S = st.S
LOG_STATE = 60  # readable events kept in the state for the page; the match log keeps every action


def _flat(d: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.copy() if type(v) in (list, dict) else v) for k, v in d.items()}


def _working_copy(s: S) -> S:
    """The copy `apply` changes: every container the rules change in place is new; what they never change
    in place is shared with the old state (card ids, events already logged, finished decisions). Three times
    faster than a deep copy on a 6-monster game (bench/engine.py); the property tests' undo/redo and replay
    checks would see any in-place change of a shared part."""
    c = dict(s)
    c["players"] = [{**p, "cards": [dict(x) for x in p["cards"]]} for p in s["players"]]
    for key in ("deck", "market", "discard", "log", "extra"):
        c[key] = list(s[key])
    c["dice"] = [dict(d) for d in s["dice"]]
    c["stats"] = {k: dict(v) for k, v in s.get("stats", {}).items()}
    c["steps"] = [_flat(step) for step in s["steps"]]
    c["t"] = _flat(s["t"])
    if s["pending"] is not None:
        c["pending"] = dict(s["pending"])
    if s["rolloff"] is not None:
        c["rolloff"] = _flat(s["rolloff"])
    return c


def _players(config: dict[str, Any]) -> list[dict[str, Any]]:
    raw = config.get("players")
    require(isinstance(raw, list) and 2 <= len(raw) <= 6, "bad_setup", "King of Tokyo takes 2 to 6 monsters.")
    known = monsters()
    out = []
    for k, row in enumerate(raw):  # type: ignore[arg-type]
        if isinstance(row, str):
            row = {"monster": row}
        require(isinstance(row, dict), "bad_setup", "Each player is a monster id or {\"monster\": ..., \"name\": ...}.")
        mid = row.get("monster")
        require(mid in known, "bad_setup",
                f"Unknown monster {mid!r} (known: {', '.join(known)}).")
        out.append({**row, "id": str(row.get("id") or f"p{k + 1}"),
                    "name": str(row.get("name") or known[mid]["name"]["en"])})
    require(len({p["monster"] for p in out}) == len(out), "bad_setup", "Each monster can be played only once.")
    require(len({p["id"] for p in out}) == len(out), "bad_setup", "Player ids must be different.")
    return out


def _int(row: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    v = row.get(key, default)
    require(isinstance(v, int) and not isinstance(v, bool) and low <= v <= high, "bad_setup",
            f"{key} must be a whole number from {low} to {high}.")
    return v


def setup(config: dict[str, Any], seed: int) -> S:
    """First state: the monsters with the cards, numbers and places a setup may state, the deck and market,
    and who starts (named, else a roll-off). Fields are checked in the order they are read."""
    require(isinstance(config, dict), "bad_setup", "A setup is a JSON object.")
    rows = _players(config)
    s: S = {"rng": st.seed_state(seed), "players": [], "city": None, "bay": None, "bay_open": len(rows) >= 5,
            "deck": [], "market": [None, None, None], "discard": [], "uid": 1, "phase": "rolloff", "active": 0,
            "turn": 0, "dice": [], "rolls": 0, "rolls_max": 3, "t": flow.new_turn_flags(), "extra": [],
            "steps": [], "pending": None, "rolloff": None, "over": False, "winners": [], "log": [],
            "stats": {}}
    deck = list(deck_ids())
    for row in rows:
        _seat_monster(s, row, deck)
    for k, row in enumerate(rows):
        _stated_position(s, k, row)
    _deck_and_market(s, config, deck)
    ev: list[Event] = []
    mode = config.get("mode")
    if mode is not None:
        want = {"city": (2, 4), "bay": (5, 6)}.get(mode)
        require(want is not None and want[0] <= len(rows) <= want[1], "bad_setup",
                "Mode \"city\" takes 2-4 monsters, \"bay\" 5-6.")
    _first_turn(s, config, ev)
    s["log"] = ev
    return s


def _seat_monster(s: S, row: dict[str, Any], deck: list[str]) -> None:
    """A monster joins with the keep cards it starts with (taken out of `deck`)."""
    held = row.get("cards", [])
    require(isinstance(held, list) and all(c in cards() and cards()[c]["type"] == "keep" for c in held),
            "bad_setup", "A monster's \"cards\" are keep-card ids.")
    p = {"id": row["id"], "monster": row["monster"], "name": row["name"], "health": START_HEALTH, "vp": 0,
         "energy": 0, "loc": "out", "alive": True, "poison": 0, "shrink": 0, "cards": []}
    for cid in held:
        require(cid in deck, "bad_setup", f"No copy of {cid} is left in the deck for this setup.")
        deck.remove(cid)
        inst: dict[str, Any] = {"uid": s["uid"], "id": cid}
        s["uid"] += 1
        p["cards"].append(inst)
    s["players"].append(p)
    s["stats"][p["id"]] = dict.fromkeys(st.STATS, 0)


def _stated_position(s: S, k: int, row: dict[str, Any]) -> None:
    """Monster k's cards take effect, then its stated numbers and place (health within what its cards allow)."""
    p = s["players"][k]
    for inst in p["cards"]:
        flow_gain(s, k, inst)
    p["vp"] = _int(row, "vp", 0, 0, 19)
    p["energy"] = _int(row, "energy", 0, 0, 999)
    p["health"] = _int(row, "health", START_HEALTH, 1, st.max_health(s, k))
    p["poison"] = _int(row, "poison", 0, 0, 12)
    p["shrink"] = _int(row, "shrink", 0, 0, 12)
    loc = row.get("location", "out")
    require(loc in ("out", "city", "bay"), "bad_setup", "location is out, city or bay.")
    require(loc != "bay" or s["bay_open"], "bad_setup", "Tokyo Bay is used only with 5 or 6 monsters.")
    require(loc == "out" or s[loc] is None, "bad_setup", f"Only one monster can be in Tokyo {loc}.")
    if loc != "out":
        s[loc] = k
        p["loc"] = loc


def _deck_and_market(s: S, config: dict[str, Any], deck: list[str]) -> None:
    """The market (stated, else the first three cards of the shuffled deck); `deck_top` is drawn first."""
    market = config.get("market")
    if market is not None:
        require(isinstance(market, list) and len(market) == 3 and all(c in deck for c in market), "bad_setup",
                "\"market\" is three card ids still in the deck.")
        for cid in market:
            deck.remove(cid)
    s["deck"] = st.shuffle(s, deck)
    top = config.get("deck_top", [])
    require(isinstance(top, list) and all(c in s["deck"] for c in top), "bad_setup",
            "\"deck_top\" lists card ids still in the deck, to be drawn first.")
    for cid in reversed(top):
        s["deck"].remove(cid)
        s["deck"].insert(0, cid)
    s["market"] = list(market) if market is not None else [s["deck"].pop(0) for _ in range(3)]


def _first_turn(s: S, config: dict[str, Any], ev: list[Event]) -> None:
    """The named first player (`first`, or `start`) begins; else everyone throws for it (a roll-off)."""
    first = config.get("first", config.get("start"))
    if first is not None:
        k = find_seat(s, first)
        require(k is not None, "bad_setup", f"\"first\" names a player id; {first!r} is none of them.")
        flow.start_turn(s, k, ev)  # type: ignore[arg-type]
    else:
        s["rolloff"] = {"contenders": list(range(len(s["players"]))), "claws": {}}
        s["pending"] = act.rolloff_pending(s, 0)


def flow_gain(s: S, k: int, inst: dict[str, Any]) -> None:
    """Counters and tokens a card carries from the start (a setup that hands out cards)."""
    eff = cards()[inst["id"]]["effect"]
    if eff.get("counters_on_buy"):
        inst["counters"] = eff["counters_on_buy"]
    if eff.get("smoke"):
        inst["tokens"] = eff["smoke"]
    if inst["id"] == "mimic":
        inst["copy"] = None


class KingOfTokyo(GameRules):
    """Rules object for King of Tokyo (see engine.core.Rules; the dispatch is the kernel's)."""

    name = "kingoftokyo"
    title = "King of Tokyo"
    handlers = act.HANDLERS

    def setup(self, config: dict[str, Any], seed: int) -> S:
        return setup(config, seed)

    def is_over(self, state: S) -> bool:
        return state["over"]

    def copy(self, state: S) -> S:
        return _working_copy(state)

    def before(self, s: S, kind: str, action: Action) -> None:
        if kind not in act.FREE:
            require(s["pending"] is not None or not s["steps"], "wrong_time", "The game is busy.")

    def after(self, old: S, s: S, action: Action, events: list[Event]) -> list[Event]:
        flow.run(s, events)
        s["log"] = (s["log"] + events)[-LOG_STATE:]
        return events

    def describe(self) -> GameDescription:
        return description()

    def snapshot(self, state: S, viewer: str | None = None) -> dict[str, Any]:
        return view.snapshot(state, viewer)

    def options(self, state: S) -> list[Action]:
        return view.options(state)

    def default_action(self, state: S) -> Action | None:
        return view.default_action(state)


