"""The pip classifier's training data is reproducible from its seed, and a trial training run stays out of the
tests' data (no model is trained here: the data-assembly functions run on a handful of frames).

The shipped pips.onnx (9bca436) retrained at its own commit came out byte-identical, and two runs at one commit
agree byte for byte; a model of one name differs between commits because the reader's candidates on empty renders
are training data. Two hazards are checked here: `--cache` keyed the canvases on vision/render.py alone (the same
key at 5b6d9fe and 1d41cde, whose empty renders give 683 and 680 boxes), and a run with `--out /tmp/...` still
rewrote tests/vision/data/pips_reference.npz.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# the digest of a few rendered, empty-tray and cube canvases (and of three photos' canvases where the datasets
# are), made twice in one process: the reader's caches (keyed by object identity) must not change the second
_DIGEST = """
import hashlib, json
import numpy as np
from training.canvas import empty_canvases, photo_canvases, render_canvases
from training.cubes import cube_canvases
from training.data import load_photos

def digest():
    h = hashlib.sha256()
    parts = [render_canvases(2, 64, np.random.default_rng(7)), empty_canvases(4, 64, np.random.default_rng(7)),
             cube_canvases(3, 64, np.random.default_rng(7))]
    try:
        parts.append(photo_canvases(load_photos("webcam-d6")[:3], 64, np.random.default_rng(7)))
    except FileNotFoundError:
        pass
    for c in parts:
        for a in (c.x, c.y, c.upright, c.source):
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()

print(json.dumps([digest(), digest()]))
"""


def _run(code: str, hash_seed: str) -> object:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                         check=True, timeout=300)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_canvases_are_the_same_whatever_the_hash_seed() -> None:
    # set and dict order of strings follows PYTHONHASHSEED, which is random in every run unless set: two
    # seeds, two processes, and each process twice, must give the same canvases
    a, b = _run(_DIGEST, "0"), _run(_DIGEST, "1")
    assert isinstance(a, list) and isinstance(b, list)
    assert len({*a, *b}) == 1


@pytest.mark.parametrize(("module", "sources"), [("training.canvas", "BASE_SOURCES"),
                                                  ("training.cubes", "CUBE_SOURCES"),
                                                  ("training.negatives", "PHANTOM_SOURCES")])
def test_cache_key_names_every_module_that_makes_the_canvases(module: str, sources: str) -> None:
    from training import provenance  # training only: not the package's (no torch: it runs in CI)

    code = (f"import json, sys, {module}\n"
            "print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items()\n"
            "    if n.split('.')[0] in ('training', 'vision') and getattr(m, '__file__', None))))")
    loaded = {str(Path(f).resolve().relative_to(REPO)) for f in _run(code, "0")}  # type: ignore[union-attr]
    loaded = {f for f in loaded if not f.endswith("__init__.py")}
    missing = loaded - set(getattr(provenance, sources))
    assert not missing, f"{sources} misses {sorted(missing)}: a cached canvas would outlive a change to them"


def test_a_trial_run_leaves_the_tests_reference_alone(tmp_path: Path) -> None:
    from training.provenance import SHIPPED, reference_path  # training only: not the package's

    data = Path(__file__).parent / "data"
    for name in ("pips_reference.npz", "finder_reference.npz"):
        assert reference_path(SHIPPED, name) == data / name  # the shipped model: the tests' own file
        assert (data / name).exists()                          # (which the tests read)
        assert reference_path(tmp_path, name) == tmp_path / name


def test_a_model_says_what_made_it(tmp_path: Path) -> None:
    # numerals.onnx retrained at its own commit differed from the shipped file, and its JSON could not say
    # whether the libraries or the tree had differed: each model's JSON now records both (`made_with`)
    import numpy as np

    from training.provenance import made_with

    outside = made_with(tmp_path)  # not a git checkout
    assert outside["commit"] is None and outside["uncommitted_changes"] is None
    assert outside["libraries"]["numpy"] == np.__version__
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (tmp_path / "a.py").write_text("x = 1\n")
    subprocess.run([*git, "add", "a.py"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "a"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    assert made_with(tmp_path)["commit"] == head and made_with(tmp_path)["uncommitted_changes"] is False
    (tmp_path / "a.py").write_text("x = 2\n")
    assert made_with(tmp_path)["uncommitted_changes"] is True
