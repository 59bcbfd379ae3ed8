"""A compressed game night against a real box, on loopback: hours of play in minutes.

Starts `dicesight run` with a replay camera (rendered pip dice landing on the tray, over and over) and the
virtual panel (`--gpio mock`) in a throwaway state directory, pairs two phones, then for each simulated hour:
plays games through the API (Dice Throne answered from the pending decision's own options, free-roll rolls,
undo), lets watching phones join and leave, and takes the box's figures. One hour has a camera unplug storm
(the replay folder vanishes and comes back, again and again), one has a SIGKILL and a restart. It prints,
per hour, memory, open files, threads, bytes written to the state directory (SD card wear) and the camera's
status, and at the end every acknowledged action that the box lost (there should be none).

Bounded: a fixed number of hours and actions; it stops by itself.

With `--tracemalloc` the box runs under bench/traced_box.py: after each simulated hour the soak asks it for a
tracemalloc snapshot and prints the source lines whose memory grew most since the hour before (what leaks,
measured rather than guessed; tracing makes the box slower and bigger, so its RSS is not comparable).

    .venv/bin/python bench/soak.py [--hours 4] [--actions-per-hour 300] [--tracemalloc]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.web_load import HOST, Watcher, call, pair, phone_address, proc_stats  # noqa: E402
from vision.render import random_dice, render_tray  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def write_frames(folder: Path, throws: int = 6, seed: int = 7) -> None:
    """Rendered frames from under the tray: each throw is a few empty frames, then dice lying still."""
    folder.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    n = 0
    for throw in range(throws):
        for _ in range(4):
            cv2.imwrite(str(folder / f"{n:04d}.jpg"), render_tray([], seed=1000 + n, room_seed=throw))
            n += 1
        dice = random_dice(rng, int(rng.integers(2, 6)))
        for _ in range(12):
            cv2.imwrite(str(folder / f"{n:04d}.jpg"), render_tray(dice, seed=1000 + n, room_seed=throw))
            n += 1


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def rss_split(pid: int) -> tuple[float, float]:
    """Resident memory (MiB) that is anonymous (heaps, stacks) and file-backed (mapped libraries, files)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return float("nan"), float("nan")
    kib = {line.split(":")[0]: int(line.split()[1]) for line in text.splitlines()
           if line.startswith(("RssAnon:", "RssFile:"))}
    return round(kib.get("RssAnon", 0) / 1024, 1), round(kib.get("RssFile", 0) / 1024, 1)


def proc_write_bytes(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/io").read_text().splitlines():
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def unit_environment(unit: Path = ROOT / "systemd" / "dicesight.service") -> dict[str, str]:
    """The malloc settings the box's systemd unit starts it with: the soak measures the box as it ships."""
    env = {}
    for line in unit.read_text(encoding="utf-8").splitlines():
        if line.startswith("Environment=") and line.split("=", 1)[1].startswith(("MALLOC_", "GLIBC_TUNABLES=")):
            key, value = line.split("=", 1)[1].split("=", 1)
            env[key] = value
    return env


class Box:
    """The `dicesight run` process under test."""

    def __init__(self, state: Path, frames: Path, traces: Path | None = None) -> None:
        self.state, self.frames, self.traces = state, frames, traces
        self.proc: subprocess.Popen | None = None
        self.port = 0

    def start(self) -> None:
        program = ["-m", "device.cli"] if self.traces is None else [str(ROOT / "bench" / "traced_box.py")]
        cmd = [sys.executable, *program, "run", "--camera", f"replay:{self.frames}", "--gpio", "mock",
               "--host", HOST, "--port", "0", "--state-dir", str(self.state), "--json"]
        env = dict(os.environ) | unit_environment()
        if self.traces is not None:
            env["DICESIGHT_TRACEMALLOC_DIR"] = str(self.traces)
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                     env=env)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "started":
                self.port = int(event["port"])
                threading.Thread(target=self.proc.stdout.read, daemon=True).start()  # drain
                return
        raise RuntimeError("the box did not start")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is None:
            return
        self.proc.send_signal(sig)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def memory_snapshot(self) -> tracemalloc.Snapshot | None:
        """A tracemalloc snapshot of the box (--tracemalloc only): SIGUSR1, then wait for its file."""
        if self.traces is None or self.proc is None:
            return None
        before = set(self.traces.glob(f"{self.proc.pid}-*.snap"))
        self.proc.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            new = set(self.traces.glob(f"{self.proc.pid}-*.snap")) - before
            if new:
                path = new.pop()
                sizes = path.with_suffix(".json")
                if sizes.exists():
                    print("  engine caches, memory: " + ", ".join(f"{k} {v}" for k, v in json.loads(sizes.read_text()).items()))
                snap = tracemalloc.Snapshot.load(str(path))
                return snap.filter_traces([tracemalloc.Filter(False, tracemalloc.__file__),
                                           tracemalloc.Filter(False, "<frozen importlib._bootstrap*>")])
            time.sleep(0.2)
        print("  (no tracemalloc snapshot from the box)")
        return None


def print_growth(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot, top: int = 8) -> None:
    """The source lines whose held memory grew most between two snapshots, and who called the biggest."""
    held = sum(s.size for s in after.statistics("filename"))
    total = held - sum(s.size for s in before.statistics("filename"))
    print(f"  traced memory {held / 2**20:.1f} MiB held, {total / 1024:+.0f} KiB since the hour before; grew most:")
    for stat in after.compare_to(before, "lineno")[:top]:
        if stat.size_diff <= 0:
            break
        frame = stat.traceback[0]
        print(f"    {stat.size_diff / 1024:+8.1f} KiB {stat.count_diff:+7d} blocks  {frame.filename}:{frame.lineno}")
    for stat in after.compare_to(before, "traceback")[:2]:
        if stat.size_diff <= 0:
            break
        print(f"    {stat.size_diff / 1024:+.1f} KiB allocated through:")
        for line in stat.traceback.format(most_recent_first=True)[:12]:
            print(f"      {line}")


def play_step(port: int, headers: dict[str, str], rng: random.Random) -> tuple[int, dict | None]:
    """One move as a phone would make it: roll the dice the pending decision asks for, or answer it with one
    of its own options (when a roll is refused, e.g. no attempts left, the phone picks an option), or undo."""
    status, snap, _, _ = call(port, "GET", "/api/state")
    pending = (snap or {}).get("pending") or {}
    tries: list[dict] = []
    if rng.random() < 0.05:
        tries.append({"type": "undo"})
    if (pending.get("input") or {}).get("type") == "dice" and rng.random() < 0.7:
        count = pending["input"].get("count") or rng.randint(1, 5)
        tries.append({"type": "roll", "dice": [rng.randint(1, 6) for _ in range(count)], "source": "manual"})
    if pending.get("options"):
        tries.append(rng.choice(pending["options"])["action"])
    if not tries:
        tries.append({"type": "roll", "dice": [rng.randint(1, 6) for _ in range(3)], "source": "manual"})
    for action in tries:
        status, answer, _, _ = call(port, "POST", "/api/actions", action, headers)
        if status == 200:
            break
    return status, answer


def new_game(port: int, headers: dict[str, str], rng: random.Random) -> None:
    status, games, _, _ = call(port, "GET", "/api/games")
    if rng.random() < 0.5:
        call(port, "POST", "/api/games", {"game": "freeroll", "setup": {}}, headers)
        return
    heroes = ["barbarian", "gunslinger", "ninja", "pyromancer", "samurai", "treant"]
    a, b = rng.sample(heroes, 2)
    call(port, "POST", "/api/games", {"game": "dicethrone", "seed": rng.randint(0, 10_000), "setup": {
        "mode": "1v1", "players": [{"id": "p1", "name": "Ana", "hero": a}, {"id": "p2", "name": "Bo", "hero": b}]}},
        headers)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hours", type=int, default=4)
    ap.add_argument("--actions-per-hour", type=int, default=300,
                    help="moves in a simulated hour (a Dice Throne game is ~190 moves in ~40 minutes)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tracemalloc", action="store_true",
                    help="run the box under tracemalloc and print what grew each hour (slower, bigger)")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    tmp = tempfile.TemporaryDirectory(prefix="dicesight-soak-")
    state, frames = Path(tmp.name) / "state", Path(tmp.name) / "frames"
    write_frames(frames)
    traces = Path(tmp.name) / "traces" if args.tracemalloc else None
    if traces is not None:
        traces.mkdir()
    box = Box(state, frames, traces)
    box.start()
    memory: tracemalloc.Snapshot | None = None
    lost: list[str] = []
    try:
        headers = [pair(box.port, phone_address(k)) for k in range(2)]
        watchers: list[tuple[Watcher, threading.Event]] = []
        print("hour  moves  refused  rss_mib (anon+file)  fds  threads  written_kib  state_kib  camera")
        for hour in range(1, args.hours + 1):
            written0 = proc_write_bytes(box.proc.pid)
            size0 = dir_bytes(state)
            new_game(box.port, headers[0], rng)
            last_seq, game_id, refused = 0, None, 0
            codes: dict = {}
            for i in range(args.actions_per_hour):
                if i % 60 == 0:  # phones join and leave
                    for _w, stop in watchers[: len(watchers) // 2]:
                        stop.set()
                    watchers = watchers[len(watchers) // 2:]
                    for _ in range(rng.randint(2, 8)):
                        stop = threading.Event()
                        w = Watcher(box.port, stop, phone_address(10 + len(watchers) % 200))
                        w.start()
                        watchers.append((w, stop))
                if hour == 2 and i == args.actions_per_hour // 2:  # camera unplug storm
                    for _ in range(10):
                        frames.rename(frames.with_name("unplugged"))
                        time.sleep(0.3)
                        frames.with_name("unplugged").rename(frames)
                        time.sleep(0.3)
                status, answer = play_step(box.port, headers[i % 2], rng)
                if status == 200 and answer:
                    last_seq, game_id = int(answer["seq"]), answer.get("game_id")
                    if answer.get("phase") == "over":
                        new_game(box.port, headers[0], rng)
                else:
                    refused += 1
                    code = (answer or {}).get("code", status)
                    codes[code] = codes.get(code, 0) + 1
            if hour == 3:  # a power cut: SIGKILL, restart, everything acknowledged must be there
                box.stop(signal.SIGKILL)
                box.start()
                headers = [pair(box.port, phone_address(k)) for k in range(2)]
                _, snap, _, _ = call(box.port, "GET", "/api/state")
                if snap.get("game_id") != game_id or int(snap["seq"]) < last_seq:
                    lost.append(f"hour {hour}: acknowledged seq {last_seq} of {game_id}, "
                                f"after restart {snap.get('seq')} of {snap.get('game_id')}")
                written0, size0 = 0, size0
            stats = proc_stats(box.proc.pid)
            _, health, _, _ = call(box.port, "GET", "/healthz")
            camera = ((health or {}).get("camera") or {}).get("status")
            written = (proc_write_bytes(box.proc.pid) - written0) // 1024
            anon, mapped = rss_split(box.proc.pid)
            print(f"{hour:>4}  {args.actions_per_hour:>5}  {refused:>7}  {stats['rss_mib']:>7} ({anon}+{mapped})"
                  f"  {stats['fds']:>3}"
                  f"  {stats['threads']:>7}  {written:>11}  {(dir_bytes(state) - size0) // 1024:>9}  {camera}  {codes or ''}")
            snap = box.memory_snapshot()
            if snap is not None and memory is not None and hour != 3:  # hour 3 restarted the box
                print_growth(memory, snap)
            memory = snap
        for _w, stop in watchers:
            stop.set()
        print(f"lost acknowledged actions: {len(lost)}" + "".join(f"\n  {x}" for x in lost))
        return 1 if lost else 0
    finally:
        box.stop()
        tmp.cleanup()


if __name__ == "__main__":
    raise SystemExit(main())
