"""Answer backends: one small interface (base.Backend); offline quotes and OpenAI-compatible are two of them."""
