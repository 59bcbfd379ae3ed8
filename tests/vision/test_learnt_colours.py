"""The colours of a table's own dice, learnt from confirmed rolls (vision.learnt_colours, issue 31 #5 and #6).

Under a green LED ring (each frame's channels scaled as the ring tints them) vision/render.py's Regidice dice
come out as every box names colours: yellow read green, black unsure. Taught the colours of three throws, the
reader names every die's colour right, and certain where its face is.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from device.dice_sets import spec
from device.learnt import Confirmed, LearntDice, confirmed_dice
from vision.dicesets import get_set
from vision.learnt_colours import MIN_PER_COLOUR, ColourModel, tint
from vision.memory import CROP_PAD, Memory, crop_die
from vision.reader import read_dice
from vision.reading import Reading
from vision.render import DieSpec, render_tray

REGIDICE = get_set(spec("regidice"))
COLOURS = ("red", "blue", "yellow", "black")
PLACES = [(110, 120), (250, 110), (390, 130), (530, 120), (120, 330), (260, 350), (400, 340), (530, 350)]
GREEN_RING = (0.55, 1.3, 0.7, 0.0)   # B, G, R gains of a green LED ring


def throw(seed: int) -> tuple[np.ndarray, list[DieSpec]]:
    """Eight Regidice dice of its four colours (in turn) seen from below under the green ring."""
    rng = np.random.default_rng(seed)
    dice = [DieSpec(x=x, y=y, size=64, angle=float(rng.uniform(0, 90)), value=int(rng.integers(1, 7)),
                    dice_set=REGIDICE, colour=COLOURS[i % len(COLOURS)]) for i, (x, y) in enumerate(PLACES)]
    img = render_tray(dice, mount="under", seed=seed, room_seed=3)
    return cv2.multiply(img, GREEN_RING, dtype=cv2.CV_8U), dice


def nearest(readings: list[Reading], d: DieSpec) -> Reading:
    return min(readings, key=lambda r: (r.center[0] - d.x) ** 2 + (r.center[1] - d.y) ** 2)


def taught(throws: int = 3) -> Memory:
    """A memory taught the colours (only: Regidice hides its faces) of the dice of `throws` throws."""
    memory = Memory(mount="under")
    for seed in range(1, throws + 1):
        img, dice = throw(seed)
        readings = read_dice(img, spec("regidice"), "under")
        for d in dice:
            r = nearest(readings, d)
            memory.add("regidice", crop_die(img, r.center, r.box), None, d.colour)
    return memory


@pytest.fixture(scope="module")
def every_colour() -> Memory:
    return taught()


def test_under_a_green_ring_the_learnt_colours_are_named_right_and_certain(every_colour: Memory) -> None:
    img, dice = throw(10)
    before = [nearest(read_dice(img, spec("regidice"), "under"), d) for d in dice]
    # yellow under the green ring has a green body, a colour Regidice has not: the set's nearest colour is
    # guessed (`faces.nearest_colour`), never sure
    assert {r.colour for r in before} <= set(spec("regidice")["colours"])
    assert not any(r.certain for r, d in zip(before, dice, strict=True) if d.colour in ("yellow", "black"))
    after = [nearest(read_dice(img, spec("regidice"), "under", memory=every_colour), d) for d in dice]
    assert [r.colour for r in after] == [d.colour for d in dice]
    assert all(r.certain for r, d in zip(after, dice, strict=True) if r.value == d.value)
    assert sum(r.certain for r in after) > sum(r.certain for r in before)


def test_the_model_needs_a_few_dice_of_a_colour_and_names_clear_near_and_covering() -> None:
    tints = np.array([[150.0, 150.0]] * MIN_PER_COLOUR + [[128.0, 100.0]] * (MIN_PER_COLOUR - 1))
    model = ColourModel.fit(["red"] * MIN_PER_COLOUR + ["blue"] * (MIN_PER_COLOUR - 1), tints)
    assert model is not None and model.names == ("red",)   # blue: one die short
    assert ColourModel.fit(["red"], np.array([[150.0, 150.0]])) is None
    two = ColourModel.fit(["red"] * 3 + ["blue"] * 3, np.array([[150.0, 150.0]] * 3 + [[128.0, 100.0]] * 3))
    red = two.name(np.array([151.0, 149.0]), ("red", "blue"))
    assert (red.colour, red.clear, red.near, red.covers) == ("red", True, True, True)
    assert not two.name(np.array([151.0, 149.0]), ("red", "blue", "yellow")).covers
    between = two.name(np.array([139.0, 125.0]), ("red", "blue"))
    assert not between.clear and not between.near   # halfway: neither
    assert not two.name(np.array([200.0, 60.0]), ("red", "blue")).near


def test_the_tint_is_the_middle_of_a_crop_cut_as_the_memory_cuts_it() -> None:
    crop = np.full((64, 64, 3), (40, 40, 200), np.uint8)   # a red body
    crop[:6] = crop[-6:] = (255, 255, 255)   # the room around the die, outside its middle
    lab = cv2.cvtColor(np.uint8([[[40, 40, 200]]]), cv2.COLOR_BGR2Lab)[0, 0, 1:]
    assert np.array_equal(tint(crop, CROP_PAD), lab.astype(float))


def test_a_forgotten_die_leaves_the_colours_learnt() -> None:
    memory = Memory(mount="under")
    crop = np.full((64, 64, 3), (40, 40, 200), np.uint8)
    keys = [memory.add("regidice", crop, None, "red") for _ in range(MIN_PER_COLOUR)]
    assert memory.colour_model("regidice").names == ("red",) and memory.counts("regidice") == {}
    memory.remove("regidice", keys[0])
    assert memory.colour_model("regidice") is None
    with pytest.raises(ValueError):
        memory.add("regidice", crop, None)   # neither a face nor a colour


def test_confirmed_dice_carry_the_colour_players_gave_where_the_set_has_it(tmp_path) -> None:
    crop = np.full((64, 64, 3), (40, 40, 200), np.uint8)
    got = confirmed_dice([("regidice", crop), ("regidice", crop), ("d6", crop)],
                         [{"value": 3, "colour": "red"}, {"value": 4, "colour": "purple"}, {"value": 2, "colour": "red"}],
                         [0, 1, 2])
    assert [(c.face, c.colour) for c in got] == [(3, "red"), (4, None), (2, None)]
    hidden = confirmed_dice([("regidice", crop)] * 2, [{"value": 3, "colour": "red"}, {"value": 4}], [0, 1],
                            faces=False)
    assert [(c.face, c.colour) for c in hidden] == [(None, "red")]   # a die with no colour teaches nothing
    box = LearntDice(tmp_path, "under")
    box.keep([Confirmed("regidice", crop, 3, None, "red")] * MIN_PER_COLOUR)
    again = LearntDice(tmp_path, "under")   # after a restart, from the card
    assert again.counts()["regidice"] == {"dice": 3, "faces": {"3": 3}, "colours": {"red": 3}}
    assert again.memory.colour_model("regidice").names == ("red",)


def _memory_of(tints: dict[str, tuple[int, int, int]]) -> Memory:
    """A memory taught MIN_PER_COLOUR dice of each colour, each a plain crop of that BGR body."""
    memory = Memory(mount="under")
    for colour, bgr in tints.items():
        for _ in range(MIN_PER_COLOUR):
            memory.add("regidice", np.full((64, 64, 3), bgr, np.uint8), None, colour)
    return memory


@pytest.mark.parametrize(("taught_colours", "body", "want"), [
    # every colour of the set learnt, the die clearly one of them: its colour, sure (whatever the hue's name)
    ({"red": (40, 40, 200), "blue": (200, 60, 40), "yellow": (60, 160, 40), "black": (30, 30, 30)}, (60, 160, 40),
     ("yellow", True)),
    # yellow learnt under a green light; red and blue too, not black: sure only where the hue's name agrees
    ({"red": (40, 40, 200), "blue": (200, 60, 40), "yellow": (60, 160, 40)}, (60, 160, 40), ("yellow", False)),
    ({"red": (40, 40, 200), "blue": (200, 60, 40), "yellow": (40, 200, 220)}, (40, 200, 220), ("yellow", True)),
    # every colour learnt and the die near none of them (a purple die): its colour is asked about, the set's
    # nearest colour its guess (`faces.nearest_colour`)
    ({"red": (40, 40, 200), "blue": (200, 60, 40), "yellow": (40, 200, 220), "black": (30, 30, 30)},
     (200, 40, 200), ("red", False)),
])
def test_a_die_s_colour_as_the_box_learnt_it(taught_colours, body, want) -> None:
    from vision.reader import die_colour
    img = np.full((120, 120, 3), body, np.uint8)
    got = die_colour(img, (60.0, 60.0, 50.0, 50.0), np.array(body, float), REGIDICE, "under", _memory_of(taught_colours))
    assert got == want
