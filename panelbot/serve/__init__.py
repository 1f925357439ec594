"""The panel as a service: an OpenAI-compatible HTTP API (``openai_api``) and an MCP server (``mcp_server``).

Both sit on the same core: ``catalog`` (the installed panels, their routers and the model ids),
``conversation`` (an OpenAI-style ``messages`` list -> the conversation resolver) and ``answering`` (one answer
through the configured backend, rendered as text plus one JSON record). Nothing here is imported by
``panelbot ask --offline``, ``quote`` or ``--help``; the ASGI stack and the MCP SDK come from the ``serve`` extra.
"""
