"""The box learns its players' dice: a per-box memory of confirmed faces, used from the next roll on.

When a phone confirms or corrects a roll, the box keeps each die's crop and its confirmed top face (the
device stores them under its state directory; vision opens no files). `Memory.add(crop, face)` turns a crop
into an embedding (the face CNN's penultimate layer: a generic description of a die face that works for
pips, icons and numerals alike) and keeps it as a prototype of that face. `read_dice(..., memory=m)` then
looks up each die's nearest prototypes: no training happens on the Pi.

How it combines with the CNN (certain must stay right):
- the prototypes vote (the k nearest by cosine similarity); a vote counts only when it is close and clear
  (similarity >= `close`, and the runner-up face clearly further);
- where the set has a CNN and both agree, the die keeps the CNN's certainty; where they disagree the die is
  uncertain (the page asks), with the memory's face as the best guess when the memory is sure;
- where the set has no CNN (icon and taught sets), a clear memory vote gives the face, certain only when at
  least `min_examples` prototypes of that face were confirmed and the vote is unanimous.

Typical use by the box:
    mem = Memory(mount="under")
    for crop, top_face_index in confirmed:          # crops kept from confirmed rolls
        mem.add(set_id, crop, top_face_index)
    readings = read_dice(frame, spec, "under", memory=mem)
    mem.counts(set_id)                               # {top face index: prototypes}, for the page
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .classify import SIZE, FaceClassifier, crop_patch, normalise_patch
from .classify import load as load_classifier


@dataclass
class Vote:
    face: int            # top face index the prototypes vote for
    similarity: float    # cosine similarity of the nearest prototype of that face
    margin: float        # how much closer than the nearest prototype of any other face
    unanimous: bool      # the k nearest all name this face
    support: int         # prototypes of this face in the memory


@dataclass
class Memory:
    """Prototypes of confirmed faces, per dice set id. `mount` is where the crops were seen from."""

    mount: str = "under"
    k: int = 3
    close: float = 0.90
    clear: float = 0.03
    min_examples: int = 2
    _protos: dict[str, list[tuple[np.ndarray, int]]] = field(default_factory=dict)
    _encoder: FaceClassifier | None = None

    @property
    def encoder(self) -> FaceClassifier:
        if self._encoder is None:
            enc = load_classifier("pips")
            if enc is None:
                raise RuntimeError("the face classifier is missing from the package (vision/models)")
            self._encoder = enc
        return self._encoder

    def embed(self, patches: list[np.ndarray]) -> np.ndarray:
        """Unit embeddings of BGR crops (any size: each is resized to the classifier's input)."""
        if not patches:
            return np.zeros((0, 0), np.float32)
        batch = []
        for p in patches:
            if p.shape[:2] != (SIZE, SIZE):
                h, w = p.shape[:2]
                p = crop_patch(p, (w / 2.0, h / 2.0, float(w), float(h)), pad=1.0)
            batch.append(normalise_patch(p))
        _, emb = self.encoder.run(np.stack(batch))
        return emb / (np.linalg.norm(emb, axis=1, keepdims=True) + 1e-6)

    def add(self, set_id: str, crop: np.ndarray, face: int) -> None:
        """Remember that `crop` (a BGR image of one die, as the reader boxed it) shows top face `face`."""
        if crop is None or crop.ndim != 3 or crop.shape[2] != 3 or min(crop.shape[:2]) < 4:
            raise ValueError("a crop must be a BGR image of one die, at least 4x4 px")
        if not isinstance(face, int) or face < 1:
            raise ValueError("face must be the top face's index (1..n)")
        e = self.embed([crop])[0]
        self._protos.setdefault(set_id, []).append((e, face))

    def counts(self, set_id: str) -> dict[int, int]:
        out: dict[int, int] = {}
        for _, f in self._protos.get(set_id, []):
            out[f] = out.get(f, 0) + 1
        return dict(sorted(out.items()))

    def __len__(self) -> int:
        return sum(len(v) for v in self._protos.values())

    def knows(self, set_id: str) -> bool:
        return bool(self._protos.get(set_id))

    def vote(self, set_id: str, embedding: np.ndarray) -> Vote | None:
        """The memory's opinion on one die (its unit embedding), or None when it knows no face of the set."""
        protos = self._protos.get(set_id)
        if not protos:
            return None
        E = np.stack([e for e, _ in protos])
        faces = np.array([f for _, f in protos])
        sims = E @ embedding
        order = np.argsort(-sims)
        best_face = int(faces[order[0]])
        nearest_other = max((float(s) for s, f in zip(sims, faces, strict=True) if f != best_face), default=-1.0)
        top_k = faces[order[:self.k]]
        support = int((faces == best_face).sum())
        return Vote(best_face, float(sims[order[0]]), float(sims[order[0]]) - nearest_other,
                    bool((top_k == best_face).all()) and len(top_k) >= min(self.k, len(faces)), support)

    def is_clear(self, v: Vote) -> bool:
        return v.similarity >= self.close and v.margin >= self.clear

    def arrays(self, set_id: str) -> tuple[np.ndarray, np.ndarray]:
        """(embeddings, faces) of a set, for callers that cache them (embeddings depend on the model)."""
        protos = self._protos.get(set_id, [])
        if not protos:
            return np.zeros((0, 0), np.float32), np.zeros(0, np.int64)
        return np.stack([e for e, _ in protos]), np.array([f for _, f in protos])
