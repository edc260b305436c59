"""Lexical scorers: BM25 over passages (the baseline, fallback and hybrid term) and over facts.

HippoRAG 2 links a query to *facts* rather than to named-entity spans: it scores every (subject,
relation, object) triple against the query and seeds the walk with the phrases of the best few. Its
scorer is a dense encoder; :class:`FactLinker` is a lexical stand-in that needs no model: BM25 over
the index's relation edges, each read as the text "subject object". BM25 case-folds both sides
(:func:`~pathfinding.hipporag.language.text.words`), so the seeds it finds do not depend on how the question
is capitalised, which capitalised spans do.
"""

from __future__ import annotations

import math
import sys
from array import array
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import check_float, check_int
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.model import HippoIndex
from pathfinding.hipporag.language.text import fold, words

__all__ = [
    "PRUNE_FROM", "BM25Ranker", "FactLinker", "QUESTION_WORDS", "near_tie", "ranks_that_matter", "top_k",
]  # fmt: skip

QUESTION_WORDS = frozenset(
    "what which who whom whose when where why how do does did has have had were been being can could "
    "would should".split()
)
"""Interrogatives and auxiliaries: words every question has and no entity needs.

bm25s' English stop words (33 of them) keep these, so against short texts such as facts a question's
"when did ... where" matched titles like "Did It for the Girl" and "Where It All Began" ahead of the
question's own rare entity. :class:`FactLinker` drops them from the question; the passage BM25
(the baseline) does not. The list was written from English grammar before it was measured, and
measured once, on the MuSiQue tuning set (FINDINGS R3/R4).
"""


def top_k(scores, k: int) -> np.ndarray:
    """Ids of the ``min(k, len(scores))`` highest scores; equal scores in increasing id order.

    Zero scores are ranked too (after every positive one), so a caller always gets k items when
    there are k; an item with no evidence is placed by id alone.

    Examples
    --------
    >>> top_k([0.0, 0.5, 0.2, 0.5], 3)
    array([1, 3, 2])
    >>> top_k([0.0, 0.1, 0.0], 3)
    array([1, 0, 2])
    """
    k = check_int("k", k, low=1)
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 1:
        raise InvalidValueError(f"scores must be 1-D, got shape {s.shape}")
    if k >= s.size:
        return np.lexsort((np.arange(s.size), -s)).astype(np.int64)
    # O(n) selection, then a sort of the k chosen: a full lexsort of 10^6 fact scores would cost
    # more than the rest of a query. With k positive scores the top k are among them (BM25 scores
    # are mostly 0); the k-th largest value splits the rest, and of the scores equal to it the
    # lowest ids win.
    ids = np.flatnonzero(s > 0)
    if ids.size < k:
        ids = np.arange(s.size)
    sub = s[ids]
    kth = np.partition(sub, sub.size - k)[sub.size - k]
    above = ids[sub > kth]
    chosen = np.concatenate([above, ids[sub == kth][: k - above.size]])
    return chosen[np.lexsort((chosen, -s[chosen]))].astype(np.int64)


def near_tie(scores, gap: float, k: int) -> bool:
    """Whether two of the best ``k + 1`` positive ``scores`` lie within ``gap`` of each other (or of
    the rounding of the largest): two solutions each within ``gap / 2`` of the exact scores may then
    rank them apart.

    Examples
    --------
    >>> near_tie([0.5, 0.2, 0.2 + 1e-12, 0.0], 1e-10, 1), near_tie([0.5, 0.2, 0.2 + 1e-12, 0.0], 1e-10, 2)
    (False, True)
    """
    s = np.asarray(scores, dtype=np.float64)
    s = np.sort(s[s > 0])[::-1][: k + 1]
    return s.size > 1 and bool(np.min(-np.diff(s)) <= gap + 8 * np.finfo(np.float64).eps * s[0])


def ranks_that_matter(fused, k: int, walk_weight: float, c: float) -> int:
    """The worst walk rank from which a passage can still reach the top ``k`` of a fusion of ranks
    with weight ``walk_weight`` and constant ``c``
    (:meth:`~pathfinding.hipporag.retrieval.retrieve.HippoRetriever.fuse`; ``fused`` its scores).

    Rank r brings at most ``walk_weight / (c + r)``, the best BM25 rank ``(1 - walk_weight) / (c + 1)``:
    a passage whose best falls short of the k-th fused score cannot reach the top k, whatever order
    the passages below it take. Every rank, when the BM25 term alone can.

    Examples
    --------
    The best passage leads both rankings; a passage second by its walk falls short even with the
    best BM25 rank (0.5 / 12 + 0.5 / 11 < 1 / 11), so only the walk's first rank matters:

    >>> ranks_that_matter([1 / 11, 0.5 / 12, 0.0], 1, 0.5, 10.0)
    1
    """
    fused = np.asarray(fused, dtype=np.float64)
    kth = np.sort(fused)[::-1][min(k, fused.size) - 1]
    need = kth * (1.0 - 1e-9) - (1.0 - walk_weight) / (c + 1.0)
    if need <= 0:
        return int(fused.size)
    return int(min(np.floor(walk_weight / need - c), fused.size))


class BM25Ranker:
    """Lexical BM25 over texts (``bm25s``, English stop words, no stemming, case-folded).

    Texts and questions are tokenized alike by :func:`~pathfinding.hipporag.language.text.words`: case
    folded, words with their combining marks, scripts written without spaces (Chinese, Japanese,
    Thai) as overlapping character bigrams.

    Every (token, passage) score is computed once from those tokens, as ``bm25s`` computes it
    (the same arrays bit for bit, tested against ``bm25s``, but in numpy: ``bm25s`` makes Python
    objects per text and per token, which on a large corpus cost more than the rest of the build).
    A question is tokenized by the same rule (and ``bm25s``' English stop words) and scored by
    adding up the score columns of its tokens in ``bm25s``' order and precision (float32), so the
    scores are ``bm25s``' own, and a question is answered without importing ``bm25s`` (which loads
    numba).

    Parameters
    ----------
    passages : sequence of str
    k1, b : float
        BM25 parameters (defaults 1.5 and 0.75, bm25s' Lucene variant).
    query_stopwords : iterable of str, default ()
        Lower-case words dropped from every question on top of the English stop words (the texts
        keep them).
    progress : bool or None, default None
        A tqdm bar on stderr over the texts; None shows it on a terminal from 100,000 texts.

    Examples
    --------
    >>> bm = BM25Ranker(["Ed Wood directed Plan 9.", "Paris is in France.", "Wood burns."])
    >>> bm.rank("Who directed Plan 9?", 2)
    array([0, 1])
    >>> bm.tokens("Who directed Plan 9?")
    ['directed', 'plan']
    >>> ja = BM25Ranker(["東京は日本の首都です。", "パリはフランスの首都です。", "Ed Wood"])
    >>> ja.rank("日本の首都は?", 2)
    array([0, 1])
    """

    def __init__(
        self, passages: Sequence[str], *, k1: float = 1.5, b: float = 0.75, query_stopwords=(), progress=None
    ):
        if isinstance(passages, str) or len(passages) == 0:
            raise InvalidValueError("passages must be a non-empty sequence of strings")
        k1 = check_float("k1", k1, low=0, high=np.inf)
        b = check_float("b", b, low=0, high=1)
        stop = _english_stopwords()
        vocab: dict[str, int] = {}
        stream, ends = array("i"), array("q")
        for p in _bar(passages, progress, "BM25"):
            stream.extend([vocab.setdefault(w, len(vocab)) for w in words(p) if w not in stop])
            ends.append(len(stream))
        self._index(len(passages), vocab, np.frombuffer(stream, np.int32), np.frombuffer(ends, np.int64),
                    k1=k1, b=b, query_stopwords=query_stopwords)

    def _index(self, n_docs: int, vocab: dict, stream, ends, *, k1: float, b: float, query_stopwords) -> None:
        """Index documents given as token ids (``stream[ends[j - 1]:ends[j]]`` is document j's, stop
        words left out; ids numbered in order of first occurrence, as bm25s numbers its tokens)."""
        params = {"n_passages": n_docs, "query_stopwords": sorted(_words(query_stopwords))}
        params |= {"stopwords": sorted(_english_stopwords()), "k1": k1, "b": b, "empty": not vocab}
        if not vocab:  # no text has a word BM25 counts ("B met C." has none): every score is 0
            self._set(params, {}, {})
            return
        params["num_docs"] = n_docs
        arrays = _eager_scores(stream, ends, len(vocab), k1=k1, b=b)
        vocab[""] = len(vocab)  # bm25s' empty token, which no question has (its vocabulary ends with it)
        self._set(params, vocab, arrays)

    def _set(self, params: dict, vocab: dict, arrays: dict) -> None:
        self.n_passages = int(params["n_passages"])
        self._params = params
        self._query_stopwords = frozenset(params["query_stopwords"])
        self._stopwords = frozenset(params["stopwords"])
        self._vocab = vocab
        self._arrays = arrays
        self._ub = None  # each token's largest score, for :meth:`best`

    def tokens(self, question: str) -> list[str]:
        """The question's tokens that are scored: indexed words, stop words left out, in order."""
        if not isinstance(question, str):
            raise InvalidTypeError(f"question must be a string, got {type(question).__name__}")
        drop = self._stopwords | self._query_stopwords
        return [w for w in words(question) if w not in drop and w in self._vocab]

    def scores(self, question: str) -> np.ndarray:
        """BM25 score of every passage (0 when the question shares no indexed token)."""
        out = self._sums(question)
        return np.zeros(self.n_passages) if out is None else out.astype(np.float64)

    def _sums(self, question: str) -> np.ndarray | None:
        """Every passage's score in bm25s' order and precision (float32); None without a token."""
        toks = self.tokens(question)
        if not toks:
            return None
        data, indices, indptr = (self._arrays[key] for key in ("data", "indices", "indptr"))
        out = np.zeros(self._params["num_docs"], dtype=data.dtype)
        for t in toks:  # a repeated word counts each time, as in bm25s
            j = self._vocab[t]
            np.add.at(out, indices[indptr[j] : indptr[j + 1]], data[indptr[j] : indptr[j + 1]])
        return out

    def best(self, question: str, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The at most ``k`` passages with the highest positive scores, in :func:`top_k` order, and
        their scores (float64): ``top_k(scores(question), k)`` without its zeros, the same sums bit
        for bit.

        Where the question's tokens reach more than :data:`PRUNE_FROM` entries, only the passages
        that can make the top k are scored (MaxScore [1]_): a passage that none of the question's
        rarer tokens reaches scores at most the sum of the other tokens' largest scores, so once
        ``k`` passages are known to score more, the lists of those common tokens are only looked
        up, never scanned (at a million passages the facts are nine million texts and a question's
        common words reach hundreds of thousands of them).

        References
        ----------
        .. [1] H. Turtle, J. Flood. "Query evaluation: strategies and optimizations." Information
           Processing & Management 31(6), 1995.
        """
        k = check_int("k", k, low=1)
        toks = self.tokens(question)
        if not toks:
            return np.zeros(0, np.int64), np.zeros(0)
        cols = np.fromiter((self._vocab[t] for t in toks), dtype=np.int64, count=len(toks))
        indptr = self._arrays["indptr"]
        if int((indptr[cols + 1] - indptr[cols]).sum()) > PRUNE_FROM:
            cand = self._candidates(cols, k)
            if cand is not None:
                s = self._sums_of(cols, cand)
                hit = s > 0
                cand, s = cand[hit], s[hit].astype(np.float64)
                order = top_k(s, k) if s.size else np.zeros(0, np.int64)  # cand ascends, as hit below
                return cand[order].astype(np.int64), s[order]
        out = self._sums(question)
        # Every passage a token reaches scores above 0 (Lucene's idf and term weights are positive).
        # One scan of the float32 sums finds them: np.unique of their ids took longer than the scan.
        hit = np.flatnonzero(out > 0)  # on the mask: several times faster than on the floats
        s = out[hit].astype(np.float64)
        order = top_k(s, k)  # hit ascends: equal scores stay in id order
        return hit[order].astype(np.int64), s[order]

    def _column(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        """Token ``j``'s passages (ascending) and scores."""
        data, indices, indptr = (self._arrays[key] for key in ("data", "indices", "indptr"))
        lo, hi = int(indptr[j]), int(indptr[j + 1])
        return indices[lo:hi], data[lo:hi]

    def _upper(self) -> np.ndarray:
        """Each token's largest score (0 for a token no passage holds), computed once."""
        if self._ub is None:
            data, indptr = self._arrays["data"], self._arrays["indptr"]
            full = np.diff(indptr) > 0
            ub = np.zeros(indptr.size - 1, dtype=np.float64)
            ub[full] = np.maximum.reduceat(data, indptr[:-1][full]) if data.size else 0.0
            self._ub = ub
        return self._ub

    def _candidates(self, cols: np.ndarray, k: int) -> np.ndarray | None:
        """The passages (ascending) that may score among the best ``k``, or None when pruning would
        leave most lists to scan anyway.

        A lower bound ``theta`` on the k-th best score: the k-th best full score among the passages
        with the k highest scores of each short list. The tokens whose largest scores add up (with
        room for float32 rounding) to less than ``theta`` cannot lift a passage none of the others
        reaches to it: only the other tokens' lists are read.
        """
        ub = self._upper()[cols]  # per occurrence: a repeated token counts each time
        probe = []
        for j in np.unique(cols).tolist():
            ids, vals = self._column(j)
            if ids.size <= _PROBE:
                probe.append(ids if ids.size <= k else ids[np.argpartition(-vals, k - 1)[:k]])
        if not probe:
            return None
        seen = np.unique(np.concatenate(probe))
        if seen.size < k:
            return None
        sums = self._sums_of(cols, seen)
        theta = float(np.partition(sums, sums.size - k)[sums.size - k])
        order = np.argsort(ub, kind="stable")
        below = np.cumsum(ub[order]) * (1 + _ROUNDING) < theta  # a prefix: ub >= 0
        rest = np.unique(cols[order[int(below.sum()) :]])
        lists = [self._column(j)[0] for j in rest.tolist()]
        if sum(x.size for x in lists) > self._params["num_docs"] // 4:
            return None
        return np.unique(np.concatenate(lists)) if lists else np.zeros(0, np.int64)

    def _sums_of(self, cols: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """:meth:`_sums` at the passages ``ids`` (ascending) only: the same float32 additions in the
        same order (a token a passage lacks adds 0, which changes no float)."""
        out = np.zeros(ids.size, dtype=self._arrays["data"].dtype)
        for j in cols.tolist():
            col, vals = self._column(j)
            if col.size == 0:
                continue
            at = np.minimum(np.searchsorted(col, ids), col.size - 1)
            out += np.where(col[at] == ids, vals[at], 0)
        return out

    def term_scores(self, terms, ids) -> np.ndarray:
        """The score of each of ``terms`` (indexed tokens, as :meth:`tokens` gives them) in each passage
        of ``ids``: the columns :meth:`scores` adds up, one per token, as float64 (terms x ids)."""
        ids = np.asarray(ids, dtype=np.int64)
        out = np.zeros((len(terms), ids.size))
        if not terms:
            return out
        data, indices, indptr = (self._arrays[key] for key in ("data", "indices", "indptr"))
        where = np.full(self._params["num_docs"], -1, dtype=np.int64)
        where[ids] = np.arange(ids.size)
        for r, t in enumerate(terms):
            j = self._vocab[t]
            cols = where[indices[indptr[j] : indptr[j + 1]]]
            hit = cols >= 0
            out[r, cols[hit]] = data[indptr[j] : indptr[j + 1]][hit]
        return out

    def rank(self, question: str, k: int = 10) -> np.ndarray:
        """The ``min(k, n_passages)`` best passage ids (:func:`top_k` order)."""
        return top_k(self.scores(question), k)

    def get_state(self) -> tuple[dict, list[str], dict[str, np.ndarray]]:
        """The fitted state as data: (parameters, vocabulary in id order, score arrays).

        :meth:`from_state` rebuilds a ranker that gives the same scores bit for bit, without
        tokenizing the texts again (:mod:`~pathfinding.hipporag.retrieval.querycache` keeps it on disk).
        """
        return dict(self._params), sorted(self._vocab, key=self._vocab.__getitem__), dict(self._arrays)

    @classmethod
    def from_state(cls, params: dict, vocab: Sequence[str], arrays: dict) -> BM25Ranker:
        """Rebuild a ranker from :meth:`get_state` output (no tokenizing, no indexing, no bm25s)."""
        self = cls.__new__(cls)
        self._set(params, {w: j for j, w in enumerate(vocab)}, arrays)
        return self


def _english_stopwords() -> frozenset:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


def _bar(items, progress, desc: str):
    """``items`` with a tqdm bar on stderr; None shows it on a terminal from 100,000 items."""
    from tqdm.auto import tqdm

    disable = (None if len(items) >= 100_000 else True) if progress is None else not progress
    return tqdm(items, desc=desc, unit="text", file=sys.stderr, leave=False, disable=disable, miniters=10_000)


PRUNE_FROM = 50_000
"""List entries a question's tokens reach above which :meth:`BM25Ranker.best` prunes (MaxScore)."""
_PROBE = 65_536
"""Lists up to this long give their k best passages to the first estimate of the k-th best score."""
_ROUNDING = 1e-5
"""Relative room for float32 rounding when bounding a sum by its terms' largest values."""

_CHUNK = 1 << 20
"""Tokens (or scores) handled at once when indexing: its scratch arrays take a few bytes per item."""


def _chunks(ends: np.ndarray, size: int):
    """(first, last + 1) documents and (first, last + 1) items of consecutive runs of documents
    holding about ``size`` items, where ``ends[j]`` is the end of document j's items."""
    d0 = 0
    while d0 < ends.size:
        lo = int(ends[d0 - 1]) if d0 else 0
        d1 = max(int(np.searchsorted(ends, lo + size, side="right")), d0 + 1)
        yield d0, d1, lo, int(ends[d1 - 1])
        d0 = d1


def _eager_scores(stream: np.ndarray, ends: np.ndarray, n_vocab: int, *, k1: float, b: float) -> dict:
    """bm25s' eager index of the documents ``stream[ends[j - 1]:ends[j]]``: the CSC arrays of every
    (document, token) score, a column per token id, documents ascending, float32.

    Computed as bm25s computes it (its Lucene variant, float32 storage), bit for bit: the idf in
    Python floats per distinct document frequency, ``tf / (k1 (1 - b + b |d| / avgdl) + tf)`` in
    float64 from float32 counts, their product rounded once to float32; ``avgdl`` is the mean of an
    int64 array, as bm25s takes it. Unlike bm25s it makes no Python object per document, and holds
    16 bytes per score besides a chunk's scratch.
    """
    lengths = np.diff(ends, prepend=0).astype(np.int64)
    avgdl = lengths.mean()
    # every document's distinct tokens (ascending) and their counts, a chunk of tokens at a time
    toks, tfs, distinct = [], [], []
    for d0, d1, lo, hi in _chunks(ends, _CHUNK):
        owner = np.repeat(np.arange(d1 - d0, dtype=np.int64), lengths[d0:d1])
        code, tf = np.unique(owner * n_vocab + stream[lo:hi], return_counts=True)
        del owner
        toks.append((code % n_vocab).astype(np.int32))
        tfs.append(tf.astype(np.float32))
        distinct.append(np.bincount(code // n_vocab, minlength=d1 - d0))
    tok, tf = np.concatenate(toks), np.concatenate(tfs)
    entry_ends = np.cumsum(np.concatenate(distinct))
    del toks, tfs, distinct
    df = np.bincount(tok, minlength=n_vocab)
    dfs = np.unique(df)
    idf = np.array([math.log(1 + (ends.size - d + 0.5) / (d + 0.5)) for d in dfs.tolist()], dtype=np.float32)
    idf = idf[np.searchsorted(dfs, df)]
    norm = k1 * ((1 - b) + b * lengths.astype(np.float64) / avgdl)
    indptr = np.r_[0, np.cumsum(df)].astype(np.int64)
    data, indices = np.empty(tok.size, np.float32), np.empty(tok.size, np.int32)
    free = indptr[:-1].copy()  # each column's next free slot
    # the scores, placed column by column with documents ascending (a counting sort, chunk by chunk)
    for d0, d1, lo, hi in _chunks(entry_ends, _CHUNK):
        t, f = tok[lo:hi], tf[lo:hi]
        doc = np.repeat(np.arange(d0, d1, dtype=np.int32), np.diff(entry_ends[d0:d1], prepend=lo))
        score = (idf[t] * (f / (norm[doc] + f))).astype(np.float32)
        order = np.argsort(t, kind="stable")
        ts = t[order]
        at = free[ts] + (np.arange(ts.size) - np.searchsorted(ts, ts))
        data[at], indices[at] = score[order], doc[order]
        free += np.bincount(t, minlength=n_vocab)
    return {"data": data, "indices": indices, "indptr": indptr}


def _words(given) -> frozenset:
    if isinstance(given, str) or not all(isinstance(w, str) for w in given):
        raise InvalidTypeError(f"query_stopwords must be an iterable of words, got {given!r}")
    return frozenset(fold(w) for w in given)


class FactLinker:
    """Seed nodes from the facts that best match the question (BM25 over relation edges).

    Each relation edge of the index is a fact with the text "subject object" (the normalised
    phrases; the index keeps no relation words); the question's :data:`QUESTION_WORDS` are not
    matched against them. The ``n_facts`` best-scoring facts with a positive
    score give their two phrase nodes as seeds, each weighted by its best fact's score divided by
    the top fact's score (so the best fact's nodes weigh 1).

    Parameters
    ----------
    index : HippoIndex

    Examples
    --------
    >>> from pathfinding.hipporag.index.build import build_index
    >>> idx = build_index([[("Ed Wood", "directed", "Plan 9")], [("Plan 9", "filmed in", "Burbank")]])
    >>> nodes, w = FactLinker(idx).seeds("where was plan 9 filmed?", n_facts=1)
    >>> [idx.phrases[i] for i in nodes], w
    (['burbank', 'plan 9'], array([1., 1.]))
    """

    def __init__(self, index: HippoIndex):
        if not isinstance(index, HippoIndex):
            raise InvalidTypeError(f"index must be a HippoIndex, got {type(index).__name__}")
        edges = sp.triu(sp.coo_array(index.relation_graph), k=1)
        order = np.lexsort((edges.col, edges.row))
        self.heads = edges.row[order].astype(np.int64)
        self.tails = edges.col[order].astype(np.int64)
        self._bm25 = _fact_ranker(index.phrases, self.heads, self.tails) if self.heads.size else None

    def get_state(self) -> tuple[np.ndarray, np.ndarray, BM25Ranker | None]:
        """The facts' head and tail node ids and their BM25 (None when no fact has a word)."""
        return self.heads, self.tails, self._bm25

    @classmethod
    def from_state(cls, heads: np.ndarray, tails: np.ndarray, bm25: BM25Ranker | None) -> FactLinker:
        """A linker from its parts (the facts' node ids and their BM25), as saved by
        :mod:`~pathfinding.hipporag.retrieval.querycache`."""
        self = cls.__new__(cls)
        self.heads, self.tails, self._bm25 = heads, tails, bm25
        return self

    def seeds(self, question: str, *, n_facts: int = 5) -> tuple[np.ndarray, np.ndarray]:
        """Node ids (ascending) and weights in (0, 1] from the ``n_facts`` best facts.

        Returns empty arrays when no fact shares a token with the question.
        """
        n_facts = check_int("n_facts", n_facts, low=1)
        if self._bm25 is None:
            return np.zeros(0, np.int64), np.zeros(0)
        top, s = self._bm25.best(question, n_facts)
        if top.size == 0:
            return np.zeros(0, np.int64), np.zeros(0)
        rel = s / s[0]
        # each node keeps its best fact's weight (a few facts: no array over all nodes)
        nodes = np.concatenate([self.heads[top], self.tails[top]]).astype(np.int64)
        rel = np.concatenate([rel, rel])
        order = np.lexsort((-rel, nodes))
        nodes, first = np.unique(nodes[order], return_index=True)
        return nodes, rel[order][first]


def _fact_ranker(phrases: Sequence[str], heads: np.ndarray, tails: np.ndarray) -> BM25Ranker:
    """:class:`BM25Ranker` over the texts "subject object" of the facts (``heads[i]``, ``tails[i]``),
    with :data:`QUESTION_WORDS` left out of questions, without writing those texts: the tokens of a
    text are its two phrases' tokens (a space splits no token and joins none), so each phrase is
    tokenized once and a fact's tokens are gathered from its two phrases'."""
    stop = _english_stopwords()
    used = np.unique(np.concatenate([heads, tails]))
    vocab: dict[str, int] = {}  # numbered by phrase for now, by first occurrence in the facts below
    toks, ends = array("i"), array("q")
    for i in used.tolist():
        toks.extend([vocab.setdefault(w, len(vocab)) for w in words(phrases[i]) if w not in stop])
        ends.append(len(toks))
    ptr = np.r_[0, np.frombuffer(ends, np.int64)]
    toks = np.frombuffer(toks, np.int32)
    renumber = np.full(len(vocab), -1, dtype=np.int32)
    seen = 0
    stream, lengths = [], []
    step = _CHUNK // 8
    for lo in range(0, heads.size, step):  # the facts' tokens: head's then tail's, fact after fact
        which = np.searchsorted(used, np.column_stack([heads[lo : lo + step], tails[lo : lo + step]]))
        lens = ptr[which + 1] - ptr[which]
        starts = np.repeat(ptr[which].ravel() - (np.cumsum(lens) - lens.ravel()), lens.ravel())
        part = toks[starts + np.arange(starts.size)]
        new = part[renumber[part] < 0]  # numbered as bm25s numbers tokens: in the order it meets them
        first, at = np.unique(new, return_index=True)
        renumber[first[np.argsort(at)]] = np.arange(seen, seen + first.size, dtype=np.int32)
        seen += first.size
        stream.append(renumber[part])
        lengths.append(lens.sum(axis=1))
    new_ids = renumber[np.fromiter(vocab.values(), np.int64, count=len(vocab))].tolist()
    for w, j in zip(list(vocab), new_ids, strict=True):
        if j < 0:
            del vocab[w]  # a phrase's word met in no fact
        else:
            vocab[w] = j
    ranker = BM25Ranker.__new__(BM25Ranker)
    stream, ends = np.concatenate(stream), np.cumsum(np.concatenate(lengths))
    ranker._index(heads.size, vocab, stream, ends, k1=1.5, b=0.75, query_stopwords=QUESTION_WORDS)
    return ranker
