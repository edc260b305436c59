"""Step 5: node specificity s_i = 1/|P_i| and the specificity-weighted restart vector.

HippoRAG down-weights query nodes that appear in many passages (hubs such as "United States") before
the walk starts: each seed's restart probability is multiplied by s_i = 1/|P_i|, where |P_i| is the
number of passages node i was extracted from, and the vector is renormalised. Unlike a corpus-level
IDF, s_i depends only on node i's own passages, so adding a passage changes s_i only for the nodes it
mentions.

:func:`restart_vector` is the one rule that turns seed ids into a restart vector;
:func:`restart_matrix` reads every restart argument the PPR solvers accept and calls it for seed ids.
"""

from __future__ import annotations

import numpy as np

from pathfinding._validation import as_csr, check_int, check_node_ids, check_vector
from pathfinding.errors import InvalidTypeError, InvalidValueError

__all__ = [
    "node_specificity",
    "passage_counts",
    "restart_column",
    "restart_entries",
    "restart_matrix",
    "restart_vector",
    "specificity_from_counts",
]


def passage_counts(mentions) -> np.ndarray:
    """|P_i|: the number of passages in which node i has a non-zero count.

    Parameters
    ----------
    mentions : sparse matrix or array_like, shape (n_nodes, n_passages)
        The node x passage count matrix P.

    Returns
    -------
    numpy.ndarray of int64, shape (n_nodes,)

    Examples
    --------
    >>> import numpy as np
    >>> passage_counts(np.array([[2, 1, 0], [0, 0, 0], [0, 1, 1]]))
    array([2, 0, 2])
    """
    P = as_csr("mentions", mentions)
    return np.diff(P.indptr).astype(np.int64)


def node_specificity(mentions) -> np.ndarray:
    """Node specificity s_i = 1/|P_i|.

    Parameters
    ----------
    mentions : sparse matrix or array_like, shape (n_nodes, n_passages)
        The node x passage count matrix P. Only whether a count is non-zero matters: a node
        mentioned three times in one passage has |P_i| = 1.

    Returns
    -------
    numpy.ndarray of float64, shape (n_nodes,)
        ``1 / |P_i|``. A node found in no passage gets ``1.0``, as if found in one: such a node (added
        by hand, say) is maximally specific, and dropping its weight to zero would silently remove a
        seed the user asked for.

    See Also
    --------
    restart_vector : applies s_i to the seeds' restart probabilities.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[1, 1, 1, 1], [0, 1, 0, 0], [0, 0, 0, 0]])
    >>> node_specificity(P)
    array([0.25, 1.  , 1.  ])
    """
    return specificity_from_counts(passage_counts(mentions))


def specificity_from_counts(counts) -> np.ndarray:
    """s_i = 1/|P_i| from the passage counts |P_i|; a count of 0 gives 1.0 (see :func:`node_specificity`).

    The one place the rule lives, so an index that keeps |P_i| up to date passage by passage
    (:class:`pathfinding.core.incremental.SpecificityIndex`) weights nodes exactly as a rebuild does.

    Examples
    --------
    >>> specificity_from_counts([4, 0, 1])
    array([0.25, 1.  , 1.  ])
    """
    counts = np.asarray(counts)
    if counts.size and counts.min() < 0:
        raise InvalidValueError(f"passage counts must be non-negative, found {counts.min()}")
    return 1.0 / np.maximum(counts, 1)


def restart_vector(n_nodes: int, seeds, *, specificity=None) -> np.ndarray:
    """The restart (personalisation) vector over the seeds, optionally weighted by specificity.

    Every listed seed gets the same raw weight (a seed listed twice gets twice the weight); with
    ``specificity`` each weight is multiplied by ``specificity[seed]``; the vector is then
    renormalised to sum 1.

    Parameters
    ----------
    n_nodes : int
        Length of the vector.
    seeds : array_like of int
        The query nodes R_q (at least one).
    specificity : array_like of float, shape (n_nodes,), optional
        Non-negative per-node weights, typically :func:`node_specificity`.

    Returns
    -------
    numpy.ndarray of float64, shape (n_nodes,)
        Non-negative, sums to 1, zero outside the seeds.

    Raises
    ------
    ValueError
        If a seed is out of range, ``specificity`` has the wrong shape or a negative entry, or the
        seeds' weights sum to zero.

    Examples
    --------
    The chapter's worked example: seeds found in 20 and 5 passages, raw restart 0.5/0.5.

    >>> import numpy as np
    >>> s = np.array([1 / 20, 1 / 5])
    >>> restart_vector(2, [0, 1])
    array([0.5, 0.5])
    >>> restart_vector(2, [0, 1], specificity=s)
    array([0.2, 0.8])
    """
    n_nodes = check_int("n_nodes", n_nodes, low=1)
    seeds = check_node_ids("seeds", seeds, n_nodes)
    raw = np.bincount(seeds, minlength=n_nodes).astype(np.float64)
    if specificity is not None:
        spec = check_vector("specificity", specificity, n_nodes)
        if np.any(spec < 0):
            raise InvalidValueError(f"specificity must be non-negative, found {spec.min()!r}")
        raw *= spec
    total = raw.sum()
    if not total > 0:
        raise InvalidValueError(f"the seeds {seeds.tolist()} have total specificity 0: nothing to restart to")
    return raw / total


def restart_column(restart, n: int) -> tuple[np.ndarray, float]:
    """One query's restart vector, checked but not yet scaled: ``(v, total)``, the restart being
    ``v / total``.

    The default retriever's walk at a million passages restarts from a float64 vector over 5.7
    million nodes, a few seeds and the passages BM25 scores (a median of 168,506):
    :func:`restart_matrix` scales all of it, while :func:`~pathfinding.core.ppr.ppr_top_k`'s
    forward push needs only ``v[support] / total``. A C-contiguous float64 vector is checked
    without a copy (its sum, finite only when every entry is, and its minimum) and returned as
    given; read it, never write it. Seed ids go through :func:`restart_vector` (total 1).

    Raises
    ------
    TypeError, ValueError
        As :func:`restart_matrix` for one query; also when a float vector's sum overflows.

    Examples
    --------
    >>> v, total = restart_column(np.array([2.0, 0.0, 6.0]), 3)
    >>> v / total
    array([0.25, 0.  , 0.75])
    """
    arr = np.asarray(restart)
    if arr.ndim != 1 or arr.size == 0 or np.issubdtype(arr.dtype, np.integer) or arr.dtype == bool:
        r, single = restart_matrix(arr, n)  # seed ids, and every error of the other forms
        if not single:
            raise InvalidValueError(f"one restart vector was expected, got a block of shape {arr.shape}")
        return r[:, 0], 1.0
    in_place = arr.dtype == np.float64 and arr.flags.c_contiguous and arr.shape[0] == n
    v = arr if in_place else check_vector("restart", arr, n)  # in place: the same sum as a copy's
    with np.errstate(over="ignore"):  # an overflow is refused below, with the value
        total = v.sum()
    if not np.isfinite(total):  # a NaN or an infinity (named here), or finite entries that overflow
        check_vector("restart", v, n)
        raise InvalidValueError(
            f"restart's total mass overflows float64 (every entry is finite): {float(total)!r}"
        )
    lowest = v.min()
    if lowest < 0:
        raise InvalidValueError(f"restart must be non-negative, found {float(lowest)!r}")
    if not total > 0:
        raise InvalidValueError("restart must have positive total mass, column 0 sums to 0")
    return v, float(total)


def restart_entries(restart, n: int) -> tuple[np.ndarray, np.ndarray, float]:
    """One query's restart given as a 1-D scipy sparse array, checked on its entries alone:
    ``(ids, values, total)``, ids ascending and distinct, values positive, the restart being
    ``values / total`` at ``ids`` and 0 elsewhere.

    A restart over millions of nodes that holds a few hundred thousand weights (the default
    retriever's, at a million passages) is checked, and its support found, without a pass over
    every node. Repeated ids are summed; stored zeros are dropped.

    Raises
    ------
    TypeError
        If the array is not 1-D sparse, or its values are not real numbers.
    ValueError
        If its length is not ``n``, a value is negative or not finite, or the total is not positive.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> ids, values, total = restart_entries(sp.coo_array(([2.0, 0.0, 6.0], ([4, 1, 0],)), shape=(5,)), 5)
    >>> ids.tolist(), (values / total).tolist()
    ([0, 4], [0.75, 0.25])
    """
    import scipy.sparse as sp

    if not sp.issparse(restart) or restart.ndim != 1:
        what = f"{restart.ndim}-D" if sp.issparse(restart) else type(restart).__name__
        raise InvalidTypeError(f"a sparse restart must be a 1-D scipy sparse array, got {what}")
    if restart.shape != (n,):
        raise InvalidValueError(f"restart must have shape ({n},), got {restart.shape}")
    C = sp.coo_array(restart)
    ids, values = C.coords[0].astype(np.int64), C.data
    if values.dtype == bool or not np.issubdtype(values.dtype, np.number) or np.iscomplexobj(values):
        raise InvalidTypeError(f"restart must be real-valued, got dtype {values.dtype}")
    values = check_vector("restart", values)  # finite, float64
    if values.size and values.min() < 0:
        raise InvalidValueError(f"restart must be non-negative, found {float(values.min())!r}")
    if ids.size > 1 and not np.all(ids[1:] > ids[:-1]):  # not canonical: sorted, repeats summed
        ids, at = np.unique(ids, return_inverse=True)
        values = np.bincount(at, weights=values, minlength=ids.size)
    keep = values != 0
    ids, values = ids[keep], values[keep]
    with np.errstate(over="ignore"):
        total = values.sum()
    if not np.isfinite(total):
        raise InvalidValueError(
            f"restart's total mass overflows float64 (every entry is finite): {float(total)!r}"
        )
    if not total > 0:
        raise InvalidValueError("restart must have positive total mass, its entries sum to 0")
    return ids, values, float(total)


def restart_matrix(restart, n: int) -> tuple[np.ndarray, bool]:
    """Any restart argument of the PPR solvers as an (n, b) column-stochastic float64 array.

    Seed ids go through :func:`restart_vector` (the one rule for them); a 1-D float vector or an
    (n, b) block of weights (any dtype) is checked and each column scaled to sum 1.

    Parameters
    ----------
    restart : array_like
        1-D integer seed ids, a length-n vector of weights, or an (n, b) block of weight vectors.
    n : int
        Number of nodes.

    Returns
    -------
    r : numpy.ndarray of float64, shape (n, b)
        C-contiguous, non-negative, every column summing to 1.
    single : bool
        True when ``restart`` was one query (seed ids or a vector): b == 1.

    Raises
    ------
    TypeError, ValueError
        A boolean array, an empty one, a wrong shape, a negative or non-finite weight, seed ids out
        of range, or a column whose weights sum to 0.

    Examples
    --------
    >>> r, single = restart_matrix([2.0, 0.0, 6.0], 3)
    >>> r[:, 0], single
    (array([0.25, 0.  , 0.75]), True)
    """
    arr = np.asarray(restart)
    if arr.size == 0:
        raise InvalidValueError(
            "restart must hold at least one seed id or be a length-n vector, got an "
            f"empty array of shape {arr.shape}"
        )
    if arr.ndim == 1 and (np.issubdtype(arr.dtype, np.integer) or arr.dtype == bool):
        if arr.dtype == bool:
            raise InvalidTypeError(
                "restart must be seed ids (integers) or a probability vector (floats), got a boolean array"
            )
        return restart_vector(n, arr)[:, None], True
    if arr.ndim == 1:
        v, total = restart_column(arr, n)
        return (v / total)[:, None], True  # 1-D reductions and division, no (n, 1) temporaries
    if arr.ndim != 2:
        raise InvalidValueError(f"restart must be 1-D or 2-D, got shape {arr.shape}")
    if arr.shape[0] != n or arr.shape[1] == 0:
        raise InvalidValueError(f"a block of restart vectors must have shape ({n}, b), got {arr.shape}")
    r = np.array([check_vector(f"restart[:, {c}]", arr[:, c], n) for c in range(arr.shape[1])]).T
    if np.any(r < 0):
        raise InvalidValueError(f"restart must be non-negative, found {r.min()!r}")
    totals = r.sum(axis=0)
    if np.any(totals <= 0):
        raise InvalidValueError(
            f"restart must have positive total mass, column {int(np.argmin(totals))} sums to 0"
        )
    return np.ascontiguousarray(r / totals), False
