"""Roll-phase steps shared by the turn flow and the Roll Phase itself (§2.4): the pending decision, starting
an Offensive Roll Phase, and the dice of a roll action.

They live apart so that `flow` (which enters a Roll Phase after Main (1) or a paid Knockdown) and `combat`
(which returns to the turn flow when a Roll Phase ends) each import this module instead of each other.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from .. import rng
from ..core import require
from . import state as st
from .damage import packet

E = list[dict[str, Any]]


def pend(s: st.S, kind: str, player: int | None, **extra: Any) -> None:
    """Leave a pending decision of `kind` for player index `player` (None: anyone at the table)."""
    s["pending"] = {"kind": kind, "player": player, **extra}


def begin_orp(s: st.S, target: int | None = None) -> E:
    """Start an ORP: 5 fresh dice, 3 attempts minus Entangle/Constrict (§12)."""
    i = s["active"]
    s["phase"] = "offensive"
    s["dice"] = [{"value": 0, "kept": False} for _ in range(5)]
    s["tray"] = "offense"
    s["attempts"] = 0
    s["attempts_max"] = 3 - (1 if st.has(s, i, "entangle") else 0) - (1 if st.has(s, i, "constrict") else 0)
    s["rp"] = {
        "attacker": i, "ability": None, "level": None, "tier": None, "ultimate": False, "final": None,
        "target": target,
        "attack": packet(-1 if target is None else target, i, 0, "normal", attack=True, orp=True),
        "packets": [], "heals": [],
        "undefendable": False, "recoil": 0, "pc": 0, "roll": None, "defense": None, "stage": "roll",
    }
    pend(s, "offense", i)
    return [{"type": "phase", "phase": "offensive", "player": s["players"][i]["id"]}]


DIE_VALUE = itemgetter("value")


def values(s: st.S) -> list[int]:
    """The values of the dice on the tray, in tray order."""
    return list(map(DIE_VALUE, s["dice"]))


def roll_for(s: st.S, action: dict[str, Any], count: int) -> list[int]:
    """The dice of a roll action: given values (camera or by hand) or seeded ones; count must match."""
    raw = action.get("dice")
    if raw is None:
        return rng.roll(s, count)
    require(isinstance(raw, list), "bad_dice", "\"dice\" must be a list of values 1-6.")
    out = []
    for die in raw:
        v = die.get("value") if isinstance(die, dict) else die
        require(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6, "bad_dice",
                "Each die must show a number from 1 to 6.")
        out.append(v)
    require(len(out) == count, "wrong_dice_count",
            f"This roll needs exactly {count} {'die' if count == 1 else 'dice'}, but {len(out)} were given.")
    return out
