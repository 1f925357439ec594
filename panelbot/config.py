"""Configuration: the shipped config.yaml, overlaid by the user's, validated here and nowhere else.

Order (later wins): bundled ``config.yaml`` < user config (``$PANELBOT_CONFIG`` or the platform config dir)
< an explicit ``--config FILE`` < environment variables < command-line flags (applied by the caller).
"""

from __future__ import annotations

import math
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from panelbot import paths
from panelbot.errors import ConfigError
from panelbot.panel.yaml_lines import line_of, load_yaml_remembered, strip_lines
from panelbot.records import field, record, replace
from panelbot.text import LazyPattern

if TYPE_CHECKING:
    from typing import Any

API_KEY_ENV_VARS = ("PANELBOT_API_KEY", "OPENAI_API_KEY")
DEFAULT_KEYS = {
    "send": "enter",
    "newline": "ctrl+j",
    "cancel": "escape",
    "export": "ctrl+e",
    "help": "f1",
    "quit": "ctrl+q",
    "copy": "ctrl+y",
    "toggle_sidebar": "ctrl+b",
    "command_palette": "ctrl+p",
    "regenerate": "ctrl+r",
    "conversations": "ctrl+o",
    "followups": "ctrl+g",
}


@record(frozen=True)
class RetrievalSettings:
    """The ``retrieval:`` section of the config: how many quotes, and the routing thresholds."""

    top_k: int = 3
    # Minimum in-scope evidence (see router) below which the panel abstains.
    scope_floor: float = 1.0
    # A second panelist joins when their best quote scores at least this fraction of the first's (and the
    # fitted floor); None: the fitted fraction (``both_share`` in panelbot/data/tuning.json).
    both_ratio: float | None = None
    # Minimum quote score (0-100) for a quote to be shown at all.
    min_quote_score: float = 3.0
    # rapidfuzz ratio a two-edit typo needs to be corrected to a panel word.
    typo_ratio: float = 84.0


@record(frozen=True)
class BackendSettings:
    """The ``backend:`` section of the config: the answer backend and its endpoint."""

    name: str = "offline"  # "offline", "openai" or a third-party entry point name
    base_url: str = ""
    model: str = ""
    api_key: str = field(default="", repr=False)
    api_key_source: str = ""
    connect_timeout: float = 5.0
    read_timeout: float = 60.0
    total_timeout: float = 180.0
    max_tokens: int = 400
    temperature: float = 0.3
    seed: int | None = None
    max_retries: int = 2
    stream: bool = True


@record(frozen=True)
class TuiSettings:
    """The ``tui:`` section of the config: the app's theme and key bindings."""

    theme: str = "textual-dark"
    keys: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_KEYS))


@record(frozen=True)
class HistorySettings:
    """The ``history:`` section of the config: what is saved to the history database."""

    # `panelbot ask` saves each question and answer to the history database the app uses (--no-log: not)
    log_cli: bool = True


@record(frozen=True)
class ServeLimits:
    """The ``serve:`` section of the config: what one request to ``panelbot serve`` (or ``panelbot mcp``) may
    hold and how long a client may take, so that no client can tie up the server or starve the others."""

    # bytes of one request body (larger: 413)
    max_body: int = 1_000_000
    # messages in one request (an MCP ``conversation``'s turns too)
    max_messages: int = 500
    # characters of the question and of each earlier user message
    max_question: int = 4000
    # characters of any other message (an earlier answer, a system prompt)
    max_message: int = 100_000
    # how deeply the request's JSON may nest
    max_json_depth: int = 64
    # seconds to send a request's line and headers (a slower client is disconnected)
    header_timeout: float = 10.0
    # seconds to send the body once the headers are in (slower: 408)
    body_timeout: float = 30.0
    # seconds an idle connection is kept open between requests
    keep_alive: float = 5.0
    # open connections; past it the longest-idle one that is not being answered is closed to make room
    # (a flood of half-open connections never locks a client out)
    max_connections: int = 1000
    # bytes of a request's line and headers
    max_header_bytes: int = 16384


@record(frozen=True)
class Config:
    """The whole configuration: the panel to use and each section's settings."""

    panel: str = "minimax-m3"
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    backend: BackendSettings = field(default_factory=BackendSettings)
    tui: TuiSettings = field(default_factory=TuiSettings)
    history: HistorySettings = field(default_factory=HistorySettings)
    serve: ServeLimits = field(default_factory=ServeLimits)
    sources: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def with_backend(self, **changes: Any) -> Config:
        return replace(self, backend=replace(self.backend, **changes))

    def with_endpoint(
        self,
        base_url: str | None = None,
        model: str | None = None,
        name: str | None = None,
        *,
        generate: bool = False,
    ) -> Config:
        """Flags over the files: a base URL, a model and a backend name. When the backend would be offline,
        ``generate`` (``ask --llm``), or a URL or model given without a backend name, means 'openai'."""
        changes = {k: v for k, v in (("base_url", base_url), ("model", model), ("name", name)) if v}
        if (name or self.backend.name) in ("", "offline") and (
            generate or (not name and (base_url or model))
        ):
            changes["name"] = "openai"
        return self.with_backend(**changes) if changes else self


# ----------------------------------------------------------------------------------------------- parsing

_SECTIONS = {"panel", "retrieval", "backend", "tui", "history", "serve"}


def _number(
    section: str,
    key: str,
    val: Any,
    path: str,
    line: int | None,
    *,
    integer: bool = False,
    lo: float | None = None,
    hi: float | None = None,
) -> Any:
    ok = isinstance(val, (int, float)) and not isinstance(val, bool)
    if integer:
        ok = ok and isinstance(val, int)
    if ok and isinstance(val, float) and not math.isfinite(val):
        ok = False  # .nan / .inf: every comparison with NaN is false, so it would pass any range check
    if ok and lo is not None and val < lo:
        ok = False
    if ok and hi is not None and val > hi:
        ok = False
    if not ok:
        kind = "a whole number" if integer else "a number"
        rng = f" between {lo} and {hi}" if lo is not None else ""  # limits always come in pairs
        raise ConfigError(f"{section}.{key} must be {kind}{rng}, got {val!r}", path, line)
    return val


def _merge_section(obj: Any, current: Any, section: str, spec: dict[str, tuple], path: str) -> Any:
    if obj is None:
        return current
    if not isinstance(obj, dict):
        raise ConfigError(f"{section} must be a mapping", path, None)
    line = line_of(obj)
    changes: dict[str, Any] = {}
    for key, val in obj.items():
        if key == "__line__":
            continue
        if key not in spec:
            raise ConfigError(
                f"unknown setting {section}.{key} (known: {', '.join(sorted(spec))})", path, line
            )
        kind, *limits = spec[key]
        if kind == "str":
            if val is None:
                val = ""
            if not isinstance(val, str):
                raise ConfigError(f"{section}.{key} must be text, got {val!r}", path, line)
        elif kind == "bool":
            if not isinstance(val, bool):
                raise ConfigError(f"{section}.{key} must be true or false, got {val!r}", path, line)
        elif kind == "int":
            _number(section, key, val, path, line, integer=True, lo=limits[0], hi=limits[1])
        elif kind == "int?":
            if val is not None:
                _number(section, key, val, path, line, integer=True)
        elif kind == "float" or (kind == "float?" and val is not None):
            _number(section, key, val, path, line, lo=limits[0], hi=limits[1])
            val = float(val)
        changes[key] = val
    return replace(current, **changes)


_RETRIEVAL_SPEC = {
    "top_k": ("int", 1, 50),
    "scope_floor": ("float", 0.0, 100.0),
    "both_ratio": ("float?", 0.0, 1.0),
    "min_quote_score": ("float", 0.0, 100.0),
    "typo_ratio": ("float", 50.0, 100.0),
}
_HISTORY_SPEC = {"log_cli": ("bool",)}
_SERVE_SPEC = {
    "max_body": ("int", 1024, 100_000_000),
    "max_messages": ("int", 1, 100_000),
    "max_question": ("int", 1, 100_000),
    "max_message": ("int", 1, 10_000_000),
    "max_json_depth": ("int", 2, 500),
    "header_timeout": ("float", 0.1, 3600.0),
    "body_timeout": ("float", 0.1, 3600.0),
    "keep_alive": ("float", 0.1, 3600.0),
    "max_connections": ("int", 1, 100_000),
    "max_header_bytes": ("int", 1024, 1_048_576),
}
_BACKEND_SPEC = {
    "name": ("str",),
    "base_url": ("str",),
    "model": ("str",),
    "api_key": ("str",),
    "connect_timeout": ("float", 0.01, 600.0),
    "read_timeout": ("float", 0.01, 3600.0),
    "total_timeout": ("float", 0.01, 7200.0),
    "max_tokens": ("int", 1, 1_000_000),
    "temperature": ("float", 0.0, 2.0),
    "seed": ("int?",),
    "max_retries": ("int", 0, 10),
    "stream": ("bool",),
}


def _holds_a_key(data: Any) -> bool:
    """Whether a parsed config names an ``api_key`` anywhere (such a file's parse is never copied to the
    cache: a key stays only where the user put it)."""
    if isinstance(data, dict):
        return any(k == "api_key" or _holds_a_key(v) for k, v in data.items())
    if isinstance(data, list):
        return any(_holds_a_key(v) for v in data)
    return False


def _apply_file(cfg: Config, path: Path) -> Config:
    data = load_yaml_remembered(path, keep=lambda parsed: not _holds_a_key(parsed))
    if data is None:
        return cfg
    spath = str(path)
    _check_sections(data, spath)
    changes: dict[str, Any] = {}
    warnings = list(cfg.warnings)
    if "panel" in data:
        if not isinstance(data["panel"], str) or not data["panel"].strip():
            raise ConfigError("panel must be a panel name", spath, line_of(data))
        changes["panel"] = data["panel"].strip()
    changes["retrieval"] = _merge_section(
        data.get("retrieval"), cfg.retrieval, "retrieval", _RETRIEVAL_SPEC, spath
    )
    changes["backend"] = _file_backend(data.get("backend"), cfg.backend, path, warnings)
    changes["history"] = _merge_section(
        data.get("history"), cfg.history, "history", _HISTORY_SPEC, spath
    )
    changes["serve"] = _merge_section(data.get("serve"), cfg.serve, "serve", _SERVE_SPEC, spath)
    if data.get("tui") is not None:
        changes["tui"] = _file_tui(data["tui"], cfg.tui, spath, line_of(data))
    return replace(cfg, **changes, sources=cfg.sources + (spath,), warnings=tuple(warnings))


def _check_sections(data: Any, spath: str) -> None:
    """A config file is a mapping of the known sections (ConfigError naming the line otherwise)."""
    if not isinstance(data, dict):
        raise ConfigError("the config must be a mapping of settings", spath, 1)
    for key in data:
        if key != "__line__" and key not in _SECTIONS:
            raise ConfigError(
                f"unknown section {key!r} (known: {', '.join(sorted(_SECTIONS))})",
                spath,
                line_of(data),
            )


def _file_backend(
    section: Any, current: BackendSettings, path: Path, warnings: list[str]
) -> BackendSettings:
    """The file's ``backend`` section over ``current``; a key given in the file is cleaned and its source
    named, with a warning (added to ``warnings``) when other users can read the file."""
    spath = str(path)
    backend = _merge_section(section, current, "backend", _BACKEND_SPEC, spath)
    if isinstance(section, dict) and section.get("api_key"):
        backend = replace(
            backend,
            api_key_source=f"config file {spath}",
            api_key=clean_api_key(backend.api_key, f"config file {spath}"),
        )
        if _readable_by_others(path):
            warnings.append(
                f"{spath} holds an API key and is readable by other users; run: chmod 600 {spath}"
            )
    return backend


def _file_tui(tui: Any, current: TuiSettings, spath: str, line: int | None) -> TuiSettings:
    """The file's ``tui`` section (``theme``, ``keys``) over ``current``."""
    if not isinstance(tui, dict):
        raise ConfigError("tui must be a mapping", spath, line)
    keys = dict(current.keys)
    theme = current.theme
    for k, v in tui.items():
        if k == "__line__":
            continue
        if k == "theme":
            if not isinstance(v, str) or not v:
                raise ConfigError("tui.theme must be a theme name", spath, line_of(tui))
            theme = v
        elif k == "keys":
            if not isinstance(v, dict):
                raise ConfigError("tui.keys must map binding ids to keys", spath, line_of(tui))
            keys.update(_file_keys(v, spath))
        else:
            raise ConfigError(f"unknown setting tui.{k} (known: keys, theme)", spath, line_of(tui))
    return TuiSettings(theme=theme, keys=keys)


def _file_keys(given: dict[str, Any], spath: str) -> dict[str, str]:
    """``tui.keys``: binding id -> key name, each id known and each key a key name (lower-cased)."""
    keys: dict[str, str] = {}
    for bid, key in given.items():
        if bid == "__line__":
            continue
        if bid not in DEFAULT_KEYS:
            raise ConfigError(
                f"unknown key binding id {bid!r} (known: {', '.join(DEFAULT_KEYS)})",
                spath,
                line_of(given),
            )
        if not isinstance(key, str) or not is_key_name(key.strip()):
            raise ConfigError(
                f"tui.keys.{bid} must be a key name like 'ctrl+e', 'f2' or 'enter', got {key!r}",
                spath,
                line_of(given),
            )
        keys[bid] = key.strip().lower()
    return keys


_MODIFIERS = {"ctrl", "shift", "alt", "meta", "super", "hyper"}
_NAMED_KEYS = {
    "enter",
    "escape",
    "tab",
    "space",
    "backspace",
    "delete",
    "insert",
    "home",
    "end",
    "pageup",
    "pagedown",
    "up",
    "down",
    "left",
    "right",
    "comma",
    "full_stop",
    "minus",
    "plus",
    "slash",
    "backslash",
    "semicolon",
    "colon",
    "apostrophe",
    "quotation_mark",
    "left_square_bracket",
    "right_square_bracket",
    "underscore",
    "equals_sign",
    "question_mark",
    "exclamation_mark",
    "number_sign",
    "dollar_sign",
    "percent_sign",
    "ampersand",
    "asterisk",
    "at",
    "circumflex_accent",
    "grave_accent",
    "tilde",
    "vertical_line",
    "left_curly_bracket",
    "right_curly_bracket",
    "left_parenthesis",
    "right_parenthesis",
    "less_than_sign",
    "greater_than_sign",
}
_FUNCTION_KEY_RE = LazyPattern(r"f([1-9]|1[0-9]|2[0-4])")


def is_key_name(key: str) -> bool:
    """A terminal key as Textual names it: modifiers joined by '+' then one key ('ctrl+e', 'f2', 'enter').

    Several bindings may be given separated by commas ('ctrl+e,f2')."""
    bindings = key.lower().split(",")
    for binding in bindings:
        *mods, name = binding.strip().split("+")
        if len(set(mods)) != len(mods) or not set(mods) <= _MODIFIERS:
            return False
        if not (
            name in _NAMED_KEYS
            or _FUNCTION_KEY_RE.fullmatch(name)
            or (len(name) == 1 and name.isprintable() and not name.isspace() and name not in "+,")
        ):
            return False
    return True


def clean_api_key(key: str, source: str = "") -> str:
    """The key without surrounding whitespace (a key file's trailing newline or CR); ConfigError when it holds
    anything that cannot go in an HTTP header (a control character, a space, non-ASCII). Never echoes it."""
    key = (key or "").strip()
    if key and not all(33 <= ord(c) < 127 for c in key):
        where = f" from {source}" if source else ""
        raise ConfigError(
            f"the API key{where} holds a control character, a space or a non-ASCII "
            "character; check for a stray character or a pasted line break"
        )
    return key


def _readable_by_others(path: Path) -> bool:
    try:
        return bool(path.stat().st_mode & (stat.S_IRGRP | stat.S_IROTH))
    except OSError:
        return False


def load_config(
    explicit: str | Path | None = None, *, environ: dict[str, str] | None = None
) -> Config:
    """Build the effective configuration. Raises ConfigError (file and line) on a bad file."""
    env = os.environ if environ is None else environ
    cfg = Config()
    default = paths.default_config_path()
    if default.is_file():
        cfg = _apply_file(cfg, default)
    user = paths.user_config_path()
    if (
        os.environ.get("PANELBOT_CONFIG") and str(user) != os.devnull
    ):  # as paths reads it; /dev/null: none
        if (
            not user.is_file()
        ):  # named explicitly: a missing file or a directory is an error, not a default
            what = "is a directory" if user.is_dir() else "is not a readable file"
            raise ConfigError(f"$PANELBOT_CONFIG names a config file that {what}", str(user))
        cfg = _apply_file(cfg, user)
    elif user.is_file():
        cfg = _apply_file(cfg, user)
    if explicit is not None:
        p = Path(explicit).expanduser()
        if not p.is_file():
            raise ConfigError(
                "is a directory, not a config file"
                if p.is_dir()
                else "is not a regular file (a pipe or a device?), not a config file"
                if p.exists()
                else "config file not found",
                str(p),
            )
        cfg = _apply_file(cfg, p)
    # Environment: the usual OpenAI variables plus panelbot's own (panelbot's win); they override files.
    changes: dict[str, Any] = {}
    for var in ("PANELBOT_BASE_URL", "OPENAI_BASE_URL"):
        if env.get(var):
            changes["base_url"] = env[var]
            break
    if env.get("PANELBOT_MODEL"):
        changes["model"] = env["PANELBOT_MODEL"]
    for var in API_KEY_ENV_VARS:
        if env.get(var, "").strip():
            changes["api_key"] = clean_api_key(env[var], f"${var}")
            changes["api_key_source"] = f"${var}"
            break
    if env.get("PANELBOT_BACKEND"):
        changes["name"] = env["PANELBOT_BACKEND"]
    if changes:
        cfg = cfg.with_backend(**changes)
    return cfg


def as_dict(cfg: Config) -> dict[str, Any]:
    """The effective settings for display, with the API key masked."""
    from panelbot.records import asdict

    d = asdict(cfg)
    if d["backend"].get("api_key"):
        d["backend"]["api_key"] = "***"
    return strip_lines(d)
