"""`dicesight qr`: the join card. One scan joins the box's Wi-Fi (where it runs its own hotspot), the next
opens its page: printed on the terminal, or as a picture (PNG or SVG) to print and leave on the table.

Why a card: at a game night nobody wants to type `http://10.42.0.1:8080` or a Wi-Fi password on six phones,
and where there is no Wi-Fi at all the box's own hotspot is the only network. The codes' texts come from
webui.joincode (the page's "Show join code" says the same); segno draws them.

Which address goes on the card (`join_host`): the address the config binds the page to, if it is one
address; else the hotspot's fixed address when the box runs one (phones that joined it reach the box
there); else this machine's LAN address; else `<hostname>.local`. `--address` overrides it.
"""

from __future__ import annotations

import html
import ipaddress
import os
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from webui import joincode

from .config import Config, ConfigError, load_config

Emit = Callable[[dict[str, Any]], None]
BOX_CONFIG = Path("/etc/dicesight/config.toml")  # where scripts/install-pi.sh puts the box's config
QUIET_ZONE = 4  # modules of white around a code: what the QR standard asks, and what cameras need
MODULE_PX = 10  # pixels per module in the PNG card: about 1 mm at 254 dpi, easy to scan from a table
UPPER, LOWER, BOTH = "\u2580", "\u2584", "\u2588"  # half and full blocks: two module rows per text line


@dataclass(frozen=True)
class Card:
    """What a join card says: the page's address, and the hotspot to join first (if the box runs one)."""

    url: str
    ssid: str | None = None
    password: str | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def wifi(self) -> str | None:
        return joincode.wifi_payload(self.ssid, self.password) if self.ssid and self.password else None

    def steps(self) -> list[tuple[str, list[str], str]]:
        """(title, caption lines, QR text) per code, in the order a phone scans them."""
        steps = []
        if self.wifi:
            steps.append(("1. Join the Wi-Fi", [f"Wi-Fi: {self.ssid}", f"Password: {self.password}"], self.wifi))
        title = "2. Open the page" if self.wifi else "Open the page"
        steps.append((title, [self.url], self.url))
        return steps


# -- which address ----------------------------------------------------------------------------------
def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, best first: the one its default route leaves
    from, then those its hostname resolves to. (On Debian the hostname usually resolves to 127.0.1.1 only,
    so the route is asked too; connecting a UDP socket sends nothing.)"""
    found: list[str] = []
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.254.254.254", 9))
            found.append(str(s.getsockname()[0]))
    except OSError:
        pass  # no route at all: a box on its own hotspot only, or no network
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    except OSError:
        pass
    return [a for i, a in enumerate(found) if not a.startswith(("127.", "0.")) and a not in found[:i]]


def join_host(config: Config, addresses: list[str], hostname: str) -> tuple[str, list[str]]:
    """The host phones should open (see the module doc), and warnings for a card that cannot work."""
    host = config.web.host
    if host not in ("0.0.0.0", "::", ""):
        if _is_loopback(host):
            return host, [f"web.host is {host}: the page is served to this machine only, phones cannot open it"]
        return host, []
    if config.hotspot.enabled:
        return config.hotspot.address, []
    if addresses:
        return addresses[0], []
    name = hostname.split(".", 1)[0] or "dicesight"
    return f"{name}.local", [f"no network address found: the card says {name}.local, which some phones "
                             "cannot open (give --address)"]


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host.lower() in ("localhost", "localhost.localdomain")


def make_card(config: Config, *, address: str | None = None, port: int | None = None,
              addresses: list[str] | None = None, hostname: str | None = None) -> Card:
    """The card for this config; `address`/`port` override the page's host and port (ConfigError when the
    port cannot be known)."""
    port = config.web.port if port is None else port
    if port == 0:
        raise ConfigError("web.port", "the box picks a free port at each start (0): say which with --port")
    if not 0 < port <= 65535:
        raise ConfigError("--port", f"must be between 1 and 65535, not {port}")
    warnings: list[str] = []
    if address is None:
        found = lan_addresses() if addresses is None else addresses
        address, warnings = join_host(config, found, hostname or socket.gethostname())
    hotspot = config.hotspot
    return Card(url=joincode.page_url(address, port), ssid=hotspot.ssid or None,
                password=hotspot.password or None, warnings=warnings)


# -- the terminal ----------------------------------------------------------------------------------
def modules(data: str) -> np.ndarray:
    """The code's modules (True = dark) with its quiet zone, as segno encodes them."""
    grid = np.array([list(row) for row in joincode.make(data).matrix], dtype=bool)
    return np.pad(grid, QUIET_ZONE, constant_values=False)


def terminal_qr(data: str, ansi: bool) -> str:
    """The code drawn with half-block characters, two module rows per line. With `ansi`, black on white
    whatever the terminal's colours (a light-on-dark terminal would otherwise show it inverted, which many
    phone cameras do not read); without, the block characters are the dark modules (paper, a log file)."""
    grid = modules(data)
    if len(grid) % 2:
        grid = np.vstack([grid, np.zeros((1, grid.shape[1]), dtype=bool)])
    chars = {(False, False): " ", (True, False): UPPER, (False, True): LOWER, (True, True): BOTH}
    lines = ["".join(chars[bool(t), bool(b)] for t, b in zip(top, bottom, strict=True))
             for top, bottom in zip(grid[0::2], grid[1::2], strict=True)]
    if ansi:
        lines = [f"\x1b[30;107m{line}\x1b[0m" for line in lines]
    return "\n".join(lines)


def wants_ansi() -> bool:
    """Colours only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def human(record: dict[str, Any]) -> str:
    """The card as terminal text: each step's title, its code and its caption."""
    card = Card(url=record["url"], ssid=(record.get("wifi") or {}).get("ssid"),
                password=(record.get("wifi") or {}).get("password"))
    ansi = wants_ansi()
    parts = [f"Saved the join card to {record['out']}:"] if record.get("out") else []
    for title, caption, data in card.steps():
        drawn = [] if record.get("out") else [terminal_qr(data, ansi)]
        parts += [title, *drawn, *[f"  {line}" for line in caption], ""]
    parts += [f"warning: {w}" for w in record.get("warnings", [])]
    return "\n".join(parts).rstrip("\n")


# -- pictures to print -----------------------------------------------------------------------------
def card_svg(card: Card) -> str:
    """The card as an SVG document (any size prints sharp; text in any script, the SSID's included)."""
    steps = card.steps()
    side = max(len(modules(data)) for _, _, data in steps) * MODULE_PX
    col, top = side + 40, 60
    height = top + side + 80
    body = []
    for i, (title, caption, data) in enumerate(steps):
        x = i * col + 20
        body.append(f'<text x="{x + side / 2}" y="40" font-size="26" font-weight="bold" '
                    f'text-anchor="middle">{html.escape(title)}</text>')
        qr = joincode.svg(data, title=caption[0])
        body.append(qr.replace("<svg ", f'<svg x="{x}" y="{top}" width="{side}" height="{side}" ', 1))
        for j, line in enumerate(caption):
            body.append(f'<text x="{x + side / 2}" y="{top + side + 30 + 28 * j}" font-size="20" '
                        f'text-anchor="middle">{html.escape(line)}</text>')
    width = col * len(steps)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif">'
            f'<rect width="100%" height="100%" fill="#fff"/>{"".join(body)}</svg>\n')


def card_png(card: Card) -> tuple[bytes, list[str]]:
    """The card as a PNG, and warnings. OpenCV draws the captions with its own fonts, which know ASCII
    only: other letters become "?", and the SVG card is the one to print for such a Wi-Fi name."""
    import cv2  # only this picture needs OpenCV; the rest of the card is numpy and segno

    steps = card.steps()
    side = max(len(modules(data)) for _, _, data in steps) * MODULE_PX
    col, top = side + 40, 60
    page = np.full((top + side + 80, col * len(steps)), 255, dtype=np.uint8)
    lossy = False
    for i, (title, caption, data) in enumerate(steps):
        x = i * col + 20
        qr = np.where(modules(data), 0, 255).astype(np.uint8).repeat(MODULE_PX, 0).repeat(MODULE_PX, 1)
        off = (side - len(qr)) // 2
        page[top + off:top + off + len(qr), x + off:x + off + len(qr)] = qr
        lossy |= _put_centred(cv2, page, title, x + side // 2, 40, 0.9, 2)
        for j, line in enumerate(caption):
            lossy |= _put_centred(cv2, page, line, x + side // 2, top + side + 30 + 28 * j, 0.65, 1)
    ok, encoded = cv2.imencode(".png", page)
    if not ok:
        raise OSError("OpenCV could not encode the PNG")
    warnings = ["the PNG card writes non-ASCII letters as ?: save it as .svg to print them"] if lossy else []
    return encoded.tobytes(), warnings


def _put_centred(cv2: Any, page: np.ndarray, text: str, cx: int, y: int, scale: float, thick: int) -> bool:
    """Draw `text` centred on `cx` (black, anti-aliased); True when a letter had to become "?"."""
    shown = text.encode("ascii", "replace").decode("ascii")
    (w, _h), _ = cv2.getTextSize(shown, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    cv2.putText(page, shown, (cx - w // 2, y), cv2.FONT_HERSHEY_SIMPLEX, scale, 0, thick, cv2.LINE_AA)
    return shown != text


def save(card: Card, out: Path) -> list[str]:
    """Write the card to `out` (.png or .svg) through a temporary file; its warnings."""
    suffix = out.suffix.lower()
    if suffix == ".svg":
        data, warnings = card_svg(card).encode("utf-8"), []
    else:
        data, warnings = card_png(card)
    tmp = out.with_name(f".{out.name}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, out)
    return warnings


# -- the command -----------------------------------------------------------------------------------
def run(config_path: Path | None, out: Path | None, address: str | None, port: int | None, emit: Emit) -> int:
    """`dicesight qr`: print the card (or save it as a picture); 2 on a bad config or output file."""
    if out is not None and out.suffix.lower() not in (".png", ".svg"):
        emit({"error": {"code": "bad_out", "message": f"{out}: the card is saved as .png or .svg"}})
        return 2
    if config_path is None and BOX_CONFIG.is_file():
        config_path = BOX_CONFIG  # on an installed box, its own config (docs/install-pi.md)
    try:
        card = make_card(load_config(config_path), address=address, port=port)
    except ConfigError as err:
        emit({"error": {"code": "bad_config", "message": str(err)}})
        return 2
    warnings = list(card.warnings)
    if out is not None:
        try:
            warnings += save(card, out)
        except OSError as err:
            emit({"error": {"code": "cannot_write", "message": f"Cannot write {out}: {err}"}})
            return 2
    wifi = {"ssid": card.ssid, "password": card.password, "code": card.wifi} if card.wifi else None
    emit({"event": "join", "url": card.url, "wifi": wifi, "out": str(out) if out else None, "warnings": warnings})
    return 0
