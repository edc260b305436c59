"""Lexical scorers: BM25 over passages (the baseline, fallback and hybrid term) and over facts.

HippoRAG 2 links a query to *facts* rather than to named-entity spans: it scores every (subject,
relation, object) triple against the query and seeds the walk with the phrases of the best few. Its
scorer is a dense encoder; :class:`FactLinker` is a lexical stand-in that needs no model: BM25 over
the index's relation edges, each read as the text "subject object". BM25 case-folds both sides
(:func:`~pathfinding.hipporag.language.text.words`), so the seeds it finds do not depend on how the question
is capitalised, which capitalised spans do.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import check_float, check_int
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.model import HippoIndex
from pathfinding.hipporag.language.text import fold, words

__all__ = ["BM25Ranker", "FactLinker", "QUESTION_WORDS", "top_k"]

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


class BM25Ranker:
    """Lexical BM25 over texts (``bm25s``, English stop words, no stemming, case-folded).

    Texts and questions are tokenized alike by :func:`~pathfinding.hipporag.language.text.words`: case
    folded, words with their combining marks, scripts written without spaces (Chinese, Japanese,
    Thai) as overlapping character bigrams.

    ``bm25s`` computes every (token, passage) score once from those tokens. A question is then
    tokenized here, by the same rule (and the stop words ``bm25s`` gave at build time), and scored
    by adding up the score columns of its tokens in
    ``bm25s``' order and precision (float32), so the scores are ``bm25s``' own, bit for bit, and
    a question is answered without importing ``bm25s`` (which loads numba) when the ranker comes
    from :meth:`from_state`.

    Parameters
    ----------
    passages : sequence of str
    k1, b : float
        BM25 parameters (defaults 1.5 and 0.75, bm25s' Lucene variant).
    query_stopwords : iterable of str, default ()
        Lower-case words dropped from every question on top of the English stop words (the texts
        keep them).

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

    def __init__(self, passages: Sequence[str], *, k1: float = 1.5, b: float = 0.75, query_stopwords=()):
        import bm25s
        from bm25s.stopwords import STOPWORDS_EN

        if isinstance(passages, str) or len(passages) == 0:
            raise InvalidValueError("passages must be a non-empty sequence of strings")
        k1 = check_float("k1", k1, low=0, high=np.inf)
        b = check_float("b", b, low=0, high=1)
        # Our tokens, joined by spaces and split there again: bm25s keeps them as they are.
        tokens = bm25s.tokenize(
            [" ".join(words(p)) for p in passages],
            lower=False,
            token_pattern=r"\S+",
            stopwords="en",
            show_progress=False,
        )
        params = {"n_passages": len(passages), "query_stopwords": sorted(_words(query_stopwords))}
        params |= {"stopwords": sorted(STOPWORDS_EN), "k1": k1, "b": b, "empty": not tokens.vocab}
        if not tokens.vocab:  # no text has a word BM25 counts ("B met C." has none): every score is 0
            self._set(params, {}, {})
            return
        model = bm25s.BM25(k1=k1, b=b)
        model.index(tokens, show_progress=False)
        params["num_docs"] = int(model.scores["num_docs"])
        arrays = {key: np.asarray(model.scores[key]) for key in ("data", "indices", "indptr")}
        self._set(params, model.vocab_dict, arrays)

    def _set(self, params: dict, vocab: dict, arrays: dict) -> None:
        self.n_passages = int(params["n_passages"])
        self._params = params
        self._query_stopwords = frozenset(params["query_stopwords"])
        self._stopwords = frozenset(params["stopwords"])
        self._vocab = vocab
        self._arrays = arrays

    def tokens(self, question: str) -> list[str]:
        """The question's tokens that are scored: indexed words, stop words left out, in order."""
        if not isinstance(question, str):
            raise InvalidTypeError(f"question must be a string, got {type(question).__name__}")
        drop = self._stopwords | self._query_stopwords
        return [w for w in words(question) if w not in drop and w in self._vocab]

    def scores(self, question: str) -> np.ndarray:
        """BM25 score of every passage (0 when the question shares no indexed token)."""
        toks = self.tokens(question)
        if not toks:
            return np.zeros(self.n_passages)
        data, indices, indptr = (self._arrays[key] for key in ("data", "indices", "indptr"))
        out = np.zeros(self._params["num_docs"], dtype=data.dtype)
        for t in toks:  # a repeated word counts each time, as in bm25s
            j = self._vocab[t]
            np.add.at(out, indices[indptr[j] : indptr[j + 1]], data[indptr[j] : indptr[j + 1]])
        return out.astype(np.float64)

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
        texts = [
            f"{index.phrases[h]} {index.phrases[t]}" for h, t in zip(self.heads, self.tails, strict=True)
        ]
        self._bm25 = BM25Ranker(texts, query_stopwords=QUESTION_WORDS) if texts else None

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
        s = self._bm25.scores(question)
        top = top_k(s, n_facts)
        top = top[s[top] > 0]
        if top.size == 0:
            return np.zeros(0, np.int64), np.zeros(0)
        rel = s[top] / s[top[0]]
        # each node keeps its best fact's weight (a few facts: no array over all nodes)
        nodes = np.concatenate([self.heads[top], self.tails[top]]).astype(np.int64)
        rel = np.concatenate([rel, rel])
        order = np.lexsort((-rel, nodes))
        nodes, first = np.unique(nodes[order], return_index=True)
        return nodes, rel[order][first]
