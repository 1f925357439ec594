"""The ``panelbot`` command line: ``main`` builds the parser from one module per command group (``ask``,
``panels``, ``eval``, ``history``, ``app``) and reports errors in one line. Importing this is cheap: Textual and
httpx are imported only by the commands that need them (the app and ``ask --llm``)."""

from panelbot.cli.main import main

__all__ = ["main"]
