"""Seeded dice for every game: a splitmix64 stream whose whole state is one int kept in the game's state.

`random.Random` cannot live in a JSON state cheaply; one int can, so replay, undo and checkpoints give the
same rolls without any global randomness (the engine is pure). A game keeps the stream under `s["rng"]`,
seeds it with `seed_state(seed, salt)` at setup and draws with `rand` or `roll` on its private copy of the
state. The salt only exists so that games whose stored logs began with a different start keep replaying
them: King of Tokyo's stream always started from its own salt.
"""

from __future__ import annotations

from typing import Any

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
SALT = 0x632BE59BD9B4E019


def seed_state(seed: int, salt: int = SALT) -> int:
    """The stream state for a setup seed (any int, also negative or huge)."""
    return (int(seed) * GOLDEN + salt) & MASK


def next_value(state: int) -> tuple[int, int]:
    """(new stream state, a 64-bit value): one step of splitmix64."""
    state = (state + GOLDEN) & MASK
    z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def rand(s: dict[str, Any], n: int) -> int:
    """A number 0..n-1 from the state's stream, advancing it in place (`s` is the action's private copy)."""
    s["rng"], value = next_value(s["rng"])
    return value % n


def roll(s: dict[str, Any], n: int, sides: int = 6) -> list[int]:
    """`n` dice of `sides` faces (1..sides) from the state's stream, advancing it in place.

    The same arithmetic as `next_value`, inlined: every roll of every game runs it (a test keeps them equal).
    """
    state = s["rng"]
    out = []
    for _ in range(n):
        state = (state + GOLDEN) & MASK
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        out.append((z ^ (z >> 31)) % sides + 1)
    s["rng"] = state
    return out


def shuffle(s: dict[str, Any], items: list[Any]) -> list[Any]:
    """A shuffled copy of `items` (Fisher-Yates from the top) drawn from the state's stream."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = rand(s, i + 1)
        out[i], out[j] = out[j], out[i]
    return out
