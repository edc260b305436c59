"""HippoRAG on real text: OpenIE triples to an index, retrieval with PPR, recall against BM25.

Triples come from an LLM through any OpenAI-compatible endpoint (:mod:`~pathfinding.hipporag.extract`),
from a model-free co-occurrence extractor, or from the HippoRAG authors' released GPT-3.5 output
(fetched and verified by :mod:`~pathfinding.hipporag.storage.datasets`; nothing from elsewhere ships with
the package). Synonymy edges and entity linking use a character-trigram TF-IDF encoder, or a dense
model behind an embeddings endpoint (:mod:`~pathfinding.hipporag.index.embeddings`); nothing needs
the network unless pointed at an endpoint or fetching the release's files. Its rooms, from the
bottom up:

* :mod:`~pathfinding.hipporag.language` -- how text becomes words and names (tokens, normal forms,
  stop words, capitalised spans, the corpus's casing model, a question read through it);
* :mod:`~pathfinding.hipporag.storage` -- files written without losing one (the output guard, locks,
  atomic writes), the binary container, and the release's data files fetched and verified;
* :mod:`~pathfinding.hipporag.transport.http` -- what the chat and embeddings clients share: JSON over
  HTTP with bounded retries, and their answers kept on disk;
* :mod:`~pathfinding.hipporag.io` -- loaders for corpora, OpenIE files and question files, and long
  documents split into passages;
* :mod:`~pathfinding.hipporag.index` -- Step 3: build, encoders, synonymy, add/delete, save/load, a
  folder kept in sync;
* :mod:`~pathfinding.hipporag.extract` -- Step 2, OpenIE by an LLM or without a model, and its bill
  estimated before it is paid;
* :mod:`~pathfinding.hipporag.retrieval` -- Steps 4-7: entities linked to seeds, BM25, the walk,
  ranked passages, the query cache beside an index;
* :mod:`~pathfinding.hipporag.evaluation` -- R@k, AR@k, bootstrap intervals, retrievers compared.

Each room imports only the rooms listed above it (``tests/test_layout.py`` checks it). The command
line lives in :mod:`pathfinding.cli`, outside the engine.

Importing this package loads none of them: each public name below is imported on first use. The
MuSiQue experiment and the benchmark live outside the engine, reached by their own paths.
"""

from pathfinding._lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(
        ["all_recall_at_k", "bootstrap_mean_ci", "paired_difference_ci", "recall_at_k", "supporting_ids"],
        "pathfinding.hipporag.evaluation.metrics",
    ),
    **dict.fromkeys(["load_2wiki_questions", "load_hotpotqa_questions"], "pathfinding.hipporag.io.formats"),
    **dict.fromkeys(["LoadReport", "Passage", "Question"], "pathfinding.hipporag.io.records"),
    **dict.fromkeys(
        ["load_corpus", "load_openie", "load_query_ner", "load_questions"],
        "pathfinding.hipporag.io.loaders",
    ),
    "read_eval_questions": "pathfinding.hipporag.io.questions",
    **dict.fromkeys(["evaluate_retrievers", "match_supporting"], "pathfinding.hipporag.evaluation.compare"),
    **dict.fromkeys(["HippoIndex", "IndexStats"], "pathfinding.hipporag.index.model"),
    **dict.fromkeys(["build_index", "index_from_openie"], "pathfinding.hipporag.index.build"),
    "CharNgramEncoder": "pathfinding.hipporag.index.encoder",
    "EmbeddingEncoder": "pathfinding.hipporag.index.embeddings",
    **dict.fromkeys(
        ["add_passages", "delete_passages", "renumber_after_delete", "replace_passages"],
        "pathfinding.hipporag.index.maintenance",
    ),
    **dict.fromkeys(["load_index", "save_index"], "pathfinding.hipporag.index.persistence"),
    **dict.fromkeys(["apply_sync", "plan_sync"], "pathfinding.hipporag.index.sync"),
    "split_document": "pathfinding.hipporag.io.splitting",
    "estimate_openie": "pathfinding.hipporag.extract.estimate",
    "cooccurrence_docs": "pathfinding.hipporag.extract.cooccurrence",
    "ChatClient": "pathfinding.hipporag.extract.llm",
    **dict.fromkeys(["llm_query_ner", "run_openie", "write_openie"], "pathfinding.hipporag.extract.openie"),
    "normalize_phrase": "pathfinding.hipporag.language.text",
    **dict.fromkeys(["BM25Ranker", "FactLinker"], "pathfinding.hipporag.retrieval.lexical"),
    **dict.fromkeys(["CasingModel", "casing_model"], "pathfinding.hipporag.language.casing"),
    "read_question": "pathfinding.hipporag.language.reading",
    "capitalised_spans": "pathfinding.hipporag.language.names",
    **dict.fromkeys(
        ["EXTRACTORS", "link_entities", "ner_lookup", "node_ngrams"], "pathfinding.hipporag.retrieval.linking"
    ),
    **dict.fromkeys(["HippoRetriever", "Retrieval"], "pathfinding.hipporag.retrieval.retrieve"),
    "load_for_query": "pathfinding.hipporag.retrieval.querycache",
    **dict.fromkeys(["Transport", "UsageStats"], "pathfinding.hipporag.transport.http"),
    "ResponseCache": "pathfinding.hipporag.transport.cache",
    "OneShotRetriever": "pathfinding.hipporag.retrieval.oneshot",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
