"""The peers we time against: a textbook scipy power iteration, igraph's PRPACK, scikit-network.

Each ``*_methods`` function returns ``{name: zero-argument callable}`` answering the benchmark query,
or raises ImportError when its library is absent (``pip install -e '.[bench]'`` installs both).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from pathfinding.bench.config import N_ITER, RESTART_PROB

__all__ = ["igraph_methods", "scipy_power_iteration", "scipy_prepare", "sknetwork_methods"]


def scipy_prepare(A) -> tuple[sp.csr_array, np.ndarray]:
    """Per-graph work of the textbook scipy power iteration: W^T in CSR form and the dangling nodes.

    ``W = D^-1 A`` is the row-normalised walk matrix; a node without out-edges keeps a zero row and
    is listed in ``dangling`` (its mass returns to the restart vector).
    """
    A = sp.csr_array(A, dtype=np.float64)
    out = np.asarray(A.sum(axis=1)).ravel()
    inv = np.zeros_like(out)
    np.divide(1.0, out, out=inv, where=out > 0)
    WT = sp.csr_array((sp.diags_array(inv) @ A).T)
    WT.sort_indices()
    return WT, np.flatnonzero(out == 0)


def scipy_power_iteration(
    WT, dangling: np.ndarray, r: np.ndarray, *, restart_prob: float = RESTART_PROB, n_iter: int = N_ITER
) -> np.ndarray:
    """Exactly ``n_iter`` steps of ``pi = a r + (1 - a) (W^T pi + lost r)`` with scipy's CSR matvec.

    The standard way a scipy user writes PPR: one sparse matrix-vector product per iteration.
    """
    a = restart_prob
    ar = a * r
    pi = r.copy()
    for _ in range(n_iter):
        pi = ar + (1.0 - a) * (WT @ pi + pi[dangling].sum() * r)
    return pi


def igraph_methods(A, r: np.ndarray, seeds: np.ndarray) -> dict[str, Callable[[], object]]:
    """igraph PRPACK on the undirected graph, called with a reset vector and with seed ids."""
    import igraph

    edges = np.column_stack(sp.triu(A, k=1, format="coo").coords)
    ig = igraph.Graph(n=A.shape[0], edges=edges.tolist(), directed=False)
    seed_list = [int(s) for s in seeds]
    return {
        "igraph-prpack": lambda: ig.personalized_pagerank(
            reset=r, damping=1.0 - RESTART_PROB, implementation="prpack", directed=False
        ),
        "igraph-prpack-seeds": lambda: ig.personalized_pagerank(
            reset_vertices=seed_list, damping=1.0 - RESTART_PROB, implementation="prpack", directed=False
        ),
    }


def sknetwork_methods(A, r: np.ndarray) -> dict[str, Callable[[], object]]:
    """scikit-network's PageRank, exactly ``N_ITER`` power iterations."""
    from sknetwork.ranking import PageRank

    A_matrix = sp.csr_matrix(A)  # sknetwork checks for the csr_matrix class
    return {
        "sknetwork-30": lambda: PageRank(
            damping_factor=1.0 - RESTART_PROB, solver="piteration", n_iter=N_ITER, tol=0.0
        ).fit_predict(A_matrix, weights=r)
    }
