"""How an update moves the index's sparse matrices: rows and columns renumbered, a few entries merged.

Node ids are positions in the sorted phrase list, so an update renumbers every node after the first
phrase it adds or deletes, and every matrix of the index (the relation edges, P, the synonymy pairs
and edges, the embeddings) moves with its nodes. An add keeps every old node and passage in order:
its maps are increasing, so the rows move as contiguous blocks and each matrix is written once,
with the new entries merged into the few rows they touch (:func:`grow`). A delete drops rows and
goes through coordinates (:func:`remap`).

At a million passages a matrix holds tens of millions of entries: one copy of each is what an add
costs; a sort, a transpose or a sum of two whole matrices would each cost as much again.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pathfinding.errors import InvalidValueError

__all__ = ["grow", "increasing", "insert_rows", "remap"]

MERGED_ROWS = 4096
"""Up to this many rows touched by new entries, :func:`grow` merges them one by one in one copy; more
(a bulk add) go through :func:`remap` and one sparse sum, which loops in compiled code."""


def increasing(a: np.ndarray) -> bool:
    """True when the map ``a`` keeps every item (no -1) and keeps their order.

    Examples
    --------
    >>> increasing(np.array([0, 2, 3])), increasing(np.array([0, -1, 1]))
    (True, False)
    """
    return bool(a.size == 0 or (a[0] >= 0 and np.all(a[1:] > a[:-1])))


def _index_dtype(M: sp.csr_array, shape, nnz: int):
    """``M``'s index type when the result fits it: int64 offsets beside int32 columns would make
    scipy copy every column index into int64 (0.7 s and twice the memory at 1.5 million rows)."""
    limit = np.iinfo(np.int32).max
    small = M.indices.dtype == np.int32 and M.indptr.dtype == np.int32
    return np.int32 if small and max(shape) <= limit and nnz <= limit else np.int64


def remap(M, row_map: np.ndarray, col_map: np.ndarray, shape) -> sp.csr_array:
    """``M`` with row i moved to ``row_map[i]`` and column j to ``col_map[j]`` (-1 drops it).

    Examples
    --------
    >>> M = sp.csr_array(np.array([[1, 0], [0, 2]]))
    >>> remap(M, np.array([0, 2]), np.array([1, 2]), (3, 3)).toarray()
    array([[0, 1, 0],
           [0, 0, 0],
           [0, 0, 2]])
    """
    if increasing(row_map) and increasing(col_map):
        # Only rows and columns inserted: the CSR arrays move as they are, already sorted.
        M = sp.csr_array(M)
        lengths = np.zeros(shape[0], dtype=np.int64)
        lengths[row_map] = np.diff(M.indptr)
        dtype = _index_dtype(M, shape, M.nnz)
        indptr = np.r_[0, np.cumsum(lengths)].astype(dtype)
        return sp.csr_array((M.data.copy(), col_map[M.indices].astype(dtype), indptr), shape=shape)
    C = sp.coo_array(M)
    r, c = row_map[C.row], col_map[C.col]
    ok = (r >= 0) & (c >= 0)
    out = sp.csr_array((C.data[ok], (r[ok], c[ok])), shape=shape)
    out.sum_duplicates()
    return out


def grow(M, shape, extra, *, row_map=None, col_map=None, combine=np.add) -> sp.csr_array:
    """``remap(M, row_map, col_map, shape)`` joined with the entries of ``extra`` (already in the new
    ids; ``combine``, ``np.add`` or ``np.maximum``, where both hold a key), in one copy.

    The maps must be increasing (an add); None keeps the ids. ``M`` and ``extra`` are canonical, and
    so is the result. The rows ``extra`` leaves alone move as contiguous blocks, their columns
    remapped on the way; the rows it touches are merged one by one (up to :data:`MERGED_ROWS`).

    Examples
    --------
    >>> M = sp.csr_array(np.array([[1.0, 0.0], [0.0, 2.0]]))
    >>> extra = sp.csr_array(np.array([[0.0, 0.0, 0.0], [5.0, 0.0, 0.0], [0.0, 0.0, 1.0]]))
    >>> grow(M, (3, 3), extra, row_map=np.array([0, 2]), col_map=np.array([0, 2])).toarray()
    array([[1., 0., 0.],
           [5., 0., 0.],
           [0., 0., 3.]])
    """
    if combine not in (np.add, np.maximum):
        raise InvalidValueError(f"combine must be np.add or np.maximum, got {combine!r}")
    M = sp.csr_array(M)
    X = sp.csr_array(extra)
    X.sum_duplicates()
    n_old = M.shape[0]
    row_map = np.arange(n_old) if row_map is None else np.asarray(row_map)
    if not (increasing(row_map) and (col_map is None or increasing(np.asarray(col_map)))):
        raise InvalidValueError("grow needs increasing maps (an add); use remap and a sum for other updates")
    touched = np.flatnonzero(np.diff(X.indptr))
    if touched.size > MERGED_ROWS:
        moved = remap(M, row_map, np.arange(M.shape[1]) if col_map is None else col_map, shape)
        out = sp.csr_array(moved + X if combine is np.add else moved.maximum(X))
        out.sum_duplicates()
        return out
    new_cols = (lambda cols: cols) if col_map is None else (lambda cols: col_map[cols])
    lengths = np.zeros(shape[0], dtype=np.int64)
    lengths[row_map] = np.diff(M.indptr)
    at = np.searchsorted(row_map, touched)  # the old row a touched row was, if it was one
    was_old = np.zeros(touched.size, dtype=bool)
    inside = at < n_old
    was_old[inside] = row_map[at[inside]] == touched[inside]
    merged = []
    for t, a, old in zip(touched.tolist(), at.tolist(), was_old.tolist(), strict=True):
        cols, vals = X.indices[X.indptr[t] : X.indptr[t + 1]], X.data[X.indptr[t] : X.indptr[t + 1]]
        if old:  # M's entries first: a key both hold keeps M's value, combined with extra's
            lo, hi = M.indptr[a], M.indptr[a + 1]
            cols, vals = np.r_[new_cols(M.indices[lo:hi]), cols], np.r_[M.data[lo:hi], vals]
        keys, first, inv = np.unique(cols, return_index=True, return_inverse=True)
        out = vals[first]
        again = np.ones(cols.size, dtype=bool)
        again[first] = False
        combine.at(out, inv[again], vals[again])
        merged.append((keys, out))
        lengths[t] = keys.size
    nnz = int(lengths.sum())
    dtype = _index_dtype(M, shape, nnz)
    indptr = np.r_[0, np.cumsum(lengths)].astype(dtype)
    data = np.empty(nnz, dtype=np.result_type(M.data, X.data))
    indices = np.empty(nnz, dtype=dtype)

    def move(a, b):  # old rows [a, b) to their new place, as one block
        if a < b:
            lo, hi, to = M.indptr[a], M.indptr[b], indptr[row_map[a]]
            data[to : to + hi - lo] = M.data[lo:hi]
            indices[to : to + hi - lo] = new_cols(M.indices[lo:hi])

    start = 0
    for t, a, old, (keys, vals) in zip(touched.tolist(), at.tolist(), was_old.tolist(), merged, strict=True):
        move(start, a)
        data[indptr[t] : indptr[t + 1]] = vals
        indices[indptr[t] : indptr[t + 1]] = keys
        start = a + 1 if old else a
    move(start, n_old)
    return sp.csr_array((data, indices, indptr), shape=shape)


def insert_rows(A: sp.csr_array, B: sp.csr_array, at: np.ndarray) -> sp.csr_array:
    """Every row of ``A`` in order, with the rows of ``B`` placed at rows ``at`` (increasing) of the result.

    The old rows move as contiguous blocks (one copy per added row), not row by row.

    Examples
    --------
    >>> A = sp.csr_array(np.array([[1, 0], [0, 2]]))
    >>> insert_rows(A, sp.csr_array(np.array([[3, 3]])), np.array([1])).toarray()
    array([[1, 0],
           [3, 3],
           [0, 2]])
    """
    n = A.shape[0] + B.shape[0]
    cut = at - np.arange(at.size)  # old rows before each added row
    edges = np.r_[0, cut, A.shape[0]]
    data, indices = [], []
    for i in range(at.size + 1):
        lo, hi = A.indptr[edges[i]], A.indptr[edges[i + 1]]
        data.append(A.data[lo:hi])
        indices.append(A.indices[lo:hi])
        if i < at.size:
            data.append(B.data[B.indptr[i] : B.indptr[i + 1]])
            indices.append(B.indices[B.indptr[i] : B.indptr[i + 1]])
    lengths = np.zeros(n, dtype=np.int64)
    moved = np.ones(n, dtype=bool)
    moved[at] = False
    lengths[moved] = np.diff(A.indptr)
    lengths[at] = np.diff(B.indptr)
    dtype = _index_dtype(A, (n, A.shape[1]), A.nnz + B.nnz)
    indptr = np.r_[0, np.cumsum(lengths)].astype(dtype)
    cols = np.concatenate(indices).astype(dtype, copy=False)
    return sp.csr_array((np.concatenate(data), cols, indptr), shape=(n, A.shape[1]))
