"""Rows read straight from the pages of a damaged SQLite file, when SQLite itself can no longer walk it.

A store cut short (an SD card that lost its tail, a power cut during a copy) keeps most of its pages, but
SQLite finds a table by walking its B-tree from the root, and one lost interior page hides every row under
it: a file truncated to half gave back none of its games. SQLite's own `.recover` would read the pages one
by one, but Debian's sqlite3 (the Pi's) is built without the page table it needs. So this module reads the
documented file format (https://www.sqlite.org/fileformat2.html) itself: every table leaf page of the main
file and of its write-ahead log, every record on it, classified by the shape of the store's rows (a game, a
log entry, a meta value). The store then keeps, per game, the gap-free prefix of its log, as it does for
rows SQLite could read.

Only reading: nothing here writes to the damaged file, which the store keeps aside for the players.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from . import records

LEAF_TABLE = 0x0D
WAL_HEADER = 32
WAL_FRAME_HEADER = 24


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    """SQLite's big-endian variable-length integer at `pos`: (value, position after it)."""
    value = 0
    for i in range(8):
        byte = buf[pos + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, pos + i + 1
    return (value << 8) | buf[pos + 8], pos + 9


def _record(payload: bytes) -> list[Any] | None:
    """The column values of one record, or None when it cannot be decoded (damaged or cut short)."""
    try:
        header_size, pos = _varint(payload, 0)
        types = []
        while pos < header_size:
            serial, pos = _varint(payload, pos)
            types.append(serial)
        pos = header_size
        values: list[Any] = []
        for serial in types:
            if serial == 0:
                values.append(None)
            elif 1 <= serial <= 6:
                size = (1, 2, 3, 4, 6, 8)[serial - 1]
                values.append(int.from_bytes(payload[pos:pos + size], "big", signed=True))
                pos += size
            elif serial == 7:
                values.append(struct.unpack(">d", payload[pos:pos + 8])[0])
                pos += 8
            elif serial in (8, 9):
                values.append(serial - 8)
            elif serial >= 12:
                size = (serial - 12) // 2
                raw = payload[pos:pos + size]
                if len(raw) != size:
                    return None
                values.append(raw.decode("utf-8") if serial % 2 else raw)
                pos += size
            else:
                return None
        if pos > len(payload):
            return None
        return values
    except (IndexError, UnicodeDecodeError, struct.error):
        return None


class _Pages:
    """Page images by number: the main file's, then the write-ahead log's newer copies over them."""

    def __init__(self, path: Path) -> None:
        data = path.read_bytes() if path.exists() else b""
        self.page_size = 4096
        self.reserved = 0
        if len(data) >= 100 and data[:16] == b"SQLite format 3\x00":
            size = int.from_bytes(data[16:18], "big")
            self.page_size = 65536 if size == 1 else size or 4096
            self.reserved = data[20]
        self.pages: dict[int, bytes] = {}
        for n in range(len(data) // self.page_size):
            self.pages[n + 1] = data[n * self.page_size:(n + 1) * self.page_size]
        wal = Path(str(path) + "-wal")
        if wal.exists():
            self._read_wal(wal.read_bytes())

    def _read_wal(self, data: bytes) -> None:
        if len(data) < WAL_HEADER:
            return
        size = int.from_bytes(data[8:12], "big")
        if size not in (512, 1024, 2048, 4096, 8192, 16384, 32768, 65536):
            return
        self.page_size = size
        pos = WAL_HEADER
        while pos + WAL_FRAME_HEADER + size <= len(data):
            number = int.from_bytes(data[pos:pos + 4], "big")
            if number:
                self.pages[number] = data[pos + WAL_FRAME_HEADER:pos + WAL_FRAME_HEADER + size]
            pos += WAL_FRAME_HEADER + size

    def payload(self, page: bytes, cell: int) -> tuple[int, bytes] | None:
        """(rowid, whole payload) of the table leaf cell at offset `cell`, following overflow pages."""
        usable = self.page_size - self.reserved
        total, pos = _varint(page, cell)
        rowid, pos = _varint(page, pos)
        most = usable - 35
        if total <= most:
            return rowid, page[pos:pos + total]
        least = (usable - 12) * 32 // 255 - 23
        local = least + (total - least) % (usable - 4)
        if local > most:
            local = least
        out = bytearray(page[pos:pos + local])
        nxt = int.from_bytes(page[pos + local:pos + local + 4], "big")
        seen: set[int] = set()
        while len(out) < total:
            if nxt == 0 or nxt in seen or nxt not in self.pages:
                return None  # the rest of this row was on a page that is gone
            seen.add(nxt)
            over = self.pages[nxt]
            nxt = int.from_bytes(over[:4], "big")
            out += over[4:4 + min(usable - 4, total - len(out))]
        return rowid, bytes(out)

    def rows(self) -> list[tuple[int, list[Any]]]:
        """(rowid, values) of every record on every table leaf page, in page order."""
        out: list[tuple[int, list[Any]]] = []
        for number in sorted(self.pages):
            page = self.pages[number]
            head = 100 if number == 1 else 0
            if len(page) < head + 8 or page[head] != LEAF_TABLE:
                continue
            cells = int.from_bytes(page[head + 3:head + 5], "big")
            for i in range(cells):
                at = head + 8 + 2 * i
                offset = int.from_bytes(page[at:at + 2], "big")
                if not head + 8 <= offset < len(page):
                    continue
                try:
                    found = self.payload(page, offset)
                except IndexError:
                    continue
                if found is None:
                    continue
                values = _record(found[1])
                if values is not None:
                    out.append((found[0], values))
        return out


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _is_game(v: list[Any]) -> bool:
    """A `games` row (id, game, setup, seed, created[, crc]) whose checksum, when it has one, holds."""
    if not (len(v) in (5, 6) and v[0] is None and _is_text(v[1]) and _is_text(v[2]) and isinstance(v[3], int)
            and _is_text(v[4])):
        return False
    return len(v) == 5 or v[5] is None or v[5] == records.game_crc(v[1], v[2], v[3])


def _is_entry(v: list[Any]) -> bool:
    """An `entries` row (id, game_id, seq, action, evidence, t[, crc]) whose checksum, when it has one, holds."""
    if not (len(v) in (6, 7) and v[0] is None and isinstance(v[1], int) and isinstance(v[2], int)
            and _is_text(v[3]) and (v[4] is None or _is_text(v[4])) and isinstance(v[5], float | int)):
        return False
    return len(v) == 6 or v[6] is None or v[6] == records.crc(v[3])


def scan(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Rows of the store's tables found on the pages of `path` (and `path`-wal), whichever tree they hung
    from: `games` (id, game, setup, seed, created), `entries` (id, game_id, seq, action, evidence, t) and
    `meta` (rowid, key, value). A row seen twice (an old page and its newer copy) is kept once, the newer."""
    games: dict[int, tuple[Any, ...]] = {}
    entries: dict[int, tuple[Any, ...]] = {}
    meta: dict[str, tuple[Any, ...]] = {}
    for rowid, v in _Pages(path).rows():
        if _is_game(v):
            games[rowid] = (rowid, v[1], v[2], v[3], v[4])
        elif _is_entry(v):
            entries[rowid] = (rowid, v[1], v[2], v[3], v[4], float(v[5]))
        elif len(v) == 2 and _is_text(v[0]) and _is_text(v[1]):
            meta[v[0]] = (rowid, v[0], v[1])
    return {"games": sorted(games.values()), "entries": sorted(entries.values()), "meta": list(meta.values())}
