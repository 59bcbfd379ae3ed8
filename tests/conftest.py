"""Suite-wide order: the longest tests first.

`make test` runs the suite on a few pytest-xdist workers (`--dist load`), which hand out the tests in
collection order. A whole game in Chromium takes 5-30 s; started last, one of them alone would keep a worker
busy after the others have finished. So tests marked `slow` go first, the longest first (`slow(seconds)`:
about how long it takes alone on the idle machine, 10 when not given), then the other browser tests, then
the rest, each group in its collection order (the run stays reproducible).
"""

from __future__ import annotations

import pytest


def _rank(item: pytest.Item) -> tuple[int, float]:
    slow = item.get_closest_marker("slow")
    if slow:
        return 0, -float(slow.args[0] if slow.args else 10)
    if item.get_closest_marker("e2e"):
        return 1, 0.0
    return 2, 0.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_rank)  # stable: collection order within each rank
