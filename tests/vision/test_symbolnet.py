"""The rule that joins a symbol set's face network and its template reader (`vision/symbolnet.py`, issue 31
item 4: trust the better judge, and certain means right)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from device.dice_sets import spec
from vision.classify import FaceClassifier
from vision.dicesets import get_set
from vision.name import top_face
from vision.reading import UNNAMED, Reading
from vision.symbolnet import NONE, OUTSIZED, joined, network_for, trusted_levels, turned_levels, with_network

KOT = get_set(spec("kingoftokyo"))
SURE = 0.99   # the certainty level these tests give the network


def template(face: str, certain: bool, confidence: float = 0.7) -> Reading:
    value = KOT.face([f.index for f in KOT.faces if f.name == face][0]).value if face != UNNAMED else None
    return Reading(value, face, "black", confidence, (50.0, 50.0), (30, 30, 40, 40), certain)


def seen(top: str, confidence: float, rest: str | None = None) -> np.ndarray:
    """The network's probabilities: `confidence` on the face on the glass under a die whose top is `top`,
    the rest spread evenly (or all on the glass face under `rest`)."""
    probs = np.full(7, (1.0 - confidence) / 6, np.float32)
    top_index = [f.index for f in KOT.faces if f.name == top][0]
    glass = KOT.top_of(top_index)   # the map is its own inverse: the face opposite the top
    if rest is not None:
        probs[:] = 0.0
        probs[KOT.top_of([f.index for f in KOT.faces if f.name == rest][0]) - 1] = 1.0 - confidence
    probs[glass - 1] = confidence
    return probs


def nothing(confidence: float) -> np.ndarray:
    probs = np.full(7, (1.0 - confidence) / 6, np.float32)
    probs[NONE] = confidence
    return probs


def test_agreeing_judges_are_certain_when_either_is_sure():
    """Agreement: certain when one of the two is sure (as the pip dice's CNN and pip count)."""
    assert joined(template("heart", False), seen("heart", SURE), KOT, "under", SURE).certain
    assert joined(template("heart", True), seen("heart", 0.6), KOT, "under", SURE).certain
    assert not joined(template("heart", False), seen("heart", 0.6), KOT, "under", SURE).certain


def test_a_sure_network_wins_over_unsure_templates():
    """The better judge: the templates know one drawing of the glyphs, the network many printings."""
    r = joined(template("claw", False), seen("energy", SURE), KOT, "under", SURE)
    assert (r.face, r.certain) == ("energy", True)


def test_templates_that_name_another_face_never_overrule_the_network():
    """Issue 31 (trust the better judge): the templates know one drawing of the glyphs, the network many
    printings. Where the two name different faces the network's face stands alone, certain only at its
    level, whatever the templates' certainty: on renders of eight printings from below (922 dice) certain
    templates kept against an unsure network made dice certain and wrong, and asked about against a sure
    one made right dice uncertain (docs/dice-sets.md, eighteenth session)."""
    r = joined(template("claw", True, 0.9), seen("energy", SURE), KOT, "under", SURE)
    assert (r.face, r.value, r.certain, r.confidence) == ("energy", None, True, pytest.approx(SURE))
    for confidence in (0.3, 0.6):
        r = joined(template("claw", True, 0.9), seen("energy", confidence), KOT, "under", SURE)
        assert (r.face, r.certain) == ("energy", False)
    r = joined(template("claw", False, 0.8), seen("energy", 0.6), KOT, "under", SURE)
    assert (r.face, r.certain) == ("energy", False)


def test_a_face_the_templates_could_not_name_takes_the_networks_certain_only_at_its_level():
    r = joined(template(UNNAMED, False, 0.1), seen("2", 0.7), KOT, "under", SURE)
    assert (r.face, r.value, r.certain) == ("2", 2, False)
    assert joined(template(UNNAMED, False, 0.1), seen("2", SURE), KOT, "under", SURE).certain


def test_not_a_die_never_removes_a_reading_only_its_certainty():
    r = joined(template("3", True), nothing(SURE), KOT, "under", SURE)
    assert (r.face, r.certain) == ("3", False)
    assert joined(template("3", True), nothing(0.5), KOT, "under", SURE).certain


def test_the_network_is_never_sure_of_a_box_far_bigger_than_the_frames_others(monkeypatch):
    """Issue 31 (certain means right): the network learnt dice framed at about their face's size and "no
    die" at 2.3-3 times it; between, under the tray, it named a die with its neighbour or the sheet under it
    surely and wrongly. A box more than OUTSIZED times the frame's median is read, never sure; two boxes tell
    no median."""
    import vision.symbolnet as symbolnet

    class Net(FaceClassifier):
        certain_at, size, pad, classes = SURE, 32, 1.1, ["1", "2", "3", "4", "5", "6", "none"]

        def __init__(self) -> None:   # no ONNX file: only what the rule reads
            pass

    def probabilities(clf, crops):
        return np.stack([seen("heart", 1.0)] * len(crops))

    monkeypatch.setattr(symbolnet, "probabilities", probabilities)
    side = int(OUTSIZED * 40) + 4
    places = ((0, 40), (60, 38), (120, side))
    readings = [replace(template(UNNAMED, False, 0.1), box=(x, 30, w, w)) for x, w in places]
    got = with_network(np.zeros((240, 320, 3), np.uint8), KOT, "under", readings, None, Net())
    assert [(r.face, r.certain) for r in got] == [("heart", True), ("heart", True), ("heart", False)]
    assert trusted_levels([(0, 0, 40, 40), (0, 0, side, side)], SURE) == [SURE, SURE]


@pytest.mark.parametrize("mount", ["over", "under"])
def test_a_set_without_its_own_network_or_a_table_file_with_other_faces_gets_none(mount):
    assert network_for(get_set("d6"), mount) is None
    other = dict(spec("kingoftokyo"))
    other["faces"] = [dict(f, name=f"x{i}") for i, f in enumerate(other["faces"])]
    assert network_for(get_set(other), mount) is None


class _FamilyNet:
    """Stands in for a family's network file (none ships yet): only its meta is read to route sets to it."""

    meta = {"family": "dicethrone:", "mount": "under"}


def _renumbered(set_id: str) -> dict:
    """A table's own file of a member's dice whose corner numbers are not the faces' indices."""
    other = dict(spec(set_id))
    other["faces"] = [dict(f, glyph=f["glyph"].replace(f"corner:{f['index']}", f"corner:{7 - f['index']}"))
                      for f in other["faces"]]
    return other


def test_every_member_numbered_by_index_shares_the_familys_network_and_no_other_set_does(monkeypatch):
    """A family network names the corner number, so it serves every member that prints each face's index in
    the corner (a hero it never trained on too), and no set numbered otherwise, outside the family, or from a
    family whose file names another family."""
    from device.dice_sets import ids
    from vision import symbolnet
    net = _FamilyNet()
    monkeypatch.setattr(symbolnet, "_shipped", lambda name: net if name == "dicethrone-under" else None)
    heroes = [i for i in ids() if i.startswith("dicethrone:")]
    assert len(heroes) >= 12
    assert all(network_for(get_set(spec(h)), "under") is net for h in heroes)
    assert all(network_for(get_set(spec(h)), "over") is None for h in heroes)
    assert network_for(get_set(_renumbered(heroes[0])), "under") is None
    assert not symbolnet.numbered_by_index(get_set(_renumbered(heroes[0])))
    assert network_for(get_set(spec("kingoftokyo")), "under") is not net   # no family: its own network
    monkeypatch.setattr(symbolnet, "_shipped", lambda name: type("Other", (), {"meta": {"family": "other:"}})())
    assert network_for(get_set(spec(heroes[0])), "under") is None


class _TurnSensitive(FaceClassifier):
    """A stand-in symbol network sure of class 2 (the glass face 3) only when the crop's brightest quarter
    is its top left, otherwise leaning doubtfully to class 1: a die the real network reads well in one turn
    only."""

    classes = ["1", "2", "3", "4", "5", "6", "none"]
    size, pad, norm, certain_at = 32, 1.1, "rgb", 0.9

    def __init__(self, turns_certain_at: float | None) -> None:
        self.turns_certain_at, self.batches = turns_certain_at, []

    def run(self, batch: np.ndarray, allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        self.batches.append(len(batch))
        quarters = [batch[:, :16, :16], batch[:, :16, 16:], batch[:, 16:, :16], batch[:, 16:, 16:]]
        top_left = np.argmax([q.mean(axis=(1, 2, 3)) for q in quarters], axis=0) == 0
        sure = np.array([0.01, 0.02, 0.95, 0.0, 0.0, 0.0, 0.02])
        lean = np.array([0.05, 0.40, 0.35, 0.05, 0.05, 0.05, 0.05])
        return np.where(top_left[:, None], sure, lean), np.zeros((len(batch), 4), np.float32)


def _two_dice() -> tuple[np.ndarray, list[Reading]]:
    """A frame of two dice the templates could not name: the left one's bright corner at its bottom right
    (read well in another turn only), the right one's at its top left."""
    img = np.zeros((100, 200, 3), np.uint8)
    img[50:62, 50:62] = 255
    img[38:50, 138:150] = 255
    return img, [replace(template(UNNAMED, False, 0.1), box=(x, 38, 24, 24)) for x in (38, 138)]


@pytest.mark.parametrize("lift", [False, True])
def test_a_doubted_die_is_read_in_four_turns_and_their_sure_mean_counts_only_with_the_room(lift):
    """Issue 31 (symbol dice from below lie at any angle): a box the network names a face of below its level
    is read in its other three quarter turns and named by the mean (`classify.joined_with_views`); a sure box
    is not read again. The mean makes a die certain only at the network's `turns_certain_at` and only with the
    room (`lift`), as pip dice's turns do."""
    img, readings = _two_dice()
    third = top_face(KOT, 3, "under").name
    clf = _TurnSensitive(turns_certain_at=0.45)   # the doubted die's mean names the glass face 3 at 0.5
    got = with_network(img, KOT, "under", readings, None, clf, lift=lift)
    assert [(r.face, r.certain) for r in got] == [(third, lift), (third, True)]
    assert got[0].confidence == pytest.approx((3 * 0.35 + 0.95) / 4)
    assert clf.batches == [2, 3]   # both plain, then the doubted one's three other turns in one batch
    clf = _TurnSensitive(turns_certain_at=0.55)
    got = with_network(img, KOT, "under", readings, None, clf, lift=lift)
    assert [r.certain for r in got] == [False, True]


def test_without_the_turns_a_doubted_die_keeps_its_plain_guess(monkeypatch):
    """`TURNS_UNDER` off (bench/vision_undertray.py --one-turn): one reading a box, the doubted one's guess
    is the plain reading's face, and nothing from above is ever read in turns."""
    import vision.symbolnet as symbolnet

    img, readings = _two_dice()
    clf = _TurnSensitive(turns_certain_at=0.45)
    over = with_network(img, KOT, "over", readings, None, clf, lift=True)
    assert over[0].face == top_face(KOT, 2, "over").name
    monkeypatch.setattr(symbolnet, "TURNS_UNDER", False)
    got = with_network(img, KOT, "under", readings, None, clf, lift=True)
    assert [(r.face, r.certain) for r in got] == [(top_face(KOT, 2, "under").name, False),
                                                  (top_face(KOT, 3, "under").name, True)]
    assert clf.batches == [2, 2]


def test_an_outsized_box_stays_unsure_whatever_its_turns_say():
    both = np.array([True, True])
    assert turned_levels([SURE, math.inf], both, _TurnSensitive(0.45), True) == [0.45, math.inf]
    first = np.array([True, False])
    assert turned_levels([SURE, SURE], first, _TurnSensitive(None), True) == [math.inf, SURE]
    assert turned_levels([SURE], np.array([True]), _TurnSensitive(0.45), False) == [math.inf]
