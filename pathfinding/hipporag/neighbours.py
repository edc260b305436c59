"""Synonymy neighbours without the all-pairs product: exact cosine-threshold search by prefix filtering.

The synonymy step needs every pair of node vectors whose cosine is at least ``tau`` (0.8). The
all-pairs sparse product ``X @ X.T`` (:func:`cosine_neighbours_allpairs`, kept as the readable
reference) costs the sum over n-grams of (document frequency)^2; character trigrams such as " th"
occur in a sizeable share of all phrases, so that sum grows quadratically with the node count (it
was most of an 8,000-passage build in the run that motivated this module).

:func:`cosine_neighbours_prefix` returns the *same* pairs (the tests check equality, values
included, to one ulp) after far less work, by prefix filtering from all-pairs similarity search
[1]_ [2]_, in the form where a pair must share several features [3]_. Order the features globally
from rarest to most common and each row's entries in that order. Call a row's *prefix* its first q
entries and its *rest* the others.

* **One shared feature.** If ``||x_rest|| < tau``, Cauchy-Schwarz gives
  ``x . y <= x_pre . y + ||x_rest||``, so a pair that reaches ``tau`` shares a prefix feature of x.
* **Two shared features.** If moreover ``||x_rest||^2 + max_g x_g^2 < tau^2`` over the prefix
  entries g, a y sharing at most one prefix feature g of x has
  ``x . y <= x_g y_g + ||x_rest|| sqrt(1 - y_g^2) <= sqrt(x_g^2 + ||x_rest||^2) < tau``. With the
  global order, the prefix of the row whose prefix ends first lies inside the other's prefix, so *a
  pair that reaches tau shares two features that are in both prefixes*. Each row emits every pair
  of its prefix features as a signature; rows with a common signature are the candidates. A pair
  of rare trigrams is far rarer than either trigram, so on MuSiQue's phrases the candidates are a
  small fraction of what the one-feature filter leaves, and that a small fraction of the all-pairs
  products (:func:`candidate_pairs` counts them; these counts were measured once, not pinned). The
  candidates still grow faster than the node count (pairs of phrases sharing a common syllable
  or word; see :mod:`pathfinding.hipporag.scale` for the measured exponent).
* **Three shared features.** The same argument with the two largest prefix entries
  (``||x_rest||^2 + g_1^2 + g_2^2 < tau^2``) says such a pair shares three features of both
  prefixes. Rows that meet it join on triples of prefix features; a row that meets only the
  two-feature condition is joined on pairs against every row's pairs of features.
* Rows that cannot meet the two-feature condition (a phrase dominated by one n-gram; a few dozen
  in MuSiQue) take the one-feature route: their candidates are all rows sharing one of their
  prefix features.

Candidates are generated and checked in chunks (``budget`` pairs at a time), so memory stays
bounded however many signatures a pair shares, and each gets its exact cosine. Nothing is
approximated: no pair at or above the threshold can be missed, whatever the data.

Why not a library: approximate kNN libraries (pynndescent, hnswlib, annoy, faiss) answer "k
nearest", not "all within tau", and are approximate, while the recall target asks for the exact
edge set; ``sparse_dot_topn`` computes the full product (every flop of the quadratic sum) before it
thresholds. The filter is numpy plus five small loops compiled with numba. They live here, beside
the only code that calls them, and not in :mod:`pathfinding._kernels` (which holds the walk's
kernels and would pass the package's 600-line limit with them).

References
----------
.. [1] R. J. Bayardo, Y. Ma, R. Srikant. "Scaling up all pairs similarity search." WWW 2007.
.. [2] C. Xiao, W. Wang, X. Lin, J. X. Yu. "Efficient similarity joins for near duplicate
   detection." WWW 2008 (prefix filtering).
.. [3] J. Wang, G. Li, J. Feng. "Can we beat the prefix filtering? An adaptive framework for
   similarity join and search." SIGMOD 2012 (prefixes that must share l features).
"""

from __future__ import annotations

import sys

import numpy as np
import scipy.sparse as sp
from numba import njit

from pathfinding._validation import check_float, check_int

__all__ = ["NearestRows", "candidate_pairs", "cosine_neighbours_allpairs", "cosine_neighbours_prefix"]

_KEEP_SLACK = 1e-12
"""A pair is kept when its cosine is at least ``tau - _KEEP_SLACK`` (both implementations)."""
_BOUND_SLACK = 1e-9
"""Extra room in the pruning bound for rounding in the norms (the bound must never cut a true pair)."""


def _check(X, tau, max_neighbours, chunk):
    tau = check_float("tau", tau, low=-1.0, high=1.0)
    max_neighbours = check_int("max_neighbours", max_neighbours, low=1)
    chunk = check_int("chunk", chunk, low=1)
    return tau, max_neighbours, chunk


def _top_per_row(r, c, v, max_neighbours: int):
    """Keep each row's ``max_neighbours`` largest values, ties to the lower column id."""
    order = np.lexsort((c, -v, r))
    r, c, v = r[order], c[order], v[order]
    first = np.searchsorted(r, r, side="left")
    keep = (np.arange(r.size) - first) < max_neighbours
    return r[keep], c[keep], v[keep]


def _assemble(parts, n: int) -> sp.csr_array:
    if parts:
        r, c, v = (np.concatenate(x) for x in zip(*parts, strict=True))
    else:
        r, c, v = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return sp.csr_array((v, (r, c)), shape=(n, n))


def cosine_neighbours_allpairs(
    X, *, tau: float = 0.8, max_neighbours: int = 100, chunk: int = 2048
) -> sp.csr_array:
    """The reference: every pair's product, ``chunk`` rows at a time, then threshold and cap.

    Same contract as :func:`pathfinding.hipporag.index.cosine_neighbours`. Quadratic: use it to
    check :func:`cosine_neighbours_prefix`, and for dense ``X`` (a neural encoder's vectors).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])
    >>> cosine_neighbours_allpairs(X, tau=0.5).toarray()
    array([[0. , 0.8, 0. ],
           [0.8, 0. , 0.6],
           [0. , 0.6, 0. ]])
    """
    tau, max_neighbours, chunk = _check(X, tau, max_neighbours, chunk)
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
        parts.append(_top_per_row(r[keep].astype(np.int64) + start, c[keep].astype(np.int64), v[keep],
                                  max_neighbours))
    return _assemble(parts, n)


def _rarity_sorted(X: sp.csr_array):
    """Each row's (feature rank, value) with the rarest feature first; rank 0 is the rarest feature."""
    n, d = X.shape
    df = np.bincount(X.indices, minlength=d)
    rank = np.empty(d, dtype=np.int64)
    rank[np.lexsort((np.arange(d), df))] = np.arange(d)
    row = np.repeat(np.arange(n), np.diff(X.indptr))
    order = np.lexsort((rank[X.indices], row))
    return rank[X.indices][order], X.data[order], rank


@njit(cache=True)
def _prefix_lengths(indptr, data, b2):  # pragma: no cover - compiled
    """Per row (entries rarest first), the shortest prefix q after which a pair sharing fewer than
    l prefix features cannot reach the bound: ``tail^2 + (l - 1 largest prefix entries)^2 < b2``,
    for l = 1, 2, 3 (columns); -1 where no q works."""
    n = indptr.size - 1
    out = np.full((n, 3), -1, dtype=np.int64)
    for i in range(n):
        lo, hi = indptr[i], indptr[i + 1]
        tail = 0.0
        for k in range(lo, hi):
            tail += data[k] * data[k]
        top1 = 0.0
        top2 = 0.0
        for q in range(1, hi - lo + 1):
            v = data[lo + q - 1] * data[lo + q - 1]
            tail -= v
            if v > top1:
                top2 = top1
                top1 = v
            elif v > top2:
                top2 = v
            if out[i, 0] < 0 and tail < b2:
                out[i, 0] = q
            if out[i, 1] < 0 and tail + top1 < b2:
                out[i, 1] = q
            if tail + top1 + top2 < b2:
                out[i, 2] = q
                break
    return out


@njit(cache=True)
def _signatures(indptr, ranks, lengths, n_rank, ell):  # pragma: no cover - compiled
    """(key, row) for every set of ``ell`` (2 or 3) entries of a row's prefix of ``lengths[i]``
    entries; the key encodes the feature ranks in base ``n_rank``."""
    count = 0
    for i in range(lengths.size):
        L = lengths[i]
        if L >= ell:
            count += L * (L - 1) // 2 if ell == 2 else L * (L - 1) * (L - 2) // 6
    keys = np.empty(count, dtype=np.int64)
    rows = np.empty(count, dtype=np.int64)
    t = 0
    for i in range(lengths.size):
        lo = indptr[i]
        L = lengths[i]
        for a in range(L):
            for b in range(a + 1, L):
                if ell == 2:
                    keys[t] = ranks[lo + a] * n_rank + ranks[lo + b]
                    rows[t] = i
                    t += 1
                else:
                    for c in range(b + 1, L):
                        keys[t] = (ranks[lo + a] * n_rank + ranks[lo + b]) * n_rank + ranks[lo + c]
                        rows[t] = i
                        t += 1
    return keys, rows


@njit(cache=True)
def _group_pairs(keys, rows, n, needed):  # pragma: no cover - compiled
    """Codes ``i * n + j`` (i < j) of the row pairs that share a key and of which at least one row
    has ``needed`` set; ``keys`` sorted, rows ascending within a key. A pair sharing several keys
    appears several times."""
    m = keys.size
    out = np.empty(0, dtype=np.int64)
    for sweep in range(2):
        t = 0
        s = 0
        while s < m:
            e = s + 1
            while e < m and keys[e] == keys[s]:
                e += 1
            for p in range(s, e):
                for q in range(p + 1, e):
                    if needed[rows[p]] or needed[rows[q]]:
                        if sweep == 1:
                            out[t] = rows[p] * n + rows[q]
                        t += 1
            s = e
        if sweep == 0:
            out = np.empty(t, dtype=np.int64)
    return out


@njit(cache=True)
def _pair_dots(indptr, indices, data, rows, cols):  # pragma: no cover - compiled
    """Exact dot of rows[k] and cols[k] of a CSR matrix with sorted indices.

    Shared features are summed in ascending feature order, the order scipy's sparse product uses, so
    the values equal the all-pairs product's up to a fused multiply-add (one ulp).
    """
    out = np.empty(rows.size)
    for k in range(rows.size):
        a, a_end = indptr[rows[k]], indptr[rows[k] + 1]
        b, b_end = indptr[cols[k]], indptr[cols[k] + 1]
        acc = 0.0
        while a < a_end and b < b_end:
            ia, ib = indices[a], indices[b]
            if ia == ib:
                acc += data[a] * data[b]
                a += 1
                b += 1
            elif ia < ib:
                a += 1
            else:
                b += 1
        out[k] = acc
    return out


def _distinct(codes: np.ndarray) -> np.ndarray:
    # Sort-based: numpy 2.4's np.unique on tens of millions of int64 took 100x longer here.
    codes = np.sort(codes)
    return codes[np.r_[True, codes[1:] != codes[:-1]]] if codes.size else codes


def _candidate_chunks(X: sp.csr_array, bound: float, budget: int):
    """Yield arrays of codes ``i * n + j`` (i < j), about ``budget`` at a time, that together hold
    every pair that can reach cosine ``bound``. A pair may appear in several chunks; each chunk is
    distinct. Chunking bounds memory: a pair that shares several signatures is emitted once per
    signature before de-duplication."""
    n, d = X.shape
    ranks, vals, rank = _rarity_sorted(X)
    lengths = _prefix_lengths(X.indptr, vals, bound * bound)
    one, two, three = lengths.T
    one = np.maximum(one, 0)  # an all-zero row has no prefix and no pair
    # Rows that meet the three-feature condition join on triples of prefix features; a pair where
    # either row meets only the two-feature one joins on pairs (that row against every row's pairs).
    # Keys are feature-rank triples in base d; a vocabulary too large for int64 keys uses pairs only.
    ell3 = (three >= 0) & (float(d) ** 3 < 2.0**62)
    only2 = (~ell3) & (two >= 0)
    for ell, lens, needed in ((3, np.where(ell3, three, 0), ell3), (2, np.where(two >= 0, two, 0), only2)):
        if not needed.any():
            continue
        keys, rows = _signatures(X.indptr, ranks, lens, d, ell)
        order = np.argsort(keys, kind="stable")
        keys, rows = keys[order], rows[order]
        del order
        if not keys.size:
            continue
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        size = np.diff(np.r_[starts, keys.size])
        load = np.cumsum(size * (size - 1) // 2)
        # Cut after the group where the running pair count passes each multiple of the budget.
        after = np.searchsorted(load, np.arange(budget, load[-1], budget), side="left") + 1
        bounds = _distinct(np.r_[0, starts[after[after < starts.size]], keys.size])
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
            yield _distinct(_group_pairs(keys[lo:hi], rows[lo:hi], n, needed))
        del keys, rows
    short = np.flatnonzero(two < 0)
    if short.size:
        # One-feature route: a short row's prefix features against every row's features.
        starts = X.indptr[short]
        take = np.concatenate([np.arange(s, s + q) for s, q in zip(starts, one[short], strict=True)])
        rank_to_feature = np.empty(d, dtype=np.int64)
        rank_to_feature[rank] = np.arange(d)
        pre = sp.csr_array(
            (vals[take], rank_to_feature[ranks[take]], np.r_[0, np.cumsum(one[short])]),
            shape=(short.size, d),
        )
        C = sp.coo_array(pre @ sp.csr_array(X.T))
        a, b = short[C.row], C.col.astype(np.int64)
        keep = a != b
        a, b = a[keep], b[keep]
        yield _distinct(np.minimum(a, b) * n + np.maximum(a, b))


def candidate_pairs(X: sp.csr_array, bound: float) -> np.ndarray:
    """Codes ``i * n + j`` (i < j) of every pair that can reach cosine ``bound`` (a superset, exact).

    Parameters
    ----------
    X : scipy.sparse.csr_array, shape (n, d)
        Unit rows, sorted unique indices.
    bound : float
        Positive threshold (already lowered by the caller's slack).

    Returns
    -------
    numpy.ndarray of int64
        Sorted, distinct.
    """
    chunks = list(_candidate_chunks(X, bound, 2**62))
    return _distinct(np.concatenate(chunks)) if chunks else np.zeros(0, dtype=np.int64)


def cosine_neighbours_prefix(
    X, *, tau: float = 0.8, max_neighbours: int = 100, chunk: int = 2048, budget: int = 20_000_000,
    progress=None,
) -> sp.csr_array:
    """Pairs of unit rows with cosine at least ``tau``, found by prefix filtering (exact).

    Same contract and same result as :func:`cosine_neighbours_allpairs` for sparse ``X``. A dense
    ``X`` (a neural encoder's vectors), or ``tau`` at or below 0, is handed to the reference.

    Parameters
    ----------
    X : sparse matrix, shape (n, d)
        Unit rows.
    tau : float, default 0.8
    max_neighbours : int, default 100
    chunk : int, default 2048
        Used only when handing over to the reference.
    budget : int, default 20,000,000
        Candidate pairs generated (and checked) at a time: about 16 bytes each of peak memory.
    progress : bool or None, default None
        tqdm bar on stderr over the steps; None shows it only on a terminal.

    Returns
    -------
    scipy.sparse.csr_array, shape (n, n)

    Examples
    --------
    >>> X = sp.csr_array(np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    >>> cosine_neighbours_prefix(X, tau=0.5).toarray()
    array([[0. , 0.8, 0. ],
           [0.8, 0. , 0.6],
           [0. , 0.6, 0. ]])
    """
    tau, max_neighbours, chunk = _check(X, tau, max_neighbours, chunk)
    budget = check_int("budget", budget, low=1)
    bound = tau - _KEEP_SLACK - _BOUND_SLACK
    if not sp.issparse(X) or bound <= 0:
        return cosine_neighbours_allpairs(X, tau=tau, max_neighbours=max_neighbours, chunk=chunk)
    from tqdm.auto import tqdm

    X = sp.csr_array(X, dtype=np.float64, copy=True)
    X.sum_duplicates()  # sorted, unique indices: _pair_dots merges them
    n = X.shape[0]
    found = []
    chunks = _candidate_chunks(X, bound, budget)
    for codes in tqdm(chunks, desc="index: synonymy candidates", unit="chunk", file=sys.stderr,
                      leave=False, disable=None if progress is None else not progress):
        a, b = codes // n, codes % n
        del codes
        v = _pair_dots(X.indptr, X.indices, X.data, a, b)
        keep = v >= tau - _KEEP_SLACK
        found.append(a[keep] * n + b[keep])
        del a, b, v
    codes = _distinct(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)
    a, b = codes // n, codes % n
    v = _pair_dots(X.indptr, X.indices, X.data, a, b)
    # The dot is symmetric (same products in the same order), so each pair is computed once.
    r, c, v = _top_per_row(np.r_[a, b], np.r_[b, a], np.r_[v, v], max_neighbours)
    return _assemble([(r, c, v)], n)


@njit(cache=True)
def _row_dots(indptr, indices, data, q_idx, q_val, rows):  # pragma: no cover - compiled
    """Dot of one sorted sparse vector with the given CSR rows, summed in ascending feature order."""
    out = np.empty(rows.size)
    for k in range(rows.size):
        a, a_end = indptr[rows[k]], indptr[rows[k] + 1]
        b = 0
        acc = 0.0
        while a < a_end and b < q_idx.size:
            if indices[a] == q_idx[b]:
                acc += data[a] * q_val[b]
                a += 1
                b += 1
            elif indices[a] < q_idx[b]:
                a += 1
            else:
                b += 1
        out[k] = acc
    return out


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
        X = sp.csr_array(X, dtype=np.float64, copy=True)
        X.sum_duplicates()
        self._X = X
        self._postings = sp.csr_array(X.T)
        self._df = np.diff(self._postings.indptr)

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
                v = _row_dots(self._X.indptr, self._X.indices, self._X.data, qi, qv, new)
                r = np.r_[best_r, new]
                v = np.r_[best_v, v]
                keep = v > 0
                r, v = r[keep], v[keep]
                top = np.lexsort((r, -v))[:k]
                best_r, best_v = r[top], v[top]
            if best_r.size == k and best_v[-1] > tail[m] + _BOUND_SLACK:
                break
        return best_r, best_v
