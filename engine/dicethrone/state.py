"""The Dice Throne state (a plain JSON-able dict) and the small mutations every rule shares.

The state is plain data so `dump`/`load` are the identity and a copy is one `marshal` round trip (the
bench plays thousands of games; `copy.deepcopy` would dominate). Hero data never lives in the state,
only hero ids. Every helper here mutates a state the caller has already copied.
"""

from __future__ import annotations

import marshal
from typing import Any

from .. import checks, rng
from ..core import IllegalAction, require
from ..kernel import find_seat, player_ids
from .data import companion_data, deck_size, statuses
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


SETUP_KEYS = ("mode", "players", "start", "health", "seed", "turn", "active", "phase")
PLAYER_KEYS = ("id", "name", "hero", "team", "deck", "health", "cp", "hand", "discard", "statuses", "upgrades",
               "companions", "stages")
POSITION_PHASES = ("upkeep", "income", "main1", "offensive", "main2")
HEALTH_MAX = 99   # highest starting health a setup may ask for (the page's form offers 1-99)
DECK_MAX = 200
TURN_MAX = 100_000
ID_MAX, NAME_MAX = 24, 40
MODE_ALIASES = {"king": "koth", "kingofthehill": "koth", "3p": "koth", "team": "2v2"}


def setup(config: dict[str, Any], seed: int) -> S:
    """First state: players, teams, health, CP, opening hands, start player; or a stated mid-game position.

    Every value is checked (engine.checks): a bad one is refused with IllegalAction("bad_setup", ...)
    naming it. Position keys (docs/actions.md, "A mid-game position") give absolute values: a player's
    `health`, `cp`, `hand`, `discard`, `statuses`, `upgrades`, and the game's `turn`, `active` player and
    `phase`. They never move the heal cap, which stays at the starting health + 10 (§3). The caller
    (rules.DiceThrone.setup) then enters `s["phase"]`. The checks run in the order the fields are read, so
    a setup with several faults is refused for the same one every time.
    """
    require(isinstance(config, dict), "bad_setup", "The setup must be a JSON object.")
    _known_keys(config, SETUP_KEYS, "The setup")
    mode = _mode(config)
    count, health = MODES[mode]
    raw = config.get("players")
    require(isinstance(raw, list) and len(raw) == count, "bad_setup",
            f"A {mode} game needs exactly {count} players.")
    if "health" in config:
        health = checks.whole(config["health"], "The starting \"health\"", 1, HEALTH_MAX)
    cap = health + 10
    seen: set[str] = set()
    players = [_player_row(i, p, seen) for i, p in enumerate(raw)]
    teams = _teams(mode, raw, players, health)
    _stated_health(teams, raw, players, cap)
    s: S = {
        "mode": mode, "rng": rng.seed_state(checks.seed(seed)), "players": players, "teams": teams,
        "start_health": health, "cap": cap, "turn": 1, "phase": "upkeep",
        "dice": [], "tray": None, "attempts": 0, "attempts_max": 3, "rp": None, "pending": None,
        "winner": None, "draw": False, "notes": [], "start_roll": None,
    }
    s["start"] = _start_player(s, config.get("start"))
    s["order"] = _turn_order(s)
    s["active"] = s["start"] if config.get("active") is None else _player(s, config["active"], "\"active\"")
    s["turn"] = checks.whole(config.get("turn", 1), "\"turn\"", 1, TURN_MAX)
    s["phase"] = checks.choice(config.get("phase", "upkeep"), "\"phase\"", POSITION_PHASES)
    for i, given in enumerate(raw):
        _opening_tokens(s, i, given)
    return s


def _mode(config: dict[str, Any]) -> str:
    """The game's mode, its aliases ("king", "team"...) read as the mode they stand for."""
    mode = config.get("mode", "1v1")
    return checks.choice(MODE_ALIASES.get(mode, mode) if isinstance(mode, str) else mode, "\"mode\"", tuple(MODES))


def _player_row(i: int, p: Any, seen: set[str]) -> dict[str, Any]:
    """Player i as the state keeps them: hero, id (unique: `seen` holds the ids so far), name, CP and cards."""
    require(isinstance(p, dict), "bad_setup", "Each player must be an object with a \"hero\".")
    _known_keys(p, PLAYER_KEYS, f"Player {i + 1}")
    hid = _hero_id(i, p)
    pid = checks.text(p["id"], f"Player {i + 1}'s \"id\"", ID_MAX) if p.get("id") is not None else f"p{i + 1}"
    require(pid not in seen, "bad_setup", f"Two players are called \"{pid}\".")
    seen.add(pid)
    name = checks.text(p["name"], f"{pid}'s \"name\"", NAME_MAX) if p.get("name") is not None else pid
    size = checks.whole(p.get("deck", deck_size()), f"{pid}'s \"deck\" size", HAND_START, DECK_MAX)
    hand = checks.whole(p.get("hand", HAND_START), f"{pid}'s \"hand\"", 0, size)
    discard = checks.whole(p.get("discard", 0), f"{pid}'s \"discard\"", 0, size - hand)
    cp = checks.whole(p.get("cp", CP_START), f"{pid}'s \"cp\"", 0, CP_CAP)
    row = {
        "id": pid, "name": name, "hero": hid, "team": i,
        "cp": cp, "hand": hand, "deck": size - hand - discard, "discard": discard,
        "statuses": {}, "limits": {}, "upgrades": _upgrades(p, pid, hid), "out": False, "gained": {},
    }
    if companion_data().get(hid, {}).get("companions"):   # only their heroes carry the key
        row["companions"] = _companions(p, pid, hid)
    return row


def _hero_id(i: int, p: dict[str, Any]) -> str:
    """The hero's id from its name as a player may write it ("Moon Elf", "moon-elf")."""
    hero_raw = checks.text(p.get("hero", ""), f"Player {i + 1}'s \"hero\"", 40) if p.get("hero") else ""
    hid = hero_raw.lower().replace(" ", "_").replace("-", "_")
    if hid not in hero_ids():
        raise IllegalAction("bad_setup", f"Unknown hero \"{hero_raw}\" (known: {', '.join(hero_ids())}).")
    return hid


def _teams(mode: str, raw: list[Any], players: list[dict[str, Any]], health: int) -> list[dict[str, Any]]:
    """The teams, each with its health dial: two of two in 2v2 (each player's `team` set to its index),
    else one team per player."""
    if mode != "2v2":
        require(all("team" not in p for p in raw), "bad_setup", "Only a 2v2 game has teams.")
        return [{"id": p["id"], "health": health, "members": [i]} for i, p in enumerate(players)]
    teams_raw = [checks.text(p.get("team", "AB"[i % 2]), f"Player {i + 1}'s \"team\"", ID_MAX)
                 for i, p in enumerate(raw)]
    names = sorted(set(teams_raw))
    require(len(names) == 2 and all(teams_raw.count(n) == 2 for n in names), "bad_setup",
            "A 2v2 game needs two teams of two (\"team\": \"A\" or \"B\").")
    teams = [{"id": n, "health": health, "members": [i for i, t in enumerate(teams_raw) if t == n]}
             for n in names]
    for ti, team in enumerate(teams):
        for m in team["members"]:
            players[m]["team"] = ti
    return teams


def _stated_health(teams: list[dict[str, Any]], raw: list[Any], players: list[dict[str, Any]], cap: int) -> None:
    """A stated health is the team's dial now (2v2: teammates share it, so they must agree)."""
    for team in teams:
        stated = {checks.whole(raw[m]["health"], f"{players[m]['id']}'s \"health\"", 1, cap)
                  for m in team["members"] if "health" in raw[m]}
        require(len(stated) <= 1, "bad_setup", "Teammates share one health dial: give them the same \"health\".")
        if stated:
            team["health"] = stated.pop()


def _opening_tokens(s: S, i: int, given: dict[str, Any]) -> None:
    """Player i's tokens: the stated ones are all of them (absolute, no hero setup gains), else what the
    hero's setup gives (some only to the start player)."""
    p = s["players"][i]
    if "statuses" in given:
        p["statuses"] = _statuses(s, i, given["statuses"])
        grown = _stages(s, i, given.get("stages"))
        if grown:
            p["stages"] = grown
        return
    require("stages" not in given, "bad_setup",
            f"{p['id']}'s \"stages\" go with the \"statuses\" that count the Spirits.")
    for eff in hero(p["hero"]).get("setup", []):
        if eff.get("if", {}).get("first_player") and i != s["start"]:
            continue
        gain_status(s, i, eff["status"], eff.get("count", 1))


def _known_keys(obj: dict[str, Any], known: tuple[str, ...], what: str) -> None:
    """Refuse a key the setup does not know (a typo like "heath" would otherwise be silently ignored)."""
    unknown = [k for k in obj if k not in known]
    if unknown:
        shown = ", ".join(repr(k)[:30] for k in unknown[:3])
        raise IllegalAction("bad_setup", f"{what} has a key this game does not know ({shown}); "
                            f"known: {', '.join(known)}.")


def _player(s: S, pid: Any, what: str) -> int:
    """A seat a setup field names; an unknown id is the setup's fault (`bad_setup`), not an action's."""
    seat = find_seat(s, pid)
    if seat is None:
        raise IllegalAction("bad_setup", f"{what} must name a player in the game ({', '.join(player_ids(s))}).")
    return seat


def _statuses(s: S, i: int, raw: Any) -> dict[str, int]:
    """A player's tokens as stated: known status ids, each count within the player's stack limit (§6.4)."""
    pid = s["players"][i]["id"]
    out = {}
    for sid, n in checks.mapping(raw, f"{pid}'s \"statuses\"").items():
        require(sid in statuses(), "bad_setup", f"{pid}'s \"statuses\": there is no status \"{str(sid)[:30]}\".")
        n = checks.whole(n, f"{pid}'s \"{sid}\" tokens", 0, limit(s, i, sid))
        if n:
            out[sid] = n
    return out


def _companions(p: dict[str, Any], pid: str, hid: str) -> dict[str, int]:
    """Companions' health: each at its hero data's `start`, or as a position states it (0 = not standing)."""
    defs = {c["id"]: c for c in companion_data()[hid]["companions"]}
    out = {cid: c.get("start", c["health"]) for cid, c in defs.items()}
    for cid, n in checks.mapping(p.get("companions"), f"{pid}'s \"companions\"").items():
        require(cid in defs, "bad_setup", f"{pid}'s \"companions\": {hid} has no companion \"{str(cid)[:30]}\".")
        out[cid] = checks.whole(n, f"{pid}'s \"{cid}\" health", 0, defs[cid]["health"])
    return out


def _stages(s: S, i: int, raw: Any) -> dict[str, int]:
    """Spirits past the first stage, as stated: within each stage's limit and the Spirits counted."""
    p = s["players"][i]
    g = companion_data().get(p["hero"], {}).get("growth")
    given = checks.mapping(raw, f"{p['id']}'s \"stages\"")
    require(g is not None or not given, "bad_setup", f"{p['id']}'s hero has no growth stages.")
    if g is None:
        return {}
    rows = {r["id"]: r for r in g["stages"][1:]}
    out = {}
    for sid, n in given.items():
        require(sid in rows, "bad_setup", f"{p['id']}'s \"stages\": no stage \"{str(sid)[:30]}\" "
                f"(the first stage is what the \"{g['status']}\" count leaves; known: {', '.join(rows)}).")
        n = checks.whole(n, f"{p['id']}'s \"{sid}\" count", 0, rows[sid]["limit"])
        if n:
            out[sid] = n
    total = p["statuses"].get(g["status"], 0)
    require(sum(out.values()) <= total, "bad_setup",
            f"{p['id']}'s grown Spirits are more than the {g['status']} tokens stated.")
    require(total - sum(out.values()) <= g["stages"][0]["limit"], "bad_setup",
            f"{p['id']}: at most {g['stages'][0]['limit']} Spirits may be at the first stage.")
    return out


def _upgrades(p: dict[str, Any], pid: str, hid: str) -> dict[str, int]:
    """Board levels as stated: an ability of the hero's board and a level its data (or cards) know."""
    out = {}
    data = hero(hid)
    for slot, level in checks.mapping(p.get("upgrades"), f"{pid}'s \"upgrades\"").items():
        ability = data["by_id"].get(slot)
        require(ability is not None and not ability.get("slot"), "bad_setup",
                f"{pid}'s \"upgrades\": {data['name']['en']} has no ability \"{str(slot)[:30]}\" on the board.")
        levels = {1} | {lv["level"] for a in data["abilities"] if slot in (a["id"], a.get("slot"))
                        for lv in a["levels"]}
        levels |= {c["level"] for c in data["upgrade_cards"] if c["slot"] == slot}
        level = checks.whole(level, f"{pid}'s \"{slot}\" level", 1, max(levels))
        if level != 1:
            out[slot] = level
    return out


def _start_player(s: S, wanted: Any) -> int:
    """The start player: the setup may name one; else everyone rolls a die, ties roll again (§1.4 AMB)."""
    ids = player_ids(s)
    if wanted is not None:
        return _player(s, wanted, "The start player (\"start\")")
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


# -- lookups (a player by id: engine.kernel.seat_of) ---------------------------------------------------
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


def owns(s: S, i: int, status: str) -> bool:
    """Is the status one player i's own hero brings (its sheet lists it), e.g. the Pirate's Doubloons?"""
    return status in hero(s["players"][i]["hero"]).get("statuses", ())


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
