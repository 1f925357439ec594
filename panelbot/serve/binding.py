"""Which addresses count as this machine's own (loopback): the rule for binding without a key and for the Host
headers a loopback-bound server accepts. Cheap to import (no server stack)."""

from __future__ import annotations

import ipaddress

KEY_ENV = "PANELBOT_SERVE_KEY"


def is_loopback(host: str) -> bool:
    """'127.0.0.1', '::1', '[::1]', 'localhost' (any 127.x too) -> True."""
    h = host.strip().strip("[]").lower()
    if h == "localhost":
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The name part of a Host header: 'localhost:8000' -> 'localhost', '[::1]:8000' -> '::1'."""
    header = header.strip()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def bearer_matches(authorization: str, key: str) -> bool:
    """Whether an ``Authorization: Bearer <key>`` header carries ``key`` (compared in constant time)."""
    import hmac

    scheme, _, given = authorization.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), key.encode())
