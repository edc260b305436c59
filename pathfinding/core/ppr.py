"""Step 6: Personalized PageRank over the knowledge graph.

The walk starts at the seeds; at every step it restarts to the seeds with probability
``restart_prob`` (0.5 in HippoRAG) and otherwise follows an edge chosen in proportion to its weight.
Mass that several seeds send to the same node adds up there, which is why a node that all seeds reach
(the answer of a path-finding question) outranks a node that only one seed reaches.

"Adds up" is exact only while no dangling node (one without out-edges) is reachable from the seeds:
then PPR is linear in the restart vector, ``pi(w r1 + (1 - w) r2) = w pi(r1) + (1 - w) pi(r2)``. A
dangling node's mass goes back to the restart vector, and that feedback bends the sum: in general
``pi(w r1 + (1 - w) r2)`` is proportional to ``w pi(r1) / c1 + (1 - w) pi(r2) / c2`` with
``c = restart_prob + (1 - restart_prob) * (mass of pi on dangling nodes)``, so a seed whose walk
falls into dead ends counts for less (its walks end early and restart on any seed;
:mod:`pathfinding.core.contributions` splits pi exactly by seed). The generated instances are
undirected with no isolated seed, so no dangling node is reachable there; on the Langville–Meyer
graph (node 2 dangling) the seeds {1, 4} at restart 0.5 miss superposition by 0.078 in L1
(``tests/test_ppr.py``).

:func:`~pathfinding.core.prepared.prepare_graph` does the per-graph work once (in
:mod:`pathfinding.core.prepared`; re-exported here);
:func:`ppr_solve` runs one query, or a block of queries, on a prepared graph; and
:func:`personalized_pagerank` is the public entry point that accepts either.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import check_float, check_int, check_node_ids, check_vector
from pathfinding.core._power import check_threads, power_scipy, power_single
from pathfinding.core.prepared import Candidates, prepare_graph
from pathfinding.core.specificity import restart_column, restart_entries, restart_matrix
from pathfinding.errors import ConvergenceWarning, InvalidValueError

__all__ = ["PPRResult", "TopKResult", "personalized_pagerank", "ppr_solve", "ppr_top_k", "walk_step"]


_METHODS = ("auto", "power", "gauss-seidel", "push", "scipy")


@dataclass(frozen=True)
class PPRResult:
    """Outcome of :func:`ppr_solve`.

    Attributes
    ----------
    pi : numpy.ndarray
        Stationary vector(s), shape (n,) or (n, b).
    iterations : int
        Power iterations or Gauss-Seidel sweeps run; for ``method="push"``, push rounds (each a
        four times smaller threshold).
    error_bound : float
        Certified bound on the L1 distance from ``pi`` to the exact solution (the largest over a
        block). ``inf`` with ``tol=0``: the exact-count power iteration does not track its change.
    converged : bool
        Whether ``error_bound <= tol``.
    """

    pi: np.ndarray
    iterations: int
    error_bound: float
    converged: bool


def _solver_settings(graph, restart_prob, tol, max_iter):
    """The prepared graph and the three tuning values, checked."""
    g = prepare_graph(graph)
    # The kernels' alpha is the restart probability, networkx's 1 - alpha (its alpha is the damping).
    alpha = check_float("restart_prob", restart_prob, low=0.0, high=1.0, low_open=True)
    tol = check_float("tol", tol, low=0.0, high=np.inf, high_open=True)
    max_iter = check_int("max_iter", max_iter, low=1)
    return g, alpha, tol, max_iter


def _solver_args(graph, restart, restart_prob, tol, max_iter):
    """The checks every solver shares: prepared graph, restart matrix, and the three tuning values."""
    g, alpha, tol, max_iter = _solver_settings(graph, restart_prob, tol, max_iter)
    r, single = restart_matrix(restart, g.n_nodes)
    return g, r, single, alpha, tol, max_iter


def ppr_solve(
    graph,
    restart,
    *,
    restart_prob: float = 0.5,
    tol: float = 1e-10,
    max_iter: int = 1000,
    method: str = "auto",
    threads: int | None = None,
) -> PPRResult:
    """Run Personalized PageRank and report iterations and a certified error bound.

    Same parameters and semantics as :func:`personalized_pagerank`, which returns only ``pi``.

    Returns
    -------
    PPRResult

    Examples
    --------
    Power iteration and the default Gauss-Seidel certify the same bound and agree within it.

    >>> import numpy as np
    >>> from pathfinding.synthetic.toy import star_pair
    >>> graph = star_pair(9).graph
    >>> power = ppr_solve(graph, [0, 1], tol=1e-12, method="power")
    >>> bool(power.converged), bool(power.error_bound <= 1e-12)
    (True, True)
    >>> float(np.abs(power.pi - ppr_solve(graph, [0, 1], tol=1e-12).pi).sum()) < 2e-12
    True
    """
    return _solve(
        graph, restart, restart_prob=restart_prob, tol=tol, max_iter=max_iter, method=method, threads=threads
    )


def _solve(graph, restart, *, restart_prob, tol, max_iter, method, threads=1) -> PPRResult:
    # Called only by the public ppr_solve and personalized_pagerank, so stacklevel=3 below names
    # the line of the user's code that called either of them.
    g, r, single, alpha, tol, max_iter = _solver_args(graph, restart, restart_prob, tol, max_iter)
    if method not in _METHODS:
        raise InvalidValueError(f"method must be one of {_METHODS}, got {method!r}")
    threads = check_threads(threads, method, r.shape[1])
    if method == "auto" and threads > 1:
        method = "power"  # Gauss-Seidel is sequential by nature; the threaded kernel iterates by power
    if method in ("gauss-seidel", "push") and not (single and tol > 0):
        raise InvalidValueError(
            f"method={method!r} needs one restart vector and tol > 0 (tol=0 means exactly max_iter "
            f"power iterations); got {r.shape[1]} restart vector(s), tol={tol}"
        )
    if method == "scipy" and not single:
        raise InvalidValueError(f"method='scipy' runs one restart vector, got a block of {r.shape[1]}")
    if method == "auto":
        method = "gauss-seidel" if single and tol > 0 else "power"
    r = g.to_internal(r)
    if method in ("power", "scipy"):
        # The map is a contraction with factor (1 - a) in L1, so after a step that changed pi by
        # delta the new pi is within (1 - a) / a * delta of the fixed point.
        ratio = (1.0 - alpha) / alpha
        if tol == 0.0:
            tol_delta = -1.0  # run exactly max_iter iterations
        elif ratio == 0.0:
            tol_delta = np.inf
        else:
            tol_delta = tol / ratio
        if method == "scipy":
            pi, it, delta = power_scipy(g, r[:, 0], alpha, tol_delta, max_iter)
            pi = pi[:, None]
        elif single:
            r_idx = np.flatnonzero(r[:, 0])
            pi, it, delta = power_single(g, r_idx, r[r_idx, 0], alpha, tol_delta, max_iter, threads)
            pi = pi[:, None]
        else:
            from pathfinding.core import _kernels

            args = (g.indptr, g.indices, g.weights, g.unit, g.inv_out)
            pi, it, delta = _kernels.ppr_power_block(*args, r, alpha, tol_delta, max_iter)
        # With tol=0 the change is not tracked (NaN): no bound is claimed.
        bound = ratio * float(delta) if tol > 0 else np.inf
    elif method == "push":
        from pathfinding.core._push import push_solve

        pi, it, bound, _ = push_solve(g, r[:, 0], alpha, tol, max_iter)
        pi = pi[:, None]
    else:
        from pathfinding.core import _kernels

        x = r[:, 0].copy()
        blocks = g.sweep_blocks(np.flatnonzero(x))
        args = (g.indptr, g.indices, g.weights, g.unit, g.inv_out)
        it, bound, total = _kernels.ppr_gauss_seidel(*args, r[:, 0], x, alpha, tol, max_iter, blocks)
        pi = (x / total)[:, None]
    pi = g.to_original(pi)
    pi = pi[:, 0] if single else pi
    bound = float(bound)
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
    method: str = "auto",
    threads: int | None = None,
) -> np.ndarray:
    """Personalized PageRank: the walk's stationary mass when it keeps restarting at the seeds.

    Parameters
    ----------
    graph : sparse matrix, array_like or PPRGraph, shape (n, n)
        Non-negative edge weights, ``graph[i, j]`` for the edge i -> j (symmetric when undirected).
        Duplicate entries of a sparse matrix are summed (parallel edges become one weighted edge); a
        diagonal entry is a self-loop, followed like any other edge. Pass a :class:`PPRGraph` from
        :func:`prepare_graph` to skip the per-graph work on repeated queries.
    restart : array_like
        Either a 1-D integer array of seed ids (uniform restart over them; a repeated id counts
        twice), a length-n non-negative vector of weights, or an (n, b) block of b weight vectors
        answered together. The dtype decides only in 1-D: a 1-D integer array is seed ids, a 1-D
        float array is weights; a 2-D array is always weights, whatever its dtype (an (n, b) integer
        block of counts is b weight vectors, not seed ids). Weights are scaled to sum 1, so a vector
        and any positive multiple of it give the same pi.
    restart_prob : float, default 0.5
        Probability of restarting at each step, in (0, 1]. HippoRAG uses 0.5.
    tol : float, default 1e-10
        Stop once the L1 distance to the exact solution is certified to be at most ``tol``.
        ``tol=0`` runs exactly ``max_iter`` power iterations.
    max_iter : int, default 1000
        Largest number of iterations (matrix-vector passes).
    method : {"auto", "power", "gauss-seidel", "push", "scipy"}, default "auto"
        "power" is the plain power iteration (what ``tol=0`` always runs, so that ``max_iter=k``
        means exactly k iterations). "scipy" is the same iteration with scipy's sparse product
        instead of a compiled kernel (one restart vector, one thread): slower per iteration, but
        it needs no numba, which takes longer to load than a short walk takes to run.
        "gauss-seidel" sweeps in place, using each new value at once: fewer sweeps to the same
        certified ``tol`` on every graph we measured. "push" is local
        PPR by forward push [3]_: it moves residual mass from node to node and touches only the
        nodes the mass reaches, in rounds of smaller thresholds until the residual left certifies
        ``tol`` (``max_iter`` caps the rounds); one restart vector, ``tol > 0``, one thread. Its
        cost does not grow with the graph for a loose ``tol``; at a tight one it visits the whole
        component and is slower than Gauss-Seidel. "auto" picks "gauss-seidel" for one restart
        vector with ``tol > 0``, else "power".
    threads : int, optional
        Run the power iteration on this many of numba's threads (at most ``NUMBA_NUM_THREADS``);
        one restart vector only, and "auto" then means "power". The bins of rows are summed in a
        fixed order, so the result is the same for every thread count. Default: one thread.

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
    pathfinding.core.reference.ppr_linear_solve : the same vector from one dense linear solve.
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
    .. [3] R. Andersen, F. Chung, K. Lang. "Local Graph Partitioning using PageRank Vectors."
       FOCS 2006.

    Examples
    --------
    Two seeds u, w share the answer a and each has a private dead end (b, c). The answer gets mass
    from both seeds, a dead end from one: exactly twice as much.

    >>> from pathfinding.synthetic.toy import meet_node_toy
    >>> toy = meet_node_toy()
    >>> pi = personalized_pagerank(toy.graph, toy.seeds)
    >>> pi.round(4)
    array([0.3333, 0.3333, 0.1667, 0.0833, 0.0833])
    >>> float(pi[2] / pi[3])
    2.0
    """
    return _solve(
        graph, restart, restart_prob=restart_prob, tol=tol, max_iter=max_iter, method=method, threads=threads
    ).pi


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
    >>> from pathfinding.synthetic.toy import meet_node_toy
    >>> walk_step(meet_node_toy().graph, [0.5, 0.5, 0, 0, 0])
    array([0.  , 0.  , 0.5 , 0.25, 0.25])
    """
    from pathfinding.core import _kernels

    g = prepare_graph(graph)
    v = g.to_internal(check_vector("vector", vector, g.n_nodes))
    return g.to_original(_kernels.pull(g.indptr, g.indices, g.weights, g.unit, v * g.inv_out))


@dataclass(frozen=True)
class TopKResult:
    """Outcome of :func:`ppr_top_k`.

    Attributes
    ----------
    top : numpy.ndarray of int
        The ``k`` best candidate node ids, best first.
    scores : numpy.ndarray of float
        Their scores under the returned estimate of pi.
    iterations : int
        Gauss-Seidel sweeps run, or push rounds when ``method`` is ``"push"``.
    certified : bool
        True when the error bound proves ``top`` is exactly the top-k, in this order, of the exact
        PPR scores. False when the loop reached ``tol`` or ``max_iter`` first (for instance because
        two items tie exactly, which no finite bound can separate).
    error_bound : float
        Certified L1 bound on the estimate's error when the loop stopped.
    method : str
        The solver that produced the result: ``"push"`` or ``"gauss-seidel"``.
    """

    top: np.ndarray
    scores: np.ndarray
    iterations: int
    certified: bool
    error_bound: float
    method: str = "gauss-seidel"


def ppr_top_k(
    graph,
    restart,
    k: int,
    *,
    candidates=None,
    restart_prob: float = 0.5,
    tol: float = 1e-10,
    max_iter: int = 1000,
    margin: float = 0.0,
    method: str = "auto",
) -> TopKResult:
    """The top-k of PPR, stopping as soon as the order of the best k can no longer change.

    Parameters
    ----------
    graph : sparse matrix, array_like or PPRGraph
    restart : array_like or 1-D scipy sparse array
        Seed ids or one restart vector (as in :func:`personalized_pagerank`), or a 1-D sparse
        array whose entries are the restart's weights (checked and read without a pass over
        every node: :func:`~pathfinding.core.specificity.restart_entries`).
    k : int
        How many items to rank (``1 <= k <= number of items``).
    candidates : array_like of int or Candidates, optional
        Rank only these nodes (default: all nodes); prepared once by
        :meth:`~pathfinding.core.prepared.PPRGraph.candidates` for many queries.
    restart_prob, tol, max_iter
        As in :func:`personalized_pagerank`; ``tol`` is where the Gauss-Seidel loop gives up on
        certifying.
    margin : float, default 0
        Certify only gaps larger than ``margin``, so that any solution within L1 distance
        ``margin`` of the exact one ranks the top k in the same order too.
    method : {"auto", "gauss-seidel"}, default "auto"
        "auto": forward push on an undirected graph, then Gauss-Seidel if push did not certify
        within the work of one sweep; Gauss-Seidel on a directed graph.

    Returns
    -------
    TopKResult

    Notes
    -----
    After each Gauss-Seidel sweep ``||v - pi||_1 <= eps`` is certified, so two scores move by at
    most ``eps`` together: larger gaps inside the top k and below the k-th fix the order. Forward
    push (Andersen, Chung and Lang) bounds each node's score on its own, by an interval that
    grows with the node's degree (:func:`pathfinding.core._push.ppr_push_top_k`), so a candidate
    with few edges, such as a passage node, is placed long before the L1 error is small. Nodes
    only: a passage's ``pi . P`` would sum its phrases' intervals, hub phrases included.

    Examples
    --------
    On the two stars the answer (node 2) is certified; the sixteen dead ends tie exactly, so no
    order of two candidates can be.

    >>> from pathfinding.synthetic.toy import star_pair
    >>> toy = star_pair(9)
    >>> res = ppr_top_k(toy.graph, toy.seeds, 1, candidates=toy.candidates)
    >>> res.top.tolist(), bool(res.certified), res.method
    ([2], True, 'push')
    >>> bool(ppr_top_k(toy.graph, toy.seeds, 2, candidates=toy.candidates).certified)
    False
    """
    g, alpha, tol, max_iter = _solver_settings(graph, restart_prob, tol, max_iter)
    if np.ndim(restart) == 2:
        r, _ = restart_matrix(restart, g.n_nodes)  # the block's own errors first
        raise InvalidValueError(
            f"ppr_top_k ranks one query at a time; got a block of {r.shape[1]} restart vectors"
        )
    # Unscaled: push reads only the support, so the vector over every node is divided (a pass
    # over millions of nodes at a million passages) only if Gauss-Seidel runs. A sparse restart
    # is read from its entries: no pass over every node at all unless Gauss-Seidel runs.
    if sp.issparse(restart):
        support, entries, total = restart_entries(restart, g.n_nodes)
        v = None
    else:
        v, _ = restart_column(restart, g.n_nodes)  # checked; summed again over its entries alone:
        support = np.flatnonzero(v != 0)  # a dense and a sparse form of one restart are divided by
        entries = v[support]  # one total to the bit (summed over the zeros too, it may differ in
        total = entries.sum()  # its last bit, and push's thresholds, hence its scores, with it)
    margin = check_float("margin", margin, low=0.0, high=np.inf, high_open=True)
    if method not in ("auto", "gauss-seidel"):
        raise InvalidValueError(f"method must be 'auto' or 'gauss-seidel', got {method!r}")
    if isinstance(candidates, Candidates):
        if candidates.graph is not g:
            raise InvalidValueError("candidates were prepared for another graph: use graph.candidates(ids)")
        items, items_internal, prepared = candidates.ids, candidates.internal, candidates
    else:
        everything = candidates is None
        items = np.arange(g.n_nodes) if everything else check_node_ids("candidates", candidates, g.n_nodes)
        items_internal, prepared = g.internal_ids(items), None
    k = check_int("k", k, low=1, high=items.size)
    from pathfinding.core import _kernels
    from pathfinding.core._push import push_top_k

    if method == "auto" and g.symmetric:
        # O(support) work from here on, not O(nodes): push touches only what its mass reaches.
        mass = entries / total  # the entries of v / total, as Gauss-Seidel's below (one that
        # underflows to 0 is a support node without mass: push moves nothing from it)
        no_log = np.empty(0, np.int64)
        rounds, _, head, scores, certified, bound, _, _ = push_top_k(
            g, g.internal_ids(support), mass, items_internal, k, alpha, margin, no_log, prepared
        )
        if certified:
            return TopKResult(items[head], scores, int(rounds), True, float(bound), "push")
    if v is None:
        v = np.zeros(g.n_nodes)
        v[support] = entries
    r_int = g.to_internal(v / total)
    # One compiled loop: the sweep, then the k + 1 best candidates in one pass over them and their
    # gaps, instead of a kernel call per sweep followed by numpy's gather, argpartition and mask
    # over every candidate (several temporary arrays of n_items per sweep).
    it, bound, head, scores, certified = _kernels.ppr_gauss_seidel_top_k(
        g.indptr, g.indices, g.weights, g.unit, g.inv_out, r_int, r_int.copy(), alpha, tol, max_iter,
        g.sweep_blocks(np.flatnonzero(r_int != 0)), items_internal, k, margin,
    )
    return TopKResult(
        top=items[head], scores=scores, iterations=it, certified=bool(certified), error_bound=float(bound)
    )
