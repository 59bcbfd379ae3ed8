"""The stream gate keeps threads for requests: a bounded number of live-update streams in total and per
address (issue: anyone could freeze the box by opening streams)."""

from __future__ import annotations

import threading

from hypothesis import given
from hypothesis import strategies as st

from webui.streams import StreamGate


def test_refuses_beyond_the_total_then_admits_again_after_one_leaves() -> None:
    gate = StreamGate(max_streams=3, per_address=3)
    assert [gate.enter(f"10.0.0.{i}") for i in range(3)] == [None, None, None]
    refusal = gate.enter("10.0.0.9")
    assert refusal is not None and refusal.code == "too_many_streams" and refusal.retry_after > 0
    gate.leave("10.0.0.1")
    assert gate.enter("10.0.0.9") is None
    assert gate.stats()["open"] == 3 and gate.stats()["refused"] == 1


def test_one_address_cannot_take_every_place() -> None:
    gate = StreamGate(max_streams=100, per_address=2)
    assert gate.enter("10.0.0.5") is None and gate.enter("10.0.0.5") is None
    refusal = gate.enter("10.0.0.5")
    assert refusal is not None and refusal.code == "too_many_streams_here"
    assert gate.enter("10.0.0.6") is None  # another phone still gets in


def test_leaving_twice_or_without_entering_frees_nothing_extra() -> None:
    gate = StreamGate(max_streams=1, per_address=1)
    gate.leave("10.0.0.1")
    assert gate.enter("10.0.0.1") is None
    gate.leave("10.0.0.1")
    gate.leave("10.0.0.1")
    assert gate.stats()["open"] == 0
    assert gate.enter("10.0.0.2") is None
    assert gate.enter("10.0.0.3") is not None


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5)), max_size=200))
def test_counts_never_exceed_the_limits(steps: list[tuple[bool, int]]) -> None:
    gate = StreamGate(max_streams=4, per_address=2)
    held: dict[str, int] = {}
    for enter, who in steps:
        address = f"10.0.0.{who}"
        if enter:
            if gate.enter(address) is None:
                held[address] = held.get(address, 0) + 1
        elif held.get(address):
            gate.leave(address)
            held[address] -= 1
        assert gate.stats()["open"] == sum(held.values()) <= 4
        assert all(n <= 2 for n in held.values())


def test_many_threads_entering_at_once_admit_exactly_the_limit() -> None:
    gate = StreamGate(max_streams=50, per_address=1000)
    admitted: list[bool] = []
    lock = threading.Lock()

    def go() -> None:
        ok = gate.enter("10.0.0.1") is None
        with lock:
            admitted.append(ok)

    threads = [threading.Thread(target=go) for _ in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert admitted.count(True) == 50
