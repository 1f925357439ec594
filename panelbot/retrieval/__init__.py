"""Retrieval: from a question to who answers and with which quotes. ``lexicon`` (word lists, stems),
``vocabulary`` (variants to one term), ``index`` (fielded BM25 postings), ``router`` (who answers, scope,
abstention), ``results`` (what a route returns), ``evaluation`` (measuring all of it on a question set)."""
