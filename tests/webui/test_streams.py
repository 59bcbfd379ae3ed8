"""The stream gate keeps threads for requests: a bounded number of live-update streams in total and per
address (issue: anyone could freeze the box by opening streams)."""

from __future__ import annotations

import queue
import threading
import time

from hypothesis import given
from hypothesis import strategies as st

from webui.streams import Stream, StreamGate, StreamHub


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


# -- the hub: one writer for every open stream --------------------------------------------------------
class Upstream:
    """The table's subscription as the hub sees it: snapshots in, get(timeout), close()."""

    def __init__(self) -> None:
        self.queue: queue.Queue = queue.Queue()
        self.closed = False

    def get(self, timeout: float):
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        self.closed = True


class Phone:
    """What one stream's response received, and knobs for a phone that left or stopped reading."""

    def __init__(self) -> None:
        self.got: list[bytes] = []
        self.left = False
        self.unread = 0
        self.broken = False

    def write(self, data: bytes) -> None:
        if self.broken:
            raise ConnectionResetError("gone")
        self.got.append(data)


def wait_for(condition, seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def open_phone(hub: StreamHub, phone: Phone, first: bytes = b"first", max_age: float = 3600.0) -> Stream:
    stream = Stream(phone.write, lambda: phone.left, lambda: phone.unread, time.monotonic(), max_age)
    hub.add(stream, lambda: first)
    return stream


def encode(snap: dict) -> bytes:
    return f"seq {snap['seq']}".encode()


def test_every_change_reaches_every_stream_in_order_after_its_first_snapshot() -> None:
    upstream = Upstream()
    hub = StreamHub(lambda: upstream, encode, heartbeat_s=60, check_s=60)
    phones = [Phone() for _ in range(20)]
    for phone in phones:
        open_phone(hub, phone)
    for seq in range(1, 6):
        upstream.queue.put({"seq": seq})
    assert wait_for(lambda: all(len(p.got) == 6 for p in phones))
    assert all(p.got == [b"first"] + [f"seq {s}".encode() for s in range(1, 6)] for p in phones)
    hub.stop()
    assert wait_for(lambda: upstream.closed)


def test_idle_streams_get_heartbeats_and_departed_phones_are_let_go() -> None:
    upstream = Upstream()
    hub = StreamHub(lambda: upstream, encode, heartbeat_s=0.05, check_s=0.05)
    staying, leaving = Phone(), Phone()
    kept, gone = open_phone(hub, staying), open_phone(hub, leaving)
    assert wait_for(lambda: b": heartbeat\n\n" in staying.got)
    leaving.left = True
    assert wait_for(gone.done.is_set)
    assert not kept.done.is_set()
    old = open_phone(hub, Phone(), max_age=0.0)  # a stream past its age ends (the page reconnects)
    assert wait_for(old.done.is_set)
    hub.stop()
    assert kept.done.is_set()


def test_a_phone_that_stops_reading_is_skipped_then_let_go_and_blocks_nobody() -> None:
    upstream = Upstream()
    hub = StreamHub(lambda: upstream, encode, heartbeat_s=60, check_s=60, max_backlog=1000, slow_s=0.2)
    reader, stuck, broken = Phone(), Phone(), Phone()
    open_phone(hub, reader)
    slow = open_phone(hub, stuck)
    failed = open_phone(hub, broken)
    stuck.unread = 5000  # bytes waiting in its socket buffer: it stopped reading
    broken.broken = True  # its connection broke: writing raises
    upstream.queue.put({"seq": 1})
    assert wait_for(lambda: len(reader.got) == 2)
    assert failed.done.is_set() and stuck.got == [b"first"]
    for seq in range(2, 40):
        upstream.queue.put({"seq": seq})
        time.sleep(0.01)
    assert wait_for(slow.done.is_set), "behind for longer than slow_s: let go"
    assert wait_for(lambda: reader.got[-1] == b"seq 39")
    hub.stop()
