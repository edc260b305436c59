"""The HippoIndex: a built index as data (phrases, graphs, P, specificity, embeddings) and what it derives.

It holds no building, saving or updating code: :mod:`~pathfinding.hipporag.index.build` makes one,
:mod:`~pathfinding.hipporag.index.maintenance` grows or shrinks it, and
:mod:`~pathfinding.hipporag.index.persistence` writes it to a file and reads it back. The index owns
the state it derives (the prepared walk graphs, the transposed embeddings, the phrase lookup), so
every retriever over the same index shares one copy.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from pathfinding.core.prepared import PPRGraph, prepare_graph
from pathfinding.hipporag.language.text import index_normalization, normalize_phrase

__all__ = ["HippoIndex", "IndexStats", "Triple", "prepared_key"]

Triple = tuple[str, str, str]


def prepared_key(synonymy: bool) -> tuple:
    """Where an index keeps :meth:`HippoIndex.prepared` for ``synonymy`` (:meth:`HippoIndex.derived`)."""
    return ("prepared", bool(synonymy))


@dataclass(frozen=True)
class IndexStats:
    """Counts describing an index (shown by the CLI, checked by the tests)."""

    n_passages: int
    n_triples: int
    n_unique_triples: int
    n_nodes: int
    n_relation_edges: int
    n_synonymy_edges: int
    triples_empty_phrase: int
    triples_self_loop: int
    passages_without_nodes: int

    def summary(self) -> str:
        def n(count: int, thing: str) -> str:  # "1 synonymy edge", "2 synonymy edges"
            return f"{count} {thing}" if count == 1 else f"{count} {thing}s"

        return (
            f"{n(self.n_passages, 'passage')}, {n(self.n_triples, 'triple')} ({self.n_unique_triples} "
            f"unique), {n(self.n_nodes, 'phrase node')}, {n(self.n_relation_edges, 'relation edge')}, "
            f"{n(self.n_synonymy_edges, 'synonymy edge')}; skipped: {n(self.triples_empty_phrase, 'triple')} "
            f"with an empty phrase; {self.triples_self_loop} self-loop "
            f"{'triple adds' if self.triples_self_loop == 1 else 'triples add'} no edge; "
            f"{self.passages_without_nodes} "
            f"{'passage mentions' if self.passages_without_nodes == 1 else 'passages mention'} no node"
        )


@dataclass(eq=False)
class HippoIndex:
    """A built index. Make one with :func:`build_index` or :func:`index_from_openie`.

    Node ids are positions in the sorted phrase list, so they change when passages are added or
    deleted; the phrase is the stable key (``index.phrase_ids[phrase]``). Passage ids are positions
    in the passage list.

    Attributes
    ----------
    phrases : list of str
        Node id -> normalised phrase (sorted, so ids do not depend on triple order).
    phrase_ids : dict of str to int
        Phrase -> node id (built on first use, then kept).
    relation_graph : scipy.sparse.csr_array, shape (n_nodes, n_nodes)
        Symmetric; weight = number of triples linking the pair.
    synonymy_graph : scipy.sparse.csr_array, shape (n_nodes, n_nodes)
        Symmetric; weight = cosine, only on pairs without a relation edge.
    mentions : scipy.sparse.csr_array, shape (n_nodes, n_passages)
        The count matrix P.
    specificity : numpy.ndarray, shape (n_nodes,)
        s_i = 1/|P_i|.
    node_embeddings : sparse matrix or ndarray, shape (n_nodes, d)
        The encoder's unit rows for the phrases.
    encoder : callable
        Used again to link query entities (a fitted copy when the build fitted it).
    passages : list of str
        Passage texts (for the BM25 fallback), may be empty.
    stats : IndexStats
    triples : list of tuple of (str, str, str)
        Passage id -> its normalised triples (without those with an empty phrase), for deletes.
    dropped : numpy.ndarray of int64, shape (n_passages,)
        Passage id -> triples left out for an empty phrase.
    pairs : scipy.sparse.csr_array, shape (n_nodes, n_nodes)
        Row i: node i's ``max_synonyms`` nearest eligible nodes with cosine >= tau, before the
        symmetry and the relation mask (:func:`similar_pairs`); files saved before held every pair.
    settings : dict
        ``tau``, ``max_synonyms``, ``synonymy``, ``fit_encoder``, ``normalization`` and
        ``search_budget`` of the build.
    """

    phrases: list[str]
    relation_graph: sp.csr_array
    synonymy_graph: sp.csr_array
    mentions: sp.csr_array
    specificity: np.ndarray
    node_embeddings: object
    encoder: Callable
    passages: list[str]
    stats: IndexStats
    triples: list[tuple[Triple, ...]] = field(default_factory=list, repr=False)
    dropped: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)
    pairs: sp.csr_array | None = field(default=None, repr=False)
    settings: dict = field(default_factory=dict)
    # Not an init argument, so dataclasses.replace() gives the new index an empty one.
    _derived: dict = field(default_factory=dict, repr=False, init=False)

    def derived(self, key, build: Callable[[], object]):
        """The index's one cache of state derived from it: ``build()`` once per ``key``, then kept.

        Everything computed from an index and reused across queries lives here (the prepared walk
        graphs, the transposed embeddings, the phrase lookup, and what the query and retrieval
        modules derive: the linker's posting lists, the fact BM25, the graph with passage nodes),
        so every retriever over one index shares one copy. An index is not changed after it is
        built: :mod:`~pathfinding.hipporag.index.maintenance` returns a new one, which starts empty.
        """
        if key not in self._derived:
            self._derived[key] = build()
        return self._derived[key]

    @property
    def phrase_ids(self) -> dict[str, int]:
        """Phrase -> node id, built on first use (an update need not pay for a lookup it never uses)."""
        return self.derived(
            "phrase_ids", lambda: dict(zip(self.phrases, range(len(self.phrases)), strict=True))
        )

    def node_id(self, phrase: str) -> int:
        """Node id of a normalised ``phrase``, -1 if it is no node: a bisection of the sorted phrases,
        which spares a question the :attr:`phrase_ids` table (a dict entry per node).

        Examples
        --------
        >>> from pathfinding.hipporag.index.build import build_index
        >>> idx = build_index([[("Ed Wood", "directed", "Plan 9")]])
        >>> idx.node_id("plan 9"), idx.node_id("plan 10")
        (1, -1)
        """
        i = bisect.bisect_left(self.phrases, phrase)
        return i if i < len(self.phrases) and self.phrases[i] == phrase else -1

    def normalize(self, text: str) -> str:
        """``text`` as a node key under this index's normalisation rule.

        See :func:`~pathfinding.hipporag.language.text.normalize_phrase`; an index saved before the rule was
        a setting uses HippoRAG v1's ASCII rule.
        """
        return normalize_phrase(text, rule=index_normalization(self.settings))

    @property
    def n_nodes(self) -> int:
        return len(self.phrases)

    @property
    def n_passages(self) -> int:
        return self.mentions.shape[1]

    def graph(self, *, synonymy: bool = True) -> sp.csr_array:
        """The weighted adjacency used by PPR, with or without the synonymy edges."""
        return self.relation_graph + self.synonymy_graph if synonymy else self.relation_graph

    def prepared(self, *, synonymy: bool = True) -> PPRGraph:
        """:func:`pathfinding.core.prepared.prepare_graph` of :meth:`graph`, computed once and cached."""
        key = bool(synonymy)
        return self.derived(prepared_key(key), lambda: prepare_graph(self.graph(synonymy=key)))

    def embeddings_T(self):
        """Transposed node embeddings (CSR for a sparse encoder), for fast query linking."""
        E = self.node_embeddings
        return self.derived(
            "embeddings_T", lambda: sp.csr_array(E.T) if sp.issparse(E) else np.ascontiguousarray(E.T)
        )
