"""Which seed's mass made each node rank: the exact split of a PPR vector by source.

Several seeds send mass to the same node; :func:`seed_contributions` says how much of each node's
stationary mass came from each seed, and :func:`restart_contributions` does the same for any
grouping of the restart vector into pieces (one piece per seed entity and one for all passage nodes,
say). The parts add up to the PPR vector exactly, dangling nodes or not.

Notes
-----
pi solves pi = a r + (1 - a) (W^T pi + (d . pi) r) (:func:`~pathfinding.core.ppr.personalized_pagerank`),
W row-normalised, a = ``restart_prob``, d the indicator of dangling nodes. Move the dangling term
to the restart: with M = (I - (1 - a) W^T)^{-1} and c = a + (1 - a) d . pi,

    pi = c M r,   and since pi sums to 1,   1 / c = 1^T M r.

Because of the feedback through d . pi, pi is not linear in r, so a split must say what it means.
Ours: part j is the stationary mass of the walks whose most recent restart landed on source j,

    part_j = c r_j M e_j,   sum_j part_j = c M r = pi   (exactly).

From single-source solves pi_j = c_j M e_j with c_j = a + (1 - a) d . pi_j, this is
part_j = (c / c_j) r_j pi_j, where 1 / c = 1^T M r = sum_j r_j 1^T M e_j = sum_j r_j / c_j; equivalently
c = a / (1 - (1 - a) S) with S = sum_j r_j (d . pi_j) / c_j, since a / c_j = 1 - (1 - a) (d . pi_j) / c_j.
With no dangling node reachable from the seeds, c = c_j = a and part_j = r_j pi_j: superposition.
Otherwise part j carries mass c r_j / c_j, not r_j: a seed whose walks fall into dead ends more
often than the average (c_j > c) owns less than its restart weight, because its walks end early and
restart on any seed, and the naive split r_j pi_j, which overcounts it, does not add up to pi.

Computation. The Gauss-Seidel kernel solves x = a rho + (1 - a) W^T x, dropping dangling mass, so
it returns x = a M rho directly. For pieces rho_i (each summing to 1) with weights w_i (the share of
the restart each carries), part_i = w_i x_i / Z with Z = sum_i w_i sum(x_i) (= a / c): one sparse
solve per piece, and the scalar Z. Each solve certifies ||x_i - exact||_1 <= e_i; then the parts
together are within 2 sum_i w_i e_i / Z of the exact ones in L1 (the normalisation by Z at most
doubles the error), which is the ``error_bound`` reported. Every solve stopping at the kernel's own
``tol`` (e_i <= tol sum(x_i) / 2) makes that bound at most ``tol``.

Why one Gauss-Seidel solve per piece and not one block power iteration of all pieces: the block
kernel (``ppr_power_block``) was several times slower than the m single solves for every m we timed
(2, 5 and 10 pieces on a random graph of 100,000 nodes), and a single solve sweeps only the connected
components its piece reaches.
"""

from __future__ import annotations

import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import as_csr, check_float, check_int, check_node_ids
from pathfinding.core.prepared import prepare_graph
from pathfinding.core.specificity import restart_matrix
from pathfinding.errors import ConvergenceWarning, InvalidValueError

__all__ = [
    "ContributionsResult",
    "TopKContributions",
    "restart_contributions",
    "seed_contributions",
    "top_k_contributions",
]


@dataclass(frozen=True)
class ContributionsResult:
    """Outcome of :func:`restart_contributions`.

    Attributes
    ----------
    parts : numpy.ndarray of float64, shape (m, n)
        Row i: the stationary mass of walks whose most recent restart landed in piece i.
    error_bound : float
        Certified bound on the L1 distance from ``parts`` (all rows together) to the exact split,
        hence also from ``parts.sum(axis=0)`` to the exact PPR vector.
    sweeps : int
        Gauss-Seidel sweeps run, all pieces together.
    converged : bool
        Whether ``error_bound <= tol``.
    """

    parts: np.ndarray
    error_bound: float
    sweeps: int
    converged: bool


@dataclass(frozen=True)
class TopKContributions:
    """Outcome of :func:`top_k_contributions`.

    Attributes
    ----------
    top : numpy.ndarray of int64
        The k best candidates, best first (:func:`~pathfinding.core.ppr.ppr_top_k`'s ranking).
    scores : numpy.ndarray of float64
        Their scores; ``parts[:, top].sum(axis=0)`` equals them to rounding.
    parts : numpy.ndarray of float64, shape (m, n)
        Row i: the mass of the estimate that piece i of the restart vector caused, on every node.
    certified : bool
        Whether the estimate certifies ``top`` as the exact top k (else the split of a walk to ``tol``).
    error_bound : float
        L1 bound on the distance from ``parts.sum(axis=0)`` to the exact PPR vector.
    """

    top: np.ndarray
    scores: np.ndarray
    parts: np.ndarray
    certified: bool
    error_bound: float


def top_k_contributions(graph, components, k, *, candidates=None, restart_prob=0.5, tol=1e-10, margin=0.0):
    """The top k of PPR, as :func:`~pathfinding.core.ppr.ppr_top_k` ranks them, split by restart piece.

    On an undirected graph the ranking comes from forward push stopped as soon as the top k are
    certified, and the push is then repeated on the pieces of the restart vector, one column each:
    push is linear in the residual it moves, so the same pushes split its estimate exactly, and the
    parts add up to the very scores that ranked the candidates (to rounding), for about the cost of
    that push per piece. Where push cannot certify (a directed graph, exact ties), the split is
    :func:`restart_contributions`' to ``tol`` and the ranking is the one its sum gives.

    Parameters
    ----------
    graph, components, restart_prob, tol
        As in :func:`restart_contributions`.
    k : int
        How many candidates to rank.
    candidates : array_like of int, optional
        The nodes ranked (default: all).
    margin : float, default 0
        As in :func:`~pathfinding.core.ppr.ppr_top_k`.

    Returns
    -------
    TopKContributions

    Examples
    --------
    The two stars: the answer (node 2) first, as soon as push can tell, and half of its score from
    each seed. The score is push's estimate, below the stationary 0.0370 by less than ``error_bound``.

    >>> import numpy as np
    >>> from pathfinding.synthetic.toy import star_pair
    >>> toy = star_pair(9)
    >>> pieces = np.eye(toy.graph.shape[0])[:2]  # u's share of the restart, then w's
    >>> res = top_k_contributions(toy.graph, pieces, 1, candidates=toy.candidates)
    >>> res.top, bool(res.certified)
    (array([2]), True)
    >>> res.parts[:, 2] / res.scores[0]
    array([0.5, 0.5])
    >>> bool(res.scores[0] < 0.0370 < res.scores[0] + res.error_bound)
    True
    """
    from pathfinding.core._push import push_top_k, replay_pushes, settle_parts

    alpha, tol, _, _ = _check_tuning(restart_prob, tol, 1000, 1)
    margin = check_float("margin", margin, low=0.0, high=np.inf, high_open=True)
    g = prepare_graph(graph)
    pieces = _pieces(g, components)
    items = np.arange(g.n_nodes)
    if candidates is not None:
        items = check_node_ids("candidates", candidates, g.n_nodes)
    k = check_int("k", k, low=1, high=items.size)
    mass = np.asarray(pieces.sum(axis=1)).ravel()
    restart = np.asarray(pieces.sum(axis=0)).ravel() / mass.sum()
    if g.symmetric:
        support = np.flatnonzero(restart)
        log = np.empty(g.n_nodes + g.n_edges, np.int64)  # push's budget: never more pushes than this
        _, _, head, scores, certified, bound, total, n_log = push_top_k(
            g, g.internal_ids(support), restart[support], g.internal_ids(items), k, alpha, margin, log
        )
        if certified:
            entries = pieces.tocoo()  # canonical (_pieces): one entry per (piece, node)
            start = g.internal_ids(entries.col)
            res = np.zeros((g.n_nodes, pieces.shape[0]))  # internal order, one column per piece
            res[start, entries.row] = entries.data / mass.sum()
            p = np.zeros_like(res)
            args = (g.indptr, g.indices, g.weights, g.unit, g.inv_out)
            replay_pushes(*args, log, n_log, p, res, alpha)
            parts = settle_parts(p, res, alpha, _order(g), total, start, log, n_log, g.indptr, g.indices)
            return TopKContributions(items[head], scores, parts, True, float(bound))
    split = _split(g, pieces, alpha, tol, 1000, 1, caller="top_k_contributions")
    walk = split.parts.sum(axis=0)[items]
    order = np.lexsort((np.arange(items.size), -walk))[:k]
    return TopKContributions(items[order], walk[order], split.parts, False, split.error_bound)


def seed_contributions(graph, restart, *, restart_prob=0.5, tol=1e-10, max_iter=1000, threads=1):
    """Split a PPR vector by seed: how much of each node's mass came from each seed.

    Parameters
    ----------
    graph : sparse matrix, array_like or PPRGraph, shape (n, n)
        As in :func:`~pathfinding.core.ppr.personalized_pagerank`.
    restart : array_like
        One restart vector: 1-D integer seed ids (uniform; a repeated id counts twice) or a length-n
        vector of non-negative weights. A 2-D block is refused.
    restart_prob, tol, max_iter, threads
        As in :func:`restart_contributions`.

    Returns
    -------
    sources : numpy.ndarray of int64
        The nodes with restart weight > 0, ascending.
    parts : numpy.ndarray of float64, shape (len(sources), n)
        Row j: the mass of walks whose most recent restart landed on ``sources[j]``. The rows are
        within ``tol`` of the exact split (L1, all rows together), so they sum to the exact PPR
        vector within ``tol``, and to ``personalized_pagerank(graph, restart, tol=tol)`` within
        ``2 tol``; :func:`restart_contributions` returns the certified bound itself.

    Raises
    ------
    TypeError, ValueError
        A 2-D restart, and every bad input :func:`restart_contributions` refuses.

    Examples
    --------
    On the two stars the answer a (node 2) gets half its mass from each seed. u's dead end d1
    (node 3) gets almost all of its mass from u, and 1/55 as much from w, whose walks reach it
    through a and u:

    >>> from pathfinding.synthetic.toy import star_pair
    >>> sources, parts = seed_contributions(star_pair(9).graph, [0, 1])
    >>> sources
    array([0, 1])
    >>> parts[:, [2, 3]].round(4)
    array([[0.0185, 0.0182],
           [0.0185, 0.0003]])
    >>> parts[:, [2, 3]].sum(axis=0).round(4)  # the PPR vector there: the meet node at twice d1
    array([0.037 , 0.0185])
    """
    tuning = _check_tuning(restart_prob, tol, max_iter, threads)
    if np.ndim(restart) != 1:
        raise InvalidValueError(
            f"seed_contributions splits one restart vector (seed ids or weights), got shape "
            f"{np.shape(restart)}; split a block one column at a time"
        )
    g = prepare_graph(graph)
    r = restart_matrix(restart, g.n_nodes)[0][:, 0]
    sources = np.flatnonzero(r > 0).astype(np.int64)
    pieces = sp.csr_array((r[sources], (np.arange(sources.size), sources)), shape=(sources.size, g.n_nodes))
    return sources, _split(g, pieces, *tuning, caller="seed_contributions").parts


def restart_contributions(graph, components, *, restart_prob=0.5, tol=1e-10, max_iter=1000, threads=1):
    """Split a PPR vector by pieces of its restart vector, with a certified error bound.

    Parameters
    ----------
    graph : sparse matrix, array_like or PPRGraph, shape (n, n)
        As in :func:`~pathfinding.core.ppr.personalized_pagerank`.
    components : sparse matrix or array_like, shape (m, n)
        Non-negative pieces whose sum is the restart vector (scaled to sum 1, as PPR scales it). A
        zero row gets a zero part; an all-zero total is refused.
    restart_prob : float, default 0.5
        Probability of restarting at each step, in (0, 1].
    tol : float, default 1e-10
        Stop once the parts are certified within ``tol`` of the exact split (L1, all rows
        together). ``tol=0`` runs ``max_iter`` sweeps per piece.
    max_iter : int, default 1000
        Largest number of Gauss-Seidel sweeps per piece.
    threads : int, default 1
        Solve this many pieces at once, each on its own thread (the result does not depend on it).

    Returns
    -------
    ContributionsResult
        ``parts`` of shape (m, n), summing to the PPR vector within ``error_bound``.

    Raises
    ------
    TypeError, ValueError
        A wrong shape, a negative or non-finite entry, pieces summing to 0, ``restart_prob``
        outside (0, 1], ``tol < 0``, ``max_iter < 1``.

    Warns
    -----
    ConvergenceWarning
        When ``tol > 0`` and ``max_iter`` sweeps did not certify it.

    See Also
    --------
    seed_contributions : one piece per seed.
    pathfinding.core.reference.seed_contributions_dense : the same split by dense linear solves.

    Notes
    -----
    The split and its bound are derived in the Notes of :mod:`pathfinding.core.contributions`.

    Examples
    --------
    The meet-node toy, its restart given as two pieces (u, then w): the shared node a (node 2) is
    half u's and half w's, and the rows add up to the PPR vector.

    >>> import numpy as np
    >>> from pathfinding.synthetic.toy import meet_node_toy
    >>> res = restart_contributions(meet_node_toy().graph, np.eye(5)[:2])
    >>> res.parts.round(4)
    array([[0.3095, 0.0238, 0.0833, 0.0774, 0.006 ],
           [0.0238, 0.3095, 0.0833, 0.006 , 0.0774]])
    >>> res.parts.sum(axis=0).round(4)
    array([0.3333, 0.3333, 0.1667, 0.0833, 0.0833])
    >>> bool(res.error_bound <= 1e-10)
    True
    """
    tuning = _check_tuning(restart_prob, tol, max_iter, threads)
    return _split(prepare_graph(graph), components, *tuning, caller="restart_contributions")


def _check_tuning(restart_prob, tol, max_iter, threads) -> tuple[float, float, int, int]:
    return (
        check_float("restart_prob", restart_prob, low=0.0, high=1.0, low_open=True),
        check_float("tol", tol, low=0.0, high=np.inf, high_open=True),
        check_int("max_iter", max_iter, low=1),
        check_int("threads", threads, low=1),
    )


def _order(g) -> np.ndarray:
    """The original id of each internal position (the identity when the graph was not reordered)."""
    return np.arange(g.n_nodes) if g.order is None else g.order


def _pieces(g, components) -> sp.csr_array:
    """``components`` as an (m, n) CSR array of non-negative pieces with a positive total."""
    pieces = as_csr("components", components)
    m, n = pieces.shape
    if n != g.n_nodes or m == 0:
        raise InvalidValueError(
            f"components must have shape (m, {g.n_nodes}) with m >= 1 (one row per piece of the "
            f"restart vector), got {pieces.shape}"
        )
    if not pieces.sum() > 0:
        raise InvalidValueError(f"components must have positive total mass, all {m} rows sum to 0")
    return pieces


def _split(g, components, alpha, tol, max_iter, threads, *, caller) -> ContributionsResult:
    """One Gauss-Seidel solve per non-zero piece, then the normalisation by Z (module Notes).

    Called only by the public functions (``caller`` names the one), so stacklevel=3 below names the
    line of the user's code that called it.
    """
    from pathfinding.core import _kernels

    pieces = _pieces(g, components)
    m, n = pieces.shape
    mass = np.asarray(pieces.sum(axis=1)).ravel()
    total = mass.sum()
    weight = mass / total
    args = (g.indptr, g.indices, g.weights, g.unit, g.inv_out)
    parts = np.zeros((m, n))
    sums = np.zeros(m)  # sum(x_i) = a / c_i
    errors = np.zeros(m)  # certified ||x_i - exact||_1
    sweeps = np.zeros(m, np.int64)

    def solve(i: int) -> None:
        rho = np.zeros(n)
        row = slice(pieces.indptr[i], pieces.indptr[i + 1])
        rho[pieces.indices[row]] = pieces.data[row] / mass[i]
        rho = g.to_internal(rho)
        x = rho.copy()
        blocks = g.sweep_blocks(np.flatnonzero(x))
        sweeps[i], bound, sums[i] = _kernels.ppr_gauss_seidel(*args, rho, x, alpha, tol, max_iter, blocks)
        # The kernel reports 2 e / (sum(x) - e) for the normalised x; e is what the split needs.
        errors[i] = bound * sums[i] / (2.0 + bound) if np.isfinite(bound) else np.inf
        parts[i] = g.to_original(x)

    live = [int(i) for i in np.flatnonzero(mass > 0)]
    if threads == 1 or len(live) < 2:
        for i in live:
            solve(i)
    else:  # the kernel releases the GIL: one piece per thread at a time
        with ThreadPoolExecutor(max_workers=min(threads, len(live))) as pool:
            list(pool.map(solve, live))
    sweeps = int(sweeps.sum())
    z = float(weight @ sums)
    parts *= (weight / z)[:, None]
    error_bound = float(2.0 * (weight @ errors) / z)
    converged = error_bound <= tol
    if tol > 0 and not converged:
        warnings.warn(
            f"{caller} did not reach tol={tol:g} in max_iter={max_iter} sweeps per piece "
            f"(certified L1 error bound {error_bound:.3g}); raise max_iter or tol",
            ConvergenceWarning,
            stacklevel=3,
        )
    return ContributionsResult(parts=parts, error_bound=error_bound, sweeps=sweeps, converged=converged)
