"""Two trained face networks of one set joined into ONE ONNX file that answers with their mean judgement.

Why: two King of Tokyo networks from below, trained apart (other frames, other draws), are wrong on different
dice. Given the true boxes of the test and measure seeds (200-201, 223-231), each fitted on seeds 291-310 that
neither trained on, the joined pair named 3 points more faces right and was sure of 5-10 points more, with no more
sure and wrong (docs/dice-sets.md, sixteenth session). One file keeps the reader as it is: `vision/symbolnet.py`
loads it as any network, cv2.dnn runs both members in one call (twice a member's time a crop).

The joined file's `logits` are the mean of the members' log-probabilities (a geometric mean of their
probabilities, which the temperature then scales as any network's logits); its `embedding` is the first
member's. Its JSON keeps the first member's recipe, names both members, and its `trained_on` frames are the
union of theirs, so `train_symbols_undertray --recalibrate` fits its level on frames neither member saw.

    .venv/bin/python -m training.ensemble A.onnx B.onnx --out vision/models/kingoftokyo-under.onnx
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


def _prefixed(path: Path, prefix: str):
    """A member's graph with every name prefixed, its input too (the joined graph feeds it from `input`)."""
    import onnx
    from onnx import compose

    return compose.add_prefix(onnx.load(str(path)), prefix).graph


def joined_model(a: Path, b: Path):
    """The ONNX model answering with the mean of `a`'s and `b`'s log-probabilities (see the module's docstring)."""
    import onnx
    from onnx import TensorProto, helper

    ga, gb = _prefixed(a, "a_"), _prefixed(b, "b_")
    half = helper.make_tensor("half", TensorProto.FLOAT, [], [0.5])
    feed = [helper.make_node("Identity", ["input"], [f"{p}input"]) for p in ("a_", "b_")]
    mean = [helper.make_node("LogSoftmax", [f"{p}logits"], [f"{p}logp"], axis=1) for p in ("a_", "b_")]
    mean += [helper.make_node("Add", ["a_logp", "b_logp"], ["logp_sum"]),
             helper.make_node("Mul", ["logp_sum", "half"], ["logits"]),
             helper.make_node("Identity", ["a_embedding"], ["embedding"])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", _width(ga, "a_logits")]),
               helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["N", _width(ga, "a_embedding")])]
    graph = helper.make_graph(feed + list(ga.node) + list(gb.node) + mean, "ensemble",
                              [_renamed_input(ga)], outputs, [*ga.initializer, *gb.initializer, half])
    model = helper.make_model(graph, opset_imports=onnx.load(str(a)).opset_import)
    model.ir_version = onnx.load(str(a)).ir_version
    onnx.checker.check_model(model)
    return model


def _renamed_input(graph):
    """The first member's input, named `input` again (the name the reader feeds)."""
    from onnx import ValueInfoProto

    value = ValueInfoProto()
    value.CopyFrom(graph.input[0])
    value.name = "input"
    return value


def _width(graph, name: str) -> int:
    """The second dimension of the graph's output `name` (classes, or the embedding's numbers)."""
    out = next(o for o in graph.output if o.name == name)
    return int(out.type.tensor_type.shape.dim[1].dim_value)


def joined_meta(a: Path, b: Path) -> dict:
    """The joined file's JSON: the first member's, with both members named and the union of their frames."""
    ma, mb = (json.loads(p.with_suffix(".json").read_text(encoding="utf-8")) for p in (a, b))
    for key in ("classes", "size", "pad", "norm", "set", "mount"):
        if ma.get(key) != mb.get(key):
            raise SystemExit(f"the members differ in {key}: {ma.get(key)} against {mb.get(key)}")
    frames = {**ma["trained_on"]["undertray_frames"], **mb["trained_on"]["undertray_frames"]}
    members = [{"file": p.name, "sha256": hashlib.sha256(p.read_bytes()).hexdigest(), "seed": m.get("seed"),
                "epochs": m.get("epochs"), "setup": m.get("setup"), "frames": len(m["trained_on"]["undertray_frames"]),
                "made_with": m.get("made_with")} for p, m in ((a, ma), (b, mb))]
    return {**ma, "temperature": 1.0, "ensemble": members,
            "trained_on": {**ma["trained_on"], "undertray_frames": dict(sorted(frames.items()))}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("first", type=Path)
    ap.add_argument("second", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    import onnx

    meta = joined_meta(args.first, args.second)
    onnx.save(joined_model(args.first, args.second), str(args.out))
    args.out.with_suffix(".json").write_text(json.dumps({**meta, "made_with": made_with()}, indent=1),
                                             encoding="utf-8")
    diff = write_reference(args.first, args.second, args.out)
    print(f"wrote {args.out}: cv2.dnn's joined logits against the members' mean, max |diff| {diff:.2e}")
    return 0


def write_reference(a: Path, b: Path, out: Path) -> float:
    """The joined file's reference crops and logits for the CI test that it reads as made
    (tests/vision/test_vision_classifier.py): the members' own reference crops (each member's export was checked
    against torch), and the mean of the members' log-probabilities there. Returns how far the joined file's
    answer is from that mean."""
    crops = np.concatenate([np.load(_reference_of(p))["crops"] for p in (a, b)])
    meta = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    batch = np.ascontiguousarray(normalise_batch(crops, meta["norm"]).transpose(0, 3, 1, 2))
    member, joined = [_logits(p, meta, batch) for p in (a, b)], _logits(out, meta, batch)
    expect = (_log_softmax(member[0]) + _log_softmax(member[1])) / 2
    ref = reference_path(out.parent, f"{out.stem.replace('-', '_')}_reference.npz")
    np.savez_compressed(ref, crops=crops, logits=expect.astype(np.float32))
    return float(np.abs(joined - expect).max())


def _reference_of(model: Path) -> Path:
    """A model's reference file: beside it, or in the tests' data for a shipped one."""
    name = f"{model.stem.replace('-', '_')}_reference.npz"
    return model.parent / name if (model.parent / name).exists() else TEST_DATA / name


def _logits(path: Path, meta: dict, batch: np.ndarray) -> np.ndarray:
    net = FaceClassifier(path, {**meta, "temperature": 1.0}).net
    net.setInput(batch)
    return net.forward("logits")


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(1, keepdims=True)
    return z - np.log(np.exp(z).sum(1, keepdims=True))


if __name__ == "__main__":
    raise SystemExit(main())
