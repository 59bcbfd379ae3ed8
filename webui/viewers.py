"""Per-viewer snapshots: what each phone may see of a game with hidden information.

A game whose description says `hidden` (hidden rolls until a reveal) renders its
snapshot per viewer (`rules.snapshot(state, viewer)`). A paired phone bound to a player seat
(`device.pairing.Pairing.bind_seat`, for the current game) is that viewer; the shared screen, unpaired
watchers and unbound phones are viewer None. What the table adds to the game's snapshot is filtered too:
the dice lying on the tray during a hidden roll keep their colours but lose their values and faces for
everyone but the player whose roll it is. Games without hidden information send one snapshot to all.
"""

from __future__ import annotations

from typing import Any

from engine.games import GAMES

SECRET_DIE_KEYS = ("value", "face", "pips")


def is_hidden(game: str | None) -> bool:
    """Does this game hide some of a player's state from other phones (its description's `hidden`)?"""
    rules = GAMES.get(game or "")
    return bool(rules is not None and rules.describe().get("hidden"))


def seat_of(table: Any, token: str | None, snap: dict[str, Any]) -> str | None:
    """The player the phone holding `token` plays in the game of `snap`, or None."""
    if not token:
        return None
    pairing = getattr(table, "pairing", None)
    if pairing is None or not hasattr(pairing, "seat"):
        return None
    return pairing.seat(token, snap.get("game_id"))


def _roller(snap: dict[str, Any]) -> str | None:
    """Whose throw the tray holds: the player the pending dice input (or decision) waits for."""
    pending = snap.get("pending") or {}
    entry = pending.get("input") or {}
    return entry.get("player") or pending.get("player")


def _hide_tray(tray: dict[str, Any] | None) -> dict[str, Any] | None:
    if not tray:
        return tray
    dice = [{k: v for k, v in d.items() if k not in SECRET_DIE_KEYS} for d in tray.get("dice", [])]
    return {**tray, "dice": dice, "hidden": True}


def for_viewer(table: Any, snap: dict[str, Any], viewer: str | None) -> dict[str, Any]:
    """`snap` (the table's shared snapshot) as `viewer` may see it. For a game without hidden information,
    `snap` itself (the same object for every phone, so its event is encoded once)."""
    if not is_hidden(snap.get("game")):
        return snap
    if viewer is not None:
        own = table.snapshot(viewer=viewer)
        if own.get("game_id") == snap.get("game_id") and own.get("seq", 0) >= snap.get("seq", 0):
            snap = own
        else:  # the table moved to another game meanwhile: this phone has no seat in it
            viewer = None
    out = dict(snap)
    if viewer is None or _roller(out) != viewer:
        out["tray"] = _hide_tray(out.get("tray"))
    out["viewer"] = viewer
    return out
