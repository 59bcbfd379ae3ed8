"""The learned finder's synthetic training scenes (`training/scenes.py`): many small dice, labelled where drawn."""

from __future__ import annotations

import numpy as np

from training.cubes import SCENE  # training only: not the package's
from training.scenes import scenes


def test_scenes_are_reproducible_and_hold_packed_small_dice_drawn_where_labelled():
    imgs, boxes = scenes(3, seed=0)
    first, first_boxes = scenes(1, seed=0)
    assert np.array_equal(imgs[0], first[0]) and np.array_equal(boxes[0], first_boxes[0])
    sides = np.concatenate([b[:, 2:].max(1) for b in boxes])
    assert max(len(b) for b in boxes) >= 10          # packed rows and heaps
    assert (sides < 25).sum() >= 10                  # small dice (before the finder halves the scene)
    for img, b in zip(imgs, boxes, strict=True):
        assert img.shape == (SCENE, SCENE, 3) and img.dtype == np.uint8
        assert b.shape[1] == 4 and (b[:, 2:] > 2).all()
        assert (b[:, 0] - b[:, 2] / 2 >= -1).all() and (b[:, 0] + b[:, 2] / 2 <= SCENE + 1).all()
        assert (b[:, 1] - b[:, 3] / 2 >= -1).all() and (b[:, 1] + b[:, 3] / 2 <= SCENE + 1).all()
        # a die is drawn in each box: its middle differs from the floor along the scene's edges
        edge = np.concatenate([img[:4].reshape(-1, 3), img[-4:].reshape(-1, 3)]).astype(np.float32)
        for cx, cy, w, h in b[:3]:
            mid = img[int(cy - h / 4):int(cy + h / 4) + 1, int(cx - w / 4):int(cx + w / 4) + 1].astype(np.float32)
            assert (np.abs(mid.reshape(-1, 3).mean(0) - edge.mean(0)).max() > 3 or mid.std() > edge.std() + 3)
