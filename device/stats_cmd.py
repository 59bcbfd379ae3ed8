"""`dicesight stats [--set ID] [--bias B] [--json] [--state-dir DIR]`: are these dice fair? (issue 36)

Why a command as well as the page: the argument about the red die happens at the table, but the evidence is a
file that can be copied off the box and looked at anywhere (a club's laptop, a script over many boxes). It
reads the store read-only, so it works beside a running box. Every game counts here, a hidden game on the
table included (whoever runs this holds the box's card anyway); the page leaves that one out until it ends.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import dice_log, dice_sets, fairness_report
from .store import DB_NAME

Emit = Callable[[dict[str, Any]], None]


def run(state_dir: Path, set_id: str | None, bias: float, emit: Emit) -> int:
    """One `dice_set` record per set with dice, then one `fairness` summary. Exit 1 without a store, 2 for an
    unknown set; 0 otherwise (a biased die is a finding, not a failure)."""
    path = Path(state_dir) / DB_NAME
    if not path.is_file():
        emit({"error": {"code": "no_store", "message": f"There is no store at {path}: no rolls to look at."}})
        return 1
    specs = dice_sets.specs()
    if set_id is not None and set_id not in specs:
        emit({"error": {"code": "unknown_dice_set",
                        "message": f"There is no dice set {set_id!r} (known: {', '.join(sorted(specs))})."}})
        return 2
    dice, virtual = dice_log.die_rolls(dice_log.read_log(path))
    report = fairness_report.report(dice, virtual, specs, dice_sets.game_sets(), only_set=set_id, bias=bias)
    for row in report["sets"]:
        emit({"event": "dice_set", **row})
    emit({"event": "fairness", "file": str(path), "sets": [s["set"] for s in report["sets"]],
          **{k: report[k] for k in ("alpha", "power", "bias", "virtual_rolls", "unattributed")}})
    return 0


def human(record: dict[str, Any]) -> str:
    """A record as lines for a person (the `--json` record holds the same and more)."""
    if record.get("event") == "dice_set":
        return _set_lines(record)
    if record.get("event") == "fairness":
        return _summary(record)
    return str(record)


def _set_lines(s: dict[str, Any]) -> str:
    name = (s.get("name") or {}).get("en") or s["set"]
    src = s["sources"]
    lines = [f"{s['set']} ({name}): {src['camera'] + src['confirmed']} dice read by the camera "
             f"({src['confirmed']} of them confirmed on a phone), {src['hand']} entered by hand"]
    faces = [f["text"] for f in s["faces"]]
    for die in s["dice"]:
        lines += _die_lines(die, faces, s)
    if s["hand"]["rolls"]:
        lines.append(f"  entered by hand (not tested), {s['hand']['rolls']} dice: {_counts(faces, s['hand']['counts'])}")
    if s["unmatched"]:
        lines.append(f"  {s['unmatched']} dice showed a face this set does not have (not counted)")
    return "\n".join(lines)


def _die_lines(die: dict[str, Any], faces: list[str], s: dict[str, Any]) -> list[str]:
    label = fairness_report.who(die["colour"], die["several"]).removeprefix("the ")
    fair = ", ".join(sorted({f"{e:g}" for e in die["expected"]}))
    lines = [f"  {label}, {die['rolls']} rolls: {_counts(faces, die['counts'])} (a fair die: {fair})"]
    if die["chi2"] is not None:
        adjusted = die["p_adjusted"]
        extra = (f"; adjusted for the set's {len(s['dice'])} dice: {fairness_report.p_text(adjusted)}"
                 if adjusted is not None and fairness_report.p_text(adjusted) != fairness_report.p_text(die["p"])
                else "")
        lines.append(f"    chi-square {die['chi2']:.2f} ({die['df']} degrees of freedom), "
                     f"{fairness_report.p_text(die['p'])}{extra}")
    lines.append(f"    {die['message']}")
    more = f"{die['more']} more to go" if die["more"] else "done"
    lines.append(f"    {die['needed']} rolls catch a face {s['bias']:.0%} too common, {s['power']:.0%} of the time: {more}")
    return lines


def _counts(faces: list[str], counts: list[int]) -> str:
    return "  ".join(f"{f}:{n}" for f, n in zip(faces, counts, strict=True))


def _summary(r: dict[str, Any]) -> str:
    parts = [f"{len(r['sets'])} dice set(s); a die is called biased at p < {r['alpha']}"]
    if r["virtual_rolls"]:
        parts.append(f"{r['virtual_rolls']} roll(s) by the box's own dice (not counted)")
    if r["unattributed"]:
        parts.append(f"{r['unattributed']} dice of no set the box could tell (not counted)")
    return "; ".join(parts)
