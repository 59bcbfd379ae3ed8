"""The shipped networks give the same answers on the engine the reader loads them with (`vision/onnx_net.py`:
OpenCV 5's classic engine, chosen for speed) as on OpenCV's default engine."""

from __future__ import annotations

import numpy as np
import pytest

from vision.classify import MODELS
from vision.onnx_net import CLASSIC, load_net

SHAPES = {"pips": (5, 3, 32, 32), "numerals": (5, 3, 40, 40), "finder": (1, 3, 96, 128)}


def _answers(name: str, engine: int | None, batch: np.ndarray) -> dict[str, np.ndarray]:
    net = load_net(MODELS / f"{name}.onnx", engine)
    outs = net.getUnconnectedOutLayersNames()
    net.setInput(batch)
    return dict(zip(outs, net.forward(outs), strict=True))


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_classic_engine_answers_as_the_default_one(name: str) -> None:
    if CLASSIC is None:
        pytest.skip("this OpenCV has one engine only")
    batch = np.random.default_rng(1).normal(0.0, 1.0, SHAPES[name]).astype(np.float32)
    default, classic = _answers(name, None, batch), _answers(name, CLASSIC, batch)
    assert default.keys() == classic.keys()  # (in another order: the engines list outputs differently)
    for key, value in default.items():
        assert classic[key].shape == value.shape
        np.testing.assert_allclose(classic[key], value, rtol=1e-4, atol=1e-4)
