"""Step 5: Personalized PageRank over the knowledge graph.

The walk starts at the seeds; at every step it restarts to the seeds with probability
``restart_prob`` (0.5 in HippoRAG) and otherwise follows an edge chosen in proportion to its weight.
Mass that several seeds send to the same node adds up there, which is why a node that all seeds reach
(the answer of a path-finding question) outranks a node that only one seed reaches.

:func:`prepare_graph` does the per-graph work once (transpose, degrees, index compaction);
:func:`ppr_solve` runs one query, or a block of queries, on a prepared graph; and
:func:`personalized_pagerank` is the public entry point that accepts either.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from pathfinding import _kernels
from pathfinding._validation import as_csr, check_float, check_int, check_node_ids, check_vector

__all__ = [
    "ConvergenceWarning",
    "PPRGraph",
    "PPRResult",
    "personalized_pagerank",
    "ppr_solve",
    "prepare_graph",
    "walk_step",
]


class ConvergenceWarning(RuntimeWarning):
    """Personalized PageRank stopped at ``max_iter`` before reaching ``tol``."""


@dataclass(frozen=True, eq=False)
class PPRGraph:
    """A graph prepared for repeated PPR queries.

    Holds the transpose of the weight matrix in CSR form with compact unsigned indices (the kernels
    *pull* mass from in-neighbours), the inverse out-weights, and whether all weights are 1 (then the
    weights are never read). Build it with :func:`prepare_graph`.
    """

    n_nodes: int
    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray
    unit: bool
    inv_out: np.ndarray
    symmetric: bool

    @property
    def n_edges(self) -> int:
        """Number of stored (directed) edges."""
        return int(self.indptr[-1])


def prepare_graph(graph) -> PPRGraph:
    """Validate a weighted graph and lay it out for the PPR kernels.

    Parameters
    ----------
    graph : sparse matrix or array_like, shape (n, n)
        Non-negative, finite edge weights; ``graph[i, j]`` is the weight of the edge i -> j. An
        undirected graph is a symmetric matrix.

    Returns
    -------
    PPRGraph

    Raises
    ------
    ValueError
        If the matrix is not square or has a negative, NaN or infinite entry.

    Examples
    --------
    >>> from pathfinding.toy import meet_node_toy
    >>> g = prepare_graph(meet_node_toy().graph)
    >>> g.n_nodes, g.n_edges, g.unit, g.symmetric
    (5, 8, True, True)
    """
    if isinstance(graph, PPRGraph):
        return graph
    A = as_csr("graph", graph, square=True)
    n = A.shape[0]
    if n == 0:
        raise ValueError("graph must have at least one node, got shape (0, 0)")
    out_weight = np.asarray(A.sum(axis=1)).ravel()
    inv_out = np.zeros(n)
    np.divide(1.0, out_weight, out=inv_out, where=out_weight > 0)
    # The CSC form of A is the CSR form of A^T: row i of it lists the in-neighbours of i.
    AT = A.tocsc()
    AT.sort_indices()
    symmetric = bool(
        np.array_equal(A.indptr, AT.indptr)
        and np.array_equal(A.indices, AT.indices)
        and np.array_equal(A.data, AT.data)
    )
    index_dtype = np.uint32 if n <= np.iinfo(np.uint32).max else np.uint64
    return PPRGraph(
        n_nodes=n,
        indptr=AT.indptr.astype(np.int64),
        indices=AT.indices.astype(index_dtype),
        weights=AT.data.astype(np.float64, copy=False),
        unit=bool(np.all(AT.data == 1.0)),
        inv_out=inv_out,
        symmetric=symmetric,
    )


@dataclass(frozen=True)
class PPRResult:
    """Outcome of :func:`ppr_solve`.

    Attributes
    ----------
    pi : numpy.ndarray
        Stationary vector(s), shape (n,) or (n, b).
    iterations : int
        Power iterations run.
    error_bound : float
        Certified bound on the L1 distance from ``pi`` to the exact solution (the largest over a
        block): ``(1 - restart_prob) / restart_prob`` times the last iteration's L1 change.
    converged : bool
        Whether ``error_bound <= tol``.
    """

    pi: np.ndarray
    iterations: int
    error_bound: float
    converged: bool


def _restart_matrix(restart, n: int) -> tuple[np.ndarray, bool]:
    """Turn seed ids, a vector or an (n, b) block into a column-stochastic float array."""
    arr = np.asarray(restart)
    if arr.size == 0:
        raise ValueError(
            "restart must hold at least one seed id or be a length-n vector, got an "
            f"empty array of shape {arr.shape}"
        )
    if arr.ndim == 1 and (np.issubdtype(arr.dtype, np.integer) or arr.dtype == bool):
        if arr.dtype == bool:
            raise TypeError(
                "restart must be seed ids (integers) or a probability vector (floats), got a boolean array"
            )
        seeds = check_node_ids("restart (seed ids)", arr, n)
        r = np.bincount(seeds, minlength=n).astype(np.float64)
        return (r / r.sum())[:, None], True
    if arr.ndim == 1:
        r = check_vector("restart", arr, n)[:, None]
        single = True
    elif arr.ndim == 2:
        if arr.shape[0] != n or arr.shape[1] == 0:
            raise ValueError(f"a block of restart vectors must have shape ({n}, b), got {arr.shape}")
        r = np.array([check_vector(f"restart[:, {c}]", arr[:, c], n) for c in range(arr.shape[1])]).T
        single = False
    else:
        raise ValueError(f"restart must be 1-D or 2-D, got shape {arr.shape}")
    if np.any(r < 0):
        raise ValueError(f"restart must be non-negative, found {r.min()!r}")
    totals = r.sum(axis=0)
    if np.any(totals <= 0):
        raise ValueError(f"restart must have positive total mass, column {int(np.argmin(totals))} sums to 0")
    return np.ascontiguousarray(r / totals), single


def ppr_solve(
    graph,
    restart,
    *,
    restart_prob: float = 0.5,
    tol: float = 1e-10,
    max_iter: int = 1000,
) -> PPRResult:
    """Run Personalized PageRank and report iterations and a certified error bound.

    Same parameters and semantics as :func:`personalized_pagerank`, which returns only ``pi``.

    Returns
    -------
    PPRResult

    Examples
    --------
    >>> from pathfinding.toy import star_pair
    >>> res = ppr_solve(star_pair(9).graph, [0, 1], tol=1e-12)
    >>> res.iterations, bool(res.converged), bool(res.error_bound <= 1e-12)
    (41, True, True)
    """
    g = prepare_graph(graph)
    alpha = check_float("restart_prob", restart_prob, low=0.0, high=1.0, low_open=True)
    tol = check_float("tol", tol, low=0.0, high=np.inf, high_open=True)
    max_iter = check_int("max_iter", max_iter, low=1)
    r, single = _restart_matrix(restart, g.n_nodes)
    # The map is a contraction with factor (1 - a) in L1, so after a step that changed pi by delta
    # the new pi is within (1 - a) / a * delta of the fixed point.
    ratio = (1.0 - alpha) / alpha
    if tol == 0.0:
        tol_delta = -1.0  # run exactly max_iter iterations
    elif ratio == 0.0:
        tol_delta = np.inf
    else:
        tol_delta = tol / ratio
    args = (g.indptr, g.indices, g.weights, g.unit, g.inv_out)
    if single:
        pi, it, delta = _kernels.ppr_power(*args, r[:, 0].copy(), alpha, tol_delta, max_iter)
    else:
        pi, it, delta = _kernels.ppr_power_block(*args, r, alpha, tol_delta, max_iter)
    bound = ratio * float(delta)
    converged = bound <= tol
    if tol > 0 and not converged:
        warnings.warn(
            f"personalized_pagerank did not reach tol={tol:g} in max_iter={max_iter} iterations "
            f"(certified L1 error bound {bound:.3g}); raise max_iter or tol",
            ConvergenceWarning,
            stacklevel=3,
        )
    return PPRResult(pi=pi, iterations=int(it), error_bound=bound, converged=converged)


def personalized_pagerank(
    graph,
    restart,
    *,
    restart_prob: float = 0.5,
    tol: float = 1e-10,
    max_iter: int = 1000,
) -> np.ndarray:
    """Personalized PageRank: the walk's stationary mass when it keeps restarting at the seeds.

    Parameters
    ----------
    graph : sparse matrix, array_like or PPRGraph, shape (n, n)
        Non-negative edge weights, ``graph[i, j]`` for the edge i -> j (symmetric when undirected).
        Pass a :class:`PPRGraph` from :func:`prepare_graph` to skip the per-graph work on repeated
        queries.
    restart : array_like
        Either integer seed ids (uniform restart over them; a repeated id counts twice), a length-n
        non-negative float vector, or an (n, b) float block of b restart vectors answered together.
        Vectors are scaled to sum 1. Integer arrays are always read as seed ids.
    restart_prob : float, default 0.5
        Probability of restarting at each step, in (0, 1]. HippoRAG uses 0.5.
    tol : float, default 1e-10
        Stop once the L1 distance to the exact solution is certified to be at most ``tol``.
        ``tol=0`` runs exactly ``max_iter`` power iterations.
    max_iter : int, default 1000
        Largest number of power iterations.

    Returns
    -------
    numpy.ndarray of float64, shape (n,) or (n, b)
        pi >= 0, summing to 1 (each column, for a block).

    Raises
    ------
    TypeError, ValueError
        Bad shapes, negative or non-finite weights, seed ids out of range, a restart vector that is
        negative or sums to 0, ``restart_prob`` outside (0, 1].

    Warns
    -----
    ConvergenceWarning
        When ``tol > 0`` and ``max_iter`` iterations did not reach it.

    See Also
    --------
    pathfinding.reference.ppr_linear_solve : the same vector from one dense linear solve.
    ppr_solve : also returns the iteration count and the certified error bound.

    Notes
    -----
    pi solves pi = a r + (1 - a) (W^T pi + (d . pi) r), with W the row-normalised weight matrix,
    a = ``restart_prob`` and d the indicator of nodes without out-edges: the mass of such a node
    returns to the restart vector, as in igraph's PRPACK. The power iteration starts from r.

    References
    ----------
    .. [1] B. J. Gutiérrez, Y. Shu, Y. Gu, M. Yasunaga, Y. Su. "HippoRAG: Neurobiologically
       Inspired Long-Term Memory for Large Language Models." NeurIPS 2024, arXiv:2405.14831.
    .. [2] T. H. Haveliwala. "Topic-sensitive PageRank." WWW 2002.

    Examples
    --------
    Two seeds u, w share the answer a and each has a private dead end (b, c). The answer gets mass
    from both seeds, a dead end from one: exactly twice as much.

    >>> from pathfinding.toy import meet_node_toy
    >>> toy = meet_node_toy()
    >>> pi = personalized_pagerank(toy.graph, toy.seeds)
    >>> pi.round(4)
    array([0.3333, 0.3333, 0.1667, 0.0833, 0.0833])
    >>> float(pi[2] / pi[3])
    2.0
    """
    return ppr_solve(graph, restart, restart_prob=restart_prob, tol=tol, max_iter=max_iter).pi


def walk_step(graph, vector) -> np.ndarray:
    """One step of the walk without restart: W^T v, the mass v sends along its edges.

    Parameters
    ----------
    graph : sparse matrix, array_like or PPRGraph, shape (n, n)
    vector : array_like of float, shape (n,)

    Returns
    -------
    numpy.ndarray of float64, shape (n,)
        Mass on nodes without out-edges is not sent anywhere (it is lost, not restarted).

    Examples
    --------
    >>> from pathfinding.toy import meet_node_toy
    >>> walk_step(meet_node_toy().graph, [0.5, 0.5, 0, 0, 0])
    array([0.  , 0.  , 0.5 , 0.25, 0.25])
    """
    g = prepare_graph(graph)
    v = check_vector("vector", vector, g.n_nodes)
    return _kernels.pull(g.indptr, g.indices, g.weights, g.unit, v * g.inv_out)
