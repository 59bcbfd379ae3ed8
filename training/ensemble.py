"""Trained face networks of one set (two or more) joined into ONE ONNX file that answers with their mean.

Why: two King of Tokyo networks from below, trained apart (other frames, other draws), are wrong on different
dice. Given the true boxes of the test and measure seeds (200-201, 223-231), each fitted on seeds 291-310
that neither trained on, the joined pair named 3 points more faces right and was sure of 5-10 points more,
with no more sure and wrong (docs/dice-sets.md, sixteenth session). One file keeps the reader as it is:
`vision/symbolnet.py` loads it as any network; cv2.dnn runs every member in one call (a member's time each).

The joined file's `logits` are the mean of the members' logits (its probabilities the normalised geometric
mean of theirs, which the temperature then scales as any network's); its `embedding` is every member's side
by side. Its JSON keeps the first member's input (size, padding, classes), names every member with its
recipe, and its `trained_on` frames are the union of theirs, so `--recalibrate` (train_symbols_undertray,
train_reader_undertray) fits its level on frames no member saw.

    .venv/bin/python -m training.ensemble A.onnx B.onnx [C.onnx] --out vision/models/kingoftokyo-under.onnx
    .venv/bin/python -m training.train_symbols_undertray --recalibrate vision/models/kingoftokyo-under.onnx \\
        --train-seeds 202-222,232-310

Never in CI (it needs the `onnx` package of the train extra); CI reads the file it makes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

from training.provenance import TEST_DATA, made_with, reference_path
from vision.classify import FaceClassifier, normalise_batch

# what each member's JSON says of its own training, kept under its name in the joined file's "ensemble"
MEMBERS_OWN = ("seed", "epochs", "setup", "train_seconds", "made_with")


def _prefix(i: int) -> str:
    """Member i's prefix in the joined graph: a_, b_, c_... (a pair joined again is the same file)."""
    return f"{chr(ord('a') + i)}_"


def joined_model(members: list[Path]):
    """The ONNX model whose logits are the mean of the members' (see the module's docstring): every member up
    to its embedding, the embeddings side by side as one, and one last layer of their heads, each divided by
    their number. Why one layer and not a mean of outputs: the joined file is then a network like any other,
    its last layer over its whole embedding, which the memory learns from (`vision.memory.network_head`)."""
    import onnx
    from onnx import TensorProto, compose, helper, numpy_helper

    first = onnx.load(str(members[0]))
    graphs = [compose.add_prefix(onnx.load(str(m)) if i else first, _prefix(i)).graph
              for i, m in enumerate(members)]
    heads = [_head(g) for g in graphs]
    stacked = np.concatenate([w for w, _ in heads], axis=1)
    weights = numpy_helper.from_array(stacked / len(heads), "head.weight")
    bias = numpy_helper.from_array(np.mean([b for _, b in heads], axis=0), "head.bias")
    feed = [helper.make_node("Identity", ["input"], [f"{_prefix(i)}input"]) for i in range(len(graphs))]
    embeddings = [f"{_prefix(i)}embedding" for i in range(len(graphs))]
    join = [helper.make_node("Concat", embeddings, ["embedding"], axis=1),
            helper.make_node("Gemm", ["embedding", "head.weight", "head.bias"], ["logits"], transB=1)]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", heads[0][0].shape[0]]),
               helper.make_tensor_value_info("embedding", TensorProto.FLOAT,
                                             ["N", sum(w.shape[1] for w, _ in heads)])]
    graph = helper.make_graph(feed + [n for g in graphs for n in _body(g)] + join, "ensemble",
                              [_renamed_input(graphs[0])], outputs,
                              [*(t for g in graphs for t in _kept(g)), weights, bias])
    model = helper.make_model(graph, opset_imports=first.opset_import)
    model.ir_version = first.ir_version
    onnx.checker.check_model(model)
    return model


def _last(graph):
    """A member's last layer: the Gemm from its embedding to its logits."""
    node = graph.node[-1]
    if node.op_type != "Gemm" or not node.output[0].endswith("logits"):
        raise SystemExit(f"a member does not end in one layer to its logits: {node.op_type} {node.output[0]}")
    return node


def _head(graph) -> tuple[np.ndarray, np.ndarray]:
    """A member's last layer's weights (classes x embedding) and bias."""
    from onnx import numpy_helper

    weights = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    node = _last(graph)
    return weights[node.input[1]], weights[node.input[2]]


def _body(graph) -> list:
    return list(graph.node[:-1])


def _kept(graph) -> list:
    """A member's initializers but its last layer's."""
    head = set(_last(graph).input[1:])
    return [t for t in graph.initializer if t.name not in head]


def _renamed_input(graph):
    """The first member's input, named `input` again (the name the reader feeds)."""
    from onnx import ValueInfoProto

    value = ValueInfoProto()
    value.CopyFrom(graph.input[0])
    value.name = "input"
    return value


def joined_meta(members: list[Path]) -> dict:
    """The joined file's JSON: the first member's, with every member named and the union of their frames."""
    metas = [json.loads(p.with_suffix(".json").read_text(encoding="utf-8")) for p in members]
    first = metas[0]
    for key in ("classes", "size", "pad", "norm", "set", "mount"):
        if any(m.get(key) != first.get(key) for m in metas[1:]):
            raise SystemExit(f"the members differ in {key}: {[m.get(key) for m in metas]}")
    seen = [m["trained_on"]["undertray_frames"] for m in metas]
    # a folder's frames: the most any member read of it
    frames = {name: max(f.get(name, 0) for f in seen) for name in set().union(*seen)}
    named = [{"file": p.name, "sha256": hashlib.sha256(p.read_bytes()).hexdigest(),
              "frames": len(m["trained_on"]["undertray_frames"]), **{k: m.get(k) for k in MEMBERS_OWN}}
             for p, m in zip(members, metas, strict=True)]
    shared = {k: v for k, v in first.items() if k not in MEMBERS_OWN}
    return {**shared, "temperature": 1.0, "ensemble": named,
            "trained_on": {**first["trained_on"], "undertray_frames": dict(sorted(frames.items()))}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("members", type=Path, nargs="+", help="two or more trained networks of one set")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if len(args.members) < 2:
        ap.error("joining needs two networks or more")
    import onnx

    meta = joined_meta(args.members)
    onnx.save(joined_model(args.members), str(args.out))
    args.out.with_suffix(".json").write_text(json.dumps({**meta, "made_with": made_with()}, indent=1),
                                             encoding="utf-8")
    diff = write_reference(args.members, args.out)
    print(f"wrote {args.out}: cv2.dnn's joined logits against the members' mean, max |diff| {diff:.2e}")
    return 0


def write_reference(members: list[Path], out: Path) -> float:
    """The joined file's reference crops and logits for the CI test that it reads as made
    (tests/vision/test_vision_classifier.py): the members' own reference crops (each member's export was
    checked against torch), and the mean of the members' logits there. Returns how far the joined file's
    answer is from that mean."""
    crops = np.concatenate([np.load(_reference_of(p))["crops"] for p in members])
    meta = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    batch = np.ascontiguousarray(normalise_batch(crops, meta["norm"]).transpose(0, 3, 1, 2))
    expect = np.mean([_logits(p, meta, batch) for p in members], axis=0)
    ref = reference_path(out.parent, f"{out.stem.replace('-', '_')}_reference.npz")
    np.savez_compressed(ref, crops=crops, logits=expect.astype(np.float32))
    return float(np.abs(_logits(out, meta, batch) - expect).max())


def _reference_of(model: Path) -> Path:
    """A model's reference file: beside it, or in the tests' data for a shipped one."""
    name = f"{model.stem.replace('-', '_')}_reference.npz"
    return model.parent / name if (model.parent / name).exists() else TEST_DATA / name


def _logits(path: Path, meta: dict, batch: np.ndarray) -> np.ndarray:
    net = FaceClassifier(path, {**meta, "temperature": 1.0}).net
    net.setInput(batch)
    return net.forward("logits")


if __name__ == "__main__":
    raise SystemExit(main())
