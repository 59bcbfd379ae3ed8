"""Power-cut test: play games through the table service, SIGKILL it at random moments, check nothing is lost.

    python bench/crash.py [--kills 1000] [--phones 3] [--seed 1] [--max-delay 0.1] [--state-dir DIR] [--json]

A child process plays scripted games (free roll, with roll photos, and Dice Throne driven through its legal
options; undo, redo and illegal actions mixed in; new games now and then) through `device.table.Table`
on a real `device.store.Store`. After every `submit` that returns it writes an acknowledgement line.
The driver kills it with SIGKILL: half the time right after a random number of acknowledged actions
(so mid-submit), a quarter at a random moment once the table is up, a quarter at any moment from the
fork on (while the store opens, checks and replays). Then it opens the store itself and checks that
- the store opens clean (no corruption recovery needed),
- every acknowledged action is there, at its sequence number, unchanged (a missing one is "lost"),
- each log is gap-free, and only the action in flight at the kill may be there unacknowledged,
- the state rebuilt from the latest checkpoint equals the replay of the whole log from the start,
- every acknowledged roll photo is there;
then starts the next child on the same store. It prints the kills survived and the actions lost (must be 0).

With `--phones N` (3 by default) the child also serves the page's API on loopback and N paired phones post
the legal moves they see over HTTP at the same time, as at a game night; a phone's action is acknowledged when
its 200 answer arrives (the move the answer shows must then survive; with several writers, up to one action
per writer may be durable and unacknowledged at a kill). The driver also times each restart: from the fork to
the table's "ready" (store opened, checked, replayed).

Children are forked from a warm "zygote" process that has already imported everything, so a kill cycle
costs milliseconds, not an interpreter start, and 1,000 kills take a couple of minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# Run as a script, bench/ is sys.path[0], where bench scripts named like our packages (engine.py...)
# would shadow them: the repository root goes there instead.
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    sys.path[0] = str(REPO)
elif str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

DICETHRONE_SETUP = {"mode": "1v1", "players": [{"id": "ann", "hero": "gunslinger"},
                                              {"id": "bo", "hero": "barbarian"}]}
FAKE_JPEG = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 8 + b"\xff\xd9"


# -- the child: plays until killed ---------------------------------------------------------------
def _emit(record: dict[str, Any]) -> None:
    """One line per write(2): the driver may read it even if we die right after."""
    os.write(1, (json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n").encode())


def _next_action(table: Any, rng: random.Random) -> tuple[dict[str, Any], bytes | None]:
    match = table.match
    r = rng.random()
    if r < 0.05 and match.can_undo():
        return {"type": "undo"}, None
    if r < 0.07 and match.can_redo():
        return {"type": "redo"}, None
    if r < 0.09:
        return {"type": "roll", "dice": [9]}, None  # illegal in every game: must change nothing
    options = getattr(match.rules, "options", None)
    if callable(options):
        legal = options(match.state)
        if legal:
            return dict(rng.choice(legal)), None
        return {}, None  # game over
    dice = [rng.randint(1, 6) for _ in range(rng.randint(1, 6))]
    if rng.random() < 0.15:
        return {"type": "roll", "dice": dice, "source": "camera"}, FAKE_JPEG + bytes([rng.randrange(256)])
    return {"type": "roll", "dice": dice, "source": "manual"}, None


def child_main(state_dir: Path, seed: int, phones: int = 0) -> None:
    from device.store import Store
    from device.table import Table
    from engine.core import IllegalAction

    rng = random.Random(seed)
    table = Table(Store(state_dir))
    _emit({"ev": "ready", "game": table.game_id, "seq": table.match.seq})
    if phones:
        _start_phones(table, state_dir, phones, rng.randrange(2**31))
    while True:
        action, image = _next_action(table, rng)
        if not action or rng.random() < 0.004:
            game, setup = rng.choice([("freeroll", {"title": "crash"}), ("dicethrone", DICETHRONE_SETUP)])
            table.new_game(game, setup, seed=rng.randrange(2**31))
            _emit({"ev": "new", "game": table.game_id})
            continue
        try:
            snap = table.submit(action, image=image)
        except IllegalAction:
            continue
        # the entry at the answer's seq: with phones posting too, the log's last entry may already be theirs
        mine = next((e.action for e in reversed(table.match.entries) if e.seq == snap["seq"]), None)
        _emit({"ev": "ack", "game": table.game_id, "seq": snap["seq"], "action": mine})


# -- phones: the same play over HTTP, three phones at once, as at a game night ---------------------------
def _start_phones(table: Any, state_dir: Path, count: int, seed: int) -> None:
    """Serve the page's API (waitress, loopback) and start `count` paired phones that post actions to it. A
    phone's action is acknowledged when its 200 answer arrives; the table's own loop keeps playing too (the
    camera and the buttons). Each phone pairs again after every restart (the box's tokens survive it, the
    phones' cookies live in this process)."""
    from device.webserver import ServerLimits, make_server
    from webui import create_app

    app = create_app(table, secret_key="crash", allow_seed=True)
    server = make_server(app, "127.0.0.1", 0, ServerLimits(max_streams=8, request_threads=8))
    threading.Thread(target=server.run, daemon=True).start()
    port = server.effective_port
    for i in range(count):
        phone = _Phone(port, random.Random(seed + i))
        phone.pair(table)
        threading.Thread(target=phone.play, args=(table,), daemon=True).start()


class _Phone:
    """One paired phone posting the legal moves it sees on the table, over HTTP."""

    def __init__(self, port: int, rng: random.Random) -> None:
        import http.client

        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.rng = rng
        self.headers = {"Content-Type": "application/json", "X-Dicesight-CSRF": "x", "Host": f"127.0.0.1:{port}"}

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any], Any]:
        self.conn.request(method, path, json.dumps(body) if body is not None else None, self.headers)
        res = self.conn.getresponse()
        data = res.read()
        return res.status, dict(res.getheaders()), json.loads(data) if data else None

    def pair(self, table: Any) -> None:
        _status, _h, asked = self.call("POST", "/api/pair")
        table.approve_pairing()  # the person at the box presses Pair
        _status, headers, got = self.call("GET", f"/api/pair/{asked['request']}")
        self.headers["Cookie"] = headers["Set-Cookie"].split(";", 1)[0]
        self.headers["X-Dicesight-CSRF"] = got["csrf"]

    def play(self, table: Any) -> None:
        while True:
            action, _image = _next_action(table, self.rng)
            if not action:
                continue
            status, _h, snap = self.call("POST", "/api/actions", action)
            if status == 200:  # acknowledged: the phone has its answer, the move it shows must stay
                _emit({"ev": "ack", "game": snap["game_id"], "seq": snap["seq"], "action": None})


def zygote_main(state_dir: Path, phones: int = 0) -> None:
    """Import everything once, then fork a child per "go SEED" line; report pids and deaths."""
    import device.store  # noqa: F401  (warm imports for the children)
    import device.table  # noqa: F401
    import engine.games  # noqa: F401
    if phones:
        import device.webserver  # noqa: F401
        import webui  # noqa: F401

    for line in sys.stdin:
        parts = line.split()
        if not parts or parts[0] != "go":
            continue
        pid = os.fork()
        if pid == 0:
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                child_main(state_dir, int(parts[1]), phones)
            except BaseException as exc:  # noqa: BLE001 - reported, then the child ends
                _emit({"ev": "crash", "error": repr(exc)})
            finally:
                os._exit(3)
        _emit({"ev": "pid", "pid": pid})
        _, status = os.waitpid(pid, 0)
        _emit({"ev": "dead", "pid": pid, "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None})


# -- the driver ------------------------------------------------------------------------------------
@dataclass
class Stats:
    kills: int = 0
    survived: int = 0  # kills after which every check passed
    acked: int = 0
    lost: int = 0
    in_flight_kept: int = 0  # durable but killed before its acknowledgement was written
    restart_s: list[float] = field(default_factory=list)  # fork to ready, per restart that got that far
    games: int = 0
    checkpoints_used: int = 0
    recoveries: int = 0
    photos_missing: int = 0
    restart_failures: int = 0  # games whose log is intact but cannot be rebuilt the way a restart does
    kills_mid_game: int = 0  # kills after at least one action of that child was acknowledged
    kills_after_ack: int = 0  # kills aimed just after an acknowledgement (mid-submit)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def ok(self) -> bool:
        return (not self.problems and self.lost == 0 and self.recoveries == 0 and self.photos_missing == 0
                and self.restart_failures == 0)


class Driver:
    def __init__(self, state_dir: Path, seed: int, max_delay: float, log_path: Path, phones: int = 3) -> None:
        self.state_dir = state_dir
        self.rng = random.Random(seed)
        self.max_delay = max_delay
        self.acked: dict[int, dict[int, dict[str, Any]]] = {}  # game -> seq -> action
        self.known_games: set[int] = set()
        self.stats = Stats()
        self.phones = phones
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PYTHONPATH": str(REPO)}
        self._log = open(log_path, "ab")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "zygote",
                                      "--state-dir", str(state_dir), "--phones", str(phones)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
                                     env=env, cwd=REPO)
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._up = self._gone = False
        self._child: int | None = None
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                self.lines.put(json.loads(raw))
            except ValueError:
                self.lines.put({"ev": "garbage", "line": raw[:200].decode(errors="replace")})
        self.lines.put(None)

    def _next(self, timeout: float = 120.0) -> dict[str, Any]:
        try:
            record = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise RuntimeError("the crash-test child went silent") from None
        if record is None:
            raise RuntimeError("the crash-test zygote exited")
        return record

    def cycle(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"go {self.rng.randrange(2**31)}\n".encode())
        self.proc.stdin.flush()
        self._go_at = time.monotonic()  # a restart: from the fork to the table's "ready" (store opened, replayed)
        acks_before = self.stats.acked
        self._up = False  # the child's "ready" may come before or after the zygote's "pid"
        self._gone = False
        record = self._next()
        while record["ev"] != "pid":
            self._note(record)
            record = self._next()
        pid = self._child = record["pid"]
        how = self.rng.random()
        deadline = time.monotonic() + 120
        if how < 0.5:
            # Half the kills come right after the k-th acknowledged action, i.e. while the next one is
            # being validated, logged, fsynced, checkpointed or published: mid-game whatever the load.
            target = acks_before + self.rng.randint(1, 40)
            self.stats.kills_after_ack += 1
            while self.stats.acked < target and time.monotonic() < deadline and not self._gone:
                self._note(self._next())
            time.sleep(self.rng.uniform(0.0, 0.005))
        elif how < 0.75:
            # A quarter at a random moment once the restarted table is up.
            while not self._up and time.monotonic() < deadline:
                self._note(self._next())
            time.sleep(self.rng.uniform(0.0, self.max_delay))
        else:
            # A quarter anywhere from the fork on: while the store opens, checks, replays.
            time.sleep(self.rng.uniform(0.0, self.max_delay))
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        while True:
            record = self._next()
            if record["ev"] == "dead":
                self._child = None  # reaped: its pid may belong to someone else from now on
                break
            self._note(record)
        if record["signal"] != signal.SIGKILL:
            self.stats.problems.append(f"child {pid} ended without being killed (signal {record['signal']})")
        self.stats.kills += 1
        if self.stats.acked > acks_before:
            self.stats.kills_mid_game += 1
        problems_before = len(self.stats.problems)
        self.verify()
        if len(self.stats.problems) == problems_before:
            self.stats.survived += 1

    def _note(self, record: dict[str, Any]) -> None:
        ev = record["ev"]
        if ev == "ack":
            self.acked.setdefault(record["game"], {})[record["seq"]] = record["action"]
            self.known_games.add(record["game"])
            self.stats.acked += 1
        elif ev in ("new", "ready"):
            self.known_games.add(record["game"])
            if ev == "ready" and not self._up and getattr(self, "_go_at", None) is not None:
                self.stats.restart_s.append(time.monotonic() - self._go_at)
            self._up = self._up or ev == "ready"
        elif ev in ("crash", "garbage"):
            self._up = self._gone = True  # nothing more will come from this child
            self.stats.problems.append(f"child: {record}")

    def verify(self) -> None:
        from device.store import Store
        from engine.games import get_rules
        from engine.match import Match

        store = Store(self.state_dir)
        try:
            if store.recovery:
                self.stats.recoveries += 1
                self.stats.problems.append(f"store needed recovery: {store.recovery}")
            games = {g["id"]: g for g in store.list_games()}
            self.stats.games = len(games)
            active = store.active_game_id()
            for gid, info in games.items():
                acked = self.acked.get(gid, {})
                top = max(acked, default=0)
                if info["actions"] == top and gid != active:
                    continue  # untouched since last checked, and nothing can be in flight there
                rec = store.load_game(gid)
                seqs = [e.seq for e in rec.entries]
                if seqs != list(range(1, len(seqs) + 1)):
                    self.stats.problems.append(f"game {gid}: log has gaps: {seqs[:5]}...")
                stored = {e.seq: e.action for e in rec.entries}
                for seq, action in acked.items():
                    # a phone's answer names the move it shows (several writers: not which action was its)
                    if (action is None and seq not in stored) or (action is not None and stored.get(seq) != action):
                        self.stats.lost += 1
                        self.stats.problems.append(f"game {gid}: acknowledged action {seq} lost or changed: {action} / {stored.get(seq)}")
                extra = len(seqs) - top
                if 1 <= extra <= 1 + self.phones and gid == active:  # one action in flight per writer
                    self.stats.in_flight_kept += extra
                    for seq in range(top + 1, len(seqs) + 1):  # durable: hold them to it
                        self.acked.setdefault(gid, {})[seq] = stored[seq]
                elif extra != 0:
                    self.stats.problems.append(f"game {gid}: {extra} unacknowledged actions stored")
                rules = get_rules(rec.game)
                full = Match.replay(rules, rec.setup, rec.seed, rec.entries)
                if rec.checkpoint is not None:
                    self.stats.checkpoints_used += 1
                    try:  # exactly what the table does at a restart
                        fast = Match.replay(rules, rec.setup, rec.seed, rec.entries, checkpoint=rec.checkpoint)
                    except Exception as exc:  # noqa: BLE001 - reported, and the run goes on
                        self._unrestartable(store, gid, active, rec.checkpoint[0], exc)
                        continue
                    if rules.dump(fast.state) != rules.dump(full.state):
                        self.stats.problems.append(f"game {gid}: checkpoint replay differs from full replay")
                for action in stored.values():
                    name = action.get("image")
                    if name and store.image_path(name) is None:
                        self.stats.photos_missing += 1
                        self.stats.problems.append(f"game {gid}: roll photo {name} missing")
                if gid not in self.known_games and seqs:
                    self.stats.problems.append(f"game {gid} unknown to the driver has {len(seqs)} actions")
                self.known_games.add(gid)
        finally:
            store.close()

    def _unrestartable(self, store: Any, gid: int, active: int | None, cp_seq: int, exc: Exception) -> None:
        """The log is whole, but the table cannot reload it from its checkpoint: the box would not start.

        Counted apart from lost actions; a fresh game is made active so the kills can go on.
        """
        self.stats.restart_failures += 1
        self.stats.problems.append(f"game {gid}: a restart cannot rebuild it from the checkpoint at seq {cp_seq}: "
                                   f"{type(exc).__name__}: {exc}")
        if gid == active:
            self.known_games.add(store.new_game("freeroll", {"title": "after restart failure"}, 0))

    def close(self) -> None:
        if self._child is not None:  # after an error mid-cycle: never leave a child playing on its own
            try:
                os.kill(self._child, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._log.close()


def run(kills: int, state_dir: Path, seed: int = 1, max_delay: float = 0.1,
        progress: Any = None, phones: int = 3) -> Stats:
    """Kill the table service `kills` times on the store in `state_dir`; returns what was checked."""
    state_dir.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    driver = Driver(state_dir, seed, max_delay, state_dir.parent / f"{state_dir.name}.child.log", phones)
    try:
        for n in range(kills):
            driver.cycle()
            if progress and (n + 1) % 100 == 0:
                progress(driver.stats)
    finally:
        driver.close()
    driver.stats.seconds = time.monotonic() - start
    return driver.stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", nargs="?", default="drive", choices=["drive", "zygote"])
    parser.add_argument("--kills", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-delay", type=float, default=0.1, help="longest wait before a kill (s)")
    parser.add_argument("--state-dir", type=Path)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--phones", type=int, default=3, help="paired phones posting actions over HTTP (0: none)")
    args = parser.parse_args(argv)
    if args.mode == "zygote":
        zygote_main(args.state_dir, args.phones)
        return 0
    with tempfile.TemporaryDirectory(prefix="dicesight-crash-") as tmp:
        state_dir = args.state_dir or Path(tmp) / "state"

        def progress(s: Stats) -> None:
            print(f"  ... {s.kills} kills, {s.acked} actions acknowledged, {s.lost} lost", file=sys.stderr)

        stats = run(args.kills, state_dir, args.seed, args.max_delay, None if args.json else progress, args.phones)
    figures = {
        "kills": stats.kills, "kills_survived": stats.survived,
        "kills_mid_game": stats.kills_mid_game, "kills_after_ack": stats.kills_after_ack, "actions_acknowledged": stats.acked, "actions_lost": stats.lost,
        "in_flight_actions_kept": stats.in_flight_kept, "games": stats.games,
        "checkpoint_replays_checked": stats.checkpoints_used, "store_recoveries": stats.recoveries,
        "photos_missing": stats.photos_missing, "restart_failures": stats.restart_failures, "seconds": round(stats.seconds, 1),
        "restart_ms": _quantiles(stats.restart_s),
        "problems": stats.problems[:20],
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"crash test: {figures['kills_survived']}/{stats.kills} SIGKILLs survived "
              f"({stats.kills_mid_game} mid-game), {stats.acked} acknowledged actions, "
              f"{stats.lost} lost, {stats.in_flight_kept} in-flight actions found durable, "
              f"{stats.games} games, {stats.checkpoints_used} checkpoint replays checked, "
              f"{stats.recoveries} store recoveries, {stats.photos_missing} photos missing, "
              f"{stats.restart_failures} games that could not be reloaded at restart, "
              f"{stats.seconds:.1f} s")
        q = figures["restart_ms"]
        print(f"restart (fork to the table's ready: store opened, checked, replayed) over {q['n']} restarts: "
              f"median {q['median']} ms, 99% {q['p99']} ms, max {q['max']} ms")
        for problem in stats.problems[:20]:
            print("  problem:", problem)
    return 0 if stats.ok() else 1


def _quantiles(seconds: list[float]) -> dict[str, Any]:
    if not seconds:
        return {"n": 0, "median": None, "p99": None, "max": None}
    ms = sorted(1000 * s for s in seconds)
    return {"n": len(ms), "median": round(ms[len(ms) // 2], 1), "p99": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 1),
            "max": round(ms[-1], 1)}


if __name__ == "__main__":
    sys.exit(main())
