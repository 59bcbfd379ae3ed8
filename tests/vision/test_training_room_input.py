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


def test_the_room_is_cut_turned_and_lit_with_the_very_draws_of_its_frame():
    """A die's crop and its empty tray's crop are one camera's pictures of one place: whatever the training
    draws (turn, shift, gain, noise, channel order, inversion, "not a die"), it draws for both."""
    frame, _, y = _batch(1)
    x, _ = room_input.augmented(torch.cat([frame, frame], 1), y, "room", room_input.SETUP,
                                 torch.Generator().manual_seed(5))
    assert x.shape[1] == 6
    assert torch.equal(x[:, :3], x[:, 3:])


def test_the_frame_arm_sees_what_the_room_arm_sees_of_the_frame():
    """The arms differ in the room's channels only: the same samples, the same draws."""
    frame, room, y = _batch(2)
    pair = torch.cat([frame, room], 1)
    setup = room_input.SETUP
    with_room, y_room = room_input.augmented(pair, y, "room", setup, torch.Generator().manual_seed(9))
    alone, y_alone = room_input.augmented(pair, y, "frame", setup, torch.Generator().manual_seed(9))
    assert torch.equal(with_room[:, :3], alone) and torch.equal(y_room, y_alone)
    assert not torch.equal(with_room[:, 3:], alone)


def test_the_level_keeps_the_wrong_and_certain_within_the_share_asked():
    p = np.array([[0.99, 0.01], [0.98, 0.02], [0.2, 0.8], [0.6, 0.4]])
    y = np.array([0, 1, 1, 0])
    level, sure_right = room_input.sure_right_at(p, y, silent=0.0)
    assert level == pytest.approx(0.99) and sure_right == pytest.approx(0.25)
    level, sure_right = room_input.sure_right_at(p, y, silent=0.25)
    assert level == pytest.approx(0.6) and sure_right == pytest.approx(0.75)
