"""Compatibility: the documented plugin import path. The backends live in :mod:`panelbot.answer.backends`."""
