"""The pip finder's fast parts give what the plain numpy/OpenCV ways give (vision/pips.py): they were written for
speed (a photo checks some 550 pip candidates), and a reading must not change with them (issue 31 #7)."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vision.pips import _dark_component, _face_level, _median_u8, _percentile90, _std_u8

masks = st.integers(3, 40).flatmap(
    lambda side: arrays(np.uint8, (side, side), elements=st.sampled_from([0, 255])))
patches = st.integers(1, 60).flatmap(lambda side: arrays(np.uint8, (side, side)))
values = arrays(np.uint8, st.integers(1, 300))


def labelled_component(bw: np.ndarray, cx: int, cy: int, reach: float):
    """The component at (cx, cy), else the nearest centroid's within `reach`, by labelling every component."""
    n, labels, stats, cents = cv2.connectedComponentsWithStats(bw, connectivity=8)
    k = labels[cy, cx]
    if k == 0:
        near = [(float(np.sum((cents[i] - (cx, cy)) ** 2)), i) for i in range(1, n)]
        if not near or min(near)[0] > reach ** 2:
            return None
        k = min(near)[1]
    return (labels == k).astype(np.uint8), tuple(stats[k][:4].tolist()), int(stats[k][4])


@settings(max_examples=300, deadline=None)
@given(masks, st.data())
def test_the_dark_component_is_the_one_labelling_every_component_finds(bw: np.ndarray, data) -> None:
    """A flood fill from the centre (8-connected, as the labels were), or the nearest component when the centre
    is light: the same pixels, box and area."""
    cx = data.draw(st.integers(0, bw.shape[1] - 1))
    cy = data.draw(st.integers(0, bw.shape[0] - 1))
    got, want = _dark_component(bw, cx, cy, 6.0), labelled_component(bw, cx, cy, 6.0)
    assert (got is None) == (want is None)
    if got is not None:
        assert np.array_equal(got[0], want[0]) and tuple(got[1]) == want[1] and got[2] == want[2]


def test_a_diagonal_step_joins_the_component() -> None:
    """Pips are 8-connected: a one-pixel diagonal neck is the same blob (a 4-connected fill would stop there)."""
    bw = np.zeros((9, 9), np.uint8)
    bw[2:4, 2:4] = 255
    bw[4, 4] = 255
    bw[5:7, 5:7] = 255
    comp, box, area = _dark_component(bw, 3, 3, 2.0)
    assert box == (2, 2, 5, 5) and area == 9 and comp[6, 6] == 1


@settings(max_examples=300, deadline=None)
@given(patches)
def test_the_face_level_is_the_patchs_75th_value_by_rank(patch: np.ndarray) -> None:
    """Every other pixel of a patch over 400, sorted, at three quarters of the way."""
    sub = patch[::2, ::2] if patch.size > 400 else patch
    assert _face_level(patch) == float(np.sort(sub.ravel())[int(sub.size * 0.75)])


@settings(max_examples=300, deadline=None)
@given(values)
def test_the_short_statistics_are_numpys(v: np.ndarray) -> None:
    """The median exactly; the spread to a hundred-thousandth (OpenCV's one pass, E[x^2] - E[x]^2, leaves a
    few millionths on an even ring; a pip's ring is judged against 0.3 of a contrast of 18 or more, plus 4)."""
    assert _median_u8(v) == float(np.median(v))
    assert abs(_std_u8(v) - float(np.std(v.astype(np.float64)))) < 1e-5
    f = v.astype(np.float32)
    assert abs(_percentile90(f) - float(np.percentile(f, 90))) < 1e-4
