"""A second camera for the under-tray renders, held out from every trainer: a colour-filter-array sensor whose
noise is the light it counts, demosaicked and sharpened as a camera's image processor does.

Why. Every network from below learnt one camera (`blender_undertray_canvases.camera_faults`): white-balance
error, blur and Gaussian noise of one strength over the whole frame, added to the 8-bit picture, then JPEG. A
real sensor (the Pi camera's, a USB webcam's) counts photons under a Bayer mosaic: its noise is shot noise
(in electrons, the square root of the signal) plus read noise, each pixel counts one colour and the other
two are guessed from its neighbours (colour speckle in flat areas, fringes at every pip's edge), and the
processor sharpens what it guessed. A reader judged only on the camera it trained on proves little about the
box's own (issue 31: several sensors, noise; hold out whole factors). The bench reads a frame through this
camera with `bench/vision_undertray.py --sensor bayer`.

Trainers may draw other cameras of the same kind (`training_camera`: another filter order, an edge-aware
demosaicking on the gamma-coded picture, less sharpening, another noise) with `train_reader_undertray
--sensor-variants`; none of them is the bench's (`TEST_CAMERA`: bilinear demosaicking in linear light,
sharpened harder, noisier), so that camera stays held out as a whole: its demosaicking is never drawn.

The frame's own draws set it, so a frame reads the same in every run: white balance (in linear light) and
blur as before; the Gaussian noise's strength `noise` (1-6 levels of 8 bits) becomes the sensor's full well,
chosen so that a mid grey shows `GREY_NOISE` times that noise; JPEG as before. A Pi's own image processor
also smooths the colour noise, which this camera does not: it is a cheap webcam's, the harder case.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass

import cv2
import numpy as np

GAMMA = 2.2               # the renders are 8-bit sRGB-like (Blender's "Standard" view)
MID_GREY = 0.216          # 8-bit 128 in linear light
READ_NOISE = 3.0          # electrons, a small sensor's at its usual gain
SHARPEN = 0.6             # the processor's unsharp mask: amount
SHARPEN_SIGMA = 1.0       # and radius, px
GREY_NOISE = 1.5          # the shot noise at a mid grey, in units of the frame's drawn plain-model sigma


# OpenCV names a Bayer pattern by its second row's second and third pixels: the filter order from the top left
# (RGGB) is its "BG"
CV_PATTERN = {"RGGB": "BG", "GRBG": "GB", "GBRG": "GR", "BGGR": "RG"}
CHANNEL = {"R": 2, "G": 1, "B": 0}   # in BGR


@dataclass(frozen=True)
class Camera:
    """One Bayer camera: its filters' order, how it guesses the missing colours, its sharpening and noise."""

    pattern: str = "RGGB"
    demosaic: str = "bilinear"   # in linear light, 16 bits; "vng", "ea": on the gamma-coded 8-bit raw
    sharpen: float = SHARPEN
    grey_noise: float = GREY_NOISE

    def as_draw(self) -> dict:
        """For a frame's draws (`draws["sensor"]`), which `camera_faults` passes through this camera."""
        return asdict(self)


TEST_CAMERA = Camera()   # the bench's --sensor bayer; no trainer draws bilinear demosaicking


def training_camera(rnd: random.Random) -> Camera:
    """A camera of the same kind as the bench's, never the bench's own (`--sensor-variants`)."""
    return Camera(pattern=rnd.choice(list(CV_PATTERN)), demosaic=rnd.choice(["vng", "ea"]),
                  sharpen=round(rnd.uniform(0.0, 0.4), 2), grey_noise=round(rnd.uniform(0.8, 1.3), 2))


def full_well(noise: float, grey_noise: float = GREY_NOISE) -> float:
    """Electrons at white for a frame drawn with the plain model's `noise` (its Gaussian sigma, 8-bit levels):
    at a mid grey the shot noise, carried through the gamma, is `grey_noise` times that sigma."""
    slope = MID_GREY ** (1.0 / GAMMA - 1.0) / GAMMA   # d(8-bit)/d(linear) / 255, at a mid grey
    sd_per_electrons = 255.0 * slope * MID_GREY       # 8-bit sd times sqrt(electrons at mid grey)
    return (sd_per_electrons / (grey_noise * max(noise, 0.5))) ** 2 / MID_GREY


def mosaic(linear_bgr: np.ndarray, pattern: str = "RGGB") -> np.ndarray:
    """The Bayer mosaic of a linear BGR frame: each pixel keeps the one colour its filter passes
    (`pattern`: the filters of the top-left 2x2, row by row)."""
    raw = np.empty(linear_bgr.shape[:2], np.float32)
    for k, colour in enumerate(pattern):
        raw[k // 2::2, k % 2::2] = linear_bgr[k // 2::2, k % 2::2, CHANNEL[colour]]
    return raw


def demosaicked(raw: np.ndarray, camera: Camera) -> np.ndarray:
    """The sensor's counts (0-1, linear) as a gamma-coded float BGR frame (0-255), the camera's way."""
    code = f"COLOR_Bayer{CV_PATTERN[camera.pattern]}2BGR"
    if camera.demosaic == "bilinear":
        bgr = cv2.cvtColor((raw * 65535.0 + 0.5).astype(np.uint16), getattr(cv2, code))
        return (bgr.astype(np.float32) / 65535.0) ** (1.0 / GAMMA) * 255.0
    coded = (raw ** (1.0 / GAMMA) * 255.0 + 0.5).astype(np.uint8)
    return cv2.cvtColor(coded, getattr(cv2, f"{code}_{camera.demosaic.upper()}")).astype(np.float32)


def bayer_faults(img: np.ndarray, draws: dict, seed: int, camera: Camera = TEST_CAMERA) -> np.ndarray:
    """The clean render as a Bayer sensor and its processor give it (seeded by `seed`, as `camera_faults`)."""
    rng = np.random.default_rng(seed)
    linear = (img.astype(np.float32) / 255.0) ** GAMMA * np.asarray(draws["wb_error"], np.float32)[::-1]
    if draws["blur"] > 0:
        linear = cv2.GaussianBlur(linear, (0, 0), draws["blur"])
    electrons_at_white = full_well(draws["noise"], camera.grey_noise)
    light = np.clip(mosaic(linear, camera.pattern), 0.0, 1.0)
    counted = rng.poisson(light * electrons_at_white).astype(np.float32)
    counted += rng.normal(0.0, READ_NOISE, counted.shape).astype(np.float32)
    out = demosaicked(np.clip(counted / electrons_at_white, 0.0, 1.0), camera)
    if camera.sharpen > 0:
        out = out + camera.sharpen * (out - cv2.GaussianBlur(out, (0, 0), SHARPEN_SIGMA))
    out = np.clip(out, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(draws["jpeg"])])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else out
