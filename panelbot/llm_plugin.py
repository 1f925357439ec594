"""panelbot as a plugin for Simon Willison's ``llm`` CLI: the panel as ``llm`` models, in-process (no server).

Registered through the ``llm`` entry-point group (``pip install panelbot`` is enough; ``llm plugins`` lists it):

* **models** -- for the default panel (panelbot's config ``panel:``) one per panelist (``panelbot-dan``,
  ``panelbot-olive``), ``panelbot-panel`` (panelbot picks who answers) and ``panelbot-both``; for every installed
  talk the same qualified by its name (``panelbot-minimax-m3/dan``): the model ids ``panelbot serve`` offers,
  prefixed. An id already set up in ``extra-openai-models.yaml`` (pointing at a running ``panelbot serve``) is
  left to that entry. Answers are the panelists' verbatim quotes with ids (offline, no network) unless
  ``-o backend openai`` (with ``-o base_url``/``-o model`` or panelbot's ``backend:`` config) generates them,
  verified as ``panelbot ask --llm`` does. ``llm -c`` continues the conversation through panelbot's
  conversation resolver: earlier answers carry their speakers and quote ids (on the logged message and in
  ``response_json``), so "why?" or "what does Olive think?" follow up on the subject.
* **fragments** -- ``-f panelbot:dan-13`` (or ``panelbot:minimax-m3/dan-13``): the quote, attributed.
* **a tool** -- ``search_quotes`` for ``llm -T search_quotes``: any tool-calling model can look up what the
  panelists said.

``llm`` imports this module at every start, so it imports nothing of panelbot at import time; the panel list
is read (panel.yaml only, no quote bank) when ``llm`` asks for its models, and a panel is opened and indexed
(from the saved index) only when a question is asked.
"""

from __future__ import annotations

from typing import Any

import llm


@llm.hookimpl
def register_models(register: Any) -> None:
    from panelbot.llm_models import AsyncPanelModel, PanelModel, model_specs

    for spec in model_specs():
        register(PanelModel(**spec), AsyncPanelModel(**spec))


@llm.hookimpl
def register_fragment_loaders(register: Any) -> None:
    from panelbot.llm_models import FRAGMENT_PREFIX, quote_fragment

    register(FRAGMENT_PREFIX, quote_fragment)


@llm.hookimpl
def register_tools(register: Any) -> None:
    from panelbot.llm_models import search_quotes

    register(search_quotes)
