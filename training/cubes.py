"""Pip dice drawn as cubes in perspective, for training the pip classifier to read dice sets it never saw.

Why: the tray renderer (`vision/render.py`) draws a die as a flat square seen straight on, and photos of the
world's dice do not look like that: a phone sees a die from above and in front, so its box holds the top face
foreshortened and one or two side faces with their own pips below it; edges are rounded, pips are engraved and
often light on a dark body, or of a colour hardly brighter than the body (red on dark red, yellow on green);
bodies are marbled, speckled or translucent; other dice touch it; glare washes part of a face out. A model
trained on webcam-d6 (white dice, black pips, one desk) and flat renders read 44% of roboflow-d6's dice given
their boxes. Here each die is a textured cube: six faces of a real die (opposite faces sum to 7) drawn with
`cv2.warpPerspective` from a camera above it at a random slant, shaded by a random light, on a random floor
with its shadow and sometimes its neighbours, and cut out by its silhouette's box, as the photos' labels box a
die. Only a canvas per die is made (`canvas.canvas`): training augments it afresh every epoch.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from training.canvas import Canvases, canvas
from training.data import jpeg_again

Box = tuple[float, float, float, float]

SCENE = 384      # side of the scene a die is drawn in (px)
TEX = 96         # side of a face texture (px)

# pip centres of each face in face units (-0.5..0.5), before the face's own turn; `o` is filled in
_LAYOUT = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
           4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
           6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}

# faces of the unit cube: (normal, u axis, v axis) with the face's centre at the normal
_FACES = [((0, 0, 1), (1, 0, 0), (0, 1, 0)), ((0, 0, -1), (1, 0, 0), (0, -1, 0)),
          ((1, 0, 0), (0, 1, 0), (0, 0, 1)), ((-1, 0, 0), (0, -1, 0), (0, 0, 1)),
          ((0, 1, 0), (-1, 0, 0), (0, 0, 1)), ((0, -1, 0), (1, 0, 0), (0, 0, 1))]


def _hsv(h: float, s: float, v: float) -> np.ndarray:
    """BGR float 0-255 from hue 0-180 (OpenCV's), saturation and value 0-255."""
    px = np.uint8([[[int(h) % 180, int(np.clip(s, 0, 255)), int(np.clip(v, 0, 255))]]])
    return cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def colours(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(body, pip) BGR: light pips on dark or saturated bodies, dark pips on light ones, pips that differ in
    hue more than in brightness, and any pair at all."""
    h = float(rng.uniform(0, 180))
    kind = rng.random()
    if kind < 0.18:      # white/ivory/grey body
        body = _hsv(h, rng.uniform(0, 60), rng.uniform(150, 255))
    elif kind < 0.30:    # black/very dark
        body = _hsv(h, rng.uniform(0, 200), rng.uniform(15, 70))
    else:                # coloured, from deep to pastel
        body = _hsv(h, rng.uniform(80, 255), rng.uniform(70, 250))
    vb = float(cv2.cvtColor(body[None, None].astype(np.uint8), cv2.COLOR_BGR2GRAY)[0, 0])
    p = rng.random()
    if p < 0.08:         # low brightness contrast: another hue at about the body's brightness
        pip = _hsv(h + rng.uniform(30, 150), rng.uniform(120, 255), np.clip(vb + rng.uniform(-60, 60), 30, 255))
    elif p < 0.55:       # the ink that shows: light on dark, dark on light
        if vb < 140:
            pip = _hsv(rng.uniform(0, 180), rng.uniform(0, 120) if rng.random() < 0.7 else rng.uniform(120, 255),
                       rng.uniform(180, 255))
        else:
            pip = _hsv(rng.uniform(0, 180), rng.uniform(0, 255), rng.uniform(10, 90))
    elif p < 0.75:       # the same hue, much darker or lighter (red on dark red)
        pip = _hsv(h + rng.uniform(-10, 10), rng.uniform(100, 255), vb * rng.uniform(0.25, 0.5) if vb > 110
                   else rng.uniform(170, 255))
    else:                # anything (gold on red, blue on yellow...) that stands out in brightness
        v = rng.uniform(10, 255)
        if abs(v - vb) < 70:
            v = min(255.0, vb + 90) if vb < 128 else max(0.0, vb - 90)
        pip = _hsv(rng.uniform(0, 180), rng.uniform(0, 255), v)
    return body, pip


def face_texture(value: int, body: np.ndarray, pip: np.ndarray, material: str, rng: np.random.Generator,
                 pip_r: float, spread: float) -> np.ndarray:
    """TEX x TEX float32 BGR texture of one face: body (plain, marbled or speckled), engraved pips."""
    t = np.empty((TEX, TEX, 3), np.float32)
    t[:] = body
    if material == "marbled":
        g = rng.normal(0, 1, (int(rng.integers(3, 9)),) * 2).astype(np.float32)
        g = cv2.resize(g, (TEX, TEX), interpolation=cv2.INTER_CUBIC)
        swirl = np.abs(np.sin(rng.uniform(2, 5) * g))[..., None]
        other = np.clip(body * rng.uniform(0.4, 1.4) + rng.uniform(-60, 60, 3), 0, 255)
        t = t * (1 - swirl) + other * swirl
    elif material == "speckled":
        n = int(TEX * TEX * rng.uniform(0.005, 0.03))
        fleck = np.clip(255 - body + rng.uniform(-50, 50, 3), 0, 255) if rng.random() < 0.5 else body * 0.35
        for yy, xx in zip(rng.integers(0, TEX, n), rng.integers(0, TEX, n), strict=True):
            cv2.circle(t, (int(xx), int(yy)), int(rng.integers(1, 3)), fleck.tolist(), -1)
    turn = rng.random() < 0.5
    r = pip_r * TEX
    shadow = np.clip(pip * 0.55, 0, 255).tolist()
    for a, b in _LAYOUT[value]:
        if turn:
            a, b = b, a
        x = (0.5 + a * spread) * TEX
        y = (0.5 + b * spread) * TEX
        c = (int(round(x * 16)), int(round(y * 16)))
        cv2.circle(t, c, int(round(r * 16)), shadow, -1, cv2.LINE_AA, 4)  # the engraved rim in shadow
        off = int(round(0.15 * r * 16))
        cv2.circle(t, (c[0] + off, c[1] + off), int(round(0.88 * r * 16)), pip.tolist(), -1, cv2.LINE_AA, 4)
    return t


def _side_values(top: int, rng: np.random.Generator) -> list[int]:
    """Values of the faces in `_FACES` order for a die with `top` up: opposite faces sum to 7."""
    rest = [v for v in range(1, 7) if v not in (top, 7 - top)]
    a = int(rng.choice([v for v in rest if v < 4]))
    b = [v for v in rest if v not in (a, 7 - a)][0]
    if rng.random() < 0.5:
        a = 7 - a
    if rng.random() < 0.5:
        b = 7 - b
    return [top, 7 - top, a, 7 - a, b, 7 - b]


def floor(rng: np.random.Generator) -> np.ndarray:
    """A SCENE x SCENE float32 floor: a colour with a slow gradient, grain, sometimes stripes (wood, a board)
    or printed blotches (a game board)."""
    col = _hsv(rng.uniform(0, 180), rng.uniform(0, 200), rng.uniform(40, 250))
    f = np.empty((SCENE, SCENE, 3), np.float32)
    f[:] = col
    yy, xx = np.mgrid[0:SCENE, 0:SCENE].astype(np.float32) / SCENE
    a = rng.uniform(0, 2 * math.pi)
    f *= (1 + rng.uniform(0, 0.4) * (np.cos(a) * xx + np.sin(a) * yy - 0.5))[..., None]
    k = rng.random()
    if k < 0.25:
        stripes = np.sin((xx * math.cos(a) + yy * math.sin(a)) * rng.uniform(20, 80) + rng.normal(0, 1)) \
            * rng.uniform(5, 25)
        f += stripes[..., None]
    elif k < 0.5:
        g = rng.normal(0, 1, (int(rng.integers(2, 8)),) * 2).astype(np.float32)
        g = cv2.resize(g, (SCENE, SCENE), interpolation=cv2.INTER_CUBIC)
        other = _hsv(rng.uniform(0, 180), rng.uniform(0, 255), rng.uniform(30, 250))
        m = (g > rng.uniform(-0.5, 0.8)).astype(np.float32)
        m = cv2.GaussianBlur(m, (0, 0), 2.0)[..., None]
        f = f * (1 - m) + other * m
    f += rng.normal(0, rng.uniform(0, 6), (SCENE, SCENE, 1)).astype(np.float32)
    return np.clip(f, 0, 255)


def draw_cube(scene: np.ndarray, centre: tuple[float, float], size: float, top: int, rng: np.random.Generator,
              slant: float, light: np.ndarray, style: dict) -> tuple[Box, Box]:
    """Draw one die on `scene` (float32, in place): its face-up value `top`, its face `size` px across, seen
    from above at `slant` radians from straight down. Returns the boxes (cx, cy, w, h) of its silhouette and
    of its top face."""
    vals = _side_values(top, rng)
    yaw = rng.uniform(0, 2 * math.pi)
    cy_, sy_ = math.cos(yaw), math.sin(yaw)
    Rz = np.array([[cy_, -sy_, 0], [sy_, cy_, 0], [0, 0, 1]])
    # camera: on the -y side, slant from vertical, looking at the die; image x = world x, image y down
    dist = float(rng.uniform(4, 14))
    cam = np.array([0, -math.sin(slant), math.cos(slant)]) * dist
    fwd = -cam / dist
    right = np.array([1.0, 0, 0])
    down = np.cross(fwd, right)
    f = size * dist / 2.0   # a face 2 units across is `size` px at the die's distance
    corners2d, faces = [], []
    for k, (n, u, v) in enumerate(_FACES):
        n, u, v = Rz @ np.array(n, float), Rz @ np.array(u, float), Rz @ np.array(v, float)
        if np.dot(n, cam - n) <= 1e-6:
            continue
        quad3 = [n - u - v, n + u - v, n + u + v, n - u + v]
        quad = []
        for p in quad3:
            d = p - cam
            z = float(np.dot(d, fwd))
            quad.append((centre[0] + f * float(np.dot(d, right)) / z, centre[1] + f * float(np.dot(d, down)) / z))
        shade = style["ambient"] + style["diffuse"] * max(0.0, float(np.dot(n, light)))
        faces.append((k, np.float32(quad), shade))
        corners2d += quad
    pts = np.float32(corners2d)
    hull = cv2.convexHull(pts)
    H = scene.shape[0]
    x0, y0 = (int(max(0, np.floor(pts[:, i].min()) - 4)) for i in (0, 1))
    x1, y1 = (int(min(H, np.ceil(pts[:, i].max()) + 5)) for i in (0, 1))
    tq = next(q for k, q, _ in faces if k == 0)
    top_box = (float(tq[:, 0].min() + tq[:, 0].max()) / 2, float(tq[:, 1].min() + tq[:, 1].max()) / 2,
               float(np.ptp(tq[:, 0])), float(np.ptp(tq[:, 1])))
    if x1 - x0 < 4 or y1 - y0 < 4:
        return (centre[0], centre[1], size, size), top_box
    roi = scene[y0:y1, x0:x1]
    body, pip, material = style["body"], style["pip"], style["material"]
    behind = roi.copy()
    # the silhouette with rounded corners, in the body's darker shade: the bevelled edges between faces
    sil = np.zeros(roi.shape[:2], np.uint8)
    cv2.fillConvexPoly(sil, np.round((hull[:, 0] - [x0, y0]) * 16).astype(np.int32), 255, cv2.LINE_AA, 4)
    rad = max(1, int(style["round"] * size))
    if rad > 1:
        ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * rad + 1, 2 * rad + 1))
        sil = cv2.morphologyEx(sil, cv2.MORPH_OPEN, ker)
    a = (sil.astype(np.float32) / 255)[..., None]
    edge = body * style["edge"]
    roi[:] = roi * (1 - a) + edge * a
    # rounded-corner mask of a face in texture space
    fm = np.zeros((TEX, TEX), np.uint8)
    inset = style["inset"] * TEX
    cr = int(round(style["corner"] * TEX * 16))
    lo, hi = int(round(inset * 16)), int(round((TEX - 1 - inset) * 16))
    cv2.rectangle(fm, (lo // 16, (lo + cr) // 16), (hi // 16, (hi - cr) // 16), 255, -1)
    cv2.rectangle(fm, ((lo + cr) // 16, lo // 16), ((hi - cr) // 16, hi // 16), 255, -1)
    for cx in (lo + cr, hi - cr):
        for cyy in (lo + cr, hi - cr):
            cv2.circle(fm, (cx, cyy), cr, 255, -1, cv2.LINE_AA, 4)
    fm = cv2.GaussianBlur(fm.astype(np.float32) / 255, (0, 0), 1.2)
    src = np.float32([[0, 0], [TEX, 0], [TEX, TEX], [0, TEX]])
    for k, quad, shade in faces:
        tex = face_texture(vals[k], body, pip, material, rng, style["pip_r"], style["spread"])
        M = cv2.getPerspectiveTransform(src, quad - np.float32([x0, y0]))
        img = cv2.warpPerspective(tex * shade, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        m = cv2.warpPerspective(fm, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)[..., None]
        if material == "translucent":
            m = m * style["opacity"]
        roi[:] = roi * (1 - m) + img * m
    if material == "translucent":
        # the floor shows through the tinted body, blurred by it
        see = cv2.GaussianBlur(behind, (0, 0), max(1.0, 0.05 * size)) * (body / 255.0 + 0.3)
        k = 1 - style["opacity"]
        roi[:] = roi * (1 - a * k * 0.6) + see * a * k * 0.6
    if style["glare"] > 0:
        # a specular spot somewhere on the die: brightens, may wash part of a face out
        spot = np.zeros(roi.shape[:2], np.float32)
        gx, gy = rng.uniform(0.2, 0.8) * (x1 - x0), rng.uniform(0.15, 0.6) * (y1 - y0)
        cv2.ellipse(spot, (int(gx), int(gy)), (max(1, int(size * rng.uniform(0.08, 0.3))),
                                               max(1, int(size * rng.uniform(0.05, 0.2)))),
                    float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        spot = cv2.GaussianBlur(spot, (0, 0), max(1.0, size * 0.06)) * (sil > 0)
        g = (style["glare"] * spot)[..., None]
        roi[:] = roi * (1 - g) + 255.0 * g
    ys, xs = np.nonzero(sil > 127)
    if len(xs) == 0:
        return (centre[0], centre[1], size, size), top_box
    bx0, bx1, by0, by1 = xs.min() + x0, xs.max() + x0 + 1, ys.min() + y0, ys.max() + y0 + 1
    return ((bx0 + bx1) / 2, (by0 + by1) / 2, float(bx1 - bx0), float(by1 - by0)), top_box


def _style(rng: np.random.Generator, body: np.ndarray | None = None, pip: np.ndarray | None = None) -> dict:
    if body is None or pip is None:
        body, pip = colours(rng)
    material = str(rng.choice(["plain", "plain", "plain", "marbled", "speckled", "translucent"]))
    return {"body": body, "pip": pip, "material": material,
            "ambient": rng.uniform(0.5, 0.9), "diffuse": rng.uniform(0.2, 0.5),
            "edge": rng.uniform(0.5, 1.1), "round": rng.uniform(0.02, 0.12), "inset": rng.uniform(0.0, 0.08),
            "corner": rng.uniform(0.05, 0.3), "pip_r": rng.uniform(0.055, 0.11), "spread": rng.uniform(0.2, 0.3),
            "opacity": rng.uniform(0.4, 0.8), "glare": rng.uniform(0.3, 0.9) if rng.random() < 0.3 else 0.0}


def cube_canvases(n: int, side: int, rng: np.random.Generator) -> Canvases:
    """`n` dice drawn as cubes, each cut out as a canvas by its silhouette's box (class = face-up value - 1);
    a die seen steeply keeps its top face up (`upright`), one seen from nearly straight above may turn."""
    xs, ys, up = [], [], []
    for _ in range(n):
        scene = floor(rng)
        az = rng.uniform(0, 2 * math.pi)
        el = rng.uniform(0.5, 1.4)
        light = np.array([math.cos(az) * math.cos(el), math.sin(az) * math.cos(el), math.sin(el)])
        size = float(rng.uniform(60, 95))
        slant = math.radians(float(rng.uniform(0, 50)))   # from straight above to oblique
        top = int(rng.integers(1, 7))
        style = _style(rng)
        c = (SCENE / 2 + rng.normal(0, 4), SCENE / 2 + rng.normal(0, 4))
        # a shadow on the floor, away from the light
        sh = np.zeros((SCENE, SCENE), np.float32)
        cv2.circle(sh, (int(c[0] - 0.35 * size * light[0]), int(c[1] + 0.35 * size * abs(light[1]) + 0.2 * size)),
                   int(0.7 * size), 1.0, -1)
        sh = cv2.GaussianBlur(sh, (0, 0), 0.15 * size)[..., None] * rng.uniform(0.1, 0.5)
        scene *= 1 - sh
        # neighbours (often of the same set), drawn before the die when behind it, after when in front
        same = rng.random() < 0.6
        nb = []
        for _ in range(int(rng.choice([0, 0, 1, 1, 2, 3]))):
            ang = rng.uniform(0, 2 * math.pi)
            dd = size * rng.uniform(1.05, 1.6)
            nb.append(((c[0] + dd * math.cos(ang), c[1] + dd * math.sin(ang)),
                       _style(rng, style["body"], style["pip"]) if same else _style(rng)))
        for (pc, st) in nb:
            if pc[1] <= c[1]:
                draw_cube(scene, pc, size * rng.uniform(0.85, 1.15), int(rng.integers(1, 7)), rng, slant, light, st)
        box, _ = draw_cube(scene, c, size, top, rng, slant, light, style)
        for (pc, st) in nb:
            if pc[1] > c[1]:
                draw_cube(scene, pc, size * rng.uniform(0.85, 1.15), int(rng.integers(1, 7)), rng, slant, light, st)
        # colour of the light, motion or focus blur, sensor noise, JPEG
        scene *= rng.uniform(0.75, 1.2, 3).astype(np.float32)
        if rng.random() < 0.2:
            L = int(rng.integers(3, 9)) | 1
            kern = np.zeros((L, L), np.float32)
            kern[L // 2, :] = 1.0 / L
            kern = cv2.warpAffine(kern, cv2.getRotationMatrix2D((L / 2 - 0.5, L / 2 - 0.5),
                                                                float(rng.uniform(0, 180)), 1.0), (L, L))
            scene = cv2.filter2D(scene, -1, kern / max(kern.sum(), 1e-6))
        img = np.clip(scene + rng.normal(0, rng.uniform(0, 5), scene.shape).astype(np.float32), 0, 255)
        img = img.astype(np.uint8)
        xs.append(jpeg_again(canvas(img, box, side), rng, 0.4))
        ys.append(top - 1)
        up.append(slant > math.radians(12))
    return Canvases(np.asarray(xs, np.uint8).reshape(n, side, side, 3), np.asarray(ys, np.int64),
                    np.asarray(up, bool), np.full(n, 4, np.int64))


def cube_backgrounds(n: int, side: int, rng: np.random.Generator) -> Canvases:
    """`n` "not a die" canvases from scenes like `cube_canvases`' (a floor with its grain, stripes or print,
    one to three dice drawn as cubes with their shadows, blur, noise, JPEG), each cut by a box of a die's size
    centred where no die is: floor, shadows, the edge of a die or the gap between two, as the finders propose
    them on real photos (their phantom dice)."""
    xs = []
    while len(xs) < n:
        scene = floor(rng)
        az, el = rng.uniform(0, 2 * math.pi), rng.uniform(0.5, 1.4)
        light = np.array([math.cos(az) * math.cos(el), math.sin(az) * math.cos(el), math.sin(el)])
        size = float(rng.uniform(40, 95))
        slant = math.radians(float(rng.uniform(0, 50)))
        style = _style(rng)
        centres = []
        for _ in range(int(rng.integers(1, 4))):
            c = (float(rng.uniform(0.2, 0.8) * SCENE), float(rng.uniform(0.2, 0.8) * SCENE))
            sh = np.zeros((SCENE, SCENE), np.float32)
            cv2.circle(sh, (int(c[0] - 0.35 * size * light[0]), int(c[1] + 0.2 * size)), int(0.7 * size), 1.0, -1)
            scene *= 1 - cv2.GaussianBlur(sh, (0, 0), 0.15 * size)[..., None] * rng.uniform(0.1, 0.5)
            st = style if rng.random() < 0.6 else _style(rng)
            box, _ = draw_cube(scene, c, size * rng.uniform(0.85, 1.15), int(rng.integers(1, 7)), rng, slant, light, st)
            centres.append(box)
        scene *= rng.uniform(0.75, 1.2, 3).astype(np.float32)
        if rng.random() < 0.3:
            scene = cv2.GaussianBlur(scene, (0, 0), float(rng.uniform(0.5, 2.0)))
        img = np.clip(scene + rng.normal(0, rng.uniform(0, 5), scene.shape).astype(np.float32), 0, 255)
        img = img.astype(np.uint8)
        for _ in range(5):
            s = size * float(rng.uniform(0.5, 1.3))
            if rng.random() < 0.8:  # mostly beside a die: its edge, its shadow, the gap to the next one
                d = centres[int(rng.integers(0, len(centres)))]
                a, r = rng.uniform(0, 2 * math.pi), rng.uniform(0.65, 1.2) * (s + max(d[2], d[3])) / 2
                b = (d[0] + r * math.cos(a), d[1] + r * math.sin(a), s, s)
            else:
                b = (float(rng.uniform(s / 2, SCENE - s / 2)), float(rng.uniform(s / 2, SCENE - s / 2)), s, s)
            # no die's centre within 0.55 of the two sides: at most a part of a die (as the half dice that
            # `torch_net.augment` makes), never a die
            if all(abs(b[0] - d[0]) > 0.55 * (s + d[2]) / 2 or abs(b[1] - d[1]) > 0.55 * (s + d[3]) / 2
                   for d in centres):
                xs.append(jpeg_again(canvas(img, b, side), rng, 0.4))
                break
    return Canvases(np.asarray(xs[:n], np.uint8).reshape(n, side, side, 3), np.full(n, 6, np.int64),
                    np.zeros(n, bool), np.full(n, 6, np.int64))
