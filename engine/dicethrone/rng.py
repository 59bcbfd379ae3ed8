"""Seeded dice for the engine: a splitmix64 stream whose whole state is one int kept in the game state.

`random.Random` cannot live in a JSON state cheaply; one int can, so replay, undo and checkpoints give the
same rolls without any global randomness.
"""

from __future__ import annotations

MASK = (1 << 64) - 1


def seed_state(seed: int) -> int:
    """The stream state for a setup seed (any int, also negative or huge)."""
    return (int(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & MASK


def next_die(state: int, sides: int = 6) -> tuple[int, int]:
    """(new state, a die value 1..sides)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    z ^= z >> 31
    return state, z % sides + 1


def roll(s: dict, n: int) -> list[int]:
    """Roll `n` dice with the state's stream, advancing it in place (`s` is already a private copy).

    The same arithmetic as `next_die` (a test keeps them equal), inlined: every roll of every game runs it.
    """
    state = s["rng"]
    out = []
    for _ in range(n):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        out.append((z ^ (z >> 31)) % 6 + 1)
    s["rng"] = state
    return out
