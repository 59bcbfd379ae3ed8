"""The under-tray generator's plain-Python parts (training/blender_undertray_factors.py and the camera faults of
training/blender_undertray_canvases.py), without Blender: the frames are rendered outside the tests."""

from __future__ import annotations

import json
import math
import re

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from training import blender_undertray_canvases as uc
from training import blender_undertray_factors as fx
from training.provenance import REPO


def test_the_same_seed_and_index_draw_the_same_frame_and_others_differ():
    a, b = fx.draw_frame(3, 7), fx.draw_frame(3, 7)
    assert a == b
    assert fx.draw_frame(3, 8) != a and fx.draw_frame(4, 7) != a


def test_the_empty_tray_is_the_same_scene_without_dice():
    full, empty = fx.draw_frame(5, 2), fx.draw_frame(5, 2, empty=True)
    assert empty.dice == [] and full.dice
    assert {k: v for k, v in vars(empty).items() if k != "dice"} == {k: v for k, v in vars(full).items() if k != "dice"}


def test_a_table_throws_its_own_six_dice_again_and_again_in_one_box():
    """Issue 31 #5: learning from a box's confirmed throws is judged on later throws of the same dice in the same
    box, so a table seed keeps the box and the dice and draws only the throw anew."""
    seed = fx.TABLE_SEEDS + 3
    throws = [fx.draw_frame(seed, i) for i in range(40)]
    box = {k: v for k, v in vars(throws[0]).items() if k not in ("index", "dice", "hand", "exposure")}
    assert all({k: v for k, v in vars(t).items() if k not in ("index", "dice", "hand", "exposure")} == box
               for t in throws)
    assert all(t.scene_index == 0 and abs(t.exposure - throws[0].exposure) <= 0.3 for t in throws)
    owned = fx.table_dice(seed)
    assert all(sum(1 for d in t.dice if (d.colour, d.material) == kind) <= owned.count(kind)
               for t in throws for kind in set(owned))
    assert len({tuple((d.x, d.top) for d in t.dice) for t in throws}) == 40   # every throw its own
    assert {d.top for t in throws for d in t.dice} == set(range(1, 7))
    assert fx.draw_frame(seed, 5, empty=True).dice == [] and fx.draw_frame(5, 0).look is None


def test_the_tables_are_never_trained_on_unless_asked(tmp_path):
    from training import undertray_data as ud
    for seed in (4, fx.TABLE_SEEDS, fx.TABLE_SEEDS + 1):
        (tmp_path / f"s{seed}").mkdir()
        (tmp_path / f"s{seed}" / "labels.jsonl").write_text("")
    assert [f.name for f in ud.folders(ud.TRAIN_SEEDS, root=tmp_path)] == ["s4"]
    assert len(ud.folders(ud.TRAIN_SEEDS, root=tmp_path, tables=True)) == 3


def test_the_glass_face_is_opposite_the_top_face():
    assert all(fx.Die(0, 0, 0, top, "red", "opaque").glass == 7 - top for top in range(1, 7))


def test_dice_never_overlap_and_touching_dice_are_turned_as_their_neighbour():
    for i in range(200):
        f = fx.draw_frame(1, i)
        for a in f.dice:
            for b in f.dice:
                if a is not b and not (a.tilted or b.tilted):
                    assert math.dist((a.x, a.y), (b.x, b.y)) > 1.9
    touching = [d for i in range(200) for d in fx.draw_frame(1, i).dice if d.touching]
    assert len(touching) > 50


def test_every_factor_group_is_drawn_over_many_frames():
    frames = [fx.draw_frame(2, i) for i in range(300)]
    assert {f.plate for f in frames} == set(fx.PLATES)
    assert {b for f in frames for b in f.builds} == set(fx.BUILDS[1:])
    assert {d.material for f in frames for d in f.dice} == set(fx.MATERIALS)
    assert any(f.led_radius > 4 for f in frames if "leds-outside-cone" in f.builds)


def test_a_label_row_names_both_faces_the_factors_and_leaves_cut_dice_out(tmp_path):
    f = fx.draw_frame(1, 0)
    boxes = [[100.0 + 10 * k, 80.0, 40.0, 42.0] for k in range(len(f.dice))]
    boxes[0] = None
    row = fx.label_row(f, "frame_00000.png", boxes, "empty_00000.png")
    assert row["cut"] == 1 and len(row["dice"]) == len(f.dice) - 1
    d = row["dice"][0]
    assert d["glass"] + d["top"] == 7 and d["center"] == d["box"][:2]
    assert set(row["factors"]) >= {"plate", "leds", "room", "pips", "build", "materials"}
    (tmp_path / "labels.jsonl").write_text(json.dumps(row) + "\n")
    assert fx.read_rows(tmp_path) == [json.loads(json.dumps(row))]


def test_camera_faults_are_seeded_and_the_canvases_are_the_glass_faces(tmp_path):
    img = np.full((240, 320, 3), 120, np.uint8)
    cv2.rectangle(img, (80, 60), (120, 100), (240, 240, 240), -1)
    cv2.imwrite(str(tmp_path / "frame_00000.png"), img)
    f = fx.draw_frame(1, 0)
    row = fx.label_row(f, "frame_00000.png", [[100.0, 80.0, 40.0, 40.0]] * len(f.dice), None)
    (tmp_path / "labels.jsonl").write_text(json.dumps(row) + "\n")
    a, b = uc.camera_frame(tmp_path, row), uc.camera_frame(tmp_path, row)
    assert np.array_equal(a, b) and a.shape == img.shape
    # a later look at the still tray (the watcher's votes): the same scene, its own noise, as seeded
    later = uc.camera_frame(tmp_path, row, look=1)
    assert np.array_equal(later, uc.camera_frame(tmp_path, row, look=1)) and not np.array_equal(a, later)
    assert np.abs(later.astype(int) - a.astype(int)).mean() < 3 * row["draws"]["noise"]
    assert uc.camera_frame(tmp_path, row, empty=True) is None
    x, y = uc.undertray_canvases([tmp_path], 48)
    assert x.shape == (len(f.dice), 48, 48, 3) and y.tolist() == [d.glass - 1 for d in f.dice]


def test_leds_outside_the_cone_are_mirrored_beyond_the_frames_corner():
    f = next(f for f in (fx.draw_frame(6, i) for i in range(200)) if "leds-outside-cone" in f.builds)
    angle = math.atan(f.led_radius / (2 * f.distance))
    half_diagonal = math.atan(math.hypot(fx.SENSOR_MM, 0.75 * fx.SENSOR_MM) / 2 / f.lens_mm)
    assert angle > half_diagonal


def test_a_held_out_factor_matches_by_prefix_wildcard_and_list_item():
    from training import undertray_data as ud
    row = {"factors": {"plate": "glass-4mm", "leds": "8-green", "materials": ["marbled", "translucent"]}}
    assert ud.factor_matches(row, "plate=glass") and not ud.factor_matches(row, "plate=acrylic")
    assert ud.factor_matches(row, "leds=*-green") and not ud.factor_matches(row, "leds=*-white")
    assert ud.factor_matches(row, "materials=translucent") and not ud.factor_matches(row, "materials=opaque")


def _make_default(variable: str) -> str:
    """The Makefile's default value of `variable` (`VAR ?= value`)."""
    return re.search(rf"^{variable} \?= (\S+)", (REPO / "Makefile").read_text(), re.M).group(1)


def test_the_under_tray_test_seeds_are_never_among_the_training_seeds():
    from training import undertray_data as ud
    from training.blender_canvases import seed_list
    held_out = set(seed_list(ud.HELD_OUT_SEEDS))
    fresh = f"{ud.TEST_SEEDS},{ud.FRESH_SEEDS},{ud.FRESH_CLEAN_SEEDS},{ud.FRESH_MORE_SEEDS}"
    assert set(seed_list(fresh)) <= held_out
    assert not held_out & set(seed_list(ud.TRAIN_SEEDS))
    # the judge seeds read since the 51st session (1100 and up) are held out; 2000 and up are d6 to train on
    assert {1103, 1144, 1999} <= held_out and {2000, 2999} <= set(seed_list(ud.TRAIN_SEEDS))
    assert fx.seed_kind(2000) == "d6" and fx.seed_kind(1144) == "d6"
    # nor does `make train-reader-undertray` take them by default; fresh tables are tables (never trained on)
    assert not held_out & set(seed_list(_make_default("UNDERTRAY_TRAIN_SEEDS")))
    assert all(ud.is_table(s) for s in seed_list(ud.FRESH_TABLES))
    # King of Tokyo's test and measure seeds: neither trained nor refitted on by default
    kept_out = set(seed_list(ud.SYMBOL_HELD_OUT_SEEDS)) | set(seed_list(ud.SYMBOL_MEASURE_SEEDS))
    assert set(seed_list(ud.SYMBOL_TEST_SEEDS)) | set(seed_list(ud.FRESH_SYMBOL_SEEDS)) <= kept_out
    assert not kept_out & set(seed_list(ud.SYMBOL_TRAIN_SEEDS))
    assert not kept_out & set(seed_list(_make_default("SYMBOL_TRAIN_SEEDS")))
    with pytest.raises(SystemExit):   # nor is a level fitted on them
        ud.refuse_measure_seeds(ud.FRESH_SYMBOL_SEEDS)
    assert 0 < sum(ud.is_calibration({"index": i}) for i in range(20)) < 20


def test_the_calibration_seeds_are_held_back_whole_and_a_network_is_refitted_on_frames_it_never_saw(tmp_path):
    """A calibration seed's every frame is held back (never trained on, whatever the training seeds); refitting a
    network (`--recalibrate`) takes the held-back fifth of what it trained on and every folder it read nothing of."""
    from training import undertray_data as ud
    from training.blender_canvases import seed_list
    calib = seed_list(ud.CALIB_SEEDS)
    assert not set(calib) & set(seed_list(ud.TEST_SEEDS))
    assert all(ud.is_calibration({"seed": calib[0], "index": i}) for i in range(20))
    assert not ud.is_calibration({"seed": 4, "index": 0})
    rows = [(tmp_path / f"s{seed}", {"seed": seed, "index": i}) for seed in (4, 5, calib[0]) for i in range(10)]
    kept = ud.never_trained(rows, {"s4": 40, "s5": 0})
    assert {(f.name, r["index"]) for f, r in kept} == {("s4", 2), ("s4", 7)} | {
        (f"s{seed}", i) for seed in (5, calib[0]) for i in range(10)}
    for seed in (4, 9):
        (tmp_path / f"s{seed}").mkdir()
        (tmp_path / f"s{seed}" / "labels.jsonl").write_text("")
    assert [f.name for f in ud.folders("4-5,4,9", root=tmp_path)] == ["s4", "s9"]
    assert set(seed_list(ud.with_calibration("4-6"))) == {4, 5, 6, *calib}
    # the same seeds rendered again elsewhere (`--clean-root`: at 64 samples), read from that root once done
    (tmp_path / "s9" / "labels.jsonl").write_text('{"seed": 9, "index": 2}\n{"seed": 9, "index": 3}\n')
    assert ud.frames("4-9", root=tmp_path) == []
    (tmp_path / "s9" / "done").write_text("")
    assert [(f.name, r["index"]) for f, r in ud.frames("4-9", root=tmp_path)] == [("s9", 2), ("s9", 3)]


def test_camera_faults_drawn_afresh_change_the_noise_not_the_scene(tmp_path):
    from training import undertray_data as ud
    clean = np.full((24, 32, 3), 120, np.uint8)
    cv2.imwrite(str(tmp_path / "f.png"), clean)
    row = {"image": "f.png", "empty": None, "seed": 4, "index": 3,
           "draws": {"wb_error": [1.0, 1.0, 1.0], "noise": 3.0, "blur": 0.0, "jpeg": 90}}
    a, b = ud.refaulted(tmp_path, row, 1), ud.refaulted(tmp_path, row, 2)
    assert a.shape == clean.shape and not np.array_equal(a, b)
    assert np.array_equal(a, ud.refaulted(tmp_path, row, 1))
    assert abs(float(a.mean()) - 120) < 25


def _one_die_frame(folder, grey: int) -> tuple:
    """A render folder holding one flat frame of one die (as Blender's labels name it), and its row."""
    folder.mkdir(parents=True)
    cv2.imwrite(str(folder / "frame_00000.png"), np.full((48, 64, 3), grey, np.uint8))
    row = {"image": "frame_00000.png", "empty": None, "seed": 4, "index": 3,
           "draws": {"wb_error": [1.0, 1.0, 1.0], "noise": 0.5, "blur": 0.0, "jpeg": 95},
           "dice": [{"box": [32.0, 24.0, 20.0, 20.0], "glass": 2}]}
    (folder / "labels.jsonl").write_text(json.dumps(row) + "\n")
    return folder, row


def test_bare_variants_lose_the_ring_their_empty_tray_shows_in_their_own_look(tmp_path):
    """`die_canvases(bare=True)`: every odd camera variant of a die is drawn without the LED reflections of
    its empty tray (as the reader reads a frame with its room, `reader.REFLECTIONS_OUT`); the even ones, and a
    frame with no empty tray, as they are."""
    from training import undertray_data as ud
    folder, row = _one_die_frame(tmp_path / "s4", 100)
    empty = np.full((48, 64, 3), 100, np.uint8)
    cv2.circle(empty, (32, 24), 2, (250, 250, 250), -1)   # a reflection right where the die lies
    cv2.imwrite(str(folder / "empty_00000.png"), empty)
    frame = empty.copy()
    cv2.imwrite(str(folder / "frame_00000.png"), frame)
    row = {**row, "empty": "empty_00000.png"}
    def brightest(r: dict) -> list[int]:   # each variant's brightest pixel: the spot, or the die without it
        return [int(c.max()) for c in ud.die_canvases([(folder, r)], 24, 4, bare=True).x]
    looks = brightest(row)
    assert looks[0] > 200 and looks[2] > 200 and looks[1] < 160 and looks[3] < 160
    assert brightest({**row, "empty": None})[1] > 200


def test_smoothed_canvases_are_cut_from_the_frame_smoothed_as_the_reader_smooths_it(tmp_path):
    """`die_canvases(smooth=s)` (a network trained for a JSON naming "smooth_sigma"): each look of a die is
    the same look cut from its frame smoothed by `vision.classify.smoothed`, as `FaceClassifier.cut` reads
    it; at 0 nothing changes."""
    from training import undertray_data as ud
    from training.canvas import canvas
    from vision.classify import smoothed
    folder, row = _one_die_frame(tmp_path / "s4", 100)
    speckled = np.random.default_rng(3).integers(0, 255, (48, 64, 3), dtype=np.uint8)
    cv2.imwrite(str(folder / "frame_00000.png"), speckled)
    plain, soft = ud.die_canvases([(folder, row)], 24, 2), ud.die_canvases([(folder, row)], 24, 2, smooth=0.8)
    assert np.array_equal(ud.die_canvases([(folder, row)], 24, 2, smooth=0.0).x, plain.x)
    for k in range(2):
        look = ud.variant_frame(folder, row, k, 2, 0)
        assert np.array_equal(soft.x[k], canvas(smoothed(look, 0.8), tuple(row["dice"][0]["box"]), 24))
    assert soft.x.std() < plain.x.std() and soft.y.tolist() == plain.y.tolist()


def test_clean_variants_are_drawn_on_the_denoised_copy_once_it_is_written(tmp_path, monkeypatch):
    """The last `clean` camera-fault variants of a die (and of a finder's frame) come from the frame's
    denoised copy (training/denoise_undertray.py); variant 0 stays the frame every bench reads, and a
    folder with no finished copy gives its grainy frame to every variant."""
    from training import undertray_data as ud
    monkeypatch.setattr(ud, "DENOISED", tmp_path / "denoised")
    monkeypatch.setattr(ud, "FRAMES", tmp_path / "grainy")
    grainy, row = _one_die_frame(tmp_path / "grainy" / "s4", 100)
    elsewhere, _ = _one_die_frame(tmp_path / "x3" / "s4", 100)   # another root's s4 never takes this copy
    copy, _ = _one_die_frame(tmp_path / "denoised" / "s4", 200)
    def copied(clean: int) -> list[bool]:   # each variant: drawn on the copy (grey 200, not 100)?
        return [float(c.mean()) > 150 for c in ud.die_canvases([(grainy, row)], 24, 4, clean).x]
    assert copied(2) == [False] * 4 and ud.denoised_rows([(grainy, row)]) == []
    (copy / "done").write_text("{}")
    assert copied(2) == [False, False, True, True] and copied(3) == [False, True, True, True]
    # the learned finder's frames (`train_finder --clean-variants`) are drawn by the same rule
    assert [float(ud.variant_frame(grainy, row, k, 4, 2).mean()) > 150 for k in range(4)] == copied(2)
    assert copied(0) == [False] * 4 and ud.denoised_rows([(grainy, row)]) == [(copy, row)]
    assert ud.denoised(elsewhere) == elsewhere and ud.denoised_rows([(elsewhere, row)]) == []
    # a level is fitted on both looks of a held-back frame once clean variants were trained on
    assert ud.with_denoised([(grainy, row)], 0) == [(grainy, row)]
    assert ud.with_denoised([(grainy, row)], 2) == [(grainy, row), (copy, row)]


def test_a_denoised_copy_holds_every_picture_denoised_and_the_labels_and_is_written_once(tmp_path, monkeypatch):
    from training import denoise_undertray as du
    monkeypatch.setattr(du, "denoised_image", lambda bgr: 255 - bgr)
    grainy, _ = _one_die_frame(tmp_path / "grainy" / "s4", 100)
    (grainy / "atlas").mkdir()
    (grainy / "atlas" / "face1.png").write_bytes(b"png")
    (grainy / "done").write_text("{}")
    assert du.copy_seed(grainy, tmp_path / "out")
    copy = tmp_path / "out" / "s4"
    assert int(cv2.imread(str(copy / "frame_00000.png")).mean()) == 155
    assert (copy / "labels.jsonl").read_text() == (grainy / "labels.jsonl").read_text()
    assert (copy / "atlas" / "face1.png").read_bytes() == b"png" and (copy / "done").exists()
    assert not du.copy_seed(grainy, tmp_path / "out")


def test_the_denoiser_is_handed_linear_light_and_its_answer_comes_back_as_the_frame(monkeypatch):
    """Open Image Denoise (`pyoidn`, the train extra, not installed in CI) takes float RGB in linear light and
    gives the same back; a stand-in that changes nothing must return the frame within a grey level, and one
    that halves the light must darken it as linear light does (half the light is 186 of 255 at gamma 2.2)."""
    import sys
    import types

    from training.denoise_undertray import denoised_image
    frame = np.zeros((8, 8, 3), np.uint8)
    frame[..., 0], frame[..., 2] = 40, 255   # BGR: a red frame with a little blue
    seen = []

    def denoise(rgb, gain=1.0):
        seen.append(rgb)
        return rgb * gain

    monkeypatch.setitem(sys.modules, "pyoidn", types.SimpleNamespace(denoise=denoise))
    assert np.abs(denoised_image(frame).astype(int) - frame).max() <= 1
    assert seen[0].dtype == np.float32 and seen[0][0, 0, 0] == 1.0 and 0 < seen[0][0, 0, 2] < 40 / 255
    monkeypatch.setitem(sys.modules, "pyoidn", types.SimpleNamespace(denoise=lambda rgb: denoise(rgb, 0.5)))
    assert abs(int(denoised_image(frame)[0, 0, 2]) - 186) <= 1


def _d6_draws(seed: int, index: int) -> dict:
    """A frame's draws as they were before symbol dice and tables existed (the dice without set and printing,
    the frame without `look`: None for every frame but a table's)."""
    from dataclasses import asdict
    d = asdict(fx.draw_frame(seed, index))
    assert d.pop("look") is None
    d["dice"] = [{k: v for k, v in die.items() if k not in ("set", "printing")} for die in d["dice"]]
    return d


def test_symbol_dice_leave_the_d6_seeds_draws_as_they_were():
    import hashlib
    frames = [_d6_draws(s, i) for s in (1, 4, 99) for i in range(30)]
    digest = hashlib.sha256(json.dumps(frames, sort_keys=True).encode()).hexdigest()
    assert digest == "bdaa060288ba0329000e3fe62ca40def2435e128b9c04d46c893612f9d5a850e"   # before commit 5937d23+
    assert all(d.set == "d6" and d.printing is None for s in (1, 199) for i in range(50)
               for d in fx.draw_frame(s, i).dice)


def test_symbol_seeds_hold_king_of_tokyo_dice_whose_glass_face_is_the_sets_opposite():
    from engine.kingoftokyo import data, describe
    assert fx.KOT_FACES == data.FACES and fx.KOT_GLYPHS == describe.GLYPHS
    assert fx.KOT_OPPOSITE == {int(k): v for k, v in describe.OPPOSITE.items()}
    frames = [fx.draw_frame(fx.SYMBOL_SEEDS, i) for i in range(60)]
    dice = [d for f in frames for d in f.dice]
    assert all(d.set == "kingoftokyo" and d.printing in fx.PRINTINGS for d in dice)
    assert all(d.glass == fx.KOT_OPPOSITE[d.top] and d.colour == fx.PRINTINGS[d.printing].body for d in dice)
    assert len({d.printing for d in dice}) == len(fx.PRINTINGS) and {d.top for d in dice} == set(range(1, 7))
    assert all(f.factors()["printings"] for f in frames)
    row = fx.label_row(frames[0], "frame_00000.png", [[100.0, 80.0, 40.0, 40.0]] * len(frames[0].dice), None)
    d = row["dice"][0]
    assert d["set"] == "kingoftokyo" and d["glass_face"] == fx.KOT_FACES[d["glass"] - 1]


def test_seeds_from_more_d6_seeds_hold_d6_again_drawn_as_the_first_hundred_are():
    """The d6 seeds below 100 ran out (all trained on or read fresh): seeds from MORE_D6_SEEDS are d6 boxes
    again, each frame a new box at the d6 frames' size, with no symbol set and no table's fixed dice."""
    from training import undertray_data as ud
    seed = fx.MORE_D6_SEEDS
    assert [fx.seed_kind(s) for s in (4, fx.TABLE_SEEDS, fx.SYMBOL_SEEDS, fx.DICETHRONE_SEEDS, seed)] == \
        ["d6", "table", "kingoftokyo", "dicethrone", "d6"]
    frames = [fx.draw_frame(seed, i) for i in range(30)]
    dice = [d for f in frames for d in f.dice]
    assert dice and all(d.set == "d6" and d.glass == fx.OPPOSITE[d.top] for d in dice)
    assert len({(f.plate, f.room, f.led_count) for f in frames}) > 5   # not one table's box
    assert fx.frame_scale(seed) == 1 and not ud.is_table(seed)


def test_the_d6_canvases_leave_symbol_dice_out_and_the_d6_training_seeds_hold_none(tmp_path):
    from training import undertray_data as ud
    from training.blender_canvases import seed_list
    d6_seeds = seed_list(f"{ud.TRAIN_SEEDS},{ud.TEST_SEEDS}")   # no symbol seed among them (2000 and up: d6)
    assert {fx.seed_kind(s) for s in d6_seeds} == {"d6", "table"}
    cv2.imwrite(str(tmp_path / "frame_00000.png"), np.full((240, 320, 3), 120, np.uint8))
    f = fx.draw_frame(fx.SYMBOL_SEEDS, 0)
    f.dice[0].set = "d6"   # one d6 among the symbol dice
    row = fx.label_row(f, "frame_00000.png", [[100.0, 80.0, 40.0, 40.0]] * len(f.dice), None)
    (tmp_path / "labels.jsonl").write_text(json.dumps(row) + "\n")
    x, y = uc.undertray_canvases([tmp_path], 48)
    assert len(y) == 1 and y[0] == f.dice[0].glass - 1


def test_every_printing_inks_each_face_with_its_own_glyph(tmp_path):
    from training import blender_undertray_glyphs as gl
    for name, p in fx.PRINTINGS.items():
        a = gl.atlas(p)
        assert a.shape == (gl.ROWS * gl.CELL, gl.COLUMNS * gl.CELL)
        cells = [a[r * gl.CELL:(r + 1) * gl.CELL, c * gl.CELL:(c + 1) * gl.CELL] > 127
                 for r in range(gl.ROWS) for c in range(gl.COLUMNS)]
        assert all(0.03 < cell.mean() < 0.5 for cell in cells), name
        assert all((cells[i] != cells[j]).mean() > 0.02 for i in range(6) for j in range(i)), name
    assert {x.name for x in gl.write_atlases(tmp_path).glob("*.png")} == {f"{n}.png" for n in fx.PRINTINGS}


def test_dice_throne_seeds_hold_one_hero_a_frame_and_leave_the_king_of_tokyo_seeds_as_they_were():
    """Seeds 400 and up: a Dice Throne hero's dice (the faces as device.dice_sets describes them, opposite faces
    summing to 7); 200-399 still King of Tokyo's (their draws are pinned by the test above and the frames
    rendered already)."""
    from device.dice_sets import spec
    for hero, faces in fx.DT_FACES.items():
        s = spec(f"dicethrone:{hero}")
        assert tuple(f["name"] for f in s["faces"]) == faces
        assert all(f["glyph"] == f"icon:{f['name']}+corner:{f['index']}" for f in s["faces"])
        assert {int(k): v for k, v in s["opposite"].items()} == fx.SETS[f"dicethrone:{hero}"]
    assert all(d.set == "kingoftokyo" for i in range(30) for d in fx.draw_frame(399, i).dice)
    frames = [fx.draw_frame(s, i) for s in range(400, 406) for i in range(40)]
    assert all(len({d.set for d in f.dice}) <= 1 for f in frames)
    dice = [d for f in frames for d in f.dice]
    assert all(d.set.startswith("dicethrone:") and d.glass == 7 - d.top for d in dice)
    assert all(d.colour == fx.DT_PRINTINGS[d.printing].body for d in dice)
    row = fx.label_row(frames[0], "frame_00000.png", [[100.0, 80.0, 40.0, 40.0]] * len(frames[0].dice), None)
    d, hero = row["dice"][0], row["dice"][0]["set"].split(":")[1]
    assert d["glass_face"] == fx.DT_FACES[hero][d["glass"] - 1] and d["printing"] in fx.DT_PRINTINGS
    assert row["factors"]["heroes"] == [hero]


def test_the_held_out_heroes_and_printing_come_only_in_the_dice_throne_test_seeds():
    def seen(seeds):
        dice = [d for s in seeds for i in range(60) for d in fx.draw_frame(s, i).dice]
        return {d.set.split(":")[1] for d in dice}, {d.printing for d in dice}
    heroes, printings = seen(fx.DT_TEST_SEEDS)
    assert set(fx.DT_HELD_OUT) <= heroes and fx.DT_HELD_OUT_PRINTING in printings
    heroes, printings = seen(range(402, 440))
    assert not heroes & set(fx.DT_HELD_OUT) and fx.DT_HELD_OUT_PRINTING not in printings
    assert len(heroes) == len(fx.DT_FACES) - len(fx.DT_HELD_OUT)


def test_every_dice_throne_atlas_inks_each_face_with_its_own_icon_and_number(tmp_path):
    from training import blender_undertray_glyphs as gl
    for hero in ("barbarian", "ninja"):
        for name, p in fx.DT_PRINTINGS.items():
            a = gl.atlas(p, hero=hero)
            cells = [a[r * gl.CELL:(r + 1) * gl.CELL, c * gl.CELL:(c + 1) * gl.CELL] > 127
                     for r in range(gl.ROWS) for c in range(gl.COLUMNS)]
            assert all(0.02 < cell.mean() < 0.5 for cell in cells), (hero, name)
            assert all((cells[i] != cells[j]).mean() > 0.003 for i in range(6) for j in range(i)), (hero, name)
    names = {x.name for x in gl.write_dicethrone_atlases(tmp_path).glob("*.png")}
    die = fx.Die(0, 0, 0, 1, "red", "opaque", set="dicethrone:monk", printing="red-white")
    assert len(names) == len(fx.DT_FACES) * len(fx.DT_PRINTINGS) and f"{fx.atlas_name(die)}.png" in names


def test_dice_throne_frames_are_rendered_twice_the_side_and_the_others_as_they_were():
    """Issue 31: a Dice Throne face is told from the two others with its icon by the corner number alone (a
    fifth of the face), so those seeds render at 640x480; the d6 and King of Tokyo seeds stay at 320x240, the
    size their trained networks and benches were made with."""
    assert [fx.frame_scale(s) for s in (1, 199, 200, 399)] == [1, 1, 1, 1]
    assert [fx.frame_scale(s) for s in (*fx.DT_TEST_SEEDS, 402, 599)] == [2, 2, 2, 2]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.integers(0, 60), min_size=3, max_size=4, unique=True), min_size=1, max_size=12),
       st.randoms(use_true_random=False))
def test_a_meshs_faces_come_out_the_same_whatever_vertex_and_order_they_start_at(faces, rnd):
    # (Blender 3.4's UV spheres start their loops differently in each process: docs/dice-sets.md)
    turned = [tuple(f[k:] + f[:k]) for f in faces for k in [rnd.randrange(len(f))]]
    rnd.shuffle(turned)
    canonical = fx.canonical_loops([tuple(f) for f in faces])
    assert fx.canonical_loops(turned) == canonical
    rotations = {tuple(f[k:] + f[:k]) for f in faces for k in range(len(f))}
    for loop in canonical:   # each starts at its lowest vertex and keeps its winding (a rotation of a face)
        assert loop[0] == min(loop) and loop in rotations


def test_a_level_holds_on_each_look_of_the_held_back_dice_not_only_on_all_of_them():
    """`calibration.by_look`: a frame's denoised copy holds the same dice again, so a level fitted on all
    looks together would allow as many wrong dice as there are copies; each look of enough dice must hold it
    alone."""
    from training.calibration import by_look
    looks = np.array(["grainy"] * 300 + ["denoised"] * 300 + ["s64"] * 50, dtype=object)
    wanted = {"grainy": 0.98, "denoised": 0.99, "s64": 0.999}
    def level_of(mask: np.ndarray) -> float:
        return max(wanted[look] for look in set(looks[mask])) - (0.02 if mask.all() else 0.0)

    assert by_look(level_of, looks, min_dice=100) == 0.99   # the 50 dice of s64 are too few on their own
    assert by_look(level_of, looks, min_dice=50) == 0.999
    assert by_look(lambda mask: None if mask.sum() == 300 else 0.9, looks, min_dice=100) is None
    assert by_look(lambda mask: 0.95, looks[:300], min_dice=100) == 0.95   # one look: all of it, once


def test_a_symbol_networks_level_holds_on_each_look_of_its_held_back_dice():
    """The symbol trainer's level (`train_symbols_undertray.fitted`, by `calibration.level_by_look`) by
    look as the d6 one: 1,000 grainy dice, two of them wrong at 0.99 and 0.995, and their 1,000 denoised
    copies, all read right. At a silent aim of 0.1% all 2,000 together allow both wrong dice through; the
    grainy look alone allows one, so the level must stand above the lower of the two."""
    from training.calibration import level_by_look
    n = 1000
    conf = np.concatenate([np.full(n, 0.9999), np.full(n, 0.9999)])
    wrong = np.zeros(2 * n, bool)
    conf[:2], wrong[:2] = (0.99, 0.995), True
    looks = np.array(["blender-undertray"] * n + ["undertray-denoised"] * n, dtype=object)
    level = level_by_look(conf, wrong, looks, silent_aim=0.001, bound=0.02, min_dice=100, top=0.9995)
    one_look = level_by_look(conf, wrong, np.array(["one"] * (2 * n), dtype=object), silent_aim=0.001,
                             bound=0.02, min_dice=100, top=0.9995)
    assert one_look <= 0.99 < level <= 0.995     # counted as one look, both wrong dice would have passed
    assert level_by_look(conf[:50], wrong[:50], looks[:50], 0.001, 0.02, 100, 0.9995) == 0.9995   # too few


def test_frames_of_another_root_are_keyed_apart_but_count_as_the_same_seeds_read(tmp_path, monkeypatch):
    """`--clean-root`: the same scenes rendered at more samples. Their canvases must not be taken from the
    grainy frames' cache (`folder_key`), and a seed read under either root is one the network read
    (`frames_seen`)."""
    from training import undertray_data as ud
    grainy, clean = tmp_path / "blender-undertray", tmp_path / "undertray-s64"
    for root, seeds in ((grainy, (4, 5)), (clean, (5, 6))):
        for seed in seeds:
            (root / f"s{seed}").mkdir(parents=True)
            (root / f"s{seed}" / "labels.jsonl").write_text("")
            (root / f"s{seed}" / "done").write_text("")
    monkeypatch.setattr(ud, "FRAMES", grainy)
    assert ud.folder_key(grainy / "s5") == "s5"
    assert ud.folder_key(clean / "s5") == "undertray-s64/s5"
    rows = [(grainy / "s5", {"index": 0}), (clean / "s5", {"index": 0}), (clean / "s6", {"index": 1})]
    assert ud.frames_seen("4-6", rows, False, clean) == {"s4": 0, "s5": 2, "s6": 1}
    assert ud.frames_seen("4-6", rows, False, None) == {"s4": 0, "s5": 2}


def test_the_distilled_networks_crops_are_seen_in_one_of_their_eight_views():
    """`training/distill_undertray.py` shows the student each collected crop once more in a random view: a
    quarter turn, flipped or not, of that crop and no other (the teacher answers the view it is shown)."""
    from training.distill_undertray import _viewed

    crops = np.random.default_rng(5).normal(size=(64, 6, 6, 3)).astype(np.float16)
    views = _viewed(crops, np.random.default_rng(1))
    for crop, view in zip(crops, views, strict=True):
        turned = [np.rot90(crop, k, (0, 1)) for k in range(4)]
        assert any(np.array_equal(view, t) or np.array_equal(view, t[:, ::-1]) for t in turned)
    assert not all(np.array_equal(c, v) for c, v in zip(crops, views, strict=True))


def test_a_die_called_not_a_die_sets_no_level_when_it_counts_as_missed():
    """`train_reader_undertray --none-is-missed`: the reader drops a candidate the network calls "not a die"
    (`vision.decide.judge_pip_die`), so such a held-back die is a missed die, not one read certain and wrong;
    counted as wrong it alone would hold the level up (49th session: the surest "none" on a die 0.9975, the
    surest wrong face 0.9433, on 1,399 d6 from below)."""
    from training.calibration import certain_threshold, misread

    none = 6
    y = np.array([0, 1, 2, 3, 4, 5])
    pred = np.array([0, 1, 2, 3, none, 4])        # one die called "none", one a wrong face
    conf = np.array([0.99, 0.99, 0.99, 0.99, 0.998, 0.95])
    assert misread(pred, y).tolist() == [False, False, False, False, True, True]
    assert misread(pred, y, none).tolist() == [False, False, False, False, False, True]
    grid = np.linspace(0.9, 0.9995, 200)
    assert certain_threshold(conf, misread(pred, y), 0, grid) > 0.998
    assert 0.95 < certain_threshold(conf, misread(pred, y, none), 0, grid) < 0.952


def test_a_folder_rendered_at_twice_the_pixels_asks_blender_for_its_scale(tmp_path, monkeypatch):
    """`--scale 2` (build/undertray-x2, the frames the bench reads at the box's read side) reaches Blender's
    script; the default leaves the size to the seed (`frame_scale`). Blender itself is not run."""
    calls = []
    monkeypatch.setattr(uc.shutil, "which", lambda name: "/usr/bin/blender")
    monkeypatch.setattr(uc.subprocess, "run", lambda cmd, **kw: calls.append(cmd))
    uc.main(["--seeds", "1290", "--frames", "2", "--root", str(tmp_path), "--scale", "2"])
    uc.main(["--seeds", "1291", "--frames", "2", "--root", str(tmp_path)])
    scales = [cmd[cmd.index("--scale") + 1] for cmd in calls]
    outs = [cmd[cmd.index("--out") + 1] for cmd in calls]
    assert scales == ["2", "0"]
    assert outs == [str(tmp_path / "s1290"), str(tmp_path / "s1291")]
