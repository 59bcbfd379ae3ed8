"""Regidice's state as plain JSON data, the setup (reference §2, §3) and the small helpers every rule uses.

Every die of the game is one record with a stable id ("R1", "K7"...), its colour, its pips and where it is
(`at`): "pool:<player>", "prep:<player>" (set aside for that player, §4.6), "wounded", "enemy", "reserve"
(black dice of enemies still to come) or "box" (only in a stated mid-game position: black dice of defeated
enemies that the position leaves out of play). So conservation is easy to check: the dice list never changes length.
"""

from __future__ import annotations

from typing import Any

from .. import rng
from ..core import IllegalAction, require
from ..kernel import player_ids

S = dict[str, Any]

COLOURS = ("red", "blue", "yellow", "black")
LETTER = {"red": "R", "blue": "B", "yellow": "Y", "black": "K"}
COLOUR_OF = {v: k for k, v in LETTER.items()}
ACTIONS = ("attack", "block", "heal", "cast", "companion")
VALUE_ACTIONS = ("attack", "block", "heal")
PARITIES = ("even", "odd")
ENEMY_DICE = (3, 4, 5)  # enemies 1, 2, 3 (§3); attack = number of dice
BLACK_TOTAL = sum(ENEMY_DICE)

# Coloured dice per seat by player count (§2 table): (red, blue, yellow).
DISTRIBUTION = {
    2: ((3, 3, 3), (3, 3, 3)),
    3: ((3, 2, 2), (2, 3, 2), (2, 2, 3)),
    4: ((2, 2, 2), (2, 2, 2), (2, 2, 2), (2, 2, 2)),
}
MIN_PLAYERS, MAX_PLAYERS = 2, 4


# -- seeded dice: engine/rng.py (no global randomness) ---------------------------------------------------
seed_stream = rng.seed_state
roll = rng.roll


# -- reading the state ---------------------------------------------------------------------------------
def pid(s: S, seat: int) -> str:
    return s["players"][seat]["id"]


def left_of(s: S, seat: int) -> int:
    """The left neighbour: the next seat clockwise (§4.6, §4.7)."""
    return (seat + 1) % len(s["players"])


def turn_order(s: S) -> list[int]:
    n = len(s["players"])
    return [(s["first"] + k) % n for k in range(n)]


def die(s: S, die_id: Any) -> dict[str, Any]:
    found = s["index"].get(die_id) if isinstance(die_id, str) else None
    if found is None:
        raise IllegalAction("unknown_die", f"There is no die \"{die_id}\".")
    return s["dice"][found]


def at(s: S, where: str) -> list[dict[str, Any]]:
    return [d for d in s["dice"] if d["at"] == where]


def pool(s: S, seat: int) -> list[dict[str, Any]]:
    return at(s, "pool:" + pid(s, seat))


def enemy_dice(s: S) -> list[dict[str, Any]]:
    return [s["dice"][s["index"][i]] for i in s["enemy_dice"]]


def declared(s: S, seat: int) -> dict[str, Any] | None:
    return s["decl"].get(pid(s, seat))


def action_of(s: S, seat: int) -> str | None:
    d = declared(s, seat)
    return d["action"] if d else None


# -- setup -----------------------------------------------------------------------------------------------
def _players(config: dict[str, Any]) -> list[dict[str, str]]:
    raw = config.get("players", 2)
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = [f"Player {k + 1}" for k in range(raw)]
    require(isinstance(raw, list), "bad_setup", "\"players\" must be a number of players or a list of names.")
    require(MIN_PLAYERS <= len(raw) <= MAX_PLAYERS, "bad_setup",
            f"Regidice is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(raw)}.")
    out = []
    for k, p in enumerate(raw):
        if isinstance(p, str):
            p = {"name": p}
        require(isinstance(p, dict), "bad_setup", "Each player is a name or an object with a \"name\".")
        name = str(p.get("name") or f"Player {k + 1}")[:40]
        player_id = str(p.get("id") or f"p{k + 1}")
        out.append({"id": player_id, "name": name})
    ids = [p["id"] for p in out]
    require(len(set(ids)) == len(ids), "bad_setup", "Two players have the same id.")
    return out


def parse_die_text(text: Any) -> tuple[str, int]:
    """"R3" -> ("red", 3): the short way dice are written in setups and scripts (K = black)."""
    require(isinstance(text, str) and len(text) == 2 and text[0].upper() in COLOUR_OF and text[1] in "123456",
            "bad_dice", f"\"{text}\" is not a die: write a colour letter (R, B, Y, K) and pips 1-6, e.g. \"R3\".")
    return COLOUR_OF[text[0].upper()], int(text[1])


def new_state(config: dict[str, Any], seed: int) -> S:
    """A fresh game (§2): every player's coloured dice in their pool, enemy 1 of three black 1s, nine black dice
    waiting for the next enemies. `config["position"]` may state a mid-game position instead (see docs)."""
    require(isinstance(config, dict), "bad_setup", "The setup must be a JSON object.")
    players = _players(config)
    n = len(players)
    first = config.get("first", config.get("start", 0))  # "start": the page's setup sheet names the first player
    if first in ("roll", "tray"):
        first = 0  # the sheet's roll-off on the tray settles it before the game; without it, seat 0 begins
    if isinstance(first, str):
        ids = [p["id"] for p in players]
        require(first in ids, "bad_setup", f"The first player \"{first}\" is not one of the players.")
        first = ids.index(first)
    require(isinstance(first, int) and not isinstance(first, bool) and 0 <= first < n, "bad_setup",
            f"\"first\" is a seat from 0 to {n - 1} or a player id.")
    s: S = {"players": players, "dice": [], "index": {}, "first": first, "round": 1, "enemy": 1,
            "enemy_dice": [], "snapshot": [], "phase": "roll", "decl": {}, "rolled": [], "resolved": {},
            "power": {}, "blocked": 0, "defeated": False, "suffer": None, "prepared": [], "collect": [],
            "events": [], "result": None, "rng": seed_stream(seed)}
    position = config.get("position")
    if position is None:
        counts = {"red": 0, "blue": 0, "yellow": 0, "black": 0}
        for seat, dist in enumerate(DISTRIBUTION[n]):
            for colour, k in zip(("red", "blue", "yellow"), dist, strict=True):
                for _ in range(k):
                    counts[colour] += 1
                    _add(s, colour, 1, "pool:" + players[seat]["id"], counts[colour])
        for k in range(BLACK_TOTAL):
            _add(s, "black", 1, "enemy" if k < ENEMY_DICE[0] else "reserve", k + 1)
        s["enemy_dice"] = [d["id"] for d in s["dice"] if d["at"] == "enemy"]
    else:
        _position(s, position)
    s["snapshot"] = [d["pips"] for d in enemy_dice(s)]
    return s


def _add(s: S, colour: str, pips: int, where: str, number: int) -> None:
    die_id = f"{LETTER[colour]}{number}"
    s["index"][die_id] = len(s["dice"])
    s["dice"].append({"id": die_id, "colour": colour, "pips": pips, "at": where, "rolled": False, "used": False})


def _position(s: S, pos: Any) -> None:
    """A mid-game position with absolute values: the enemy number and pips, every pool, prepared dice, the
    wounded pile (dice written "R3"); black dice not placed anywhere wait for the later enemies."""
    require(isinstance(pos, dict), "bad_setup", "\"position\" must be an object.")
    enemy = pos.get("enemy", 1)
    require(enemy in (1, 2, 3), "bad_setup", "\"enemy\" is 1, 2 or 3.")
    size = ENEMY_DICE[enemy - 1]
    pips = pos.get("enemy_pips", [1] * size)
    require(isinstance(pips, list) and len(pips) == size
            and all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in pips)
            and min(pips) < 6, "bad_setup",
            f"Enemy {enemy} has {size} dice, each 1-6 and not all 6.")
    round_no = pos.get("round", 1)
    require(isinstance(round_no, int) and round_no >= 1, "bad_setup", "\"round\" is a number from 1.")
    s["enemy"], s["round"] = enemy, round_no
    counts = {c: 0 for c in COLOURS}

    def place(items: Any, where: str, what: str) -> None:
        require(isinstance(items, list), "bad_setup", f"{what} must be a list of dice like \"R3\".")
        for text in items:
            colour, value = parse_die_text(text)
            counts[colour] += 1
            _add(s, colour, value, where, counts[colour])

    pools = pos.get("pools", {})
    prepared = pos.get("prepared", {})
    ids = player_ids(s)
    require(isinstance(pools, dict) and set(pools) <= set(ids), "bad_setup",
            "\"pools\" maps player ids to their dice.")
    require(isinstance(prepared, dict) and set(prepared) <= set(ids), "bad_setup",
            "\"prepared\" maps player ids to the dice set aside for them.")
    for player in ids:
        place(pools.get(player, []), "pool:" + player, f"The pool of {player}")
    for player in ids:
        place(prepared.get(player, []), "prep:" + player, f"The dice prepared for {player}")
    place(pos.get("wounded", []), "wounded", "\"wounded\"")
    loose = counts["black"]
    earlier = sum(ENEMY_DICE[:enemy - 1])
    require(loose <= earlier, "bad_setup",
            f"Only the {earlier} black dice of defeated enemies can be in pools or the wounded pile, not {loose}.")
    for v in pips:
        counts["black"] += 1
        _add(s, "black", v, "enemy", counts["black"])
    s["enemy_dice"] = [d["id"] for d in s["dice"] if d["at"] == "enemy"]
    for k in range(BLACK_TOTAL - counts["black"]):
        # Black dice of defeated enemies the position does not place are out of play ("box"); the rest wait
        # for the enemies to come.
        counts["black"] += 1
        _add(s, "black", 1, "box" if k < earlier - loose else "reserve", counts["black"])
