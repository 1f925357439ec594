"""``panelbot web``: the terminal app in a browser tab, served by textual-serve (one app process per tab).

Cheap to import: textual-serve (aiohttp) loads only in the handler, from :mod:`panelbot.cli.web_app`. Binds
127.0.0.1 by default; any other address needs ``$PANELBOT_SERVE_KEY``, as ``panelbot serve`` does.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from panelbot.cli.common import EXIT_OK, load_config_and_panel
from panelbot.cli.serve import _check_bind, _check_port, add_bind_options, add_log_level
from panelbot.errors import UsageError
from panelbot.serve.binding import KEY_ENV

DEFAULT_PORT = 8080


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    web = sub.add_parser(
        "web",
        parents=[common],
        help="the terminal app in a browser tab (served on 127.0.0.1)",
        description="Serve the terminal app to a web browser (textual-serve): each tab that opens the "
        "page gets its own app, with the same history. Binds 127.0.0.1; any other address needs "
        f"${KEY_ENV}, and the page is then opened once as http://HOST:PORT/?key=KEY.",
    )
    add_bind_options(web, DEFAULT_PORT)
    web.add_argument(
        "--public-url",
        metavar="URL",
        help="the address browsers reach the page at, behind a reverse proxy "
        "(e.g. https://panel.example.org); default: the address the browser used",
    )
    add_log_level(web, "its key")
    web.set_defaults(handler=cmd_web)


def _public_url(value: str | None) -> str | None:
    if value is None:
        return None
    from urllib.parse import urlsplit

    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"--public-url: expected an http:// or https:// address, got {value!r}")
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def _app_command(args: argparse.Namespace) -> list[str]:
    """The command each browser tab runs: this interpreter's ``panelbot`` with the same panel and config."""
    import sys
    from pathlib import Path

    command = [sys.executable, "-m", "panelbot"]
    if getattr(args, "panel", None):
        panel = args.panel
        command += ["--panel", str(Path(panel).resolve()) if Path(panel).exists() else panel]
    if getattr(args, "config", None):
        command += ["--config", str(Path(args.config).resolve())]
    return command


def cmd_web(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import importlib.util

    if importlib.util.find_spec("textual_serve") is None:
        raise UsageError("this command needs textual-serve: pip install textual-serve")
    key = _check_bind(args.host, "the browser then opens http://HOST:PORT/?key=<key> once")
    public_url = _public_url(args.public_url)
    host = args.host.strip("[]")
    _check_port(host, args.port)
    load_config_and_panel(args)  # a bad panel or config fails here, in one line, not in every tab

    from panelbot.cli.web_app import PanelServer

    server = PanelServer(
        _app_command(args),
        host=host,
        port=args.port,
        key=key,
        public_url=public_url,
        log_level=args.log_level,
    )
    shown = f"[{host}]" if ":" in host else host
    page = public_url or f"http://{shown}:{args.port}"
    err.write(
        f"panelbot web: {page}/{'?key=$' + KEY_ENV if key else ''}  (the terminal app, one per "
        f"browser tab; {'key required' if key else 'no key'}; Ctrl+C stops)\n"
    )
    err.flush()
    server.serve()
    return EXIT_OK
