"""HippoRAG on real text: index released OpenIE triples, retrieve with PPR, compare with BM25.

No LLM and no network: the triples are the HippoRAG authors' released GPT-3.5 OpenIE output for
the MuSiQue tuning set (vendored in ``pathfinding/data/hipporag``), synonymy edges and entity
linking use a character-trigram TF-IDF encoder, and query entities come from offline extractors.

Modules: :mod:`~pathfinding.hipporag.io` (loaders), :mod:`~pathfinding.hipporag.index` (graph,
P, specificity), :mod:`~pathfinding.hipporag.encoder` (the TF-IDF phrase encoder),
:mod:`~pathfinding.hipporag.persistence` (one-file save and load),
:mod:`~pathfinding.hipporag.maintenance` (add and delete passages),
:mod:`~pathfinding.hipporag.bench_index` (add versus rebuild),
:mod:`~pathfinding.hipporag.query` (entities and linking),
:mod:`~pathfinding.hipporag.lexical` (BM25 over passages and over facts),
:mod:`~pathfinding.hipporag.retrieve` (PPR retrieval), :mod:`~pathfinding.hipporag.evaluate`
(R@k, AR@k, bootstrap), :mod:`~pathfinding.hipporag.realtext` (the experiment, findings, benchmark),
:mod:`~pathfinding.hipporag.sensitivity` (the default's weights over a grid).
"""

from pathfinding.hipporag.evaluate import (
    all_recall_at_k,
    bootstrap_mean_ci,
    paired_difference_ci,
    recall_at_k,
    supporting_ids,
)
from pathfinding.hipporag.index import (
    CharNgramEncoder,
    HippoIndex,
    build_index,
    check_unit_rows,
    index_from_openie,
    normalize_phrase,
)
from pathfinding.hipporag.io import (
    FormatError,
    LoadReport,
    load_corpus,
    load_openie,
    load_query_ner,
    load_questions,
    vendored,
)
from pathfinding.hipporag.lexical import FactLinker
from pathfinding.hipporag.maintenance import add_passages, delete_passages, renumber_after_delete
from pathfinding.hipporag.persistence import load_index, save_index
from pathfinding.hipporag.query import EXTRACTORS, capitalised_spans, link_entities, ner_lookup, node_ngrams
from pathfinding.hipporag.realtext import benchmark, findings_section, run_realtext
from pathfinding.hipporag.retrieve import BM25Ranker, HippoRetriever, Retrieval

__all__ = [
    "BM25Ranker",
    "CharNgramEncoder",
    "EXTRACTORS",
    "FactLinker",
    "FormatError",
    "HippoIndex",
    "HippoRetriever",
    "LoadReport",
    "Retrieval",
    "all_recall_at_k",
    "benchmark",
    "bootstrap_mean_ci",
    "add_passages",
    "build_index",
    "capitalised_spans",
    "check_unit_rows",
    "delete_passages",
    "findings_section",
    "index_from_openie",
    "link_entities",
    "load_corpus",
    "load_index",
    "load_openie",
    "load_query_ner",
    "load_questions",
    "ner_lookup",
    "node_ngrams",
    "normalize_phrase",
    "paired_difference_ci",
    "recall_at_k",
    "renumber_after_delete",
    "run_realtext",
    "save_index",
    "supporting_ids",
    "vendored",
]
