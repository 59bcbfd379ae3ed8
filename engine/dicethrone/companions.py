"""Companions: the Treant's Spirits with their growth stages, and the Huntress's Nyra with her own health.

Both are data (`growth`, `companions` by hero in companions.json); this module knows their rules, not the
heroes.

- **Growth** (`"growth": {"status": "spirit", "stages": [{"id": "seedling", "limit": 3}, ...]}`): the
  status counts every Spirit; the player's `stages` entry records how many grew past the first stage.
  The sources do not say whether "grow a Spirit" adds a new Seedling or promotes one (heroes §2, open
  point 7), so each grow step asks the player (option 0, a new first-stage Spirit, is what the engine did
  before it asked). Removing Spirits (spending them for damage) takes first-stage ones first, then the
  next stage: a player keeps the grown ones as long as possible.
- **Companion health** (`"companions": [{"id": "nyra", "health": 7, "start": 7, ...}]`): the companion's
  health is its own number (not the hero's dial); `attack_bonus` is added to the hero's attacks while the
  companion stands; with `takes_attacks` the hero may pass an attack (not an ultimate) to it instead of
  defending (heroes §2, Nyra).
"""

from __future__ import annotations

from typing import Any

from . import asks
from . import state as st
from .data import companion_data
from .words import words

E = list[dict[str, Any]]


# -- growth stages ------------------------------------------------------------------------------------
def growth_of(hero_id: str) -> dict[str, Any] | None:
    return companion_data().get(hero_id, {}).get("growth")


def growth(s: st.S, i: int) -> dict[str, Any] | None:
    return growth_of(s["players"][i]["hero"])


def stages(s: st.S, i: int) -> list[int]:
    """Spirits per stage, first stage first, consistent with the status count (removals take the first
    stage first: the grown ones are recorded from the last stage down)."""
    g = growth(s, i)
    if g is None:
        return []
    total = st.has(s, i, g["status"])
    grown = s["players"][i].get("stages", {})
    counts = [0] * len(g["stages"])
    left = total
    for k in range(len(g["stages"]) - 1, 0, -1):
        counts[k] = min(grown.get(g["stages"][k]["id"], 0), left)
        left -= counts[k]
    counts[0] = left
    return counts


def _set_stages(s: st.S, i: int, counts: list[int]) -> None:
    g = growth(s, i)
    s["players"][i]["stages"] = {row["id"]: n for row, n in zip(g["stages"][1:], counts[1:], strict=True) if n}


def grow_options(s: st.S, i: int) -> list[dict[str, Any]]:
    """The legal ways one Spirit may grow now: a new first-stage one, or one promoted a stage."""
    g = growth(s, i)
    counts = stages(s, i)
    rows = g["stages"]
    out = []
    if counts[0] < rows[0]["limit"] and sum(counts) < st.limit(s, i, g["status"]):
        out.append({"label": f"A new {rows[0]['name']['en']}", "text": words("new_stage", stage=rows[0]["name"]),
                    "stage": 0})
    for k in range(len(rows) - 1):
        if counts[k] > 0 and counts[k + 1] < rows[k + 1]["limit"]:
            out.append({"label": f"A {rows[k]['name']['en']} grows into a {rows[k + 1]['name']['en']}",
                        "text": words("grow_stage", a=rows[k]["name"], b=rows[k + 1]["name"]), "stage": k + 1})
    return out


def grow(s: st.S, i: int, steps: int, source: str = "") -> E:
    """Grow `steps` Spirits one at a time, asking the player whenever there is more than one way."""
    events: E = []
    while steps > 0:
        choices = grow_options(s, i)
        if not choices:
            st.note(s, f"{s['players'][i]['name']}: no Spirit can grow (every stage is full).")
            return events
        if len(choices) > 1:
            g = growth(s, i)
            asks.ask(s, i, f"{s['players'][i]['name']}: how does a Spirit grow?" +
                     (f" ({steps} to grow)" if steps > 1 else ""),
                     [{"label": c["label"], "text": c["text"], "op": "grow_stage",
                       "args": {"player": i, "stage": c["stage"], "left": steps - 1, "source": source}}
                      for c in choices], {"effect": "grow", "status": g["status"], "count": steps, "source": source})
            return events
        events += grow_stage(s, i, choices[0]["stage"])
        steps -= 1
    return events


def grow_stage(s: st.S, i: int, stage: int) -> E:
    """One Spirit grows: stage 0 is a new one (the status count goes up), stage k promotes one from k-1."""
    g = growth(s, i)
    counts = stages(s, i)
    if stage == 0:
        events = st.gain_status(s, i, g["status"], 1)   # a new first-stage Spirit: the grown ones stay as they are
    else:
        counts[stage - 1] -= 1
        counts[stage] += 1
        _set_stages(s, i, counts)
        events = []
    return events + [{"type": "grew", "player": s["players"][i]["id"], "stage": g["stages"][stage]["id"],
                      "stages": dict(zip((r["id"] for r in g["stages"]), stages(s, i), strict=True))}]


@asks.op("grow_stage")
def _grow_answer(s: st.S, args: dict[str, Any]) -> E:
    i = args["player"]
    return grow_stage(s, i, args["stage"]) + grow(s, i, args["left"], args.get("source", ""))


def stages_view(s: st.S, i: int) -> dict[str, int] | None:
    g = growth(s, i)
    if g is None:
        return None
    return dict(zip((r["id"] for r in g["stages"]), stages(s, i), strict=True))


# -- companions with their own health -------------------------------------------------------------------
def defs(hero_id: str) -> list[dict[str, Any]]:
    return companion_data().get(hero_id, {}).get("companions", [])


def start(p: dict[str, Any]) -> dict[str, int]:
    """A player's companions at the start of a game: each at its `start` health."""
    return {c["id"]: c.get("start", c["health"]) for c in defs(p["hero"])}


def health(s: st.S, i: int, cid: str) -> int:
    return s["players"][i].get("companions", {}).get(cid, 0)


def active(s: st.S, i: int, cid: str) -> bool:
    """A companion stands while it has health."""
    return health(s, i, cid) > 0


def heal(s: st.S, i: int, cid: str, n: int) -> E:
    """Heal a companion up to its maximum health (a companion at 0 comes back when healed)."""
    row = next((c for c in defs(s["players"][i]["hero"]) if c["id"] == cid), None)
    if row is None or n <= 0:
        return []
    before = health(s, i, cid)
    after = min(row["health"], before + n)
    st.put(s["players"][i], "companions", cid, after)
    return [{"type": "companion", "player": s["players"][i]["id"], "companion": cid, "before": before,
             "after": after}]


def hurt(s: st.S, i: int, cid: str, n: int) -> E:
    before = health(s, i, cid)
    after = max(0, before - n)
    st.put(s["players"][i], "companions", cid, after)
    return [{"type": "companion", "player": s["players"][i]["id"], "companion": cid, "before": before,
             "after": after, "damage": n}]


def attack_bonus(s: st.S, i: int) -> list[tuple[int, str]]:
    """(+damage, companion id) for each standing companion that adds to its hero's attacks."""
    return [(c["attack_bonus"], c["id"]) for c in defs(s["players"][i]["hero"])
            if c.get("attack_bonus") and active(s, i, c["id"])]


def takes_attacks(s: st.S, i: int) -> str | None:
    """The standing companion player i may pass an attack to, or None."""
    for c in defs(s["players"][i]["hero"]):
        if c.get("takes_attacks") and active(s, i, c["id"]):
            return c["id"]
    return None


def healed_by(s: st.S, i: int, status: str) -> tuple[str, int] | None:
    """(companion, health) that spending `status` heals (a companion's `heal_by_spending`), or None."""
    for c in defs(s["players"][i]["hero"]):
        n = c.get("heal_by_spending", {}).get(status)
        if n:
            return c["id"], n
    return None


def view(s: st.S, i: int) -> list[dict[str, Any]]:
    return [{"id": c["id"], "name": c["name"], "health": health(s, i, c["id"]), "health_max": c["health"],
             "active": active(s, i, c["id"])} for c in defs(s["players"][i]["hero"])]
