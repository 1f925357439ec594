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


def server_key(environ: dict[str, str] | None = None) -> str:
    """The key clients must send (``$PANELBOT_SERVE_KEY`` without surrounding whitespace), "" when unset.
    UsageError when it is set but holds only whitespace, or a character no client can send in a header."""
    import os

    from panelbot.errors import UsageError

    raw = (os.environ if environ is None else environ).get(KEY_ENV)
    if raw is None or raw == "":
        return ""
    key = raw.strip()
    if not key:
        raise UsageError(
            f"{KEY_ENV} holds only whitespace; set it to a key (e.g. the output of "
            "'openssl rand -hex 16') or unset it"
        )
    if not all(33 <= ord(c) < 127 for c in key):
        raise UsageError(
            f"{KEY_ENV} holds a space, a control character or a non-ASCII character, which a "
            "client cannot send in an Authorization header; use letters, digits and punctuation"
        )
    return key


def port_problem(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be bound (in use, not allowed, not this machine's address), or None."""
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError):
        return f"cannot bind {host}: not an address or host name of this machine"
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            sock.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"port {port} is in use; pick another with --port"
            if exc.errno == errno.EACCES:
                return (
                    f"port {port} needs more privileges than this user has; pick one above 1023 "
                    "with --port"
                )
            if exc.errno == errno.EADDRNOTAVAIL:
                return f"cannot bind {host}: it is not an address of this machine"
            return f"cannot bind {host} port {port}: {exc.strerror or exc}"
    return None
