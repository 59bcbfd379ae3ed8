"""Who may change the game: the Philips Hue pattern, made safe against a second phone asking at once.

A phone asks to pair; for 30 seconds a press of the box's Pair button admits it. One press admits exactly
one phone: when two or more are waiting, nobody can tell from the box which is the player's, so the press
admits none, the waiting phones are told why (their poll answers "conflict") and the status LED blinks a
warning for a few seconds. Each address may ask only a few times a minute and only a bounded number of
requests wait at once, so a flood of requests cannot hold the window open forever.

Tokens are kept only as SHA-256 hashes, in a file the box rewrites atomically, so a restart keeps paired
phones paired and a stolen state directory gives no usable token. Each paired phone has a public id and a
label (its browser, its address, when it paired) so a paired phone can list the others and revoke one. A
token is handed out only once its hash is on disk: when the file cannot be written (storage full) the press
admits nobody and the waiting phone is told so.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

WINDOW_S = 30.0
CONFLICT_SHOWN_S = 6.0   # how long the status LED warns that a press admitted nobody
ASKS_PER_ADDRESS = 3     # pair requests one address may make ...
ASK_PERIOD_S = 60.0      # ... in this many seconds
STALE_S = 5.0            # a request its phone has not polled for this long is dropped (the page polls 3x a second)
SAME_MOMENT_S = 6.0      # another live request this close before the newest: a press cannot tell which is the player's
MAX_WAITING = 16         # requests waiting at once (all addresses): beyond, "busy"
MAX_TOLD = 256           # finished requests remembered until their phone polls once
MAX_PAIRED = 64          # paired phones kept; the oldest is dropped beyond (a box is one table)
LABEL_MAX = 60


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _clean_label(text: str) -> str:
    """A short printable label (from a User-Agent header): it ends up on other players' pages."""
    text = "".join(c if c.isprintable() else " " for c in text)
    return " ".join(text.split())[:LABEL_MAX]


class PairingRefused(Exception):
    """A pair request the box will not take now: `code` for programs, `retry_after` seconds."""

    def __init__(self, code: str, retry_after: int) -> None:
        super().__init__(code)
        self.code = code  # "too_many_pair_requests" (this address) or "pairing_busy" (too many waiting)
        self.retry_after = retry_after


@dataclass
class _Waiting:
    asked: float
    address: str
    label: str
    seen: float = 0.0  # when its phone last polled (or asked): a page that stops polling is gone


class Pairing:
    """Pair requests, the approval window, and the paired phones (token hashes with a public id)."""

    def __init__(self, path: Path | None = None, *, window_s: float = WINDOW_S,
                 clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], datetime] = lambda: datetime.now(UTC),
                 asks_per_address: int = ASKS_PER_ADDRESS, ask_period_s: float = ASK_PERIOD_S,
                 max_waiting: int = MAX_WAITING, stale_s: float = STALE_S) -> None:
        self.path = path
        self.window_s = window_s
        self.stale_s = stale_s
        self.asks_per_address = asks_per_address
        self.ask_period_s = ask_period_s
        self.max_waiting = max_waiting
        self._clock = clock
        self._wall = wall
        self._lock = threading.Lock()
        self._requests: dict[str, _Waiting] = {}          # request id -> who asked, when
        self._granted: dict[str, str] = {}                # request id -> token (until collected)
        self._told: dict[str, str] = {}                   # request id -> "expired"/"conflict"/"storage_full"
        self._asks: dict[str, deque[float]] = {}          # address -> times of its recent requests
        self._conflict_until = -1.0
        self._storage_error = False
        self._phones: dict[str, dict] = {}                # token hash -> {"id", "label", "paired_at"}
        # seats whose phone was unpaired: (game id, player) -> that phone's id. Nobody else takes them
        # without a press on the box (issue 32 #3: unpair the holder, sit down, read their hidden dice)
        self._held: dict[tuple[int, str], str] = {}
        self._seat_claims: dict[str, tuple[float, int, str]] = {}  # token hash -> (asked, game id, player)
        if path is not None and path.exists():
            self._phones = _read_phones(path)
            self._held = _read_held(path)  # a restart frees no seat (a box is restarted by pulling its plug)

    # -- a phone asks -----------------------------------------------------------------------------
    def request(self, address: str = "", label: str = "") -> str:
        """A phone asks to pair: returns a request id it polls with `poll`, or PairingRefused."""
        with self._lock:
            now = self._clock()
            self._expire(now)
            asks = self._asks.setdefault(address, deque())
            while asks and now - asks[0] >= self.ask_period_s:
                asks.popleft()
            if len(asks) >= self.asks_per_address:
                raise PairingRefused("too_many_pair_requests", max(1, int(asks[0] + self.ask_period_s - now) + 1))
            if len(self._requests) >= self.max_waiting:
                oldest = min(w.asked for w in self._requests.values())
                raise PairingRefused("pairing_busy", max(1, int(oldest + self.window_s - now) + 1))
            asks.append(now)
            # One waiting request per address: asking again replaces it (a reload of the page).
            for request_id, waiting in list(self._requests.items()):
                if address and waiting.address == address:
                    del self._requests[request_id]
            request_id = secrets.token_urlsafe(12)
            self._requests[request_id] = _Waiting(now, address, _clean_label(label), now)
            return request_id

    # -- the Pair button --------------------------------------------------------------------------
    def approve(self) -> str:
        """The Pair button was pressed. Returns what happened: "none" (nobody waiting), "granted" (the
        newest waiting phone is admitted: the person at the box presses just after their own phone asked,
        and a request whose page stopped polling is gone within seconds, so a stranger's old request
        cannot jam the press), "conflict" (another phone asked at the same moment as the newest: nobody
        is) or "storage_full" (the token could not be kept: nobody is)."""
        with self._lock:
            now = self._clock()
            self._expire(now)
            seat = self._grant_seat_claim(now)
            if seat is not None:
                return seat
            if not self._requests:
                return "none"
            newest = max(self._requests, key=lambda rid: self._requests[rid].asked)
            close = [rid for rid, w in self._requests.items()
                     if self._requests[newest].asked - w.asked <= SAME_MOMENT_S]
            close = _fewest_asks(close, self._requests, self._asks)
            if len(close) > 1:
                for request_id in close:
                    self._told[request_id] = "conflict"
                    del self._requests[request_id]
                self._conflict_until = now + CONFLICT_SHOWN_S
                self._trim_told()
                return "conflict"
            request_id = close[0]
            waiting = self._requests[request_id]
            token = secrets.token_urlsafe(32)
            digest = _digest(token)
            phone = {"id": secrets.token_hex(4), "label": waiting.label, "address": waiting.address,
                     "paired_at": self._wall().isoformat(timespec="seconds"), "seat": None}
            self._phones[digest] = phone
            while len(self._phones) > MAX_PAIRED:
                del self._phones[next(iter(self._phones))]
            try:
                self._save()
            except OSError:
                # Not on disk means not granted: a token the box forgets at the next restart would look
                # like a working pairing until it silently stops working.
                del self._phones[digest]
                del self._requests[request_id]
                self._told[request_id] = "storage_full"
                self._storage_error = True
                self._trim_told()
                return "storage_full"
            self._storage_error = False
            del self._requests[request_id]
            self._granted[request_id] = token
            return "granted"

    def poll(self, request_id: str) -> tuple[str, str | None, float]:
        """What a phone waiting on `request_id` is told: ("granted", token, 0) once; ("waiting", None,
        seconds left); ("expired" | "conflict" | "storage_full", None, 0) once; then ("unknown", None, 0)."""
        with self._lock:
            now = self._clock()
            self._expire(now)
            if request_id in self._granted:
                return "granted", self._granted.pop(request_id), 0.0
            if request_id in self._requests:
                self._requests[request_id].seen = now  # its page is open: the request stays alive
                left = self._requests[request_id].asked + self.window_s - now
                return "waiting", None, round(max(0.0, left), 1)
            if request_id in self._told:
                return self._told.pop(request_id), None, 0.0
            return "unknown", None, 0.0

    # -- paired phones ----------------------------------------------------------------------------
    def check(self, token: str | None) -> bool:
        if not token:
            return False
        with self._lock:
            return _digest(token) in self._phones

    def phone_id(self, token: str | None) -> str | None:
        """The public id of the phone holding `token` (None when it is not paired)."""
        if not token:
            return None
        with self._lock:
            phone = self._phones.get(_digest(token))
            return phone["id"] if phone else None

    def phones(self) -> list[dict]:
        """Every paired phone, oldest first: id, label, address, paired_at (no token, no hash)."""
        with self._lock:
            return [dict(p) for p in self._phones.values()]

    # -- seats: which player a paired phone is, for one game (hidden information) ------------------------
    def seat(self, token: str | None, game_id: int | None) -> str | None:
        """The player id the phone holding `token` plays in game `game_id`, or None (watching, or bound
        in another game: a new game starts with every phone unbound)."""
        if not token:
            return None
        with self._lock:
            phone = self._phones.get(_digest(token))
            bound = (phone or {}).get("seat")
            return bound["player"] if bound and bound.get("game_id") == game_id else None

    def seats(self, game_id: int | None) -> dict[str, str]:
        """Phone id -> player id, for the phones bound to a seat in game `game_id`."""
        with self._lock:
            return {p["id"]: p["seat"]["player"] for p in self._phones.values()
                    if p.get("seat") and p["seat"].get("game_id") == game_id}

    def bind_seat(self, token: str, game_id: int, player: str | None) -> str:
        """Bind the phone holding `token` to `player` in game `game_id` (None: unbind). Returns "bound";
        "unpaired"; or "press" when another phone holds that seat, or held it until it was unpaired: a seat
        belongs to its phone, so taking it needs a press on the box's Pair button within the pairing window
        (the claim waits for it: `approve`), or the holder leaving it. OSError if the file cannot be
        rewritten (nothing changes then)."""
        with self._lock:
            digest = _digest(token)
            phone = self._phones.get(digest)
            if phone is None:
                return "unpaired"
            if player is not None and self._seat_holder(game_id, player) not in (None, phone["id"]):
                self._seat_claims[digest] = (self._clock(), game_id, player)
                return "press"
            self._bind(phone, game_id, player)
            return "bound"

    def _seat_holder(self, game_id: int, player: str) -> str | None:
        """The id of the phone that holds (or held, until it was unpaired) `player`'s seat in `game_id`."""
        for p in self._phones.values():
            if (p.get("seat") or {}).get("game_id") == game_id and p["seat"].get("player") == player:
                return p["id"]
        return self._held.get((game_id, player))

    def _bind(self, phone: dict, game_id: int, player: str | None) -> None:
        before = phone.get("seat")
        phone["seat"] = None if player is None else {"game_id": game_id, "player": player}
        try:
            self._save()
        except OSError:
            phone["seat"] = before
            raise

    def _grant_seat_claim(self, now: float) -> str | None:
        """A Pair press while exactly one paired phone claims a held seat gives it that seat ("seat"); two
        or more claims at once give nobody ("conflict"); None when nobody claims one."""
        for digest, (asked, _g, _p) in list(self._seat_claims.items()):
            if now - asked > self.window_s or digest not in self._phones:
                del self._seat_claims[digest]
        if not self._seat_claims:
            return None
        if len(self._seat_claims) > 1:
            self._seat_claims.clear()
            self._conflict_until = now + CONFLICT_SHOWN_S
            return "conflict"
        digest, (_asked, game_id, player) = self._seat_claims.popitem()
        for p in self._phones.values():
            if (p.get("seat") or {}).get("game_id") == game_id and p["seat"].get("player") == player:
                p["seat"] = None
        self._held.pop((game_id, player), None)
        self._bind(self._phones[digest], game_id, player)
        return "seat"

    def revoke(self, phone_id: str) -> bool:
        """Unpair one phone by its public id; False when there is no such phone. OSError if the file
        cannot be rewritten (the phone then stays paired: the file and the memory agree)."""
        with self._lock:
            for digest, phone in list(self._phones.items()):
                if phone["id"] == phone_id:
                    seat = phone.get("seat")
                    if seat:  # the seat stays its phone's: only the box gives it to another
                        self._held[(seat["game_id"], seat["player"])] = phone_id
                    del self._phones[digest]
                    try:
                        self._save()
                    except OSError:
                        self._phones[digest] = phone
                        raise
                    return True
            return False

    def revoke_all(self) -> None:
        with self._lock:
            kept = dict(self._phones)
            self._phones.clear()
            self._granted.clear()
            self._requests.clear()
            try:
                self._save()
            except OSError:
                self._phones = kept
                raise

    def status(self) -> dict:
        """For the snapshot: is a window open (the status LED blinks) and for how long still; did the last
        press admit nobody because several phones asked (`conflict`); could the last token not be kept."""
        with self._lock:
            now = self._clock()
            self._expire(now)
            conflict = now < self._conflict_until
            claims = [asked for asked, _g, _p in self._seat_claims.values() if now - asked <= self.window_s]
            if claims and not self._requests:  # a seat waits for the press: the status LED says so
                return {"open": True, "expires_in": round(max(claims) + self.window_s - now, 1), "waiting": 0,
                        "seat_claims": len(claims), "conflict": conflict, "storage_full": self._storage_error}
            if not self._requests:
                return {"open": False, "expires_in": 0.0, "waiting": 0, "conflict": conflict,
                        "storage_full": self._storage_error}
            newest = max(w.asked for w in self._requests.values())
            return {"open": True, "expires_in": round(newest + self.window_s - now, 1),
                    "waiting": len(self._requests), "conflict": conflict, "storage_full": self._storage_error}

    def status_changes_in(self) -> float | None:
        """Seconds until `status()` changes by itself (a window closes, a warning ends); None if never."""
        with self._lock:
            now = self._clock()
            ends = [min(w.asked + self.window_s, w.seen + self.stale_s) for w in self._requests.values()]
            if self._conflict_until > now:
                ends.append(self._conflict_until)
            return max(0.0, max(ends) - now) if ends else None

    # -- inside -----------------------------------------------------------------------------------
    def _expire(self, now: float) -> None:
        for request_id, waiting in list(self._requests.items()):
            if now - waiting.asked > self.window_s or now - waiting.seen > self.stale_s:
                del self._requests[request_id]
                self._told[request_id] = "expired"
        for address, asks in list(self._asks.items()):
            if not asks or now - asks[-1] >= self.ask_period_s:
                del self._asks[address]
        self._trim_told()

    def _trim_told(self) -> None:
        while len(self._told) > MAX_TOLD:  # phones that never came back to ask
            del self._told[next(iter(self._told))]

    def _save(self) -> None:
        if self.path is None:
            return
        tmp = self.path.with_suffix(".tmp")
        rows = [{"hash": digest, **phone} for digest, phone in self._phones.items()]
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                held = [[game_id, player, pid] for (game_id, player), pid in self._held.items()]
                json.dump({"version": 2, "phones": rows, "held": held}, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except OSError:
            tmp.unlink(missing_ok=True)
            raise


def _read_seat(value: object) -> dict | None:
    """A phone's seat as saved ({"game_id": int, "player": str}), or None for anything else."""
    if isinstance(value, dict) and isinstance(value.get("game_id"), int) and isinstance(value.get("player"), str):
        return {"game_id": value["game_id"], "player": value["player"]}
    return None


def _fewest_asks(close: list[str], requests: dict[str, _Waiting], asks: dict[str, deque[float]]) -> list[str]:
    """Of requests asked at about the same moment, those whose address asked least often lately: a phone
    asks once and is paired, a stranger keeping requests waiting asks again and again (issue 32 #4). Ties
    stay ambiguous (a conflict)."""
    counts = {rid: len(asks.get(requests[rid].address, ())) for rid in close}
    fewest = min(counts.values(), default=0)
    return [rid for rid in close if counts[rid] == fewest]


def _read_held(path: Path) -> dict[tuple[int, str], str]:
    """Seats whose phone was unpaired ((game id, player) -> that phone's id); anything unreadable: none."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8")).get("held", [])
        return {(int(g), str(p)): str(pid) for g, p, pid in rows}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _read_phones(path: Path) -> dict[str, dict]:
    """The paired phones in the token file; a damaged file only means phones pair again. Version 1 files
    (a bare list of hashes) are read too: their phones get an id and an empty label."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data.get("tokens"), list):
            return {str(h): {"id": str(h)[:8], "label": "", "address": "", "paired_at": ""}
                    for h in data["tokens"]}
        phones = {}
        for row in data["phones"]:
            phones[str(row["hash"])] = {"id": str(row["id"]), "label": str(row.get("label", "")),
                                        "address": str(row.get("address", "")),
                                        "paired_at": str(row.get("paired_at", "")),
                                        "seat": _read_seat(row.get("seat"))}
        return phones
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}
