"""The finder: where the dice are in a still photo, before the classifier names their faces."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import find, pips
from vision.finder import glare_spot, pip_candidates
from vision.reader import missed_when_enlarged, read_dice
from vision.reading import Reading
from vision.render import DieSpec, render_tray


def _busy_board(dots: int, seed: int = 0) -> np.ndarray:
    """A 640x480 printed board strewn with dark dots (each a stronger pip-like blob than the die's own pips),
    and one white die showing 5 grey pips at (470, 240)."""
    rng = np.random.default_rng(seed)
    img = np.full((480, 640, 3), (170, 190, 200), np.uint8)
    for _ in range(dots):
        x, y = int(rng.integers(5, 635)), int(rng.integers(5, 475))
        if abs(x - 470) < 60 and abs(y - 240) < 60:
            continue
        cv2.circle(img, (x, y), 3, (20, 20, 20), -1)
    cv2.rectangle(img, (445, 215), (495, 265), (235, 235, 235), -1)
    for dx, dy in ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)):
        cv2.circle(img, (470 + 13 * dx, 240 + 13 * dy), 4, (120, 120, 120), -1)
    return img


def _die_found(img: np.ndarray) -> list[tuple[int | None, float]]:
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2Lab)
    return [(c.pips, max(c.box[2:])) for c in pip_candidates(lab)
            if abs(c.box[0] - 470) < 25 and abs(c.box[1] - 240) < 25]


def test_a_die_on_a_board_full_of_pip_like_dots_is_found_whole():
    # 150 dots stronger than the die's pips: a fixed budget of 160 candidates went to the dots
    found = _die_found(_busy_board(150))
    assert [pips for pips, _ in found] == [5]
    # the box holds the whole 51 px die (the classifier learnt whole dice), not just its pips
    assert 51 <= found[0][1] <= 1.4 * 51


def test_pip_budget_grows_with_the_frame_within_bounds():
    small, vga, big, huge = (pips.pip_budget(s) for s in ((120, 160), (480, 640), (960, 1280), (4000, 6000)))
    assert small == pips.MIN_CANDIDATES
    assert small < vga < big
    assert huge == pips.MAX_CANDIDATES


def test_under_the_tray_a_roomless_frame_is_searched_for_pips_only_with_no_learned_finder(monkeypatch):
    """`find.PIPS_UNDER`: from below the learned finder boxes the dice of a frame read without the room, and
    the pip finder's whole-frame search (half the read's cost, mostly the room's spots) is left out; with no
    learned finder, and from above, the pip finder still searches (docs/dice-sets.md, 20th session)."""
    searched: list[str] = []
    real = find.pip_candidates
    monkeypatch.setattr(find, "pip_candidates", lambda lab: searched.append("pips") or real(lab))
    die = [DieSpec(320, 240, 64, 10, 5, colour="white")]

    def read(mount: str, **kwargs) -> list[int]:
        searched.clear()
        return [r.value for r in read_dice(render_tray(die, mount=mount, seed=2), "d6", mount, **kwargs)]

    assert read("under") == [5] and searched == []
    assert read("under", detector=None) == [5] and searched
    assert read("over") == [5] and searched


def _reading(cx: float, cy: float, side: int, value: int = 3, certain: bool = True) -> Reading:
    return Reading(value, str(value), "white", 0.9, (cx, cy), (int(cx - side / 2), int(cy - side / 2), side, side),
                   certain)


def test_a_die_only_the_first_read_saw_is_kept_when_the_enlarged_read_wins():
    first = [_reading(100, 100, 30, 2), _reading(300, 200, 30, 5, certain=False)]
    zoomed = [_reading(150, 150, 45, 2)]  # the first die, found again at 1.5x; the second lost
    kept = missed_when_enlarged(first, zoomed, 1.5)
    assert len(kept) == 1
    k = kept[0]
    assert (k.value, k.certain) == (5, False)
    assert k.center == (450.0, 300.0)
    assert k.box == (428, 278, 45, 45)


def test_nothing_is_added_when_the_enlarged_read_covers_every_die():
    first = [_reading(100, 100, 30), _reading(300, 200, 30)]
    zoomed = [_reading(152, 148, 45), _reading(447, 303, 45)]
    assert missed_when_enlarged(first, zoomed, 1.5) == []


@pytest.mark.parametrize("profile, glare", [("disc", False), ("glow", True)])
def test_a_light_spot_that_peaks_in_its_middle_is_a_glare_not_a_pip(profile, glare):
    """A pip is a disc of one level with a sharp rim; a lamp's reflection peaks in its middle and fades out.
    The pip finder finds both as a lone light pip on a dark floor; `glare_spot` tells them apart."""
    yy, xx = np.mgrid[0:120, 0:120]
    d = np.hypot(xx - 60.0, yy - 60.0)
    spot = np.where(d < 8, 200.0, 0.0) if profile == "disc" else 200.0 * np.exp(-0.5 * (d / 5.0) ** 2)
    img = np.clip(30.0 + spot, 0, 255).astype(np.uint8)
    img = cv2.GaussianBlur(img, (0, 0), 0.7) if profile == "disc" else img
    lab = cv2.cvtColor(cv2.merge([img, img, img]), cv2.COLOR_BGR2Lab)
    faces = [f for f in pips.pip_dice(lab) if f.count == 1]
    assert faces, "the pip finder sees the spot"
    assert all(glare_spot(lab[..., 0], f) == glare for f in faces)
