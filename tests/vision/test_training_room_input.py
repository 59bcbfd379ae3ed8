"""The room-input experiment's training draws (training/room_input.py). torch is a training extra, not in CI's
install: these run where training runs, and are skipped elsewhere."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from training import room_input  # noqa: E402


def _batch(seed: int, n: int = 6) -> tuple:
    rng = np.random.default_rng(seed)
    frame = rng.integers(0, 256, (n, 3, room_input.CANVAS, room_input.CANVAS), dtype=np.uint8)
    room = rng.integers(0, 256, frame.shape, dtype=np.uint8)
    y = torch.from_numpy(rng.integers(0, 6, n))
    return torch.from_numpy(frame), torch.from_numpy(room), y


def test_the_room_is_cut_turned_and_lit_as_its_frame_with_noise_of_its_own():
    """A die's crop and its empty tray's crop are one camera's pictures of one place: the training draws one
    turn, shift, gain, channel order, inversion and "not a die" for both, and each picture's own noise (the
    same noise in both would let a network learn to subtract it, which no camera allows)."""
    frame, _, y = _batch(1, n=64)
    x, _ = room_input.augmented(torch.cat([frame, frame], 1), y, "room", room_input.SETUP,
                                torch.Generator().manual_seed(5))
    assert x.shape[1] == 6
    apart = (x[:, :3] - x[:, 3:]).abs().flatten(1).mean(1)
    assert (apart < 0.5).all() and float(apart.median()) < 0.1   # the same picture, but for the noise
    assert (apart > 0.01).sum() >= 16    # about half the batch is drawn noisy, each picture its own


def test_the_frame_arm_sees_three_channels_and_the_room_arm_six():
    frame, room, y = _batch(2)
    pair = torch.cat([frame, room], 1)
    with_room, _ = room_input.augmented(pair, y, "room", room_input.SETUP, torch.Generator().manual_seed(9))
    alone, _ = room_input.augmented(pair, y, "frame", room_input.SETUP, torch.Generator().manual_seed(9))
    assert with_room.shape[1] == 6 and alone.shape[1] == 3


def test_the_level_keeps_the_wrong_and_certain_within_the_share_asked():
    p = np.array([[0.99, 0.01], [0.98, 0.02], [0.2, 0.8], [0.6, 0.4]])
    y = np.array([0, 1, 1, 0])
    level, sure_right = room_input.sure_right_at(p, y, silent=0.0)
    assert level == pytest.approx(0.99) and sure_right == pytest.approx(0.25)
    level, sure_right = room_input.sure_right_at(p, y, silent=0.25)
    assert level == pytest.approx(0.6) and sure_right == pytest.approx(0.75)


def test_a_share_of_the_frames_is_drawn_by_seed_and_index_alone():
    """The control for a held-out factor: as few frames, drawn at random, the same ones every run."""
    rows = [{"seed": s, "index": i} for s in range(2000, 2010) for i in range(40)]
    half = [room_input.drawn(r, 0.5) for r in rows]
    assert half == [room_input.drawn(r, 0.5) for r in rows]
    assert 0.4 < sum(half) / len(rows) < 0.6
    assert all(room_input.drawn(r, 1.0) for r in rows)
    assert room_input.held_out_tag("leds=*-green", 0.5) == "-without-leds-any-green-share-0.5"


def test_the_difference_picture_loses_what_the_plate_adds_to_both():
    """Arm "diff": light the plate mirrors into the frame and into its empty tray alike cancels."""
    rng = np.random.default_rng(4)
    frame = rng.integers(60, 180, (8, 8, 3), dtype=np.uint8)
    room = rng.integers(60, 180, (8, 8, 3), dtype=np.uint8)
    glare = rng.integers(0, 60, (8, 8, 3), dtype=np.uint8)
    plain = room_input.difference(frame, room)
    assert np.array_equal(room_input.difference(frame + glare, room + glare), plain)
    assert torch.equal(room_input.difference(torch.from_numpy(frame), torch.from_numpy(room)),
                       torch.from_numpy(plain))
