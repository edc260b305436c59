"""HippoRAG on real text: OpenIE triples to an index, retrieval with PPR, recall against BM25.

Triples come from an LLM through any OpenAI-compatible endpoint (:mod:`~pathfinding.hipporag.openie`,
two steps as in the paper, resumable), from a model-free co-occurrence extractor
(:mod:`~pathfinding.hipporag.cooccurrence`), or from the HippoRAG authors' released GPT-3.5 output for
the MuSiQue tuning set (vendored in ``pathfinding/data/hipporag``). Synonymy edges and entity linking
use a character-trigram TF-IDF encoder; nothing here needs the network unless you point it at an LLM.

Modules: :mod:`~pathfinding.hipporag.io` and :mod:`~pathfinding.hipporag.formats` (loaders),
:mod:`~pathfinding.hipporag.llm`, :mod:`~pathfinding.hipporag.openie`,
:mod:`~pathfinding.hipporag.parsing` (LLM OpenIE), :mod:`~pathfinding.hipporag.index` (graph,
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

from pathfinding.hipporag.cooccurrence import cooccurrence_docs
from pathfinding.hipporag.evaluate import (
    all_recall_at_k,
    bootstrap_mean_ci,
    paired_difference_ci,
    recall_at_k,
    supporting_ids,
)
from pathfinding.hipporag.formats import load_2wiki_questions, load_hotpotqa_questions
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
from pathfinding.hipporag.llm import ChatClient
from pathfinding.hipporag.maintenance import add_passages, delete_passages, renumber_after_delete
from pathfinding.hipporag.openie import llm_query_ner, run_openie, write_openie
from pathfinding.hipporag.persistence import load_index, save_index
from pathfinding.hipporag.query import EXTRACTORS, capitalised_spans, link_entities, ner_lookup, node_ngrams
from pathfinding.hipporag.realtext import benchmark, findings_section, musique_index, run_realtext
from pathfinding.hipporag.retrieve import BM25Ranker, HippoRetriever, Retrieval

__all__ = [
    "add_passages",
    "all_recall_at_k",
    "benchmark",
    "BM25Ranker",
    "bootstrap_mean_ci",
    "build_index",
    "capitalised_spans",
    "CharNgramEncoder",
    "ChatClient",
    "check_unit_rows",
    "cooccurrence_docs",
    "delete_passages",
    "EXTRACTORS",
    "FactLinker",
    "findings_section",
    "FormatError",
    "HippoIndex",
    "HippoRetriever",
    "index_from_openie",
    "link_entities",
    "llm_query_ner",
    "load_2wiki_questions",
    "load_corpus",
    "load_hotpotqa_questions",
    "load_index",
    "load_openie",
    "load_query_ner",
    "load_questions",
    "LoadReport",
    "musique_index",
    "ner_lookup",
    "node_ngrams",
    "normalize_phrase",
    "paired_difference_ci",
    "recall_at_k",
    "renumber_after_delete",
    "Retrieval",
    "run_openie",
    "run_realtext",
    "save_index",
    "supporting_ids",
    "vendored",
    "write_openie",
]
