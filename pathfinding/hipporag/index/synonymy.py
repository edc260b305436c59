"""The synonymy step's pieces around the search: the all-pairs reference, each node's k nearest,
and the edge rule.

:mod:`~pathfinding.hipporag.index.neighbours` holds the searches themselves (compiled); what is here
needs no compiled code and is shared by them, by the build and by the updates.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import check_float, check_int
from pathfinding.hipporag.index.growth import grow, increasing, remap
from pathfinding.hipporag.index.nearest import KEEP_SLACK as _KEEP_SLACK

__all__ = [
    "assemble_pairs",
    "check_search",
    "cosine_neighbours_allpairs",
    "keep_nearest",
    "patch_synonymy_edges",
    "synonymy_edges",
    "top_per_row",
]


def check_search(tau, max_neighbours, chunk):
    """The searches' common parameters, checked (a named error for each)."""
    tau = check_float("tau", tau, low=-1.0, high=1.0)
    max_neighbours = check_int("max_neighbours", max_neighbours, low=1)
    chunk = check_int("chunk", chunk, low=1)
    return tau, max_neighbours, chunk


def top_per_row(r, c, v, max_neighbours: int):
    """Keep each row's ``max_neighbours`` largest values of (row, column, value) triples, ties to the
    lower column id."""
    order = np.lexsort((c, -v, r))
    r, c, v = r[order], c[order], v[order]
    first = np.searchsorted(r, r, side="left")
    keep = (np.arange(r.size) - first) < max_neighbours
    return r[keep], c[keep], v[keep]


def assemble_pairs(parts, n: int) -> sp.csr_array:
    """An n x n CSR matrix from (rows, columns, values) parts."""
    if parts:
        r, c, v = (np.concatenate(x) for x in zip(*parts, strict=True))
    else:
        r, c, v = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return sp.csr_array((v, (r, c)), shape=(n, n))


def cosine_neighbours_allpairs(
    X, *, tau: float = 0.8, max_neighbours: int = 100, chunk: int = 2048
) -> sp.csr_array:
    """The reference: every pair's product, ``chunk`` rows at a time, then threshold and cap.

    Same contract as :func:`pathfinding.hipporag.index.build.cosine_neighbours`. Quadratic: use it to
    check :func:`cosine_neighbours_prefix`, and for dense ``X`` (a neural encoder's vectors).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])
    >>> cosine_neighbours_allpairs(X, tau=0.5).toarray()
    array([[0. , 0.8, 0. ],
           [0.8, 0. , 0.6],
           [0. , 0.6, 0. ]])
    """
    tau, max_neighbours, chunk = check_search(tau, max_neighbours, chunk)
    sparse = sp.issparse(X)
    X = sp.csr_array(X, dtype=np.float64) if sparse else np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    XT = sp.csr_array(X.T) if sparse else X.T
    parts = []
    for start in range(0, n, chunk):
        S = X[start : start + chunk] @ XT
        if sparse:
            S = sp.coo_array(S)
            r, c, v = S.row, S.col, S.data
        else:
            r, c = np.nonzero(S >= tau - _KEEP_SLACK)
            v = S[r, c]
        keep = (v >= tau - _KEEP_SLACK) & (r + start != c)
        parts.append(top_per_row(r[keep].astype(np.int64) + start, c[keep].astype(np.int64), v[keep],
                                  max_neighbours))
    return assemble_pairs(parts, n)


def keep_nearest(M: sp.csr_array, k: int) -> sp.csr_array:
    """Each row's ``k`` largest entries (ties to the lower column id), the rest dropped.

    Only rows holding more than ``k`` entries are sorted: after an update, the few the new phrases
    reached (the others are copied as they are).

    Examples
    --------
    >>> keep_nearest(sp.csr_array(np.array([[0.0, 0.9, 0.9, 0.95]])), 2).toarray()
    array([[0.  , 0.9 , 0.  , 0.95]])
    """
    M = sp.csr_array(M)
    if not M.has_canonical_format:  # summed in a copy: the caller's matrix is left as it was
        M = M.copy()
        M.sum_duplicates()
    keep = _top_entries(M, k)
    if keep.all():
        return M.copy()
    rows = np.repeat(np.arange(M.shape[0]), np.diff(M.indptr))
    indptr = np.r_[0, np.cumsum(np.bincount(rows[keep], minlength=M.shape[0]))].astype(M.indptr.dtype)
    return sp.csr_array((M.data[keep], M.indices[keep], indptr), shape=M.shape)


def _top_entries(M: sp.csr_array, k: int) -> np.ndarray:
    """Mask of the entries of canonical CSR ``M`` among their row's ``k`` largest (ties to the lower
    column id); rows holding at most ``k`` keep every entry, unsorted."""
    counts = np.diff(M.indptr)
    keep = np.ones(M.nnz, dtype=bool)
    over = np.flatnonzero(counts > k)
    if over.size:
        at = np.concatenate([np.arange(M.indptr[i], M.indptr[i + 1]) for i in over.tolist()])
        r = np.repeat(over, counts[over])
        order = np.lexsort((M.indices[at], -M.data[at], r))
        first = np.searchsorted(r, r, side="left")  # r is sorted: each row's first position
        keep[at[order[(np.arange(at.size) - first) >= k]]] = False
    return keep


def synonymy_edges(pairs: sp.csr_array, R: sp.csr_array, *, max_synonyms: int) -> sp.csr_array:
    """Step 3d: keep each node's ``max_synonyms`` best pairs, symmetrise, drop pairs with a relation edge.

    Ties at the cap go to the lower node id, as in
    :func:`~pathfinding.hipporag.index.build.cosine_neighbours`.
    """
    n = pairs.shape[0]
    S = keep_nearest(pairs, max_synonyms)  # sorts only the rows over the cap
    S = sp.coo_array(S.maximum(S.T))
    # A pair already linked by a triple keeps its relation count only: drop S's entries whose
    # (row, column) key is among R's (CSR keys are sorted row-major, so a binary search finds them).
    R = sp.csr_array(R)
    R = R if R.has_sorted_indices else R.sorted_indices()
    r_keys = np.repeat(np.arange(n, dtype=np.int64), np.diff(R.indptr)) * n + R.indices
    s_keys = S.row.astype(np.int64) * n + S.col
    at = np.searchsorted(r_keys, s_keys).clip(max=max(r_keys.size - 1, 0))
    free = (r_keys[at] != s_keys) if r_keys.size else np.ones(s_keys.size, dtype=bool)
    S = sp.csr_array((S.data[free], (S.row[free], S.col[free])), shape=(n, n))
    S.eliminate_zeros()
    S.sort_indices()
    return S


def patch_synonymy_edges(
    S: sp.csr_array, pairs: sp.csr_array, R: sp.csr_array, touched, *, row_map=None
) -> sp.csr_array:
    """:func:`synonymy_edges` of ``pairs`` and ``R``, given ``S``, the edges of a ``pairs`` and ``R`` that
    differ from these only in the rows of the nodes ``touched`` (and, for ``R``, in their columns).

    An update's shortcut: an edge between two untouched nodes depends only on their own rows of
    ``pairs`` (each a list of at most k nearest, as :func:`keep_nearest` leaves it) and on whether
    ``R`` joins them, so it is kept from ``S``; every edge with a touched end is recomputed from the
    entries of ``pairs`` in a touched row or column. ``S`` may be in the ids before an update:
    ``row_map`` gives each old node's new id, -1 for a node the update deleted (whose edges go), and
    keeps the order of the rest. No pass sorts or transposes a whole matrix; ``S`` is copied once.

    Examples
    --------
    >>> pairs = sp.csr_array(np.array([[0, .9, 0], [.9, 0, .8], [0, .8, 0]]))
    >>> R = sp.csr_array((3, 3))
    >>> old = synonymy_edges(pairs[:2, :2], R[:2, :2], max_synonyms=5)
    >>> patch_synonymy_edges(old, pairs, R, [1, 2], row_map=np.array([0, 1])).toarray()
    array([[0. , 0.9, 0. ],
           [0.9, 0. , 0.8],
           [0. , 0.8, 0. ]])
    """
    n = pairs.shape[0]
    hit = np.zeros(n, dtype=bool)
    hit[np.asarray(touched, dtype=np.int64)] = True
    # The entries of pairs with a touched end, both directions, the larger value of the two where
    # both are stored (as synonymy_edges symmetrises): what S holds at a touched row or column.
    near = np.repeat(hit, np.diff(pairs.indptr)) | hit[pairs.indices]
    at = np.flatnonzero(near)
    r = np.searchsorted(pairs.indptr, at, side="right").astype(np.int64) - 1  # each entry's row
    c, v = pairs.indices[at].astype(np.int64), pairs.data[at]
    rr, cc, vv = np.r_[r, c], np.r_[c, r], np.r_[v, v]
    order = np.lexsort((-vv, cc, rr))
    rr, cc, vv = rr[order], cc[order], vv[order]
    first = np.r_[True, (rr[1:] != rr[:-1]) | (cc[1:] != cc[:-1])] if rr.size else np.zeros(0, bool)
    rr, cc, vv = rr[first], cc[first], vv[first]
    free = (np.asarray(sp.csr_array(R)[rr, cc]).ravel() == 0) & (vv != 0) if rr.size else first
    A = sp.csr_array((vv[free], (rr[free], cc[free])), shape=(n, n))
    # S without any edge at a touched node, then the recomputed ones (no key is in both).
    S = sp.csr_array(S)
    row_map = np.arange(S.shape[0]) if row_map is None else np.asarray(row_map)
    old_hit = np.ones(S.shape[0], dtype=bool)  # a node the update deleted (-1) loses every edge
    old_hit[row_map >= 0] = hit[row_map[row_map >= 0]]
    keep = ~(np.repeat(old_hit, np.diff(S.indptr)) | old_hit[S.indices])
    indptr = np.r_[0, np.cumsum(keep)][S.indptr]  # kept entries before each row's start
    kept = sp.csr_array((S.data[keep], S.indices[keep], indptr.astype(S.indptr.dtype)), shape=S.shape)
    if increasing(row_map):
        return grow(kept, (n, n), A, row_map=row_map, col_map=row_map)
    return sp.csr_array(remap(kept, row_map, row_map, (n, n)) + A)  # no key is in both
