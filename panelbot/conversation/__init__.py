"""Conversations: what was said so far and where it is kept. ``store`` (the SQLite history shared by the app
and the shell), ``export`` (a conversation as Markdown)."""
