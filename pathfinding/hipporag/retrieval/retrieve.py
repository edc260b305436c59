"""Retrieval, Steps 5-7: question -> seeds -> restart vector -> PPR -> ranked passages.

Seeds are the question's entities, each linked to its nearest node (weight 1) when their cosine
reaches ``min_link_cosine`` (a weaker match is not in the index and seeds nothing), and the nodes of
its best-matching facts (:class:`~pathfinding.hipporag.retrieval.lexical.FactLinker`, at most
``fact_weight``); each weight is multiplied by the node's specificity s_i = 1/|P_i|. The walk is
HippoRAG v1's over the phrases with passages scored pi . P (``passage_weight=0``), or HippoRAG 2's
shape, with the passages as nodes and a share ``passage_weight`` of the restart on them by BM25 score.

Per question: no seed gives BM25's ranking (``fell_back``); a seed linked from a capitalised span (a
name its writer marked) gives the walk's; otherwise the seeds are guesses, and the walk is fused with
BM25 by weighted reciprocal rank, ``lam / (c + rank_walk) + (1 - lam) / (c + rank_bm25)`` with
``c = fusion_c``, and ``lam = restored_weight`` when a seed is a name whose capitals were read from
the corpus (:mod:`~pathfinding.hipporag.language.reading`: a question typed in lower case, in capitals or with
stray capitals), else ``lam = guess_weight``. A ranking has ``min(k, n_passages)`` passages, equal
scores by increasing id; a question that matches nothing gets none, and :data:`NO_MATCH`. How the
constants were chosen, and where this departs from v1: the README, "HippoRAG on real text".

Before the default extractor, the question is read through the index's casing model
(:func:`~pathfinding.hipporag.language.reading.read_question`; ``casing=False`` skips it);
:attr:`Retrieval.reading` shows what was read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import check_float, check_int
from pathfinding.core.ppr import ppr_top_k
from pathfinding.core.prepared import Candidates, PPRGraph, prepare_graph
from pathfinding.core.scoring import NODE_SCORERS, passage_scores
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.model import HippoIndex
from pathfinding.hipporag.language.casing import CasingModel, casing_model
from pathfinding.hipporag.language.names import has_capitals
from pathfinding.hipporag.language.reading import Reading, read_question
from pathfinding.hipporag.language.text import nfc
from pathfinding.hipporag.retrieval.lexical import BM25Ranker, FactLinker, top_k
from pathfinding.hipporag.retrieval.linking import (
    EXTRACTORS,
    EntityLink,
    default_min_link_cosine,
    link_entities,
)

__all__ = [
    "BM25_KEY",
    "FACT_LINKER_KEY",
    "HippoRetriever",
    "NO_MATCH",
    "Retrieval",
    "SCORERS",
    "graph_with_passages",
    "passage_bm25",
    "passage_graph_key",
]

FACT_LINKER_KEY = "fact_linker"
"""Where an index keeps its :class:`~pathfinding.hipporag.retrieval.lexical.FactLinker`
(:meth:`~pathfinding.hipporag.index.model.HippoIndex.derived`)."""
BM25_KEY = "bm25"
"""Where an index keeps the BM25 over its passages."""


def passage_graph_key(synonymy: bool) -> tuple:
    """Where an index keeps :meth:`HippoRetriever.graph_with_passages` for ``synonymy``."""
    return ("with_passages", bool(synonymy))


def graph_with_passages(index: HippoIndex, *, synonymy: bool = True) -> PPRGraph:
    """The walk graph of HippoRAG 2's shape, prepared once per index (:meth:`HippoIndex.derived`):
    the phrase graph plus one node per passage (ids ``n_nodes + j``), joined by the counts in P."""

    def build() -> PPRGraph:
        P = sp.csr_array(index.mentions)
        A = sp.bmat([[index.graph(synonymy=synonymy), P], [P.T, None]], format="csr")
        return prepare_graph(A)

    return index.derived(passage_graph_key(synonymy), build)


def passage_bm25(index: HippoIndex) -> BM25Ranker:
    """The BM25 over an index's passage texts, built once per index (:meth:`HippoIndex.derived`)."""
    return index.derived(BM25_KEY, lambda: BM25Ranker(index.passages))


NO_MATCH = (
    "nothing in the index matches the question: no entity or fact linked to a node, and no passage "
    "shares a word with it (stop words are ignored)"
)
"""The :attr:`Retrieval.note` of a question that matches nothing (its ranking is empty)."""

SCORERS = tuple(NODE_SCORERS)
"""Node scorers: the walk, and Table 5's "R_q nodes only" (``rq_nodes``) and "R_q nodes &
neighbours", as HippoRAG v1 computes it (``rq_neighbours_v1``: two hops) and as our one weighted hop
(``rq_neighbours``)."""


@dataclass(frozen=True)
class Retrieval:
    """One retrieval.

    Attributes
    ----------
    passages : numpy.ndarray of int64
        Passage ids, best first (``min(k, n_passages)`` of them).
    scores : numpy.ndarray of float64
        Their scores (zero for passages the walk did not reach).
    entities : tuple of str
        Query entities used (before linking).
    seeds : numpy.ndarray of int64
        Seed node ids (distinct, ascending): linked entities and fact nodes.
    fell_back : bool
        True when there was no seed and BM25 ranked the passages.
    walk_error : float
        Certified L1 bound on the error of the walk's node vector behind ``scores``: ``tol`` when
        the walk ran to the retriever's tolerance, larger when the hybrid walk stopped as soon as
        its top k were certified (the ranking is then exact; the scores are within this bound), 0
        for the BM25 fallback.
    note : str
        Empty, or why no passage was returned (:data:`NO_MATCH`: no seed, and no passage shares a
        word with the question).
    walk_weight : float
        The walk's weight in the rank fusion with BM25: 1 (the walk alone) when a seed came from a
        span the writer capitalised, the retriever's ``restored_weight`` when a seed is a name read
        from the corpus, its ``guess_weight`` when the seeds were guesses, 0 for the BM25 fallback.
    reading : Reading or None
        The question as the extractor read it (:func:`~pathfinding.hipporag.language.reading.read_question`);
        None when the entities were given, the extractor is not the default, or casing is off.
    links : tuple of EntityLink
        Each entity's nearest node, its cosine and whether it reached the retriever's
        ``min_link_cosine`` (an entity not kept is not in the index and seeds nothing).
    """

    passages: np.ndarray
    scores: np.ndarray
    entities: tuple[str, ...]
    seeds: np.ndarray
    fell_back: bool
    walk_error: float = 0.0
    note: str = ""
    walk_weight: float = 1.0
    links: tuple[EntityLink, ...] = ()
    reading: Reading | None = None


@dataclass(frozen=True)
class _Plan:
    """What a question gives before the walk (:meth:`HippoRetriever._plan`)."""

    question: str
    entities: tuple[str, ...]
    reading: Reading | None
    seeds: np.ndarray  # the ids whose weight is not 0, ascending
    seed_weights: np.ndarray  # their weights (after specificity)
    walk_weight: float
    links: tuple[EntityLink, ...]
    n_nodes: int

    @property
    def weights(self) -> np.ndarray:
        """Every node's weight, zero off the seeds: an array as long as the nodes, made when asked."""
        w = np.zeros(self.n_nodes)
        w[self.seeds] = self.seed_weights
        return w


class HippoRetriever:
    """HippoRAG retrieval over a :class:`~pathfinding.hipporag.index.model.HippoIndex`.

    Parameters
    ----------
    index : HippoIndex
    extractor : str or callable or None, default "default"
        Name in :data:`~pathfinding.hipporag.retrieval.linking.EXTRACTORS` (``"default"``,
        ``"capitalised"``, ``"node_ngrams"``, ``"union"``), or ``question -> list of str`` (e.g. from
        :func:`~pathfinding.hipporag.retrieval.linking.ner_lookup`), or None for no extractor (seeds
        from facts and ``entities=`` only).
    facts : int, default 5
        Best-matching facts whose nodes join the seeds (HippoRAG 2 keeps 5); 0 turns fact seeds off.
    fact_weight : float, default 0.1
        Weight of a fact seed relative to a linked entity, before specificity (in (0, 1]): an
        entity weighs 1, a fact's nodes at most ``fact_weight``; with no entity (a lower-cased
        question) the fact seeds carry the whole restart.
    passage_weight : float, default 0.2
        Share of the restart put on passage nodes by BM25 score (in [0, 1)); 0 is v1's walk over
        phrases only.
    scorer : str, default "ppr"
        A key of :data:`pathfinding.core.scoring.NODE_SCORERS`; the ablations need ``passage_weight=0``.
    specificity : bool, default True
        Weight each seed's restart by s_i = 1/|P_i|.
    synonymy : bool, default True
        Walk over relation + synonymy edges (False: relation edges only).
    restart_prob : float, default 0.5
    tol : float, default 1e-10
        Certified L1 error of the walk, as in :func:`~pathfinding.core.ppr.personalized_pagerank`
        (``tol=0`` runs exactly 1000 power iterations). With passage nodes the walk stops earlier,
        as soon as the top k passages and their order are certified with a margin of ``tol``
        (:func:`~pathfinding.core.ppr.ppr_top_k`): the ranking is then the one the walk to ``tol`` gives,
        and :attr:`Retrieval.walk_error` bounds the scores' error.
    link_top_k : int, default 1
        Nodes linked per entity.
    min_link_cosine : float, optional
        The floor of entity linking (in [0, 1]): an entity whose nearest node is less similar is
        not in the index, seeds nothing, and the question is answered as one without that entity
        (:attr:`Retrieval.links` says so). Default:
        :func:`~pathfinding.hipporag.retrieval.linking.default_min_link_cosine` (the floor chosen on the
        MuSiQue tuning set for the offline encoder, none for another encoder); 0 links every
        entity, as v1 does.
    guess_weight : float, default 0.65
        The walk's weight ``lam`` in the rank fusion with BM25 for a question none of whose seeds
        came from a capitalised span (in [0, 1]; 1 turns the fusion off, 0 gives BM25's order).
    fusion_c : float, default 10
        The rank offset ``c`` of the fusion (> 0).
    restored_weight : float, default 0.85
        The walk's weight ``lam`` in the fusion when no seed came from a capital the writer typed
        but one is a name read from the corpus (in [0, 1]).
    casing : bool or CasingModel, default True
        Read the question through the index's casing model
        (:func:`~pathfinding.hipporag.language.casing.casing_model`) before the default extractor; a
        :class:`~pathfinding.hipporag.language.casing.CasingModel` reads it through that one; False reads
        the question as typed (and every capitalised entity counts as typed). The other
        extractors, named or yours, always read the question as typed.
    bm25 : BM25Ranker, optional
        Passage scorer for the fallback, the hybrid and the fusion; built from ``index.passages``
        when needed.

    Examples
    --------
    >>> from pathfinding.hipporag.index.build import build_index
    >>> idx = build_index(
    ...     [[("Ed Wood", "directed", "Plan 9")], [("Plan 9", "filmed in", "Burbank")],
    ...      [("Paris", "capital of", "France")]],
    ...     passages=["Ed Wood directed Plan 9.", "Plan 9 was filmed in Burbank.", "Paris is in France."])
    >>> r = HippoRetriever(idx).retrieve("Where was the film by Ed Wood shot?", k=3)
    >>> r.passages, r.fell_back
    (array([0, 1, 2]), False)
    >>> r = HippoRetriever(idx).retrieve("where was the film by ed wood shot?", k=3)
    >>> r.passages, r.reading.text, r.walk_weight
    (array([0, 1, 2]), 'where was the film by Ed Wood shot?', 0.85)
    """

    def __init__(
        self,
        index: HippoIndex,
        *,
        extractor: str | Callable | None = "default",
        facts: int = 5,
        fact_weight: float = 0.1,
        passage_weight: float = 0.2,
        scorer: str = "ppr",
        specificity: bool = True,
        synonymy: bool = True,
        restart_prob: float = 0.5,
        tol: float = 1e-10,
        link_top_k: int = 1,
        min_link_cosine: float | None = None,
        guess_weight: float = 0.65,
        fusion_c: float = 10.0,
        restored_weight: float = 0.85,
        casing: bool | CasingModel = True,
        bm25: BM25Ranker | None = None,
    ):
        if not isinstance(index, HippoIndex):
            raise InvalidTypeError(f"index must be a HippoIndex, got {type(index).__name__}")
        if isinstance(extractor, str):
            if extractor not in EXTRACTORS:
                raise InvalidValueError(
                    f"extractor must be one of {sorted(EXTRACTORS)} or a callable, got {extractor!r}"
                )
            fn = EXTRACTORS[extractor]
            self._extract = lambda q: fn(q, index)
        elif extractor is None or callable(extractor):
            self._extract = extractor
        else:
            raise InvalidTypeError(
                f"extractor must be a name, a callable or None, got {type(extractor).__name__}"
            )
        if scorer not in NODE_SCORERS:
            raise InvalidValueError(f"scorer must be one of {SCORERS}, got {scorer!r}")
        self.index = index
        self.facts = check_int("facts", facts, low=0)
        self.fact_weight = check_float("fact_weight", fact_weight, low=0.0, high=1.0, low_open=True)
        self.passage_weight = check_float("passage_weight", passage_weight, low=0.0, high=1.0, high_open=True)
        if self.passage_weight > 0 and scorer != "ppr":
            raise InvalidValueError(
                f"scorer {scorer!r} is a v1 ablation: it needs passage_weight=0, got {passage_weight}"
            )
        self.scorer = scorer
        self.specificity = bool(specificity)
        self.synonymy = bool(synonymy)
        self.restart_prob = check_float("restart_prob", restart_prob, low=0.0, high=1.0, low_open=True)
        self.tol = check_float("tol", tol, low=0.0, high=np.inf, high_open=True)
        self.link_top_k = check_int("link_top_k", link_top_k, low=1)
        if min_link_cosine is None:
            min_link_cosine = default_min_link_cosine(index)
        self.min_link_cosine = check_float("min_link_cosine", min_link_cosine, low=0.0, high=1.0)
        self.guess_weight = check_float("guess_weight", guess_weight, low=0.0, high=1.0)
        self.fusion_c = check_float("fusion_c", fusion_c, low=0.0, high=np.inf, low_open=True, high_open=True)
        self.restored_weight = check_float("restored_weight", restored_weight, low=0.0, high=1.0)
        if not isinstance(casing, bool | np.bool_ | CasingModel):
            raise InvalidTypeError(
                f"casing must be True, False or a CasingModel, got {type(casing).__name__}"
            )
        self.casing = casing if isinstance(casing, CasingModel) else bool(casing)
        if extractor != "default":  # v1's capitalised spans, the other extractors: as typed
            self.casing = False
        self._bm25 = bm25
        self._bm25_memo: tuple[str, np.ndarray] | None = None
        self._candidates_memo: Candidates | None = None
        self._facts = index.derived(FACT_LINKER_KEY, lambda: FactLinker(index)) if self.facts else None

    def bm25_scores(self, question: str) -> np.ndarray:
        """The passages' BM25 scores for ``question``, computed once per question: the fallback, the
        hybrid restart and the fusion of one retrieval all read the same array (do not change it)."""
        memo = self._bm25_memo  # one (question, scores) pair, replaced whole: safe to read at once
        if memo is None or memo[0] != question:
            memo = (question, self.bm25.scores(question))
            self._bm25_memo = memo
        return memo[1]

    @property
    def bm25(self) -> BM25Ranker:
        """The passage BM25 (built on first use from ``index.passages``)."""
        if self._bm25 is None:
            if not self.index.passages:
                raise InvalidValueError(
                    "no BM25 ranker: the index has no passage texts and no bm25 was given"
                )
            self._bm25 = passage_bm25(self.index)
        return self._bm25

    def graph_with_passages(self) -> PPRGraph:
        """Phrase graph plus one node per passage (ids ``n_nodes + j``), joined by the counts in P
        (:func:`graph_with_passages`)."""
        return graph_with_passages(self.index, synonymy=self.synonymy)

    def seed_weights(self, question: str, entities: Sequence[str]) -> np.ndarray:
        """Raw restart weight of every node (before specificity): entity links and fact seeds."""
        ids, values = self._seeds(question, entities)[:2]
        w = np.zeros(self.index.n_nodes)
        w[ids] = values
        return w

    def read(self, question: str) -> Reading | None:
        """The question as the extractor reads it (None when casing is off)."""
        if self.casing is False:
            return None
        model = self.casing if isinstance(self.casing, CasingModel) else casing_model(self.index)
        return read_question(question, model)

    def _seeds(self, question: str, entities: Sequence[str], reading: Reading | None = None):
        """The ids that may hold a weight (ascending) and their raw weights; the walk's weight in the
        fusion (1 when an entity whose capitals the writer typed was linked, ``restored_weight`` when
        one read from the corpus was, else ``guess_weight``); and every entity's link. Kept sparse:
        an array over every node (4.7 million at a million passages) would be written per question."""
        link = link_entities(
            self.index, list(entities), top_k=self.link_top_k, min_cosine=self.min_link_cosine
        )
        if reading is None:  # read as typed: every capital is the writer's
            origins = {"typed" for e in link.entities if has_capitals(e)}
        else:
            origins = {reading.origin(e) for e in link.entities}
        lam = self.restored_weight if "corpus" in origins else self.guess_weight
        lam = 1.0 if "typed" in origins else lam
        nodes, rel = np.zeros(0, np.int64), np.zeros(0)
        if self._facts is not None:
            nodes, rel = self._facts.seeds(question, n_facts=self.facts)  # nodes distinct
        ids = np.union1d(link.nodes, nodes)
        values = np.zeros(ids.size)
        values[np.searchsorted(ids, link.nodes)] = 1.0
        at = np.searchsorted(ids, nodes)
        values[at] = np.maximum(values[at], self.fact_weight * rel)
        return ids, values, lam, link.links

    def fuse(self, walk_scores, bm25_scores, walk_weight: float) -> np.ndarray:
        """Weighted reciprocal-rank fusion of two passage scorings (the rule in the module docstring).

        Ranks follow :func:`top_k` (equal scores by passage id); a zero score gives no rank.

        Examples
        --------
        >>> from pathfinding.hipporag.index.build import build_index
        >>> ret = HippoRetriever(build_index([[("Ed Wood", "directed", "Plan 9")]]), fusion_c=1.0)
        >>> ret.fuse([0.0, 0.2, 0.9], [3.0, 1.0, 0.0], 0.5)
        array([0.25      , 0.33333333, 0.25      ])
        """
        out = np.zeros(len(bm25_scores))
        for scores, weight in ((walk_scores, walk_weight), (bm25_scores, 1.0 - walk_weight)):
            s = np.asarray(scores, dtype=np.float64)
            if weight == 0:
                continue
            order = top_k(s, s.size)
            order = order[s[order] > 0]
            out[order] += weight / (self.fusion_c + np.arange(1, order.size + 1))
        return out

    def hybrid_restart(self, question: str, weights: np.ndarray) -> np.ndarray:
        """The restart over :meth:`graph_with_passages` (``passage_weight > 0``): ``1 - beta`` on the
        seeds in proportion to ``weights`` (one per phrase node, after specificity, not all zero),
        ``beta`` on the passages in proportion to their BM25 scores (``beta = 0`` when none scores)."""
        seeds = np.flatnonzero(weights != 0)
        entries = self._restart_entries(question, seeds, weights[seeds])
        out = np.zeros(entries.shape[0])  # one array of the graph's size (it costs as much as a short walk)
        out[entries.coords[0]] = entries.data
        return out

    def _restart_entries(self, question: str, seeds: np.ndarray, weights: np.ndarray) -> sp.coo_array:
        """:meth:`hybrid_restart`'s non-zero entries as a 1-D sparse array (``seeds``: the ids of the
        non-zero weights, ascending; ``weights``: theirs), without a pass over every node."""
        bm = self.bm25_scores(question)
        bm_total = bm.sum()
        beta = self.passage_weight if bm_total > 0 else 0.0
        n = self.index.n_nodes
        hit = np.flatnonzero(bm != 0) if beta > 0 else np.zeros(0, np.int64)  # on the mask: 5x faster
        ids = np.concatenate([seeds, n + hit])
        seed_scale = (1.0 - beta) / weights.sum()  # in id order, as over the whole array
        passage_scale = beta / bm_total if beta > 0 else 0.0
        values = np.concatenate([weights * seed_scale, bm[hit] * passage_scale])
        return sp.coo_array((values, (ids,)), shape=(n + bm.shape[0],))

    def _passage_candidates(self, g: PPRGraph) -> Candidates:
        """The passage nodes of ``g`` (:meth:`graph_with_passages`) prepared as candidates, once."""
        memo = self._candidates_memo
        if memo is None or memo.graph is not g:
            memo = g.candidates(np.arange(self.index.n_nodes, g.n_nodes))
            self._candidates_memo = memo
        return memo

    def phrase_graph(self) -> PPRGraph:
        """The prepared phrase graph v1's walk runs on (relation edges, and synonymy edges if on),
        prepared on first use (the default retriever walks :meth:`graph_with_passages` instead)."""
        return self.index.prepared(synonymy=self.synonymy)

    def node_scores(self, restart) -> np.ndarray:
        """Node scores for a restart vector over the phrase nodes: the walk or an ablation."""
        graph = self.phrase_graph()
        return NODE_SCORERS[self.scorer](graph, restart, restart_prob=self.restart_prob, tol=self.tol)

    def retrieve(self, question: str, *, k: int = 10, entities: Sequence[str] | None = None) -> Retrieval:
        """Rank passages for one question.

        Parameters
        ----------
        question : str
        k : int, default 10
        entities : sequence of str, optional
            Query entities; overrides the extractor (fact seeds still come from ``question``).

        Returns
        -------
        Retrieval

        Raises
        ------
        TypeError
            If ``question`` is not a string or ``entities`` is a string or holds a non-string.
        """
        k = check_int("k", k, low=1)
        plan = self._plan(question, entities)
        question, entities, lam = plan.question, plan.entities, plan.walk_weight
        found = {"entities": entities, "reading": plan.reading, "links": plan.links}
        seeds = plan.seeds
        if seeds.size == 0:
            scores = self.bm25_scores(question)
            if not np.any(scores > 0):  # nothing to rank by: no ranking, rather than ids in order
                empty = np.zeros(0, np.int64)
                return Retrieval(empty, np.zeros(0), seeds=seeds, fell_back=True, note=NO_MATCH,
                                 walk_weight=0.0, **found)  # fmt: skip
            ids = top_k(scores, k)
            return Retrieval(ids, scores[ids], seeds=seeds, fell_back=True, walk_weight=0.0, **found)
        if lam < 1.0:
            ids, scores, error = self._fused_top(plan, k)
            return Retrieval(
                ids, scores, seeds=seeds, fell_back=False, walk_error=error, walk_weight=lam, **found
            )
        ids, scores, error = self._walk_top(plan, k)
        return Retrieval(ids, scores, seeds=seeds, fell_back=False, walk_error=error, **found)

    def explain(self, question: str, *, k: int = 10, entities: Sequence[str] | None = None):
        """Rank passages for one question as :meth:`retrieve` does, and say why each ranked.

        Each passage's score is split by source: a seed entity (with its specificity), the seeds of
        the best facts, the passage nodes' BM25 restart, the BM25 term of a fused ranking, or for
        BM25 alone each question term; the parts add up to the score. Each passage also lists the
        nodes it came through, with the most probable walk from each seed to the top ones
        (:mod:`~pathfinding.hipporag.retrieval.explain`). The walk is solved once per source, so
        this costs a few walks more than :meth:`retrieve`; the ranking is the same.

        Returns
        -------
        Explanation
            One PassageExplanation per ranked passage, and ``retrieval``: the :class:`Retrieval`
            that :meth:`retrieve` gives (entities, links, reading), with the explanation's scores.
        """
        from pathfinding.hipporag.retrieval.explain import explain_bm25, explain_walk

        k = check_int("k", k, low=1)
        if self.scorer != "ppr":
            raise InvalidValueError(
                f"explain splits the walk (scorer 'ppr'), not the ablation {self.scorer!r}"
            )
        plan = self._plan(question, entities)
        seeds = plan.seeds
        found = {"entities": plan.entities, "reading": plan.reading, "links": plan.links, "seeds": seeds}
        if seeds.size == 0:
            scores = self.bm25_scores(plan.question)
            ids = top_k(scores, k) if np.any(scores > 0) else np.zeros(0, np.int64)
            titles = [t.partition("\n")[0] for t in self.index.passages]
            why = explain_bm25(self.bm25, plan.question, ids, scores[ids], titles=titles)
            note = "" if ids.size else NO_MATCH
            hit = Retrieval(ids, scores[ids], fell_back=True, walk_weight=0.0, note=note, **found)
        elif plan.walk_weight < 1.0:
            why = explain_walk(self, plan, k, lam=plan.walk_weight, bm=self.bm25_scores(plan.question))
            hit = Retrieval(why.ids, why.scores, fell_back=False, walk_error=why.walk_error,
                            walk_weight=plan.walk_weight, **found)  # fmt: skip
        else:
            why = explain_walk(self, plan, k)
            hit = Retrieval(why.ids, why.scores, fell_back=False, walk_error=why.walk_error, **found)
        return dataclasses.replace(why, retrieval=hit)

    def _plan(self, question: str, entities: Sequence[str] | None) -> _Plan:
        """The question (NFC), its entities as read, and the restart weights (after specificity)."""
        if not isinstance(question, str):
            raise InvalidTypeError(f"question must be a string, got {type(question).__name__}")
        question = nfc(question)
        if entities is None:
            if self._extract is None and self._facts is None:
                raise InvalidValueError(
                    "this retriever has no extractor and no fact seeds: pass entities=[...]"
                )
            reading = self.read(question) if self._extract is not None else None
            if self._extract is None:
                entities = []
            else:
                entities = self._extract(question if reading is None else reading.text)
        elif isinstance(entities, str):
            raise InvalidTypeError(f"entities must be a sequence of strings, got the string {entities!r}")
        else:
            reading = None
        entities = tuple(nfc(e) if isinstance(e, str) else e for e in entities)  # linking checks types
        ids, values, lam, links = self._seeds(question, entities, reading)
        if self.specificity:
            values = values * self.index.specificity[ids]
        keep = values != 0
        return _Plan(question, entities, reading, ids[keep], values[keep], lam, links, self.index.n_nodes)

    def _walk_scores(self, question: str, w: np.ndarray) -> np.ndarray:
        """Every passage's walk score, the walk run to ``tol`` (raw seed weights ``w``)."""
        if self.passage_weight == 0:
            return passage_scores(self.node_scores(w / w.sum()), self.index.mentions)
        g = self.graph_with_passages()
        restart = self.hybrid_restart(question, w)
        pi = NODE_SCORERS["ppr"](g, restart, restart_prob=self.restart_prob, tol=self.tol)
        return pi[self.index.n_nodes :]

    def _fused_top(self, plan: _Plan, k: int):
        """(ids, scores, walk error) of the fusion of the walk with BM25 (seeds that are guesses)."""
        # The fusion needs the walk's whole order, not a certified top k.
        walk = self._walk_scores(plan.question, plan.weights)
        scores = self.fuse(walk, self.bm25_scores(plan.question), plan.walk_weight)
        ids = top_k(scores, k)
        return ids, scores[ids], self.tol

    def _walk_top(self, plan: _Plan, k: int):
        """(ids, scores, walk error) of the walk alone (a seed came from a capitalised span)."""
        if self.passage_weight > 0:
            # Walk only until the top k passages and their order are certified, with a margin of
            # tol: then the walk run to tol (below) ranks them identically too. The graph is
            # undirected, so forward push certifies most queries locally (ppr_top_k). Exact ties
            # cannot be certified.
            g = self.graph_with_passages()
            n = self.index.n_nodes
            # The restart as its entries and the passages prepared once: no pass over every node
            # (5.7 million at a million passages) before push starts.
            restart = self._restart_entries(plan.question, plan.seeds, plan.seed_weights)
            top = ppr_top_k(
                g, restart, min(k, self.index.n_passages),
                candidates=self._passage_candidates(g), restart_prob=self.restart_prob, tol=self.tol,
                margin=self.tol,
            )  # fmt: skip
            if top.certified:
                return top.top - n, top.scores, top.error_bound
        scores = self._walk_scores(plan.question, plan.weights)
        ids = top_k(scores, k)
        return ids, scores[ids], self.tol
