"""``panelbot mcp --config-snippet [CLIENT]``: the ready-to-paste set-up of ``panelbot mcp`` for an MCP client,
with this installation's own command (an absolute path) and the ``--panel``/``--config`` given.

Plain Python (json): no MCP SDK is needed to print a snippet. docs/service.md shows the same forms."""

from __future__ import annotations

import json
import sys
from pathlib import Path

# client -> (where its settings live, the form of its entry)
CLIENTS: dict[str, tuple[str, str]] = {
    "claude-desktop": ("claude_desktop_config.json", "mcpServers"),
    "cursor": (".cursor/mcp.json or ~/.cursor/mcp.json", "mcpServers"),
    "windsurf": ("~/.codeium/windsurf/mcp_config.json", "mcpServers"),
    "gemini": ("~/.gemini/settings.json", "mcpServers"),
    "mcp-cli": ("server_config.json of mcp-cli, then mcp-cli --server panelbot", "mcpServers"),
    "vscode": (".vscode/mcp.json", "servers"),
    "claude-code": ("run it in a shell", "command"),
    "codex": ("~/.codex/config.toml", "toml"),
    "inspector": (
        "run it in a shell; add --cli for the Inspector's command-line mode",
        "inspector",
    ),
}


def panelbot_command() -> list[str]:
    """The command that starts this installation's ``panelbot``: the console script beside this Python
    (a venv's bin/), else ``python -m panelbot`` with this interpreter; absolute either way, since an MCP
    client starts servers without the user's PATH."""
    python = Path(sys.executable)
    script = python.parent / ("panelbot.exe" if sys.platform == "win32" else "panelbot")
    if script.is_file():
        return [str(script.absolute())]
    return [str(python.absolute()), "-m", "panelbot"]


def _entry_args(panel: str | None, config: str | None, http: int | None) -> list[str]:
    args = ["mcp"]
    if panel:
        args += ["--panel", str(Path(panel).resolve()) if Path(panel).exists() else panel]
    if config:
        args += ["--config", str(Path(config).resolve())]
    if http:
        args += ["--http", str(http)]
    return args


def _toml_string(value: str) -> str:
    return json.dumps(value)  # a JSON string is a TOML basic string for every character here


def snippet(
    client: str,
    *,
    panel: str | None = None,
    config: str | None = None,
    http: int | None = None,
    host: str = "127.0.0.1",
    keyed: bool = False,
) -> str:
    """The text to paste into ``client``'s settings (:data:`CLIENTS`) to reach ``panelbot mcp``: over stdio,
    or with ``http`` the URL of a ``panelbot mcp --http PORT`` already running (``keyed``: with the
    Authorization header a keyed server needs, KEY to be replaced)."""
    command = panelbot_command()
    argv = [*command[1:], *_entry_args(panel, config, None)]
    _, form = CLIENTS[client]
    if http:
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{http}/mcp"
        headers = {"Authorization": "Bearer KEY"} if keyed else {}
        return _url_snippet(form, url, headers)
    if form == "mcpServers":
        entry = {"command": command[0], "args": argv}
        return json.dumps({"mcpServers": {"panelbot": entry}}, indent=2)
    if form == "servers":
        entry = {"type": "stdio", "command": command[0], "args": argv}
        return json.dumps({"servers": {"panelbot": entry}}, indent=2)
    import shlex

    if form == "command":
        return f"claude mcp add panelbot -- {shlex.join([command[0], *argv])}"
    if form == "inspector":
        return f"npx @modelcontextprotocol/inspector {shlex.join([command[0], *argv])}"
    toml_args = ", ".join(_toml_string(a) for a in argv)
    return f"[mcp_servers.panelbot]\ncommand = {_toml_string(command[0])}\nargs = [{toml_args}]"


def _url_snippet(form: str, url: str, headers: dict[str, str]) -> str:
    import shlex

    if form == "mcpServers":
        entry: dict[str, object] = {"url": url, **({"headers": headers} if headers else {})}
        return json.dumps({"mcpServers": {"panelbot": entry}}, indent=2)
    if form == "servers":
        entry = {"type": "http", "url": url, **({"headers": headers} if headers else {})}
        return json.dumps({"servers": {"panelbot": entry}}, indent=2)
    header_flags = [f"--header={k}: {v}" for k, v in headers.items()]
    if form == "command":
        return shlex.join(
            ["claude", "mcp", "add", "--transport", "http", *header_flags, "panelbot", url]
        )
    if form == "inspector":
        return (
            f"npx @modelcontextprotocol/inspector --transport http --server-url {shlex.quote(url)}"
        )
    lines = ["[mcp_servers.panelbot]", f"url = {_toml_string(url)}"]
    if headers:
        lines.append('bearer_token_env_var = "PANELBOT_SERVE_KEY"')
    return "\n".join(lines)


def every_snippet(**settings: object) -> str:
    """Every client's snippet under ``# client: where it goes`` lines (clients that take the same text, once)."""
    grouped: dict[str, list[str]] = {}
    for client, (where, _) in CLIENTS.items():
        text = snippet(client, **settings)  # type: ignore[arg-type]
        grouped.setdefault(text, []).append(f"# {client}: {where}")
    return "\n\n".join("\n".join([*who, text]) for text, who in grouped.items())
