"""Engine figures: complete random Dice Throne 1v1 games per second, replaying a 500-action log, and a hash.

Also complete random King of Tokyo games per second: 6 monsters (Tokyo Bay in use), the full 66-card deck,
a seeded player picking among the legal options (buying a card it can afford most of the time), through Match.

Prints figures, asserts nothing (tests never assert timings). Run: `.venv/bin/python bench/engine.py`.
A "random game" is played by `random_action`: a seeded player that always picks a legal action, mostly the
obvious one (like a table pressing Next), sometimes keeping dice, rerolling, spending tokens or playing
upgrades, until someone wins or the game is drawn.

The replay hash is a SHA-256 over 420 seeded random games (seeds 0-139 in each of 1v1, 2v2 and King of the
Hill): every action, every event and the final state of each. A refactor of the engine that changes no rule
keeps it identical; a rule or data change moves it (say so in its commit).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.dicethrone.heroes import hero_ids  # noqa: E402
from engine.games import get_rules  # noqa: E402
from engine.match import Entry, Match  # noqa: E402

RULES = get_rules("dicethrone")


def random_action(state: dict[str, Any], r: random.Random) -> dict[str, Any]:
    """One legal action for the pending decision: the default most of the time, another option otherwise."""
    pending = state["pending"]
    if r.random() < 0.8 and not (pending["kind"] == "offense" and state["attempts"]):
        return RULES.default_action(state)          # pressing Next
    opts = RULES.options(state)
    if pending["kind"] == "offense" and state["attempts"]:
        abilities = [o for o in opts if o["type"] == "ability" and o["ability"]]
        if abilities and r.random() < 0.6:
            return r.choice(abilities)
        if r.random() < 0.8:
            return RULES.default_action(state)
    return r.choice(opts)


def random_setup(r: random.Random, mode: str = "1v1") -> dict[str, Any]:
    n = {"1v1": 2, "2v2": 4, "koth": 3}[mode]
    heroes = hero_ids()
    return {"mode": mode, "players": [{"id": f"p{k + 1}", "hero": r.choice(heroes)} for k in range(n)]}


def play_random(seed: int, mode: str = "1v1", limit: int = 5000) -> Match:
    """A complete random game through Match (as the table would run it)."""
    r = random.Random(seed)
    m = Match(RULES, random_setup(r, mode), seed)
    while m.state["pending"] is not None and len(m.entries) < limit:
        m.submit(random_action(m.state, r))
    return m


def replay_hash(per_mode: int = 140) -> tuple[str, int]:
    """(hex SHA-256, games) of `per_mode` seeded random games in each mode: actions, events, final states."""
    digest = hashlib.sha256()
    games = 0
    for mode in ("1v1", "2v2", "koth"):
        for seed in range(per_mode):
            r = random.Random(seed)
            m = Match(RULES, random_setup(r, mode), seed)
            digest.update(json.dumps([mode, seed, m.setup], sort_keys=True).encode())
            while m.state["pending"] is not None and len(m.entries) < 5000:
                m.submit(random_action(m.state, r))
                digest.update(json.dumps([m.entries[-1].action, m.last_events], sort_keys=True).encode())
            digest.update(json.dumps(RULES.dump(m.state), sort_keys=True).encode())
            games += 1
    return digest.hexdigest(), games


def games_per_second(seconds: float) -> tuple[float, float, int]:
    """(games/s, actions per game, games) of complete random 1v1 games on this core.

    Timed in CPU seconds of this process (time.process_time): the box's other services, or other
    jobs on a shared machine, do not count against the engine.
    """
    start = time.process_time()
    games = actions = 0
    while time.process_time() - start < seconds:
        m = play_random(games)
        games += 1
        actions += len(m.entries)
    elapsed = time.process_time() - start
    return games / elapsed, actions / games, games


def engine_games_per_second(seconds: float) -> float:
    """Complete random 1v1 games/s with Rules.apply alone (no Match log, no undo history)."""
    start = time.process_time()
    games = 0
    while time.process_time() - start < seconds:
        r = random.Random(games)
        state = RULES.setup(random_setup(r), games)
        while state["pending"] is not None:
            state, _ = RULES.apply(state, random_action(state, r))
        games += 1
    return games / (time.process_time() - start)


def long_log(n: int = 500) -> tuple[dict[str, Any], int, list[Entry]]:
    """A log of exactly n actions: random 1v1 games until one reaches n actions (others end earlier)."""
    seed = 0
    while True:
        r = random.Random(seed)
        setup = random_setup(r)
        m = Match(RULES, setup, seed)
        while m.state["pending"] is not None and len(m.entries) < n:
            m.submit(random_action(m.state, r))
        if len(m.entries) == n:
            return setup, seed, list(m.entries)
        seed += 1


def replay_ms(repeat: int = 20) -> tuple[float, int]:
    setup, seed, entries = long_log()
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        Match.replay(RULES, setup, seed, entries)
        best = min(best, time.process_time() - start)
    return best * 1000, len(entries)


KOT = get_rules("kingoftokyo")
KOT_MONSTERS = [row["id"] for row in KOT.describe()["catalogue"]["monsters"]]


def kot_play_random(seed: int, limit: int = 5000) -> Match:
    """A complete random 6-monster King of Tokyo game through Match: the throws come from the game's seeded
    stream, the player buys an affordable card 70% of the time and otherwise picks any legal option."""
    r = random.Random(seed)
    m = Match(KOT, {"players": KOT_MONSTERS}, seed)
    while not m.state["over"] and len(m.entries) < limit:
        opts = KOT.options(m.state)
        buys = [o for o in opts if o["type"] == "buy"]
        m.submit(r.choice(buys) if buys and r.random() < 0.7 else r.choice(opts))
    return m


def kot_games_per_second(seconds: float) -> tuple[float, float, int, int]:
    """(games/s, actions per game, games, cards bought in all) of complete random 6-monster games (CPU time)."""
    start = time.process_time()
    games = actions = bought = 0
    while time.process_time() - start < seconds:
        m = kot_play_random(games)
        games += 1
        actions += len(m.entries)
        bought += sum(1 for e in m.entries if e.action["type"] == "buy")
    return games / (time.process_time() - start), actions / games, games, bought


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="how long to play random games")
    parser.add_argument("--json", action="store_true", help="one JSON line instead of text")
    parser.add_argument("--hash-only", action="store_true", help="print only the replay hash of the 420 games")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the figure promises
    digest, hashed = replay_hash()
    if args.hash_only:
        print(json.dumps({"replay_hash": digest, "games": hashed}) if args.json else f"replay hash of {hashed} "
              f"seeded games: {digest}")
        return
    rate, per_game, games = games_per_second(args.seconds)
    bare = engine_games_per_second(args.seconds / 2)
    ms, n = replay_ms()
    kot_rate, kot_actions, kot_games, kot_bought = kot_games_per_second(args.seconds)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    figures = {"games_per_s": round(rate, 1), "engine_games_per_s": round(bare, 1),
               "actions_per_game": round(per_game, 1), "games": games, "replay_actions": n,
               "replay_ms": round(ms, 2), "replay_hash": digest, "hashed_games": hashed, "cpus": os.cpu_count(), "load": load,
               "kingoftokyo_games_per_s": round(kot_rate, 1), "kingoftokyo_actions_per_game": round(kot_actions, 1),
               "kingoftokyo_games": kot_games}
    if args.json:
        print(json.dumps(figures))
        return
    print(f"complete random 1v1 games: {rate:.1f} games/s on one core through Match ({games} games, "
          f"{per_game:.0f} actions per game; aim >= 200)")
    print(f"  the rules alone (Rules.apply, no log): {bare:.1f} games/s")
    print(f"replay of a {n}-action log: {ms:.2f} ms (aim < 50 ms)")
    print(f"complete random King of Tokyo games (6 monsters, all 66 cards): {kot_rate:.1f} games/s on one core "
          f"through Match ({kot_games} games, {kot_actions:.0f} actions and {kot_bought / kot_games:.1f} cards "
          f"bought per game)")
    print(f"replay hash of {hashed} seeded games (1v1, 2v2, King of the Hill): {digest}")
    print(f"timed in CPU seconds of this process; machine: {os.cpu_count()} cpus, load average {load:.2f}"
          if load is not None else "timed in CPU seconds of this process")


if __name__ == "__main__":
    main()
