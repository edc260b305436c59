"""Entity linking's nearest nodes: exact top-k rows of a sparse matrix by dot product, in numpy.

:class:`NearestRows` answers "which nodes' vectors are closest to this entity's" without scanning
every node. It needs no compiled kernel, so a process that answers one question (the command line)
links its entities without loading numba; :func:`row_dots` sums each dot product in the order the
all-pairs product does, so its values are the compiled search's
(:mod:`~pathfinding.hipporag.index.neighbours`) bit for bit.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pathfinding._validation import check_int

__all__ = ["NearestRows", "posting_lists", "row_dots"]

BOUND_SLACK = 1e-9
"""Extra room in the pruning bound for rounding in the norms (the bound must never cut a true pair)."""

KEEP_SLACK = 1e-12
"""A synonym pair is kept when its cosine is at least ``tau - KEEP_SLACK``: in a fresh build (both
all-pairs and prefix search) and in the new rows of an addition alike."""


def row_dots(X: sp.csr_array, q_idx: np.ndarray, q_val: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Dots of one sparse vector with the given rows of ``X``, each summed in ascending feature order.

    Parameters
    ----------
    X : scipy.sparse.csr_array
        Rows with sorted, distinct column indices.
    q_idx, q_val : numpy.ndarray
        The vector's feature ids (ascending, distinct) and values.
    rows : numpy.ndarray of int
        Rows of ``X`` to score.

    Returns
    -------
    numpy.ndarray of float64
        ``X[rows] @ q``, each entry the sequential sum, left to right, of the products of the
        features a row shares with ``q`` (not numpy's pairwise sum, whose rounding differs).

    Examples
    --------
    >>> X = sp.csr_array(np.array([[1.0, 2.0, 0.0], [0.0, 3.0, 4.0]]))
    >>> row_dots(X, np.array([1, 2]), np.array([0.5, 0.25]), np.array([1, 0]))
    array([2.5, 1. ])
    """
    starts = X.indptr[rows].astype(np.int64)
    lens = X.indptr[rows + 1].astype(np.int64) - starts
    # every stored entry of the chosen rows, row by row, in the rows' own (ascending feature) order
    pos = np.repeat(starts - (np.cumsum(lens) - lens), lens) + np.arange(lens.sum())
    feat = X.indices[pos]
    j = np.minimum(np.searchsorted(q_idx, feat), max(q_idx.size - 1, 0))
    hit = q_idx[j] == feat if q_idx.size else np.zeros(feat.size, bool)
    owner = np.repeat(np.arange(rows.size), lens)[hit]
    prod = X.data[pos[hit]] * q_val[j[hit]]
    # the m-th shared feature of every row at once: each row's sum grows left to right, as in a loop
    nth = np.arange(owner.size) - np.searchsorted(owner, owner)
    out = np.zeros(rows.size)
    for m in range(int(nth.max(initial=-1)) + 1):
        at = nth == m
        out[owner[at]] += prod[at]
    return out


def posting_lists(X: sp.csr_array) -> sp.csr_array:
    """The rows holding each feature, ascending: ``X``'s transpose without its values (a boolean
    CSR matrix, one byte per entry where the values would take eight).

    Examples
    --------
    >>> posting_lists(sp.csr_array(np.array([[0.6, 0.8], [0.0, 1.0]]))).indices
    array([0, 0, 1], dtype=int32)
    """
    X = sp.csr_array(X)
    pattern = sp.csr_array((np.ones(X.nnz, dtype=bool), X.indices, X.indptr), shape=X.shape)
    return sp.csr_array(pattern.T)


class NearestRows:
    """Exact top-k rows by dot product for sparse query vectors, without scanning every row.

    The query's features are visited rarest first; each visit adds the rows of that feature's
    posting list as candidates and scores them exactly. A row not yet seen shares no visited
    feature, so its dot is at most the norm of the query's unvisited part; once the k-th best
    score exceeds that norm, no unseen row can enter or tie the top k and the search stops. A
    distinctive entity stops after its rarest n-grams, long before the common ones (" th", "the")
    whose posting lists hold a large share of all nodes.

    Parameters
    ----------
    X : scipy.sparse matrix, shape (n, d)
        The rows (unit rows for cosines).

    Examples
    --------
    >>> X = sp.csr_array(np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8]]))
    >>> nearest = NearestRows(X)
    >>> nearest.top_k(np.array([1]), np.array([1.0]), k=2)
    (array([1, 2]), array([0.8, 0.6]))
    """

    def __init__(self, X):
        # The caller's arrays are shared, not copied: an index's embeddings are its largest matrix.
        X = sp.csr_array(X, dtype=np.float64)
        if not X.has_canonical_format:  # summed in a copy: the caller's matrix is left as it was
            X = X.copy()
            X.sum_duplicates()
        self._X = X
        self._postings = posting_lists(X)
        self._df = np.diff(self._postings.indptr)

    def get_state(self) -> tuple[sp.csr_array, sp.csr_array]:
        """The rows and their posting lists (:func:`posting_lists`), as :meth:`from_state` takes them."""
        return self._X, self._postings

    @classmethod
    def from_state(cls, X: sp.csr_array, postings: sp.csr_array) -> NearestRows:
        """Rebuild from :meth:`get_state` output without transposing again (a saved query cache)."""
        self = cls.__new__(cls)
        self._X, self._postings = X, postings
        self._df = np.diff(postings.indptr)
        return self

    def top_k(self, q_idx: np.ndarray, q_val: np.ndarray, *, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Rows with the ``k`` largest positive dots with the query, ties to the lower row id.

        Parameters
        ----------
        q_idx, q_val : numpy.ndarray
            The query's feature ids (distinct) and values.
        k : int, default 1

        Returns
        -------
        rows : numpy.ndarray of int64
        dots : numpy.ndarray of float64
            The same rows' entries of ``q @ X.T`` (same sum order; one ulp where scipy fuses a
            multiply-add).
        """
        k = check_int("k", k, low=1)
        order = np.argsort(q_idx, kind="stable")
        qi = np.asarray(q_idx, dtype=np.int64)[order]
        qv = np.asarray(q_val, dtype=np.float64)[order]
        visit = np.lexsort((qi, self._df[qi]))  # rarest feature first
        tail = np.sqrt(np.maximum(np.cumsum((qv[visit] ** 2)[::-1])[::-1] - qv[visit] ** 2, 0.0))
        P = self._postings
        seen = np.zeros(0, dtype=np.int64)
        best_r, best_v = np.zeros(0, dtype=np.int64), np.zeros(0)
        for m, pos in enumerate(visit):
            f = qi[pos]
            new = P.indices[P.indptr[f] : P.indptr[f + 1]].astype(np.int64)
            new = np.setdiff1d(new, seen, assume_unique=True)
            if new.size:
                seen = np.union1d(seen, new)
                v = row_dots(self._X, qi, qv, new)
                r = np.r_[best_r, new]
                v = np.r_[best_v, v]
                keep = v > 0
                r, v = r[keep], v[keep]
                top = np.lexsort((r, -v))[:k]
                best_r, best_v = r[top], v[top]
            if best_r.size == k and best_v[-1] > tail[m] + BOUND_SLACK:
                break
        return best_r, best_v
