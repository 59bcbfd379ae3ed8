"""The `dicesight` command: run the box, read photos, play scripted games, teach dice.

Every subcommand is scriptable: with `--json` each thing it has to say is one JSON object on its own line.
"""

from __future__ import annotations

import argparse
import errno
import json
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any

from . import play_cmd
from .camera import SPEC_HELP
from .camera.demo import THROW_MODES


def _printer(as_json: bool):
    """A function that prints one record: a JSON line, or a human line."""
    def emit(record: dict[str, Any]) -> None:
        if as_json:
            print(json.dumps(record, ensure_ascii=False), flush=True)
        else:
            print(_human(record), flush=True)
    return emit


def _human(record: dict[str, Any]) -> str:
    event = record.get("event")
    if event == "started":
        lines = ["dicesight is running. Open the page on a phone on this Wi-Fi, or on this machine:"]
        lines += [f"  {url}" for url in record["urls"]]
        lines.append(f"camera: {record['camera']['source']} ({record['camera']['status']}); "
                     f"game: {record['game']}, {record['seq']} actions so far. Ctrl-C stops.")
        return "\n".join(lines)
    if event == "learnt":
        from .teach_phone import human  # a small pure module; only a teach session prints these

        return human(record)
    if event in ("store", "restored"):
        from .store_cmd import human as store_human

        return store_human(record)
    if event == "join":
        from .joincard import human as join_human

        return join_human(record)
    if event in ("dice_set", "fairness"):
        from .stats_cmd import human as stats_human

        return stats_human(record)

    if event == "venue":
        lines = [f"The venue board hears {record['broker']} ({record['prefix']}/+/...). Open it on a screen:"]
        lines += [f"  {url}" for url in record["urls"]]
        return "\n".join(lines + ["Ctrl-C stops."])
    if event in ("stopped", "shutdown"):
        return f"dicesight {event}" + (f" ({record['reason']})" if record.get("reason") else "")
    if isinstance(record.get("error"), dict):  # a sentence for people, and what to do about it
        err = record["error"]
        return "\n".join(filter(None, [f"dicesight: {err.get('message', err.get('code'))}", err.get("hint")]))
    return json.dumps(record, ensure_ascii=False)


def _cannot_start(err: OSError, port: int | None) -> dict[str, Any]:
    """Why the box did not start; a port already taken is most often a box already running (`make run`
    twice), so it says how to start a second one beside it."""
    out = {"code": "cannot_start", "message": f"Cannot start the box: {err}"}
    if err.errno == errno.EADDRINUSE:
        taken = port or 8080
        out["message"] = f"Cannot start the box: port {taken} is already in use (is dicesight already running?)."
        out["hint"] = (f"Open the one that runs, or start another on a free port: "
                       f"dicesight run --port {taken + 1}  (with make: make run RUN_ARGS=\"--port {taken + 1}\")")
    return {"error": out}


# -- run -------------------------------------------------------------------------------------------
# Each command imports what it runs inside its function, on purpose: `dicesight play` and `dicesight read`
# run in scripts many times over and must not pay for Flask, waitress and gpiozero (`run`), or OpenCV and
# the reader (`read`, `teach`) when they do not use them (about half a second per start on a Pi).
def cmd_run(args: argparse.Namespace) -> int:
    from .box import BoxOptions, run
    from .config import ConfigError

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    options = BoxOptions(camera=args.camera, gpio=args.gpio, host=args.host, port=args.port,
                         config=args.config, state_dir=args.state_dir, demo_seed=args.demo_seed,
                         demo_speed=args.demo_speed, demo_throw=args.demo_throw)
    try:
        return run(options, announce=_printer(args.json))
    except ConfigError as err:
        _printer(args.json)({"error": {"code": "bad_config", "message": str(err)}})
        return 2
    except OSError as err:
        _printer(args.json)(_cannot_start(err, args.port))
        return 2


# -- read ------------------------------------------------------------------------------------------
def cmd_read(args: argparse.Namespace) -> int:
    from . import read_cmd
    from .config import resolve_state_dir
    from .dice_file import DiceFileError
    from .learnt import LearntDice

    # Faces taught on this box (`dicesight teach --templates`) replace the drawn templates, and the dice it
    # learnt from confirmed rolls (`dicesight teach`, game nights) are its memory, as in `dicesight run`;
    # `--dice FILE.json` reads a table's own dice (device.dice_file)
    state_dir = resolve_state_dir(args.state_dir)
    try:
        ds, taught = read_cmd.resolve(args.dice, args.mount, state_dir)
    except (DiceFileError, KeyError) as err:
        return read_cmd.refuse(str(err).strip(chr(34) + chr(39)), args.json)
    memory = LearntDice(state_dir, args.mount).memory if (state_dir / "learnt").is_dir() else None
    return read_cmd.run(args.images, ds, args.mount, args.json, args.debug_out, taught=taught, memory=memory)


def cmd_teach(args: argparse.Namespace) -> int:
    if args.photos or args.labels:  # from labelled photos: the phones' confirmation path, scripted
        from . import teach_photos
        from .config import resolve_state_dir

        if not (args.photos and args.labels):
            _printer(args.json)({"error": {"code": "no_photos", "message": "--photos and --labels go together."}})
            return 2
        return teach_photos.run(args.set, args.photos, args.labels, resolve_state_dir(args.state_dir),
                                args.mount or "under", _printer(args.json))
    if args.templates:  # the old way: one face at a time, Enter on the keyboard (device.teach_cmd)
        from . import teach_cmd
        from .box import state_dir_for

        return teach_cmd.run(args.set, args.camera or "auto", args.mount or "under",
                             state_dir_for(args.state_dir, None))
    from vision.dicesets import get_set

    from . import teach_phone
    from .box import BoxOptions, run
    from .config import ConfigError
    from .dice_file import DiceFileError, is_file_name, load
    from .dice_sets import spec

    emit = _printer(args.json)
    try:  # SET: an id, or a dice-set file (the box then reads that id from the file, as if configured)
        found = load(args.set, args.mount or "under") if is_file_name(args.set) else None
        ds = get_set(found.spec if found is not None else spec(args.set))
    except (DiceFileError, KeyError) as err:
        code = "bad_dice_file" if isinstance(err, DiceFileError) else "unknown_dice_set"
        emit({"error": {"code": code, "message": str(err).strip(chr(34) + chr(39))}})
        return 2
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    stop = threading.Event()
    options = BoxOptions(camera=args.camera, gpio=args.gpio, host=args.host, port=args.port, config=args.config,
                         state_dir=args.state_dir, demo_seed=args.demo_seed, demo_throw=args.demo_throw,
                         teach=ds.id, mount=args.mount, dice_files=(args.set,) if found is not None else ())

    def started(table) -> None:
        emit({"event": "teaching", "set": ds.id, "examples": args.examples,
              "message": f"Throw the {ds.id} dice into the tray and confirm (or fix) each throw on a paired "
                         f"phone, until every face has been confirmed {args.examples} times. Ctrl-C stops; "
                         f"what was confirmed is kept."})
        teach_phone.watch(table, ds, args.examples, emit, stop)

    try:
        return run(options, announce=emit, stop=stop, on_started=started)
    except ConfigError as err:
        emit({"error": {"code": "bad_config", "message": str(err)}})
        return 2
    except OSError as err:
        emit(_cannot_start(err, args.port))
        return 2


# -- venue -----------------------------------------------------------------------------------------
def cmd_venue(args: argparse.Namespace) -> int:
    from .config import ConfigError
    from .venue import VenueOptions, run

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    options = VenueOptions(broker=args.broker, host=args.host, port=args.port, prefix=args.prefix,
                           username=args.username, password_file=args.password_file, ca_file=args.ca_file,
                           config=args.config)
    emit = _printer(args.json)
    try:
        return run(options, announce=emit)
    except ConfigError as err:
        emit({"error": {"code": "bad_config", "message": str(err)}})
        return 2
    except OSError as err:
        emit({"error": {"code": "cannot_start", "message": f"Cannot start the venue board: {err}"}})
        return 2


# -- store -----------------------------------------------------------------------------------------
def cmd_store(args: argparse.Namespace) -> int:
    from . import store_cmd
    from .config import resolve_state_dir

    return store_cmd.run(args.action, resolve_state_dir(args.state_dir), args.file, args.out, _printer(args.json))


# -- qr --------------------------------------------------------------------------------------------
def cmd_qr(args: argparse.Namespace) -> int:
    from . import joincard

    return joincard.run(args.config, args.out, args.address, args.port, _printer(args.json))

# -- stats -----------------------------------------------------------------------------------------
def cmd_stats(args: argparse.Namespace) -> int:
    from . import stats_cmd
    from .config import resolve_state_dir

    return stats_cmd.run(resolve_state_dir(args.state_dir), args.set, args.bias, _printer(args.json))


# -- play ------------------------------------------------------------------------------------------
def cmd_play(args: argparse.Namespace) -> int:
    return play_cmd.run(args.game, args.setup, args.script, args.seed, args.json, args.strict, _printer(args.json),
                        viewer=args.viewer)


# -- parser ----------------------------------------------------------------------------------------
def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= 100:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 100, not {text}")
    return value


def _bias(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.05 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be from 0.05 to 1 (a share of the face's fair chance), not {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dicesight", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="start the box: camera, buttons, and the page for phones")
    run.add_argument("--camera", help=f"camera to use: {SPEC_HELP} (default: from the config, auto)")
    run.add_argument("--gpio", choices=["auto", "mock"], help="real pins on a Pi, or the mock (virtual panel)")
    run.add_argument("--host", help="address to serve on (default 0.0.0.0: every phone on the Wi-Fi)")
    run.add_argument("--port", type=int, help="port to serve on (default 8080; 0 picks a free one)")
    run.add_argument("--config", type=Path, help="TOML config file")
    run.add_argument("--state-dir", type=Path, help="where the game log, photos and config live")
    run.add_argument("--demo-seed", type=int, default=1, help="what the demo tray throws")
    run.add_argument("--demo-speed", type=_positive, default=1.0,
                     help="the demo tray's time runs this many times faster (e.g. 4 for tests)")
    run.add_argument("--demo-throw", choices=THROW_MODES, default="ask",
                     help="the demo tray throws when asked (\"Throw the dice\" on the page's panel; the "
                          "default), or every few seconds by itself (auto: for benches and tests)")
    run.add_argument("--json", action="store_true", help="print JSON lines")
    run.set_defaults(func=cmd_run)

    read = sub.add_parser("read", help="read dice in still images")
    read.add_argument("images", nargs="+")
    read.add_argument("--dice", default="d6", help="dice set id from a game's description (d6, or a set a game "
                                                  "names), or a dice-set file FILE.json: see docs/dice-sets.md")
    read.add_argument("--mount", choices=["over", "under"], default="under",
                      help="camera above the tray (reads the top face) or under its clear bottom")
    read.add_argument("--debug-out", help="folder for each image with what was read drawn on it")
    read.add_argument("--json", action="store_true", help="print JSON lines")
    read.add_argument("--state-dir", type=Path, help="where taught dice faces are (default as for run)")
    read.set_defaults(func=cmd_read)

    play = sub.add_parser("play", help="apply a script of actions to a game with no camera")
    play.add_argument("game", help=f"the game: {play_cmd.game_names()}")
    play.add_argument("--setup", help="SETUP.json (may state a mid-game position: docs/actions.md)")
    play.add_argument("--script", help="ACTIONS.jsonl: one JSON action per line; # starts a comment line")
    play.add_argument("--seed", type=int, default=0, help="seed when the setup has none")
    play.add_argument("--json", action="store_true", help="print JSON lines (line 0: the snapshot after setup)")
    play.add_argument("--strict", action="store_true", help="stop at the first refused line (exit status 1)")
    play.add_argument("--viewer", help="print each snapshot as this player's phone sees it (hidden dice of others "
                                       "left out; no engine events)")
    play.set_defaults(func=cmd_play)

    teach = sub.add_parser("teach", help="teach the box a dice set: roll it, confirm each throw on a phone")
    teach.add_argument("set", help="dice set id (d6, or a set a game names), or a dice-set file FILE.json: see "
                                   "docs/dice-sets.md")
    teach.add_argument("--examples", type=int, default=3, choices=range(1, 13), metavar="N",
                       help="confirmed throws wanted of every face (1-12, default 3)")
    teach.add_argument("--camera", help=f"camera to use: {SPEC_HELP} (default: from the config, auto)")
    teach.add_argument("--mount", choices=["over", "under"], help="default: from the config (under)")
    teach.add_argument("--gpio", choices=["auto", "mock"], help="real pins on a Pi, or the mock (virtual panel)")
    teach.add_argument("--host", help="address to serve the page on (default 0.0.0.0)")
    teach.add_argument("--port", type=int, help="port to serve on (default 8080; 0 picks a free one)")
    teach.add_argument("--config", type=Path, help="TOML config file")
    teach.add_argument("--state-dir", type=Path, help="where the box keeps what it learns (as for run)")
    teach.add_argument("--demo-seed", type=int, default=1, help="what the demo tray throws (--camera demo)")
    teach.add_argument("--demo-throw", choices=THROW_MODES, default="ask",
                       help="the demo tray throws when asked (default) or every few seconds (auto)")
    teach.add_argument("--json", action="store_true", help="print JSON lines")
    teach.add_argument("--photos", type=Path, help="teach from these photos (with --labels) instead of the camera")
    teach.add_argument("--labels", type=Path, help="the photos' labels: NAME.json as in ../shared/datasets")
    teach.add_argument("--templates", action="store_true",
                       help="the old way: one face at a time on the keyboard, kept as drawn-template faces")
    teach.set_defaults(func=cmd_teach)

    venue = sub.add_parser("venue", help="serve a board of every table of a venue, heard on an MQTT broker")
    venue.add_argument("--broker", help="mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (default: the config's mqtt.broker)")
    venue.add_argument("--host", default="0.0.0.0", help="address to serve the board on (default 0.0.0.0)")
    venue.add_argument("--port", type=int, default=8081, help="port to serve on (default 8081; 0 picks a free one)")
    venue.add_argument("--prefix", help="topic prefix the boxes publish under (default: the config's, dicesight)")
    venue.add_argument("--username", help="user name on the broker")
    venue.add_argument("--password-file", help="a file whose first line is the password on the broker")
    venue.add_argument("--ca-file", help="mqtts: the CA certificate(s) the broker's certificate must chain to")
    venue.add_argument("--config", type=Path, help="TOML config file: its [mqtt] section gives the defaults")
    venue.add_argument("--json", action="store_true", help="print JSON lines")
    venue.set_defaults(func=cmd_venue)

    store = sub.add_parser("store", help="check the saved games, repair a damaged file, restore a kept one")
    store.add_argument("action", choices=["check", "salvage", "restore"],
                       help="check: report (read only); salvage FILE --out DIR; restore FILE (stop the box first)")
    store.add_argument("file", nargs="?", type=Path, help="a damaged or kept store file (salvage, restore)")
    store.add_argument("--out", type=Path, help="salvage: the new state directory to write")
    store.add_argument("--state-dir", type=Path, help="the box's state directory (as for run)")
    store.add_argument("--json", action="store_true", help="print JSON lines")
    store.set_defaults(func=cmd_store)

    qr = sub.add_parser("qr", help="the join card: QR codes for the box's Wi-Fi (if it runs a hotspot) and its page")
    qr.add_argument("--out", type=Path, metavar="FILE.png|FILE.svg",
                    help="save the card as a picture to print (default: draw it on the terminal)")
    qr.add_argument("--config", type=Path,
                    help="TOML config file (default: /etc/dicesight/config.toml if there is one, else the defaults)")
    qr.add_argument("--address", help="the host phones open (default: from the config and this machine's network)")
    qr.add_argument("--port", type=int, help="the page's port (default: web.port of the config, 8080)")
    qr.add_argument("--json", action="store_true", help="print JSON lines")
    qr.set_defaults(func=cmd_qr)

    stats = sub.add_parser("stats", help="are these dice fair? face counts and a chi-square test per die (docs/fairness.md)")
    stats.add_argument("--set", help="one dice set only (a dice set id, as `dicesight stats` lists them)")
    stats.add_argument("--bias", type=_bias, default=0.5,
                       help="the bias to plan for, as a share: 0.5 = a face that comes up 50%% more often than it "
                            "should; says how many rolls catch it (default 0.5)")
    stats.add_argument("--state-dir", type=Path, help="the box's state directory (as for run)")
    stats.add_argument("--json", action="store_true", help="print JSON lines")
    stats.set_defaults(func=cmd_stats)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader of our output went away (`dicesight read *.jpg --json | head`): stop quietly, as other
        # Unix tools do, instead of a traceback; stdout goes to /dev/null so the interpreter's own final
        # flush does not raise again (the recipe in Python's signal module docs)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a tool killed by a closed pipe


if __name__ == "__main__":
    sys.exit(main())
