"""Suite-wide order: the longest tests first.

`make test` runs the suite on a few pytest-xdist workers (`--dist load`), which hand out the tests in
collection order. A whole game in Chromium takes 5-30 s; started last, one of them alone would keep a worker
busy after the others have finished. So tests marked `slow` go first, then the other browser tests, then
the rest, each group in its collection order (the run stays reproducible).
"""

from __future__ import annotations

import pytest


def _rank(item: pytest.Item) -> int:
    if item.get_closest_marker("slow"):
        return 0
    if item.get_closest_marker("e2e"):
        return 1
    return 2


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_rank)  # stable: collection order within each rank
