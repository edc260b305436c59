"""The HippoRAG index built from OpenIE triples: phrase nodes, relation and synonymy edges, and P.

Steps, as in HippoRAG v1 (``src/create_graph.py`` of the release), each a function here so that
:func:`build_index` and the incremental updates of :mod:`~pathfinding.hipporag.index.maintenance` share them:

1. every subject and object is normalised with :func:`normalize_phrase` and becomes a node
   (:func:`clean_triples`); the rule is Unicode-aware by default and v1's ASCII rule on request
   (``normalization="ascii"``, :mod:`pathfinding.hipporag.language.text`), and the index keeps it in
   ``settings`` so that queries and updates normalise the same way;
2. each triple links its subject and object by an undirected *relation edge*; the weight of a pair is
   the number of triples that link it (over the whole corpus) (:func:`relation_and_mentions`);
3. *synonymy edges* join each phrase to its ``max_synonyms`` nearest phrases whose encoder cosine is
   at least ``tau`` (weight = the cosine), found by a search bounded per node (both directions of a
   pair count, so a node may end with more); as in v1, phrases with fewer than three letters or
   digits get none (:func:`fit_encode`, :func:`similar_pairs`,
   :func:`~pathfinding.hipporag.index.synonymy.synonymy_edges`);
4. ``P[i, j]`` is the number of distinct triples of passage j that mention node i as subject or
   object (v1's docs-to-facts x facts-to-phrases product). The passages' ``extracted_entities``
   are *not* counted: v1 builds nodes and P from triples only, and so do we, which is what makes
   the node count comparable. The paper's prose (§2.3) defines P instead as how many times each
   phrase appears in each passage; ``build_index(..., mentions="text")`` builds that P
   (:func:`text_mentions`) so the two can be compared;
5. node specificity s_i = 1/|P_i| (:func:`pathfinding.core.specificity.node_specificity`).

The encoder is anything that maps ``list[str]`` to a matrix of unit rows (optionally with ``fit``,
called on a copy); the default :class:`CharNgramEncoder` needs no model.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import check_float, check_int
from pathfinding.core.specificity import node_specificity
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.encoder import CharNgramEncoder
from pathfinding.hipporag.index.model import HippoIndex, IndexStats
from pathfinding.hipporag.language.text import NORMALIZATIONS, normalize_phrase

__all__ = [
    "BUILD_STAGES",
    "build_index",
    "check_unit_rows",
    "clean_triples",
    "cosine_neighbours",
    "encode_phrases",
    "fit_encode",
    "index_from_openie",
    "prepare_encoder",
    "mention_counts",
    "relation_and_mentions",
    "relation_counts",
    "similar_pairs",
    "text_mentions",
]


Triple = tuple[str, str, str]

UNIT_NORM_TOL = 1e-5
"""How far from 1 an encoder's row norm may be: float32 vectors normalised by a model are this close."""


def check_unit_rows(name: str, X, n: int):
    """``X`` as float64 (CSR if sparse) after checking an encoder's output: ``n`` rows, finite, each of
    norm 1 within ``UNIT_NORM_TOL`` (or 0 for an unencodable text); else a ValueError that starts with
    ``name``.

    Examples
    --------
    >>> check_unit_rows("encoder", [[0.6, 0.8], [0.0, 0.0]], 2)
    array([[0.6, 0.8],
           [0. , 0. ]])
    """
    if sp.issparse(X):
        X = sp.csr_array(X, dtype=np.float64)
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        finite = np.all(np.isfinite(X.data))
    else:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise InvalidValueError(f"{name} must return a 2-D matrix, got shape {X.shape}")
        norms = np.linalg.norm(X, axis=1)
        finite = np.all(np.isfinite(X))
    if X.shape[0] != n:
        raise InvalidValueError(f"{name} must return one row per text ({n}), got {X.shape[0]} rows")
    if not finite:
        raise InvalidValueError(f"{name} returned non-finite values")
    bad = ~((np.abs(norms - 1.0) <= UNIT_NORM_TOL) | (norms == 0))
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidValueError(f"{name} must return unit rows (L2 norm 1), row {i} has norm {norms[i]:.6g}")
    return X


def cosine_neighbours(X, *, tau: float = 0.8, max_neighbours: int = 100, chunk: int = 2048) -> sp.csr_array:
    """Pairs of rows whose cosine is at least ``tau``, at most ``max_neighbours`` per row, exactly.

    Rows are unit vectors, so the cosine is a dot product. Sparse rows go through the prefix filter
    of :mod:`~pathfinding.hipporag.index.neighbours` (the all-pairs product's pairs for a fraction of
    its work), dense rows through the product, ``chunk`` rows at a time so memory stays bounded.

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
    from pathfinding.hipporag.index.neighbours import cosine_neighbours_prefix

    return cosine_neighbours_prefix(X, tau=tau, max_neighbours=max_neighbours, chunk=chunk)


def clean_triples(
    triples_per_passage, *, normalization: str = "unicode"
) -> tuple[list[tuple[Triple, ...]], np.ndarray]:
    """Step 1: check and normalise every triple; leave out those with an empty subject or object.

    ``normalization`` names the rule of :func:`normalize_phrase`.

    Returns
    -------
    triples : list of tuple of (str, str, str)
        Per passage, its normalised triples in order.
    dropped : numpy.ndarray of int64
        Per passage, the triples left out because a phrase normalised to ``""``.

    Raises
    ------
    ValueError
        If a triple is not three strings (the message gives its position).

    Examples
    --------
    >>> clean_triples([[("Ed Wood", "Directed", "Plan 9"), ("!!", "is", "x")]])
    ([(('ed wood', 'directed', 'plan 9'),)], array([1]))
    """
    if isinstance(triples_per_passage, str):
        raise InvalidTypeError("triples_per_passage must be a sequence of lists of triples, got a string")
    cleaned: list[tuple[Triple, ...]] = []
    dropped = []
    # Each distinct text is normalised once and its result shared: a corpus names its entities many
    # times, and a million passages' triples would otherwise hold a copy of a name per mention.
    memo: dict[str, str] = {}
    shared: dict[str, str] = {}

    def norm(x: str) -> str:
        out = memo.get(x)
        if out is None:
            out = normalize_phrase(x, rule=normalization)
            out = memo[x] = shared.setdefault(out, out)  # two spellings, one normalised object
        return out

    for j, triples in enumerate(triples_per_passage):
        doc = []
        empty = 0
        for t_i, t in enumerate(triples):
            if isinstance(t, str) or len(t) != 3 or not all(isinstance(x, str) for x in t):
                raise InvalidValueError(
                    f"triples_per_passage[{j}][{t_i}] must be three strings "
                    f"(subject, relation, object), got {t!r}"
                )
            s, r, o = norm(t[0]), norm(t[1]), norm(t[2])
            if not s or not o:
                empty += 1
                continue
            doc.append((s, r, o))
        cleaned.append(tuple(doc))
        dropped.append(empty)
    return cleaned, np.asarray(dropped, dtype=np.int64)


def relation_and_mentions(triples, ids: dict[str, int], n_nodes: int) -> tuple[sp.csr_array, sp.csr_array]:
    """Steps 2 and 4 (:func:`relation_counts`, :func:`mention_counts`) of the same triples."""
    return relation_counts(triples, ids, n_nodes), mention_counts(triples, ids, n_nodes)


def relation_counts(triples, ids: dict[str, int], n_nodes: int) -> sp.csr_array:
    """Step 2: relation-edge counts R of normalised triples, symmetric, in canonical form.

    Every triple counts once towards its pair (both directions), so a pair stated by two triples, in
    one passage or two, has weight 2. A triple whose subject and object are the same phrase adds no
    edge. Canonical form (sorted indices, no duplicates): equal inputs give bit-equal matrices.
    """
    pairs = np.fromiter((ids[p] for doc in triples for s, _r, o in doc if s != o for p in (s, o)),
                        dtype=np.int64)
    h, t = pairs[0::2], pairs[1::2]
    R = sp.csr_array((np.ones(2 * h.size), (np.r_[h, t], np.r_[t, h])), shape=(n_nodes, n_nodes))
    R.sum_duplicates()
    return R


def mention_counts(triples, ids: dict[str, int], n_nodes: int) -> sp.csr_array:
    """Step 4: the count matrix P, distinct triples of passage j naming node i, in canonical form.

    v1's fact dictionary merges a repeated triple within a passage; a triple whose subject and object
    are the same phrase counts once.
    """
    rows, cols = [], []
    for j, doc in enumerate(triples):
        for s, _r, o in dict.fromkeys(doc):
            rows.append(ids[s])
            cols.append(j)
            if o != s:
                rows.append(ids[o])
                cols.append(j)
    rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    P = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n_nodes, len(triples)), dtype=np.float64)
    P.sum_duplicates()
    return P


def text_mentions(
    phrases: Sequence[str], passages: Sequence[str], *, normalization: str = "unicode"
) -> sp.csr_array:
    """The paper's P: how many times each (normalised) phrase occurs in each passage's text.

    Each passage is normalised like a phrase (:func:`normalize_phrase`, rule ``normalization``)
    and split into words; a phrase of n words counts once for every run of n consecutive words equal
    to it, so a phrase is found only as whole words ("ed wood" is not counted inside "red wood").

    Parameters
    ----------
    phrases : sequence of str
        Normalised node phrases (node id = position).
    passages : sequence of str
        Passage texts (passage id = position).

    Returns
    -------
    scipy.sparse.csr_array, shape (len(phrases), len(passages))
        Canonical form (sorted indices, no duplicates), float64 counts.

    Examples
    --------
    >>> text_mentions(["ed wood", "plan 9"], ["Ed Wood directed Plan 9; Ed Wood's Plan 9 flopped.",
    ...                                       "Red wood burns."]).toarray()
    array([[2., 0.],
           [2., 0.]])
    """
    by_words: dict[tuple[str, ...], int] = {}
    for i, p in enumerate(phrases):
        words = tuple(p.split())
        if words:
            by_words[words] = i
    lengths = sorted({len(w) for w in by_words})
    rows, cols = [], []
    for j, text in enumerate(passages):
        words = normalize_phrase(text, rule=normalization).split()
        for n in lengths:
            for start in range(len(words) - n + 1):
                i = by_words.get(tuple(words[start : start + n]))
                if i is not None:
                    rows.append(i)
                    cols.append(j)
    P = sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(len(phrases), len(passages)))
    P.sum_duplicates()
    return P


def prepare_encoder(encoder: Callable | None, phrases: Sequence[str], *, fit: bool = True) -> Callable:
    """Step 3a: the encoder the index keeps; the caller's object is never modified.

    With ``fit=True`` an encoder with a ``fit`` method is copied (:meth:`CharNgramEncoder.clone`,
    else :func:`copy.deepcopy`) and the copy is fit on ``phrases``. With ``fit=False`` the encoder
    is used as given and must already be able to encode.
    """
    if encoder is None:
        if not fit:
            raise InvalidValueError(
                "fit_encoder=False needs a fitted encoder, e.g. CharNgramEncoder().fit(texts)"
            )
        encoder = CharNgramEncoder()
    if not callable(encoder):
        kind = type(encoder).__name__
        raise InvalidTypeError(f"encoder must be callable (list[str] -> matrix), got {kind}")
    if fit and hasattr(encoder, "fit"):
        enc = encoder.clone() if isinstance(encoder, CharNgramEncoder) else copy.deepcopy(encoder)
        enc.fit(list(phrases))
        return enc
    return encoder


def encode_phrases(encoder: Callable, phrases: Sequence[str]):
    """Step 3b: the phrases' unit rows (checked by :func:`check_unit_rows`)."""
    return check_unit_rows("encoder", encoder(list(phrases)), len(phrases))


def fit_encode(encoder: Callable | None, phrases: Sequence[str], *, fit: bool = True) -> tuple:
    """Steps 3a and 3b: (the encoder the index keeps, the phrases' unit rows); a CharNgramEncoder fit
    here counts their n-grams once, not twice (:meth:`~CharNgramEncoder.fit_transform`: same rows)."""
    if fit and (encoder is None or isinstance(encoder, CharNgramEncoder)):
        enc = CharNgramEncoder() if encoder is None else encoder.clone()
        return enc, check_unit_rows("encoder", enc.fit_transform(list(phrases)), len(phrases))
    enc = prepare_encoder(encoder, phrases, fit=fit)
    return enc, encode_phrases(enc, phrases)


def synonymy_eligible(phrases: Sequence[str]) -> np.ndarray:
    """Which normalised phrases may get synonymy edges: those with at least three letters or digits (as v1;
    a normalised phrase holds only letters, marks, digits and spaces, so its non-spaces are those)."""
    return np.fromiter((len(p) - p.count(" ") > 2 for p in phrases), dtype=bool, count=len(phrases))


def similar_pairs(
    E, eligible: np.ndarray, *, tau: float, k: int = 100, budget: int | None = None, progress=None
) -> sp.csr_array:
    """Step 3c: each eligible row's ``k`` nearest eligible rows with cosine >= ``tau`` (row x: x's).

    :func:`~pathfinding.hipporag.index.neighbours.cosine_neighbours_topk` (``budget`` default
    :data:`~pathfinding.hipporag.index.neighbours.SEARCH_BUDGET`). Not symmetric: the edge rule joins
    both directions, and an update reads a node's list to see whether a deletion left it short.
    """
    from pathfinding.hipporag.index.neighbours import SEARCH_BUDGET, cosine_neighbours_topk

    if np.count_nonzero(eligible) < 2:
        return sp.csr_array((E.shape[0], E.shape[0]))
    budget = SEARCH_BUDGET if budget is None else budget
    return cosine_neighbours_topk(E, tau=tau, k=k, budget=budget, progress=progress, rows=eligible)


def _undirected_edges(A: sp.csr_array) -> int:
    """Edges of a symmetric matrix, each pair once: the strict upper triangle's entries."""
    off_diagonal = A.nnz - int(np.count_nonzero(A.diagonal()))
    return off_diagonal // 2


def triple_counts(triples) -> tuple[int, int]:
    """(distinct triples, self-loop triples) over every passage's triples."""
    return len(set().union(*triples)), sum(s == o for doc in triples for s, _, o in doc)


def assemble_index(
    *, phrases, triples, dropped, R, P, E, pairs, encoder, passages, settings, counts=None, S=None
) -> HippoIndex:
    """Step 5 and the rest: synonymy edges ``S`` from ``pairs``, specificity and stats, as a HippoIndex.

    ``counts`` (:func:`triple_counts` of ``triples``) and ``S`` are given when the caller knows them.
    """
    n = len(phrases)
    if S is None and settings["synonymy"]:
        from pathfinding.hipporag.index.synonymy import synonymy_edges

        S = synonymy_edges(pairs, R, max_synonyms=settings["max_synonyms"])
    elif S is None:
        S = sp.csr_array((n, n))
    n_unique, n_self = triple_counts(triples) if counts is None else counts
    stats = IndexStats(
        n_passages=len(triples),
        n_triples=sum(map(len, triples)) + int(np.sum(dropped)),
        n_unique_triples=n_unique,
        n_nodes=n,
        n_relation_edges=_undirected_edges(R),
        n_synonymy_edges=_undirected_edges(S),
        triples_empty_phrase=int(np.sum(dropped)),
        triples_self_loop=n_self,
        passages_without_nodes=int(np.sum(np.bincount(P.indices, minlength=P.shape[1]) == 0)),
    )
    return HippoIndex(
        phrases=list(phrases),
        relation_graph=R,
        synonymy_graph=S,
        mentions=P,
        specificity=node_specificity(P),
        node_embeddings=E,
        encoder=encoder,
        passages=list(passages),
        stats=stats,
        triples=list(triples),
        dropped=np.asarray(dropped, dtype=np.int64),
        pairs=pairs,
        settings=dict(settings),
    )


_BAR_MIN_PASSAGES = 20_000
"""Builds of at least this many passages show a progress bar (on a terminal): steps take seconds."""

BUILD_STAGES = ("triples", "graph", "P", "encode", "synonymy", "assemble")
"""The stages of :func:`build_index`, in order, as its ``progress`` callable hears them."""


class _Stages:
    """Announce each stage of a build: to a callable, or on a tqdm bar (stderr) over the stages."""

    def __init__(self, progress, n_passages: int):
        from tqdm.auto import tqdm

        self.call = progress if callable(progress) else None
        big = None if n_passages >= _BAR_MIN_PASSAGES else True  # None: on a terminal only
        disable = big if progress is None else self.call is not None or not progress
        self.bar = tqdm(total=len(BUILD_STAGES), desc="index", unit="stage", file=sys.stderr, leave=False,
                        disable=disable)
        self.inner = None if self.call is not None else (False if disable is True else progress)

    def __call__(self, stage: str) -> None:
        if self.call is not None:
            self.call(stage)
        if self.bar.n or stage != BUILD_STAGES[0]:
            self.bar.update()
        self.bar.set_postfix_str(stage)

    def close(self) -> None:
        if self.call is not None:
            self.call("done")
        self.bar.close()


def build_index(
    triples_per_passage: Sequence[Iterable[Sequence[str]]],
    *,
    passages: Sequence[str] | None = None,
    encoder: Callable | None = None,
    tau: float = 0.8,
    max_synonyms: int = 100,
    synonymy: bool = True,
    fit_encoder: bool = True,
    mentions: str = "triples",
    normalization: str = "unicode",
    search_budget: int | None = None,
    progress=None,
) -> HippoIndex:
    """Build the HippoRAG graph and count matrix from (subject, relation, object) triples.

    Parameters
    ----------
    triples_per_passage : sequence of iterables of (str, str, str)
        ``triples_per_passage[j]`` holds passage j's triples. A passage may have none.
    passages : sequence of str, optional
        The passage texts, same length; kept for the BM25 fallback.
    encoder : callable, optional
        ``list[str] -> (n, d)`` unit rows. Default :class:`CharNgramEncoder` ``()``.
    tau : float, default 0.8
        Synonymy threshold on the cosine (HippoRAG uses 0.8).
    max_synonyms : int, default 100
        k of the synonymy step: each node keeps its k nearest neighbours above ``tau`` (HippoRAG v1
        and 2 both stop at 101). Also bounds what the index stores per node.
    synonymy : bool, default True
        False builds no synonymy edges (and skips encoding the neighbours, not the phrases).
    fit_encoder : bool, default True
        True: if the encoder has ``fit``, a copy of it is fit on the node phrases (the caller's
        object is left as it was). False: the encoder is used as given and must be fitted already.
        Either way :func:`~pathfinding.hipporag.index.maintenance.add_passages` keeps the fitted encoder
        unless asked to refit (a refit TF-IDF changes every IDF, hence every embedding, when one
        phrase is added).
    mentions : {"triples", "text"}, default "triples"
        What the count matrix P counts. ``"triples"``: the distinct triples of passage j that name
        phrase i (HippoRAG v1's code). ``"text"``: how many times phrase i occurs in passage j's
        text (the paper's definition, §2.3; :func:`text_mentions`), which needs ``passages``. Node
        specificity is computed from the same P, so with ``"text"`` |P_i| counts the passages whose
        text contains the phrase, which may be more (or fewer) than those it was extracted from.
        Such an index cannot be updated in place (add or delete passages by rebuilding it).
    normalization : {"unicode", "ascii"}, default "unicode"
        Phrase normalisation (:func:`~pathfinding.hipporag.language.text.normalize_phrase`): ``"unicode"``
        keeps the letters of every script; ``"ascii"`` is HippoRAG v1's rule, which deletes the
        others ("Südhof" -> "s dhof") and reproduces v1's node set from v1's triples.
    search_budget : int, optional
        Posting entries one node's neighbour search may scan
        (:func:`~pathfinding.hipporag.index.neighbours.cosine_neighbours_topk`); default
        :data:`~pathfinding.hipporag.index.neighbours.SEARCH_BUDGET`. Kept in ``settings``.
    progress : bool, None or callable, default None
        A tqdm bar on stderr over the stages (:data:`BUILD_STAGES`); None shows it on a terminal for
        builds of 20,000 passages or more. A callable is called with each stage's name as it starts,
        then with ``"done"``, and no bar is drawn.

    Returns
    -------
    HippoIndex

    Raises
    ------
    ValueError
        If a triple does not have three string elements, ``passages`` has the wrong length (or is
        missing with ``mentions="text"``), ``mentions`` is not one of the two names, no triple
        gives a node, or the encoder does not return unit rows.

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
    from pathfinding.hipporag.index.neighbours import SEARCH_BUDGET

    settings = {
        "tau": check_float("tau", tau, low=-1.0, high=1.0),
        "max_synonyms": check_int("max_synonyms", max_synonyms, low=1),
        "search_budget": (SEARCH_BUDGET if search_budget is None
                          else check_int("search_budget", search_budget, low=1)),
        "synonymy": bool(synonymy),
        "fit_encoder": bool(fit_encoder),
        "normalization": normalization,
    }
    if mentions not in ("triples", "text"):
        raise InvalidValueError(f"mentions must be 'triples' or 'text', got {mentions!r}")
    if mentions == "text":
        if passages is None:
            raise InvalidValueError("mentions='text' counts phrases in the passage texts: pass passages=")
        settings["mentions"] = "text"  # absent means "triples", so older saved indexes still load
    if normalization not in NORMALIZATIONS:
        raise InvalidValueError(f"normalization must be one of {NORMALIZATIONS}, got {normalization!r}")
    n_pass = len(triples_per_passage)
    if passages is not None:
        if isinstance(passages, str):
            raise InvalidTypeError("passages must be a sequence of strings, got a string")
        if len(passages) != n_pass:
            raise InvalidValueError(
                f"passages must have one text per passage ({n_pass}), got {len(passages)}"
            )
    stage = _Stages(progress, n_pass)
    try:
        stage("triples")
        triples, dropped = clean_triples(triples_per_passage, normalization=normalization)
        phrases = sorted({p for doc in triples for s, _, o in doc for p in (s, o)})
        if not phrases:
            raise InvalidValueError("no phrase nodes: every passage has no usable triple")
        ids = {p: i for i, p in enumerate(phrases)}
        n = len(phrases)
        stage("graph")
        R = relation_counts(triples, ids, n)
        stage("P")
        P = text_mentions(phrases, passages, normalization=normalization) if mentions == "text" else (
            mention_counts(triples, ids, n))
        del ids
        stage("encode")
        enc, E = fit_encode(encoder, phrases, fit=settings["fit_encoder"])
        stage("synonymy")
        if synonymy:
            pairs = similar_pairs(E, synonymy_eligible(phrases), tau=settings["tau"],
                                  k=settings["max_synonyms"], budget=settings["search_budget"],
                                  progress=stage.inner)
        else:
            pairs = sp.csr_array((n, n))
        stage("assemble")
        return assemble_index(
            phrases=phrases, triples=triples, dropped=dropped, R=R, P=P, E=E, encoder=enc, settings=settings,
            pairs=pairs, passages=list(passages) if passages is not None else [],
        )  # fmt: skip
    finally:
        stage.close()


def index_from_openie(openie_passages, **kwargs) -> HippoIndex:
    """:func:`build_index` on the passages returned by :func:`pathfinding.hipporag.io.load_openie`.

    Keyword arguments are passed on (``encoder``, ``tau``, ``max_synonyms``, ``synonymy``,
    ``fit_encoder``, ``mentions``, ``normalization``). Passage texts are ``title + "\\n" + text``.

    Examples
    --------
    >>> from pathfinding.hipporag.storage.datasets import fetch
    >>> from pathfinding.hipporag.io.loaders import load_openie
    >>> docs, _ = load_openie(fetch("musique_openie"))
    >>> idx = index_from_openie(docs[:20])
    >>> idx.n_passages
    20
    """
    docs = list(openie_passages)
    return build_index([d.triples for d in docs], passages=[d.title + "\n" + d.text for d in docs], **kwargs)
