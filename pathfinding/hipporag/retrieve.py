"""Retrieval: query entities -> seeds -> specificity-weighted restart -> PPR -> passage scores -> top k.

The path is the package's own, step for step: :func:`pathfinding.specificity.restart_vector`,
:func:`pathfinding.ppr.personalized_pagerank` on the index's :class:`~pathfinding.ppr.PPRGraph`
(prepared once), and :func:`pathfinding.ranking.passage_scores`. The Table 5 ablations swap the
walk for :func:`pathfinding.ranking.query_node_scores` or
:func:`pathfinding.ranking.query_neighbour_scores`, then score passages the same way.

A question whose entities link to no node gets the BM25 ranking instead (``fell_back=True``), as
HippoRAG v1 falls back to its dense retriever. :class:`BM25Ranker` is also the baseline.

Only passages with a positive score are returned, so a ranking can be shorter than k: a ranker that
scores few passages (the "R_q nodes only" ablation) is not handed the remaining slots by passage id
(in the MuSiQue corpus passages are grouped by question, so filling by id would leak).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from pathfinding._validation import check_float, check_int
from pathfinding.hipporag.index import HippoIndex
from pathfinding.hipporag.query import EXTRACTORS, link_entities
from pathfinding.ppr import personalized_pagerank
from pathfinding.ranking import passage_scores, query_neighbour_scores, query_node_scores
from pathfinding.specificity import restart_vector

__all__ = ["BM25Ranker", "HippoRetriever", "Retrieval", "SCORERS", "top_k"]

SCORERS = ("ppr", "rq_nodes", "rq_neighbours")
"""Node scorers: the walk, and Table 5's "R_q nodes only" and "R_q nodes & neighbours"."""


def top_k(scores, k: int) -> np.ndarray:
    """Ids of the at most ``k`` highest positive scores, ties broken by lower id.

    Examples
    --------
    >>> top_k([0.0, 0.5, 0.2, 0.5], 3)
    array([1, 3, 2])
    >>> top_k([0.0, 0.1, 0.0], 3)
    array([1])
    """
    k = check_int("k", k, low=1)
    s = np.asarray(scores, dtype=np.float64)
    pos = np.flatnonzero(s > 0)
    order = pos[np.lexsort((pos, -s[pos]))]
    return order[:k].astype(np.int64)


class BM25Ranker:
    """Lexical BM25 over passages (``bm25s``, English stop words, no stemming).

    Parameters
    ----------
    passages : sequence of str
    k1, b : float
        BM25 parameters (defaults 1.5 and 0.75, bm25s' Lucene variant).

    Examples
    --------
    >>> bm = BM25Ranker(["Ed Wood directed Plan 9.", "Paris is in France.", "Wood burns."])
    >>> bm.rank("Who directed Plan 9?", 2)
    array([0])
    """

    def __init__(self, passages: Sequence[str], *, k1: float = 1.5, b: float = 0.75):
        import bm25s

        if isinstance(passages, str) or len(passages) == 0:
            raise ValueError("passages must be a non-empty sequence of strings")
        self._bm25s = bm25s
        self.n_passages = len(passages)
        tokens = bm25s.tokenize(list(passages), stopwords="en", show_progress=False)
        self._model = bm25s.BM25(
            k1=check_float("k1", k1, low=0, high=np.inf), b=check_float("b", b, low=0, high=1)
        )
        self._model.index(tokens, show_progress=False)
        self._vocab = tokens.vocab

    def scores(self, question: str) -> np.ndarray:
        """BM25 score of every passage (0 when the question shares no indexed token)."""
        toks = self._bm25s.tokenize([question], stopwords="en", return_ids=False, show_progress=False)[0]
        toks = [t for t in toks if t in self._vocab]
        if not toks:
            return np.zeros(self.n_passages)
        return np.asarray(self._model.get_scores(toks), dtype=np.float64)

    def rank(self, question: str, k: int = 10) -> np.ndarray:
        """Top-``k`` passage ids with a positive score."""
        return top_k(self.scores(question), k)


@dataclass(frozen=True)
class Retrieval:
    """One retrieval.

    Attributes
    ----------
    passages : numpy.ndarray of int64
        Passage ids, best first (at most k, only positive scores).
    scores : numpy.ndarray of float64
        Their scores.
    entities : tuple of str
        Query entities used (before linking).
    seeds : numpy.ndarray of int64
        Linked node ids (distinct).
    fell_back : bool
        True when no entity linked to a node and BM25 ranked the passages.
    """

    passages: np.ndarray
    scores: np.ndarray
    entities: tuple[str, ...]
    seeds: np.ndarray
    fell_back: bool


class HippoRetriever:
    """HippoRAG retrieval over a :class:`~pathfinding.hipporag.index.HippoIndex`.

    Parameters
    ----------
    index : HippoIndex
    extractor : str or callable or None, default "capitalised"
        Name in :data:`~pathfinding.hipporag.query.EXTRACTORS` (``"capitalised"``,
        ``"node_ngrams"``, ``"union"``), or ``question -> list of str`` (e.g. from
        :func:`~pathfinding.hipporag.query.ner_lookup`), or None to require ``entities=`` at query
        time.
    scorer : {"ppr", "rq_nodes", "rq_neighbours"}, default "ppr"
    specificity : bool, default True
        Weight each seed's restart by s_i = 1/|P_i|.
    synonymy : bool, default True
        Walk over relation + synonymy edges (False: relation edges only).
    restart_prob : float, default 0.5
    tol : float, default 1e-10
        Certified L1 error of the walk (:func:`~pathfinding.ppr.personalized_pagerank`); a looser
        tolerance stops earlier (``pathfinding realtext-bench`` measures the time and whether the
        top 10 changes at 1e-6).
    link_top_k : int, default 1
        Nodes linked per entity.
    bm25 : BM25Ranker, optional
        Fallback ranker; built from ``index.passages`` when needed.

    Examples
    --------
    >>> from pathfinding.hipporag.index import build_index
    >>> idx = build_index(
    ...     [[("Ed Wood", "directed", "Plan 9")], [("Plan 9", "filmed in", "Burbank")],
    ...      [("Paris", "capital of", "France")]],
    ...     passages=["Ed Wood directed Plan 9.", "Plan 9 was filmed in Burbank.", "Paris is in France."])
    >>> r = HippoRetriever(idx).retrieve("Where was the film by Ed Wood shot?", k=3)
    >>> r.passages, r.fell_back
    (array([0, 1]), False)
    """

    def __init__(
        self,
        index: HippoIndex,
        *,
        extractor: str | Callable | None = "capitalised",
        scorer: str = "ppr",
        specificity: bool = True,
        synonymy: bool = True,
        restart_prob: float = 0.5,
        tol: float = 1e-10,
        link_top_k: int = 1,
        bm25: BM25Ranker | None = None,
    ):
        if not isinstance(index, HippoIndex):
            raise TypeError(f"index must be a HippoIndex, got {type(index).__name__}")
        if isinstance(extractor, str):
            if extractor not in EXTRACTORS:
                raise ValueError(
                    f"extractor must be one of {sorted(EXTRACTORS)} or a callable, got {extractor!r}"
                )
            fn = EXTRACTORS[extractor]
            self._extract = lambda q: fn(q, index)
        elif extractor is None or callable(extractor):
            self._extract = extractor
        else:
            raise TypeError(f"extractor must be a name, a callable or None, got {type(extractor).__name__}")
        if scorer not in SCORERS:
            raise ValueError(f"scorer must be one of {SCORERS}, got {scorer!r}")
        self.index = index
        self.scorer = scorer
        self.specificity = bool(specificity)
        self.synonymy = bool(synonymy)
        self.restart_prob = check_float("restart_prob", restart_prob, low=0.0, high=1.0, low_open=True)
        self.tol = check_float("tol", tol, low=0.0, high=1.0, low_open=True)
        self.link_top_k = check_int("link_top_k", link_top_k, low=1)
        self._bm25 = bm25
        self._graph = index.prepared(synonymy=self.synonymy)

    @property
    def bm25(self) -> BM25Ranker:
        """The fallback ranker (built on first use from ``index.passages``)."""
        if self._bm25 is None:
            if not self.index.passages:
                raise ValueError("no BM25 fallback: the index has no passage texts and no bm25 was given")
            self._bm25 = BM25Ranker(self.index.passages)
        return self._bm25

    def node_scores(self, seeds) -> np.ndarray:
        """Node scores for seed ids: the restart vector, then the walk or an ablation."""
        spec = self.index.specificity if self.specificity else None
        r = restart_vector(self.index.n_nodes, seeds, specificity=spec)
        if self.scorer == "ppr":
            return personalized_pagerank(self._graph, r, restart_prob=self.restart_prob, tol=self.tol)
        if self.scorer == "rq_nodes":
            return query_node_scores(r)
        return query_neighbour_scores(self._graph, r)

    def retrieve(self, question: str, *, k: int = 10, entities: Sequence[str] | None = None) -> Retrieval:
        """Rank passages for one question.

        Parameters
        ----------
        question : str
        k : int, default 10
        entities : sequence of str, optional
            Query entities; overrides the extractor.

        Returns
        -------
        Retrieval
        """
        k = check_int("k", k, low=1)
        if entities is None:
            if self._extract is None:
                raise ValueError("this retriever has no extractor: pass entities=[...]")
            entities = self._extract(question)
        link = link_entities(self.index, list(entities), top_k=self.link_top_k)
        seeds = np.unique(link.nodes)
        if seeds.size == 0:
            scores = self.bm25.scores(question)
            ids = top_k(scores, k)
            return Retrieval(ids, scores[ids], tuple(entities), seeds, True)
        scores = passage_scores(self.node_scores(seeds), self.index.mentions)
        ids = top_k(scores, k)
        return Retrieval(ids, scores[ids], tuple(entities), seeds, False)
