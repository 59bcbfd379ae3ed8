"""Which board abilities the final dice satisfy, at the level the player's upgrades give them (§5)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..odds import best_keep, chance
from .dice import LARGE_RUNS, SMALL_RUNS, large_straight, meets_symbols, small_straight, symbol_counts
from .heroes import hero


def level_of(upgrades: dict[str, int], ability: dict[str, Any]) -> dict[str, Any] | None:
    """The level data in force: the highest level at or below the slot's installed level.

    Alternative abilities added by an upgrade (`slot`) exist only once that slot reaches their level.
    """
    installed = upgrades.get(ability.get("slot") or ability["id"], 1)
    best = None
    for level in ability["levels"]:
        if level["level"] <= installed and (best is None or level["level"] > best["level"]):
            best = level
    return best


def tier_met(tier: dict[str, Any], values: list[int], counts: dict[str, int]) -> bool:
    straight = tier.get("straight")
    if straight == "small" and not small_straight(values):
        return False
    if straight == "large" and not large_straight(values):
        return False
    return meets_symbols(counts, tier.get("need", {}))


def satisfied(hero_id: str, upgrades: dict[str, int], values: list[int]) -> list[dict[str, Any]]:
    """Every offensive ability (and the ultimate) the dice meet, with level and the highest tier met.

    Requirements ignore dice order, so results are cached per sorted dice (252 multisets per board);
    the returned list is shared: read it, do not change it.
    """
    return _satisfied(hero_id, tuple(sorted(upgrades.items())), tuple(sorted(values)))


def satisfied_sorted(hero_id: str, upgrade_items: tuple[tuple[str, int], ...],
                     values: tuple[int, ...]) -> list[dict[str, Any]]:
    """`satisfied` for callers that already hold the cache key: sorted upgrade items and sorted dice."""
    return _satisfied(hero_id, upgrade_items, values)


# Bounds from the soak (bench/soak.py --tracemalloc): one Dice Throne game filled 83 entries of `_satisfied`
# and 17 of `_levels_in_force`; 4096 and 1024 keep dozens of games' worth (~2 MiB at most), where 65536
# entries could have grown to ~25 MiB over a long night of games with ever new upgrade combinations.
@lru_cache(maxsize=4096)
def _satisfied(hero_id: str, upgrade_items: tuple[tuple[str, int], ...],
               values: tuple[int, ...]) -> list[dict[str, Any]]:
    counts: list[int] | None = None
    present: set[int] = set()
    out = []
    for ability, level, tiers, memo in _levels_in_force(hero_id, upgrade_items):
        met = memo.get(values, _UNKNOWN)
        if met is _UNKNOWN:
            if counts is None:
                counts = [0] * 7
                for v in values:
                    counts[v] += 1
                present = set(values)
            best = _best_tier(tiers, counts, present)
            met = memo[values] = None if best < 0 else {
                "id": ability["id"], "name": level.get("name", ability["name"]), "level": level["level"], "tier": best,
                "ultimate": ability["kind"] == "ultimate"}
        if met is not None:
            out.append(met)
    return out


_UNKNOWN = object()


def _best_tier(tiers: tuple[Any, ...], counts: list[int], present: set[int]) -> int:
    """Index of the highest compiled tier the dice meet (-1: none); `counts[v]` = dice showing v."""
    best = -1
    for k, (straight, need) in enumerate(tiers):
        if straight is not None and not any(run <= present for run in straight):
            continue
        for numbers, n in need:
            got = 0
            for v in numbers:
                got += counts[v]
            if got < n:
                break
        else:
            best = k
    return best


# id(level data) -> (level data, compiled tiers, sorted dice -> the entry `satisfied` lists, None = not met).
# Hero data is loaded once and kept (heroes.hero is cached), so a level's results are shared by every upgrade
# combination that uses it (random games install upgrades all the time). Entries are shared: read only.
_COMPILED: dict[int, tuple[dict[str, Any], tuple[Any, ...], dict[tuple[int, ...], dict[str, Any] | None]]] = {}


@lru_cache(maxsize=1024)
def _levels_in_force(hero_id: str, upgrade_items: tuple[tuple[str, int], ...]) -> tuple[Any, ...]:
    """(ability, level data, compiled tiers, results memo) of each offensive ability at the upgrades' levels.

    A tier compiles to (straight runs or None, ((numbers showing the symbol, count needed), ...)): with
    symbols turned into the numbers that show them, a requirement check on a roll is a few additions on
    counts per number, the same test as `tier_met` (which stays the readable reference).
    """
    upgrades = dict(upgrade_items)
    data = hero(hero_id)
    faces = data["faces"]
    rows = []
    for ability in data["offensive"]:
        level = level_of(upgrades, ability)
        if level is None:
            continue
        known = _COMPILED.get(id(level))
        if known is None or known[0] is not level:
            tiers = []
            for tier in level["tiers"]:
                straight = {"small": SMALL_RUNS, "large": LARGE_RUNS}.get(tier.get("straight"))
                need = tuple((tuple(v for v in range(1, 7) if faces[v - 1] == sym), n)
                             for sym, n in tier.get("need", {}).items())
                tiers.append((straight, need))
            known = _COMPILED[id(level)] = (level, tuple(tiers), {})
        rows.append((ability, level, known[1], known[2]))
    return tuple(rows)


def effects_of(hero_id: str, ability_id: str, level: int, tier: int) -> list[dict[str, Any]]:
    ability = hero(hero_id)["by_id"][ability_id]
    for lv in ability["levels"]:
        if lv["level"] == level:
            return lv["tiers"][tier]["effects"] if "tiers" in lv else lv.get("effects", [])
    raise KeyError((ability_id, level))


def defense_level(hero_id: str, upgrades: dict[str, int], defense_id: str) -> dict[str, Any] | None:
    data = hero(hero_id)
    ability = data["by_id"].get(defense_id)
    if ability is None or ability["kind"] != "defense":
        return None
    return level_of(upgrades, ability)


def _requirement_target(faces: tuple[str, ...], tier_key: tuple[Any, ...]):
    straight, need = tier_key[0], dict(tier_key[1])

    def target(hand: tuple[int, ...]) -> bool:
        values = list(hand)
        return tier_met({"straight": straight, "need": need}, values, symbol_counts(values, faces))
    return target


def odds(hero_id: str, upgrades: dict[str, int], values: list[int] | None, rolls_left: int) -> list[dict[str, Any]]:
    """Chance of meeting each offensive ability (its lowest tier) with the rolls left, keeping optimally;
    after a roll, with `keep`: the dice to keep for that chance (the keep advice the page offers).

    `values` None = nothing rolled yet. Exact dynamic programme over dice multisets (engine.odds), cached
    per requirement, so a snapshot pays for each requirement once per process.
    """
    data = hero(hero_id)
    faces = tuple(data["faces"])
    out = []
    for ability in data["offensive"]:
        level = level_of(upgrades, ability)
        if level is None:
            continue
        tier = level["tiers"][0]
        key = (tier.get("straight"), tuple(sorted(tier.get("need", {}).items())))
        # Cache by what the requirement means on the numbers ("3 dice among 1-3"), so heroes sharing a
        # face layout share the tables: the first snapshot of a game pays for few of them.
        canonical = (key[0], tuple(sorted((tuple(v for v in range(1, 7) if faces[v - 1] == sym), n)
                                          for sym, n in key[1])))
        target = _requirement_target(faces, key)
        p = chance(target, ("dicethrone", canonical), rolls_left, None if values is None else tuple(values))
        row = {"id": ability["id"], "level": level["level"], "chance": round(p, 4)}
        if values is not None and rolls_left >= 1 and 0 < p < 1:
            row["keep"] = _keep_indices(values, best_keep(target, ("dicethrone", canonical), rolls_left,
                                                          tuple(values))[1])
        out.append(row)
    return out


def _keep_indices(values: list[int], kept: tuple[int, ...]) -> list[int]:
    """The positions (0-based, ascending) of the dice showing the kept values: the advice "keep dice 1 2 4"."""
    left = list(kept)
    out = []
    for i, v in enumerate(values):
        if v in left:
            left.remove(v)
            out.append(i)
    return out
