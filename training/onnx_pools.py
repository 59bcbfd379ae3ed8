"""The networks' 2x2 max-pools written as four strided slices and their maximum: the same numbers, sooner.

    .venv/bin/python -m training.onnx_pools vision/models/pips-under.onnx [more.onnx ...]

Why: OpenCV's classic dnn engine, which runs the box's small networks fastest (`vision.onnx_net`), pools a 2x2
window in a general loop that also keeps the maximum's index; four `Slice` layers (every second row and
column, from offsets 0 and 1) and an element-wise `Max` are plain strided copies and one vectorised pass.
Measured with `cv2.dnn` on one core of this machine's Xeon (OpenCV 5.0.0), six 40 px crops: the d6 network
from below 6.11 -> 5.17 ms, King of Tokyo's pair 11.83 -> 9.76 ms, the corner-number network (six 32 px
patches) 3.19 -> 2.64 ms. The maximum of the same four numbers is the same number, so a rewritten file
answers exactly as before: `rewrite` checks that on random inputs before it replaces a file, and the
reference test (`tests/vision/test_vision_classifier.py`) compares the shipped files with the logits torch
gave at training. Only pools of a 2x2 window, stride 2, no padding, no ceiling and no indices output are
rewritten; any other node stays as it is. The trainers' exports (`training.torch_net.export_onnx`,
`training.dicethrone_corners.export`) write their files so.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

BIG = 2 ** 30   # a Slice end past any axis: "to the end"


def _plain_2x2(node) -> bool:
    """Whether a MaxPool node is a 2x2 window at stride 2 without padding, ceiling, dilation or indices."""
    from onnx import helper
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    window = list(attrs.get("kernel_shape", [])) == [2, 2] and list(attrs.get("strides", [])) == [2, 2]
    plain = not any(attrs.get("pads", [0])) and not attrs.get("ceil_mode", 0)
    return (node.op_type == "MaxPool" and len(node.output) == 1 and window and plain
            and list(attrs.get("dilations", [1, 1])) == [1, 1])


def pools_as_slices(model):
    """The model (an `onnx.ModelProto`, changed in place and returned) with every plain 2x2 max-pool replaced
    by four strided `Slice` nodes over the height and width axes and a `Max` of the four."""
    from onnx import helper, numpy_helper
    graph, nodes = model.graph, []
    for node in graph.node:
        if not _plain_2x2(node):
            nodes.append(node)
            continue
        stem = f"{node.name or node.output[0]}/slice"
        const = {"ends": [BIG, BIG], "axes": [2, 3], "steps": [2, 2]}
        for key, value in const.items():
            graph.initializer.append(numpy_helper.from_array(np.array(value, np.int64), f"{stem}_{key}"))
        parts = []
        for dy, dx in ((0, 0), (0, 1), (1, 0), (1, 1)):
            starts = f"{stem}_starts{dy}{dx}"
            graph.initializer.append(numpy_helper.from_array(np.array([dy, dx], np.int64), starts))
            parts.append(f"{stem}{dy}{dx}")
            nodes.append(helper.make_node("Slice", [node.input[0], starts, f"{stem}_ends", f"{stem}_axes",
                                                    f"{stem}_steps"], [parts[-1]], name=parts[-1]))
        nodes.append(helper.make_node("Max", parts, [node.output[0]], name=f"{stem}_max"))
    del graph.node[:]
    graph.node.extend(nodes)
    return model


def _answers(path: Path, inputs: np.ndarray) -> list[np.ndarray]:
    """Every output of the network for `inputs`, as the reader runs it (`vision.onnx_net.load_net`)."""
    from vision.onnx_net import load_net
    net = load_net(path)
    net.setInput(inputs)
    return [o.copy() for o in net.forward(net.getUnconnectedOutLayersNames())]


def _test_inputs(model, seed: int = 0) -> np.ndarray:
    """Random inputs shaped as the model's input (a batch of 5; a free side taken as 48)."""
    dims = [d.dim_value or 0 for d in model.graph.input[0].type.tensor_type.shape.dim]
    shape = [5 if i == 0 and not d else d or 48 for i, d in enumerate(dims)]
    return np.random.default_rng(seed).normal(0, 1, shape).astype(np.float32)


def rewrite(path: Path) -> int:
    """Rewrite one ONNX file's plain max-pools (`pools_as_slices`) in place, after checking that `cv2.dnn`
    gives exactly the same outputs. Returns the pools rewritten."""
    import onnx
    model = onnx.load(str(path))
    pools = sum(_plain_2x2(n) for n in model.graph.node)
    if not pools:
        return 0
    x = _test_inputs(model)
    before = _answers(path, x)
    fast = path.with_suffix(".slices.onnx")
    onnx.save(pools_as_slices(model), str(fast))
    after = _answers(fast, x)
    gap = max(float(np.abs(a - b).max()) for a, b in zip(before, after, strict=True))
    if gap != 0.0:
        fast.unlink()
        raise SystemExit(f"{path}: the rewritten network answers {gap} away")
    fast.replace(path)
    return pools


def note_in_json(path: Path) -> None:
    """Say in the model's JSON (beside it) that its max-pools are slices now (a file rewritten after its
    trainer wrote the JSON)."""
    meta_path = path.with_suffix(".json")
    if meta_path.exists():
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        meta["max_pools"] = "as strided slices and their maximum (training/onnx_pools.py)"
        meta_path.write_text(json.dumps(meta, indent=1), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", type=Path)
    args = ap.parse_args(argv)
    for path in args.models:
        pools = rewrite(path)
        if pools:
            note_in_json(path)
        print(f"{path}: {pools} max-pools rewritten, the same answers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
