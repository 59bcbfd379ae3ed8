"""A small CNN written with numpy (forward, backward, Adam) and its export to ONNX.

Why numpy: PyPI's Linux torch wheel pulls the CUDA runtime (gigabytes) onto a 2-core machine shared by
the whole team, and the model is tiny (about 70k weights): numpy's BLAS trains it in minutes on one core.
The exported graph is plain Conv/Relu/MaxPool/Gemm, which OpenCV's `cv2.dnn` runs on the Pi. The pip
classifier has since moved to torch (`torch_net.py`: the train extra pins the CPU build, which removes the
reason above, and batch norm with fresh augmentation every epoch read real photos better); the symbol
trainer (`symbols.py`) still uses this one.

Layout inside numpy is NHWC; convolutions are 3x3 'same' by im2col.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

CONVS = (16, 32, 48)   # output channels of the 3x3 conv + 2x2 max-pool stages (the pip model: three)
HIDDEN = 64            # embedding width (penultimate layer)


def _im2col(x: np.ndarray) -> np.ndarray:
    """(N,H,W,C) -> (N*H*W, 9*C) patches of a zero-padded 3x3 'same' convolution, order (kh, kw, C)."""
    n, h, w, c = x.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    win = sliding_window_view(xp, (3, 3), axis=(1, 2))  # (N,H,W,C,3,3)
    return np.ascontiguousarray(win.transpose(0, 1, 2, 4, 5, 3)).reshape(n * h * w, 9 * c)


def _col2im(dcols: np.ndarray, shape: tuple[int, int, int, int]) -> np.ndarray:
    n, h, w, c = shape
    d = dcols.reshape(n, h, w, 3, 3, c)
    dxp = np.zeros((n, h + 2, w + 2, c), np.float32)
    for i in range(3):
        for j in range(3):
            dxp[:, i:i + h, j:j + w, :] += d[:, :, :, i, j, :]
    return dxp[:, 1:-1, 1:-1, :]


@dataclass
class Net:
    """`convs`: channels of each conv + pool stage; `size`: the input side (a multiple of 2**len(convs))."""

    classes: int
    seed: int = 0
    params: dict[str, np.ndarray] = field(default_factory=dict)
    convs: tuple[int, ...] = CONVS
    size: int = 32

    def __post_init__(self) -> None:
        if self.size % (2 ** len(self.convs)):
            raise ValueError(f"input side {self.size} does not halve {len(self.convs)} times")
        if self.params:
            return
        rng = np.random.default_rng(self.seed)
        cin = 3
        for k, cout in enumerate(self.convs):
            self.params[f"c{k}w"] = (rng.normal(0, np.sqrt(2.0 / (9 * cin)), (9 * cin, cout))).astype(np.float32)
            self.params[f"c{k}b"] = np.zeros(cout, np.float32)
            cin = cout
        s = self.size // 2 ** len(self.convs)
        flat = s * s * self.convs[-1]
        self.params["f0w"] = rng.normal(0, np.sqrt(2.0 / flat), (flat, HIDDEN)).astype(np.float32)
        self.params["f0b"] = np.zeros(HIDDEN, np.float32)
        self.params["f1w"] = rng.normal(0, np.sqrt(1.0 / HIDDEN), (HIDDEN, self.classes)).astype(np.float32)
        self.params["f1b"] = np.zeros(self.classes, np.float32)

    # -- forward / backward ------------------------------------------------------------------------
    def forward(self, x: np.ndarray, keep: bool = False, drop: float = 0.0,
                rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray, list]:
        """x (N,size,size,3) -> (logits, embedding, cache for backward)."""
        a = x.astype(np.float32)
        cache = []
        for k in range(len(self.convs)):
            n, h, w, c = a.shape
            cols = _im2col(a)
            z = cols @ self.params[f"c{k}w"] + self.params[f"c{k}b"]
            z = z.reshape(n, h, w, -1)
            r = np.maximum(z, 0)
            rr = r.reshape(n, h // 2, 2, w // 2, 2, r.shape[-1])
            p = rr.max(axis=(2, 4))
            if keep:
                cache.append((a.shape, cols, z, rr, p))
            a = p
        flat = a.reshape(len(a), -1)
        h0 = flat @ self.params["f0w"] + self.params["f0b"]
        e = np.maximum(h0, 0)
        mask = None
        if drop > 0 and rng is not None:
            mask = (rng.random(e.shape) >= drop).astype(np.float32) / (1 - drop)
            e_d = e * mask
        else:
            e_d = e
        logits = e_d @ self.params["f1w"] + self.params["f1b"]
        if keep:
            cache.append((flat, h0, e_d, mask))
        return logits, e, cache

    def backward(self, dlogits: np.ndarray, cache: list) -> dict[str, np.ndarray]:
        g: dict[str, np.ndarray] = {}
        flat, h0, e_d, mask = cache[-1]
        g["f1w"] = e_d.T @ dlogits
        g["f1b"] = dlogits.sum(0)
        de = dlogits @ self.params["f1w"].T
        if mask is not None:
            de = de * mask
        dh0 = de * (h0 > 0)
        g["f0w"] = flat.T @ dh0
        g["f0b"] = dh0.sum(0)
        da = (dh0 @ self.params["f0w"].T)
        for k in reversed(range(len(self.convs))):
            shape, cols, z, rr, p = cache[k]
            n, h, w, _ = shape
            cout = z.shape[-1]
            da = da.reshape(p.shape)
            # max-pool and ReLU backward in one pass: the gradient goes to each positive window maximum
            # (ties between positive values are vanishingly rare; zeros get nothing through the ReLU)
            m = (rr == p[:, :, None, :, None, :]) & (rr > 0)
            dz = np.where(m, da[:, :, None, :, None, :], np.float32(0)).reshape(-1, cout)
            g[f"c{k}w"] = cols.T @ dz
            g[f"c{k}b"] = dz.sum(0)
            if k > 0:
                da = _col2im(dz @ self.params[f"c{k}w"].T, shape)
        return g

    def predict(self, x: np.ndarray, batch: int = 512) -> tuple[np.ndarray, np.ndarray]:
        outs, embs = [], []
        for i in range(0, len(x), batch):
            lo, e, _ = self.forward(x[i:i + batch])
            outs.append(lo)
            embs.append(e)
        return np.concatenate(outs), np.concatenate(embs)

    # -- export ------------------------------------------------------------------------------------
    def to_onnx(self, path: str) -> None:
        """Write the graph (input "input" N x 3 x size x size; outputs "logits" and "embedding")."""
        import onnx  # the training extra only: reading needs cv2 alone
        from onnx import TensorProto, helper, numpy_helper

        nodes, inits = [], []
        prev, cin = "input", 3
        size = self.size
        for k, cout in enumerate(self.convs):
            w = self.params[f"c{k}w"].reshape(3, 3, cin, cout).transpose(3, 2, 0, 1)  # -> (F, C, kh, kw)
            inits += [numpy_helper.from_array(np.ascontiguousarray(w), f"c{k}w"),
                      numpy_helper.from_array(self.params[f"c{k}b"], f"c{k}b")]
            nodes += [helper.make_node("Conv", [prev, f"c{k}w", f"c{k}b"], [f"conv{k}"], kernel_shape=[3, 3],
                                       pads=[1, 1, 1, 1]),
                      helper.make_node("Relu", [f"conv{k}"], [f"relu{k}"]),
                      helper.make_node("MaxPool", [f"relu{k}"], [f"pool{k}"], kernel_shape=[2, 2], strides=[2, 2])]
            prev, cin = f"pool{k}", cout
        s = size // 2 ** len(self.convs)
        # numpy flattens (h, w, c); ONNX flattens NCHW as (c, h, w): reorder the first dense layer's rows
        f0w = self.params["f0w"].reshape(s, s, cin, HIDDEN).transpose(2, 0, 1, 3).reshape(-1, HIDDEN)
        inits += [numpy_helper.from_array(np.ascontiguousarray(f0w), "f0w"),
                  numpy_helper.from_array(self.params["f0b"], "f0b"),
                  numpy_helper.from_array(self.params["f1w"], "f1w"),
                  numpy_helper.from_array(self.params["f1b"], "f1b")]
        nodes += [helper.make_node("Flatten", [prev], ["flat"], axis=1),
                  helper.make_node("Gemm", ["flat", "f0w", "f0b"], ["h0"]),
                  helper.make_node("Relu", ["h0"], ["embedding"]),
                  helper.make_node("Gemm", ["embedding", "f1w", "f1b"], ["logits"])]
        graph = helper.make_graph(
            nodes, "dicesight_face",
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, size, size])],
            [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", self.classes]),
             helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["N", HIDDEN])],
            inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="dicesight")
        model.ir_version = 8
        onnx.checker.check_model(model)
        onnx.save(model, path)


class Adam:
    def __init__(self, params: dict[str, np.ndarray], lr: float = 2e-3, wd: float = 1e-4):
        self.lr, self.wd = lr, wd
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray], lr: float) -> None:
        self.t += 1
        b1, b2 = 0.9, 0.999
        for k, g in grads.items():
            if k.endswith("w"):
                g = g + self.wd * params[k]
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            mh = self.m[k] / (1 - b1 ** self.t)
            vh = self.v[k] / (1 - b2 ** self.t)
            params[k] -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(1, keepdims=True)
