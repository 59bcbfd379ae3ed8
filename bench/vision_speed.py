"""Vision speed on one core: real photos from above by their number of dice beside a plain blob counter, the
motion gate per 640x480 frame, reading a settled frame with 5 and 20 dice, Dice Throne hero dice under the
tray, the box's read over many frames of each kind of set and at the Pi camera's size, the box's read of
Blender's physically based frames from below (`--blender SEEDS`, seeds rendered in build/blender-undertray),
and the renderer (the demo tray draws a frame every 33-66 ms).

    .venv/bin/python bench/vision_speed.py [--repeat N] [--frames N] [--photos N] [--photos-only]
    .venv/bin/python bench/vision_speed.py --blender SEEDS [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from device.dice_sets import spec  # noqa: E402
from vision.classify import MODELS, normalise_crop  # noqa: E402
from vision.classify import load as load_classifier  # noqa: E402
from vision.dicesets import DiceSetLike  # noqa: E402
from vision.faces import FaceReader  # noqa: E402
from vision.finder import count_pips, outline_candidates, pip_candidates  # noqa: E402
from vision.onnx_net import CLASSIC, load_net  # noqa: E402
from vision.reader import face_reader, find_dice, read_dice  # noqa: E402
from vision.readsize import at_read_size, camera_side, forget_frames  # noqa: E402
from vision.render import random_dice, render_tray  # noqa: E402
from vision.room import Room, merge  # noqa: E402
from vision.watcher import motion_between, small_grey  # noqa: E402


def timeit(fn, repeat: int) -> tuple[float, float]:
    """(median wall ms, median CPU ms of this thread)"""
    fn()
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.thread_time()
        fn()
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.thread_time() - c0) * 1000)
    return float(np.median(wall)), float(np.median(cpu))


def stage_split(frame: np.ndarray, mount: str, repeat: int) -> None:
    """The reader's two stages on one frame: finder (outline + pip candidates) and classifier (the CNN on
    every candidate box, cv2.dnn, one batch)."""
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2Lab)
    clf = load_classifier("pips")
    w_out, _ = timeit(lambda: find_dice(frame, mount, None, lab), repeat)
    w_pip, _ = timeit(lambda: pip_candidates(lab), repeat)
    cands = outline_candidates(find_dice(frame, mount, None, lab)) + pip_candidates(lab)
    boxes = [c.box for c in cands]
    w_crop, _ = timeit(lambda: [normalise_crop(frame, b) for b in boxes], repeat)
    w_clf, _ = timeit(lambda: clf.predict(frame, boxes), repeat)
    print(f"    finder: outline {w_out:6.2f} ms + pips {w_pip:6.2f} ms;  classifier: {len(boxes)} candidates "
          f"{w_clf:6.2f} ms (crops {w_crop:5.2f} ms)")


def engines(repeat: int) -> None:
    """Each shipped network on OpenCV's default engine and on the classic one the reader loads it with
    (`vision/onnx_net.py`): OpenCV 5 has two; OpenCV 4 only the classic one (one line then)."""
    choices = [("default", None)] + ([("classic", CLASSIC)] if CLASSIC is not None else [])
    rng = np.random.default_rng(0)
    for name in ("pips", "numerals", "finder", "pips-under", "kingoftokyo-under", "corner-numbers"):
        onnx_path = MODELS / f"{name}.onnx"
        if not onnx_path.exists():
            continue
        shape, what = _input_shape(name)
        batch = rng.random(shape, dtype=np.float32)
        cells = []
        for label, engine in choices:
            net = load_net(onnx_path, engine)
            outs = net.getUnconnectedOutLayersNames()

            def forward(net=net, outs=outs, batch=batch) -> None:
                net.setInput(batch)
                net.forward(outs)

            cells.append(f"{label} {timeit(forward, repeat)[1]:5.2f} ms")
        print(f"cv2.dnn engines: {name:<17} {what:<28} cpu " + ";  ".join(cells))


def _input_shape(name: str) -> tuple[tuple[int, ...], str]:
    """The batch a network is timed on, and its words: the finder a frame, the corner-number network six
    one-channel corner patches, the face networks six crops."""
    if name.startswith("finder"):
        return (1, 3, 256, 320), "a 640x512 frame (320x256 in)"
    meta = json.loads((MODELS / f"{name}.json").read_text(encoding="utf-8"))
    if name == "corner-numbers":
        side = int(meta["patch"])
        return (6, 1, side, side), f"6 patches {side}x{side}"
    size = int(meta.get("size", 32))
    return (6, 3, size, size), f"6 crops {size}x{size}"


def hero_under(repeat: int) -> None:
    """Dice Throne hero dice under the tray with the background the watcher learned (the box's own read of a
    game's roll; the aim is 5 dice in <= 5 ms): the whole read, then its split into the finder (`find_dice`),
    each die's face (`FaceReader.read`, as read_dice calls it, after the finder) and the rest. Median over four
    frames of 5 dice of 40-70 px (its own generator: the lines above keep their frames)."""
    rng = np.random.default_rng(3)
    bg = render_tray([], mount="under", seed=7, room_seed=0)
    for set_id in ("dicethrone:barbarian", "dicethrone:vampire_lord"):
        hero = spec(set_id)
        fr = face_reader(hero, "under")
        parts = []
        for i in range(4):
            f = render_tray(random_dice(rng, 5, dice_set=hero, size=(40, 70)), mount="under", seed=i, room_seed=0)

            def find_and_faces(f: np.ndarray = f, fr: FaceReader = fr) -> None:
                # each die's face as read_dice reads it, right after the finder (timed warm on their own, the
                # faces came out 0.3-0.5 ms cheaper than inside the read)
                blobs = find_dice(f, "under", bg)
                typical = float(np.median([math.sqrt(b.area) for b in blobs])) if blobs else 0.0
                for b in blobs:
                    fr.read(f, None, b, typical, bg)

            parts.append((timeit(lambda f=f, hero=hero: read_dice(f, hero, "under", background=bg), repeat),
                          timeit(lambda f=f: find_dice(f, "under", bg), repeat), timeit(find_and_faces, repeat)))
        (w, c), (_, c_find), (_, c_both) = (tuple(np.median([p[k] for p in parts], axis=0)) for k in range(3))
        c_faces = c_both - c_find
        print(f"read {set_id.split(':')[1]:<13} under 5 dice, learned bg {w:7.2f} ms wall  {c:7.2f} ms cpu   aim <= 5 ms")
        print(f"    cpu ms: finder {c_find:5.2f};  faces {c_faces:5.2f};  the rest {c - c_find - c_faces:5.2f}")


def box_frames(frames: int, repeat: int) -> None:
    """The box's own read (under the tray, each frame with its room learned from an empty frame of that room)
    over many frames of 5 dice of 40-70 px of each kind of set: the median and the 90th percentile of one
    frame's CPU ms. Why: one frame says little (the 5-dice d6 frame above holds a black die in a lamp's glow,
    the case the refit is for, which most throws do not); each frame is read `repeat` times, its median kept.
    Then the frame as the watcher reads it (`watched_ms`), of which the read with the room is only a part."""
    rng = np.random.default_rng(11)
    for set_id in ("d6", "dicethrone:barbarian", "dicethrone:vampire_lord", "kingoftokyo", "d12", "regidice"):
        ds = spec(set_id)
        per_frame, watched = [], []
        for i in range(frames):
            dice = random_dice(rng, 5, dice_set=ds, size=(40, 70), colours=ds.get("colours") or None)
            f = render_tray(dice, mount="under", seed=i, room_seed=i)
            room = room_of(render_tray([], mount="under", seed=i + 7919, room_seed=i))
            with_room = partial(read_dice, f, ds, "under", background=room.image)
            per_frame.append(timeit(with_room, repeat)[1])
            watched.append(watched_ms(f, ds, room, repeat))
        print(f"box read {set_id:<24} {frames} frames of 5 dice, learned bg: median {np.median(per_frame):5.2f} ms, "
              f"90% {np.percentile(per_frame, 90):5.2f} ms cpu   aim <= 5 ms;  as the watcher reads "
              f"{np.median(watched):6.2f} ms")


def room_of(empty: np.ndarray) -> Room:
    """The room a watcher learns from an empty tray's frame."""
    room = Room()
    room.add_empty([empty])
    return room


def watched_ms(frame: np.ndarray, ds: DiceSetLike, room: Room, repeat: int) -> float:
    """CPU ms of one frame as the watcher reads it once its room is learned (`Watcher._read_frame`): without
    the room and with it, merged (`vision.room.merge`). Why: the box reads every settled frame so."""
    def both() -> None:
        forget_frames()   # a frame the box has not read yet (its room it has)
        plain = read_dice(frame, ds, "under")
        merge(plain, read_dice(frame, ds, "under", background=room.image), frame, room)

    return timeit(both, repeat)[1]


def first_read(fn: Callable[[], object]) -> Callable[[], object]:
    """`fn` run on a frame the box has not read yet (`readsize.forget_frames` first)."""
    def run() -> object:
        forget_frames()
        return fn()

    return run


# the Pi camera's frame (device/camera/picamera2_source.py): the box reads it shrunk
# (`readsize.at_read_size`); and a main stream of 960x720, which the box would shrink to its 480 px by exact
# halves (OpenCV's fast path)
PI_FRAME = (1296, 972)
HALVED_FRAME = (960, 720)


def camera_frames(frames: int, repeat: int) -> None:
    """The box's read of the Pi camera's own frames: box_frames' frames enlarged (bicubic) to PI_FRAME with
    their room, as the watcher hands them (one room object for every read of a frame). The read with the room
    (as box_frames), of it the shrink to the read size (`readsize.at_read_size`, the frame and its room), and
    the frame as the watcher reads it (`watched_ms`). Every timed read is of a frame not read before. Then the
    same at HALVED_FRAME. Why: at PI_FRAME the shrink by 2.7 is about half the read (OpenCV's area resize
    has no fast path for it); what a smaller main stream would save, before anyone tries one on a Pi."""
    for size in (PI_FRAME, HALVED_FRAME):
        camera_frames_at(size, frames, repeat)


def camera_frames_at(size: tuple[int, int], frames: int, repeat: int) -> None:
    """`camera_frames` at one frame size."""
    rng = np.random.default_rng(11)
    for set_id in ("d6", "kingoftokyo"):
        ds = spec(set_id)
        whole, shrink, watched = [], [], []
        for i in range(frames):
            dice = random_dice(rng, 5, dice_set=ds, size=(40, 70), colours=ds.get("colours") or None)
            f, bg = (cv2.resize(render_tray(d, mount="under", seed=s, room_seed=i), size,
                                interpolation=cv2.INTER_CUBIC) for d, s in ((dice, i), ([], i + 7919)))
            room, side = room_of(bg), camera_side(f, True)
            with_room = partial(read_dice, f, ds, "under", background=room.image)
            whole.append(timeit(first_read(with_room), repeat)[1])
            shrink.append(timeit(first_read(partial(at_read_size, f, room.image, side)), repeat)[1])
            watched.append(watched_ms(f, ds, room, repeat))
        print(f"box read {set_id:<11} at {size[0]}x{size[1]} {frames} frames of 5 dice, learned bg: "
              f"median {np.median(whole):5.2f} ms, 90% {np.percentile(whole, 90):5.2f} ms cpu;  of it the "
              f"shrink {np.median(shrink):5.2f} ms;  as the watcher reads {np.median(watched):6.2f} ms")


def blender_frames(seeds: str, repeat: int) -> None:
    """The box's read of Blender's under-tray frames (`training.blender_undertray_canvases`, looks as the
    camera's): each frame with its room learned from its own empty tray, read as the watcher reads one frame
    (`watched_ms`), and of it the read without the room (all a box reads before it has learnt its room). Why:
    the demo renderer's frames are clean and their dice easy; Cycles' grain, glare and touching dice make the
    reader search more (a die doubted is looked at again), and these are the frames its figures come from."""
    from training.blender_canvases import seed_list
    from training.blender_undertray_canvases import FRAMES as RENDERS
    from training.blender_undertray_canvases import camera_frame
    from training.blender_undertray_factors import read_rows
    watched, roomless, counts, sets = [], [], [], set()
    for seed in seed_list(seeds):
        folder = RENDERS / f"s{seed}"
        if not (folder / "labels.jsonl").exists():
            continue
        for row in read_rows(folder):
            frame, empty = camera_frame(folder, row), camera_frame(folder, row, empty=True)
            if frame is None or empty is None or row.get("cut"):
                continue
            set_id = row["dice"][0].get("set", "d6") if row["dice"] else "d6"
            ds = spec(set_id)   # a symbol set as the box has it (its game's description)
            sets.add(set_id.split(":")[0])
            counts.append(len(row["dice"]))
            roomless.append(timeit(first_read(partial(read_dice, frame, ds, "under")), repeat)[1])
            watched.append(watched_ms(frame, ds, room_of(empty), repeat))
    if not watched:
        print(f"Blender frames from below: none rendered for seeds {seeds} (make blender-undertray)")
        return
    print(f"Blender frames from below ({', '.join(sorted(sets))}), seeds {seeds}: {len(watched)} frames, "
          f"{sum(counts)} dice; as the "
          f"watcher reads one frame median {np.median(watched):6.2f} ms, "
          f"90% {np.percentile(watched, 90):6.2f} ms cpu; of it the read without the room median "
          f"{np.median(roomless):6.2f} ms, 90% {np.percentile(roomless, 90):6.2f} ms")
    for n in sorted(set(counts)):
        ms = [w for w, k in zip(watched, counts, strict=True) if k == n]
        print(f"  {n} dice: {len(ms):3d} frames, as the watcher reads median {np.median(ms):6.2f} ms "
              f"({np.median(ms) / n:5.2f} ms a die)")


# the photos' dice counts a bucket holds (labelled dice per photo)
BUCKETS = ((1, 3), (4, 7), (8, 14), (15, 25), (26, 999))


def blob_counter() -> cv2.SimpleBlobDetector:
    """A plain blob counter (OpenCV's SimpleBlobDetector, its defaults but for small pips): the yardstick the
    reader's photo speed is set against (issue 31: "no slower than a blob counter on the same photos")."""
    p = cv2.SimpleBlobDetector_Params()
    p.minArea = 4
    return cv2.SimpleBlobDetector_create(p)


def sample_photos(n: int) -> list:
    """About `n` labelled photos of pip d6 from every such set in ../shared/datasets, spread evenly over each
    set (the same photos on every run), with their labelled dice."""
    from training.data import datasets_root, load_photos
    names = [d.name for d in sorted(datasets_root().iterdir())
             if (d / "labels").is_dir() and d.name not in ("d20-numerals", "polyhedral-numerals", "dicefinder-pi")]
    sets = {name: [p for p in load_photos(name) if p.dice] for name in names}
    total = sum(len(v) for v in sets.values())
    out = []
    for phs in sets.values():
        k = max(1, round(len(phs) * n / max(total, 1)))
        out += phs[::max(1, len(phs) // k)][:k]
    return out


def photos_by_dice(n: int, repeat: int) -> None:
    """Real photos from above (`--mount over`, the shipped models): one photo's median CPU ms by its number of
    labelled dice, beside the blob counter on the same photos, and the reader's cost per die (a line fitted
    through every photo's ms against its dice)."""
    photos = sample_photos(n)
    blobs = blob_counter()
    rows = []
    for ph in photos:
        img = cv2.imread(str(ph.path))
        if img is None:
            continue
        _, c_read = timeit(lambda img=img: read_dice(img, "d6", "over"), repeat)
        _, c_blob = timeit(lambda img=img: blobs.detect(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)), repeat)
        rows.append((len(ph.dice), c_read, c_blob))
    a = np.array(rows, float)
    print(f"photos from above, {len(a)} photos of every pip-d6 set (median cpu ms per photo; blob counter: "
          f"SimpleBlobDetector on the same photos)")
    for lo, hi in BUCKETS:
        m = (a[:, 0] >= lo) & (a[:, 0] <= hi)
        if m.any():
            r, b = np.median(a[m, 1]), np.median(a[m, 2])
            print(f"    {lo:2d}-{hi if hi < 999 else '':<3} dice {int(m.sum()):4d} photos: read {r:7.2f} ms   "
                  f"blob counter {b:6.2f} ms   x{r / b:5.1f}")
    r, b = np.median(a[:, 1]), np.median(a[:, 2])
    slope, icpt = np.polyfit(a[:, 0], a[:, 1], 1)
    print(f"    all   dice {len(a):4d} photos: read {r:7.2f} ms   blob counter {b:6.2f} ms   x{r / b:5.1f};  "
          f"fit: {icpt:6.2f} ms + {slope:5.2f} ms a die")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--frames", type=int, default=30, help="frames per set for the box's reads over many frames")
    ap.add_argument("--photos", type=int, default=250, help="real photos from above, timed by their dice (0: none)")
    ap.add_argument("--photos-only", action="store_true", help="only the real photos and the box's 5-dice reads")
    ap.add_argument("--blender", default="",
                    help="only the box's read of these Blender seeds' frames from below")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    try:
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    except (AttributeError, OSError):
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"dicesight vision speed, one core (OpenCV threads 1), load average {load:.1f}")
    if args.blender:
        blender_frames(args.blender, max(3, args.repeat // 6))
        return 0
    rng = np.random.default_rng(3)
    five = random_dice(rng, 5, size=(40, 70))
    twenty = random_dice(rng, 20, size=(36, 48))
    frames = {}
    for mount in ("over", "under"):
        frames[(mount, 5)] = render_tray(five, mount=mount, background="felt" if mount == "over" else None, seed=1)
        frames[(mount, 20)] = render_tray(twenty, mount=mount, background="felt" if mount == "over" else None, seed=1)
    if args.photos:
        photos_by_dice(args.photos, max(1, args.repeat // 10))
    if args.photos_only:
        hero_under(args.repeat)
        box_frames(args.frames, max(3, args.repeat // 6))
        camera_frames(args.frames, max(3, args.repeat // 6))
        return 0
    a, b = frames[("over", 5)], frames[("over", 20)]
    prev = small_grey(a)

    def gate():
        motion_between(small_grey(b), prev)

    w, c = timeit(gate, args.repeat * 10)
    engines(args.repeat)
    print(f"motion gate (small grey + change) 640x480   {w:7.2f} ms wall  {c:7.2f} ms cpu   aim <= 0.5 ms")
    for mount in ("over", "under"):
        for n in (5, 20):
            f = frames[(mount, n)]
            w, c = timeit(lambda f=f, mount=mount: read_dice(f, "d6", mount), args.repeat)
            aim = "   aim <= 5 ms" if n == 5 else ""
            print(f"read d6 {mount:<5} {n:2d} dice 640x480            {w:7.2f} ms wall  {c:7.2f} ms cpu{aim}")
            stage_split(f, mount, args.repeat)
    # the box: under the tray, with the background the watcher learned from empty frames (an empty frame of
    # the same room with its own sensor noise, as the watcher keeps it)
    for n in (5, 20):
        f = frames[("under", n)]
        bg = render_tray([], mount="under", seed=7, room_seed=0)
        w, c = timeit(lambda f=f, bg=bg: read_dice(f, "d6", "under", background=bg), args.repeat)
        aim = "   aim <= 5 ms" if n == 5 else ""
        print(f"read d6 under {n:2d} dice, learned background  {w:7.2f} ms wall  {c:7.2f} ms cpu{aim}")
        w_out, c_out = timeit(lambda f=f, bg=bg: find_dice(f, "under", bg), args.repeat)
        cands = outline_candidates(find_dice(f, "under", bg))
        w_cnt, c_cnt = timeit(lambda f=f, cands=cands: [count_pips(f, k.rect) for k in cands], args.repeat)
        clf = load_classifier("pips")
        w_clf, c_clf = timeit(lambda f=f, cands=cands, clf=clf: clf.predict(f, [k.box for k in cands]), args.repeat)
        print(f"    cpu ms: finder: outlines {c_out:5.2f} + crop pip counts {c_cnt:5.2f};  classifier: {len(cands)} "
              f"candidates {c_clf:5.2f} (crops + one cv2.dnn batch);  the rest {c - c_out - c_cnt - c_clf:5.2f}")
    hero = spec("dicethrone:barbarian")
    icons = render_tray(random_dice(rng, 5, dice_set=hero), mount="over", background="felt", seed=2)
    w, c = timeit(lambda: read_dice(icons, hero, "over"), args.repeat)
    print(f"read hero icons over 5 dice 640x480        {w:7.2f} ms wall  {c:7.2f} ms cpu")
    hero_under(args.repeat)
    box_frames(args.frames, max(3, args.repeat // 6))
    w, c = timeit(lambda: render_tray(five, mount="under", seed=5), args.repeat)
    print(f"render_tray 5 dice 640x480 (under)         {w:7.2f} ms wall  {c:7.2f} ms cpu")
    w, c = timeit(lambda: render_tray(twenty, mount="over", background="wood", seed=5), args.repeat)
    print(f"render_tray 20 dice 640x480 (over, wood)   {w:7.2f} ms wall  {c:7.2f} ms cpu")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
