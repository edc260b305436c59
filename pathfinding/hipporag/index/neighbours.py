"""Synonymy neighbours without the all-pairs product: prefix filtering, exact or bounded per node.

The synonymy step needs every pair of node vectors whose cosine is at least ``tau``. The all-pairs
product ``X @ X.T`` (:func:`cosine_neighbours_allpairs`, kept as the readable reference) costs the
sum over n-grams of their document frequency squared, which grows quadratically with the nodes
(character trigrams such as " th" occur in a sizeable share of all phrases).
:func:`cosine_neighbours_prefix` returns the same pairs, values included, after far less work: it
compares only rows that share enough of their rarest features (prefix, count and positional
filters [1]_ [2]_ [3]_; the proof is in its Notes), on threads, with a result that does not depend
on their number. Nothing is approximated: approximate nearest-neighbour libraries answer "k
nearest", not "all within tau", and ``sparse_dot_topn`` computes the whole product before it
thresholds. :func:`candidate_pairs` counts the work each filter leaves.

The exact search still costs what its posting lists hold, and these grow with the phrases. The
build therefore uses :func:`cosine_neighbours_topk`, the step as HippoRAG bounds it (each node keeps
its k nearest above tau, as v1's and HippoRAG 2's code keep at most 101), with the search bounded
too: a node scans at most ``budget`` posting entries, so the work is linear in the nodes; where its
lists fit the budget, its k nearest are the exact ones. The reference and the edge rule are in
:mod:`~pathfinding.hipporag.index.synonymy`.

References
----------
.. [1] R. J. Bayardo, Y. Ma, R. Srikant. "Scaling up all pairs similarity search." WWW 2007.
.. [2] C. Xiao, W. Wang, X. Lin, J. X. Yu. "Efficient similarity joins for near duplicate
   detection." WWW 2008 (prefix and positional filtering, PPJoin).
.. [3] J. Wang, G. Li, J. Feng. "Can we beat the prefix filtering? An adaptive framework for
   similarity join and search." SIGMOD 2012 (prefixes that must share l features).
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
import scipy.sparse as sp
from numba import njit

from pathfinding._validation import check_int
from pathfinding.hipporag.index.nearest import BOUND_SLACK as _BOUND_SLACK
from pathfinding.hipporag.index.nearest import KEEP_SLACK as _KEEP_SLACK
from pathfinding.hipporag.index.synonymy import (
    assemble_pairs,
    check_search,
    cosine_neighbours_allpairs,
    top_per_row,
)

__all__ = [
    "candidate_pairs",
    "cosine_neighbours_prefix",
    "cosine_neighbours_topk",
]

_INLINE = 8
"""Prefix features stored inline per posting entry (a longer rest is read from the row)."""


def _rarity_sorted(X: sp.csr_array):
    """Each row's (feature rank, value) with the rarest feature first; rank 0 is the rarest feature."""
    n, d = X.shape
    df = np.bincount(X.indices, minlength=d)
    rank = np.empty(d, dtype=np.int32)
    rank[np.lexsort((np.arange(d), df))] = np.arange(d, dtype=np.int32)
    ranks, vals = rank[X.indices], X.data.copy()
    _sort_rows(X.indptr, ranks, vals)
    return ranks, vals, rank


@njit(cache=True)
def _sort_rows(indptr, keys, vals):  # pragma: no cover - compiled
    """Sort each row's entries by key in place (insertion sort: rows hold a few dozen entries)."""
    for i in range(indptr.size - 1):
        for k in range(indptr[i] + 1, indptr[i + 1]):
            key, val = keys[k], vals[k]
            j = k - 1
            while j >= indptr[i] and keys[j] > key:
                keys[j + 1] = keys[j]
                vals[j + 1] = vals[j]
                j -= 1
            keys[j + 1] = key
            vals[j + 1] = val


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
def _norms_after(indptr, data, plen, qptr):  # pragma: no cover - compiled
    """Per prefix entry (row i's first ``plen[i]``, stored from ``qptr[i]``), the norm of the entries
    after it in its row, summed from the row's end."""
    out = np.empty(qptr[-1])
    for i in range(indptr.size - 1):
        acc = 0.0
        for k in range(indptr[i + 1] - 1, indptr[i] - 1, -1):
            if k < indptr[i] + plen[i]:
                out[qptr[i] + k - indptr[i]] = np.sqrt(acc)
            acc += data[k] * data[k]
    return out


@njit(cache=True, nogil=True)
def _grow(arr, cap):  # pragma: no cover - compiled
    out = np.empty(cap, dtype=arr.dtype)
    out[: arr.size] = arr
    return out


@njit(cache=True, nogil=True)
def _dot(dense, Xp, Xi, Xd, y):  # pragma: no cover - compiled
    """Row y of X against the row spread into ``dense``, summed in y's ascending feature order."""
    acc = 0.0
    for j in range(Xp[y], Xp[y + 1]):
        w = dense[Xi[j]]
        if w != 0.0:
            acc += w * Xd[j]
    return acc


@njit(cache=True, nogil=True)
def _join_rows(x_lo, x_hi, indptr, ranks, vals, after, one, plen, level, pptr, prow, ppos, pval,
               pafter, pleft, plevel, pranks, Xp, Xi, Xd, bound, keep):  # pragma: no cover - compiled
    """Pairs (x, y), x in [x_lo, x_hi) and y > x, that pass the filters and whose dot is >= ``keep``.

    Row x's prefix: ``ranks``, ``vals`` and ``after`` from ``indptr[x]`` on, ``plen[x]`` entries.
    Posting list of feature f: ``prow[pptr[f]:pptr[f + 1]]``, rows ascending, for the entries in a
    one-feature prefix; per entry its position ``ppos`` in the prefixes' arrays, value ``pval``, norm
    after it ``pafter``, the row's level ``plevel``, the count ``pleft`` of the row's prefix entries
    after it and the first ``_INLINE`` of those (from this entry on) in ``pranks``.
    """
    n = plen.size
    seen = np.zeros(n, dtype=np.uint8)
    touched = np.empty(n, dtype=np.int64)
    cand = np.empty(n, dtype=np.int64)
    mark = np.zeros(pptr.size - 1, dtype=np.uint8)
    inline = pranks.shape[1]
    dense = np.zeros(pptr.size - 1)
    cap = 1024
    out_a, out_b, out_v = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64), np.empty(cap)
    m = 0
    for x in range(x_lo, x_hi):
        lo = indptr[x]
        end = lo + plen[x]
        lx = level[x]
        for k in range(lo, end):
            mark[ranks[k]] = 1
        nt = nc = 0
        for k in range(lo, lo + one[x]):
            f = ranks[k]
            a, b = pptr[f], pptr[f + 1]
            s = a + np.searchsorted(prow[a:b], x, side="right")
            xv, xa = vals[k], after[k]
            for t in range(s, b):
                y = prow[t]
                if seen[y]:
                    continue
                seen[y] = 1
                touched[nt] = y
                nt += 1
                # The positional filter, then the count filter (written out in each kernel: a function
                # called per entry increfs its arrays, and took half the search's time).
                if xv * pval[t] + xa * pafter[t] < bound:
                    continue
                need = min(lx, plevel[t])
                if need > 1:
                    c = 0
                    if pleft[t] < inline:
                        for j in range(pleft[t] + 1):
                            c += mark[pranks[t, j]]
                    else:
                        for j in range(ppos[t], ppos[t] + pleft[t] + 1):
                            c += mark[ranks[j]]
                    if c < need:
                        continue
                cand[nc] = y
                nc += 1
        for i in range(nt):
            seen[touched[i]] = 0
        for k in range(lo, end):
            mark[ranks[k]] = 0
        if nc == 0:
            continue
        for j in range(Xp[x], Xp[x + 1]):
            dense[Xi[j]] = Xd[j]
        for i in range(nc):
            y = cand[i]
            acc = _dot(dense, Xp, Xi, Xd, y)
            if acc >= keep:
                if m == cap:
                    cap *= 2
                    out_a, out_b, out_v = _grow(out_a, cap), _grow(out_b, cap), _grow(out_v, cap)
                out_a[m] = x
                out_b[m] = y
                out_v[m] = acc
                m += 1
        for j in range(Xp[x], Xp[x + 1]):
            dense[Xi[j]] = 0.0
    return out_a[:m].copy(), out_b[:m].copy(), out_v[:m].copy()


@njit(cache=True, nogil=True)
def _topk_rows(x_lo, x_hi, indptr, ranks, vals, after, one, plen, level, pptr, prow, ppos, pval, pafter,
               pleft, plevel, pranks, Xp, Xi, Xd, bound, keep, k, budget):  # pragma: no cover - compiled
    """Each row x in [x_lo, x_hi): its ``k`` best rows y != x with dot >= ``keep``, among the rows
    met in at most ``budget`` posting entries (all of x's lists when they hold no more).

    The lists of x's one-feature prefix are scanned rarest first, in both directions (y < x too), with
    the filters of :func:`_join_rows`; a list longer than the budget left is scanned only in the
    window of that many entries nearest x's own id. A row whose list was cut may meet a partner first
    at a feature that is not their first shared one, where the filters' bound is not a bound: such a
    pair may be missed, never invented (every pair kept has its exact dot).
    Returns (x, y, dot) triples, each row's best first, and per row whether its scan was cut.
    """
    n = plen.size
    seen = np.zeros(n, dtype=np.uint8)
    room = max(min(budget, n), 1)
    touched = np.empty(room, dtype=np.int64)
    cand = np.empty(room, dtype=np.int64)
    cval = np.empty(room)
    mark = np.zeros(pptr.size - 1, dtype=np.uint8)
    inline = pranks.shape[1]
    dense = np.zeros(pptr.size - 1)
    cut = np.zeros(x_hi - x_lo, dtype=np.uint8)
    cap = 1024
    out_a, out_b, out_v = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64), np.empty(cap)
    m = 0
    for x in range(x_lo, x_hi):
        lo = indptr[x]
        end = lo + plen[x]
        lx = level[x]
        for kk in range(lo, end):
            mark[ranks[kk]] = 1
        nt = nc = 0
        left = budget
        exact = True
        for kk in range(lo, lo + one[x]):
            if left <= 0:
                exact = False
                break
            f = ranks[kk]
            a, b = pptr[f], pptr[f + 1]
            if b - a > left:
                exact = False
                s = a + np.searchsorted(prow[a:b], x)
                a = max(a, s - left // 2)
                b = min(b, a + left)
                a = max(pptr[f], b - left)
            left -= b - a
            xv, xa = vals[kk], after[kk]
            for t in range(a, b):
                y = prow[t]
                if y == x or seen[y]:
                    continue
                seen[y] = 1
                touched[nt] = y
                nt += 1
                # The positional and count filters, as in _join_rows.
                if xv * pval[t] + xa * pafter[t] < bound:
                    continue
                need = min(lx, plevel[t])
                if need > 1:
                    c = 0
                    if pleft[t] < inline:
                        for j in range(pleft[t] + 1):
                            c += mark[pranks[t, j]]
                    else:
                        for j in range(ppos[t], ppos[t] + pleft[t] + 1):
                            c += mark[ranks[j]]
                    if c < need:
                        continue
                cand[nc] = y
                nc += 1
        for i in range(nt):
            seen[touched[i]] = 0
        for kk in range(lo, end):
            mark[ranks[kk]] = 0
        cut[x - x_lo] = not exact
        if nc == 0:
            continue
        for j in range(Xp[x], Xp[x + 1]):
            dense[Xi[j]] = Xd[j]
        nk = 0
        for i in range(nc):
            y = cand[i]
            acc = _dot(dense, Xp, Xi, Xd, y)
            if acc >= keep:
                cand[nk] = y
                cval[nk] = acc
                nk += 1
        for j in range(Xp[x], Xp[x + 1]):
            dense[Xi[j]] = 0.0
        if nk == 0:
            continue
        # best first, ties to the lower id: order by id, then a stable sort by -dot
        o = np.argsort(cand[:nk])
        ids, vs = cand[:nk][o], cval[:nk][o]
        o = np.argsort(-vs, kind="mergesort")[:k]
        if m + o.size > cap:
            while m + o.size > cap:
                cap *= 2
            out_a, out_b, out_v = _grow(out_a, cap), _grow(out_b, cap), _grow(out_v, cap)
        for i in range(o.size):
            out_a[m] = x
            out_b[m] = ids[o[i]]
            out_v[m] = vs[o[i]]
            m += 1
    return out_a[:m].copy(), out_b[:m].copy(), out_v[:m].copy(), cut


def _default_threads() -> int:
    return int(numba.config.NUMBA_NUM_THREADS)


def _postings(X: sp.csr_array, bound: float, rows=None) -> tuple:
    """Each row's prefix (rarest feature first), the one-feature prefixes' posting lists and, per entry,
    what the filters need (:func:`_join_rows`). ``X``: sorted unique indices. Only ``rows`` (a bool mask;
    default all) get a prefix: the others are neither searched nor found."""
    n, d = X.shape
    ranks, vals, _ = _rarity_sorted(X)
    lengths = _prefix_lengths(X.indptr, vals, bound * bound)
    one, two, three = lengths.T
    # The level of a row: how many prefix features a pair must share (3 if the row meets the
    # three-feature condition, else 2, else 1); its prefix is the one of that level.
    level = np.where(three >= 0, 3, np.where(two >= 0, 2, 1)).astype(np.uint8)
    plen = np.where(three >= 0, three, np.where(two >= 0, two, np.maximum(one, 0)))
    one = np.maximum(one, 0)  # an all-zero row has no prefix and no pair
    if rows is not None:
        one[~rows] = 0
        plen[~rows] = 0
    # Only the prefixes are kept (row i's first plen[i] entries, from qptr[i]): 2.5 GB less at 1M passages.
    qptr = np.r_[0, np.cumsum(plen)].astype(np.int64)
    after = _norms_after(X.indptr, vals, plen, qptr)
    take = np.repeat(X.indptr[:-1].astype(np.int64) - qptr[:-1], plen) + np.arange(qptr[-1], dtype=np.int64)
    ranks, vals = ranks[take], vals[take]
    del take
    # The one-feature prefix entries, row by row (positions in the kept prefixes).
    row = np.repeat(np.arange(n, dtype=np.int32), one)
    inside = np.repeat(qptr[:-1], one) + (
        np.arange(row.size, dtype=np.int64) - np.repeat(np.cumsum(one) - one, one))
    by_feature = np.argsort(ranks[inside], kind="stable")  # by feature, rows ascending within
    inside, row = inside[by_feature], row[by_feature]
    del by_feature
    pptr = np.r_[0, np.cumsum(np.bincount(ranks[inside], minlength=d))].astype(np.int64)
    prow = row
    # Per posting entry, the row's level and the entries left in its prefix after this one.
    pleft = (plen[row] - 1 - (inside - qptr[row])).astype(np.int32)
    plevel = level[row]
    # The same rows' prefix features from this entry on, inline, so the count reads them in order.
    pranks = np.full((inside.size, _INLINE), -1, dtype=np.int32)
    for j in range(_INLINE):
        ok = np.flatnonzero(pleft >= j)
        pranks[ok, j] = ranks[inside[ok] + j]
    return (qptr, ranks, vals, after, one.astype(np.int64), plen.astype(np.int64), level,
            pptr, prow, inside, vals[inside], after[inside], pleft, plevel, pranks,
            X.indptr.astype(np.int64), X.indices, X.data)


def _blocks(kernel, n: int, *, threads: int, progress, desc: str):
    """``kernel(lo, hi)`` over fixed ranges of rows (not one per thread, so the work units and their
    order do not depend on the thread count; early rows have the longest lists, so the ranges are
    many and small), on ``threads`` threads, with a tqdm bar on stderr."""
    from tqdm.auto import tqdm

    step = max(1, -(-n // 64))
    starts = range(0, n, step)
    bar = tqdm(total=len(starts), desc=desc, unit="block", file=sys.stderr, leave=False,
               disable=None if progress is None else not progress)

    def task(lo):
        out = kernel(lo, min(lo + step, n))
        bar.update()
        return out

    with bar:
        if threads == 1:
            return [task(lo) for lo in starts]
        pool = ThreadPoolExecutor(max_workers=threads)
        try:
            return list(pool.map(task, starts))
        finally:
            # On Ctrl-C the blocks not started are dropped; the running ones end within a block.
            pool.shutdown(wait=True, cancel_futures=True)


def _join(X: sp.csr_array, bound: float, keep: float, *, threads: int, progress=None):
    """(a, b, dot) of every pair a < b that passes the prefix filters with dot >= ``keep``, in
    ascending (a, then discovery) order whatever the thread count. ``X``: sorted unique indices."""
    args = (*_postings(X, bound), float(bound), float(keep))
    parts = _blocks(lambda lo, hi: _join_rows(lo, hi, *args), X.shape[0], threads=threads,
                    progress=progress, desc="index: synonymy pairs")
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return tuple(np.concatenate(x) for x in zip(*parts, strict=True))


def candidate_pairs(X: sp.csr_array, bound: float) -> np.ndarray:
    """Codes ``i * n + j`` (i < j) of every pair that passes the filters for cosine ``bound``.

    A superset of the pairs that reach ``bound`` (exact: none is missed); the pairs whose dot the
    search computes.

    Parameters
    ----------
    X : scipy.sparse.csr_array, shape (n, d)
        Unit rows.
    bound : float
        Positive threshold (already lowered by the caller's slack).

    Returns
    -------
    numpy.ndarray of int64
        Sorted, distinct.
    """
    X = sp.csr_array(X, dtype=np.float64, copy=True)
    X.sum_duplicates()
    a, b, _ = _join(X, bound, -np.inf, threads=1, progress=False)
    return np.sort(a * X.shape[0] + b)


def cosine_neighbours_prefix(
    X, *, tau: float = 0.8, max_neighbours: int = 100, chunk: int = 2048, threads: int | None = None,
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
    threads : int, optional
        Threads searching blocks of rows at once; default numba's thread count (the cores). The
        result is identical, bit for bit, for any count.
    progress : bool or None, default None
        tqdm bar on stderr over the blocks of rows; None shows it only on a terminal.

    Returns
    -------
    scipy.sparse.csr_array, shape (n, n)

    Notes
    -----
    Order the features from rarest to most common, and each row's entries in that order; a row's
    *prefix* is its first q entries, its *rest* the others. If ``||x_rest|| < tau``, Cauchy-Schwarz
    gives ``x . y <= x_pre . y + ||x_rest||``, so a pair that reaches ``tau`` shares a prefix
    feature of x. If moreover ``||x_rest||^2 + g^2 < tau^2`` for the largest prefix entry g (two
    largest: three features), such a pair shares two (three) features of both prefixes: a row's
    *level* is the largest count its prefix guarantees, and a pair must share
    ``min(level_x, level_y)`` prefix features (the count filter). With g the first feature x and y
    share, ``x . y <= x_g y_g + ||x after g|| ||y after g||`` (PPJoin's positional filter). Rows are
    indexed by their one-feature prefix; each row scans those posting lists, rarest first, applies
    both filters, and a surviving pair gets its exact cosine, summed in ascending feature order as
    the all-pairs product sums it.

    Examples
    --------
    >>> X = sp.csr_array(np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]))
    >>> cosine_neighbours_prefix(X, tau=0.5).toarray()
    array([[0. , 0.8, 0. ],
           [0.8, 0. , 0.6],
           [0. , 0.6, 0. ]])
    """
    tau, max_neighbours, chunk = check_search(tau, max_neighbours, chunk)
    threads = _default_threads() if threads is None else check_int("threads", threads, low=1)
    bound = tau - _KEEP_SLACK - _BOUND_SLACK
    if not sp.issparse(X) or bound <= 0:
        return cosine_neighbours_allpairs(X, tau=tau, max_neighbours=max_neighbours, chunk=chunk)
    X = sp.csr_array(X, dtype=np.float64, copy=True)
    X.sum_duplicates()  # sorted, unique indices: the dense check sums in ascending feature order
    n = X.shape[0]
    a, b, v = _join(X, bound, tau - _KEEP_SLACK, threads=threads, progress=progress)
    # The dot is symmetric (same products in the same order), so each pair is computed once.
    r, c, v = top_per_row(np.r_[a, b], np.r_[b, a], np.r_[v, v], max_neighbours)
    return assemble_pairs([(r, c, v)], n)


SEARCH_BUDGET = 1000
"""Posting entries one node's top-k search may scan (:func:`cosine_neighbours_topk`)."""


def cosine_neighbours_topk(
    X, *, tau: float = 0.8, k: int = 100, budget: int = SEARCH_BUDGET, threads: int | None = None,
    progress=None, return_cut: bool = False, rows=None,
):
    """Each row's ``k`` nearest rows with cosine at least ``tau``, after a search bounded per row.

    The synonymy step as HippoRAG bounds it (each node keeps its nearest neighbours above tau), with
    the search bounded as well: a row scans at most ``budget`` entries of the posting lists of its
    prefix features (rarest first), so the work grows linearly with the rows.

    Parameters
    ----------
    X : sparse matrix, shape (n, d)
        Unit rows. A dense ``X`` (a neural encoder's vectors) or ``tau`` at or below 0 is searched
        exactly by :func:`cosine_neighbours_allpairs`.
    tau : float, default 0.8
    k : int, default 100
        Neighbours kept per row, the best first (ties to the lower row id).
    budget : int, default SEARCH_BUDGET
        Posting entries a row may scan. A row whose lists hold no more is searched exactly.
    threads : int, optional
        As in :func:`cosine_neighbours_prefix`; the result does not depend on it.
    progress : bool or None, default None
        tqdm bar on stderr; None shows it only on a terminal.
    return_cut : bool, default False
        Also return, per row, whether the budget cut its search.
    rows : numpy.ndarray of bool, optional
        Only these rows are searched and found (the others stay empty), without a copy of ``X``.

    Returns
    -------
    scipy.sparse.csr_array, shape (n, n)
        Row x holds x's neighbours found (not symmetric). With ``return_cut``, also a bool array.

    Notes
    -----
    A list longer than the budget left is scanned only in the window of that many entries nearest
    the row's own id: rows are sorted phrases, so the window is a sorted neighbourhood [4]_. Such a
    list belongs to a feature shared by many phrases ("institute of technology"), where a node with
    more than k neighbours needs only k of them; a node with few neighbours is usually found from
    their side, whose rarer features give short lists. Where no row is cut, row x holds exactly the
    k best of x's pairs in :func:`cosine_neighbours_prefix` (same values, bit for bit).

    References
    ----------
    .. [4] M. A. Hernandez, S. J. Stolfo. "The merge/purge problem for large databases." SIGMOD 1995.

    Examples
    --------
    Four identical rows and one apart: with k = 2 each of the four keeps the two lowest others.

    >>> M = sp.csr_array(np.array([[1.0, 0.0]] * 4 + [[0.0, 1.0]]))
    >>> cosine_neighbours_topk(M, k=2).toarray().astype(int)
    array([[0, 1, 1, 0, 0],
           [1, 0, 1, 0, 0],
           [1, 1, 0, 0, 0],
           [1, 1, 0, 0, 0],
           [0, 0, 0, 0, 0]])
    """
    tau, k, _ = check_search(tau, k, 1)
    budget = check_int("budget", budget, low=1)
    threads = _default_threads() if threads is None else check_int("threads", threads, low=1)
    bound = tau - _KEEP_SLACK - _BOUND_SLACK
    n = X.shape[0]
    rows = None if rows is None else np.asarray(rows, dtype=bool)
    if not sp.issparse(X) or bound <= 0:
        where = np.arange(n) if rows is None else np.flatnonzero(rows)
        C = sp.coo_array(cosine_neighbours_allpairs(X[where], tau=tau, max_neighbours=k))
        S = sp.csr_array((C.data, (where[C.row], where[C.col])), shape=(n, n))
        return (S, np.zeros(n, dtype=bool)) if return_cut else S
    X = sp.csr_array(X, dtype=np.float64)
    if not X.has_canonical_format:  # a copy only when the caller's rows must be sorted or summed
        X = X.copy()
        X.sum_duplicates()
    args = (*_postings(X, bound, rows), float(bound), float(tau - _KEEP_SLACK), k, budget)
    parts = _blocks(lambda lo, hi: _topk_rows(lo, hi, *args), n, threads=threads, progress=progress,
                    desc="index: synonymy top-k")
    if parts:
        r, c, v, cut = (np.concatenate(x) for x in zip(*parts, strict=True))
    else:
        r, c, v, cut = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.uint8)
    S = assemble_pairs([(r, c, v)], n)
    return (S, cut.astype(bool)) if return_cut else S
