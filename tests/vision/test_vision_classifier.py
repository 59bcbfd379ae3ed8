"""The face classifier shipped in the package (ONNX run by cv2.dnn), the finder's candidates, and the box's
memory of confirmed dice."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vision_specs import HERO
from visionkit import DATASETS, layout

from vision.classify import (
    MODELS,
    PAD,
    SIZE,
    FaceClassifier,
    best_turn,
    crop_patch,
    crop_rect,
    join_mirrored,
    join_views,
    load,
    normalise_batch,
    normalise_crop,
    quarter_turns,
    smoothed,
    smoothed_around,
)
from vision.dicesets import get_set
from vision.finder import count_pips
from vision.memory import Memory
from vision.reader import closer_look, find_dice, read_dice, same_at_both_scales, weak_agreement_sure
from vision.reading import Reading
from vision.render import DieSpec, ground_truth, random_dice, render_tray
from vision.scoring import score, yolo_truth


def test_shipped_model_is_small_and_described():
    onnx = MODELS / "pips.onnx"
    meta = json.loads((MODELS / "pips.json").read_text())
    assert onnx.stat().st_size < 1_000_000
    assert meta["classes"] == ["1", "2", "3", "4", "5", "6", "none"]
    assert 0.5 <= meta["certain_at"] < 1.0 and meta["temperature"] > 0
    assert "CC BY 4.0" in meta["sources"]  # the photos it learnt from are attributed


def test_classifier_reads_labelled_real_dice():
    """Given the labelled dice of real webcam photos (their labels box the pips; the die is 1.7x that), the
    classifier names most faces and its certain answers are right."""
    clf = load("pips")
    root = DATASETS / "webcam-d6"
    names = sorted(p.stem for p in (root / "images").glob("*.jpg"))[::20]
    assert len(names) >= 15
    right = certain_wrong = n = 0
    for name in names:
        img = cv2.imread(str(root / "images" / f"{name}.jpg"))
        truth = [g for g in yolo_truth(root / "labels" / f"{name}.txt", 640, 480) if g["value"] != 1]
        boxes = [(g["center"][0], g["center"][1], 1.7 * max(g["size"]), 1.7 * max(g["size"])) for g in truth]
        for g, p in zip(truth, clf.predict(img, boxes), strict=True):
            n += 1
            ok = p.label == str(g["value"])
            right += ok
            certain_wrong += (not ok) and p.confidence >= clf.certain_at
    assert n >= 20
    assert right >= 0.8 * n
    assert certain_wrong == 0


def test_empty_patches_are_not_dice():
    clf = load("pips")
    frame = render_tray([], mount="over", background="wood", seed=4)
    boxes = [(100.0 + 90 * i, 200.0, 60.0, 60.0) for i in range(5)]
    preds = clf.predict(frame, boxes)
    assert all(p.label == "none" or p.confidence < clf.certain_at for p in preds)


def test_crop_is_scale_free_and_normalised():
    img = np.zeros((200, 300, 3), np.uint8)
    img[80:120, 130:170] = 255
    a = normalise_crop(img, (150.0, 100.0, 40.0, 40.0))
    big = cv2.resize(img, (900, 600), interpolation=0)
    b = normalise_crop(big, (450.0, 300.0, 120.0, 120.0))
    assert a.shape == b.shape == (SIZE, SIZE, 3)
    assert abs(float(a.mean())) < 1e-3 and np.abs(a - b).mean() < 0.15
    edge = crop_patch(img, (5.0, 5.0, 40.0, 40.0))  # off the frame: the border is replicated
    assert edge.shape == (SIZE, SIZE, 3)


@pytest.mark.parametrize("mount", ["under", "over"])
def test_marbled_speckled_translucent_pip_dice_right_or_flagged(mount):
    dice = [DieSpec(90 + 115 * i, 150 + 160 * (i % 2), 64, 25.0 * i, (i % 6) + 1, "d6", colour, material=mat)
            for i, (colour, mat) in enumerate([("red", "marbled"), ("blue", "speckled"), ("green", "translucent"),
                                               ("black", "marbled"), ("white", "speckled")])]
    frame = render_tray(dice, mount=mount, background="grey" if mount == "over" else None, seed=3)
    s = score(ground_truth(dice, mount), read_dice(frame, "d6", mount), radius=30)
    assert s.silent == 0
    assert s.correct >= 4
    assert s.missed == 0


def test_memory_teaches_a_symbol_set_and_guards_the_cnn():
    """Confirmed crops of a symbol set make its faces certain from the next roll; a memory that contradicts
    the pip CNN only makes the die uncertain."""
    ds = get_set(HERO)
    mem = Memory(mount="over")
    for face in range(1, 7):
        for k in range(3):
            frame = render_tray([DieSpec(320, 240, 80, 30.0 * k, face, ds, "white")], mount="over",
                                background="grey", seed=10 + k)
            crop = crop_patch(frame, (320.0, 240.0, 92.0, 92.0), pad=1.0, size=96)
            mem.add(ds.id, crop, face)
    assert mem.counts(ds.id) == {f: 3 for f in range(1, 7)}
    dice = [DieSpec(120 + 200 * i, 240, 80, 50.0 + 20 * i, face, ds, "white") for i, face in enumerate((6, 4, 1))]
    frame = render_tray(dice, mount="over", background="grey", seed=42)
    with_mem = read_dice(frame, ds, "over", memory=mem)
    s = score(ground_truth(dice, "over"), with_mem, radius=30)
    assert s.silent == 0 and s.correct == 3
    # a pip die with a memory that says otherwise: uncertain, never a confident wrong number
    wrong = Memory(mount="over")
    d6 = [DieSpec(320, 240, 80, 10.0, 5, "d6", "white")]
    frame = render_tray(d6, mount="over", background="grey", seed=1)
    for _ in range(3):
        wrong.add("d6", crop_patch(frame, (320.0, 240.0, 92.0, 92.0), pad=1.0, size=96), 2)
    r = read_dice(frame, "d6", "over", memory=wrong)
    assert len(r) == 1 and not r[0].certain
    with pytest.raises(ValueError):
        mem.add(ds.id, np.zeros((2, 2, 3), np.uint8), 1)


def test_crop_pip_count_is_right_or_abstains():
    """The quick count in an outline's own crop (the box's second opinion under the tray): on rendered dice
    of every colour and body at any angle it counts right or says nothing, never a wrong number."""
    rng = np.random.default_rng(5)
    right = wrong = n = 0
    for i in range(12):
        dice = random_dice(rng, 4, size=(30, 80))
        for d in dice:
            d.material = str(rng.choice(["plain", "marbled", "speckled", "translucent"]))
        frame = render_tray(dice, mount="under", seed=i, room_seed=i)
        for d in dice:
            got = count_pips(frame, ((d.x, d.y), (d.size, d.size), d.angle))
            n += 1
            right += got == 7 - d.value
            wrong += got is not None and got != 7 - d.value
    assert wrong == 0
    assert right >= 0.8 * n


def test_crop_along_the_die_edges_takes_the_angle_away():
    """A face cut out along its outline's rotated rectangle (`crop_rect`, the symbol training's crops) looks
    the same whatever angle the die lies at, up to a quarter turn."""
    spec = HERO
    crops = []
    for angle in (0.0, 33.0, 71.0):
        frame = render_tray([DieSpec(320, 240, 80, angle, 2, spec, "white")], mount="over", background="grey",
                            seed=1, noise=0)
        blob = max(find_dice(frame, "over", None), key=lambda b: b.area)
        crops.append(crop_rect(frame, blob.rect, size=48).astype(np.float32))
    for c in crops[1:]:
        diffs = [np.abs(np.rot90(c, k) - crops[0]).mean() for k in range(4)]
        assert min(diffs) < 12.0  # grey levels; the face in a wrong turn differs by several times that
        assert max(diffs) > 2 * min(diffs)


def test_quarter_turns_and_the_surest_turn():
    crops = np.arange(2 * 4 * 4 * 3, dtype=np.uint8).reshape(2, 4, 4, 3)
    t = quarter_turns(crops)
    assert t.shape == (8, 4, 4, 3)
    assert np.array_equal(t[5], np.rot90(crops[1], 1))
    # crop 0: its third turn names class 1 surely; crop 1: every turn says "none" (class 2) but the first
    # names class 0 most
    probs = np.array([[.4, .3, .3], [.3, .3, .4], [.05, .9, .05], [.2, .2, .6],
                      [.3, .0, .7], [.1, .1, .8], [.0, .1, .9], [.2, .0, .8]])
    best = best_turn(probs, none=2)
    assert np.allclose(best[0], [.05, .9, .05]) and np.allclose(best[1], [.3, .0, .7])


def test_second_looks_keep_a_clear_face_and_small_or_doubtful_boxes_are_unsure():
    """A die the CNN is sure of keeps its face when its box is grown and nudged (`second_looks`); a box much
    smaller than the frame's other dice (two pips of a 6), or a look naming another face, is never certain."""
    clf = load("pips")
    dice = [DieSpec(160, 200, 64, 10.0, 5, "d6", "white"), DieSpec(420, 260, 64, 35.0, 3, "d6", "red")]
    frame = render_tray(dice, mount="over", background="felt", seed=2)
    looks = clf.second_looks(frame, [(d.x, d.y, 64.0, 64.0) for d in dice])
    assert looks.shape == (2, 2, len(clf.classes))
    assert [int(k) for k in looks.argmax(2)[:, 0]] == [4, 2]  # faces 5 and 3 (class index = face - 1)
    assert weak_agreement_sure(looks[0], 4, 64.0, 64.0)
    assert not weak_agreement_sure(looks[0], 4, 30.0, 64.0)  # a part of a die
    assert not weak_agreement_sure(looks[0], 1, 64.0, 64.0)  # the looks name another face


def test_a_photo_of_small_or_unsure_dice_is_looked_at_closer():
    """The scale comes from the first read: small dice it is fairly sure of, or only unsure ones, ask for a
    second read of the photo enlarged; large sure dice, nothing at all (an empty tray), or dice the first read
    is certain of every one of, do not."""
    def die(side: int, conf: float, certain: bool | None = None) -> Reading:
        return Reading(3, "3", "white", conf, (100.0, 100.0), (80, 80, side, side),
                       conf > 0.9 if certain is None else certain)

    assert closer_look([die(28, 0.95), die(30, 0.8), die(70, 0.4)], (640, 640, 3)) == 1.5
    assert closer_look([die(30, 0.3)], (480, 640, 3)) == 1.5
    assert closer_look([die(60, 0.95), die(64, 0.9), die(20, 0.3)], (480, 640, 3)) == 1.0
    assert closer_look([], (480, 640, 3)) == 1.0
    assert closer_look([die(28, 0.95, False)], (720, 960, 3)) == pytest.approx(1280 / 960)
    assert closer_look([die(28, 0.95), die(30, 0.99)], (640, 640, 3)) == 1.0  # every die certain already


def test_a_frame_from_below_is_not_read_again_enlarged(monkeypatch):
    """Rule: reader.CLOSER_UNDER. Under the tray the read's size is chosen for the networks already, so a
    frame read without the room is not looked at closer; a photo from above still is."""
    import vision.reader as reader

    asked: list[tuple[int, ...]] = []

    def noting(readings: list[Reading], shape: tuple[int, ...]) -> float:
        asked.append(shape)
        return 1.0

    monkeypatch.setattr(reader, "closer_look", noting)
    dice = random_dice(np.random.default_rng(5), 4, size=(30, 40))
    assert read_dice(render_tray(dice, mount="under", seed=2), "d6", "under")
    assert asked == []
    assert read_dice(render_tray(dice, mount="over", background="felt", seed=2), "d6", "over")
    assert len(asked) == 1


def test_the_enlarged_read_is_certain_only_where_the_first_read_agrees():
    def die(x: float, y: float, value: int, certain: bool, side: int) -> Reading:
        return Reading(value, str(value), "white", 0.95 if certain else 0.4, (x, y),
                       (int(x) - side // 2, int(y) - side // 2, side, side), certain)

    first = [die(100, 100, 3, False, 27), die(200, 100, 5, True, 27)]
    # read 1.5x larger: the same places are at 1.5x the coordinates
    zoomed = [die(150, 150, 3, True, 40), die(300, 150, 2, True, 40), die(450, 150, 6, True, 40)]
    out = same_at_both_scales(zoomed, first, 1.5)
    assert [r.certain for r in out] == [True, False, False]  # agrees / another face there / nothing there
    assert [r.value for r in out] == [3, 2, 6] and out[1].confidence <= 0.5


@pytest.mark.parametrize("name", ["pips", "pips-under", "kingoftokyo-under"])
def test_shipped_model_reads_as_it_was_trained(name):
    """The ONNX file run by cv2.dnn gives the logits torch gave at training for a few stored held-back crops
    (`training/train_reader.py` and `train_reader_undertray.py` write them with the model): the export (batch
    norm folded, NCHW layout, the under-tray network's per-channel convolutions) and the reader's normalisation
    are the trained ones. King of Tokyo's file joins two networks (`training/ensemble.py`): its reference is
    the mean of its members' logits on their own reference crops."""
    ref = np.load(Path(__file__).parent / "data" / f"{name.replace('-', '_')}_reference.npz")
    clf = load(name)
    clf.net.setInput(np.ascontiguousarray(normalise_batch(ref["crops"], clf.norm).transpose(0, 3, 1, 2)))
    got = clf.net.forward("logits")
    assert np.allclose(got, ref["logits"], atol=1e-3 * max(1.0, float(np.abs(ref["logits"]).max())))
    assert [int(i) for i in got.argmax(1)] == [int(i) for i in ref["logits"].argmax(1)]


@pytest.mark.parametrize("name", ["pips", "pips-under", "numerals", "kingoftokyo-under", "corner-numbers"])
def test_shipped_networks_pool_by_slices(name):
    """Every shipped network's 2x2 max-pools are written as strided slices and their maximum
    (`training/onnx_pools.py`): the same numbers (the reference test above), sooner in cv2.dnn's classic
    engine. A network exported again without the rewrite would fail here."""
    from vision.classify import MODELS
    from vision.onnx_net import load_net

    kinds = load_net(MODELS / f"{name}.onnx").getLayerTypes()
    assert "Pooling" not in kinds and "Slice" in kinds


def test_training_cubes_are_real_dice():
    """The dice drawn as cubes for training (`training/cubes.py`) are dice a player would accept: each face
    shows its number of pips, opposite faces sum to 7, and each canvas's class is its face-up value."""
    from training.cubes import _side_values, cube_canvases, face_texture  # training only: not the package's

    rng = np.random.default_rng(3)
    white, black = np.float32([235, 235, 235]), np.float32([20, 20, 20])
    for value in range(1, 7):
        tex = face_texture(value, white, black, "plain", np.random.default_rng(value + 10), 0.09, 0.26)
        dark = (tex.mean(2) < 128).astype(np.uint8)
        assert cv2.connectedComponents(dark)[0] - 1 == value
        faces = _side_values(value, rng)
        assert sorted(faces) == [1, 2, 3, 4, 5, 6] and faces[0] == value
        assert all(faces[k] + faces[k + 1] == 7 for k in (0, 2, 4))
    c = cube_canvases(1, 64, np.random.default_rng(1))
    assert c.x.shape == (1, 64, 64, 3) and 0 <= int(c.y[0]) < 6


def test_training_negatives_are_the_finders_boxes_away_from_labelled_dice(tmp_path):
    """`training/negatives.py` teaches "not a die" with the boxes the reader's finders propose on a training
    photo: none of them lies on a labelled die, and a die nobody labelled is among them (why it is off by
    default: it would be taught as "not a die")."""
    from training.data import Die, Photo, overlaps_any  # training only: not the package's
    from training.negatives import FAR, false_boxes, phantom_canvases

    dice = layout(4, size=60, seed=3)  # one row of four dice: a 520 x 180 tray holds them
    frame = render_tray(dice, mount="over", background="wood", seed=5, width=520, height=180)
    path = tmp_path / "tray.png"
    cv2.imwrite(str(path), frame)
    photo = Photo("renders", path, "tray", tuple(Die(d.value, (d.x, d.y, d.size, d.size)) for d in dice[:3]))
    boxes = false_boxes(frame, photo, None)
    assert boxes and not any(overlaps_any(b, photo.dice, FAR) for b in boxes)
    left = dice[3]
    assert any(abs(b[0] - left.x) < 0.25 * left.size and abs(b[1] - left.y) < 0.25 * left.size for b in boxes)
    c = phantom_canvases([photo], None, 64, np.random.default_rng(1), per_die=1.0)
    assert 1 <= len(c) <= 3 and (c.y == 6).all() and c.x.shape[1:] == (64, 64, 3)


def test_a_crop_read_mirrored_too_takes_the_faces_mean_and_never_turns_a_die_into_none():
    """`classify.join_mirrored` (still photos read their crops mirrored too): the mean of the two readings names
    the face; where either names "not a die" the plain reading stands; a die stays as sure as its plain
    reading only when the mean names its face."""
    none = 2
    plain = np.array([[0.55, 0.45, 0.00],    # leans to face 0; mirrored, clearly face 1: the mean says 1
                      [0.30, 0.10, 0.60],    # plain says "not a die": kept, whatever the mirror says
                      [0.45, 0.15, 0.40],    # the mean would say "not a die": the plain reading stands
                      [0.97, 0.03, 0.00]])   # both agree: as sure as the plain reading
    mirrored = np.array([[0.10, 0.90, 0.00],
                         [0.10, 0.90, 0.00],
                         [0.05, 0.05, 0.90],
                         [0.91, 0.09, 0.00]])
    probs, conf = join_mirrored(plain, mirrored, none)
    assert probs.argmax(1).tolist() == [1, 2, 0, 0]
    np.testing.assert_allclose(conf, [0.675, 0.60, 0.45, 0.97])


class _TurnSensitive(FaceClassifier):
    """A stand-in network that is sure of a "3" only when the crop's brightest quarter is its top left, and
    otherwise leans doubtfully to a "2": a die the real network reads well in one turn only."""

    def __init__(self) -> None:   # no ONNX file: `run` is the network
        self.classes, self.size, self.pad, self.norm = ["1", "2", "3", "4", "5", "6", "none"], 32, 1.1, "rgb"
        self.certain_at, self.batches, self.turns_certain_at = 0.9, [], None

    def run(self, batch: np.ndarray, allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        self.batches.append(len(batch))
        quarters = [batch[:, :16, :16], batch[:, :16, 16:], batch[:, 16:, :16], batch[:, 16:, 16:]]
        top_left = np.argmax([q.mean(axis=(1, 2, 3)) for q in quarters], axis=0) == 0
        sure = np.array([0.01, 0.02, 0.95, 0.0, 0.0, 0.0, 0.02])
        lean = np.array([0.05, 0.40, 0.35, 0.05, 0.05, 0.05, 0.05])
        return np.where(top_left[:, None], sure, lean), np.zeros((len(batch), 4), np.float32)


def test_a_die_read_in_four_turns_takes_the_mean_and_a_sure_die_is_not_read_again():
    """`predict(turns=True)` (dice under the tray, `reader.TURNS_UNDER`): a crop the network doubts is read in
    its four quarter turns and named by their mean (the turn it reads well outvotes three doubtful ones), at
    the mean's lower confidence; a crop it is sure of is not read again."""
    img = np.zeros((100, 200, 3), np.uint8)
    img[50:62, 50:62] = 255          # the left die's bright corner at its bottom right
    img[38:50, 138:150] = 255        # the right die's at its top left
    clf = _TurnSensitive()
    doubtful, sure = clf.predict(img, [(50, 50, 24, 24), (150, 50, 24, 24)], turns=True)
    assert (doubtful.label, sure.label) == ("3", "3")
    assert doubtful.confidence == pytest.approx((3 * 0.35 + 0.95) / 4) and sure.confidence == pytest.approx(0.95)
    assert clf.batches == [2, 3]     # both plain, then the doubtful one's three other turns in one batch
    (plain,) = _TurnSensitive().predict(img, [(50, 50, 24, 24)])
    assert (plain.label, plain.confidence) == ("2", pytest.approx(0.40))


def test_a_die_whose_four_turns_agree_surely_is_turns_sure_and_the_reader_lifts_it_only_with_the_room():
    """Trust the better judge (issue 31 #4): the mean of a doubted crop's four quarter turns, at least the
    network's `turns_certain_at` (fitted on held-back dice from below as its `certain_at` is), marks the
    prediction `turns_sure`; a crop read once (sure already) never is, and without the level nothing is. The
    reader then takes such a die as sure as the network's level in the read with the room, not in a die cut
    or boxed in a heap, nor in a frame read without the room (`reader._turns_lifted`)."""
    from vision.reader import _turns_lifted

    img = np.zeros((100, 200, 3), np.uint8)
    img[50:62, 50:62] = 255
    img[38:50, 138:150] = 255
    boxes = [(50, 50, 24, 24), (150, 50, 24, 24)]
    clf = _TurnSensitive()
    assert not any(p.turns_sure for p in clf.predict(img, boxes, turns=True))
    clf.turns_certain_at = 0.45      # the doubtful crop's turns' mean is 0.5
    doubtful, sure = clf.predict(img, boxes, turns=True)
    assert (doubtful.turns_sure, sure.turns_sure) == (True, False)
    clf.turns_certain_at = 0.55
    assert not clf.predict(img, boxes, turns=True)[0].turns_sure
    clf.turns_certain_at = 0.45
    doubtful = clf.predict(img, boxes, turns=True)[0]
    assert _turns_lifted(doubtful, clf, lift=True) == pytest.approx(clf.certain_at)
    assert _turns_lifted(doubtful, clf, lift=False) == pytest.approx(doubtful.confidence)
    assert doubtful.confidence < clf.certain_at


def test_views_joined_keep_not_a_die_and_the_plain_confidence_where_they_agree():
    """`classify.join_views` with three other views (the turns): as `join_mirrored`, "not a die" in the plain
    reading or the mean keeps the plain reading, and a face the mean agrees on keeps the plain confidence."""
    none = 2
    plain = np.array([[0.50, 0.45, 0.05], [0.92, 0.08, 0.00]])
    others = [np.array([[0.10, 0.85, 0.05], [0.90, 0.10, 0.00]])] * 3
    probs, conf = join_views(plain, others, none)
    assert probs.argmax(1).tolist() == [1, 0]
    np.testing.assert_allclose(conf, [(0.45 + 3 * 0.85) / 4, 0.92])


def _votes(seen: int, conf: float, finder_conf: float = 0.1):
    from vision.decide import PipVotes
    return PipVotes(seen, seen - 1, conf, finder_conf)


def _agreeing_looks(seen: int) -> np.ndarray:
    looks = np.zeros((2, 7), np.float32)
    looks[:, seen - 1] = 1.0
    return looks


def test_a_sure_cnn_is_not_vetoed_by_a_pip_count_that_differs_on_a_photo_from_above():
    """Trust the better judge (issue 31 #4): a face the CNN names at least CNN_ALONE_AT surely, the same at its
    second looks, is certain on a photo from above though the pip finder counted otherwise (not where the
    reader does not ask for it: `cnn_alone` False), and a side face, a box only the learned finder saw, a
    second look naming another face or a CNN less sure leave the die uncertain with the CNN's face first."""
    from vision.decide import CNN_ALONE_AT, judge_pip_die
    from vision.finder import Candidate

    def cand(**kw) -> Candidate:
        return Candidate((320.0, 240.0, 60.0, 60.0), kw.pop("source", "outline"), pips=4, **kw)

    shape = (480, 640, 3)
    sure, looks = _votes(5, max(CNN_ALONE_AT, 0.995)), _agreeing_looks(5)
    assert judge_pip_die(cand(), sure, 0.97, False, shape, looks, 60.0, cnn_alone=True) == (5, sure.cnn_conf, True)
    assert judge_pip_die(cand(), sure, 0.97, False, shape, looks, 60.0, cnn_alone=False)[2] is False
    for doubt in (judge_pip_die(cand(low=True), sure, 0.97, False, shape, looks, 60.0, cnn_alone=True),
                  judge_pip_die(cand(source="detector"), sure, 0.97, False, shape, looks, 60.0, cnn_alone=True),
                  judge_pip_die(cand(), sure, 0.97, False, shape, _agreeing_looks(4), 60.0, cnn_alone=True),
                  judge_pip_die(cand(), sure, 0.97, False, shape, None, 60.0, cnn_alone=True),
                  judge_pip_die(cand(), _votes(5, 0.98), 0.97, False, shape, looks, 60.0, cnn_alone=True)):
        assert doubt[0] == 5 and doubt[2] is False


def test_under_the_tray_a_cnn_sure_at_its_own_level_is_trusted_alone():
    """Trust the better judge under the tray too (`reader.UNDER_ALONE`): the reader hands the CNN's own certainty
    level as `alone_at`, so a face named at 0.98 by a network certain from 0.975 is certain though the pip
    count differs; at a higher level it stays a guess. A box only the learned finder saw is trusted so only
    where the finder is sure a die lies there (`FINDER_SURE`, which the reader hands under the tray): from above,
    or with the finder in doubt, it stays a guess."""
    from vision.decide import FINDER_SURE, judge_pip_die
    from vision.finder import Candidate

    def cand(source: str = "outline", score: float = 0.0) -> Candidate:
        return Candidate((160.0, 120.0, 48.0, 48.0), source, pips=4, score=score)

    shape, sure, looks = (240, 320, 3), _votes(5, 0.98), _agreeing_looks(5)
    assert judge_pip_die(cand(), sure, 0.975, True, shape, looks, 48.0, True, alone_at=0.975) == (5, 0.98, True)
    assert judge_pip_die(cand(), sure, 0.975, True, shape, looks, 48.0, True)[2] is False   # CNN_ALONE_AT
    assert judge_pip_die(cand(), sure, 0.975, True, shape, looks, 48.0, True, alone_at=0.99)[2] is False
    found, doubted = cand("detector", FINDER_SURE + 0.1), cand("detector", FINDER_SURE - 0.1)
    assert judge_pip_die(found, sure, 0.975, True, shape, looks, 48.0, True, FINDER_SURE, 0.975) == (5, 0.98, True)
    assert judge_pip_die(doubted, sure, 0.975, True, shape, looks, 48.0, True, FINDER_SURE, 0.975)[2] is False
    assert judge_pip_die(found, sure, 0.975, True, shape, looks, 48.0, True, alone_at=0.975)[2] is False  # above
    assert judge_pip_die(found, sure, 0.975, True, shape, _agreeing_looks(4), 48.0, True, FINDER_SURE, 0.975)[2] is False


def test_a_count_that_agrees_weakly_never_leaves_a_die_less_certain_than_no_count():
    """Issue 31 #4: on smooth frames from below the pip finder counts a lone LED spot in a die's box as the
    one pip of a 1 on the glass, or a row of a translucent die's pips, where on grainy frames it counted
    nothing. Its count agreed with the CNN but its own checks were weak (below `PIP_CHECKS_FOR_CNN`), and
    the die stayed a guess where no count would have left it certain on the CNN's word alone. Now such a
    die is certain as it would be without the count, in a box the outline or the sure finder drew; not in
    a box drawn round the pips counted (they may be a part of a face: seed 46 frame 16, a translucent 6
    boxed round one row of 3, which the CNN named a 3 at 0.993), nor without the reader asking for the CNN
    alone."""
    from vision.decide import FINDER_SURE, judge_pip_die
    from vision.finder import Candidate

    def cand(source: str, pips: int, score: float = 0.0) -> Candidate:
        return Candidate((160.0, 120.0, 48.0, 48.0), source, pips=pips, score=score)

    def judged(c: Candidate, votes, looks, cnn_alone: bool = True, alone_at: float = 0.985) -> tuple:
        shape = (240, 320, 3)
        return judge_pip_die(c, votes, 0.985, False, shape, looks, 48.0, cnn_alone, FINDER_SURE, alone_at)

    for n in (1, 3):
        weak, looks = _votes(n, 0.999, finder_conf=0.05), _agreeing_looks(n)
        for c in (cand("outline", n), cand("detector", n, FINDER_SURE + 0.1)):
            assert judged(c, weak, looks)[2] is True
            assert judged(c, weak, looks, cnn_alone=False)[2] is False
        for doubt in (judged(cand("pips", n), weak, looks), judged(cand("outline", n), weak, None),
                      judged(cand("outline", n), weak, looks, alone_at=0.9995)):
            assert doubt[0] == n and doubt[2] is False


def test_only_a_square_box_can_be_one_die_on_the_glass():
    """`decide.squarish`: a square on the glass turned any way has a square bounding box, so under the tray a
    reading's box much longer than wide (two touching dice: 95x59 px on test seed 2, frame 13, once read a
    certain 1) is never certain (`reader._read_classified`)."""
    from vision.decide import squarish

    assert squarish((100, 100, 52, 52)) and squarish((100, 100, 60, 47))
    assert not squarish((100, 100, 95, 59)) and not squarish((100, 100, 38, 84))


def test_a_real_photo_die_the_pip_finder_miscounts_is_certain_and_right():
    """rune55-grey (CC BY 4.0, never trained on): 00073_445 shows a 5 and two 4s from above. The pip finder
    counts 4 on the 5 and used to veto the CNN, which names it 5 at 0.9995 (the die was left to the players);
    it is now certain and right, and no die is certain and wrong."""
    img = cv2.imread(str(DATASETS / "rune55-grey" / "images" / "00073_445.jpg"))
    truth = json.loads((DATASETS / "rune55-grey" / "labels" / "00073_445.json").read_text())["dice"]
    got = read_dice(img, "d6", "over")
    near = [min(got, key=lambda r: (r.center[0] - d["cx"]) ** 2 + (r.center[1] - d["cy"]) ** 2) for d in truth]
    assert not [r for r, d in zip(near, truth, strict=True) if r.certain and r.value != d["value"]]
    assert [(r.value, r.certain) for r, d in zip(near, truth, strict=True) if d["value"] == 5] == [(5, True)]


def test_a_box_only_the_learned_finder_saw_is_kept_when_the_finder_is_sure_of_it():
    """Touching dice (issue 31 #3): a box only the learned finder proposed, whose face the CNN names doubtfully,
    was dropped as a phantom; it is kept, uncertain, with the CNN's face first, when the finder's own heatmap
    peak is at least FINDER_SURE under the tray, and dropped as before when the finder doubts it too, and from
    above (where the photos' finder proposes parts of busy floors as surely)."""
    from vision.decide import DETECTOR_ALONE, FINDER_SURE, judge_pip_die
    from vision.finder import Candidate

    doubtful = _votes(3, DETECTOR_ALONE - 0.1)
    shape = (240, 320, 3)
    sure_box = Candidate((160.0, 120.0, 48.0, 48.0), "detector", score=FINDER_SURE + 0.05)
    doubted_box = Candidate((160.0, 120.0, 48.0, 48.0), "detector", score=FINDER_SURE - 0.1)
    assert judge_pip_die(sure_box, doubtful, 0.97, False, shape, None, 48.0, finder_sure=FINDER_SURE) == (3, doubtful.cnn_conf, False)
    assert judge_pip_die(doubted_box, doubtful, 0.97, False, shape, None, 48.0, finder_sure=FINDER_SURE) is None
    assert judge_pip_die(sure_box, doubtful, 0.97, False, shape, None, 48.0) is None   # from above: as before


def test_an_outline_much_wider_than_a_die_the_finder_found_in_it_gives_way():
    """Touching dice (issue 31 #3): an outline around two touching dice (or a die and the lamp beside it), read
    as a doubtful face, suppressed the learned finder's die-sized boxes inside it. Such an outline is left out;
    one about the die's size, or one holding only a box the CNN calls "not a die", is kept."""
    from vision.classify import Prediction
    from vision.decide import WIDER_THAN_DIE, around_finder_dice
    from vision.finder import Candidate

    def pred(index: int) -> Prediction:
        return Prediction("none" if index == 6 else str(index + 1), index, 0.6, 0.2, np.zeros(4, np.float32))

    side = 48.0
    merged = Candidate((160.0, 120.0, 2.1 * side, side), "outline")
    snug = Candidate((150.0, 120.0, 1.1 * side, side), "outline")
    left, right = (Candidate((136.0, 120.0, side, side), "detector"), Candidate((184.0, 120.0, side, side), "detector"))
    cands = [merged, snug, left, right]
    assert 2.1 > WIDER_THAN_DIE
    assert around_finder_dice(cands, [pred(2), pred(3), pred(1), pred(4)], 6) == {0}
    assert around_finder_dice(cands, [pred(2), pred(3), pred(6), pred(6)], 6) == set()


def test_an_outline_astride_two_dice_the_finder_parted_gives_way():
    """Touching dice (issue 31 #3): an outline not much wider than a die but lying across two touching dice
    (its centre between them; test seed 3 frame 8: three yellow dice read as two boxes) would suppress both of
    the learned finder's boxes, and one die was lost. It is left out when the two finder boxes it would suppress
    are two dice (neither would suppress the other); an outline over one finder die is kept."""
    from vision.classify import Prediction
    from vision.decide import WIDER_THAN_DIE, around_finder_dice
    from vision.finder import Candidate

    def pred(index: int) -> Prediction:
        return Prediction(str(index + 1), index, 0.6, 0.2, np.zeros(4, np.float32))

    side = 48.0
    astride = Candidate((160.0, 120.0, 1.3 * side, 1.2 * side), "outline")
    on_one = Candidate((140.0, 120.0, 1.3 * side, 1.2 * side), "outline")
    left, right = (Candidate((136.0, 120.0, side, side), "detector"), Candidate((184.0, 120.0, side, side), "detector"))
    assert 1.3 < WIDER_THAN_DIE
    assert around_finder_dice([astride, on_one, left, right], [pred(2), pred(3), pred(1), pred(4)], 6) == {0}
    assert around_finder_dice([astride, left], [pred(2), pred(1)], 6) == set()


def test_a_network_whose_json_names_eight_views_reads_a_doubted_die_mirrored_too():
    """A model whose JSON says "turn_views": 8 (`train_reader_undertray --recalibrate --turn-views 8`, 49th
    session, rule F4) reads a crop it doubts in its four quarter turns and their mirror images, named by the
    mean of all eight (a pip face mirrored is the same face); a sure crop is still read once."""
    img = np.zeros((100, 200, 3), np.uint8)
    img[50:62, 50:62] = 255          # the left die's bright corner at its bottom right
    img[38:50, 138:150] = 255        # the right die's at its top left
    clf = _TurnSensitive()
    clf.turn_views = 8
    doubtful, sure = clf.predict(img, [(50, 50, 24, 24), (150, 50, 24, 24)], turns=True)
    assert clf.batches == [2, 7]     # both plain, then the doubtful one's seven other views in one batch
    # of the eight views of a crop, two put its bright corner top left (one turn, one mirrored turn)
    assert doubtful.label == "3" and doubtful.confidence == pytest.approx((2 * 0.95 + 6 * 0.35) / 8)
    assert sure.confidence == pytest.approx(0.95)


def test_a_network_whose_json_names_a_smoothing_cuts_its_crops_from_the_smoothed_frame():
    """A model whose JSON says "smooth_sigma" (50th session, rule G1) cuts every crop it reads (plain,
    turned, second looks) from the frame smoothed by that Gaussian, so a speckle of grain no longer sets a
    crop's spread; without the key the crops are the frame's own pixels, as every model read before."""
    rng = np.random.default_rng(50)
    img = rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)      # grain all over
    boxes = [(60.0, 50.0, 30.0, 30.0), (110.0, 70.0, 50.0, 44.0)]
    clf = _TurnSensitive()
    plain = clf.cut(img, boxes)
    np.testing.assert_array_equal(plain, np.stack([crop_patch(img, b, pad=1.1, size=32) for b in boxes]))
    clf.smooth_sigma = 0.8
    smoothed = clf.cut(img, boxes)
    expected = np.stack([crop_patch(cv2.GaussianBlur(img, (0, 0), 0.8), b, pad=1.1, size=32) for b in boxes])
    np.testing.assert_array_equal(smoothed, expected)
    assert smoothed.std() < 0.8 * plain.std()                       # the grain is what the smoothing took
    cut_boxes: list[int] = []
    cut = clf.cut
    clf.cut = lambda frame, bs: cut_boxes.append(len(bs)) or cut(frame, bs)
    assert clf.second_looks(img, boxes[:1]).shape == (1, 2, 7)
    assert cut_boxes == [2] and clf.batches == [2]       # both second looks cut so too, in one batch
    meta = json.loads((MODELS / "pips.json").read_text(encoding="utf-8"))
    assert FaceClassifier(MODELS / "pips.onnx", meta).smooth_sigma == 0           # photos from above: none
    assert FaceClassifier(MODELS / "pips.onnx", meta | {"smooth_sigma": 0.8}).smooth_sigma == 0.8


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 31), st.sampled_from([0.5, 0.8, 1.3, 2.0]), st.sampled_from([32, 40]))
def test_crops_smoothed_around_their_boxes_are_the_whole_smoothed_frames_to_the_bit(seed, sigma, size):
    """`smoothed_around` (what `FaceClassifier.cut` smooths for a JSON naming "smooth_sigma"): every crop of
    its boxes, by either of `crop_patch`'s paths and at the frame's edges, equals the crop of the whole frame
    smoothed, so the shipped network reads what it was judged on, only sooner."""
    rng = np.random.default_rng(seed)
    H, W = (int(v) for v in rng.integers(30, 300, 2))
    img = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    boxes = [(float(rng.uniform(-20, W + 20)), float(rng.uniform(-20, H + 20)), float(rng.uniform(3, 120)),
              float(rng.uniform(3, 120))) for _ in range(int(rng.integers(1, 8)))]
    whole, around = smoothed(img, sigma), smoothed_around(img, boxes, sigma, PAD)
    for box in boxes:
        got, want = crop_patch(around, box, pad=PAD, size=size), crop_patch(whole, box, pad=PAD, size=size)
        assert np.array_equal(got, want)
