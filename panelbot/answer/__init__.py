"""Answering: ``compose`` lays out the verbatim answer (quotes, headings, declines); ``events`` are what an
answer is made of as it forms; ``backends`` produce them (offline quotes, an OpenAI-compatible model, plugins);
``llm`` is the model path's HTTP client, prompt and citation check (the only place httpx is imported)."""
