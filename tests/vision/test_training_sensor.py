"""The held-out camera of the under-tray renders (training/sensor.py): a Bayer sensor's shot noise,
demosaicked and sharpened. The bench's `--sensor bayer` reads frames through it; these check it is that
camera, without Blender, and that the trainers' Bayer cameras are never it."""

from __future__ import annotations

import random

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from training import blender_undertray_canvases as uc
from training import sensor

DRAWS = {"wb_error": [1.0, 1.0, 1.0], "blur": 0.0, "noise": 3.0, "jpeg": 95}


def flat(level: int) -> np.ndarray:
    return np.full((64, 64, 3), level, np.uint8)


def test_the_mosaic_demosaics_back_to_the_colour_it_filtered():
    # pure red, green and blue frames come back as the same colour (the Bayer pattern's name in OpenCV is easy
    # to get wrong: a wrong one turns red into blue)
    for channel in range(3):
        img = np.zeros((32, 32, 3), np.uint8)
        img[..., channel] = 255
        out = sensor.bayer_faults(img, DRAWS | {"noise": 0.5}, seed=1)
        assert int(np.argmax(out[8:24, 8:24].reshape(-1, 3).mean(axis=0))) == channel


def test_the_same_seed_gives_the_same_frame_and_another_seed_other_noise():
    img = flat(128)
    a, b = sensor.bayer_faults(img, DRAWS, 7), sensor.bayer_faults(img, DRAWS, 7)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, sensor.bayer_faults(img, DRAWS, 8))


def test_a_flat_grey_keeps_its_level_and_its_noise_stays_of_the_drawn_order():
    out = sensor.bayer_faults(flat(128), DRAWS, 3).astype(np.float64)
    assert abs(out.mean() - 128) < 4
    # the sharpening and the demosaicking's averaging change the spread; it stays of the drawn order
    assert DRAWS["noise"] < out[..., 1].std() < 4 * DRAWS["noise"]


def test_the_full_well_gives_a_mid_grey_grey_noise_times_the_plain_noise():
    rng = np.random.default_rng(0)
    for noise in (1.0, 3.0, 6.0):
        electrons = sensor.full_well(noise)
        counted = rng.poisson(sensor.MID_GREY * electrons, 200_000) / electrons
        assert abs((counted ** (1 / sensor.GAMMA) * 255).std() / (sensor.GREY_NOISE * noise) - 1) < 0.05


def test_its_noise_is_shared_by_neighbours_where_the_plain_cameras_is_not():
    # the demosaicking guesses each pixel's missing colours from its neighbours, so their noise goes together
    def neighbour_correlation(img: np.ndarray) -> float:
        g = img[..., 1].astype(np.float64)
        g -= g.mean()
        return float((g[:, 1:] * g[:, :-1]).mean() / g.var())

    draws = DRAWS | {"jpeg": 100}
    assert neighbour_correlation(sensor.bayer_faults(flat(128), draws, 2)) > 0.3
    assert abs(neighbour_correlation(uc.camera_faults(flat(128), draws, 2))) < 0.1


def test_the_plain_camera_stays_the_default_and_bayer_is_read_only_when_chosen(monkeypatch):
    img = flat(100)
    plain = uc.camera_faults(img, DRAWS, 11)
    monkeypatch.setattr(uc, "SENSOR", "bayer")
    assert np.array_equal(uc.camera_faults(img, DRAWS, 11), sensor.bayer_faults(img, DRAWS, 11))
    monkeypatch.setattr(uc, "SENSOR", "plain")
    assert np.array_equal(uc.camera_faults(img, DRAWS, 11), plain)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_no_trainer_draws_the_benchs_camera_its_demosaicking_stays_held_out(seed):
    camera = sensor.training_camera(random.Random(seed))
    assert camera.demosaic != sensor.TEST_CAMERA.demosaic and camera.pattern in sensor.CV_PATTERN
    assert camera.sharpen < sensor.TEST_CAMERA.sharpen


def test_a_trainers_bayer_variants_come_before_the_clean_ones_and_leave_the_others_as_they_were(tmp_path):
    from training import undertray_data as ud

    cv2.imwrite(str(tmp_path / "frame_00000.png"), np.full((48, 64, 3), 120, np.uint8))
    row = {"image": "frame_00000.png", "empty": None, "seed": 4, "index": 3, "draws": DRAWS,
           "dice": [{"box": [32.0, 24.0, 20.0, 20.0], "glass": 2}]}
    plain = [ud.variant_frame(tmp_path, row, k, 4, 0) for k in range(4)]
    with_bayer = [ud.variant_frame(tmp_path, row, k, 4, 1, sensor=2) for k in range(4)]
    # variant 0 is the frame every bench reads; 1-2 through a trainer's Bayer camera; 3 is the clean one
    # (the grainy frame here: no denoised copy), drawn as before
    same = [np.array_equal(a, b) for a, b in zip(plain, with_bayer, strict=True)]
    assert same == [True, False, False, True]
    again = [ud.variant_frame(tmp_path, row, k, 4, 1, sensor=2) for k in (1, 2)]
    assert all(np.array_equal(a, b) for a, b in zip(with_bayer[1:3], again, strict=True))
