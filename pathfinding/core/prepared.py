"""The prepared graph: the per-graph work of Personalized PageRank, done once.

:func:`prepare_graph` relabels the nodes (connected components as contiguous blocks, by degree
within each), stores the transposed CSR with unsigned 32-bit indices, the inverse out-degrees and,
on large graphs, a binned copy of the edges for cache-friendly sweeps. Whoever owns a graph keeps
its prepared form (a path-finding instance, a HippoRAG index); :mod:`pathfinding.core.ppr` runs the
queries.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import as_csr, check_int, check_node_ids
from pathfinding.errors import InvalidValueError

__all__ = ["Candidates", "PPRGraph", "prepare_graph"]


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
    order: np.ndarray | None = None
    component_ptr: np.ndarray | None = None
    bin_rows: np.ndarray | None = None
    bin_src: np.ndarray | None = None
    bin_dst: np.ndarray | None = None
    bin_weights: np.ndarray | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    def forward_csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The forward CSR (row u lists u's out-neighbours and the weights A[u, v]), internal order.

        Forward push spreads mass along out-edges; the stored CSR is the transpose (in-edges), which
        an undirected graph shares. A directed graph's transpose is built on first use and kept.
        """
        if self.symmetric:
            return self.indptr, self.indices, self.weights
        if "forward" not in self._cache:
            data = np.ones(self.n_edges) if self.unit else self.weights
            AT = sp.csr_array((data, self.indices, self.indptr), shape=(self.n_nodes, self.n_nodes))
            A = sp.csr_array(AT.T)
            A.sort_indices()
            self._cache["forward"] = (
                A.indptr.astype(self.indptr.dtype),
                A.indices.astype(self.indices.dtype),
                np.zeros(0) if self.unit else A.data,
            )
        return self._cache["forward"]

    def internal_ids(self, ids: np.ndarray) -> np.ndarray:
        """Internal positions of original node ids (the inverse of ``order``, built once)."""
        if self.order is None:
            return ids
        if "position" not in self._cache:
            position = np.empty(self.n_nodes, np.int64)
            position[self.order] = np.arange(self.n_nodes)
            self._cache["position"] = position
        return self._cache["position"][ids]

    def candidates(self, ids) -> Candidates:
        """``ids`` prepared as the candidates of many :func:`~pathfinding.core.ppr.ppr_top_k` queries:
        checked, mapped to the internal order and their largest degree found once, not per query
        (the default retriever ranks a million passage nodes at a million passages: 12 ms a query).

        Examples
        --------
        >>> g = prepare_graph(sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]])))
        >>> c = g.candidates([1, 2])
        >>> c.ids.tolist(), c.max_degree
        ([1, 2], 1.0)
        """
        ids = check_node_ids("candidates", ids, self.n_nodes)  # a copy of its own
        internal = np.array(self.internal_ids(ids), dtype=np.int64)
        inv = self.inv_out[internal]
        edged = inv > 0
        max_degree = float(1.0 / inv[edged].min()) if edged.any() else 0.0
        positions = np.full(self.n_nodes, -1, np.int64)
        positions[internal] = np.arange(ids.size)
        for a in (ids, internal):  # positions stay writable: the push kernel's type is one array type
            a.setflags(write=False)
        return Candidates(self, ids, internal, max_degree, positions)

    @contextmanager
    def push_workspace(self):
        """Scratch arrays for one forward push (``p, res, seen, touched, queue, queued, item_pos``).

        They are zero, False and -1 on entry, the kernels leave them so, and they are kept from
        query to query: allocated afresh, they cost a short push more than its work, because the
        operating system hands out zeroed pages on first touch and a push over a few thousand
        nodes spread across the ids touches most pages of every array. A query that finds them in
        use (another thread) gets its own; after an error they are dropped, not reused.
        """
        arrays = self._cache.pop("push", None)  # one atomic step: two threads never share them
        if arrays is None:
            n = self.n_nodes
            arrays = (
                np.zeros(n), np.zeros(n), np.zeros(n, np.bool_), np.empty(n, np.int64),
                np.empty(n, np.int64), np.zeros(n, np.bool_), np.full(n, -1, np.int64),
            )
        yield arrays
        self._cache["push"] = arrays  # not reached when the body raised

    def sweep_blocks(self, support: np.ndarray) -> np.ndarray:
        """Row ranges (internal order) of the components holding ``support`` (internal node ids).

        The walk never leaves the connected components of its restart vector, so a solver need only
        sweep those rows. Without component blocks (a directed graph, or ``reorder=None``): all rows.
        """
        if self.component_ptr is None:
            return np.array([[0, self.n_nodes]], dtype=np.int64)
        comps = np.unique(np.searchsorted(self.component_ptr, support, side="right") - 1)
        return np.column_stack([self.component_ptr[comps], self.component_ptr[comps + 1]])

    def to_internal(self, vectors: np.ndarray) -> np.ndarray:
        """Rows of ``vectors`` (indexed by original node id) in the kernels' node order."""
        return vectors if self.order is None else np.ascontiguousarray(vectors[self.order])

    def to_original(self, vectors: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`to_internal`."""
        if self.order is None:
            return vectors
        out = np.empty_like(vectors)
        out[self.order] = vectors
        return out

    def bins(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(bin_rows, bin_src, bin_dst, bin_weights)``: the binned layout, built on first use if absent.

        The threaded power iteration always runs bin by bin. On a graph prepared without the binned
        layout (fewer than ``BINNED_AUTO_MIN_NODES`` nodes, or ``layout="csr"``) the first threaded
        solve builds it here and keeps it. Bins rather than row blocks of the CSR: numba hands
        blocks out one at a time, so a block's rows move between cores from iteration to iteration,
        while a bin keeps a slice of pi and x in one core's cache (``make bench`` times both
        layouts on one thread, and the threads on the bins, in the same run).
        """
        if self.bin_rows is not None:
            return self.bin_rows, self.bin_src, self.bin_dst, self.bin_weights
        if "bins" not in self._cache:
            self._cache["bins"] = _binned_layout(self.indptr, self.indices, self.weights, self.unit)
        return self._cache["bins"]

    def thread_groups(self, threads: int) -> tuple[np.ndarray, np.ndarray]:
        """``(group_ptr, group_bins)``: the bins of :meth:`bins` dealt to ``threads`` threads by cost.

        The costliest bin goes first to the thread with the least cost so far (longest processing
        time first); each thread keeps its bins, in increasing order, for every iteration, so a
        bin's rows of pi and x stay in one core's cache.

        A bin costs its edges plus ``ROW_COST`` per row: of two bins with equal edges, the one
        over more rows scatters into a wider slice of pi and takes longer.

        The groups are fixed for every iteration: handed out one at a time, a bin's rows would
        change cores between iterations and lose the cache that makes the bins worth having.
        ``make bench`` prints the two-thread speed-up beside the one-thread kernels.

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> from pathfinding.core.ppr import prepare_graph
        >>> g = prepare_graph(sp.random_array((6, 6), density=0.5, random_state=0), layout="binned")
        >>> ptr, bins = g.thread_groups(2)
        >>> ptr.size, sorted(bins.tolist()) == list(range(g.bins()[0].size - 1))
        (3, True)
        """
        threads = check_int("threads", threads, low=1)
        key = ("groups", threads)
        if key not in self._cache:
            bin_rows = self.bins()[0]
            cost = np.diff(self.indptr[bin_rows]).astype(np.int64) + ROW_COST * np.diff(bin_rows)
            load = np.zeros(threads, np.int64)
            groups = [[] for _ in range(threads)]
            for b in np.argsort(-cost, kind="stable"):
                t = int(np.argmin(load))
                groups[t].append(int(b))
                load[t] += cost[b]
            ptr = np.cumsum([0] + [len(gr) for gr in groups]).astype(np.int64)
            self._cache[key] = (ptr, np.array([b for gr in groups for b in sorted(gr)], np.int64))
        return self._cache[key]

    @property
    def n_edges(self) -> int:
        """Number of stored (directed) edges."""
        return int(self.indptr[-1])


REORDER_AUTO_MIN_NODES = 20_000
# x (8 bytes a node) no longer fits a 2 MB L2 from here on: the binned power iteration pays.
BINNED_AUTO_MIN_NODES = 262_144
# What one destination row of a bin costs a thread, in edges (see PPRGraph.thread_groups).
ROW_COST = 6


@dataclass(frozen=True, eq=False)
class Candidates:
    """Nodes that top-k queries rank, prepared for one graph (:meth:`PPRGraph.candidates`).

    Attributes
    ----------
    graph : PPRGraph
        The graph they were prepared for (another graph refuses them).
    ids, internal : numpy.ndarray
        Their original ids and internal positions (read-only).
    max_degree : float
        Their largest weighted degree (0 when none has an edge).
    positions : numpy.ndarray
        Per internal node, its position among them, or -1 (8 bytes a node; never written).
    """

    graph: PPRGraph = field(repr=False)
    ids: np.ndarray
    internal: np.ndarray = field(repr=False)
    max_degree: float
    positions: np.ndarray = field(repr=False)


def prepare_graph(graph, *, reorder="auto", layout="auto") -> PPRGraph:
    """Validate a weighted graph and lay it out for the PPR kernels.

    Parameters
    ----------
    graph : sparse matrix or array_like, shape (n, n)
        Non-negative, finite edge weights; ``graph[i, j]`` is the weight of the edge i -> j. An
        undirected graph is a symmetric matrix.
    reorder : {"auto", "degree", None}, default "auto"
        Relabel nodes internally. "degree": an undirected graph's connected components become
        contiguous blocks of rows (so a query sweeps only its seeds' components, where all its mass
        stays), and within a block nodes go by decreasing degree, which keeps hubs together in
        cache and rows of equal length adjacent (a predictable inner loop): 2-3x faster per
        iteration on the benchmark graphs. Inputs and outputs always use the original node ids.
        "auto" does this for graphs of at least 20,000 nodes, and for smaller undirected graphs with
        more than one component.
    layout : {"auto", "csr", "binned"}, default "auto"
        "binned" also stores the edges cut into bins of at most 65,536 destination rows and sorted
        by source within a bin (6 more bytes per edge): the power iteration (``tol=0`` or
        ``method="power"``, and every ``threads > 1`` solve) then sweeps x in order instead of
        missing the cache once per edge, with bitwise the same sums. "auto" does this from
        262,144 nodes, where x outgrows a 2 MB L2; "csr" never.

    Returns
    -------
    PPRGraph

    Raises
    ------
    ValueError
        If the matrix is not square or has a negative, NaN or infinite entry.

    Examples
    --------
    >>> from pathfinding.synthetic.toy import meet_node_toy
    >>> g = prepare_graph(meet_node_toy().graph)
    >>> g.n_nodes, g.n_edges, g.unit, g.symmetric
    (5, 8, True, True)
    """
    if isinstance(graph, PPRGraph):
        return graph
    # imported here, as in every module a query reads: a prepared graph loaded from disk and walked
    # without the compiled kernels (a command-line question, pathfinding.hipporag.retrieval.oneshot) never
    # loads numba
    from pathfinding.core import _kernels

    if reorder not in ("auto", "degree", None):
        raise InvalidValueError(f"reorder must be 'auto', 'degree' or None, got {reorder!r}")
    if layout not in ("auto", "csr", "binned"):
        raise InvalidValueError(f"layout must be 'auto', 'csr' or 'binned', got {layout!r}")
    A = as_csr("graph", graph, square=True)
    n = A.shape[0]
    if n == 0:
        raise InvalidValueError("graph must have at least one node, got shape (0, 0)")
    # The kernels pull over A^T: row i lists the in-neighbours of i. An undirected graph is its own
    # transpose, so it is checked in place and reused; otherwise the CSC form of A is A^T in CSR.
    symmetric = bool(_kernels.is_symmetric(A.indptr, A.indices, A.data))
    out_weight = np.asarray(A.sum(axis=1)).ravel()
    if symmetric:
        AT = A
    else:
        AT = A.tocsc()
        AT.sort_indices()
    del A
    unit = bool(np.all(AT.data == 1.0))
    # Unsigned indices spare the kernel numba's negative-index wraparound check on every gather.
    index_dtype = np.uint32 if n <= np.iinfo(np.uint32).max else np.uint64
    order = None
    component_ptr = None
    labels = None
    if symmetric and reorder is not None:
        # imported here: a process that loads its prepared graphs from disk (a command-line query
        # with its query cache) never needs scipy.sparse.csgraph
        from scipy.sparse.csgraph import connected_components

        n_comp, labels = connected_components(AT, directed=False)
        if n_comp == 1:
            labels = None
    if reorder == "degree" or (reorder == "auto" and (n >= REORDER_AUTO_MIN_NODES or labels is not None)):
        degree = np.diff(AT.indptr)
        order = np.argsort(-degree, kind="stable") if labels is None else np.lexsort((-degree, labels))
        if labels is not None:
            sizes = np.bincount(labels)
            component_ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        indptr, indices, weights = _kernels.permute_csr(
            AT.indptr, AT.indices, AT.data, order, np.zeros(1, index_dtype), not unit
        )
        out_weight = out_weight[order]
    else:
        indptr, indices, weights = AT.indptr, AT.indices.astype(index_dtype), AT.data
    del AT
    # Unsigned 32-bit row pointers too, when the edges fit: half the bytes of int64 to stream per
    # iteration, and no negative-index checks in the compiled loops.
    indptr = indptr.astype(np.uint32 if indptr[-1] <= np.iinfo(np.uint32).max else np.uint64)
    inv_out = np.zeros(n)
    np.divide(1.0, out_weight, out=inv_out, where=out_weight > 0)
    binned = {}
    if layout == "binned" or (layout == "auto" and n >= BINNED_AUTO_MIN_NODES):
        arrays = _binned_layout(indptr, indices, weights, unit)
        binned = dict(zip(("bin_rows", "bin_src", "bin_dst", "bin_weights"), arrays, strict=True))
    return PPRGraph(
        n_nodes=n,
        indptr=indptr,
        indices=indices,
        weights=np.zeros(0) if unit else np.array(weights, dtype=np.float64),  # never the caller's array
        unit=unit,
        inv_out=inv_out,
        symmetric=symmetric,
        order=order,
        component_ptr=component_ptr,
        **binned,
    )


def _binned_layout(indptr, indices, weights, unit):
    """Bins of at most 65,536 rows and, where whole rows allow, an eighth of the edges (so hub rows
    spread over several bins, for threads to share)."""
    from pathfinding.core import _kernels

    cap = max(1, -(-len(indices) // 8))
    return _kernels.binned_layout(indptr, indices, np.asarray(weights, float), not unit, 1 << 16, cap)
