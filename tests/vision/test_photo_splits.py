"""How the real photos are split for the photo networks' suite (training/splits.py) and credited
(training/data.py): no model is trained here.

Issue 31 asks, from above, >= 95% "on each unseen real set", measured leave-one-dataset-out over every set in
../shared/datasets: `--photo-sets` of the photo trainers names the sets, and the suite then trains one model
per set that never saw it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from training.data import ATTRIBUTION, Die, Photo, datasets_root, photo_sources
from training.splits import PHOTO_SETS, PIP_PHOTO_SETS, model_jobs, photo_sets


def _photos(sets: tuple[str, ...]) -> list[Photo]:
    return [Photo(ds, Path(f"{ds}-{k}.jpg"), f"{ds}-{k}", (Die(3, (10.0, 10.0, 8.0, 8.0)),))
            for ds in sets for k in range(3)]


def test_each_left_out_model_trains_on_every_photo_of_the_named_sets_but_its_own() -> None:
    sets = photo_sets(",".join(PIP_PHOTO_SETS))
    jobs = {name: (pool, note) for name, pool, _, note in
            model_jobs("pips", _photos(sets), Path("a"), True, Path("b"), sets)}
    for ds in PIP_PHOTO_SETS:
        pool, note = jobs[f"lodo-{ds}"]
        assert {p.dataset for p in pool} == set(PIP_PHOTO_SETS) - {ds}
        assert note == {"photos": [d for d in PIP_PHOTO_SETS if d != ds], "left_out": ds}
    assert jobs["pips"][1]["photos"] == list(PIP_PHOTO_SETS)


def test_without_photo_sets_the_trainers_take_the_shipped_models_sets() -> None:
    assert photo_sets("") == PHOTO_SETS
    jobs = model_jobs("finder", _photos(PHOTO_SETS), Path("a"), True, Path("b"))
    assert [j[0] for j in jobs] == ["finder", "cv0", "cv1", *(f"lodo-{ds}" for ds in PHOTO_SETS)]


def test_a_set_that_is_not_a_pip_photo_set_is_refused() -> None:
    with pytest.raises(SystemExit, match="d20-numerals"):
        photo_sets("webcam-d6,d20-numerals")


@pytest.mark.parametrize("dataset", PIP_PHOTO_SETS)
def test_every_photo_set_is_credited_with_the_licence_its_folder_states(dataset: str) -> None:
    try:
        licence = (datasets_root() / dataset / "LICENSE").read_text(encoding="utf-8")
    except FileNotFoundError:
        pytest.skip("../shared/datasets is not beside the repository")
    named = ATTRIBUTION[dataset].split(",")[0]
    words = {"MIT": "Permission is hereby granted, free of charge", "CC BY 4.0": "CC BY 4.0"}[named]
    assert words in licence
    assert f"{dataset} ({ATTRIBUTION[dataset]})" in photo_sources(PIP_PHOTO_SETS)
