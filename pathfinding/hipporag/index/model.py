"""The HippoIndex: a built index as data (phrases, graphs, P, specificity, embeddings) and what it derives.

It holds no building, saving or updating code: :mod:`~pathfinding.hipporag.index.build` makes one,
:mod:`~pathfinding.hipporag.index.maintenance` grows or shrinks it, and
:mod:`~pathfinding.hipporag.index.persistence` writes it to a file and reads it back. The index owns
the state it derives (the prepared walk graphs, the transposed embeddings, the phrase lookup), so
every retriever over the same index shares one copy.

A passage has two numbers. Its *position* (a column of P, a row of a ranking) is where it sits in
the index now, and moves when an earlier passage is deleted. Its *id*
(:attr:`HippoIndex.passage_ids`) is what the user knows it by, and never changes: the corpus's own
id (a JSON record's ``id``, ``_id`` or ``doc_id``; for a folder, the file's path, with ``#`` and the
part for a file split in several passages), else the passage's position when it was added, as a
decimal string. :meth:`HippoIndex.positions_of` turns ids into positions.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from pathfinding.core.prepared import PPRGraph, prepare_graph
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.io.records import FileStamp, Source
from pathfinding.hipporag.language.text import index_normalization, normalize_phrase

__all__ = [
    "HippoIndex",
    "IndexStats",
    "PositionalIds",
    "Triple",
    "check_passage_ids",
    "next_free_ids",
    "prepared_key",
    "with_passage_labels",
]

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


class PositionalIds(Sequence):
    """The ids ``"0"``, ``"1"``, ... ``str(n - 1)``: those of an index whose passages were given no
    ids and none deleted, held as a count rather than one string per passage.

    Examples
    --------
    >>> ids = PositionalIds(3)
    >>> list(ids), ids[-1], ids == ["0", "1", "2"]
    (['0', '1', '2'], '2', True)
    """

    def __init__(self, n: int):
        self.n = int(n)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, j):
        if isinstance(j, slice):
            return [str(i) for i in range(self.n)[j]]
        return str(range(self.n)[j])

    def __eq__(self, other) -> bool:
        if isinstance(other, PositionalIds):
            return self.n == other.n
        return isinstance(other, Sequence) and not isinstance(other, str) and list(self) == list(other)

    def __hash__(self):
        return hash(self.n)

    def __repr__(self) -> str:
        return f"PositionalIds({self.n})"

    def position(self, pid: str) -> int:
        """The position of id ``pid`` (its value), or -1 when the index has no such id."""
        return (
            int(pid)
            if pid.isdecimal() and pid.isascii() and str(int(pid)) == pid and int(pid) < self.n
            else -1
        )


def check_passage_ids(ids, n: int) -> Sequence[str]:
    """``ids`` as an index keeps them: ``n`` distinct, non-empty strings (a :class:`PositionalIds`
    is kept as it is). A repeated id is refused with the first one named: an id names one passage.

    Examples
    --------
    >>> check_passage_ids(["a.md", "b.md"], 2)
    ['a.md', 'b.md']
    >>> check_passage_ids(["a.md", "a.md"], 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pathfinding.errors.InvalidValueError: passage id 'a.md' is given to 2 passages (positions 0 and 1)...
    """
    if isinstance(ids, PositionalIds):
        out = ids
    elif isinstance(ids, str) or not isinstance(ids, Sequence):
        raise InvalidTypeError(f"passage ids must be a sequence of strings, got {type(ids).__name__}")
    else:
        out = list(ids)
        for j, x in enumerate(out):
            if not isinstance(x, str) or not x.strip():
                raise InvalidTypeError(f"passage id {j} must be a non-empty string, got {x!r}")
        if len(set(out)) != len(out):
            first: dict[str, int] = {}
            for j, x in enumerate(out):
                if x in first:
                    count = out.count(x)
                    raise InvalidValueError(
                        f"passage id {x!r} is given to {count} passages (positions {first[x]} and {j}); "
                        f"an id names one passage"
                    )
                first[x] = j
    if len(out) != n:
        raise InvalidValueError(f"{len(out)} passage ids for {n} passages")
    return out


def next_free_ids(ids: Sequence[str], k: int) -> list[str]:
    """``k`` ids for new passages: the integers after the largest id that is a decimal integer.

    Examples
    --------
    >>> next_free_ids(["0", "2", "manual.md"], 2)
    ['3', '4']
    """
    if isinstance(ids, PositionalIds):
        top = ids.n - 1
    else:
        top = max((int(x) for x in ids if x.isdecimal() and x.isascii()), default=-1)
    return [str(top + 1 + i) for i in range(k)]


@dataclass(eq=False)
class HippoIndex:
    """A built index. Make one with :func:`build_index` or :func:`index_from_openie`.

    Node ids are positions in the sorted phrase list, so they change when passages are added or
    deleted; the phrase is the stable key (``index.phrase_ids[phrase]``). A passage has a position
    (its column of P, which moves when an earlier one is deleted) and an id, which never changes
    (:attr:`passage_ids`, the module docstring).

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
    passage_ids : sequence of str
        Position -> the passage's id (distinct strings); by default ``"0"``, ``"1"``, ...
        (:class:`PositionalIds`).
    sources : list of Source or None, or None
        Position -> where the passage came from (file, headings, character span), None for a
        passage of unknown origin; None when no passage has one.
    files : dict of str to FileStamp
        Each corpus-folder file some passage came from -> its stamp (content hash and passage
        size), which :mod:`~pathfinding.hipporag.index.sync` compares with the folder.
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
    passage_ids: Sequence[str] | None = field(default=None, repr=False)
    sources: list[Source | None] | None = field(default=None, repr=False)
    files: dict[str, FileStamp] = field(default_factory=dict, repr=False)
    # Not an init argument, so dataclasses.replace() gives the new index an empty one.
    _derived: dict = field(default_factory=dict, repr=False, init=False)

    def __post_init__(self):
        n = self.n_passages
        self.passage_ids = (
            PositionalIds(n) if self.passage_ids is None else check_passage_ids(self.passage_ids, n)
        )
        if self.sources is not None:
            self.sources = list(self.sources)
            if len(self.sources) != n or not all(s is None or isinstance(s, Source) for s in self.sources):
                raise InvalidValueError(f"sources must hold one Source (or None) per passage ({n})")
            if all(s is None for s in self.sources):
                self.sources = None
        self.files = dict(self.files)

    def positions_of(self, ids) -> np.ndarray:
        """The positions of the passages with ids ``ids``, in their order.

        Raises
        ------
        InvalidValueError
            Naming the first id the index does not hold.
        TypeError
            If an id is not a string.

        Examples
        --------
        >>> from pathfinding.hipporag.index.build import build_index
        >>> idx = build_index([[("Ed Wood", "directed", "Plan 9")], [("Plan 9", "filmed in", "Burbank")]])
        >>> idx.positions_of(["1", "0"])
        array([1, 0])
        """
        if isinstance(ids, str):
            raise InvalidTypeError(f"ids must be a sequence of passage ids, got the string {ids!r}")
        ids = list(ids)
        for x in ids:
            if not isinstance(x, str):
                raise InvalidTypeError(
                    f"passage ids are strings (index.passage_ids), got {x!r} ({type(x).__name__})"
                )
        known = self.passage_ids
        if isinstance(known, PositionalIds):
            out = [known.position(x) for x in ids]
        else:
            lookup = self.derived("id_positions", lambda: {x: j for j, x in enumerate(known)})
            out = [lookup.get(x, -1) for x in ids]
        if -1 in out:
            missing = ids[out.index(-1)]
            raise InvalidValueError(
                f"no passage has the id {missing!r} ({self.n_passages} passages; `info --passages` "
                f"lists their ids)"
            )
        return np.asarray(out, dtype=np.int64)

    def source_of(self, j: int) -> Source | None:
        """Where the passage at position ``j`` came from, or None."""
        return None if self.sources is None else self.sources[j]

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

    def forget(self, key) -> None:
        """Drop what :meth:`derived` keeps under ``key``, if anything (it is derived again on next use):
        a caller that has written it to a file frees its memory this way."""
        self._derived.pop(key, None)

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


def with_passage_labels(index: HippoIndex, corpus, *, files=None) -> HippoIndex:
    """``index``, built from ``corpus`` (one passage each, in order), with the corpus's ids and sources.

    ``corpus`` holds :class:`~pathfinding.hipporag.io.records.Passage` records, or anything with
    their ``doc_id`` and ``source`` (the only fields read). A passage's id is its record's own
    (:attr:`~pathfinding.hipporag.io.records.Passage.doc_id`), else its position as a decimal
    string; ``files`` are a folder's file stamps
    (:attr:`~pathfinding.hipporag.io.records.LoadReport.files`).

    Raises
    ------
    InvalidValueError
        If two passages would have one id (a corpus that repeats an id, or gives a record an id
        that is another record's position), naming it.

    Examples
    --------
    >>> from pathfinding.hipporag.index.build import build_index
    >>> from pathfinding.hipporag.io.records import Passage
    >>> corpus = [Passage("Ed Wood", "x", doc_id="ed"), Passage("Plan 9", "y")]
    >>> idx = build_index([[("Ed Wood", "directed", "Plan 9")], [("Plan 9", "filmed in", "Burbank")]])
    >>> list(with_passage_labels(idx, corpus).passage_ids)
    ['ed', '1']
    """
    import dataclasses

    corpus = list(corpus)
    if len(corpus) != index.n_passages:
        raise InvalidValueError(f"the corpus has {len(corpus)} passages, the index {index.n_passages}")
    given = [p.doc_id for p in corpus]
    ids = None if all(x is None for x in given) else [str(j) if x is None else x for j, x in enumerate(given)]
    sources = [p.source for p in corpus]
    return dataclasses.replace(
        index,
        passage_ids=ids,
        sources=sources if any(s is not None for s in sources) else None,
        files=dict(files or {}),
    )
