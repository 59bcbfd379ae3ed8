"""What a bought card does, as a handler table keyed by the effect names of cards.json.

Keep cards act through `state.amount`/`state.has` where the rules look (dice, claws, damage, turn start and
end); this module holds what happens at the moment of buying: a discard card's whole effect and a keep
card's "when bought" part (Battery Monster's energy, Smoke Cloud's tokens, Even Bigger's 2 health, Mimic's
choice).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import flow
from . import state as st
from .data import cards

S = st.S
Ev = list[dict[str, Any]]


def _vp(s: S, i: int, v: Any, ev: Ev, cid: str) -> None:
    st.gain_vp(s, i, v, ev, why=cid)


def _energy(s: S, i: int, v: Any, ev: Ev, cid: str) -> None:
    st.gain_energy(s, i, v, ev, why=cid)


def _heal(s: S, i: int, v: Any, ev: Ev, cid: str) -> None:
    st.heal(s, i, v, ev, why=cid)


def _others_vp(s: S, i: int, v: Any, ev: Ev, cid: str) -> None:
    for j in st.clockwise(s, i):
        st.gain_vp(s, j, v, ev, why=cid)


def _hits(s: S, i: int, targets: list[int], v: int, cid: str) -> None:
    flow.push(s, *[{"do": "hit", "target": j, "amount": -v, "claw": False, "src": i, "why": cid} for j in targets])


def _others_hp(s: S, i: int, v: Any, ev: Ev, cid: str) -> None:
    _hits(s, i, st.clockwise(s, i), v, cid)


def _all_hp(s: S, i: int, v: Any, ev: Ev, cid: str) -> None:
    _hits(s, i, st.clockwise(s, i, include_start=True), v, cid)


def _self_hp(s: S, i: int, v: Any, ev: Ev, cid: str) -> None:
    _hits(s, i, [i], v, cid)


def _storm(s: S, i: int, v: Any, ev: Ev, cid: str) -> None:
    for j in st.clockwise(s, i):
        q = s["players"][j]
        loss = q["energy"] // 2
        if loss:
            q["energy"] -= loss
            ev.append({"type": "energy", "player": q["id"], "change": -loss, "energy": q["energy"], "why": cid})


def _take_tokyo(s: S, i: int, v: Any, ev: Ev, cid: str) -> None:
    """Death From Above: a buyer outside Tokyo takes the City; the monster there leaves without losing hearts.
    A buyer already in the City or the Bay stays where it is (the Bay is Tokyo)."""
    if st.in_tokyo(s, i):
        return
    held = s["city"]
    if held is not None:
        st.place(s, held, "out", ev)
    st.place(s, i, "city", ev)


def _extra_turn(s: S, i: int, v: Any, ev: Ev, cid: str) -> None:
    """Frenzy: another turn right after this one. Bought on one's own turn, the turn ends at once (no more
    buying, no end-of-turn effects: FAQ); bought through Opportunist, it comes after the current turn."""
    s["extra"].insert(0, {"player": i, "kind": "frenzy"})
    if i == s["active"]:
        s["steps"] = [x for x in s["steps"] if x["do"] == "hit"] + [{"do": "finish_turn"}]


DISCARD: dict[str, Callable[[S, int, Any, Ev, str], None]] = {
    "vp": _vp, "energy": _energy, "heal": _heal, "others_vp": _others_vp, "others_hp": _others_hp,
    "all_hp": _all_hp, "self_hp": _self_hp, "others_energy_half": _storm, "take_tokyo": _take_tokyo,
    "extra_turn": _extra_turn,
}


def on_gain(s: S, i: int, cid: str, inst: dict[str, Any], ev: Ev) -> None:
    """A keep card's "when bought" effects on the instance that carries them (a Mimic copy uses its own)."""
    eff = cards()[cid]["effect"]
    if eff.get("counters_on_buy"):
        inst["counters"] = eff["counters_on_buy"]
    if eff.get("smoke"):
        inst["tokens"] = eff["smoke"]
    if eff.get("heal_on_buy"):
        st.heal(s, i, eff["heal_on_buy"], ev, why=cid)


def bought(s: S, i: int, cid: str, ev: Ev, *, inst: dict[str, Any] | None = None) -> None:
    """Monster `i` has just paid for `cid` (from the market, the deck top or another monster)."""
    row = cards()[cid]
    st.count(s, i, "cards")
    st.gain_vp(s, i, st.amount(s, i, "vp_on_buy"), ev, why="media_friendly")
    if row["type"] == "discard":
        s["discard"].append(cid)
        for key, value in row["effect"].items():
            DISCARD[key](s, i, value, ev, cid)
        return
    if inst is None:
        inst = {"uid": s["uid"], "id": cid}
        s["uid"] += 1
    s["players"][i]["cards"].append(inst)
    if cid == "mimic":
        flow.push(s, {"do": "mimic", "player": i, "uid": inst["uid"]})
    else:
        on_gain(s, i, cid, inst, ev)
