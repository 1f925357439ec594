"""Ingest: raw captions become a draft panel. ``captions`` cleans the caption text into turns, ``speakers``
decides who said what, ``draft`` builds and writes the panel (quotes, host questions, personas)."""
