"""``panelbot serve`` (an OpenAI-compatible HTTP API) and ``panelbot mcp`` (a Model Context Protocol server).

Both need the ``serve`` extra (Starlette, uvicorn, the MCP SDK), which only ``panelbot.serve`` imports, inside
the handlers here: ``ask``, ``quote`` and ``--help`` never load it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TextIO

from panelbot.cli.common import EXIT_OK
from panelbot.errors import UsageError
from panelbot.serve.binding import KEY_ENV, is_loopback, port_problem, server_key


def _bounded(lo: int, hi: int, what: str) -> Callable[[str], int]:
    """An argparse type: a whole number from ``lo`` to ``hi`` ("expected a port number from 1 to 65535")."""

    def parse(value: str) -> int:
        try:
            n = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected {what} from {lo} to {hi}, got {value!r}"
            ) from None
        if not lo <= n <= hi:
            raise argparse.ArgumentTypeError(f"expected {what} from {lo} to {hi}, got {n}")
        return n

    return parse


# the MCP clients `mcp --config-snippet` knows (panelbot.cli.mcp_config.CLIENTS, not imported for --help)
MCP_CLIENTS = (
    "claude-desktop",
    "cursor",
    "windsurf",
    "gemini",
    "mcp-cli",
    "vscode",
    "claude-code",
    "codex",
    "inspector",
)
_port = _bounded(1, 65535, "a port number")
_workers = _bounded(1, 64, "a whole number")
_max_body = _bounded(1024, 100_000_000, "a number of bytes")


def add_bind_options(parser: argparse.ArgumentParser, port: int) -> None:
    """``--host`` (default 127.0.0.1) and ``--port`` (default ``port``) of a command that serves."""
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=_port, default=port, help=f"port (default {port})")


def add_log_level(parser: argparse.ArgumentParser, never: str) -> None:
    """``--log-level`` of a server; ``never`` says what its request log leaves out."""
    parser.add_argument(
        "--log-level",
        default="warning",
        choices=["critical", "error", "warning", "info", "debug"],
        help=f"server log level; 'info' logs each request (never {never})",
    )


def add_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    serve = sub.add_parser(
        "serve",
        parents=[common],
        help="serve the panel as an OpenAI-compatible API",
        description="Serve the panel as an OpenAI-compatible API: GET /v1/models, POST /v1/chat/completions, "
        "POST /v1/responses (follow-ups by previous_response_id). "
        "Models: one per panelist, 'panel' (auto) and 'both'. Offline quotes unless a backend is configured. "
        f"Binds 127.0.0.1; any other address needs ${KEY_ENV} (clients send it as the API key).",
    )
    add_bind_options(serve, 8000)
    serve.add_argument("--workers", type=_workers, default=1, help="worker processes (default 1)")
    serve.add_argument(
        "--backend", metavar="NAME", help="answer backend: offline (default), openai or a plugin"
    )
    serve.add_argument(
        "--base-url", metavar="URL", help="upstream OpenAI-compatible base URL (implies openai)"
    )
    serve.add_argument("--model", metavar="NAME", help="upstream model name (implies openai)")
    serve.add_argument(
        "--max-body",
        type=_max_body,
        metavar="BYTES",
        help="largest request body accepted (default: serve.max_body of the config, 1000000; "
        "larger gets 413)",
    )
    serve.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="let a browser app on ORIGIN (e.g. http://localhost:3000, or '*') call the API "
        "(CORS); repeatable; none by default",
    )
    add_log_level(serve, "its headers or key")
    serve.set_defaults(handler=cmd_serve)

    mcp = sub.add_parser(
        "mcp",
        parents=[common],
        help="serve the panel to MCP clients (stdio, or --http PORT)",
        description="A Model Context Protocol server: tools ask_panel, search_quotes, get_quote, list_panels; "
        "panelist and quote resources; one prompt per panelist. Speaks stdio unless --http is given.",
    )
    mcp.add_argument(
        "--http", type=_port, metavar="PORT", help="streamable HTTP on this port (path /mcp)"
    )
    mcp.add_argument(
        "--host",
        default="127.0.0.1",
        help=f"address for --http (default 127.0.0.1; others need ${KEY_ENV})",
    )
    mcp.add_argument(
        "--config-snippet",
        nargs="?",
        const="all",
        choices=["all", *MCP_CLIENTS],
        metavar="CLIENT",
        help="print the set-up to paste into an MCP client and exit: "
        f"{', '.join(MCP_CLIENTS)} (default: all of them); with --http, its URL",
    )
    mcp.set_defaults(handler=cmd_mcp)


def _check_bind(
    host: str, how: str = "clients then send it as 'Authorization: Bearer <key>'"
) -> str:
    """The key (``$PANELBOT_SERVE_KEY``, "" when unset); UsageError for a non-loopback ``host`` without
    one (``how`` says how clients present it)."""
    key = server_key()
    if not is_loopback(host) and not key:
        raise UsageError(
            f"refusing to bind {host}: set {KEY_ENV} to an API key first ({how}), or bind 127.0.0.1"
        )
    return key


def _check_port(host: str, port: int) -> None:
    problem = port_problem(host, port)
    if problem:
        raise UsageError(problem)


def _require(module: str) -> None:
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise UsageError(
            f"this command needs the 'serve' extra ({module} is not installed): "
            "pip install 'panelbot[serve]'"
        )


def cmd_serve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    _require("starlette")
    _require("uvicorn")
    key = _check_bind(args.host)
    from panelbot.serve.openai_api import ServeSettings, build_api, run

    settings = ServeSettings(
        panel=getattr(args, "panel", None),
        config=getattr(args, "config", None),
        backend=args.backend,
        base_url=args.base_url,
        model=args.model,
        max_body=args.max_body,
        host=args.host.strip("[]"),
        allow_origins=tuple(args.allow_origin),
    )
    _check_port(settings.host, args.port)
    api = build_api(settings)  # fails here, in one line, on a bad panel, config or backend
    for w in api.catalog.warnings:
        err.write(f"panelbot: warning: {w}\n")
    host = args.host.strip("[]")
    shown = f"[{host}]" if ":" in host else host
    models = ", ".join(m for m in api.catalog.models if "/" not in m)
    err.write(
        f"panelbot serve: http://{shown}:{args.port}/v1  models: {models} (+ panel-qualified ids); "
        f"answers: {api.backend.label}; workers: {args.workers}; "
        f"{'API key required' if key else 'no API key'}\n"
    )
    err.flush()
    run(api, port=args.port, workers=args.workers, log_level=args.log_level)
    return EXIT_OK


def _print_snippet(args: argparse.Namespace, out: TextIO) -> int:
    from panelbot.cli import mcp_config

    settings = {
        "panel": getattr(args, "panel", None),
        "config": getattr(args, "config", None),
        "http": args.http,
        "host": args.host.strip("[]"),
        "keyed": bool(server_key()) or not is_loopback(args.host),
    }
    if args.config_snippet == "all":
        out.write(mcp_config.every_snippet(**settings) + "\n")
    else:
        out.write(mcp_config.snippet(args.config_snippet, **settings) + "\n")
    return EXIT_OK


def cmd_mcp(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.config_snippet:
        return _print_snippet(args, out)
    _require("mcp")
    from panelbot.config import load_config
    from panelbot.serve.catalog import load_catalog

    key = _check_bind(args.host) if args.http else ""
    if args.http:
        _check_port(args.host.strip("[]"), args.http)
    cfg = load_config(getattr(args, "config", None))
    for w in cfg.warnings:
        err.write(f"panelbot: warning: {w}\n")
    catalog = load_catalog(
        cfg, getattr(args, "panel", None), warn=lambda w: err.write(f"panelbot: warning: {w}\n")
    )
    from panelbot.serve.mcp_server import build_server, run_http

    server = build_server(catalog, cfg.retrieval.top_k, cfg.serve)
    if not args.http:
        server.run("stdio")
        return EXIT_OK
    host = args.host.strip("[]")
    err.write(
        f"panelbot mcp: http://{host}:{args.http}/mcp (streamable HTTP; "
        f"{'API key required' if key else 'no API key'})\n"
    )
    err.flush()
    run_http(server, key, host, args.http, cfg.serve)
    return EXIT_OK
