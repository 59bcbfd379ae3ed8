"""Icon and numeral faces under the tray, read with the box's learned background: the cases that were wrong or
unsure on the render bench (bench/vision_accuracy.py) and what each fix does to them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from vision_specs import NUMERALS12, SIX_OPPOSITE, SYMBOLS

from device.dice_sets import spec
from vision.decide import one_reading_per_die
from vision.dicesets import get_set
from vision.faces import FaceReader
from vision.outline import Outline, pentagon_angle, snap_pentagon, snap_square
from vision.reader import find_dice, read_dice
from vision.reading import Reading
from vision.render import DieSpec, ground_truth, random_dice, render_tray
from vision.scoring import score

CLAWS = {"id": "test-claws", "name": {"en": "Claws"}, "kind": "icons", "shape": "square",
         "faces": [{"index": i, "name": n, "value": i, "glyph": g} for i, (n, g) in enumerate(
             [("claw", "icon:claw+corner:1"), ("claw", "icon:claw+corner:2"), ("claw", "icon:claw+corner:3"),
              ("heart", "icon:heart+corner:4"), ("heart", "icon:heart+corner:5"), ("star", "icon:star+corner:6")],
             start=1)],
         "opposite": SIX_OPPOSITE}


def under(dice: list[DieSpec], room: int, lighting: str = "neutral") -> tuple[np.ndarray, np.ndarray]:
    """A frame under the tray and the empty frame the box learns of the same room."""
    return (render_tray(dice, mount="under", lighting=lighting, seed=room, room_seed=room),
            render_tray([], mount="under", lighting=lighting, seed=room + 7919, room_seed=room))


def test_digits_alone_on_a_face_are_told_apart_at_a_higher_resolution():
    """A 1, a 2 and a 3 drawn alone on a face are, at the symbol match's 48 px and blur, blobs of one size
    (their templates correlate 0.88-0.90): King of Tokyo's heart (a 3 on the glass) was read as an energy
    (a 1), unsure, and most small digit faces were unsure. Compared again at 64 px they are right and
    certain (main: 9 of these 10 dice of 31-40 px right, 4 certain)."""
    # tops 4, 5, 6 lie on the glass as the 1, the 2 and the 3
    poses = [(36.8, 167.0), (32.2, 230.7), (31.1, 249.2), (36.4, 135.5), (38.0, 69.8), (33.9, 287.3), (33.8, 256.8),
             (36.1, 338.8), (39.9, 260.5), (38.1, 55.0)]
    colours = ["green", "black", "white", "green", "red", "green", "blue", "yellow", "green", "black"]
    dice = [DieSpec(80 + 120 * (i % 5), 110 + 150 * (i // 5), size, angle, 4 + i % 3, SYMBOLS, colour)
            for i, ((size, angle), colour) in enumerate(zip(poses, colours, strict=True))]
    frame, empty = under(dice, 19)
    s = score(ground_truth(dice, "under"), read_dice(frame, SYMBOLS, "under", background=empty), radius=30)
    assert s.correct == len(dice) and s.silent == 0
    assert s.right_certain >= len(dice) - 1


def test_a_bright_dies_outline_grown_by_the_room_is_cut_back_to_its_own_sides():
    """A bright die over a dark room: the learned background's difference spreads past its sides and its
    blob is 1.1-1.2 times the face, so the templates met its ink too small. The face's own edges give its
    side back (to a few percent), at the blob's turn and centre."""
    die = DieSpec(320.0, 240.0, 36.0, 160.5, 2, SYMBOLS, "green")
    frame, _ = under([die], 2)
    side = snap_square(frame, 320.0, 240.0, 1.18 * 36.0, 160.5 - 180.0)
    assert side is not None and abs(side[2] / 36.0 - 1.0) < 0.09
    assert math.hypot(side[0] - 320.0, side[1] - 240.0) < 1.0


def test_a_symbol_reaching_towards_a_side_is_no_side():
    """A black die whose sword reaches to within a tenth of its sides: its blob is a little smaller than the
    face, and the sword's white ends are stronger edges than the die's own dark outline. A side is an edge
    across most of the face's middle lines, which a blade's end is not."""
    die = DieSpec(300.0, 200.0, 54.0, 111.0, 1, CLAWS | {"faces": [
        {"index": i, "name": "sword", "value": i, "glyph": f"icon:sword+corner:{i}"} for i in range(1, 7)]}, "black")
    frame, _ = under([die], 8)
    side = snap_square(frame, 300.0, 200.0, 0.93 * 54.0, 111.0 - 90.0)
    assert side is not None and side[2] > 0.92 * 54.0  # (the blade's ends would make it 0.76)


def test_a_d12s_outline_grown_by_the_room_is_cut_back_to_its_five_sides():
    """The d12 alike: a small green d12 (a 5 on the glass) was read as a 10 by both its templates and the
    numeral CNN from a blob 1.14 times its face. Its five sides give its size back, and it reads right."""
    die = DieSpec(466.0, 153.0, 33.0, 132.7, 8, NUMERALS12, "green")
    frame, empty = under([die], 31)
    (blob,) = find_dice(frame, "under", empty)
    fit = snap_pentagon(frame, 466.0, 153.0, 1.14 * 33.0, pentagon_angle(blob.contour, 466.0, 153.0))
    assert fit is not None and abs(fit[2] / 33.0 - 1.0) < 0.06
    (r,) = read_dice(frame, NUMERALS12, "under", background=empty)
    assert r.value == 8


@pytest.mark.parametrize("turn", [0.0, 90.0, 180.0, 270.0])
@pytest.mark.parametrize("shift", [-3.0, 3.0])
def test_a_symbol_alike_half_a_turn_round_leaves_its_turn_to_the_number(turn, shift):
    """A claw's three slanted strokes half a turn round are the same strokes a little aside: with the die's
    centre found 3 px off, the symbol match named the wrong turn, the corner number was looked for in the
    wrong corner, and a claw's stroke there was read as a 1, certain. Both turns are compared, and the
    corner whose whole window fits names the number: the face is right, whichever way the centre is off.
    (The scene is the mirror image of the one first drawn, when faces on the glass were drawn mirrored: the
    same face in the frame as then, `glyphs.GLASS_MIRRORS`.)"""
    angle = -(turn + 4.7)
    die = DieSpec(300.0, 220.0, 60.0, angle, 5, CLAWS, "purple")  # the claw with a 2 on the glass
    frame, empty = under([die], 18, "dim")
    side = 60.0
    cx, cy = 300.0 - shift, 220.0 - 0.5 * shift
    sq = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32) * side / 2
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
    pts = np.round(sq @ rot.T + [cx, cy]).astype(np.int32).reshape(-1, 1, 2)
    outline = Outline(pts, ((cx, cy), (side, side), angle - 90.0), 0.93 * side * side, 1.0,
                      (int(cx - 35), int(cy - 35), 70, 70))
    r = FaceReader(get_set(CLAWS), "under").read(frame, None, outline, side, empty)
    assert r is not None and r.value == 5  # (before: half of these read as the 4, unsure)


def test_a_big_dark_die_found_as_its_number_alone_is_found_whole():
    """An 87 px black die in a dark room, half of it against a lamp's glow as grey as its body: the frame's
    foreground finds its white number only (a 24 x 32 px blob), too small for any edge search to reach its
    sides. The learned room, compared at full resolution with the window's own noise, gives its whole face
    back, and it is read right and certain, once."""
    # the energy on top, the plain 1 on the glass (as on a King of Tokyo die)
    die = DieSpec(491.6, 124.1, 87.1, 108.5, 4, SYMBOLS, "black")
    frame, empty = under([die], 38, "dim")
    (r,) = read_dice(frame, SYMBOLS, "under", background=empty)
    assert r.face == "energy" and r.certain
    assert math.hypot(r.center[0] - die.x, r.center[1] - die.y) < 0.08 * die.size


def test_two_readings_of_one_die_are_one():
    """Two blobs of one big die, each read whole, are one die for the game: the surer reading stays; two
    certain readings that disagree leave it uncertain."""
    a = Reading(2, "2", "black", 0.9, (100.0, 100.0), (60, 60, 80, 80), True)
    b = Reading(2, "2", "black", 0.7, (104.0, 98.0), (66, 60, 76, 76), True)
    far = Reading(3, "3", "black", 0.9, (200.0, 100.0), (160, 60, 80, 80), True)
    assert one_reading_per_die([b, a, far]) == [a, far]
    c = Reading(3, "3", "black", 0.8, (102.0, 101.0), (62, 61, 80, 80), True)
    (merged,) = one_reading_per_die([a, c])
    assert merged.value == 2 and not merged.certain


BURSTS = {"id": "test-bursts", "name": {"en": "Blanks, numbers, starbursts"}, "kind": "icons", "shape": "square",
          "faces": [{"index": i, "name": n, "value": v, "glyph": g} for i, (n, v, g) in enumerate(
              [("blank", 0, "blank"), ("blank", 0, "blank"), ("1", 1, "text:1"), ("2", 2, "text:2"),
               ("1*", 1, "icon:starburst+text:1"), ("2*", 2, "icon:starburst+text:2")], start=1)],
          "opposite": SIX_OPPOSITE}


@pytest.mark.parametrize("x, y, size, angle, top, room, lighting", [
    (407.7, 355.8, 32.7, 14.5, 2, 18, "dim"), (369.2, 115.5, 36.6, 334.5, 2, 23, "dim"),
    (142.8, 56.7, 35.0, 79.8, 1, 20, "neutral"), (561.4, 341.2, 33.9, 315.4, 2, 12, "cold")])
def test_a_small_black_die_with_a_white_starburst_is_no_blur(x, y, size, angle, top, room, lighting):
    """A black die of 33-37 px in a dark room, a white starburst on the glass: its outline's step is the body's
    against the room, but the rim the finder took that step from (4 px deep) was half starburst on a die that
    small, so the outline looked too soft for its contrast and the die was dropped as a blur far above the
    glass (main: none of these four found). The rim's depth now follows the die's size."""
    die = DieSpec(x, y, size, angle, top, BURSTS, "black")  # a blank on top: the 1* or the 2* on the glass
    frame, empty = under([die], room, lighting)
    (r,) = read_dice(frame, BURSTS, "under", background=empty)
    assert r.face == "blank" and r.certain
    assert math.hypot(r.center[0] - x, r.center[1] - y) < 0.15 * size


DIGITS = {"id": "test-digits", "name": {"en": "Digits and symbols"}, "kind": "icons", "shape": "square",
          "faces": [{"index": i, "name": n, "value": v, "glyph": g} for i, (n, v, g) in enumerate(
              [("1", 1, "text:1"), ("2", 2, "text:2"), ("3", 3, "text:3"), ("heart", None, "icon:heart"),
               ("energy", None, "icon:energy"), ("claw", None, "icon:claw")], start=1)],
          "opposite": {"1": 5, "5": 1, "2": 6, "6": 2, "3": 4, "4": 3}, "colours": ["black", "green"]}
PLAIN12 = {**NUMERALS12, "id": "test-plain-d12",
           "faces": [{"index": i, "name": str(i), "value": i, "glyph": f"text:{i}"} for i in range(1, 13)]}
LIGHTS = ["neutral", "warm", "cold", "dim", "glare"]


def bench_frame(dice_set: dict, seed: int, i: int) -> tuple[list[DieSpec], np.ndarray, np.ndarray]:
    """Frame i of the render bench's frames of a seed under the tray, and its learned room, as
    bench/vision_accuracy.py's renders(..., learned=True) draws them (the dice of the frames before it are
    drawn from the same generator, not rendered)."""
    rng = np.random.default_rng(seed)
    for _ in range(i + 1):
        n = int(rng.integers(1, 7))
        dice = random_dice(rng, n, dice_set=dice_set, size=(30, 90), colours=dice_set.get("colours") or None)
    light = LIGHTS[i % len(LIGHTS)]
    return (dice, render_tray(dice, mount="under", lighting=light, seed=i, room_seed=i),
            render_tray([], mount="under", lighting=light, seed=i + 7919, room_seed=i))


@pytest.mark.parametrize("dice_set, seed, i, at, face", [
    (DIGITS, 3, 38, (540, 89), "1"),       # a black die by the frame's top edge: its refit window ran off it
    (DIGITS, 6, 23, (90, 237), "energy"),  # a 1 among look-alike digits, its centre 3 px off: never compared
    (PLAIN12, 21, 38, (418, 398), "12"),   # a black d12 whose far vertex was lost: read on its refit pentagon
    (BURSTS, 1, 13, (375, 146), "blank"),  # a small black die's starburst taken for its sides
])
def test_dice_the_render_bench_read_wrong_are_right(dice_set, seed, i, at, face):
    """Dice of the render bench (under the tray, learned background) that were read wrong, each unsure
    (fce80bb: the first missed, the others read as a 2, an 11 and a 2): now right, and nothing in their frames
    is certain and wrong."""
    dice, frame, empty = bench_frame(dice_set, seed, i)
    readings = read_dice(frame, dice_set, "under", background=empty)
    (r,) = [r for r in readings if math.dist(r.center, at) < 15]
    assert r.face == face
    assert score(ground_truth(dice, "under"), readings, radius=30).silent == 0


@pytest.mark.parametrize("dice_set, seed, i, at, face", [
    (PLAIN12, 9, 16, (382, 72), "4"),      # a 31 px purple die: its glass 9 taken for a 4 at 0.74
    (NUMERALS12, 11, 6, (298, 67), "8"),   # a 39 px black die: its glass 5 taken for a 6 at 0.96
])
def test_d12_faces_the_whole_face_match_was_fairly_sure_of_are_compared_again(dice_set, seed, i, at, face):
    """d12 faces from below drawn as printed (glyphs.GLASS_MIRRORS): these dice came out certain and wrong
    from the 48 px whole-face match, which was left alone from 0.6 up. Every face it is not wholly sure of
    is now compared again at 64 px (faces.NUMERAL_DETAIL_BELOW), with a wider margin
    (NUMERAL_MARGIN_UNDER)."""
    dice, frame, empty = bench_frame(dice_set, seed, i)
    readings = read_dice(frame, dice_set, "under", background=empty)
    (r,) = [r for r in readings if math.dist(r.center, at) < 15]
    assert r.face == face
    assert score(ground_truth(dice, "under"), readings, radius=30).silent == 0


@pytest.mark.parametrize("pair, room", [
    (((514.7, 263.3, 89.0, 4), (497.4, 341.4, 3.2, 1)), 0),  # demo seed 7, throw 0: a 2 above a blank
    (((143.6, 262.7, 85.8, 6), (140.4, 337.1, 44.2, 6)), 3),  # throw 3: two starbursts, one off to the side
])
def test_two_white_dice_run_together_are_two(pair, room):
    """Two white 64 px dice a few pixels apart (bench/vision_demo.py, Mage Wars, seed 7) run together in the
    finder's mask. The watershed that parts them flooded one die's rim all round the other (OpenCV floods by
    the step between neighbours, and the rim is one flat ring), so the parts nested, the pair was refitted as
    one square and both dice were missed; now each pixel goes to its nearest core and each die is read."""
    dice = [DieSpec(x, y, 64, angle, top, BURSTS, "white") for x, y, angle, top in pair]
    frame, empty = under(dice, room)
    readings = read_dice(frame, BURSTS, "under", background=empty)
    for d in dice:
        near = [r for r in readings if math.dist(r.center, (d.x, d.y)) < 15]
        assert len(near) == 1
    assert score(ground_truth(dice, "under"), readings, radius=30).silent == 0


D6 = spec("d6")


def test_a_black_pip_die_whose_mask_is_a_hook_is_read_whole():
    """An 83 px black d6 on the dark floor (render bench, seed 51, frame 35): its mask is a hook of rim and
    pips, square outline but half filled, so find_dice parted it, into three slivers that are no die, and it was
    missed. A square outline parted into slivers only stays whole; the 3 is read."""
    dice, frame, empty = bench_frame(D6, 51, 35)
    readings = read_dice(frame, D6, "under", background=empty)
    (r,) = [r for r in readings if math.dist(r.center, (241, 195)) < 15]
    assert r.face == "3" and r.certain
    assert score(ground_truth(dice, "under"), readings, radius=30).silent == 0


def test_a_black_pip_die_parted_into_shapes_no_die_has_is_also_read_whole():
    """A 64 px black Regidice die on the dark floor (render bench, seed 6, frame 38): its square outline,
    half filled, was parted into three pieces none of which passes as a whole die (one 52x36 px, only half
    filling its rectangle), and the die was missed. Such a blob is also offered whole; the 1 is read there."""
    regidice = spec("regidice")
    dice, frame, empty = bench_frame(regidice, 6, 38)
    readings = read_dice(frame, regidice, "under", background=empty)
    (r,) = [r for r in readings if math.dist(r.center, (477, 324)) < 15]
    assert r.face == "1" and r.certain
    assert score(ground_truth(dice, "under"), readings, radius=30).silent == 0


@pytest.mark.parametrize("seed, i, at, face, certain", [
    # the half of a 48 px black die away from a lamp's glow found: refitted whole (the under-tray network of
    # 2026-11-26 morning named it an unsure 5, the one trained longer a certain 6: found, never certain and wrong)
    (1, 0, (295, 105), "6", None),
    (2, 22, (151, 152), "6", True),   # a 78 px black die split into a 71x47 part and a sliver: refitted whole
    (5, 19, (151, 313), "5", True),   # found whole; pips.onnx called its light 2 on the glass "not a die" (kept
    #                                   unsure from its crop count), the under-tray network (pips-under) names it
])
def test_black_regidice_dice_the_render_bench_missed_are_read(seed, i, at, face, certain):
    """Black Regidice dice under the tray with the learned room that the render bench missed (1 in 140 on
    seed 1, 7 of 876 on seeds 1-6, against an aim of 99.5%). A pip die's outline found only in part
    is refitted square from the background or its edges (`reader.refitted`), and a square outline filling
    its rectangle, with a crop count, is kept as a guess even where the CNN says "not a die" (`flat_die`):
    the page asks about it instead of the die going missing. `certain` None: certain or not, never wrong."""
    regidice = spec("regidice")
    dice, frame, empty = bench_frame(regidice, seed, i)
    readings = read_dice(frame, regidice, "under", background=empty)
    (r,) = [r for r in readings if math.dist(r.center, at) < 15]
    assert (certain is None or r.certain == certain) and (r.face == face or not r.certain)
    s = score(ground_truth(dice, "under"), readings, radius=30)
    assert s.silent == 0 and s.missed == 0


def test_glare_spots_under_the_tray_are_no_dice_before_the_room_is_learned():
    """Render bench frame (d6, seed 1, frame 4, "glare" light) read under the tray with no learned room: the
    lamp's reflections on the glass, light spots 8-10 px across that peak in their middle, were each read as a
    lone pip, an unsure 6 (five phantom dice in this frame, 39 on the seed). `finder.glare_spot` leaves them
    out; every die is still read."""
    dice, frame, _ = bench_frame(D6, 1, 4)
    readings = read_dice(frame, D6, "under")
    s = score(ground_truth(dice, "under"), readings, radius=30)
    assert s.phantom == 0 and s.missed == 0 and s.silent == 0 and s.correct == len(dice)
