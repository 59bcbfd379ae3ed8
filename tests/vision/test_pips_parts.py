"""The pip finder's fast parts give what the plain numpy/OpenCV ways give (vision/pips.py): they were written
for speed (a photo checks some 550 pip candidates), and a reading must not change with them (issue 31 #7)."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vision.pips import _dark_component, _face_level, _median_u8, _percentile90, _std_u8, _suppress

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
    """A flood fill from the centre (8-connected, as the labels were), or the nearest component when the
    centre is light: the same pixels, box and area."""
    cx = data.draw(st.integers(0, bw.shape[1] - 1))
    cy = data.draw(st.integers(0, bw.shape[0] - 1))
    got, want = _dark_component(bw, cx, cy, 6.0), labelled_component(bw, cx, cy, 6.0)
    assert (got is None) == (want is None)
    if got is not None:
        assert np.array_equal(got[0], want[0]) and tuple(got[1]) == want[1] and got[2] == want[2]


def test_a_diagonal_step_joins_the_component() -> None:
    """Pips are 8-connected: a one-pixel diagonal neck is the same blob (a 4-connected fill stops there)."""
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
    """The median exactly; the spread to a hundred-thousandth (OpenCV's one pass, E[x^2] - E[x]^2, leaves
    a few millionths on an even ring; a pip's ring is judged against 0.3 of a contrast of 18 or more, plus
    4)."""
    assert _median_u8(v) == float(np.median(v))
    assert abs(_std_u8(v) - float(np.std(v.astype(np.float64)))) < 1e-5
    f = v.astype(np.float32)
    assert abs(_percentile90(f) - float(np.percentile(f, 90))) < 1e-4


def plainly_suppressed(X, Y, D, pos, max_n: int) -> list[int]:
    """The rule as written: strongest first, a candidate is dropped when a kept one of its polarity and a
    diameter within 2.1x of its own lies closer than 0.6 of the larger diameter."""
    kept: list[int] = []
    for i in range(len(X)):
        if not any(pos[i] == pos[k] and max(D[i], D[k]) < 2.1 * min(D[i], D[k])
                   and (X[i] - X[k]) ** 2 + (Y[i] - Y[k]) ** 2 < (0.6 * max(D[i], D[k])) ** 2 for k in kept):
            kept.append(i)
            if len(kept) >= max_n:
                break
    return kept


# crowded: a few dozen pixels a side, so that most candidates clash with some other
candidates = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 12), st.integers(0, 12),
                                st.sampled_from([3, 4, 6]), st.booleans()), max_size=120)


@settings(max_examples=300, deadline=None)
@given(candidates, st.integers(1, 150))
def test_suppression_keeps_what_the_plain_rule_keeps(cands, max_n: int) -> None:
    """Candidates at pyramid positions ((i + 0.5) * 2^level - 0.5, diameters 3-6 times 2^level), any order of
    strength: the pairs found first and walked after keep the same candidates as the rule pair by pair."""
    X = np.array([(x + 0.5) * 2 ** lv - 0.5 for lv, x, *_ in cands], np.float32)
    Y = np.array([(y + 0.5) * 2 ** lv - 0.5 for lv, _, y, *_ in cands], np.float32)
    D = np.array([d * 2 ** lv for lv, _, _, d, _ in cands], np.float32)
    pos = np.array([p for *_, p in cands], bool)
    assert _suppress(X, Y, D, pos, max_n) == plainly_suppressed(X, Y, D, pos, max_n)
