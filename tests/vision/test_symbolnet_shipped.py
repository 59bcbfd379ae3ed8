"""The shipped King of Tokyo face network for `--mount under` (vision/models/kingoftokyo-under.onnx), run by
cv2.dnn as the box runs it, on 36 dice of the held-out render seeds 200-201 (never trained or calibrated on;
cut by `training/undertray_fixture.py` into tests/vision/data/kingoftokyo_under.jpg)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from device.dice_sets import spec
from vision.dicesets import get_set
from vision.reader import read_dice
from vision.symbolnet import NONE, network_for

DATA = Path(__file__).parent / "data"
KOT = get_set(spec("kingoftokyo"))


@pytest.fixture(scope="module")
def sheet():
    labels = json.loads((DATA / "kingoftokyo_under.json").read_text(encoding="utf-8"))["dice"]
    return cv2.imread(str(DATA / "kingoftokyo_under.jpg"), cv2.IMREAD_COLOR), labels


def test_the_package_ships_a_network_for_king_of_tokyo_under_the_tray_only():
    """Issue 31, item 1: symbol dice seen from below. From above the templates still read them."""
    clf = network_for(KOT, "under")
    assert clf is not None and clf.meta["set"] == "kingoftokyo" and clf.meta["mount"] == "under"
    assert clf.meta["trained_on"]["held_out_seeds"] == "200-201"
    assert network_for(KOT, "over") is None


def test_its_four_turns_level_was_fitted_on_dice_no_bench_measures():
    """Issue 31 (judge on pictures not fitted on): the level of the mean of a doubted box's four turns
    (`symbolnet.with_network`'s turns) comes from seeds it never trained on, none of them a test or measure
    seed, and `fit_turns` refuses those."""
    from training.blender_canvases import seed_list
    from training.undertray_data import SYMBOL_MEASURE_SEEDS, SYMBOL_TEST_SEEDS, refuse_measure_seeds

    clf = network_for(KOT, "under")
    fitted = clf.meta["turns_calibration"]
    assert 0.5 < clf.turns_certain_at < 1.0 and fitted["dice"] >= 1000
    held_out = set(seed_list(SYMBOL_TEST_SEEDS)) | set(seed_list(SYMBOL_MEASURE_SEEDS))
    assert not set(seed_list(fitted["seeds"])) & held_out
    trained = {int(name[1:]) for name in clf.meta["trained_on"]["undertray_frames"]}
    assert not set(seed_list(fitted["seeds"])) & trained
    refuse_measure_seeds(fitted["seeds"])
    with pytest.raises(SystemExit):
        refuse_measure_seeds("224")


def test_it_names_the_face_on_the_glass_of_dice_it_never_saw_and_is_never_sure_and_wrong(sheet):
    """Given each die's box: at least half the faces named (33 of these 36 with the pair of networks shipped in
    the sixteenth session; 31 with the fourteenth session's one network, trained on denoised copies too; 30, 31
    and 25 with the three before; the bench measured 86.55% of 922 test dice, 90.35% of their denoised copies
    with the pair, 83.41% and 89.37% with the one network before it; the templates alone named 55 of 147
    given their outlines in issue 31, a coin one in six), and a die it is sure of is right (certain means
    right: the level the held-back frames vouch for)."""
    img, labels = sheet
    clf = network_for(KOT, "under")
    preds = clf.predict(img, [tuple(d["box"]) for d in labels])
    right = [p.index + 1 == d["glass"] for p, d in zip(preds, labels, strict=True)]
    sure_wrong = [d for p, d, ok in zip(preds, labels, right, strict=True) if p.confidence >= clf.certain_at and not ok]
    assert sum(right) >= 0.5 * len(labels)
    assert sure_wrong == []
    assert all(p.index != NONE for p, ok in zip(preds, right, strict=True) if ok)


def test_the_reader_reports_the_top_face_opposite_the_one_on_the_glass(sheet):
    """Read whole (finder, templates and network), a lone die's tile gives its TOP face (the set's opposite
    map), certain only when right."""
    img, labels = sheet
    tile = 64
    checked = 0
    for i, d in enumerate(labels):
        if d["touching"] or d["tilted"]:
            continue
        y, x = divmod(i, 6)
        crop = img[y * tile:(y + 1) * tile, x * tile:(x + 1) * tile]
        for r in read_dice(cv2.resize(crop, (192, 192), interpolation=cv2.INTER_CUBIC), KOT, "under"):
            if abs(r.center[0] - 96) < 30 and abs(r.center[1] - 96) < 30:
                checked += 1
                assert not r.certain or r.face == d["top_face"], (i, r, d)
    assert checked >= 5
