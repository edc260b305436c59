"""The default retriever for a process that asks one question and exits, without compiled kernels.

Loading numba and its compiled kernels costs a one-question process more than the walk itself.
:class:`OneShotRetriever` walks with scipy instead (:func:`~pathfinding.core.ppr.ppr_solve`,
``method="scipy"``) and keeps that answer only when it can prove that the compiled walk ranks the
passages the same way; otherwise it runs the compiled walk. Either way the ranking is
:class:`~pathfinding.hipporag.retrieval.retrieve.HippoRetriever`'s and every walk score is within ``tol`` of
the exact one.

The proof: any difference of two passages' walk scores moves by at most ``d = tol + e + r`` from one
walk to the other (``e`` the scipy walk's certified error, ``r`` the rounding, :func:`rounding_slack`).
A walk ranking is certain when each of its top k scores exceeds the next by more than ``d``; a fused
ranking when every passage of its top k has a certain walk rank and no other passage can reach the
k-th fused score. HippoRAG v1's shape (``passage_weight=0``) and the Table 5 ablations always take
the compiled walk.
"""

from __future__ import annotations

import numpy as np

from pathfinding.core.ppr import ppr_solve
from pathfinding.hipporag.retrieval.lexical import top_k
from pathfinding.hipporag.retrieval.retrieve import HippoRetriever

__all__ = ["OneShotRetriever", "rounding_slack"]

TIGHTER = 0.01
"""The scipy walk runs to ``TIGHTER * tol``, so that its own error widens ``d`` by 1%."""


def rounding_slack(max_degree: int) -> float:
    """A bound on the rounding in the L1 error of both walks together, for a graph whose largest row
    (in-degree) has ``max_degree`` entries.

    Each step sums at most ``max_degree + 2`` terms per node, so it adds at most about
    ``(max_degree + 2) * eps`` of L1 error, and the walk halves every earlier error (the map
    contracts by ``1 - restart_prob``, 0.5): at most twice that over all steps, for each of the two
    walks. Doubled again for room.

    Examples
    --------
    >>> rounding_slack(10) < 1e-13
    True
    """
    return 8.0 * (max_degree + 2) * float(np.finfo(np.float64).eps)


class OneShotRetriever(HippoRetriever):
    """:class:`~pathfinding.hipporag.retrieval.retrieve.HippoRetriever`'s rankings, walked without compiled
    kernels wherever that ranking can be certified (see the module docstring).

    Takes the same parameters. After each :meth:`retrieve`, :attr:`walked_by` says which walk
    answered: ``"scipy"``, ``"compiled"`` (the certificate failed, or a shape it does not cover),
    or ``None`` (no walk: the BM25 fallback).

    Examples
    --------
    Two identical passages tie in every walk: no order between them can be certified.

    >>> from pathfinding.hipporag.index.build import build_index
    >>> facts = [[("Bela Lugosi", "starred in", "Plan 9")], [("Plan 9", "shot in", "Burbank")]]
    >>> texts = ["Bela Lugosi starred in Plan 9.", "Plan 9 was shot in Burbank."]
    >>> idx = build_index(facts + facts[:1], passages=texts + texts[:1])
    >>> r = OneShotRetriever(idx)
    >>> r.retrieve("Where was the film with Bela Lugosi shot?", k=2).passages, r.walked_by
    (array([0, 2]), 'compiled')
    >>> r.retrieve("Where was the film with Bela Lugosi shot?", k=1).passages, r.walked_by
    (array([0]), 'compiled')
    >>> r.retrieve("Which film was shot in Burbank?", k=1).passages, r.walked_by
    (array([1]), 'scipy')
    """

    walked_by: str | None = None

    def retrieve(self, question, *, k=10, entities=None):
        self.walked_by = None
        return super().retrieve(question, k=k, entities=entities)

    def _scipy_walk(self, question: str, w: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        """Passage scores of the walk run by scipy, the distance ``d`` of the module docstring, and
        which passages no walk can reach (outside the connected components of the restart's
        support: exactly 0 in every walk)."""
        g = self.graph_with_passages()
        restart = self.hybrid_restart(question, w)
        res = ppr_solve(g, restart, restart_prob=self.restart_prob, tol=TIGHTER * self.tol, method="scipy")
        max_degree = int(np.diff(g.indptr).max(initial=0))
        d = self.tol + res.error_bound + rounding_slack(max_degree)
        n = self.index.n_nodes
        reachable = np.zeros(g.n_nodes, bool)
        for lo, hi in g.sweep_blocks(g.internal_ids(np.flatnonzero(restart))):
            reachable[lo:hi] = True
        return res.pi[n:], d, ~reachable[g.internal_ids(np.arange(n, g.n_nodes))]

    def _walk_top(self, plan, k: int):
        if self.passage_weight > 0 and self.tol > 0:
            walk, d, zero = self._scipy_walk(plan.question, plan.weights)
            m = min(k, walk.size)
            order = top_k(walk, walk.size)
            s = walk[order]
            # The passages of the top m that the library's walk certainly reaches come first, each
            # certainly above the next passage; any others of the top m, and every passage after
            # them, must be unreachable (a score of exactly 0 everywhere, ranked by id alike).
            reached = int(np.count_nonzero(s[:m] > d))
            chain = s[: reached + 1]
            certain = bool(np.all(chain[:-1] - chain[1:] > d))
            if certain and (reached == m or np.all(zero[order[reached:]])):
                self.walked_by = "scipy"
                return order[:m], s[:m], d - self.tol
        # The compiled walk run to tol: the ranking the library's certified push gives, or the one
        # of its own fallback, with every score within tol (push's scores are only bounds).
        self.walked_by = "compiled"
        scores = self._walk_scores(plan.question, plan.weights)
        ids = top_k(scores, k)
        return ids, scores[ids], self.tol

    def _fused_top(self, plan, k: int):
        if self.passage_weight > 0 and self.tol > 0:
            lam = plan.walk_weight
            walk, d, zero = self._scipy_walk(plan.question, plan.weights)
            bm = self.bm25_scores(plan.question)
            fused = self.fuse(walk, bm, lam)
            ids = top_k(fused, k)
            low, high, exact = self._fused_bounds(walk, bm, lam, d, zero)
            last = ids[-1]
            rest = np.ones(fused.size, bool)
            rest[ids] = False
            beaten = (high < fused[last]) | ((high == fused[last]) & (np.arange(fused.size) > last))
            if np.all(exact[ids]) and np.all(beaten[rest]):
                self.walked_by = "scipy"
                return ids, fused[ids], d - self.tol
        self.walked_by = "compiled"
        return super()._fused_top(plan, k)

    def _fused_bounds(self, walk, bm, lam, d, zero):
        """Each passage's lowest and highest possible fused score, and whether they are equal
        (``zero``: passages whose walk score is exactly 0 in every walk).

        A passage q is certainly above p when its score exceeds p's by more than ``d``, possibly
        above when it is not more than ``d`` below, and a passage scoring at most ``d`` may have no
        walk rank at all: that bounds each walk rank, hence each fused score, from both sides.
        """
        n = walk.size
        bm_part = self.fuse(np.zeros(n), bm, lam)  # the BM25 term alone (no walk rank), exact
        if lam == 0:
            return bm_part, bm_part, np.ones(n, bool)
        d = d * (1.0 + 1e-9)  # room for the rounding of walk +- d itself
        ranked = np.sort(walk)
        # rank among the walk's positive scores: 1 + the passages above (certainly, possibly)
        first = 1 + n - np.searchsorted(ranked, walk + d, side="right")
        last = n - np.searchsorted(ranked, walk - d, side="left")  # includes the passage itself
        reached = walk > d  # certainly a positive score in the library's walk too
        best = np.where(zero, 0.0, lam / (self.fusion_c + first))
        worst = np.where(reached, lam / (self.fusion_c + last), 0.0)
        high = np.where(bm_part > 0, best + bm_part, best)
        low = np.where(bm_part > 0, worst + bm_part, worst)
        return low, high, (reached & (first == last)) | zero
