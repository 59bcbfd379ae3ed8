"""A game as an append-only log of accepted actions, with undo and redo as log entries of their own.

The state is always the replay of the effective actions (those not undone) from the setup and its seed.
`Match` keeps the latest state and one state every `KEEP_EVERY` effective actions in memory, so undo
replays at most a few actions while a long game holds few states (memory on a Pi, and allocation churn
when thousands of games are played in the bench). It can be rebuilt from a checkpoint (a dumped state at
some sequence number) plus the entries after it, so a restart of a long game is fast.
"""

from __future__ import annotations

import copy
import marshal
from dataclasses import dataclass
from typing import Any

from .core import Action, Event, IllegalAction, Rules, State, action_type

KEEP_EVERY = 32  # in-memory checkpoints: effective action k keeps its state when (k + 1) % KEEP_EVERY == 0


@dataclass(frozen=True, slots=True)
class Entry:
    """One accepted log line: its sequence number and the action as submitted."""

    seq: int
    action: Action


@dataclass(slots=True)
class _Effective:
    """An effective action and the state right after it (kept for the latest and every KEEP_EVERY-th)."""

    seq: int
    action: Action
    state: State | None  # None = not kept; rebuilt from the nearest kept state when needed


class Match:
    """The live game: rules, setup, seed, log and current state. Pure: no I/O, no clock."""

    def __init__(self, rules: Rules, setup: dict[str, Any], seed: int) -> None:
        self.rules = rules
        self.setup = _copy(setup)
        self.seed = seed
        self.entries: list[Entry] = []
        self._initial: State = rules.setup(self.setup, seed)
        self._latest: State | None = self._initial  # the current state; None = rebuild it when asked
        self._done: list[_Effective] = []
        self._undone: list[_Effective] = []
        self._base_seq = 0  # entries at or below this seq are folded into `_initial` (checkpoint)
        self.last_events: list[Event] = []

    # -- building -------------------------------------------------------------------------------
    @classmethod
    def replay(cls, rules: Rules, setup: dict[str, Any], seed: int, entries: list[Entry],
               checkpoint: tuple[int, dict[str, Any]] | None = None) -> Match:
        """Rebuild a match from its log; with a checkpoint, only the entries after it are applied.

        A checkpoint folds undo history before it: undo cannot reach behind a checkpoint.
        """
        match = cls(rules, setup, seed)
        if checkpoint is not None:
            seq, data = checkpoint
            match._initial = match._latest = rules.load(data)
            match._base_seq = seq
        for entry in entries:
            if entry.seq <= match._base_seq:
                match.entries.append(entry)
                continue
            match._apply(entry.action, entry.seq, settle=False)  # a run of undos rebuilds once, at the end
            match.entries.append(entry)
        match._settle()
        return match

    @staticmethod
    def replay_start(entries: list[Entry], checkpoint_seqs: list[int]) -> int | None:
        """The newest of `checkpoint_seqs` a replay of `entries` may start from, or None (replay it all).

        A replay from a checkpoint at `c` knows nothing before `c` (see `replay`), but the live game that
        wrote the log could undo or redo past it. Replaying the undo/redo stacks of the whole log tells,
        for every undo and redo, which action it moved; a checkpoint is usable when every one logged after
        it moves an action also after it. This is the rule `_apply` enforces, so only Match decides it.
        """
        done: list[int] = []
        undone: list[int] = []
        moved: list[tuple[int, int]] = []  # (seq of the undo/redo entry, seq of the action it moved)
        for entry in entries:
            kind = entry.action.get("type") if type(entry.action) is dict else None
            if kind == "undo" and done:
                undone.append(done.pop())
                moved.append((entry.seq, undone[-1]))
            elif kind == "redo" and undone:
                done.append(undone.pop())
                moved.append((entry.seq, done[-1]))
            elif kind not in ("undo", "redo"):
                done.append(entry.seq)
                undone.clear()
            else:  # an undo/redo with nothing to move: no replay that starts later can accept it either
                moved.append((entry.seq, -1))
        last = entries[-1].seq if entries else 0
        for seq in sorted({int(s) for s in checkpoint_seqs if 0 <= int(s) <= last}, reverse=True):
            if all(target > seq for at, target in moved if at > seq):
                return seq
        return None

    # -- reading --------------------------------------------------------------------------------
    @property
    def seq(self) -> int:
        return self.entries[-1].seq if self.entries else 0

    @property
    def state(self) -> State:
        """The current state. Only a read: web threads read it while the table's writer submits, so
        it never fills anything in (a reader that stored a state it rebuilt could put back the state
        before a move the writer had just applied, and the live game would part from its log)."""
        return self._latest if self._latest is not None else self._current()

    def _settle(self) -> None:
        """Rebuild the current state now (after an undo or redo), in the writer's call."""
        if self._latest is None:
            self._latest = self._current()
            if self._done:
                self._done[-1].state = self._latest

    def _current(self) -> State:
        """The state after the last effective action, rebuilt if it was not kept; stores nothing."""
        if not self._done:
            return self._initial
        last = self._done[-1]
        return last.state if last.state is not None else self._rebuild(len(self._done) - 1)

    def _rebuild(self, index: int) -> State:
        """State after effective action `index`, replayed from the nearest kept state before it."""
        start = index
        while start >= 0 and self._done[start].state is None:
            start -= 1
        state = self._initial if start < 0 else self._done[start].state
        for eff in self._done[start + 1:index + 1]:
            state, _ = self.rules.apply(state, eff.action)
        return state

    def effective_actions(self) -> list[Action]:
        """The actions the state is the replay of (undone ones left out)."""
        return [e.action for e in self._done]

    def can_undo(self) -> bool:
        return bool(self._done)

    def can_redo(self) -> bool:
        return bool(self._undone)

    def checkpoint(self) -> tuple[int, dict[str, Any]]:
        """(seq, dumped state) for the store to save; replay from it gives the same state."""
        return self.seq, self.rules.dump(self.state)

    def snapshot(self, log_tail: int = 20, viewer: str | None = None) -> dict[str, Any]:
        """The rules' view for `viewer` (a player id, or None for the shared screen) plus what every game
        shares: seq, game, undo/redo, the log's tail.

        A game with hidden information may define `public_action(action)`: the log then shows each action
        as that returns it (e.g. a hidden roll without its pips), the same for every viewer.
        """
        snap = self.rules.snapshot(self.state, viewer)
        snap["seq"] = self.seq
        snap["game"] = self.rules.name
        snap["can_undo"] = self.can_undo()
        snap["can_redo"] = self.can_redo()
        public = getattr(self.rules, "public_action", None) or _public
        snap["log"] = [
            {"seq": e.seq, "action": public(e.action)} for e in self.entries[-log_tail:]
        ]
        return snap

    # -- changing -------------------------------------------------------------------------------
    def submit(self, action: Action) -> Entry:
        """Validate and append one action (or undo/redo). Raises IllegalAction and changes nothing."""
        entries = self.entries
        seq = entries[-1].seq + 1 if entries else 1
        action = _copy(action)  # the log's and the undo history's own: a caller changing its dict later changes neither
        self._apply(action, seq)
        entry = Entry(seq, action)
        entries.append(entry)
        return entry

    def _apply(self, action: Action, seq: int, settle: bool = True) -> None:
        """Apply one action at `seq`; an undo or redo rebuilds the state at once unless `settle` is False
        (a replay, which nobody else can read yet, settles once at its end)."""
        kind = action_type(action)  # the clear IllegalAction for anything that is not an action
        if kind == "undo":
            if not self._done:
                raise IllegalAction("nothing_to_undo", "There is nothing to undo.")
            self._undone.append(self._done.pop())
            self._latest = None
            self.last_events = [{"type": "undone", "seq": self._undone[-1].seq}]
        elif kind == "redo":
            if not self._undone:
                raise IllegalAction("nothing_to_redo", "There is nothing to redo.")
            self._done.append(self._undone.pop())
            self._latest = None
            self.last_events = [{"type": "redone", "seq": self._done[-1].seq}]
        else:
            self._apply_move(action, seq)
            return
        if settle:
            self._settle()

    def _apply_move(self, action: Action, seq: int) -> None:
        done = self._done
        if self._latest is None:
            self._settle()
        state, events = self.rules.apply(self._latest, action)
        if done and len(done) % KEEP_EVERY != 0:
            done[-1].state = None  # no longer the latest and not on the checkpoint grid
        done.append(_Effective(seq, action, state))
        self._latest = state
        if self._undone:
            self._undone.clear()
        self.last_events = events


_FLAT = (str, int, float, bool, type(None))


def _copy(data: Any) -> Any:
    """A private copy of a submitted action (or a setup), so a caller changing it later cannot rewrite the log.

    Most actions are flat dicts (strings, numbers, None): a shallow copy is a full copy then. Anything else
    goes through marshal, much faster than deepcopy for plain JSON data, or deepcopy when marshal refuses.
    """
    if type(data) is dict:
        for v in data.values():
            if type(v) not in _FLAT:
                break
        else:
            return dict(data)
    try:
        return marshal.loads(marshal.dumps(data))
    except ValueError:
        return copy.deepcopy(data)


def _public(action: Action) -> Action:
    """An action as shown in the log: bulky evidence (images, raw readings) left out."""
    return {k: v for k, v in action.items() if k != "evidence"}
