"""The box learns its players' dice: a per-box memory of confirmed faces, used from the next roll on.

When a phone confirms or corrects a roll, the box keeps each die's crop and its confirmed top face (the
device stores them under its state directory; vision opens no files). `Memory.add(set_id, crop, face)` keeps
the crop as one example of that face; `read_dice(..., memory=m)` then compares each die with the examples.

Two ways of remembering, chosen by the set:

- **Pip d6 (the sets the shipped face network reads): a head on the network's embedding.** Each example
  is the face network's penultimate layer (`embedding`, 96 numbers) for the die's crop, averaged over its
  four quarter turns and their mirror images (a die lies at any angle; the mirrors steady the mean). The
  memory fits a softmax head over the faces in numpy/scipy, starting from the network's own last layer and
  pulled back towards it as hard as held-out examples say (`choose_prior`): where the network reads the
  players' dice it keeps its knowledge, where it cannot (a numeral d6) the examples speak. Why: a 48x48
  picture of a pip face rarely lines up with a new throw of the same die (median similarity 0.57 on
  rune55-colour, 6 of 171 votes counted), while the embedding puts a new throw near the old ones. The fit
  is redone only after new examples, on the newest FIT_PER_FACE a face. The head never makes a die certain
  (`overrules` says why): it raises doubts and gives best guesses. The pictures are kept too, and where
  they vote clearly (a throw lying as an old one did) their vote stands, with its old rules.
- **Icon and taught sets: pictures.** The face network knows pips only and its embedding hardly tells one icon
  from another (two Dice Throne symbols 0.98 alike), so an example is the die's face itself: the square of
  the face found in the crop, warped upright to 48x48 grey, slightly blurred, zero-mean, unit length, kept at
  its four quarter turns; a die's similarity to an example is their correlation at the best quarter turn.

- **Colours (sets told apart by colour, e.g. Regidice): tints.** A confirmed die whose players named its body
  colour also keeps that colour and its tint (`vision.learnt_colours`), with or without its face (a game that
  hides its rolls teaches colours only); the reader names a die's colour by what was learnt (`colour_of`).

How it combines with the reader (certain must stay right):
- the examples vote: a picture vote is clear when its closest example is close (similarity >= `close`) and
  every other face is `clear` times further (distance = 1 - similarity: a Dice Throne face's corner number
  moves the similarity by thousandths); a head vote is clear at posterior >= `head_clear`;
- where the set has a CNN (pip d6) and the reader's reading agrees with a picture vote that knows every face
  and overrules (`overrule` times clear), the die is certain (two readers agree; a head vote never makes a
  die certain); where they disagree the die is uncertain (the page asks), with the memory's face as the best
  guess when the memory is sure; the memory never gives a CNN die a face of its own, certain;
- where the set has no CNN (icon and taught sets), a clear memory vote gives the face, certain only when
  every face of the set has at least `min_examples` confirmed examples (`covers`: a face never learnt
  looks like some learnt one, so until then the memory only guesses) and the k nearest all name it.

Typical use by the box:
    mem = Memory(mount="under")
    for crop, top_face_index in confirmed:          # crop_die() of dice from confirmed rolls
        mem.add(set_id, crop, top_face_index)
    readings = read_dice(frame, spec, "under", memory=mem)
    mem.counts(set_id)                               # {top face index: examples}, for the page
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import cv2
import numpy as np

from .classify import crop_patch, normalise_batch
from .learnt_colours import ColourModel, LearntColour, tint

if TYPE_CHECKING:
    from .classify import FaceClassifier

SIDE = 48            # an example's side in px (the corner numbers of icon dice must stay legible)
BLUR = 1.0           # px of blur before comparing: a pixel of misalignment must not matter
INSET = 0.92         # the part of the face's square compared (its rounded edge left out)
CROP_SIDE = 64       # crops are kept (and compared) at this size: small files, legible corner numbers
CROP_PAD = 1.10      # the reader's box grown by this (a larger crop leaves fewer pixels for the face)


def crop_die(frame: np.ndarray, center: tuple[float, float], box: tuple[int, int, int, int] | list) -> np.ndarray:
    """The crop of one read die as the memory keeps and compares it: the reader's box grown by CROP_PAD (the
    face and a little room around it, where the face's own square is found). The box keeps it from confirmed
    rolls; the reader cuts a new roll's dice alike. Its own constants, not the CNN's crop: kept crops must
    not change meaning when the CNN's input does."""
    return crop_patch(frame, (float(center[0]), float(center[1]), float(box[2]), float(box[3])), pad=CROP_PAD,
                      size=CROP_SIDE)


def _square(grey: np.ndarray) -> np.ndarray | None:
    """The corners of the die's face in a crop, or None when no square-ish face stands out. The face is what
    is brighter (or darker) than the crop's border, the room around the die, by half of what the middle
    of the crop is: a black die's face a little lighter than the dark room under the tray counts whole, its
    light symbol with it (a threshold between symbol and body would find the symbol only)."""
    h, w = grey.shape
    g = cv2.GaussianBlur(grey, (3, 3), 0).astype(np.float32)
    border = float(np.median(np.concatenate([g[0], g[-1], g[:, 0], g[:, -1]])))
    middle = float(np.median(g[int(0.2 * h):int(0.8 * h), int(0.2 * w):int(0.8 * w)]))
    if abs(middle - border) < 12:
        return None
    cut = (border + middle) / 2
    mask = ((g > cut) if middle > border else (g < cut)).astype(np.uint8) * 255
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    best = None
    for c in contours:
        if cv2.pointPolygonTest(c, (w / 2.0, h / 2.0), False) >= 0:
            best = c
            break
    if best is None:
        return None
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(best)
    if min(rw, rh) < 0.4 * min(h, w) or max(rw, rh) > 1.35 * min(rw, rh):
        return None
    return cv2.boxPoints(((cx, cy), (rw * INSET, rh * INSET), angle)).astype(np.float32)


def face_view(crop: np.ndarray) -> np.ndarray | None:
    """The die's face from a crop, warped upright (up to a quarter turn) to SIDE x SIDE grey, or None when no
    face stands out: the same face at any angle and any size in the frame then lines up with itself, so a
    pixel comparison works (a crop whose face is not found is not compared at all: unaligned, it would
    match whatever it happens to resemble)."""
    g = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    corners = _square(g)
    if corners is None:
        return None
    dst = np.array([[0, SIDE - 1], [0, 0], [SIDE - 1, 0], [SIDE - 1, SIDE - 1]], np.float32)
    m = cv2.getPerspectiveTransform(corners, dst)
    return cv2.warpPerspective(g.astype(np.float32), m, (SIDE, SIDE), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


def _describe(grey: np.ndarray) -> np.ndarray:
    """A SIDE x SIDE grey face, slightly blurred (a pixel of misalignment must not matter), zero-mean, unit
    length (a flat patch stays all zeros)."""
    v = cv2.GaussianBlur(grey, (0, 0), BLUR).ravel()
    v = v - v.mean()
    return (v / (np.linalg.norm(v) + 1e-3)).astype(np.float32)


def describe(crop: np.ndarray, quarter_turns: int = 0) -> np.ndarray:
    """The descriptor of a BGR crop of one die (any size), its face turned by `quarter_turns` x 90 degrees;
    all zeros (like nothing) when the crop shows no face."""
    view = face_view(crop)
    if view is None:
        return np.zeros(SIDE * SIDE, np.float32)
    return _describe(np.ascontiguousarray(np.rot90(view, quarter_turns)))


PRIORS = (0.3, 3.0, 30.0)  # pulls back to the network's last layer tried (see fit_head, choose_prior)
# a head vote this sure is clear: more likely than every other face together. It may then make a die uncertain
# or, the reader unsure, be its best guess (never certain: see Memory.overrules). 0.9 -> 0.5 on the learning
# curve after 25 photos (bench/vision_learning.py, before the HEAD_GAIN rule): dicefinder-pi right 30.00% ->
# 56.67%, rune55-colour 40.76% -> 41.10%; certain-right and silent unchanged on both.
HEAD_CLEAR = 0.5
VIEWS = (0, 1, 2, 3)  # quarter turns of a crop the embedding is averaged over (each also mirrored)
HEAD_GAIN = 0.1       # the head speaks only when it names 10% more held-out examples right than the network
_GLASS_OF_TOP = [5, 4, 3, 2, 1, 0]  # row of the face on the glass for top faces 1..6 (opposites sum to 7), less 1
HEAD_GAIN_DICE = 5    # ...and at least 5 more: on 18 examples, 2 more is luck (and costs 8 network views a die)
FIT_PER_FACE = 40     # the newest examples per face the head is fitted on: the fit stays quick on a long night
PICTURES_PER_FACE = 24  # the newest examples per face the picture vote compares: cost and RAM stay bounded
FIT_ITERATIONS = 60    # L-BFGS iterations at most: the fit's time is bounded whatever the examples


def network_for(set_id: str, mount: str) -> FaceClassifier | None:
    """The shipped face network the memory learns through for this set (pip d6), or None (pictures). Only the
    plain pip d6 is known by id in vision (other sets come as descriptions the memory is not handed)."""
    from .dicesets import PIP_D6  # the reader imports the memory: imported here, not at the top
    from .reader import classifier_for
    return classifier_for(PIP_D6, mount) if set_id == PIP_D6.id else None


def network_features(clf: FaceClassifier, crops: list[np.ndarray]) -> np.ndarray:
    """The network's embedding (n, d) of each crop, averaged over VIEWS (its four quarter turns, each
    also mirrored): a throw lies at any angle, and one view alone varies with it (after 25 photos of
    dicefinder-pi, 8 views -> 4 -> 2: the nearest example right 80% -> 60% -> 23%). The memory's crops
    have the network's own padding (CROP_PAD == the CNN's pad): only resized."""
    _, emb = clf.run(network_views(crops, clf.size, clf.norm))
    return emb.reshape(2 * len(VIEWS), len(crops), -1).mean(0).astype(np.float32)


def network_views(crops: list[np.ndarray], size: int, norm: str) -> np.ndarray:
    """(2 * len(VIEWS) * n, size, size, channels): the crops resized to the network's input, at each of VIEWS
    and their mirror images (view after view, all crops in each), normalised as the network reads them."""
    small = np.stack([cv2.resize(c, (size, size), interpolation=cv2.INTER_AREA) for c in crops])
    views = [np.rot90(small, k, axes=(1, 2)) for k in VIEWS]
    views += [v[:, :, ::-1] for v in views]
    return normalise_batch(np.ascontiguousarray(np.concatenate(views)), norm)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(1, keepdims=True)


def network_head(clf: FaceClassifier, n_faces: int) -> tuple[np.ndarray, np.ndarray]:
    """The network's own last layer for the set's faces (weights (n_faces, d), bias), at its calibrated
    temperature: the head the memory starts from and is pulled back to."""
    layer = [n for n in clf.net.getLayerNames() if n.endswith("Gemm")][-1]
    w, b = clf.net.getParam(layer, 0), clf.net.getParam(layer, 1).ravel()
    return (w[:n_faces] / clf.temperature).astype(np.float64), (b[:n_faces] / clf.temperature).astype(np.float64)


def fit_head(x: np.ndarray, faces: np.ndarray, prior: tuple[np.ndarray, np.ndarray],
             pull: float) -> tuple[np.ndarray, np.ndarray]:
    """A softmax head over the faces (faces are 1-based) fitted to the examples `x`: cross-entropy summed over
    the examples plus `pull`/2 times the squared distance to the network's own last layer, minimised by
    L-BFGS (convex: tens of iterations, where plain gradient steps took hundreds). Why this prior: a face
    with few or no examples keeps the network's opinion, and a handful of odd crops cannot turn the head
    around; many examples outweigh it."""
    from scipy.optimize import minimize  # only when a head is fitted: the reader's import stays light

    w0, b0 = prior
    k, d = w0.shape
    target = np.eye(k)[faces - 1]

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:k * d].reshape(k, d), theta[k * d:]
        z = x @ w.T + b
        z -= z.max(1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(1, keepdims=True))
        g = np.exp(logp) - target
        dw, db = w - w0, b - b0
        f = -float((logp * target).sum()) + 0.5 * pull * float((dw * dw).sum() + (db * db).sum())
        return f, np.concatenate([(g.T @ x + pull * dw).ravel(), g.sum(0) + pull * db])

    got = minimize(loss, np.concatenate([w0.ravel(), b0]), jac=True, method="L-BFGS-B",
                   options={"maxiter": FIT_ITERATIONS})
    return got.x[:k * d].reshape(k, d), got.x[k * d:]


def choose_prior(x: np.ndarray, faces: np.ndarray, prior: tuple[np.ndarray, np.ndarray]) -> tuple[float, float]:
    """How hard the head is pulled back to the network, and how much better than the network it reads held-out
    examples: the one of PRIORS whose heads, fitted on two thirds of the examples, best predict the other
    third (log-loss, three folds), and those heads' accuracy less the network's own on the same examples.
    Why not one fixed pull: where the network reads the players' dice well a strong pull keeps its
    knowledge, where it cannot read them at all (a numeral d6: 17% right on dicefinder-pi) only a weak pull
    lets the examples speak. Too few examples to hold a third back: the middle pull, no gain."""
    if len(faces) < 9:
        return PRIORS[len(PRIORS) // 2], 0.0
    fold = np.arange(len(faces)) % 3
    loss, right = [], []
    for pull in PRIORS:
        total, hits = 0.0, 0
        for k in range(3):
            w, b = fit_head(x[fold != k], faces[fold != k], prior, pull)
            p = _softmax(x[fold == k] @ w.T + b)
            total -= float(np.log(p[np.arange(len(p)), faces[fold == k] - 1] + 1e-9).sum())
            hits += int((p.argmax(1) + 1 == faces[fold == k]).sum())
        loss.append(total)
        right.append(hits)
    best = int(np.argmin(loss))
    network = int((np.argmax(x @ prior[0].T + prior[1], 1) + 1 == faces).sum())
    gained = right[best] - network
    return PRIORS[best], gained / len(faces) if gained >= HEAD_GAIN_DICE else 0.0


@dataclass
class Vote:
    face: int            # top face index the examples vote for
    similarity: float    # similarity of the closest example of that face (a head vote: its posterior)
    margin: float        # how much closer than the closest example of any other face (head: posterior lead)
    unanimous: bool      # the k closest examples all name this face (head: clear)
    support: int         # examples of this face in the memory
    kind: str = "picture"   # "picture" (correlation of faces) or "head" (the network's embedding)

    @property
    def ratio(self) -> float:
        """How many times further the closest other face is than this face (1 - similarity as distance): the
        digit in a corner of a Dice Throne face moves the similarity by a few thousandths only, so a clear
        vote is one where the other faces are several times further, not a fixed amount further."""
        other = self.similarity - self.margin
        return (1.0 - other) / max(1.0 - self.similarity, 1e-4)


@dataclass
class _Example:
    face: int
    turns: np.ndarray | None     # picture descriptor at four quarter turns (picture sets, newest only)
    feature: np.ndarray | None   # the network's embedding (head sets)
    key: int                     # the memory's id of the example (Memory.remove)


@dataclass
class _Tint:
    """A confirmed die's body colour and its tint (`learnt_colours.tint`); its key is its face example's, if any."""
    colour: str
    tint: np.ndarray
    key: int


@dataclass
class _Head:
    """A set's fitted head: weights, bias, the pull back to the network it was fitted with, and how much more
    often than the network it named held-out examples right (`choose_prior`)."""
    w: np.ndarray
    b: np.ndarray
    pull: float
    gain: float


@dataclass
class Memory:
    """Examples of confirmed faces, per dice set id. `mount` is where the crops were seen from."""

    mount: str = "under"
    k: int = 2
    close: float = 0.80
    clear: float = 3.0      # other faces this many times further: a clear vote
    overrule: float = 6.0   # ...and this many times to overrule an unsure template reading, certain
    min_examples: int = 2
    head_clear: float = HEAD_CLEAR
    _examples: dict[str, list[_Example]] = field(default_factory=dict)
    _stacked: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    _heads: dict[str, _Head] = field(default_factory=dict)
    _tints: dict[str, list[_Tint]] = field(default_factory=dict)
    _colours: dict[str, ColourModel | None] = field(default_factory=dict)
    _nets: dict[str, FaceClassifier | None] = field(default_factory=dict)
    _next: int = 0
    # the box adds examples from a phone's request while its camera thread reads: one lock for both
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def network(self, set_id: str) -> FaceClassifier | None:
        """The face network this set is learnt through (None: pictures), looked up once."""
        if set_id not in self._nets:
            self._nets[set_id] = network_for(set_id, self.mount)
        return self._nets[set_id]

    def embed(self, patches: list[np.ndarray]) -> np.ndarray:
        """Descriptors of BGR crops (one row each), as `vote` takes them: the picture descriptor, then the
        network's embedding where the memory knows a set learnt through the network."""
        if not patches:
            return np.zeros((0, SIDE * SIDE), np.float32)
        parts = [np.stack([describe(p) for p in patches])]
        # the network's 8 views a die cost more than the rest of the memory: only for a head that speaks
        nets = [self.network(s) for s in self.sets() if self.speaks(s)]
        if nets and nets[0] is not None:
            parts.append(network_features(nets[0], patches))
        return np.concatenate(parts, 1)

    def speaks(self, set_id: str) -> bool:
        """Whether the set's head votes: every face has `min_examples` examples (before, it leans to the faces
        it saw: taught faces 1 and 5 only, it made 4 certain dice of webcam-d6 uncertain, bench/vision_memory.py;
        after 10 photos of dicefinder-pi, four faces with one example each, it was right on 3 of 30 dice, the
        reader on 4) and it reads held-out examples at least HEAD_GAIN better than the network alone (rune55-
        grey mixes many dice sets: there its best guesses after 10 photos were right on 72.20% of the dice,
        the reader's on 75.23%)."""
        if self.network(set_id) is None or not _all_faces(self.counts(set_id), self.min_examples):
            return False
        head = self.head(set_id)
        return head is not None and head.gain >= HEAD_GAIN

    def add(self, set_id: str, crop: np.ndarray, face: int | None, colour: str | None = None) -> int:
        """Remember that `crop` (a BGR image of one die, as the reader boxed it) shows top face `face`, on a body
        of `colour` where the players named one (`face` None: only its colour, from a game that hides its
        faces); the example's key (for `remove`)."""
        if crop is None or crop.ndim != 3 or crop.shape[2] != 3 or min(crop.shape[:2]) < 4:
            raise ValueError("a crop must be a BGR image of one die, at least 4x4 px")
        if face is None and not colour:
            raise ValueError("a die learnt without its face needs its colour")
        if face is not None and (not isinstance(face, int) or isinstance(face, bool) or face < 1):
            raise ValueError("face must be the top face's index (1..n)")
        net = self.network(set_id) if face is not None else None
        feature = network_features(net, [crop])[0] if net is not None else None
        turns = _picture_turns(crop) if face is not None else None
        with self._lock:
            self._next += 1
            if face is not None:
                examples = self._examples.setdefault(set_id, [])
                examples.append(_Example(face, turns, feature, self._next))
                if turns is not None:
                    _keep_newest_pictures(examples, face)
            if colour:
                self._tints.setdefault(set_id, []).append(_Tint(colour, tint(crop, CROP_PAD), self._next))
            self._changed(set_id)
            return self._next

    def remove(self, set_id: str, key: int) -> None:
        """Forget one example (the box dropped its crop from the card)."""
        with self._lock:
            self._examples[set_id] = [e for e in self._examples.get(set_id, []) if e.key != key]
            self._tints[set_id] = [t for t in self._tints.get(set_id, []) if t.key != key]
            self._changed(set_id)

    def _changed(self, set_id: str) -> None:
        self._stacked.pop(set_id, None)
        self._heads.pop(set_id, None)
        self._colours.pop(set_id, None)

    def colour_model(self, set_id: str) -> ColourModel | None:
        """The colours learnt of a set's dice (`learnt_colours`), fitted once per change; None before any."""
        with self._lock:
            if set_id not in self._colours:
                got = self._tints.get(set_id)
                self._colours[set_id] = ColourModel.fit([t.colour for t in got], np.stack([t.tint for t in got])) \
                    if got else None
            return self._colours[set_id]

    def colour_of(self, set_id: str, frame: np.ndarray, center: tuple[float, float], box: tuple[int, int, int, int],
                  set_colours: tuple[str, ...]) -> LearntColour | None:
        """The learnt colour of a die the reader boxed in `frame` (cut as `crop_die` cuts it), or None when no
        colour of the set was learnt (then nothing is cut)."""
        model = self.colour_model(set_id)
        return model.name(tint(crop_die(frame, center, box), CROP_PAD), set_colours) if model is not None else None

    def forget(self, set_id: str) -> None:
        with self._lock:
            self._examples.pop(set_id, None)
            self._tints.pop(set_id, None)
            self._changed(set_id)

    def counts(self, set_id: str) -> dict[int, int]:
        out: dict[int, int] = {}
        with self._lock:
            examples = list(self._examples.get(set_id, []))
        for e in examples:
            out[e.face] = out.get(e.face, 0) + 1
        return dict(sorted(out.items()))

    def sets(self) -> list[str]:
        return sorted(s for s, ex in self._examples.items() if ex)

    def __len__(self) -> int:
        return sum(len(v) for v in self._examples.values())

    def covers(self, set_id: str, n_faces: int) -> bool:
        """True when every face 1..n_faces has `min_examples` examples: only then does a vote's margin mean
        anything (a die of a face never learnt resembles some learnt face, e.g. a sword with another corner
        number), so only then may the memory make a die certain."""
        return _all_faces(self.counts(set_id), self.min_examples, n_faces)

    def knows(self, set_id: str) -> bool:
        return bool(self._examples.get(set_id))

    def _matrix(self, set_id: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(every picture example's every turn as rows, each example's face), stacked once per change."""
        with self._lock:
            got = self._stacked.get(set_id)
            ex = [e for e in self._examples.get(set_id, []) if e.turns is not None]
            if got is None and ex:
                got = (np.concatenate([e.turns for e in ex]), np.array([e.face for e in ex]))
                self._stacked[set_id] = got
            return got

    def head(self, set_id: str) -> _Head | None:
        """The set's head, fitted (and self-checked) on its newest FIT_PER_FACE examples a face once per change."""
        net = self.network(set_id)
        if net is None:
            return None
        with self._lock:
            got = self._heads.get(set_id)
            ex = [e for e in self._examples.get(set_id, []) if e.feature is not None]
        if got is not None or not ex:
            return got
        ex = _newest_per_face(ex, FIT_PER_FACE)
        x = np.stack([e.feature for e in ex]).astype(np.float64)
        faces = np.array([e.face for e in ex])
        prior = network_head(net, 6)
        if self.mount == "under":  # the network names the face on the glass; examples name the top face
            prior = (prior[0][_GLASS_OF_TOP], prior[1][_GLASS_OF_TOP])
        pull, gain = choose_prior(x, faces, prior)
        got = _Head(*fit_head(x, faces, prior, pull), pull=pull, gain=gain)
        with self._lock:
            self._heads[set_id] = got
        return got

    def vote(self, set_id: str, embedding: np.ndarray) -> Vote | None:
        """The memory's opinion on one die (its `embed` row), or None when it knows no face of the set. A set
        learnt through the network: its pictures' vote where that is clear (a new throw lying as an old one
        did: the old rules, measured on renders, which may make a die certain or doubt a wrong one), else the
        head's vote where it `speaks`, else None."""
        picture = self._picture_vote(set_id, embedding[:SIDE * SIDE])
        head = self.head(set_id)
        if head is None:
            return picture
        if picture is not None and self.is_clear(picture):
            return picture
        if not self.speaks(set_id) or len(embedding) <= SIDE * SIDE:
            return None
        return self._head_vote(set_id, head, embedding[-head.w.shape[1]:])

    def _picture_vote(self, set_id: str, descriptor: np.ndarray) -> Vote | None:
        got = self._matrix(set_id)
        if got is None:
            return None
        rows, faces = got
        sims = (rows @ descriptor).reshape(len(faces), -1).max(1)  # each example at its best turn
        order = np.argsort(-sims)
        best_face = int(faces[order[0]])
        others = sims[faces != best_face]
        nearest_other = float(others.max()) if len(others) else -1.0
        top_k = faces[order[:self.k]]
        support = int((faces == best_face).sum())
        return Vote(best_face, float(sims[order[0]]), float(sims[order[0]]) - nearest_other,
                    bool((top_k == best_face).all()), support)

    def _head_vote(self, set_id: str, head: _Head, feature: np.ndarray) -> Vote:
        p = _softmax((head.w @ feature.astype(np.float64) + head.b)[None])[0]
        order = np.argsort(-p)
        face = int(order[0]) + 1
        return Vote(face, float(p[order[0]]), float(p[order[0]] - p[order[1]]), bool(p[order[0]] >= self.head_clear),
                    self.counts(set_id).get(face, 0), "head")

    def is_clear(self, v: Vote) -> bool:
        if v.kind == "head":
            return v.similarity >= self.head_clear
        return v.similarity >= self.close and v.ratio >= self.clear

    def overrules(self, v: Vote) -> bool:
        """A vote sure enough to make a die certain (on renders of Dice Throne barbarian dice, clear picture votes
        at 2x that disagreed with the templates were wrong 7 times in 85; at 3x and above none of 627 clear
        votes over five sets was wrong). A head vote never is: it starts from the network the reader used, so
        their errors go together (rune55-colour, the reader unsure, the head agreeing at posterior >= 0.99 after
        10 photos: 4 wrong of 46; at >= 0.9999 after label-box teaching: 3 of 14), and a box's few hundred
        confirmations cannot show an error rate of 0.1%. It gives best guesses and raises doubts only."""
        if v.kind == "head":
            return False
        return v.similarity >= self.close and v.ratio >= self.overrule


def _picture_turns(crop: np.ndarray) -> np.ndarray:
    """A crop's picture descriptor at its four quarter turns (all zeros when no face is found: counted, never
    matched)."""
    view = face_view(crop)
    if view is None:
        return np.zeros((4, SIDE * SIDE), np.float32)
    return np.stack([_describe(np.ascontiguousarray(np.rot90(view, q))) for q in range(4)])


def _keep_newest_pictures(examples: list[_Example], face: int) -> None:
    """Drop the picture (not the example) of the oldest examples of `face` past PICTURES_PER_FACE: the vote
    compares every picture at four turns, 36 KB each; the counts still include them."""
    with_picture = [e for e in examples if e.face == face and e.turns is not None]
    for e in with_picture[:-PICTURES_PER_FACE]:
        e.turns = None


def _all_faces(counts: dict[int, int], need: int, n_faces: int = 6) -> bool:
    return all(counts.get(f, 0) >= need for f in range(1, n_faces + 1))


def _newest_per_face(examples: list[_Example], n: int) -> list[_Example]:
    by_face: dict[int, list[_Example]] = {}
    for e in examples:
        by_face.setdefault(e.face, []).append(e)
    return [e for got in by_face.values() for e in got[-n:]]
