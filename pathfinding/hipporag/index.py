"""The HippoRAG index built from OpenIE triples: phrase nodes, relation and synonymy edges, and P.

Steps, as in HippoRAG v1 (``src/create_graph.py`` of the release):

1. every subject and object is normalised with :func:`normalize_phrase` and becomes a node;
2. each triple links its subject and object by an undirected *relation edge*; the weight of a pair is
   the number of triples that link it (over the whole corpus);
3. *synonymy edges* join phrases whose encoder cosine is at least ``tau`` (weight = the cosine),
   with at most ``max_synonyms`` neighbours per node; as in v1, phrases with fewer than three
   letters or digits get none;
4. ``P[i, j]`` is the number of distinct triples of passage j that mention node i as subject or
   object (v1's docs-to-facts x facts-to-phrases product). The passages' ``extracted_entities``
   are *not* counted: v1 builds nodes and P from triples only, and so do we, which is what makes
   the node count comparable;
5. node specificity s_i = 1/|P_i| (:func:`pathfinding.specificity.node_specificity`).

The encoder is anything with ``__call__(list[str]) -> (n, d) matrix of unit rows`` (dense or
sparse), optionally with ``fit(list[str])`` called once on the node phrases. The default,
:class:`CharNgramEncoder`, is a character-trigram TF-IDF that needs no model download; a neural
sentence encoder can be passed instead, and the index only ever sees the matrix it returns.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import check_float, check_int
from pathfinding.ppr import PPRGraph, prepare_graph
from pathfinding.specificity import node_specificity

__all__ = [
    "CharNgramEncoder",
    "HippoIndex",
    "IndexStats",
    "build_index",
    "cosine_neighbours",
    "index_from_openie",
    "normalize_phrase",
]

_NON_ALNUM = re.compile("[^A-Za-z0-9 ]")


def normalize_phrase(text: str) -> str:
    """HippoRAG v1's phrase normalisation: lower-case, non-alphanumerics to spaces, strip.

    Examples
    --------
    >>> normalize_phrase("  Ed Wood's (film) ")
    'ed wood s  film'
    """
    return _NON_ALNUM.sub(" ", text.lower()).strip()


class CharNgramEncoder:
    """Character n-gram TF-IDF vectors with unit L2 norm: an encoder that needs no model download.

    Character trigrams inside word boundaries (``analyzer="char_wb"``) match phrases that differ by
    inflection, punctuation, word order or a typo ("beatles" / "the beatles"), which is what
    synonymy edges and entity linking need most from an offline encoder; word-level TF-IDF would miss
    "Sudhof" vs "Südhof"-style near misses and has nothing to say about one-word phrases. IDF is fit on
    the node phrases, so trigrams shared by thousands of phrases ("ion", " th") weigh little.

    Parameters
    ----------
    ngram_range : tuple of int, default (3, 3)
    analyzer : {"char_wb", "char"}, default "char_wb"
    sublinear_tf : bool, default True

    Examples
    --------
    >>> enc = CharNgramEncoder().fit(["the beatles", "beatles", "ed wood"])
    >>> X = enc(["the beatles", "beatles", "ed wood"])
    >>> (X @ X.T).toarray().round(2)
    array([[1.  , 0.76, 0.  ],
           [0.76, 1.  , 0.  ],
           [0.  , 0.  , 1.  ]])
    """

    def __init__(
        self, *, ngram_range: tuple[int, int] = (3, 3), analyzer: str = "char_wb", sublinear_tf=True
    ):
        if analyzer not in ("char_wb", "char"):
            raise ValueError(f"analyzer must be 'char_wb' or 'char', got {analyzer!r}")
        lo = check_int("ngram_range[0]", ngram_range[0], low=1)
        hi = check_int("ngram_range[1]", ngram_range[1], low=lo)
        self.ngram_range = (lo, hi)
        self.analyzer = analyzer
        self.sublinear_tf = bool(sublinear_tf)
        self._vectorizer = None

    def fit(self, texts: Sequence[str]) -> CharNgramEncoder:
        """Learn the n-gram vocabulary and IDF from ``texts`` (the node phrases)."""
        from sklearn.feature_extraction.text import TfidfVectorizer

        texts = list(texts)
        self._vectorizer = TfidfVectorizer(
            analyzer=self.analyzer,
            ngram_range=self.ngram_range,
            lowercase=True,
            sublinear_tf=self.sublinear_tf,
            dtype=np.float64,
        )
        # The index encodes the very texts it fit on: keep that matrix instead of analysing twice.
        fitted = sp.csr_array(self._vectorizer.fit_transform(texts))
        fitted.sort_indices()  # fit_transform remaps columns; transform's output is sorted
        self._fitted = (texts, fitted)

        self._analyze = self._vectorizer.build_analyzer()
        self._vocab = self._vectorizer.vocabulary_
        self._idf = self._vectorizer.idf_
        return self

    def __call__(self, texts: Sequence[str]) -> sp.csr_array:
        """Encode ``texts`` as unit rows (all-zero for a text with no known n-gram)."""
        if self._vectorizer is None:
            raise ValueError("CharNgramEncoder must be fit on the node phrases before encoding")
        texts = list(texts)
        fitted = getattr(self, "_fitted", None)
        if fitted is not None and len(texts) == len(fitted[0]) and texts == fitted[0]:
            self._fitted = None  # handed over once, not held twice
            return fitted[1]
        if len(texts) > self.small_batch:
            return sp.csr_array(self._vectorizer.transform(texts))
        return self._transform_small(texts)

    small_batch = 32
    """Batches up to this size skip scikit-learn's per-call overhead (about 1 ms): a query's few
    entities are encoded here with the same analyzer, vocabulary and IDF (the tests check both paths
    agree)."""

    def _transform_small(self, texts: list[str]) -> sp.csr_array:
        indptr, indices, data = [0], [], []
        for text in texts:
            counts: dict[int, int] = {}
            for gram in self._analyze(text):
                j = self._vocab.get(gram)
                if j is not None:
                    counts[j] = counts.get(j, 0) + 1
            cols = np.fromiter(sorted(counts), dtype=np.int64, count=len(counts))
            tf = np.array([counts[j] for j in cols.tolist()], dtype=np.float64)
            if self.sublinear_tf:
                tf = 1.0 + np.log(tf)
            w = tf * self._idf[cols]
            norm = np.sqrt(w @ w)
            if norm > 0:
                w /= norm
            indices.extend(cols.tolist())
            data.extend(w.tolist())
            indptr.append(len(indices))
        return sp.csr_array(
            (
                np.asarray(data, dtype=np.float64),
                np.asarray(indices, dtype=np.int32),
                np.asarray(indptr, dtype=np.int32),
            ),
            shape=(len(texts), self._idf.size),
        )

    def __repr__(self) -> str:
        return f"CharNgramEncoder(ngram_range={self.ngram_range}, analyzer={self.analyzer!r})"


def _as_unit_rows(name: str, X, n: int):
    """Check an encoder's output: n rows, finite, each of norm 1 (or 0 for an unencodable text)."""
    if sp.issparse(X):
        X = sp.csr_array(X, dtype=np.float64)
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        finite = np.all(np.isfinite(X.data))
    else:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"{name} must return a 2-D matrix, got shape {X.shape}")
        norms = np.linalg.norm(X, axis=1)
        finite = np.all(np.isfinite(X))
    if X.shape[0] != n:
        raise ValueError(f"{name} must return one row per text ({n}), got {X.shape[0]} rows")
    if not finite:
        raise ValueError(f"{name} returned non-finite values")
    bad = ~(np.isclose(norms, 1.0, atol=1e-6) | (norms == 0))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name} must return unit rows (L2 norm 1), row {i} has norm {norms[i]:.6g}")
    return X


def _bar(items, desc: str, n_passages: int):
    """A tqdm bar on stderr for build steps of corpora large enough for a step to take seconds."""
    import sys

    from tqdm.auto import tqdm

    return tqdm(items, desc=desc, file=sys.stderr, leave=False,
                disable=None if n_passages >= _BAR_MIN_PASSAGES else True)


_BAR_MIN_PASSAGES = 20_000


def cosine_neighbours(X, *, tau: float = 0.8, max_neighbours: int = 100, chunk: int = 2048) -> sp.csr_array:
    """Pairs of rows whose cosine is at least ``tau``, at most ``max_neighbours`` per row.

    Rows are unit vectors, so the cosine is a dot product; the product is computed ``chunk`` rows at
    a time (sparse x sparse for a sparse X) so memory stays bounded.

    Parameters
    ----------
    X : sparse matrix or ndarray, shape (n, d)
        Unit rows.
    tau : float, default 0.8
        Threshold in [-1, 1].
    max_neighbours : int, default 100
        Keep the ``max_neighbours`` largest cosines of each row (ties broken by lower column id).
    chunk : int, default 2048

    Returns
    -------
    scipy.sparse.csr_array, shape (n, n)
        ``S[i, j]`` = cosine for kept pairs, no diagonal. Not necessarily symmetric (the cap is per
        row); :func:`build_index` symmetrises it.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])
    >>> cosine_neighbours(X, tau=0.5).toarray()
    array([[0. , 0.8, 0. ],
           [0.8, 0. , 0.6],
           [0. , 0.6, 0. ]])
    """
    # Sparse rows go through the exact prefix filter (same pairs, a fraction of the all-pairs work);
    # dense rows through the chunked all-pairs product. Both live in neighbours.py.
    from pathfinding.hipporag.neighbours import cosine_neighbours_prefix

    return cosine_neighbours_prefix(X, tau=tau, max_neighbours=max_neighbours, chunk=chunk)


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
        return (
            f"{self.n_passages} passages, {self.n_triples} triples ({self.n_unique_triples} unique), "
            f"{self.n_nodes} phrase nodes, {self.n_relation_edges} relation edges, "
            f"{self.n_synonymy_edges} synonymy edges; skipped: {self.triples_empty_phrase} triples with "
            f"an empty phrase; {self.triples_self_loop} self-loop triples add no edge; "
            f"{self.passages_without_nodes} passages mention no node"
        )


@dataclass(eq=False)
class HippoIndex:
    """A built index. Make one with :func:`build_index` or :func:`index_from_openie`.

    Attributes
    ----------
    phrases : list of str
        Node id -> normalised phrase (sorted, so ids do not depend on triple order).
    phrase_ids : dict of str to int
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
        Used again to link query entities.
    passages : list of str
        Passage texts (for the BM25 fallback), may be empty.
    stats : IndexStats
    """

    phrases: list[str]
    phrase_ids: dict[str, int]
    relation_graph: sp.csr_array
    synonymy_graph: sp.csr_array
    mentions: sp.csr_array
    specificity: np.ndarray
    node_embeddings: object
    encoder: Callable
    passages: list[str]
    stats: IndexStats
    _prepared: dict = field(default_factory=dict, repr=False)
    _embeddings_T: object = field(default=None, repr=False)

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
        """:func:`pathfinding.ppr.prepare_graph` of :meth:`graph`, computed once and cached."""
        key = bool(synonymy)
        if key not in self._prepared:
            self._prepared[key] = prepare_graph(self.graph(synonymy=key))
        return self._prepared[key]

    def embeddings_T(self):
        """Transposed node embeddings (CSR for a sparse encoder), for fast query linking."""
        if self._embeddings_T is None:
            E = self.node_embeddings
            self._embeddings_T = sp.csr_array(E.T) if sp.issparse(E) else np.ascontiguousarray(E.T)
        return self._embeddings_T


def build_index(
    triples_per_passage: Sequence[Iterable[Sequence[str]]],
    *,
    passages: Sequence[str] | None = None,
    encoder: Callable | None = None,
    tau: float = 0.8,
    max_synonyms: int = 100,
    synonymy: bool = True,
) -> HippoIndex:
    """Build the HippoRAG graph and count matrix from (subject, relation, object) triples.

    Parameters
    ----------
    triples_per_passage : sequence of iterables of (str, str, str)
        ``triples_per_passage[j]`` holds passage j's triples. A passage may have none.
    passages : sequence of str, optional
        The passage texts, same length; kept for the BM25 fallback.
    encoder : callable, optional
        ``list[str] -> (n, d)`` unit rows; if it has ``fit``, that is called on the phrases first.
        Default :class:`CharNgramEncoder` ``()``.
    tau : float, default 0.8
        Synonymy threshold on the cosine (HippoRAG uses 0.8).
    max_synonyms : int, default 100
        Cap on synonymy neighbours per node (v1 uses about 100).
    synonymy : bool, default True
        False builds no synonymy edges (and skips encoding the neighbours, not the phrases).

    Returns
    -------
    HippoIndex

    Raises
    ------
    ValueError
        If a triple does not have three string elements, ``passages`` has the wrong length, or the
        encoder does not return unit rows.

    Notes
    -----
    Triples whose subject or object normalises to the empty string are skipped (counted in
    ``stats.triples_empty_phrase``): v1 keeps ``""`` as a node, which joins unrelated passages. A
    triple whose subject and object are the same phrase adds no edge (``triples_self_loop``) but
    still counts in P.

    Examples
    --------
    Three passages: two share the node "ed wood".

    >>> idx = build_index([
    ...     [("Ed Wood", "directed", "Plan 9")],
    ...     [("Ed Wood", "born in", "Poughkeepsie"), ("Poughkeepsie", "in", "New York")],
    ...     [("Plan nine", "is", "a film")],
    ... ], tau=0.5)
    >>> idx.phrases
    ['a film', 'ed wood', 'new york', 'plan 9', 'plan nine', 'poughkeepsie']
    >>> idx.mentions.toarray()[1], idx.specificity[1]
    (array([1., 1., 0.]), np.float64(0.5))
    >>> float(idx.synonymy_graph[3, 4]) > 0.5
    True
    """
    tau = check_float("tau", tau, low=-1.0, high=1.0)
    max_synonyms = check_int("max_synonyms", max_synonyms, low=1)
    n_pass = len(triples_per_passage)
    if passages is not None and len(passages) != n_pass:
        raise ValueError(f"passages must have one text per passage ({n_pass}), got {len(passages)}")
    cleaned: list[list[tuple[str, str, str]]] = []
    empty = 0
    n_triples = 0
    # Bars show only on a terminal (disable=None) and only for builds long enough to watch.
    for j, triples in enumerate(_bar(triples_per_passage, "index: triples", n_pass)):
        doc = []
        for t_i, t in enumerate(triples):
            if len(t) != 3 or not all(isinstance(x, str) for x in t):
                raise ValueError(
                    f"triples_per_passage[{j}][{t_i}] must be three strings "
                    f"(subject, relation, object), got {t!r}"
                )
            n_triples += 1
            s, r, o = (normalize_phrase(x) for x in t)
            if not s or not o:
                empty += 1
                continue
            doc.append((s, r, o))
        cleaned.append(doc)
    phrases = sorted({p for doc in cleaned for s, _, o in doc for p in (s, o)})
    ids = {p: i for i, p in enumerate(phrases)}
    n = len(phrases)
    if n == 0:
        raise ValueError("no phrase nodes: every passage has no usable triple")

    # Relation edges: every triple counts once towards its pair (both directions), so a pair stated
    # by two triples, in one passage or two, has weight 2. P counts distinct triples per passage
    # (v1's fact dictionary merges a repeated triple within a passage).
    heads, tails, loops = [], [], 0
    p_rows, p_cols = [], []
    unique_triples = set()
    for j, doc in enumerate(cleaned):
        for s, _r, o in doc:
            if s == o:
                loops += 1
            else:
                heads.append(ids[s])
                tails.append(ids[o])
        for s, r, o in dict.fromkeys(doc):
            unique_triples.add((s, r, o))
            for p in {s, o}:
                p_rows.append(ids[p])
                p_cols.append(j)
    h = np.asarray(heads, dtype=np.int64)
    t = np.asarray(tails, dtype=np.int64)
    R = sp.csr_array((np.ones(2 * h.size), (np.r_[h, t], np.r_[t, h])), shape=(n, n))
    R.sum_duplicates()
    P = sp.csr_array((np.ones(len(p_rows)), (p_rows, p_cols)), shape=(n, n_pass))
    P.sum_duplicates()

    enc = encoder if encoder is not None else CharNgramEncoder()
    for _ in _bar([0], f"index: encode {n} phrases", n_pass):
        if hasattr(enc, "fit"):
            enc.fit(phrases)
        E = _as_unit_rows("encoder", enc(phrases), n)

    if synonymy:
        eligible = np.array([len(re.sub("[^a-z0-9]", "", p)) > 2 for p in phrases])
        Ee = E[np.flatnonzero(eligible)] if eligible.any() else E[:0]
        S_e = cosine_neighbours(Ee, tau=tau, max_neighbours=max_synonyms) if Ee.shape[0] else None
        if S_e is not None and S_e.nnz:
            where = np.flatnonzero(eligible)
            S_e = sp.coo_array(S_e)
            S = sp.csr_array((S_e.data, (where[S_e.row], where[S_e.col])), shape=(n, n))
            S = S.maximum(S.T)
            # A pair already linked by a triple keeps its relation count only.
            S = S - S.multiply(R > 0)
            S = sp.csr_array(S)
            S.eliminate_zeros()
        else:
            S = sp.csr_array((n, n))
    else:
        S = sp.csr_array((n, n))

    stats = IndexStats(
        n_passages=n_pass,
        n_triples=n_triples,
        n_unique_triples=len(unique_triples),
        n_nodes=n,
        n_relation_edges=int(sp.triu(R, k=1).nnz),
        n_synonymy_edges=int(sp.triu(S, k=1).nnz),
        triples_empty_phrase=empty,
        triples_self_loop=loops,
        passages_without_nodes=int(np.sum(np.diff(sp.csc_array(P).indptr) == 0)),
    )
    return HippoIndex(
        phrases=phrases,
        phrase_ids=ids,
        relation_graph=sp.csr_array(R),
        synonymy_graph=sp.csr_array(S),
        mentions=P,
        specificity=node_specificity(P),
        node_embeddings=E,
        encoder=enc,
        passages=list(passages) if passages is not None else [],
        stats=stats,
    )


def index_from_openie(openie_passages, **kwargs) -> HippoIndex:
    """:func:`build_index` on the passages returned by :func:`pathfinding.hipporag.io.load_openie`.

    Keyword arguments are passed on (``encoder``, ``tau``, ``max_synonyms``, ``synonymy``).

    Examples
    --------
    >>> from pathfinding.hipporag.io import load_openie, vendored
    >>> docs, _ = load_openie(vendored("openie"))
    >>> idx = index_from_openie(docs[:20])
    >>> idx.n_passages
    20
    """
    docs = list(openie_passages)
    return build_index([d.triples for d in docs], passages=[d.title + "\n" + d.text for d in docs], **kwargs)
