"""The face network trained on a little more from one table's confirmed dice: how far teaching could go if
the box fitted the network's own layers, not only a head on its embedding (issue 31 #5).

Why: the memory's head (`vision.memory`) sits on the network's 96-number embedding, and on sets it never
saw it names their dice barely better than the network alone (rune55-colour at the labelled boxes, 25
photos taught: 73.9 -> 76.0%; from below the 31st session found it worse). Either what tells such a set's
faces apart is not in the embedding, or a table's few hundred dice cannot teach it at all. Training the
whole network on from the shipped weights (`torch_net.folded_net`) with the taught crops, at each of the
memory's eight views, tells the two apart. A measurement for `bench/vision_learning.py --tune-check`, not a
part of the box: it needs torch, which a Pi does not ship with. Seeded; seconds on one core.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from training.torch_net import FaceNet, Setup, folded_net
from vision.memory import network_views

OVER_SETUP = Setup(size=32, norm="rgb", convs=(24, 48, 72), hidden=96, bn=False)   # vision/models/pips.onnx


def views_of(crops: list[np.ndarray], size: int, norm: str) -> np.ndarray:
    """(8, n, c, size, size): the memory's views of each crop (`memory.network_views`), channels first."""
    x = network_views(crops, size, norm)
    return x.reshape(-1, len(crops), size, size, x.shape[-1]).transpose(0, 1, 4, 2, 3)


def tuned(onnx_path: str, crops: list[np.ndarray], classes: np.ndarray, s: Setup = OVER_SETUP,
          epochs: int = 5, lr: float = 3e-5, seed: int = 0) -> FaceNet:
    """The network at `onnx_path` trained on from its weights with the crops (every view), each labelled with
    its class index (0-based, the network's own: from above the top face less one). The step and epochs are
    the best of those tried on rune55-colour's read photos themselves (3e-4 x 20 down to 3e-5 x 5): what it
    gives is the most such teaching could do, not a fair figure."""
    torch.manual_seed(seed)
    net = folded_net(onnx_path, s)
    views = views_of(crops, s.size, s.norm)
    x = torch.from_numpy(np.ascontiguousarray(views.reshape(-1, *views.shape[2:])))
    y = torch.from_numpy(np.tile(classes, len(x) // len(classes))).long()
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=1e-4)
    rng = np.random.default_rng(seed)
    net.train()
    for _ in range(epochs):
        for batch in np.array_split(rng.permutation(len(x)), max(1, len(x) // 64)):
            opt.zero_grad()
            F.cross_entropy(net(x[batch])[0], y[batch]).backward()
            opt.step()
    return net


def class_scores(net: FaceNet, crops: list[np.ndarray], s: Setup = OVER_SETUP) -> np.ndarray:
    """(n, classes) log-probabilities of each crop averaged over its eight views (as the memory embeds it)."""
    x = views_of(crops, s.size, s.norm)
    net.eval()
    with torch.no_grad():
        logp = [F.log_softmax(net(torch.from_numpy(np.ascontiguousarray(v)))[0], 1).numpy() for v in x]
    return np.mean(logp, 0)
