"""Seeded random graphs for experiments and benchmarks: Erdős–Rényi and power-law (Chung–Lu).

Both return a symmetric, unit-weight, loop-free ``scipy.sparse.csr_array`` with exactly the number
of undirected edges asked for, so a benchmark row or a notebook cell can name its graph by
``(n_nodes, n_edges, seed)`` alone.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import check_float, check_int
from pathfinding.errors import InvalidValueError

__all__ = ["er_graph", "power_law_graph"]


def _unique_edge_keys(n_nodes: int, n_edges: int, draw: Callable[[int], np.ndarray]) -> np.ndarray:
    """Draw endpoint pairs until exactly ``n_edges`` distinct non-loop pairs; keys are lo * n + hi.

    Pairs are kept in the order they were drawn (first occurrence wins), so a top-up round never
    reorders or replaces the edges of an earlier round and the result depends only on the draws.
    """
    keys = np.empty(0, dtype=np.int64)
    for _ in range(1000):
        need = n_edges - keys.size
        if need <= 0:
            return keys
        m = need + need // 8 + 64
        u, v = draw(m), draw(m)
        keep = u != v
        lo = np.minimum(u, v)[keep].astype(np.int64)
        hi = np.maximum(u, v)[keep].astype(np.int64)
        candidates = np.concatenate([keys, lo * n_nodes + hi])
        _, first = np.unique(candidates, return_index=True)
        first.sort()
        keys = candidates[first[:n_edges]]
    raise InvalidValueError(
        f"n_edges = {n_edges}: could not draw that many distinct edges on {n_nodes} nodes in 1000 "
        "rounds; ask for fewer edges or a flatter degree distribution"
    )


def _symmetric_csr(keys: np.ndarray, n_nodes: int) -> sp.csr_array:
    lo, hi = np.divmod(keys, n_nodes)
    if n_nodes < np.iinfo(np.int32).max:  # scipy's usual index type; halves the index bytes
        lo, hi = lo.astype(np.int32), hi.astype(np.int32)
    rows = np.concatenate([lo, hi])
    cols = np.concatenate([hi, lo])
    A = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n_nodes, n_nodes))
    A.sum_duplicates()  # none exist; this sorts the indices and marks the format canonical
    return A


def _check_sizes(n_nodes, n_edges) -> tuple[int, int]:
    n_nodes = check_int("n_nodes", n_nodes, low=2)
    n_edges = check_int("n_edges", n_edges, low=0)
    most = n_nodes * (n_nodes - 1) // 2
    if n_edges > most:
        raise InvalidValueError(
            f"n_edges must be at most n_nodes * (n_nodes - 1) / 2 = {most}, got {n_edges}"
        )
    return n_nodes, n_edges


def er_graph(n_nodes: int, n_edges: int, rng=None) -> sp.csr_array:
    """An Erdős–Rényi-style undirected graph with exactly ``n_edges`` edges.

    Endpoints are uniform random node pairs; self-loops are dropped, duplicates removed, and the graph
    is topped up with fresh pairs until it has exactly ``n_edges`` edges.

    Parameters
    ----------
    n_nodes : int
        Number of nodes, at least 2.
    n_edges : int
        Number of undirected edges, at most ``n_nodes * (n_nodes - 1) / 2``.
    rng : None, int or numpy.random.Generator
        Source of randomness; the same seed gives the same graph.

    Returns
    -------
    scipy.sparse.csr_array of float64, shape (n_nodes, n_nodes)
        Symmetric, unit weights, no self-loops, canonical (sorted, unique indices).

    Examples
    --------
    >>> A = er_graph(100, 300, rng=0)
    >>> A.shape, int(A.nnz), bool((A != A.T).nnz == 0), float(A.diagonal().sum())
    ((100, 100), 600, True, 0.0)
    """
    n_nodes, n_edges = _check_sizes(n_nodes, n_edges)
    rng = np.random.default_rng(rng)
    keys = _unique_edge_keys(n_nodes, n_edges, lambda m: rng.integers(0, n_nodes, size=m))
    return _symmetric_csr(keys, n_nodes)


def power_law_graph(n_nodes: int, n_edges: int, rng=None, *, exponent: float = 2.3) -> sp.csr_array:
    """A Chung–Lu graph with a power-law expected-degree sequence (skewed, knowledge-graph-like).

    Node ``i`` (before a random relabelling) gets weight ``(i + 1) ** (-1 / (exponent - 1))``, so the
    expected degrees follow a power law with the given exponent; both endpoints of every edge are
    drawn in proportion to the weights. Self-loops are dropped, duplicates removed and the graph is
    topped up to exactly ``n_edges`` edges. Node ids are shuffled so that hubs are not packed at the
    start of the arrays (real graphs give no such gift to the cache).

    Parameters
    ----------
    n_nodes, n_edges : int
        As in :func:`er_graph`.
    rng : None, int or numpy.random.Generator
    exponent : float, default 2.3
        Power-law exponent of the degree distribution, > 2 (knowledge graphs sit around 2.1-2.5).

    Returns
    -------
    scipy.sparse.csr_array of float64, shape (n_nodes, n_nodes)
        Symmetric, unit weights, no self-loops, canonical.

    References
    ----------
    .. [1] F. Chung, L. Lu. "Connected components in random graphs with given expected degree
       sequences." Annals of Combinatorics 6, 2002.

    Examples
    --------
    >>> A = power_law_graph(2000, 8000, rng=0)
    >>> deg = A.sum(axis=1)
    >>> int(A.nnz), bool(deg.max() > 10 * deg.mean())
    (16000, True)
    """
    n_nodes, n_edges = _check_sizes(n_nodes, n_edges)
    exponent = check_float("exponent", exponent, low=2.0, high=np.inf, low_open=True, high_open=True)
    rng = np.random.default_rng(rng)
    weights = np.arange(1, n_nodes + 1, dtype=np.float64) ** (-1.0 / (exponent - 1.0))
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    label = rng.permutation(n_nodes)

    def draw(m: int) -> np.ndarray:
        rank = np.minimum(np.searchsorted(cdf, rng.random(m), side="right"), n_nodes - 1)
        return label[rank]

    keys = _unique_edge_keys(n_nodes, n_edges, draw)
    return _symmetric_csr(keys, n_nodes)
