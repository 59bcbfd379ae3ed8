"""Questions an effect asks a player mid-way: the decisions the engine used to leave to players by hand.

Some effects need a player's say the data cannot give in advance: "a chosen player gains Wellspring", the
Cursed Pirate declining a Cursed Doubloon, which Spirit grows. The effect queues a question in `s["asks"]`
and the flow goes on; before the action returns (`present`, called by rules.DiceThrone.apply and setup),
the first queued question becomes the pending decision (kind `ask`, with `labels` and the decision it
interrupted kept in `back`). Answering it (`{"type": "choose", "option": k}`) runs option k, then the
interrupted decision comes back, or the next question.

Asking after the effect's step instead of inside it gives the same game: every damage and heal of a Roll
Phase waits for its end anyway (§2.6.6), and outside a Roll Phase the answer applies at once.

Each option names an operation (`op`) with its arguments, plain JSON so the state stays dump-able:
`OPS` below is the table of what an answer can do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import require
from . import state as st

Option = dict[str, Any]
Op = Callable[[st.S, dict[str, Any]], list[dict[str, Any]]]


def ask(s: st.S, player: int, prompt: str, options: list[Option], about: dict[str, Any]) -> None:
    """Queue a question for player index `player`. `options`: {"label", "op", "args", "player"?}; the
    first is the default (the box's Next button), so it should be what the engine did before it asked.
    `about` says what is asked in machine terms ({"effect": "gain", "status": "wellspring"}...) so a
    client can word it in its own language."""
    q = {"player": player, "prompt": prompt, "options": options, "about": about}
    s["asks"] = [*s.get("asks", ()), q]   # replaced, never changed in place: states share it (st.clone)


def pause(s: st.S, player: int, prompt: str, options: list[Option], about: dict[str, Any]) -> None:
    """Ask now, in place of any pending decision: for a step that cannot go on without the answer (an
    ability's effects stop at a choice, §2.4). Every option's op must leave a new pending decision."""
    s["pending"] = {"kind": "ask", "player": player, "prompt": prompt, "about": about,
                    "labels": [o["label"] for o in options], "choices": options, "back": None}


def present(s: st.S) -> None:
    """Turn the first queued question into the pending decision, unless one is already pending."""
    queued = s.get("asks")
    if not queued:
        return
    pending = s["pending"]
    if pending is None:            # the game ended: nothing is left to ask
        del s["asks"]
        return
    if pending["kind"] == "ask":
        return
    q, rest = queued[0], queued[1:]
    if rest:
        s["asks"] = rest
    else:
        del s["asks"]
    s["pending"] = {"kind": "ask", "player": q["player"], "prompt": q["prompt"], "about": q["about"],
                    "labels": [o["label"] for o in q["options"]], "choices": q["options"], "back": pending}


def answer(s: st.S, k: int) -> list[dict[str, Any]]:
    """Run option k of the pending question and give the interrupted decision back."""
    pending = s["pending"]
    choices = pending["choices"]
    require(0 <= k < len(choices), "bad_choice", f"Pick one of the listed options (0-{len(choices) - 1}).")
    option = choices[k]
    s["pending"] = pending["back"]
    events: list[dict[str, Any]] = [{"type": "answered", "player": s["players"][pending["player"]]["id"],
                                     "about": pending["about"], "option": option["label"]}]
    return events + OPS[option["op"]](s, option.get("args", {}))


OPS: dict[str, Op] = {}


def op(name: str) -> Callable[[Op], Op]:
    """Register an operation an answer may run (effects.py and the roll-phase code add theirs)."""
    def register(fn: Op) -> Op:
        OPS[name] = fn
        return fn
    return register


@op("nothing")
def _nothing(s: st.S, args: dict[str, Any]) -> list[dict[str, Any]]:
    """Declining: the effect does not happen."""
    return []
