"""engine/rng.py: the one seeded roller every game draws from (issue 35: it was copied three times)."""

from __future__ import annotations

from engine import rng


def test_roll_is_the_inlined_stream():
    """rng.roll inlines rng.next_value for speed: both give the same dice and leave the same stream state."""
    for seed in (0, 1, -7, 2**70):
        s = {"rng": rng.seed_state(seed)}
        state, expected = s["rng"], []
        for _ in range(40):
            state, value = rng.next_value(state)
            expected.append(value % 6 + 1)
        assert rng.roll(s, 15) + rng.roll(s, 25) == expected
        assert s["rng"] == state


def test_a_die_is_a_draw_below_its_sides():
    """A die of n sides is rand(n) + 1 on the same stream: the games that draw cards and roll dice share it."""
    a, b = {"rng": rng.seed_state(9)}, {"rng": rng.seed_state(9)}
    assert [rng.rand(a, 12) + 1 for _ in range(30)] == rng.roll(b, 30, sides=12)
    assert a == b


def test_streams_of_other_games_keep_their_start():
    """King of Tokyo's stored logs began from its own salt: a different salt is a different stream."""
    from engine.kingoftokyo import state as kot

    assert kot.seed_state(5) == rng.seed_state(5, kot.SALT) != rng.seed_state(5)


def test_shuffle_is_a_permutation_drawn_from_the_stream():
    s = {"rng": rng.seed_state(3)}
    deck = list(range(20))
    shuffled = rng.shuffle(s, deck)
    assert sorted(shuffled) == deck and shuffled != deck and deck == list(range(20))
