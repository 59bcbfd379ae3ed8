"""The leaning-die probe's pieces (training/tilt_probe.py). torch is a training extra, not in CI's venv: skipped
there; run where `.[train]` is installed."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")


def test_crops_are_normalised_each_by_its_own_light_and_read_to_one_logit():
    """Each crop is divided by its own spread (a lamp's brightness says nothing of a lean), and the network
    gives one score per crop, the mean of its four quarter turns."""
    from training import tilt_probe as tp

    rng = np.random.default_rng(0)
    x = rng.integers(0, 255, (6, tp.SIZE, tp.SIZE, 3)).astype(np.uint8)
    t = tp.as_input(x)
    assert t.shape == (6, 3, tp.SIZE, tp.SIZE)
    assert torch.allclose(t.flatten(1).mean(1), torch.zeros(6), atol=1e-4)
    brighter = tp.as_input(np.clip(x.astype(np.int32) // 2 + 60, 0, 255).astype(np.uint8))
    assert torch.allclose(brighter, t, atol=0.05)
    torch.manual_seed(0)
    s = tp.scores(tp.network(), x)
    assert s.shape == (6,) and np.isfinite(s).all()


def test_the_probe_learns_a_lean_it_can_see():
    """Trained on crops whose class shows (a bright strip down one side for "leaning"), the probe tells held-out
    crops apart: its AUC is near 1, so a near-chance AUC on renders is the renders' doing."""
    from training import tilt_probe as tp

    rng = np.random.default_rng(1)

    def drawn(n: int) -> tuple[np.ndarray, np.ndarray]:
        x = rng.integers(60, 120, (n, tp.SIZE, tp.SIZE, 3)).astype(np.uint8)
        y = (rng.random(n) < 0.3).astype(np.int64)
        x[y == 1, :, :6] = 230
        return x, y

    x, y = drawn(400)
    net = tp.train(x, y, epochs=6, seed=3)
    tx, ty = drawn(200)
    assert tp.auc(tp.scores(net, tx), ty) > 0.9


def test_the_auc_counts_pairs_and_halves_ties():
    """AUC: of the (leaning, flat) pairs, the share where the leaning die scores higher, a tie half."""
    from training import tilt_probe as tp

    y = np.array([1, 1, 0, 0])
    assert tp.auc(np.array([3.0, 2.0, 1.0, 0.0]), y) == 1.0
    assert tp.auc(np.array([0.0, 1.0, 2.0, 3.0]), y) == 0.0
    assert tp.auc(np.array([1.0, 1.0, 1.0, 0.0]), y) == 0.75
