"""The round of Regidice (reference §4): roll, declare, collect, resolve, suffer, prepare, and the enemies'
defeat (§6), victory and defeat (§5). Each `do_*` takes a private copy of the state, checks the action,
changes the copy and returns the events it caused.

Decisions on the reference's [AMBIGUOUS] points (listed in docs/actions.md): a single die equal to the
defence is an attack group; casters match the enemy pips of the start of the round; identical cast
declarations are refused; several players in the targeted suffer category choose one of them; the healer
chooses which wounded dice come back (default: the longest wounded first); overkill by a fireball gives the
caster the enemy's dice; a touch of death is never overkill; after a defeat, later attacks and fireballs
have no target while heals still resolve, and the next enemy appears at the end of the Resolve phase.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import require
from ..kernel import seat_of
from . import sets
from . import state as st
from .state import S

Events = list[dict[str, Any]]
KEEP_EVENTS = 60  # this round's events kept in the state for the page (the store keeps every action)

# Suffer priority (§4.5): blockers, else attackers, casters, healers, animal companions.
SUFFER_ORDER = ("block", "attack", "cast", "heal", "companion")
# The order the Resolve phase suggests (§4.4): companions first (their +1s only help before sets are formed),
# then attackers, casters, healers and blockers.
RESOLVE_ORDER = ("companion", "attack", "cast", "heal", "block")


def emit(s: S, events: Events, event: dict[str, Any], kept: dict[str, Any] | None = None) -> None:
    """An event for the caller, and for the round's story in the state (`kept`: a shorter form when the
    snapshot already holds the details, e.g. the collect moves, so phones get a small snapshot)."""
    events.append(event)
    s["events"] = [*s["events"], event if kept is None else kept][-KEEP_EVENTS:]


def acting_seat(s: S, action: dict[str, Any], expected: int | None) -> int:
    """The seat an action is for: its "player", else the player the game waits for."""
    player = action.get("player")
    if player is None:
        require(expected is not None, "name_player", "Say which player this is for (\"player\").")
        return expected  # type: ignore[return-value]
    return seat_of(s, player)


def named_dice(s: S, raw: Any, what: str, among: list[dict[str, Any]]) -> list[str]:
    """Die ids from a list of ids ("R3": the third red die, docs/actions.md) or of faces as a player reads them
    off the table, `{"colour": "red", "pips": 3}`. A face names the dice of `among` that show it: dice alike are
    interchangeable, so any of them (the unused first) serves; a face no die of `among` shows is refused."""
    require(isinstance(raw, list), "bad_dice", f"{what} must be a list of die ids such as \"R3\", or of "
            "faces such as {\"colour\": \"red\", \"pips\": 3}.")
    out: list[str] = []
    for item in raw:
        if isinstance(item, dict):
            colour, pips = item.get("colour"), item.get("pips")
            free = sorted((d for d in among if d["colour"] == colour and d["pips"] == pips and d["id"] not in out),
                          key=lambda d: d["used"])
            require(bool(free), "no_such_die", f"No {colour} die showing {pips} is there to name.")
            out.append(free[0]["id"])
        else:
            out.append(item)
    return die_ids(out, what)


def die_ids(raw: Any, what: str, repeats: bool = False) -> list[str]:
    """Die ids named by an action; `repeats`: a die may be named more than once (nudges stack pips, G§4.4.5)."""
    require(isinstance(raw, list) and all(isinstance(x, str) for x in raw), "bad_dice",
            f"{what} must be a list of die ids such as \"R3\".")
    require(repeats or len(set(raw)) == len(raw), "bad_dice", f"{what} names the same die twice.")
    return list(raw)


# -- round start and roll (§4.1) -----------------------------------------------------------------------
def start_round(s: S, events: Events) -> None:
    """Defence snapshot (§4.4.1, [derived]), per-round marks cleared, players with no dice need not roll."""
    s["phase"] = "roll"
    s["snapshot"] = [d["pips"] for d in st.enemy_dice(s)]
    s["decl"], s["resolved"], s["power"], s["prepared"], s["collect"] = {}, {}, {}, [], []
    s["blocked"], s["defeated"], s["suffer"] = 0, False, None
    s["events"] = []  # the page tells the story of this round; last round's reveal is in the store's log
    for d in s["dice"]:
        d["rolled"] = d["used"] = False
    s["rolled"] = [p["id"] for k, p in enumerate(s["players"]) if not st.pool(s, k)]
    emit(s, events, {"type": "round", "round": s["round"], "first": st.pid(s, s["first"]),
                     "enemy": s["enemy"], "defence": sum(s["snapshot"])})
    if len(s["rolled"]) == len(s["players"]):
        s["phase"] = "declare"


def next_roller(s: S) -> int | None:
    for seat in st.turn_order(s):
        if st.pid(s, seat) not in s["rolled"]:
            return seat
    return None


def parse_roll(raw: Any) -> list[tuple[str, int]]:
    """Rolled dice as (colour, pips): objects {"colour", "value"} (the camera's readings) or "R3" strings."""
    require(isinstance(raw, list), "bad_dice", "\"dice\" must be a list of dice, each with a colour and a value.")
    out = []
    for item in raw:
        if isinstance(item, str):
            out.append(st.parse_die_text(item))
            continue
        require(isinstance(item, dict), "bad_dice", "Each die needs a colour and a value, e.g. {\"colour\": "
                "\"red\", \"value\": 3} or \"R3\".")
        colour, value = item.get("colour"), item.get("value", item.get("pips"))
        require(colour in st.COLOURS, "bad_colour",
                f"A Regidice die is red, blue, yellow or black, not {colour!r}: check the die's colour.")
        require(isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 6, "bad_dice",
                "Each die shows 1 to 6 pips.")
        out.append((colour, value))
    return out


def do_roll(s: S, a: dict[str, Any]) -> Events:
    require(s["phase"] == "roll", "wrong_time", "The dice are rolled in the Roll phase only.")
    seat = acting_seat(s, a, next_roller(s))
    me = st.pid(s, seat)
    require(me not in s["rolled"], "already_rolled", f"{s['players'][seat]['name']} has already rolled this round.")
    mine = st.pool(s, seat)
    if a.get("dice") is None:
        values = st.roll(s, len(mine))
        for d, v in zip(mine, values, strict=True):
            d["pips"] = v
    else:
        rolled = parse_roll(a["dice"])
        require(len(rolled) == len(mine), "wrong_dice_count",
                f"{s['players'][seat]['name']} rolls {len(mine)} dice, but {len(rolled)} were given.")
        want = sorted(d["colour"] for d in mine)
        got = sorted(c for c, _ in rolled)
        require(want == got, "wrong_colours", "The colours do not match this pool: it holds "
                + ", ".join(f"{want.count(c)} {c}" for c in st.COLOURS if c in want) + ".")
        by_colour: dict[str, list[int]] = {}
        for colour, v in rolled:
            by_colour.setdefault(colour, []).append(v)
        for d in mine:
            d["pips"] = by_colour[d["colour"]].pop(0)
    for d in mine:
        d["rolled"] = True
    s["rolled"] = [*s["rolled"], me]
    events: Events = []
    # Public: who rolled and how many dice of each colour; never the pips (§4.1, hidden until Collect).
    emit(s, events, {"type": "rolled", "player": me, "count": len(mine),
                     "colours": {c: sum(1 for d in mine if d["colour"] == c) for c in st.COLOURS}})
    if next_roller(s) is None:
        s["phase"] = "declare"
    return events


# -- declare (§4.2) --------------------------------------------------------------------------------------
def next_declarer(s: S) -> int | None:
    order = st.turn_order(s)
    k = len(s["decl"])
    return order[k] if k < len(order) else None


def check_declaration(s: S, a: dict[str, Any]) -> dict[str, Any]:
    """The declaration an action makes, or IllegalAction: unique values, no value for a companion, a colour
    and parity for a cast, no identical cast (§11.3)."""
    kind = a.get("action")
    require(kind in st.ACTIONS, "bad_declaration",
            "Declare attack, block or heal with a value, cast with a colour and even/odd, or companion.")
    if kind in st.VALUE_ACTIONS:
        value = a.get("value")
        require(isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 6, "bad_value",
                "Name a value from 1 to 6 to collect.")
        taken = {d["value"] for d in s["decl"].values() if d.get("value")}
        require(value not in taken, "value_taken", f"Another player has already declared {value} this round.")
        return {"action": kind, "value": value}
    if kind == "cast":
        colour, parity = a.get("colour"), a.get("parity")
        require(colour in st.COLOURS, "bad_colour", "A cast names a colour: red, blue, yellow or black.")
        require(parity in st.PARITIES, "bad_parity", "A cast names even or odd.")
        same = any(d["action"] == "cast" and d["colour"] == colour and d["parity"] == parity
                   for d in s["decl"].values())
        require(not same, "cast_taken", f"Another player has already declared cast {colour} {parity}.")
        return {"action": "cast", "colour": colour, "parity": parity}
    require(a.get("value") is None, "bad_value", "An animal companion declares no value.")
    return {"action": "companion"}


def do_declare(s: S, a: dict[str, Any]) -> Events:
    require(s["phase"] == "declare", "wrong_time", "Actions are declared in the Declare phase only.")
    expected = next_declarer(s)
    seat = acting_seat(s, a, expected)
    require(seat == expected, "not_your_turn",
            f"Declarations go in turn order: it is {s['players'][expected]['name']}'s turn to declare.")  # type: ignore[index]
    decl = check_declaration(s, a)
    s["decl"] = {**s["decl"], st.pid(s, seat): decl}
    events: Events = []
    emit(s, events, {"type": "declared", "player": st.pid(s, seat), **decl})
    if next_declarer(s) is None:
        collect(s, events)
    return events


# -- collect (§4.3) --------------------------------------------------------------------------------------
def _keeps(s: S, owner_seat: int, d: dict[str, Any]) -> bool:
    """An animal companion never gives up a 1 (§4.3)."""
    return st.action_of(s, owner_seat) == "companion" and d["pips"] == 1


def collect(s: S, events: Events) -> None:
    """Reveal, then value collectors take from every other pool, then casters (from the pools as they stand),
    then the prepared dice join their player's pool keeping their faces. Every move is recorded."""
    s["phase"] = "collect"
    emit(s, events, {"type": "revealed", "pools": {
        p["id"]: [{"id": d["id"], "colour": d["colour"], "pips": d["pips"]} for d in st.pool(s, k)]
        for k, p in enumerate(s["players"])}}, {"type": "revealed"})
    moves: list[dict[str, Any]] = []
    _value_collectors_take(s, moves)
    _casters_take(s, moves)
    _prepared_dice_join(s, moves)
    s["collect"] = moves
    emit(s, events, {"type": "collected", "moves": moves}, {"type": "collected", "count": len(moves)})


def _move(s: S, moves: list[dict[str, Any]], d: dict[str, Any], to: int, step: str) -> None:
    """Die d goes to seat `to`'s pool; the move is recorded for the collect step's story."""
    frm = d["at"].split(":", 1)[1]
    d["at"] = "pool:" + st.pid(s, to)
    moves.append({"die": d["id"], "colour": d["colour"], "pips": d["pips"], "from": frm,
                  "to": st.pid(s, to), "step": step})


def _takers(s: S, wanted: Callable[[dict[str, Any]], bool]) -> list[tuple[int, dict[str, Any]]]:
    """The seats (in turn order) whose declaration is of the kind `wanted` picks, with the declaration."""
    out = []
    for seat in st.turn_order(s):
        decl = st.declared(s, seat)
        if decl is not None and wanted(decl):
            out.append((seat, decl))
    return out


def _value_collectors_take(s: S, moves: list[dict[str, Any]]) -> None:
    """Step 2: every value collector takes its value from the pools as they were revealed (values are unique,
    so no die is claimed twice and the order does not matter)."""
    n = len(s["players"])
    before = {k: st.pool(s, k) for k in range(n)}
    for seat, decl in _takers(s, lambda decl: decl["action"] in st.VALUE_ACTIONS):
        for other in range(n):
            if other == seat:
                continue
            for d in before[other]:
                if d["pips"] == decl["value"] and not _keeps(s, other, d):
                    _move(s, moves, d, seat, "value")


def _casters_take(s: S, moves: list[dict[str, Any]]) -> None:
    """Step 3: casters take their colour and parity from every other pool as it stands after step 2."""
    n = len(s["players"])
    for seat, decl in _takers(s, lambda decl: decl["action"] == "cast"):
        parity = 0 if decl["parity"] == "even" else 1
        for other in range(n):
            if other == seat:
                continue
            for d in st.pool(s, other):
                if d["colour"] == decl["colour"] and d["pips"] % 2 == parity and not _keeps(s, other, d):
                    _move(s, moves, d, seat, "cast")


def _prepared_dice_join(s: S, moves: list[dict[str, Any]]) -> None:
    """Step 4: the dice prepared last round join their player's pool with their faces."""
    n = len(s["players"])
    for seat in range(n):
        for d in st.at(s, "prep:" + st.pid(s, seat)):
            d["at"] = "pool:" + st.pid(s, seat)
            moves.append({"die": d["id"], "colour": d["colour"], "pips": d["pips"],
                          "from": st.pid(s, (seat - 1) % n), "to": st.pid(s, seat), "step": "prepared"})


def do_advance(s: S, a: dict[str, Any]) -> Events:
    require(s["phase"] == "collect", "wrong_time", "Nothing to move on from now: look at what the game waits for.")
    events: Events = []
    start_resolve(s, events)
    return events


# -- resolve (§4.4) --------------------------------------------------------------------------------------
def start_resolve(s: S, events: Events) -> None:
    s["phase"] = "resolve"
    power = {}
    for k, p in enumerate(s["players"]):
        if st.action_of(s, k) == "companion":
            # Each 1 the companion rolled is one +1 to hand out (§4.4.5).
            power[p["id"]] = [d["id"] for d in st.pool(s, k) if d["rolled"] and d["pips"] == 1]
    s["power"] = power
    emit(s, events, {"type": "resolve", "defence": sum(s["snapshot"])})


def next_resolver(s: S) -> int | None:
    for kind in RESOLVE_ORDER:
        for seat in st.turn_order(s):
            if st.action_of(s, seat) == kind and st.pid(s, seat) not in s["resolved"]:
                return seat
    return None


def _resolver(s: S, a: dict[str, Any]) -> int:
    require(s["phase"] == "resolve", "wrong_time", "Actions are resolved in the Resolve phase only.")
    seat = acting_seat(s, a, next_resolver(s))
    me = st.pid(s, seat)
    require(me in s["decl"], "not_declared", "This player declared nothing this round.")
    require(me not in s["resolved"], "already_resolved",
            f"{s['players'][seat]['name']} has already resolved this round.")
    return seat


def _own_sets(s: S, seat: int, raw: Any, what: str) -> list[list[dict[str, Any]]]:
    """Sets a player names (lists of die ids): their own unused pool dice, each die in one set only."""
    require(isinstance(raw, list), "bad_sets", f"\"{what}\" must be a list of sets, each a list of die ids.")
    seen: set[str] = set()
    out = []
    where = "pool:" + st.pid(s, seat)
    for group in raw:
        ids = die_ids(group, f"Each of \"{what}\"")
        require(not seen & set(ids), "bad_sets", "A die can be part of only one set.")
        seen |= set(ids)
        dice = [st.die(s, i) for i in ids]
        for d in dice:
            require(d["at"] == where, "not_yours", f"Die {d['id']} is not in {s['players'][seat]['name']}'s pool.")
            require(not d["used"], "die_used", f"Die {d['id']} is already used this round.")
        out.append(dice)
    return out


def _best(s: S, seat: int, finder: Any) -> list[list[dict[str, Any]]]:
    mine = [d for d in st.pool(s, seat) if not d["used"]]
    return [[mine[i] for i in group] for group in finder([d["pips"] for d in mine])]


def _damage(s: S, seat: int, amount: int, targets: Any, events: Events, source: str) -> int:
    """Add `amount` pips to the enemy (§3), each on the die the player names (1-based) or the lowest; a die at
    6 takes no more. Defeat (§6) when all show 6; damage beyond what was needed is overkill. Returns the damage
    dealt, overkill included, as the `damage` event says (issue 33: it returned the pips placed, so an overkill
    of 2 read 1 in `resolved.damage`); the pips placed go in the event as `placed`."""
    if amount <= 0 or s["defeated"]:
        return 0
    if targets is not None:
        require(isinstance(targets, list) and all(isinstance(t, int) and not isinstance(t, bool) for t in targets),
                "bad_pips", "\"pips\" lists enemy dice by number (1 = the first enemy die).")
    enemy = st.enemy_dice(s)
    needed = 6 * len(enemy) - sum(d["pips"] for d in enemy)
    dealt = 0
    for k in range(amount):
        if all(d["pips"] == 6 for d in enemy):
            break
        if targets is not None and k < len(targets):
            t = targets[k]
            require(1 <= t <= len(enemy), "bad_pips", f"The enemy has dice 1 to {len(enemy)}.")
            require(enemy[t - 1]["pips"] < 6, "bad_pips", f"Enemy die {t} already shows 6: add the pip to another.")
            target = enemy[t - 1]
        else:
            target = min(enemy, key=lambda d: d["pips"])
        target["pips"] += 1
        dealt += 1
    emit(s, events, {"type": "damage", "player": st.pid(s, seat), "amount": amount, "placed": dealt,
                     "source": source, "enemy": [d["pips"] for d in enemy]})
    if all(d["pips"] == 6 for d in enemy):
        defeat_enemy(s, events, seat if amount > needed else None, "damage")
    return amount


def defeat_enemy(s: S, events: Events, overkill_seat: int | None, how: str) -> None:
    """The enemy's dice go to the wounded pile, or on overkill into the pool of whoever dealt it (§6)."""
    where = "wounded" if overkill_seat is None else "pool:" + st.pid(s, overkill_seat)
    for d in st.enemy_dice(s):
        d["at"] = where
    s["defeated"] = True
    emit(s, events, {"type": "enemy_defeated", "enemy": s["enemy"], "how": how,
                     "overkill": None if overkill_seat is None else st.pid(s, overkill_seat),
                     "dice_to": "wounded" if overkill_seat is None else st.pid(s, overkill_seat)})
    s["enemy_dice"] = []
    if s["enemy"] == len(st.ENEMY_DICE):
        s["phase"], s["result"] = "over", "victory"
        emit(s, events, {"type": "victory"})


def _heal(s: S, seat: int, amount: int, take: Any, events: Events, source: str) -> int:
    """Up to `amount` dice from the wounded pile to the healer's pool (§4.4.3), the ones named in `take` first,
    then the longest wounded."""
    pile = st.at(s, "wounded")
    amount = min(amount, len(pile))
    chosen: list[dict[str, Any]] = []
    if take is not None:
        for i in die_ids(take, "\"take\""):
            d = st.die(s, i)
            require(d["at"] == "wounded", "not_wounded", f"Die {i} is not in the wounded pile.")
            if d not in chosen and len(chosen) < amount:
                chosen.append(d)
    for d in pile:
        if len(chosen) >= amount:
            break
        if d not in chosen:
            chosen.append(d)
    for d in chosen:
        d["at"] = "pool:" + st.pid(s, seat)
    if chosen:
        emit(s, events, {"type": "healed", "player": st.pid(s, seat), "source": source,
                         "dice": [d["id"] for d in chosen]})
    return len(chosen)


def do_nudge(s: S, a: dict[str, Any]) -> Events:
    """An animal companion spends one rolled 1 to add a pip to another die in any pool (§4.4.5)."""
    seat = _resolver(s, a)
    me = st.pid(s, seat)
    require(st.action_of(s, seat) == "companion", "not_companion", "Only an animal companion adds pips to dice.")
    power = s["power"].get(me, [])
    spent = [i for i in power if st.die(s, i)["used"]]
    require(len(spent) < len(power), "no_power", "Every 1 this companion rolled has been used.")
    target = a.get("die")
    if isinstance(target, dict):  # a face: it must name one die of the pools, or the players say which
        pools = [d for d in s["dice"] if d["at"].startswith("pool:") and d["id"] not in power]
        alike = [d for d in pools if d["colour"] == target.get("colour") and d["pips"] == target.get("pips")]
        require(len(alike) < 2, "ambiguous_die", f"{len(alike)} dice show that face: name one by its id.")
        target = named_dice(s, [target], "\"die\"", pools)[0]
    d = st.die(s, target)
    require(d["at"].startswith("pool:"), "bad_target", "Pips go on a die in a player's pool (not the enemy).")
    require(d["id"] not in power, "bad_target", "The companion's own 1s are its power, not targets.")
    require(not d["used"], "die_used", f"Die {d['id']} is already part of a set this round.")
    require(d["pips"] < 6, "bad_target", f"Die {d['id']} already shows 6.")
    d["pips"] += 1
    st.die(s, next(i for i in power if not st.die(s, i)["used"]))["used"] = True
    events: Events = []
    emit(s, events, {"type": "nudged", "player": me, "die": d["id"], "pips": d["pips"],
                     "owner": d["at"].split(":", 1)[1]})
    return events


def do_resolve(s: S, a: dict[str, Any]) -> Events:
    """One player's whole action with the sets they name (or the best ones the engine finds)."""
    seat = _resolver(s, a)
    me = st.pid(s, seat)
    decl = st.declared(s, seat)
    kind = decl["action"]  # type: ignore[index]
    events: Events = []
    result: dict[str, Any] = {"action": kind, "sets": []}
    _RESOLVE.get(kind, _resolve_companion)(s, seat, a, a.get("skip") is True, events, result)
    s["resolved"] = {**s["resolved"], me: result}
    emit(s, events, {"type": "resolved", "player": me, **result})
    if s["phase"] == "resolve" and next_resolver(s) is None:
        end_resolve(s, events)
    return events


def _sets_for(s: S, seat: int, a: dict[str, Any], field: str, skip: bool, check: Callable[[list[int]], None],
              best: Callable[[list[int]], Any]) -> list[list[dict[str, Any]]]:
    """The sets a player resolves with: none when skipping; the ones named in `field`, each passing `check`
    (its pips; a wrong set is refused there); or, when none are named, the best the engine finds."""
    if skip:
        return []
    if a.get(field) is None:
        return _best(s, seat, best)
    groups = _own_sets(s, seat, a[field], field)
    for g in groups:
        check([d["pips"] for d in g])
    return groups


def _check_attack_group(pips: list[int], defence: int) -> None:
    require(sets.check_attack_group(pips, defence), "bad_group",
            f"An attack group must add up exactly to the defence {defence}.")


def _check_block_set(pips: list[int]) -> None:
    require(sets.block_of(pips) > 0, "bad_set", "A block set is 3 or more dice showing the same value.")


def _check_heal_run(pips: list[int]) -> None:
    require(sets.heal_of(pips) > 0, "bad_run", "A heal run is 3 or more dice with consecutive values, e.g. 2 3 4.")


def _resolve_attack(s: S, seat: int, a: dict[str, Any], skip: bool, events: Events, result: dict[str, Any]) -> None:
    """Groups that add up exactly to the defence each deal damage (none once the defence is defeated)."""
    defence = sum(s["snapshot"])
    groups = _sets_for(s, seat, a, "groups", bool(s["defeated"]) or skip,
                       lambda pips: _check_attack_group(pips, defence), lambda v: sets.attack_groups(v, defence))
    _use(groups, result)
    result["damage"] = _damage(s, seat, len(groups), a.get("pips"), events, "attack") if groups else 0


def _resolve_block(s: S, seat: int, a: dict[str, Any], skip: bool, events: Events, result: dict[str, Any]) -> None:
    """Sets of 3 or more alike block the round's damage."""
    blocks = _sets_for(s, seat, a, "sets", skip, _check_block_set, sets.block_sets)
    _use(blocks, result)
    result["block"] = sum(sets.block_of([d["pips"] for d in g]) for g in blocks)
    s["blocked"] += result["block"]


def _resolve_heal(s: S, seat: int, a: dict[str, Any], skip: bool, events: Events, result: dict[str, Any]) -> None:
    """Runs of 3 or more heal wounded dice (no more than there are)."""
    cap = len(st.at(s, "wounded"))
    runs = _sets_for(s, seat, a, "runs", skip, _check_heal_run, lambda v: sets.heal_runs(v, cap))
    _use(runs, result)
    amount = sum(sets.heal_of([d["pips"] for d in g]) for g in runs)
    result["healed"] = _heal(s, seat, amount, a.get("take"), events, "heal")


def _resolve_cast(s: S, seat: int, a: dict[str, Any], skip: bool, events: Events, result: dict[str, Any]) -> None:
    result.update(_cast(s, seat, a, skip, events))


def _resolve_companion(s: S, seat: int, a: dict[str, Any], skip: bool, events: Events,
                       result: dict[str, Any]) -> None:
    """The companion's 1s were handed out with "nudge" (or the `nudges` given here); resolving ends its turn."""
    me = st.pid(s, seat)
    if a.get("nudges") is not None:
        # the list is several "nudge" actions in one (docs/actions.md): one die may take several
        for target in die_ids(a["nudges"], "\"nudges\"", repeats=True):
            events += do_nudge(s, {"type": "nudge", "player": me, "die": target})
    result["nudges"] = sum(1 for i in s["power"].get(me, []) if st.die(s, i)["used"])


_RESOLVE: dict[str, Callable[[S, int, dict[str, Any], bool, Events, dict[str, Any]], None]] = {
    "attack": _resolve_attack, "block": _resolve_block, "heal": _resolve_heal, "cast": _resolve_cast,
}


def _use(groups: list[list[dict[str, Any]]], result: dict[str, Any]) -> None:
    for g in groups:
        for d in g:
            d["used"] = True
    result["sets"] = [[d["id"] for d in g] for g in groups]


SPELL_ORDER = ("red", "black", "yellow", "blue")


def _cast(s: S, seat: int, a: dict[str, Any], skip: bool, events: Events) -> dict[str, Any]:
    """Spells: one colour, pips equal to the enemy's dice at the start of the round (§4.4.4, §11.2). Red
    damages, blue blocks, yellow heals, black defeats. The default casts what helps: every fireball, one
    touch of death, enough holy light for the wounded pile, one ice."""
    target = s["snapshot"]
    if skip:
        spells: list[list[dict[str, Any]]] = []
    elif a.get("spells") is not None:
        spells = _own_sets(s, seat, a["spells"], "spells")
        for g in spells:
            require(len({d["colour"] for d in g}) == 1 and sets.is_spell([d["pips"] for d in g], target),
                    "bad_spell", "A spell is dice of one colour whose pips equal the enemy's: "
                    + " ".join(map(str, sorted(target))) + ".")
            if g[0]["colour"] in ("red", "black"):
                require(not s["defeated"], "no_target", "The enemy is already defeated this round.")
    else:
        spells = _default_spells(s, seat)
    spells.sort(key=lambda g: SPELL_ORDER.index(g[0]["colour"]))
    result: dict[str, Any] = {"sets": [], "damage": 0, "block": 0, "healed": 0, "death": False}
    _use(spells, result)
    red = sum(len(g) for g in spells if g[0]["colour"] == "red")
    if red:  # all fireballs together are the one action whose excess may be overkill (§6.3, §11.5)
        result["damage"] = _damage(s, seat, red, a.get("pips"), events, "fireball")
    for g in spells:
        colour = g[0]["colour"]
        if colour == "black" and not s["defeated"]:
            result["death"] = True
            emit(s, events, {"type": "touch_of_death", "player": st.pid(s, seat)})
            defeat_enemy(s, events, None, "touch_of_death")
        elif colour == "yellow":
            result["healed"] += _heal(s, seat, len(g), a.get("take"), events, "holy_light")
        elif colour == "blue":
            result["block"] += len(g)
            s["blocked"] += len(g)
    return result


def _default_spells(s: S, seat: int) -> list[list[dict[str, Any]]]:
    """What a caster would usually cast: every fireball; a touch of death when the fireballs fall short; holy
    light for as many dice as the wounded pile holds; one ice (it already blocks the whole attack)."""
    target = s["snapshot"]
    if not target:
        return []

    def found(colour: str, limit: int | None) -> list[list[dict[str, Any]]]:
        mine = [d for d in st.pool(s, seat) if not d["used"] and d["colour"] == colour]
        return [[mine[i] for i in g] for g in sets.spell_sets([d["pips"] for d in mine], target, limit)]

    spells: list[list[dict[str, Any]]] = []
    if not s["defeated"]:
        spells += found("red", None)
        enemy = st.enemy_dice(s)
        if 6 * len(enemy) - sum(d["pips"] for d in enemy) > sum(len(g) for g in spells):
            spells += found("black", 1)
    spells += found("yellow", -(-len(st.at(s, "wounded")) // len(target)))
    spells += found("blue", 1)
    return spells


def end_resolve(s: S, events: Events) -> None:
    """After the last resolution: a defeated enemy is replaced (§6.4) and the Suffer phase is skipped (§4.5)."""
    if s["defeated"]:
        s["enemy"] += 1
        size = st.ENEMY_DICE[s["enemy"] - 1]
        fresh = st.at(s, "reserve")[:size]
        for d in fresh:
            d["at"], d["pips"] = "enemy", 1
        s["enemy_dice"] = [d["id"] for d in fresh]
        emit(s, events, {"type": "enemy_appeared", "enemy": s["enemy"], "dice": [d["id"] for d in fresh]})
        start_prepare(s, events)
        return
    start_suffer(s, events)


# -- suffer (§4.5) ---------------------------------------------------------------------------------------
def start_suffer(s: S, events: Events) -> None:
    attack = len(s["snapshot"])
    unblocked = max(0, attack - s["blocked"])
    info: dict[str, Any] = {"attack": attack, "blocked": s["blocked"], "damage": unblocked, "category": None,
                            "candidates": [], "target": None, "lost": []}
    s["suffer"] = info
    if unblocked == 0:
        emit(s, events, {"type": "suffered", "damage": 0, "attack": attack, "blocked": s["blocked"]})
        start_prepare(s, events)
        return
    for kind in SUFFER_ORDER:
        group = [seat for seat in st.turn_order(s) if st.action_of(s, seat) == kind]
        if group:
            info["category"] = kind
            info["candidates"] = [st.pid(s, k) for k in group if len(st.pool(s, k)) >= unblocked]
            break
    s["phase"] = "suffer"
    if not info["candidates"]:
        s["phase"], s["result"] = "over", "defeat"
        emit(s, events, {"type": "defeat", "damage": unblocked, "category": info["category"]})


def do_suffer(s: S, a: dict[str, Any]) -> Events:
    """The target (one of the candidates, chosen together) moves one die per damage to the wounded pile."""
    require(s["phase"] == "suffer", "wrong_time", "Damage is taken in the Suffer phase only.")
    info = s["suffer"]
    cands = info["candidates"]
    seat = acting_seat(s, a, seat_of(s, cands[0]) if len(cands) == 1 else None)
    me = st.pid(s, seat)
    require(me in cands, "not_target", "The enemy strikes " + " or ".join(
        s["players"][seat_of(s, c)]["name"] for c in cands) + " this round.")
    mine = st.pool(s, seat)
    damage = info["damage"]
    if a.get("dice") is None:
        lost = sorted(mine, key=lambda d: (not d["used"], d["pips"]))[:damage]  # used dice first: they cannot be passed
    else:
        ids = named_dice(s, a["dice"], "\"dice\"", mine)
        require(len(ids) == damage, "wrong_dice_count", f"Choose exactly {damage} dice to lose.")
        lost = [st.die(s, i) for i in ids]
        for d in lost:
            require(d["at"] == "pool:" + me, "not_yours", f"Die {d['id']} is not in your pool.")
    for d in lost:
        d["at"] = "wounded"
        d["used"] = False
    info = {**info, "target": me, "lost": [d["id"] for d in lost]}
    s["suffer"] = info
    events: Events = []
    emit(s, events, {"type": "suffered", "damage": damage, "attack": info["attack"], "blocked": info["blocked"],
                     "player": me, "dice": info["lost"]})
    start_prepare(s, events)
    return events


# -- prepare (§4.6) and the next round (§4.7) -----------------------------------------------------------
def passable(s: S, seat: int) -> list[dict[str, Any]]:
    return [d for d in st.pool(s, seat) if not d["used"]]


def start_prepare(s: S, events: Events) -> None:
    s["phase"] = "prepare"
    s["prepared"] = [p["id"] for k, p in enumerate(s["players"]) if not passable(s, k)]
    if len(s["prepared"]) == len(s["players"]):
        next_round(s, events)


def next_preparer(s: S) -> int | None:
    for seat in st.turn_order(s):
        if st.pid(s, seat) not in s["prepared"]:
            return seat
    return None


def do_prepare(s: S, a: dict[str, Any]) -> Events:
    require(s["phase"] == "prepare", "wrong_time", "Dice are set aside in the Prepare phase only.")
    seat = acting_seat(s, a, next_preparer(s))
    me = st.pid(s, seat)
    require(me not in s["prepared"], "already_prepared", f"{s['players'][seat]['name']} has already prepared.")
    ids = named_dice(s, a.get("dice", []), "\"dice\"", [d for d in st.pool(s, seat) if not d["used"]])
    left = st.left_of(s, seat)
    for i in ids:
        d = st.die(s, i)
        require(d["at"] == "pool:" + me, "not_yours", f"Die {i} is not in {s['players'][seat]['name']}'s pool.")
        require(not d["used"], "die_used", f"Die {i} was used in this round's action and cannot be passed.")
    for i in ids:
        st.die(s, i)["at"] = "prep:" + st.pid(s, left)
    s["prepared"] = [*s["prepared"], me]
    events: Events = []
    emit(s, events, {"type": "prepared", "player": me, "for": st.pid(s, left), "dice": ids})
    if next_preparer(s) is None:
        next_round(s, events)
    return events


def next_round(s: S, events: Events) -> None:
    s["round"] += 1
    s["first"] = st.left_of(s, s["first"])
    start_round(s, events)


HANDLERS = {"roll": do_roll, "declare": do_declare, "advance": do_advance, "nudge": do_nudge,
            "resolve": do_resolve, "suffer": do_suffer, "prepare": do_prepare}

