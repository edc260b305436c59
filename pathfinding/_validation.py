"""Input checks shared by the public functions.

Every check raises a ``TypeError`` or ``ValueError`` whose message names the parameter, the value
received and what was expected, so that bad input never reaches a numba kernel (where it would
surface as a typing traceback or, worse, as a silently wrong answer).
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from pathfinding.errors import InvalidTypeError, InvalidValueError


def check_int(name: str, value, *, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as a Python int after checking its type and range.

    Booleans are rejected even though ``bool`` subclasses ``int``: ``hops=True`` is a bug.
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise InvalidTypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "-inf" if low is None else str(low)
        hi = "inf" if high is None else str(high)
        raise InvalidValueError(f"{name} must be in [{lo}, {hi}], got {value}")
    return value


def check_float(
    name: str,
    value,
    *,
    low: float,
    high: float,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Return ``value`` as a finite float inside the given interval."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise InvalidTypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    value = float(value)
    below = value <= low if low_open else value < low
    above = value >= high if high_open else value > high
    if not np.isfinite(value) or below or above:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        raise InvalidValueError(f"{name} must be in {left}{low}, {high}{right}, got {value!r}")
    return value


def as_csr(name: str, matrix, *, square: bool = False) -> sp.csr_array:
    """Return ``matrix`` as a canonical float64 ``csr_array`` with finite, non-negative entries.

    Accepts any scipy sparse matrix/array or a 2-D array-like. Duplicate entries are summed and
    explicit zeros removed, so ``indices`` are sorted and unique, which the kernels rely on.
    """
    if (
        isinstance(matrix, sp.csr_array)
        and matrix.dtype == np.float64
        and matrix.has_canonical_format
        and (not square or matrix.shape[0] == matrix.shape[1])
        and np.all(matrix.data > 0)  # also False for NaN; +inf is caught below
        and np.all(np.isfinite(matrix.data))
    ):
        return matrix  # already canonical: no copy, and the caller's matrix is never modified
    if sp.issparse(matrix):
        out = sp.csr_array(matrix, dtype=np.float64, copy=True)
    else:
        arr = np.asarray(matrix)
        if arr.ndim != 2:
            raise InvalidValueError(f"{name} must be 2-D, got an array of shape {arr.shape}")
        if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
            raise InvalidTypeError(f"{name} must be numeric, got dtype {arr.dtype}")
        out = sp.csr_array(arr.astype(np.float64))
    if square and out.shape[0] != out.shape[1]:
        raise InvalidValueError(f"{name} must be square, got shape {out.shape}")
    out.sum_duplicates()
    data = out.data
    if data.size:
        if not np.all(np.isfinite(data)):
            bad = data[~np.isfinite(data)][0]
            raise InvalidValueError(f"{name} must have finite entries, found {bad!r}")
        if np.any(data < 0):
            raise InvalidValueError(f"{name} must have non-negative entries, found {data.min()!r}")
    out.eliminate_zeros()
    out.sort_indices()
    return out


def check_node_ids(name: str, ids, n_nodes: int, *, allow_empty: bool = False) -> np.ndarray:
    """Return ``ids`` as a 1-D int64 array of valid node ids in ``[0, n_nodes)``."""
    arr = np.asarray(ids)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise InvalidValueError(f"{name} must be a 1-D sequence of node ids, got shape {arr.shape}")
    if arr.size == 0:
        if allow_empty:
            return arr.astype(np.int64)
        raise InvalidValueError(f"{name} must contain at least one node id, got an empty sequence")
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise InvalidTypeError(f"{name} must hold integer node ids, got dtype {arr.dtype}: {arr[:5]!r}")
    out = arr.astype(np.int64)
    bad = (out < 0) | (out >= n_nodes)
    if bad.any():
        raise InvalidValueError(
            f"{name} must be node ids in [0, {n_nodes}), got {out[bad][0]} ({int(bad.sum())} out of range)"
        )
    return out


def check_vector(name: str, vector, n: int | None = None) -> np.ndarray:
    """Return a finite 1-D float64 vector (of length ``n`` when given)."""
    arr = np.asarray(vector)
    if arr.ndim != 1 or (n is not None and arr.shape[0] != n):
        expected = f"({n},)" if n is not None else "(n,)"
        raise InvalidValueError(f"{name} must have shape {expected}, got {arr.shape}")
    if not np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.complexfloating):
        raise InvalidTypeError(f"{name} must be real-valued, got dtype {arr.dtype}")
    out = arr.astype(np.float64)
    if not np.all(np.isfinite(out)):
        raise InvalidValueError(f"{name} must be finite, found {float(out[~np.isfinite(out)][0])!r}")
    return out
