"""HippoRAG on real text: OpenIE triples to an index, retrieval with PPR, recall against BM25.

Triples come from an LLM through any OpenAI-compatible endpoint (:mod:`~pathfinding.hipporag.extract`),
from a model-free co-occurrence extractor, or from the HippoRAG authors' released GPT-3.5 output
(fetched and verified by :mod:`~pathfinding.hipporag.datasets`; nothing from elsewhere ships with
the package). Synonymy edges and entity linking use a character-trigram TF-IDF encoder, or a dense
model behind an embeddings endpoint (:mod:`~pathfinding.hipporag.index.embeddings`); nothing needs
the network unless pointed at an endpoint or fetching the release's files. In the order a query
meets them:

* :mod:`~pathfinding.hipporag.datasets` -- the release's files: registry, cache, verified download;
* :mod:`~pathfinding.hipporag.io` -- loaders (corpora, OpenIE files, question files);
* :mod:`~pathfinding.hipporag.extract` -- Step 2, OpenIE;
* :mod:`~pathfinding.hipporag.index` -- Step 3: build, encoders, synonymy, add/delete, save/load;
* :mod:`~pathfinding.hipporag.casing` and :mod:`~pathfinding.hipporag.reading` -- a question's names read
  from how the corpus writes them (lower-case, all-capitals and stray-capital questions);
* :mod:`~pathfinding.hipporag.query` -- Step 4, query entities and linking;
* :mod:`~pathfinding.hipporag.lexical` -- BM25 over passages and over facts;
* :mod:`~pathfinding.hipporag.retrieve` -- Steps 5-7, seeds to PPR to ranked passages, and
  :mod:`~pathfinding.hipporag.oneshot`, the same walked without compiled kernels;
* :mod:`~pathfinding.hipporag.evaluate` -- R@k, AR@k and bootstrap intervals;
* :mod:`~pathfinding.hipporag.querycache` and :mod:`~pathfinding.hipporag.container` -- the files;
* :mod:`~pathfinding.hipporag.transport` and :mod:`~pathfinding.hipporag.cache` -- what the chat
  and embeddings clients share: bounded retries, and their answers on disk;
* :mod:`~pathfinding.hipporag.safety` -- every file written without losing one: the output guard,
  one writer at a time, atomic writes and what a killed write leaves;
* :mod:`~pathfinding.hipporag.cli` -- the ``pathfinding hipporag`` commands.

Importing this package loads none of them: each public name below is imported on first use. The
MuSiQue experiment and the benchmark live outside the engine, reached by their own paths.
"""

from pathfinding._lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(
        ["all_recall_at_k", "bootstrap_mean_ci", "paired_difference_ci", "recall_at_k", "supporting_ids"],
        "pathfinding.hipporag.evaluate",
    ),
    **dict.fromkeys(["load_2wiki_questions", "load_hotpotqa_questions"], "pathfinding.hipporag.io.formats"),
    **dict.fromkeys(["LoadReport", "Passage", "Question"], "pathfinding.hipporag.io.records"),
    **dict.fromkeys(
        ["load_corpus", "load_openie", "load_query_ner", "load_questions"],
        "pathfinding.hipporag.io",
    ),
    **dict.fromkeys(
        ["evaluate_retrievers", "match_supporting", "read_eval_questions"],
        "pathfinding.hipporag.io.questions",
    ),
    **dict.fromkeys(["HippoIndex", "IndexStats"], "pathfinding.hipporag.index.model"),
    **dict.fromkeys(["build_index", "index_from_openie"], "pathfinding.hipporag.index.build"),
    "CharNgramEncoder": "pathfinding.hipporag.index.encoder",
    "EmbeddingEncoder": "pathfinding.hipporag.index.embeddings",
    **dict.fromkeys(
        ["add_passages", "delete_passages", "renumber_after_delete"], "pathfinding.hipporag.index.maintenance"
    ),
    **dict.fromkeys(["load_index", "save_index"], "pathfinding.hipporag.index.persistence"),
    "cooccurrence_docs": "pathfinding.hipporag.extract.cooccurrence",
    "ChatClient": "pathfinding.hipporag.extract.llm",
    **dict.fromkeys(["llm_query_ner", "run_openie", "write_openie"], "pathfinding.hipporag.extract.openie"),
    "normalize_phrase": "pathfinding.hipporag.text",
    **dict.fromkeys(["BM25Ranker", "FactLinker"], "pathfinding.hipporag.lexical"),
    **dict.fromkeys(["CasingModel", "casing_model"], "pathfinding.hipporag.casing"),
    "read_question": "pathfinding.hipporag.reading",
    **dict.fromkeys(
        ["EXTRACTORS", "capitalised_spans", "link_entities", "ner_lookup", "node_ngrams"],
        "pathfinding.hipporag.query",
    ),
    **dict.fromkeys(["HippoRetriever", "Retrieval"], "pathfinding.hipporag.retrieve"),
    "load_for_query": "pathfinding.hipporag.querycache",
    **dict.fromkeys(["Transport", "UsageStats"], "pathfinding.hipporag.transport"),
    "ResponseCache": "pathfinding.hipporag.cache",
    "OneShotRetriever": "pathfinding.hipporag.oneshot",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
