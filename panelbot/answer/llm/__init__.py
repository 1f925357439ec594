"""Generative answers from an OpenAI-compatible endpoint: the HTTP client (client, sse), the prompt
(prompt) and the citation check (verify). Imported only when a generative backend is used: this package
pulls in httpx, which the offline paths never load."""
