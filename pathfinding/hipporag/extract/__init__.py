"""Step 2, OpenIE: triples from passages, by an LLM (two calls per passage) or without a model.

:mod:`~pathfinding.hipporag.extract.llm` is the OpenAI-compatible client,
:mod:`~pathfinding.hipporag.extract.openie` the two-step extraction (named entities, then triples),
:mod:`~pathfinding.hipporag.extract.parsing` reads what models answer,
:mod:`~pathfinding.hipporag.extract.cooccurrence` is the no-model extractor, and
:mod:`~pathfinding.hipporag.extract.cli` the ``openie`` command.
"""
