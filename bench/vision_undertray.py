"""The CURRENT reader on physically rendered under-tray frames (training/blender_undertray.py), `--mount under`.

    nice -n 15 .venv/bin/python bench/vision_undertray.py [--seeds 1-3] [--debug-out build/undertray-debug]

Every frame is read three ways: alone; with its empty tray (the same scene without dice, its own noise) handed
to the reader as the old watcher did; and as the watcher reads now (`vision.room`: the room learned from the
empty tray, the frame read with and without it, the two reads merged). Figures by material, colour, touching/tilted, build option, plate, LED ring and room, each line a
factor group held out in the sense that the shipped reader never saw any of these renders. Columns as
bench/vision_accuracy.py: acc (right top value, certain or not), certain-right, uncertain, silent (wrong but
certain), missed, phantom (readings near no die). Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from training.blender_canvases import seed_list  # noqa: E402
from training.blender_undertray_canvases import FRAMES, camera_frame  # noqa: E402
from training.blender_undertray_factors import read_rows  # noqa: E402
from vision.reader import read_dice  # noqa: E402
from vision.room import Room, merge  # noqa: E402
from vision.scoring import Score, score  # noqa: E402

RADIUS = 25.0   # px: a reading this near a die's centre is its reading (dice are 30-60 px across at 320x240)


def truth_of(die: dict) -> dict:
    return {"value": die["top"], "center": tuple(die["center"]), "colour": die["colour"]}


def groups(row: dict, die: dict) -> list[str]:
    """The factor groups one die counts in."""
    f = row["factors"]
    return [f"material {die['material']}", f"colour {die['colour']}",
            "touching" if die["touching"] else "apart", *(["tilted"] if die["tilted"] else []),
            f"build {f['build']}", f"plate {f['plate']}", f"leds {f['leds']}", f"room {f['room']}",
            f"pips {f['pips']}"]


MODES = {"alone": "", "room": " + room (as the old watcher)", "merged": " + room merged (vision.room, the watcher now)"}


def read_frame(img, empty, mode: str) -> list:
    """The frame's readings in one of `MODES`."""
    if mode == "alone":
        return read_dice(img, "d6", "under")
    if mode == "room":
        return read_dice(img, "d6", "under", background=empty)
    room = Room()
    room.add_empty([empty])
    return merge(read_dice(img, "d6", "under"), read_dice(img, "d6", "under", background=room.image), img, room)


def read_row(folder: Path, row: dict, mode: str) -> tuple[list[Score], Score, float] | None:
    """Per die a Score (so each can count in its groups) and the frame's phantoms, and a hardness figure."""
    img = camera_frame(folder, row)
    if img is None or row.get("cut"):
        return None
    empty = camera_frame(folder, row, empty=True) if mode != "alone" else None
    readings = read_frame(img, empty, mode)
    whole = score([truth_of(d) for d in row["dice"]], readings, RADIUS, use_face=False)
    per_die = [score([truth_of(d)], [r for r in readings if _near(r, d)], RADIUS, use_face=False)
               for d in row["dice"]]
    bad = whole.dice - whole.correct + whole.phantom
    return per_die, whole, bad


def _near(r, die: dict) -> bool:
    return (r.center[0] - die["center"][0]) ** 2 + (r.center[1] - die["center"][1]) ** 2 <= RADIUS ** 2


def run(folders: list[Path], mode: str, debug_out: Path | None) -> None:
    total, by = Score(), defaultdict(Score)
    phantoms_by_build: dict[str, int] = defaultdict(int)
    hardest = []
    for folder in folders:
        for row in read_rows(folder):
            got = read_row(folder, row, mode)
            if got is None:
                continue
            per_die, whole, bad = got
            total.add(whole)
            phantoms_by_build[row["factors"]["build"]] += whole.phantom
            for die, sc in zip(row["dice"], per_die, strict=True):
                for g in groups(row, die):
                    by[g].add(sc)
            hardest.append((bad, folder, row))
    print(total.line("all" + MODES[mode]))
    for g in sorted(by):
        print("  " + by[g].line(g))
    print("  phantoms by build: " + ", ".join(f"{k} {v}" for k, v in sorted(phantoms_by_build.items())))
    if debug_out is not None:
        write_hardest(sorted(hardest, key=lambda t: -t[0])[:6], debug_out, mode != "alone")


def write_hardest(rows: list, out: Path, room: bool) -> None:
    """The hardest frames as the camera gives them (`*_cam.png`, for `dicesight read --mount under
    --debug-out`) and with the truth's boxes and glass faces drawn, for a person to look at."""
    out.mkdir(parents=True, exist_ok=True)
    for bad, folder, row in rows:
        img = camera_frame(folder, row)
        cv2.imwrite(str(out / f"{folder.name}_{row['index']:05d}_cam.png"), img)
        for d in row["dice"]:
            cx, cy, w, h = d["box"]
            cv2.rectangle(img, (int(cx - w / 2), int(cy - h / 2)), (int(cx + w / 2), int(cy + h / 2)), (0, 255, 0), 1)
            cv2.putText(img, str(d["glass"]), (int(cx - w / 2), int(cy - h / 2) - 2), 0, 0.4, (0, 255, 0), 1)
        name = f"{folder.name}_{row['index']:05d}{'_room' if room else ''}.png"
        cv2.imwrite(str(out / name), img)
        print(f"  hardest: {out / name} (wrong+missed+phantoms {bad}, {row['factors']})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="1-10")
    ap.add_argument("--debug-out", type=Path, default=None)
    args = ap.parse_args()
    folders = [FRAMES / f"s{s}" for s in seed_list(args.seeds) if (FRAMES / f"s{s}" / "labels.jsonl").exists()]
    n = sum(len(read_rows(f)) for f in folders)
    print(f"under-tray Blender frames: {n} in {', '.join(f.name for f in folders)} (320x240, d6)")
    for mode in MODES:
        run(folders, mode, args.debug_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
