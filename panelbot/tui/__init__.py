"""The terminal app. Textual is imported only here, and only when the app runs (``run``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from panelbot.config import Config


def run(
    config: Config | None = None,
    panel_name: str | None = None,
    resume: bool | int = False,
    *,
    config_error: str | None = None,
) -> int:
    """Open the app; returns the process exit code.

    With ``config=None`` the configuration is loaded here, and a bad config file becomes a message inside
    the app (the defaults are used) rather than a traceback.
    """
    if config is None:
        from panelbot.config import Config, load_config
        from panelbot.errors import PanelbotError

        try:
            config = load_config()
        except PanelbotError as exc:
            config, config_error = Config(), str(exc)
    from panelbot.tui.app import PanelbotApp

    app = PanelbotApp(config, panel_name, resume, config_error=config_error)
    app.run()
    return app.return_code or 0
