"""Join codes: the QR codes that let a phone join the box's Wi-Fi and open its page in one scan each.

Shared by the page ("Show join code", `GET /join.svg`) and `dicesight qr` (device.joincard), so the card
and the page can never disagree on what a code says. The codes are drawn by segno (a maintained QR
encoder), never by hand; this module only decides what goes into them.

The Wi-Fi code is the de-facto `WIFI:` format every phone camera reads (ZXing's, adopted by Android and
iOS): `WIFI:T:WPA;S:<ssid>;P:<password>;;`, with `\\`, `;`, `,`, `:` and `"` escaped by a backslash. segno's
own helper leaves the comma unescaped, which some readers then split on, so the string is built here.
"""

from __future__ import annotations

import io
import ipaddress
from dataclasses import dataclass

import segno

from .guard import split_host

# The characters the WIFI: format reserves; each is written with a backslash before it.
WIFI_SPECIAL = '\\;,:"'
# M (15% of the code may be lost) survives a crease or a glare on a printed card and keeps codes small.
ERROR_LEVEL = "m"


@dataclass(frozen=True)
class JoinInfo:
    """What the box tells phones about joining: its page address (None: only the Host a phone used is
    known) and, only when the config lets the page show it, its hotspot's name and password."""

    url: str | None = None
    ssid: str | None = None
    password: str | None = None

    @property
    def wifi(self) -> str | None:
        """The Wi-Fi code's text, or None when the page must not show the hotspot."""
        return wifi_payload(self.ssid, self.password) if self.ssid and self.password else None


def escape_wifi(text: str) -> str:
    """`text` with the WIFI: format's reserved characters backslash-escaped, so a `;` in a name or password
    cannot end the field early (a phone would join the wrong network, or with the wrong password)."""
    return "".join("\\" + c if c in WIFI_SPECIAL else c for c in text)


def wifi_payload(ssid: str, password: str) -> str:
    """The text of a Wi-Fi QR code for a WPA/WPA2 network: a phone's camera offers to join it."""
    return f"WIFI:T:WPA;S:{escape_wifi(ssid)};P:{escape_wifi(password)};;"


def page_url(host: str, port: int) -> str:
    """`http://host:port/` as a phone types it: IPv6 in brackets, no `:80`."""
    try:
        if ipaddress.ip_address(host).version == 6:
            host = f"[{host}]"
    except ValueError:
        pass
    return f"http://{host}/" if port == 80 else f"http://{host}:{port}/"


def url_for_phones(host_header: str | None, configured: str | None) -> str | None:
    """The page address to show the next phone, from the `Host` the showing phone used.

    That phone reached the box by this address from the network the next phone is on, so it is the one
    most likely to work; but a name (`dicesight.local`) may not resolve on every phone (mDNS is patchy on
    older Android), and a loopback address is the box itself. So: the Host when it is a non-loopback IP
    address, else the box's own address (the one `dicesight qr` prints), else the Host as it came."""
    host = (host_header or "").strip()
    name = split_host(host)[0]
    try:
        if not ipaddress.ip_address(name).is_loopback:
            return f"http://{host}/"
    except ValueError:
        pass
    if configured:
        return configured
    return f"http://{host}/" if host else None


def make(data: str) -> segno.QRCode:
    """A full-size QR code for `data` (never a Micro QR: phone cameras do not read those)."""
    return segno.make(data, error=ERROR_LEVEL, micro=False)


def svg(data: str, title: str = "", scale: int = 8) -> str:
    """A standalone SVG picture of the code: black modules on an opaque white square with the quiet zone
    (a dark page theme must not make it a dark-on-dark code no camera reads), with a viewBox and no fixed
    size, so the page draws it sharp at whatever size fits the phone."""
    out = io.BytesIO()
    make(data).save(out, kind="svg", scale=scale, border=4, dark="#000", light="#fff", title=title or None,
                    xmldecl=False, nl=False, omitsize=True)
    return out.getvalue().decode("utf-8")
