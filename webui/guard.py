"""Which requests reach the box at all: the `Host` it was asked by, and the `Origin` of every write.

DNS rebinding: a page on some web site makes its own name resolve to the box's address and then talks to
the box from the player's browser as if it were that site. The browser then sends the site's name in
`Host`, so the box answers only requests whose `Host` is one of its own names (its hostname, that name
under .local, localhost, and any `web.names` from the config) or an IP address literal. An IP literal
is safe: a browser that sends `Host: 192.168.1.20` is on a page whose origin is that address, which is
the box itself; no other site can make a browser send it.

Writes (POST, PUT, PATCH, DELETE) must also come from the box's own page: when a browser says where the
request comes from (`Origin`, or `Sec-Fetch-Site: cross-site`), it must be this box, the same host and
port the request was sent to. Scripts that send no `Origin` are not browsers on a foreign page, and they
still need the pairing cookie and the CSRF header like the page.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def own_names(extra: Iterable[str] = ()) -> frozenset[str]:
    """The names this box answers to: localhost, its hostname (bare, fully qualified and .local), extras."""
    names = {"localhost", "localhost.localdomain"}
    for name in (socket.gethostname(), socket.getfqdn()):
        name = (name or "").lower().rstrip(".")
        if name:
            names.add(name)
            names.add(name.split(".", 1)[0] + ".local")
            names.add(name.split(".", 1)[0])
    names.update(n.lower().rstrip(".") for n in extra if n)
    return frozenset(names)


def split_host(value: str) -> tuple[str, str]:
    """("host", "port") of a Host header value ("[::1]:8080" -> ("::1", "8080")); port may be ""."""
    value = value.strip()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return "", ""
        host, rest = value[1:end], value[end + 1:]
        return host, rest[1:] if rest.startswith(":") else ""
    if value.count(":") == 1:
        host, port = value.split(":")
        return host, port
    return value, ""


def is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0])  # a scoped IPv6 literal (fe80::1%wlan0) is one too
        return True
    except ValueError:
        return False


def host_allowed(value: str | None, names: frozenset[str]) -> bool:
    """Is this `Host` header one of the box's own (see the module doc)?"""
    if not value:
        return False
    host, port = split_host(value)
    if port and not port.isdigit():
        return False
    host = host.lower().rstrip(".")
    return bool(host) and (is_ip(host) or host in names)


def origin_allowed(origin: str | None, fetch_site: str | None, host_header: str | None) -> bool:
    """May a write with these headers go on? Same origin as the Host it was sent to, or no browser origin."""
    if fetch_site and fetch_site.lower() == "cross-site":
        return False
    if origin is None:
        return True
    if origin == "null":  # sandboxed frames, file:// pages, redirects across origins
        return False
    try:
        parts = urlsplit(origin)
        origin_host = (parts.hostname or "").lower().rstrip(".")
        origin_port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return False
    host, port = split_host(host_header or "")
    host = host.lower().rstrip(".")
    try:
        sent_port = int(port) if port else {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and origin_host == host and origin_port == sent_port
