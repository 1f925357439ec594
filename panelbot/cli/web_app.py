"""The textual-serve server behind ``panelbot web``, with the guards a page that drives a local app needs.

- Host: bound to loopback, only a loopback ``Host`` header is served (a DNS-rebinding page gets 403).
- Origin: the websocket that types into the app must come from this page's own origin (a cross-site page
  that opens ``ws://127.0.0.1:PORT/ws`` gets 403: browsers do not apply CORS to websockets).
- Key: with ``$PANELBOT_SERVE_KEY`` set, ``/?key=KEY`` once sets an HttpOnly, SameSite=Strict cookie and
  redirects to ``/`` (the key leaves the address bar); every request then needs that cookie or
  ``Authorization: Bearer KEY``.
- Headers: a Content-Security-Policy of this origin only (no third-party font or script), no framing, no
  referrer, no caching of the page.

Imports textual-serve (aiohttp) at module level: only ``panelbot web``'s handler imports this module.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import shlex
import sys
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from aiohttp import web
from textual_serve.server import Server

from panelbot.serve.binding import bearer_matches, host_name, is_loopback

COOKIE = "panelbot_web"
_PLAIN_HOST = re.compile(r"[A-Za-z0-9.\-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def _session_token(key: str) -> str:
    """The cookie's value: derived from the key (the key itself is never stored in the browser)."""
    return hmac.new(key.encode(), b"panelbot web session", hashlib.sha256).hexdigest()


def _same_origin(request: web.Request, public_url: str | None) -> bool:
    """Whether the websocket's ``Origin`` is the page's own (``Host``, or the ``--public-url`` a reverse
    proxy serves it at); no Origin (not a browser) passes."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    own = {request.host.lower()}
    if public_url:
        own.add(urlsplit(public_url).netloc.lower())
    return urlsplit(origin).netloc.lower() in own


class PanelServer(Server):
    """textual-serve's server running ``command`` per browser tab, behind the guards above."""

    def __init__(
        self,
        command: list[str],
        *,
        host: str,
        port: int,
        key: str = "",
        public_url: str | None = None,
        log_level: str = "warning",
    ) -> None:
        super().__init__(shlex.join(command), host=host, port=port, title="panelbot")
        self.key = key
        self.fixed_public_url = public_url
        self.loopback_only = is_loopback(host)
        self.log_level = log_level

    def initialize_logging(self) -> None:
        # plain lines on stderr (textual-serve's Rich handler prints tracebacks with their local variables)
        logging.basicConfig(
            level=self.log_level.upper(), format="panelbot web: %(message)s", stream=sys.stderr
        )

    async def on_startup(self, app: web.Application) -> None:
        """textual-serve prints a banner here; ``panelbot web`` has already said where it serves."""

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(self._guard)
        return app

    def _authorised(self, request: web.Request) -> bool:
        if not self.key:
            return True
        cookie = request.cookies.get(COOKIE, "")
        if cookie and hmac.compare_digest(cookie.encode(), _session_token(self.key).encode()):
            return True
        return bearer_matches(request.headers.get("Authorization", ""), self.key)

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if self.loopback_only and not is_loopback(host_name(request.host)):
            raise web.HTTPForbidden(text="panelbot web: this server answers only on 127.0.0.1\n")
        if request.path == "/ws" and not _same_origin(request, self.fixed_public_url):
            raise web.HTTPForbidden(text="panelbot web: the app's socket is for its own page\n")
        given = request.query.get("key")
        if self.key and given is not None and request.path == "/":
            if not hmac.compare_digest(given.encode(), self.key.encode()):
                raise web.HTTPUnauthorized(text="panelbot web: that key is not this server's\n")
            found = web.HTTPSeeOther("/")
            found.set_cookie(
                COOKIE,
                _session_token(self.key),
                httponly=True,
                samesite="Strict",
                secure=(self.fixed_public_url or "").startswith("https:") or None,
            )
            raise found
        if not self._authorised(request):
            raise web.HTTPUnauthorized(
                text="panelbot web: this server needs its key: open /?key=<PANELBOT_SERVE_KEY>\n"
            )
        response = await handler(request)
        if not response.prepared:
            response.headers.update(SECURITY_HEADERS)
            if request.path == "/":
                response.headers["Cache-Control"] = "no-store"
        return response

    async def handle_index(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        # the page's own address (so a browser on another machine reaches the socket), unless given;
        # set and read with no await between, so two tabs loading at once each get their own
        if self.fixed_public_url is None and not _PLAIN_HOST.fullmatch(request.host):
            raise web.HTTPBadRequest(text="panelbot web: the Host header is not an address\n")
        self.public_url = self.fixed_public_url or f"{request.scheme}://{request.host}"
        return await super().handle_index(request)
