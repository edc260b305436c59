"""How an update moves the index's sparse matrices: rows and columns renumbered, a few entries merged.

Node ids are positions in the sorted phrase list, so an update renumbers every node after the first
phrase it adds or deletes, and every matrix of the index (the relation edges, P, the synonymy pairs
and edges, the embeddings) moves with its nodes. An add keeps every old node and passage in order:
its maps are increasing, so the rows move as contiguous blocks and each matrix is written once,
with the new entries merged into the few rows they touch (:func:`grow`). A delete drops rows and
columns and keeps the order of the rest, so :func:`remap` masks the kept entries out of the CSR
arrays; only a map that reorders goes through coordinates.

At a million passages a matrix holds tens of millions of entries: one copy of each is what an add
costs; a sort, a transpose or a sum of two whole matrices would each cost as much again.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pathfinding.errors import InvalidValueError

__all__ = [
    "complement",
    "grow",
    "increasing",
    "insert_rows",
    "merge_rows",
    "remap",
    "rows_outside",
    "subtract_stored",
    "take_rows",
]

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


def _keeps_order(a: np.ndarray) -> bool:
    """True when the map ``a`` keeps the order of the items it keeps (-1 drops an item)."""
    kept = a[a >= 0]
    return bool(kept.size < 2 or np.all(kept[1:] > kept[:-1]))


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
    if _keeps_order(row_map) and _keeps_order(col_map):
        # A delete: rows and columns dropped, the rest in order. The kept entries stay sorted, so
        # they are masked out of the CSR arrays in one pass, not re-sorted through coordinates.
        M = sp.csr_array(M)
        dtype = _index_dtype(M, shape, M.nnz)
        cols = col_map.astype(dtype)[M.indices]  # the map cast first: one gather, no copy to cast
        keep = cols >= 0
        gone_rows = np.flatnonzero(row_map < 0)
        if gone_rows.size > MERGED_ROWS:
            keep &= np.repeat(row_map >= 0, np.diff(M.indptr))
        else:  # a few rows: their ranges, not a mask as long as the entries
            for r in gone_rows.tolist():
                keep[M.indptr[r] : M.indptr[r + 1]] = False
        dropped = np.flatnonzero(~keep)  # few: a delete's passages and nodes
        per_row = np.diff(M.indptr) - np.bincount(
            np.searchsorted(M.indptr, dropped, side="right") - 1, minlength=M.shape[0]
        )
        lengths = np.zeros(shape[0], dtype=np.int64)
        lengths[row_map[row_map >= 0]] = per_row[row_map >= 0]
        indptr = np.r_[0, np.cumsum(lengths)].astype(dtype)
        if dropped.size == 0:
            return sp.csr_array((M.data.copy(), cols, indptr), shape=shape)
        return sp.csr_array((M.data[keep], cols[keep], indptr), shape=shape)
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


def take_rows(A: sp.csr_array, rows: np.ndarray) -> sp.csr_array:
    """``A[rows]`` for increasing ``rows``: each run of consecutive rows is copied as one block, so a
    delete that drops a few rows of a large matrix costs one copy (scipy's row indexing copies row by
    row); past :data:`MERGED_ROWS` runs, scipy's indexing.

    Examples
    --------
    >>> A = sp.csr_array(np.array([[1, 0], [0, 2], [3, 3], [0, 4]]))
    >>> take_rows(A, np.array([0, 2, 3])).toarray()
    array([[1, 0],
           [3, 3],
           [0, 4]])
    """
    A = sp.csr_array(A)
    rows = np.asarray(rows, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, np.diff(rows) != 1][: rows.size])
    if rows.size and starts.size > MERGED_ROWS:
        return A[rows]
    ends = np.r_[starts[1:], rows.size][: starts.size]
    blocks = list(zip(A.indptr[rows[starts]].tolist(), A.indptr[rows[ends - 1] + 1].tolist(), strict=True))
    lengths = np.diff(A.indptr)[rows]
    shape = (rows.size, A.shape[1])
    dtype = _index_dtype(A, shape, int(lengths.sum()))
    indptr = np.r_[0, np.cumsum(lengths)].astype(dtype)
    data = np.concatenate([A.data[:0]] + [A.data[a:b] for a, b in blocks])
    cols = np.concatenate([A.indices[:0]] + [A.indices[a:b] for a, b in blocks]).astype(dtype, copy=False)
    return sp.csr_array((data, cols, indptr), shape=shape)


def subtract_stored(M: sp.csr_array, G) -> sp.csr_array:
    """``M - G`` with the zeros left dropped, for a canonical ``M`` that stores every key of ``G``:
    computed in ``M``'s own arrays (``M`` is changed and returned), each entry of ``G`` found by
    bisection in its row, not a new matrix. Past :data:`MERGED_ROWS` entries of ``G``, scipy's
    difference (a new matrix).

    Examples
    --------
    >>> M = sp.csr_array(np.array([[2.0, 1.0], [0.0, 3.0]]))
    >>> subtract_stored(M, sp.csr_array(np.array([[1.0, 1.0], [0.0, 0.0]]))).toarray()
    array([[1., 0.],
           [0., 3.]])
    """
    C = sp.coo_array(G)
    C.sum_duplicates()
    if C.nnz > MERGED_ROWS:
        out = sp.csr_array(M - G)
        out.eliminate_zeros()
        return out
    for r, c, v in zip(C.row.tolist(), C.col.tolist(), C.data.tolist(), strict=True):
        lo, hi = M.indptr[r], M.indptr[r + 1]
        at = lo + int(np.searchsorted(M.indices[lo:hi], c))
        if at == hi or M.indices[at] != c:
            raise InvalidValueError(f"subtract_stored: ({r}, {c}) is not stored in the matrix")
        M.data[at] -= v
    M.eliminate_zeros()
    return M


def complement(ids: np.ndarray, n: int) -> np.ndarray:
    """The positions in ``range(n)`` that are not in ``ids``, in order.

    Examples
    --------
    >>> complement(np.array([1, 3]), 5)
    array([0, 2, 4])
    """
    out = np.ones(n, dtype=bool)
    out[ids] = False
    return np.flatnonzero(out)


def rows_outside(P: sp.csr_array, gone: np.ndarray) -> np.ndarray:
    """The rows of ``P`` with an entry in a column not in ``gone``, in order: after a delete, the
    nodes a kept passage still mentions (P: nodes x passages).

    Examples
    --------
    >>> rows_outside(sp.csr_array(np.array([[1, 0], [1, 1], [0, 1]])), np.array([1]))
    array([0, 1])
    """
    stays = np.ones(P.shape[1], dtype=bool)
    stays[gone] = False
    before = np.r_[0, np.cumsum(stays[P.indices])]  # entries in kept passages before each entry
    return np.flatnonzero(before[P.indptr[1:]] > before[P.indptr[:-1]])


def merge_rows(E_old, old_rows, old_pos, E_add, add_pos, n):
    """Rows ``E_old[old_rows]`` and ``E_add`` put at rows ``old_pos`` and ``add_pos`` of an n-row
    matrix (an update's embeddings): when the old rows keep their order, blocks of rows are copied
    (:func:`take_rows`, :func:`insert_rows`), else the rows are stacked and permuted.

    Examples
    --------
    >>> E, new = sp.csr_array(np.array([[1, 0], [0, 2], [3, 0]])), sp.csr_array(np.array([[5, 5]]))
    >>> merge_rows(E, np.array([0, 2]), np.array([0, 2]), new, np.array([1]), 3).toarray()
    array([[1, 0],
           [5, 5],
           [3, 0]])
    """
    if sp.issparse(E_old) and increasing(old_pos) and increasing(add_pos):  # old rows keep their order
        if old_rows.size < E_old.shape[0]:
            E_old = take_rows(E_old, old_rows)  # a copy: a delete's rows are not inserted into it
            if add_pos.size == 0:
                return E_old
        return insert_rows(sp.csr_array(E_old), sp.csr_array(E_add), add_pos)
    pos = np.r_[old_pos, add_pos]
    perm = np.empty(n, dtype=np.int64)
    perm[pos] = np.arange(n)
    if sp.issparse(E_old):
        stacked = sp.vstack([sp.csr_array(E_old)[old_rows], sp.csr_array(E_add)], format="csr")
        return sp.csr_array(stacked[perm])
    return np.concatenate([np.asarray(E_old)[old_rows], np.asarray(E_add)])[perm]
