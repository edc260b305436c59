"""Step 2, OpenIE: triples from passages, by an LLM (two calls per passage) or without a model.

:mod:`~pathfinding.hipporag.extract.llm` is the OpenAI-compatible chat client (over the shared
:mod:`~pathfinding.hipporag.transport.http`),
:mod:`~pathfinding.hipporag.extract.openie` the two-step extraction (named entities, then triples),
:mod:`~pathfinding.hipporag.extract.parsing` reads what models answer,
:mod:`~pathfinding.hipporag.extract.cooccurrence` is the no-model extractor, and
:mod:`~pathfinding.hipporag.extract.estimate` what a run will cost, before it is paid. The ``openie``
command is :mod:`pathfinding.cli.openie`.
"""

from pathfinding._lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(["ChatClient", "ChatResponse"], "pathfinding.hipporag.extract.llm"),
    **dict.fromkeys(
        ["OpenIERun", "llm_query_ner", "run_openie", "write_openie"], "pathfinding.hipporag.extract.openie"
    ),
    **dict.fromkeys(["Parsed", "parse_entities", "parse_triples"], "pathfinding.hipporag.extract.parsing"),
    **dict.fromkeys(
        ["cooccurrence_docs", "cooccurrence_openie", "cooccurrence_triples", "why_no_triples"],
        "pathfinding.hipporag.extract.cooccurrence",
    ),
    **dict.fromkeys(
        ["OpenIEBill", "estimate_openie", "measure_no_model"], "pathfinding.hipporag.extract.estimate"
    ),
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
