"""The fairness report: the logged dice set by set and die by die, judged by `device.fairness` (issue 36).

Pure: it is handed the dice (`device.dice_log`) and the sets' descriptions as plain data, and answers JSON
that `dicesight stats`, `GET /api/fairness` and the page all show, so the three never disagree.

- **Per set**: dice are counted under the set they belong to (the log's word for it, else the only set of the
  game whose faces fit the throw); a throw no set fits, or several sets fit equally, is "unattributed".
- **Per die**: where the camera read more than one colour among a set's dice, each colour is tested on its own
  (Holm-adjusted, `device.fairness.holm`); dice of one colour cannot be told apart and are pooled ("the red
  dice" when a throw held more than one of them). Learnt appearance does not yet tell dice apart.
- **Which rolls count**: camera rolls, certain or confirmed on a phone (a real throw of the tray; leaving the
  confirmed ones out would under-count the faces the reader finds hardest). Hand-entered dice are counted
  apart and not tested; virtual (engine) rolls are only counted.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from . import fairness
from .dice_log import DieRoll

TRAY_SOURCES = ("camera", "confirmed")


@dataclass(frozen=True)
class Category:
    """One face as a reading can name it: sides that read the same (name and value) are one category."""

    name: str
    value: int | None
    sides: tuple[int, ...]
    label: dict[str, str] | None


def categories(spec: dict[str, Any]) -> list[Category]:
    """The set's faces as categories, in the order of their first side."""
    grouped: dict[tuple[str, Any], list[int]] = {}
    labels: dict[tuple[str, Any], Any] = {}
    for pos, face in enumerate(spec.get("faces") or [], start=1):
        key = (str(face.get("name")), face.get("value"))
        grouped.setdefault(key, []).append(int(face.get("index", pos)))
        labels.setdefault(key, face.get("label"))
    return [Category(name, value, tuple(sides), labels[(name, value)] if isinstance(labels[(name, value)], dict)
                     else None) for (name, value), sides in grouped.items()]


def probs(cats: Sequence[Category]) -> list[float]:
    """A fair die's share of each category: its sides over all sides."""
    total = sum(len(c.sides) for c in cats)
    return [len(c.sides) / total for c in cats]


def classify(face: str | None, value: int | None, cats: Sequence[Category]) -> int | None:
    """The category a die belongs to: by face and value, else by face alone or value alone where that names
    one category (a die typed in as a bare value); None when it fits none."""
    for test in (lambda c: c.name == face and c.value == value, lambda c: face is not None and c.name == face,
                 lambda c: face is None and value is not None and c.value == value):
        found = [i for i, c in enumerate(cats) if test(c)]
        if len(found) == 1:
            return found[0]
    return None


def attribute(dice: Sequence[DieRoll], game_sets: Sequence[str], cats: dict[str, list[Category]]) -> list[str | None]:
    """The set of each die of one throw: its own hint when the set is known, else the only one of the game's
    sets that fits every die of the throw without a hint, else None."""
    open_ = [d for d in dice if d.set_hint not in cats]
    fits = [s for s in game_sets if s in cats and all(classify(d.face, d.value, cats[s]) is not None for d in open_)]
    guess = fits[0] if len(fits) == 1 else None
    return [d.set_hint if d.set_hint in cats else guess for d in dice]


def english_label(cat: Category, cats: Sequence[Category]) -> str:
    """A face as an English line says it: its label, with its number when the label alone repeats."""
    text = (cat.label or {}).get("en") or cat.name
    repeats = sum(((c.label or {}).get("en") or c.name) == text for c in cats) > 1
    return f"{text} ({cat.value})" if repeats and cat.value is not None else text


def who(colour: str | None, several: bool) -> str:
    """"the red die", "the red dice", "the dice"."""
    noun = "dice" if several else "die"
    return f"the {colour} {noun}" if colour else f"the {noun}"


def p_text(p: float) -> str:
    """A p-value as players read it: three decimals, "p < 0.001" below that."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def sentence(verdict: fairness.Verdict, name: str, face: str | None, several: bool) -> str:
    """The verdict in plain English ("the red die shows 1 far too often: p = 0.002")."""
    if verdict.code == "too_few":
        return f"too few rolls to judge {name} yet: {verdict.rolls} of the {verdict.wanted} needed"
    if verdict.code == "no_evidence":
        return f"no evidence of bias after {verdict.rolls} rolls"
    verb = "show" if several else "shows"
    how = "far too often" if verdict.direction == "often" else "far too rarely"
    return (f"{name} {verb} {face} {how}: {p_text(verdict.p or 0.0)} ({verdict.share:.0%} of the rolls; "
            f"a fair die {verdict.fair_share:.0%})")


@dataclass
class Tally:
    """What some games' dice add to the report, small and mergeable: the table keeps one per game and reads
    again only the game that changed (a box's log grows by thousands of throws; the report must not).

    `counts[(set, source, colour, face category)]`: dice; `most[(set, colour)]`: the most tray dice of that
    colour in one throw (one: "the red die"; more: "the red dice"); `unmatched[set]`: dice whose face the set
    does not have; `unattributed`: dice of no set the box could tell; `virtual`: rolls of the engine's dice;
    `throws`: throws of the tray that counted (a "test my dice" asks for a number of them)."""

    counts: Counter = field(default_factory=Counter)
    most: dict[tuple[str, str | None], int] = field(default_factory=dict)
    unmatched: Counter = field(default_factory=Counter)
    unattributed: int = 0
    virtual: int = 0
    throws: int = 0  # throws of the tray (camera or confirmed) with at least one die counted

    def add(self, other: Tally) -> Tally:
        """This tally with `other`'s dice added (in place; returns self)."""
        self.throws += other.throws
        self.counts.update(other.counts)
        self.unmatched.update(other.unmatched)
        for key, n in other.most.items():
            self.most[key] = max(n, self.most.get(key, 0))
        self.unattributed += other.unattributed
        self.virtual += other.virtual
        return self


def tally(dice: Sequence[DieRoll], specs: dict[str, dict[str, Any]], game_sets: dict[str, list[str]],
          virtual: int = 0) -> Tally:
    """Each die under its set (`attribute`), its source, its colour and its face (`classify`)."""
    cats = {sid: categories(spec) for sid, spec in specs.items()}
    throws: dict[tuple[int, int], list[DieRoll]] = defaultdict(list)
    for d in dice:
        throws[(d.game_id, d.throw)].append(d)
    out = Tally(virtual=virtual)
    for throw in throws.values():
        on_tray: Counter = Counter()
        for d, sid in zip(throw, attribute(throw, game_sets.get(throw[0].game, []), cats), strict=True):
            cat = classify(d.face, d.value, cats[sid]) if sid is not None else None
            if sid is None:
                out.unattributed += 1
            elif cat is None:
                out.unmatched[sid] += 1
            else:
                out.counts[(sid, d.source, d.colour, cat)] += 1
                on_tray[(sid, d.colour)] += d.source in TRAY_SOURCES
        for key, n in on_tray.items():
            out.most[key] = max(n, out.most.get(key, 0))
        out.throws += any(on_tray.values())
    return out


def _colour_order(colour: str | None, known: Sequence[str]) -> tuple[int, str]:
    return (known.index(colour) if colour in known else len(known), colour or "~")


def _groups(t: Tally, set_id: str, n: int, known: Sequence[str]) -> list[tuple[str | None, list[int], int]]:
    """(colour, counts per face, most of it in one throw) of each die of a set the camera read: one per colour
    it saw, or one for all when it never saw two."""
    by_colour: dict[str | None, list[int]] = {}
    for (sid, source, colour, cat), count in t.counts.items():
        if sid == set_id and source in TRAY_SOURCES:
            by_colour.setdefault(colour, [0] * n)[cat] += count
    if len(by_colour) <= 1:
        return [(colour, counts, t.most.get((set_id, colour), 0)) for colour, counts in by_colour.items()]
    return [(colour, by_colour[colour], t.most.get((set_id, colour), 0))
            for colour in sorted(by_colour, key=lambda c: _colour_order(c, known))]


def _die(colour: str | None, several: bool, cats: Sequence[Category], p_adj: float | None,
         test: fairness.FaceTest, needed: int) -> dict[str, Any]:
    """One die's part of the report (JSON)."""
    verdict = fairness.judge(test, probs(cats), p_adj)
    face = english_label(cats[verdict.face], cats) if verdict.face is not None else None
    return {"colour": colour, "several": several, "rolls": test.rolls, "counts": list(test.counts),
            "expected": [round(e, 2) for e in test.expected], "chi2": test.chi2, "p": test.p, "p_adjusted": p_adj,
            "df": test.df, "verdict": asdict(verdict), "needed": needed, "more": max(0, needed - test.rolls),
            "message": sentence(verdict, who(colour, several), face, several)}


def _sources(t: Tally, set_id: str, n: int) -> tuple[dict[str, int], list[int]]:
    """How many of a set's dice came from each source, and the hand-entered ones per face."""
    sources = dict.fromkeys((*TRAY_SOURCES, "hand"), 0)
    hand = [0] * n
    for (sid, source, _colour, cat), count in t.counts.items():
        if sid == set_id:
            sources[source] += count
            if source == "hand":
                hand[cat] += count
    return sources, hand


def _set_report(set_id: str, spec: dict[str, Any], t: Tally, bias: float, alpha: float, power: float) -> dict[str, Any]:
    """One set: its faces, how many dice came from where, each die's test, the hand-entered counts."""
    cats = categories(spec)
    shares = probs(cats)
    groups = _groups(t, set_id, len(cats), spec.get("colours") or [])
    tests = [fairness.chi_square(counts, shares) for _colour, counts, _most in groups]
    adjusted = fairness.holm([test.p for test in tests])
    needed = fairness.rolls_needed(shares, bias, alpha / max(1, len(groups)), power)
    sources, hand = _sources(t, set_id, len(cats))
    return {
        "set": set_id, "name": spec.get("name"),
        "faces": [{"face": c.name, "value": c.value, "sides": len(c.sides), "p": round(p, 4), "label": c.label,
                   "text": english_label(c, cats)} for c, p in zip(cats, shares, strict=True)],
        "sources": sources,
        "dice": [_die(colour, most > 1, cats, adj, test, needed)
                 for (colour, _counts, most), test, adj in zip(groups, tests, adjusted, strict=True)],
        "needed": needed, "bias": bias, "power": power, "alpha": alpha,
        "hand": {"rolls": sum(hand), "counts": hand},
        "unmatched": t.unmatched.get(set_id, 0),
    }


def build(t: Tally, specs: dict[str, dict[str, Any]], *, only_set: str | None = None,
          bias: float = fairness.DEFAULT_BIAS, alpha: float = fairness.ALPHA, power: float = fairness.POWER
          ) -> dict[str, Any]:
    """The whole report from a tally: `specs` are the dice sets by id (`engine.core.DiceSetSpec`), `only_set`
    one set's report alone (listed even with no dice)."""
    seen = {key[0] for key in t.counts} | set(t.unmatched)
    wanted = [only_set] if only_set is not None else sorted(seen)
    sets = [_set_report(sid, specs[sid], t, bias, alpha, power) for sid in wanted if sid in specs]
    sets.sort(key=lambda s: (-(s["sources"]["camera"] + s["sources"]["confirmed"]), s["set"]))
    return {"alpha": alpha, "power": power, "bias": bias, "sets": sets, "throws": t.throws,
            "virtual_rolls": t.virtual, "unattributed": t.unattributed}


def plan(spec: dict[str, Any], bias: float = fairness.DEFAULT_BIAS, alpha: float = fairness.ALPHA,
         power: float = fairness.POWER) -> int:
    """Throws a "test my dice" asks for: enough to catch one die of this set with a face off by `bias`."""
    return fairness.rolls_needed(probs(categories(spec)), bias, alpha, power)


def report(dice: Sequence[DieRoll], virtual: int, specs: dict[str, dict[str, Any]], game_sets: dict[str, list[str]],
           **kw: Any) -> dict[str, Any]:
    """`build` over these dice at once (`dicesight stats`, tests)."""
    return build(tally(dice, specs, game_sets, virtual), specs, **kw)
