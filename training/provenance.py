"""What a training run's cached data is made from, and where a trial run's test references go. Nothing here
imports torch, so the tests check both without the train extra (tests/vision/test_training_repro.py).

- `--cache` keeps each set of training canvases under a key made from the code that makes them (`*_SOURCES`): a
  change to any of those files must make them afresh.
- The shipped model leaves a few reference inputs and outputs in tests/vision/data, for a test that the shipped
  file still reads as trained; a trial run (`--out /tmp/...`) leaves them beside its own model instead.
"""

from __future__ import annotations

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
