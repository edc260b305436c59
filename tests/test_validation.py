"""The input checks every public function starts with (pathfinding._validation): the boundaries of
each range, the types refused, and what a canonical sparse matrix is."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from pathfinding._validation import as_csr, check_float, check_int, check_node_ids, check_vector
from pathfinding.errors import InvalidTypeError, InvalidValueError

# --- numbers --------------------------------------------------------------------------------------


def test_check_int_includes_both_bounds_and_returns_a_python_int():
    assert check_int("k", 3, low=3, high=5) == 3 and check_int("k", 5, low=3, high=5) == 5
    assert type(check_int("k", np.int32(4))) is int
    assert check_int("k", -(10**30)) == -(10**30)  # no bound: anything whole
    with pytest.raises(InvalidValueError, match=r"^k must be in \[3, 5\], got 2$"):
        check_int("k", 2, low=3, high=5)
    with pytest.raises(InvalidValueError, match=r"^k must be in \[-inf, 5\], got 6$"):
        check_int("k", 6, high=5)
    with pytest.raises(InvalidValueError, match=r"^k must be in \[1, inf\], got 0$"):
        check_int("k", 0, low=1)


@pytest.mark.parametrize("value", [True, np.bool_(False), 2.0, "2", None, np.float64(1)])
def test_check_int_refuses_what_is_not_a_whole_number(value):
    with pytest.raises(InvalidTypeError, match=f"^k must be an integer, got {value!r:.10}"):
        check_int("k", value)


def test_check_float_closed_and_open_ends():
    assert check_float("p", 0.0, low=0.0, high=1.0) == 0.0
    assert check_float("p", 1, low=0.0, high=1.0) == 1.0 and type(check_float("p", 1, low=0, high=1)) is float
    with pytest.raises(InvalidValueError, match=r"^p must be in \(0.0, 1.0\], got 0.0$"):
        check_float("p", 0.0, low=0.0, high=1.0, low_open=True)
    with pytest.raises(InvalidValueError, match=r"^p must be in \[0.0, 1.0\), got 1.0$"):
        check_float("p", 1.0, low=0.0, high=1.0, high_open=True)
    assert check_float("p", 0.5, low=0.0, high=1.0, low_open=True, high_open=True) == 0.5
    for bad in (-1e-12, 1 + 1e-12, np.nan):
        with pytest.raises(InvalidValueError, match=r"^p must be in \[0.0, 1.0\], got "):
            check_float("p", bad, low=0.0, high=1.0)
    with pytest.raises(InvalidValueError, match="got inf"):
        check_float("tol", np.inf, low=0.0, high=np.inf)  # never infinite, whatever the bound
    for bad in (True, "0.5", None, 1j):
        with pytest.raises(InvalidTypeError, match="^p must be a real number, got "):
            check_float("p", bad, low=0.0, high=1.0)


# --- sparse matrices ----------------------------------------------------------------------------


def test_a_canonical_csr_array_is_returned_as_it_is():
    A = sp.csr_array(np.array([[0.0, 2.0], [1.0, 0.0]]))
    assert as_csr("A", A) is A and as_csr("A", A, square=True) is A


def test_anything_else_is_copied_into_canonical_form_and_the_callers_matrix_kept():
    coo = sp.coo_array((np.array([1.0, 2.0, 0.0, 3.0]), (np.array([0, 0, 1, 1]), np.array([1, 1, 0, 1]))))
    out = as_csr("A", coo)  # a duplicate (0, 1), an explicit zero at (1, 0)
    assert isinstance(out, sp.csr_array) and out.dtype == np.float64 and out.has_canonical_format
    np.testing.assert_array_equal(out.toarray(), [[0.0, 3.0], [0.0, 3.0]])
    assert out.nnz == 2 and coo.nnz == 4  # zero dropped, duplicates summed, in a copy
    unsorted = sp.csr_array((np.array([5.0, 7.0]), np.array([1, 0]), np.array([0, 2])), shape=(1, 2))
    assert as_csr("A", unsorted).indices.tolist() == [0, 1] and unsorted.indices.tolist() == [1, 0]
    ints = sp.csr_array(np.array([[0, 2], [1, 0]]))
    assert as_csr("A", ints).dtype == np.float64 and ints.dtype != np.float64
    assert as_csr("A", np.array([[True, False]])).toarray().tolist() == [[1.0, 0.0]]
    assert as_csr("A", [[0, 1], [1, 0]]).nnz == 2


@pytest.mark.parametrize(
    ("matrix", "kw", "error", "message"),
    [
        (np.ones(3), {}, InvalidValueError, r"^A must be 2-D, got an array of shape \(3,\)$"),
        (np.array([["a"]]), {}, InvalidTypeError, "^A must be numeric, got dtype <U1$"),
        (np.ones((2, 3)), {"square": True}, InvalidValueError, r"^A must be square, got shape \(2, 3\)$"),
        (sp.csr_array(np.ones((2, 3))), {"square": True}, InvalidValueError, "must be square"),
        (np.array([[0, -1.0]]), {}, InvalidValueError, r"^A must have non-negative entries, found .*-1\.0"),
        (np.array([[0, np.nan]]), {}, InvalidValueError, "^A must have finite entries, found .*nan"),
        (sp.csr_array(np.array([[np.inf, 1.0]])), {}, InvalidValueError, "finite entries, found .*inf"),
    ],
)
def test_as_csr_refusals(matrix, kw, error, message):
    with pytest.raises(error, match=message):
        as_csr("A", matrix, **kw)


def test_a_csr_array_with_a_bad_entry_is_not_taken_as_canonical():
    """The fast path checks every value: a canonical-looking array holding a negative, a NaN or an
    explicit zero goes through the checks (the zero is dropped, the others refused)."""
    for value, message in ((-1.0, "non-negative"), (np.nan, "finite"), (np.inf, "finite")):
        A = sp.csr_array((np.array([value]), np.array([0]), np.array([0, 1])), shape=(1, 1))
        with pytest.raises(InvalidValueError, match=message):
            as_csr("A", A)
    A = sp.csr_array((np.array([0.0, 1.0]), np.array([0, 1]), np.array([0, 2])), shape=(1, 2))
    assert as_csr("A", A) is not A and as_csr("A", A).nnz == 1 and A.nnz == 2


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.floats(0, 5)), max_size=12))
def test_as_csr_is_the_dense_sum_of_the_entries(entries):
    rows = np.array([e[0] for e in entries], dtype=int)
    cols = np.array([e[1] for e in entries], dtype=int)
    vals = np.array([e[2] for e in entries], dtype=float)
    dense = np.zeros((4, 4))
    np.add.at(dense, (rows, cols), vals)
    out = as_csr("A", sp.coo_array((vals, (rows, cols)), shape=(4, 4)))
    np.testing.assert_allclose(out.toarray(), dense)
    assert out.has_canonical_format and np.all(out.data > 0)


# --- node ids and vectors -------------------------------------------------------------------------


def test_check_node_ids():
    assert check_node_ids("seeds", 2, 3).tolist() == [2]  # one id
    out = check_node_ids("seeds", np.array([0, 2], dtype=np.uint8), 3)
    assert out.dtype == np.int64 and out.tolist() == [0, 2]
    assert check_node_ids("seeds", [], 3, allow_empty=True).dtype == np.int64
    with pytest.raises(InvalidValueError, match="^seeds must contain at least one node id, got an empty"):
        check_node_ids("seeds", [], 3)
    out_of_range = r"^seeds must be node ids in \[0, 3\), got 3 \(2 out of range\)$"
    with pytest.raises(InvalidValueError, match=out_of_range):
        check_node_ids("seeds", [0, 3, 5], 3)
    with pytest.raises(InvalidValueError, match=r"got -1 \(1 out of range\)"):
        check_node_ids("seeds", [-1, 1], 3)
    with pytest.raises(InvalidValueError, match=r"1-D sequence of node ids, got shape \(1, 2\)"):
        check_node_ids("seeds", [[0, 1]], 3)
    for bad in ([True, False], [0.0, 1.0], ["a"]):
        with pytest.raises(InvalidTypeError, match="^seeds must hold integer node ids, got dtype"):
            check_node_ids("seeds", bad, 3)


def test_check_vector():
    out = check_vector("r", [1, 2, 3], 3)
    assert out.dtype == np.float64 and out.tolist() == [1.0, 2.0, 3.0]
    assert check_vector("r", np.zeros(5)).shape == (5,)  # any length when n is not given
    with pytest.raises(InvalidValueError, match=r"^r must have shape \(4,\), got \(3,\)$"):
        check_vector("r", [1, 2, 3], 4)
    with pytest.raises(InvalidValueError, match=r"^r must have shape \(n,\), got \(1, 3\)$"):
        check_vector("r", [[1, 2, 3]])
    for bad in ([1j, 0], ["a", "b"]):
        with pytest.raises(InvalidTypeError, match="^r must be real-valued, got dtype"):
            check_vector("r", bad)
    for bad, shown in (([0.0, np.inf], "inf"), ([np.nan, 1.0], "nan")):
        with pytest.raises(InvalidValueError, match=f"^r must be finite, found .*{shown}"):
            check_vector("r", bad)
