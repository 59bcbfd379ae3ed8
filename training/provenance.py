"""What a training run's cached data is made from, and where a trial run's test references go. Nothing here
imports torch, so the tests check both without the train extra (tests/vision/test_training_repro.py).

- `--cache` keeps each set of training canvases under a key made from the code that makes them (`*_SOURCES`): a
  change to any of those files must make them afresh.
- The shipped model leaves a few reference inputs and outputs in tests/vision/data, for a test that the shipped
  file still reads as trained; a trial run (`--out /tmp/...`) leaves them beside its own model instead.
- Each model's JSON says what made it (`made_with`): the commit, whether the tree had uncommitted changes, and
  the libraries' versions. Why: numerals.onnx retrained at the commit that shipped it (f74146d) came out
  close but not byte-identical (held-back accuracy 78.04% against 77.72%), while two runs today agree byte for
  byte; its JSON could not say whether torch, OpenCV or numpy then differed, or the tree.
"""

from __future__ import annotations

import subprocess
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "vision" / "models"
TEST_DATA = REPO / "tests" / "vision" / "data"

# The empty renders' "not a die" boxes are the reader's own candidates and the phantoms the finders' false boxes,
# so every vision module counts, not vision/render.py alone: between 9bca436 and 1d41cde the finder's changes
# turned 682 empty-render boxes into 680, which a cache keyed on render.py alone would have kept.
VISION_SOURCES = sorted(str(f.relative_to(REPO)) for f in (REPO / "vision").glob("*.py"))
BASE_SOURCES = ["training/canvas.py", "training/data.py", *VISION_SOURCES]
CUBE_SOURCES = ["training/cubes.py", "training/canvas.py", "training/data.py", *VISION_SOURCES]
PHANTOM_SOURCES = ["training/negatives.py", "training/splits.py", *BASE_SOURCES]


def reference_path(out_dir: Path, name: str) -> Path:
    """Where a model written to `out_dir` leaves its reference file `name`: tests/vision/data when the model
    replaces the shipped one, else beside the model, so that a trial run leaves the tests' data alone."""
    return TEST_DATA / name if out_dir.resolve() == SHIPPED.resolve() else out_dir / name


LIBRARIES = ("torch", "onnx", "numpy", "opencv-python-headless", "opencv-python")


def made_with(repo: Path = REPO) -> dict:
    """The commit the run was made from (None outside a git checkout), whether tracked files differed from it,
    and the installed versions of the libraries that shape a model (those not installed are left out)."""
    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return out.stdout.strip() if out.returncode == 0 else None

    versions = {}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": git("rev-parse", "HEAD"), "uncommitted_changes": None if status is None else bool(status),
            "libraries": versions}
