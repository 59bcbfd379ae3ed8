"""The Dice Throne state (a plain JSON-able dict) and the small mutations every rule shares.

The state is plain data so `dump`/`load` are the identity and a copy is one `marshal` round trip (the
bench plays thousands of games; `copy.deepcopy` would dominate). Hero data never lives in the state,
only hero ids. Every helper here mutates a state the caller has already copied.
"""

from __future__ import annotations

import marshal
from typing import Any

from ..core import IllegalAction, require
from . import rng
from .data import deck_size, statuses
from .heroes import hero, hero_ids

CP_START = 2
CP_CAP = 15
HAND_START = 4
HAND_LIMIT = 6
MODES = {"1v1": (2, 50), "2v2": (4, 50), "koth": (3, 35)}
S = dict[str, Any]


def clone(state: S) -> S:
    """A private copy for `apply` to mutate, sharing what the engine never mutates in place.

    Copy-on-write by convention: `order`, `start_roll`, `notes`, `last`, `pending`, team `members` and a
    player's `statuses`, `limits`, `upgrades`, `gained` dicts are only ever replaced whole (see `put`),
    never changed in place, so they are shared. The `teams` and `dice` lists are shared too until a rule
    writes to them through `own_teams` / `own_dice`, which copy them first (most actions touch neither).
    What handlers change in place everywhere (player dicts, the roll-phase context) is copied here.
    This is several times faster than a deep copy, which matters for the bench and long replays;
    tests/engine/test_dicethrone_properties.py checks that no action changes the state it was given.
    """
    s = state.copy()
    s["players"] = list(map(_copy_dict, state["players"]))  # map: no Python frame per player
    rp = state["rp"]
    if rp is not None:
        rp = rp.copy()
        rp["attack"] = _clone_packet(rp["attack"])
        packets = rp["packets"]
        rp["packets"] = list(map(_clone_packet, packets)) if packets else []
        heals = rp["heals"]
        rp["heals"] = list(map(list, heals)) if heals else []
        if rp["defense"] is not None:
            rp["defense"] = rp["defense"].copy()
        s["rp"] = rp
    return s


_copy_dict = dict.copy


def _clone_packet(p: dict[str, Any]) -> dict[str, Any]:
    q = p.copy()
    q["mods"] = p["mods"][:]
    q["halves"] = p["halves"][:]
    q["reflect"] = p["reflect"][:]
    return q


def own_dice(s: S) -> list[dict[str, Any]]:
    """The tray's dice, copied so they can be changed in place (the previous state shares the old ones)."""
    dice = list(map(_copy_dict, s["dice"]))
    s["dice"] = dice
    return dice


def own_teams(s: S) -> list[dict[str, Any]]:
    """The teams, copied so health can be changed in place (the previous state shares the old ones)."""
    teams = list(map(_copy_dict, s["teams"]))
    s["teams"] = teams
    return teams


def deep_copy(state: S) -> S:
    """A full independent copy (checkpoints: dump/load)."""
    return marshal.loads(marshal.dumps(state))


def setup(config: dict[str, Any], seed: int) -> S:
    """First state: players, teams, health, CP, opening hands, start player, first Upkeep done."""
    require(isinstance(config, dict), "bad_setup", "The setup must be a JSON object.")
    mode = config.get("mode", "1v1")
    mode = {"king": "koth", "kingofthehill": "koth", "3p": "koth", "team": "2v2"}.get(mode, mode)
    require(mode in MODES, "bad_setup", f"Unknown mode \"{mode}\": use 1v1, 2v2 or koth.")
    count, health = MODES[mode]
    raw = config.get("players")
    require(isinstance(raw, list) and len(raw) == count, "bad_setup",
            f"A {mode} game needs exactly {count} players.")
    health = int(config.get("health", health))
    require(health > 0, "bad_setup", "Starting health must be above 0.")
    players = []
    seen = set()
    for i, p in enumerate(raw):
        require(isinstance(p, dict), "bad_setup", "Each player must be an object with a \"hero\".")
        hid = str(p.get("hero", "")).lower().replace(" ", "_").replace("-", "_")
        if hid not in hero_ids():
            raise IllegalAction("bad_setup", f"Unknown hero \"{p.get('hero')}\" (known: {', '.join(hero_ids())}).")
        pid = str(p.get("id", f"p{i + 1}"))
        require(pid not in seen, "bad_setup", f"Two players are called \"{pid}\".")
        seen.add(pid)
        size = int(p.get("deck", deck_size()))
        players.append({
            "id": pid, "name": str(p.get("name", pid)), "hero": hid, "team": i,
            "cp": CP_START, "hand": HAND_START, "deck": size - HAND_START, "discard": 0,
            "statuses": {}, "limits": {}, "upgrades": {}, "out": False, "gained": {},
        })
    if mode == "2v2":
        teams_raw = [str(p.get("team", "AB"[i % 2])) for i, p in enumerate(raw)]
        names = sorted(set(teams_raw))
        require(len(names) == 2 and all(teams_raw.count(n) == 2 for n in names), "bad_setup",
                "A 2v2 game needs two teams of two (\"team\": \"A\" or \"B\").")
        teams = [{"id": n, "health": health, "members": [i for i, t in enumerate(teams_raw) if t == n]}
                 for n in names]
        for ti, team in enumerate(teams):
            for m in team["members"]:
                players[m]["team"] = ti
    else:
        teams = [{"id": p["id"], "health": health, "members": [i]} for i, p in enumerate(players)]
    s: S = {
        "mode": mode, "rng": rng.seed_state(seed), "players": players, "teams": teams,
        "start_health": health, "cap": health + 10, "turn": 1, "phase": "upkeep",
        "dice": [], "tray": None, "attempts": 0, "attempts_max": 3, "rp": None, "pending": None,
        "winner": None, "draw": False, "notes": [], "start_roll": None,
    }
    s["start"] = _start_player(s, config.get("start"))
    s["order"] = _turn_order(s)
    s["active"] = s["start"]
    for p in players:
        for eff in hero(p["hero"]).get("setup", []):
            if eff.get("if", {}).get("first_player") and p is not players[s["start"]]:
                continue
            gain_status(s, players.index(p), eff["status"], eff.get("count", 1))
    return s


def _start_player(s: S, wanted: Any) -> int:
    """The start player: the setup may name one; else everyone rolls a die, ties roll again (§1.4 AMB)."""
    ids = [p["id"] for p in s["players"]]
    if wanted is not None:
        require(wanted in ids, "bad_setup", f"The start player \"{wanted}\" is not in the game.")
        return ids.index(wanted)
    contenders = list(range(len(ids)))
    rounds = []
    while len(contenders) > 1:
        values = rng.roll(s, len(contenders))
        rounds.append({ids[c]: v for c, v in zip(contenders, values, strict=True)})
        best = max(values)
        contenders = [c for c, v in zip(contenders, values, strict=True) if v == best]
    s["start_roll"] = rounds
    return contenders[0]


def _turn_order(s: S) -> list[int]:
    """Seat order from the start player; 2v2 zig-zags A1, B1, A2, B2 (§13 AMB: recommended order)."""
    n = len(s["players"])
    if s["mode"] != "2v2":
        return [(s["start"] + k) % n for k in range(n)]
    mine = s["players"][s["start"]]["team"]
    a = s["teams"][mine]["members"]
    b = s["teams"][1 - mine]["members"]
    a = a[a.index(s["start"]):] + a[:a.index(s["start"])]
    return [a[0], b[0], a[1], b[1]]


# -- lookups ---------------------------------------------------------------------------------------
def index_of(s: S, pid: Any) -> int:
    """Player index for an id (or an index already)."""
    for i, p in enumerate(s["players"]):
        if p["id"] == pid:
            return i
    raise IllegalAction("unknown_player", f"There is no player \"{pid}\" in this game.")


def health(s: S, i: int) -> int:
    return s["teams"][s["players"][i]["team"]]["health"]


def alive(s: S, i: int) -> bool:
    return not s["players"][i]["out"]


def opponents(s: S, i: int) -> list[int]:
    """Living opponents of player i, in turn order after i (so "left" comes first)."""
    team = s["players"][i]["team"]
    order = s["order"]
    k = order.index(i)
    rotated = order[k + 1:] + order[:k]
    return [j for j in rotated if s["players"][j]["team"] != team and alive(s, j)]


def limit(s: S, i: int, status: str) -> int:
    """Stack limit of `status` on player i: raised limits are per player; Doubloons 5 on the Pirate."""
    p = s["players"][i]
    if status in p["limits"]:
        return p["limits"][status]
    row = statuses()[status]
    if "owner_limit" in row and p["hero"] == "cursed_pirate":
        return row["owner_limit"]
    return row["limit"]


def note(s: S, text: str) -> None:
    """Something players must resolve by hand; the snapshot shows the last few."""
    s["notes"] = (s["notes"] + [text])[-5:]


# -- mutations -------------------------------------------------------------------------------------
def gain_cp(s: S, i: int, n: int) -> int:
    """Add CP up to the cap of 15 (gains at the cap are lost); returns what was actually added."""
    p = s["players"][i]
    new = max(0, min(CP_CAP, p["cp"] + n))
    got = new - p["cp"]
    p["cp"] = new
    return got


def pay(s: S, i: int, n: int, what: str) -> None:
    p = s["players"][i]
    if p["cp"] < n:
        raise IllegalAction("not_enough_cp", f"{p['name']} has {p['cp']} CP; {what} costs {n}.")
    p["cp"] -= n


def draw(s: S, i: int, n: int = 1) -> int:
    """Draw n cards (counts only); an empty deck is refilled by shuffling the discard pile (§2.2)."""
    p = s["players"][i]
    got = 0
    for _ in range(n):
        if p["deck"] == 0:
            p["deck"], p["discard"] = p["discard"], 0
        if p["deck"] == 0:
            break
        p["deck"] -= 1
        p["hand"] += 1
        got += 1
    return got


def gain_status(s: S, i: int, status: str, n: int = 1, *, source: int | None = None) -> list[dict[str, Any]]:
    """Put n tokens on player i, up to the stack limit (extra tokens are lost, §6.4).

    A second Powder Keg makes the held one explode at once (3 undefendable, an isolated source applied
    immediately); the new keg then stays (limit 1). Returns events.
    """
    events: list[dict[str, Any]] = []
    if status not in statuses() or n <= 0:
        return events
    p = s["players"][i]
    have = p["statuses"].get(status, 0)
    if status == "powder_keg" and have:
        remove_status(s, i, "powder_keg")
        events.append({"type": "keg_exploded", "player": p["id"], "damage": 3})
        apply_batch(s, {i: 3}, {})
        have = 0
    cap = limit(s, i, status)
    new = min(cap, have + n)
    if new > have:
        put(p, "statuses", status, new)
        put(p, "gained", status, s["turn"])
        if status == "stun" and source is not None:
            p["stunned_by"] = source
    lost = have + n - new
    events.append({"type": "status", "player": p["id"], "status": status, "count": new, "added": new - have,
                   **({"lost": lost} if lost else {})})
    return events


def remove_status(s: S, i: int, status: str, n: int | None = None) -> int:
    """Remove n tokens (all when None); returns how many were removed."""
    p = s["players"][i]
    have = p["statuses"].get(status, 0)
    take = have if n is None else min(n, have)
    if take:
        held = dict(p["statuses"])
        if have - take:
            held[status] = have - take
        else:
            del held[status]
        p["statuses"] = held
    return take


def put(p: dict[str, Any], field: str, key: str, value: Any) -> None:
    """Set `p[field][key]` by replacing the inner dict: token dicts are shared between states (see clone)."""
    p[field] = {**p[field], key: value}


def has(s: S, i: int, status: str) -> int:
    return s["players"][i]["statuses"].get(status, 0)


def apply_batch(s: S, damage: dict[int, int], heal: dict[int, int]) -> list[dict[str, Any]]:
    """Apply one batch of damage and healing per player, summed per team (2v2 shares a dial, §13).

    Net result per team, clamped to 0..start+10 (§3); Blessing of Divinity turns a drop to 0 into 1.
    Then the defeat check: teams at 0 are out; if nobody is left it is a draw (§3).
    """
    events: list[dict[str, Any]] = []
    per_team: dict[int, list[int]] = {}
    for i, n in damage.items():
        per_team.setdefault(s["players"][i]["team"], [0, 0])[0] += max(0, n)
    for i, n in heal.items():
        per_team.setdefault(s["players"][i]["team"], [0, 0])[1] += max(0, n)
    teams = own_teams(s) if per_team else s["teams"]
    for t, (dmg, hl) in per_team.items():
        team = teams[t]
        if team["health"] <= 0:
            continue
        before = team["health"]
        after = max(0, min(s["cap"], before - dmg + hl))
        if after == 0:
            for m in team["members"]:
                if has(s, m, "blessing_of_divinity"):
                    remove_status(s, m, "blessing_of_divinity")
                    after = 1
                    events.append({"type": "blessing", "player": s["players"][m]["id"]})
                    break
        team["health"] = after
        if dmg or hl:
            events.append({"type": "health", "team": team["id"], "before": before, "after": after,
                           "damage": dmg, "heal": hl})
    events.extend(check_defeat(s))
    return events


def check_defeat(s: S) -> list[dict[str, Any]]:
    """Mark players of teams at 0 as out; decide the winner or a draw."""
    events: list[dict[str, Any]] = []
    if s["winner"] is not None or s["draw"]:
        return events
    for team in s["teams"]:
        if team["health"] <= 0:
            for m in team["members"]:
                if not s["players"][m]["out"]:
                    s["players"][m]["out"] = True
                    events.append({"type": "defeated", "player": s["players"][m]["id"]})
    standing = [t for t in s["teams"] if t["health"] > 0]
    if not standing:
        s["draw"] = True
        s["phase"] = "over"
        s["pending"] = None
        events.append({"type": "draw"})
    elif len(standing) == 1:
        s["winner"] = standing[0]["id"]
        s["phase"] = "over"
        s["pending"] = None
        events.append({"type": "winner", "team": standing[0]["id"],
                       "players": [s["players"][m]["id"] for m in standing[0]["members"]]})
    return events


def over(s: S) -> bool:
    return s["winner"] is not None or s["draw"]
