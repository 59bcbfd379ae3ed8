"""The memory of confirmed pip dice learns through the face network's embedding (vision/memory.py, issue 31
item 5): a head fitted on the box, pulled back to the network as hard as the examples say, never certain."""

from __future__ import annotations

import numpy as np

from vision.classify import crop_patch
from vision.memory import (
    HEAD_GAIN,
    Memory,
    _softmax,
    choose_prior,
    fit_head,
    network_features,
    network_for,
    network_head,
)
from vision.reader import read_dice
from vision.render import DieSpec, render_tray
from vision.scoring import score


def face_crop(value: int, seed: int, angle: float = 10.0):
    frame = render_tray([DieSpec(320, 240, 80, angle, value, "d6", "white")], mount="over", background="grey",
                        seed=seed)
    return crop_patch(frame, (320.0, 240.0, 88.0, 88.0), pad=1.0, size=64)


def test_pip_d6_is_learnt_through_the_network_and_symbol_sets_through_pictures():
    assert network_for("d6", "over") is not None and network_for("d6", "under") is not None
    assert network_for("dicethrone:barbarian", "over") is None
    mem = Memory(mount="over")
    key = mem.add("d6", face_crop(5, 1), 5)
    emb = mem.embed([face_crop(5, 2, 40.0)])
    # one face known: the head keeps quiet (it would lean to that face); only a picture may vote, and the
    # network is not run
    assert not mem.speaks("d6") and emb.shape == (1, 48 * 48)  # no network views for a quiet head
    vote = mem.vote("d6", emb[0])
    assert vote is None or vote.kind == "picture"
    for value in range(1, 7):
        for seed in (3, 4):
            mem.add("d6", face_crop(value, seed, 25.0 * seed), value)
    vote = mem.vote("d6", emb[0])
    # the network reads these rendered pips already: its head gains nothing and keeps quiet; a vote, if any,
    # is the pictures' and names the 5
    assert vote is None or (vote.kind == "picture" and vote.face == 5)
    assert mem.head("d6").gain < HEAD_GAIN
    mem.remove("d6", key)
    assert mem.counts("d6") == {f: 2 for f in range(1, 7)}


def test_the_head_never_makes_a_die_certain():
    mem = Memory(mount="over")
    rng = np.random.default_rng(0)
    crops = [rng.integers(0, 255, (64, 64, 3), dtype=np.uint8) for _ in range(12)]
    for i, c in enumerate(crops):
        mem.add("d6", c, 1 + i % 6)
    vote = mem._head_vote("d6", mem.head("d6"), mem.embed(crops[:1])[0][-96:])
    assert vote.kind == "head" and not mem.overrules(vote)


def test_a_weak_pull_is_chosen_where_the_network_cannot_read_the_dice():
    """Examples the network's own layer gets wrong but that are easy to tell apart: the held-out fit picks the
    weakest pull and the head reads new examples right; where the network reads them already it gains nothing."""
    clf = network_for("d6", "over")
    prior = network_head(clf, 6)
    rng = np.random.default_rng(1)
    centres = np.abs(rng.normal(0, 3, (6, prior[0].shape[1])))
    faces = np.repeat(np.arange(1, 7), 8)
    x = centres[faces - 1] + np.abs(rng.normal(0, 0.3, (len(faces), prior[0].shape[1])))
    pull, gain = choose_prior(x, faces, prior)
    w, b = fit_head(x, faces, prior, pull)
    new = centres + np.abs(rng.normal(0, 0.3, centres.shape))
    assert pull == 0.3 and gain > 0.5 and (_softmax(new @ w.T + b).argmax(1) + 1 == np.arange(1, 7)).all()
    # dice the network already reads (the players confirm what it says): nothing to gain, so the head gives
    # no vote (Memory.vote, HEAD_GAIN)
    said = _softmax(x @ prior[0].T + prior[1]).argmax(1) + 1
    assert choose_prior(x, said, prior)[1] < HEAD_GAIN


def test_network_features_do_not_depend_on_a_quarter_turn_or_a_mirror():
    clf = network_for("d6", "under")
    rng = np.random.default_rng(2)
    crop = rng.integers(0, 255, (64, 64, 3), dtype=np.uint8)
    a, b, c = network_features(clf, [crop, np.rot90(crop).copy(), crop[:, ::-1].copy()])
    assert np.allclose(a, b, atol=1e-4) and np.allclose(a, c, atol=1e-4)


def test_a_pip_die_confirmed_as_another_face_becomes_uncertain_not_wrong():
    """Players who say a clean 5 is a 2: the memory may doubt the reader, never make it certain and wrong."""
    frame = render_tray([DieSpec(320, 240, 80, 10.0, 5, "d6", "white")], mount="over", background="grey", seed=1)
    wrong = Memory(mount="over")
    for _ in range(3):
        wrong.add("d6", crop_patch(frame, (320.0, 240.0, 88.0, 88.0), pad=1.0, size=64), 2)
    got = read_dice(frame, "d6", "over", memory=wrong)
    s = score([{"value": 5, "center": (320, 240)}], got, radius=30)
    assert s.silent == 0
