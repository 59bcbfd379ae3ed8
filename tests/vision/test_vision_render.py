"""The renderer: deterministic frames, both mounts, truth that matches what is drawn."""

from __future__ import annotations

import numpy as np
import pytest
from vision_specs import SYMBOLS

from vision.dicesets import get_set
from vision.render import DieSpec, Hand, ground_truth, random_dice, render_tray


def test_deterministic_for_a_seed_and_noise_varies_with_it():
    dice = [DieSpec(200, 200, 60, 15, 3), DieSpec(400, 260, 50, 40, 6, colour="red")]
    a = render_tray(dice, mount="over", background="wood", seed=7)
    b = render_tray(dice, mount="over", background="wood", seed=7)
    c = render_tray(dice, mount="over", background="wood", seed=8)
    assert a.shape == (480, 640, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("mount", ["over", "under"])
@pytest.mark.parametrize("lighting", ["neutral", "warm", "cold", "dim", "glare"])
def test_every_mount_and_lighting_draws_the_dice(mount, lighting):
    dice = [DieSpec(320, 240, 80, 0, 5, colour="white")]
    empty = render_tray([], mount=mount, lighting=lighting, seed=1)
    frame = render_tray(dice, mount=mount, lighting=lighting, seed=1)
    diff = np.abs(frame.astype(int) - empty.astype(int)).sum(2)
    assert diff[200:280, 280:360].mean() > 30      # the die is there
    assert diff[:100, :100].mean() < 3              # the rest of the tray is untouched


def test_under_mount_truth_is_the_top_face_and_the_glass_face_is_its_opposite():
    dice = [DieSpec(100, 100, 50, 0, 2), DieSpec(300, 100, 50, 0, 6)]
    gt = ground_truth(dice, "under")
    assert [g["value"] for g in gt] == [2, 6]
    assert [g["seen_index"] for g in gt] == [5, 1]
    assert [g["seen_index"] for g in ground_truth(dice, "over")] == [2, 6]


def test_icon_sets_and_sizes_render_with_a_hand_and_custom_background():
    ds = get_set(SYMBOLS)
    dice = [DieSpec(80 + 90 * i, 200, 25 + 30 * i, 10 * i, i + 1, SYMBOLS, "black") for i in range(ds.n)]
    frame = render_tray(dice, mount="over", background=(30, 90, 30), hand=Hand(500, 400, 150), seed=3)
    assert frame.shape == (480, 640, 3)
    frame2 = render_tray(dice, mount="over", background=(30, 90, 30), hand=(500, 400), seed=3, width=320,
                         height=240)
    assert frame2.shape == (240, 320, 3)


def test_random_dice_do_not_overlap():
    rng = np.random.default_rng(0)
    dice = random_dice(rng, 20, size=(30, 45))
    assert len(dice) == 20
    for i, a in enumerate(dice):
        for b in dice[i + 1:]:
            assert np.hypot(a.x - b.x, a.y - b.y) > 0.75 * (a.size + b.size)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError):
        render_tray([], mount="sideways")
    with pytest.raises(ValueError):
        render_tray([], lighting="disco")
