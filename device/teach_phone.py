"""`dicesight teach SET`: teach the box a dice set by rolling it and confirming each throw on a phone.

The box starts as `dicesight run` does (camera, panel, the page) with the tray reading SET, in a free roll
of its own (kept under STATE_DIR/teaching, so the box's games are untouched). Every throw waits for a
phone: "Yes, the dice are right" or "Fix the dice" (tap a wrong die, then its face). Each confirmed die's
crop is kept in STATE_DIR/learnt like any confirmed roll of a game night (device.learnt), so `dicesight run`
reads the set with it afterwards. The command prints which faces still need throws and stops once every
face has been confirmed `examples` times (or on Ctrl-C; what was confirmed so far is kept).

The old way (one face at a time, Enter on the keyboard, drawn-template faces) is `--templates`
(device.teach_cmd).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from vision.dicesets import DiceSet


def progress(ds: DiceSet, faces: dict[str, int], examples: int,
             opposite: dict[str, Any] | None = None) -> dict[str, Any]:
    """What to tell the players: each face's confirmed count, the faces that still need throws, done; under
    the tray also the opposite faces learnt so far (device.opposites: the map, the faces still without a pair,
    any contradiction)."""
    rows = [{"face": f.index, "name": f.name, "value": f.value, "learnt": int(faces.get(str(f.index), 0))}
            for f in ds.faces]
    missing = [r["face"] for r in rows if r["learnt"] < examples]
    return {"event": "learnt", "set": ds.id, "faces": rows, "missing": missing, "done": not missing,
            "examples": examples, **({"opposite": opposite} if opposite is not None else {})}


def watch(table, ds: DiceSet, examples: int, emit: Callable[[dict], None], stop: threading.Event,
          every_s: float = 0.5) -> threading.Thread:
    """A thread that reports each change of what the box learnt of `ds` and sets `stop` when every face has
    `examples` confirmed throws."""
    def loop() -> None:
        last = None
        while True:
            counts = table.learnt.counts().get(ds.id, {}).get("faces", {}) if table.learnt is not None else {}
            opposite = table.learnt.opposites.report(ds) if table.learnt is not None and table.mount == "under" \
                else None
            now = progress(ds, counts, examples, opposite)
            if now != last:
                emit(now)
                last = now
            if now["done"]:
                stop.set()
                return
            if stop.wait(every_s):
                return

    thread = threading.Thread(target=loop, name="teach", daemon=True)
    thread.start()
    return thread


def human(record: dict[str, Any]) -> str:
    """One line for a person: 'sword 1: 2/3  sword 2: 3/3 ...' and what is left."""
    parts = [f"{r['name']} {r['value'] if r['value'] is not None else ''}".strip() + f": {r['learnt']}/{record['examples']}"
             for r in record["faces"]]
    tail = "every face learnt: done." if record["done"] else \
        f"throw again; faces still wanted: {', '.join(str(f) for f in record['missing'])}"
    return f"{record['set']}  " + "  ".join(parts) + f"  -> {tail}" + _opposite_line(record.get("opposite"))


def _opposite_line(report: dict[str, Any] | None) -> str:
    """The opposite faces learnt so far, for a person (empty when the camera is above the tray)."""
    if not report:
        return ""
    pairs = sorted({tuple(sorted((int(a), b))) for a, b in report["opposite"].items()})
    line = "\n  opposite faces: " + (", ".join(f"{a}-{b}" for a, b in pairs) or "none yet")
    if report["unpaired"]:
        line += f"; not yet seen in a pair: {', '.join(str(f) for f in report['unpaired'])}"
    return line + "".join(f"\n  contradiction: {c}" for c in report["contradictions"])
