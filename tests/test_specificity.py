"""Node specificity s_i = 1/|P_i| and the restart vector."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pathfinding.core.specificity import (
    node_specificity,
    passage_counts,
    restart_column,
    restart_matrix,
    restart_vector,
)
from pathfinding.synthetic.instances import make_instance


def test_chapter_worked_example_20_and_5_passages():
    P = sp.lil_array((2, 25))
    P[0, :20] = 1
    P[1, 20:] = 1
    s = node_specificity(P)
    assert s.tolist() == [1 / 20, 1 / 5]
    np.testing.assert_allclose(restart_vector(2, [0, 1]), [0.5, 0.5])
    np.testing.assert_allclose(restart_vector(2, [0, 1], specificity=s), [0.2, 0.8], atol=1e-15)


def test_counts_passages_not_mentions():
    P = np.array([[3, 0, 1], [0, 0, 0]])
    assert passage_counts(P).tolist() == [2, 0]


def test_node_in_no_passage_counts_as_one():
    assert node_specificity(np.zeros((3, 2))).tolist() == [1.0, 1.0, 1.0]


def test_explicit_zeros_do_not_count():
    P = sp.csr_array((np.array([0.0, 1.0]), np.array([0, 1]), np.array([0, 2])), shape=(1, 2))
    assert passage_counts(P).tolist() == [1]


@given(hub=st.integers(1, 40), rng=st.integers(0, 2**32 - 1))
def test_hub_seed_gets_less_restart(hub, rng):
    inst = make_instance(2, hub_passages=hub, rng=rng)
    r = restart_vector(inst.n_nodes, inst.seeds, specificity=node_specificity(inst.mentions))
    a, b = r[inst.seeds]
    assert a < b
    np.testing.assert_allclose(a / b, 9 / (9 + hub))
    assert r.sum() == pytest.approx(1.0) and np.count_nonzero(r) == 2


def test_repeated_seed_counts_twice():
    np.testing.assert_allclose(restart_vector(3, [0, 0, 2]), [2 / 3, 0, 1 / 3])


def test_a_zero_specificity_seed_gets_nothing_and_the_rest_sums_to_one():
    """Seeds 0, 1, 2 (seed 2 twice) with specificity 0, 1/5, 1/20: the raw weights 0, 0.2, 0.1 are
    renormalised over what is left, 0 : 2/3 : 1/3."""
    r = restart_vector(4, [0, 1, 2, 2], specificity=[0.0, 0.2, 0.05, 1.0])
    np.testing.assert_allclose(r, [0.0, 2 / 3, 1 / 3, 0.0], rtol=0, atol=1e-15)
    assert r[0] == 0.0 and r.sum() == pytest.approx(1.0, abs=1e-15)


@given(
    seeds=st.lists(st.integers(0, 5), min_size=1, max_size=8),
    spec=st.lists(st.sampled_from([0.0, 0.05, 0.2, 0.25, 1.0]), min_size=6, max_size=6),
)
def test_restart_is_count_times_specificity_over_its_total(seeds, spec):
    """For any seeds and specificities (zeros included): each seed's count times its specificity,
    divided by the total, as written out here; a zero total is refused."""
    raw = np.array([seeds.count(i) * spec[i] for i in range(6)])
    if raw.sum() == 0:
        with pytest.raises(ValueError, match="total specificity 0"):
            restart_vector(6, seeds, specificity=spec)
        return
    np.testing.assert_allclose(restart_vector(6, seeds, specificity=spec), raw / raw.sum(), rtol=1e-12)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((3, []), {}, ValueError, "at least one"),
        ((3, [3]), {}, ValueError, r"in \[0, 3\), got 3"),
        ((3, [-1]), {}, ValueError, "got -1"),
        ((3, [0.5]), {}, TypeError, "integer node ids"),
        ((3, [0]), {"specificity": [1, 1]}, ValueError, r"shape \(3,\)"),
        ((3, [0]), {"specificity": [-1, 1, 1]}, ValueError, "non-negative"),
        ((3, [0]), {"specificity": [0, 1, 1]}, ValueError, "total specificity 0"),
        ((3, [0]), {"specificity": [np.nan, 1, 1]}, ValueError, "finite"),
        ((0, [0]), {}, ValueError, "n_nodes"),
    ],
)
def test_bad_input(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        restart_vector(*args, **kwargs)


@given(
    values=hnp.arrays(np.float64, st.integers(1, 40), elements=st.floats(0, 1e6, allow_subnormal=True)),
    form=st.sampled_from(["float64", "strided", "float32", "list"]),
)
def test_restart_column_scaled_is_the_copy_divided_by_its_sum(values, form):
    """``v / total`` is, bit for bit, what the solvers divided before: a float64 copy over its own
    sum, for a C-contiguous float64 vector (read in place), a strided view, float32 and a list."""
    if not values.astype(np.float32).sum() > 0:  # positive in every form (float32 underflows below 1e-45)
        values[0] = 1.0
    arr = {"float64": values, "strided": np.repeat(values, 2)[::2], "float32": values.astype(np.float32),
           "list": values.tolist()}[form]  # fmt: skip
    ref = np.asarray(arr).astype(np.float64)
    ref /= ref.sum()
    v, total = restart_column(arr, values.size)
    assert np.array_equal(v / total, ref)
    assert np.array_equal(restart_matrix(arr, values.size)[0][:, 0], ref)
    if form == "float64":
        assert v is arr  # no copy of a vector over every node


@given(
    values=hnp.arrays(np.float64, st.integers(1, 40), elements=st.floats(0, 1e6, allow_subnormal=True)),
    shuffle=st.randoms(use_true_random=False),
)
def test_restart_entries_are_the_dense_vectors_non_zero_entries(values, shuffle):
    """A 1-D sparse restart gives the dense vector's non-zero entries, ascending, whatever the order
    and repeats of its stored entries (repeats are summed); the total is their sum."""
    import scipy.sparse as sp

    from pathfinding.core.specificity import restart_entries

    if not values.sum() > 0:
        values[0] = 1.0
    ids = list(range(values.size)) + [0]  # node 0 stored twice: half its weight each
    weights = [*values.tolist(), 0.0]
    weights[0] = weights[-1] = values[0] / 2
    order = list(range(len(ids)))
    shuffle.shuffle(order)
    restart = sp.coo_array((np.array(weights)[order], (np.array(ids)[order],)), shape=(values.size,))
    got_ids, got, total = restart_entries(restart, values.size)
    dense = values.copy()
    dense[0] = values[0] / 2 + values[0] / 2
    want = np.flatnonzero(dense)
    assert np.array_equal(got_ids, want) and np.array_equal(got, dense[want])
    assert total == got.sum() > 0


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda sp: sp.coo_array(([1.0], ([0],)), shape=(4,)), ValueError, r"shape \(3,\), got \(4,\)"),
        (lambda sp: sp.csr_array(np.eye(3)), TypeError, "1-D scipy sparse array, got 2-D"),
        (lambda sp: np.ones(3), TypeError, "1-D scipy sparse array, got ndarray"),
        (lambda sp: sp.coo_array(([1, -0.5], ([0, 1],)), shape=(3,)), ValueError, "negative, found -0.5"),
        (lambda sp: sp.coo_array(([1.0, np.nan], ([0, 1],)), shape=(3,)), ValueError, "finite"),
        (lambda sp: sp.coo_array(([0.0], ([1],)), shape=(3,)), ValueError, "positive total mass"),
        (lambda sp: sp.coo_array((3,)), ValueError, "positive total mass"),
    ],
)
def test_a_bad_sparse_restart_is_named(make, error, match):
    import scipy.sparse as sp

    from pathfinding.core.specificity import restart_entries

    with pytest.raises(error, match=match):
        restart_entries(make(sp), 3)


def test_restart_column_reads_seed_ids_through_restart_vector():
    v, total = restart_column([0, 2], 4)
    assert total == 1.0 and np.array_equal(v, restart_vector(4, [0, 2]))


@pytest.mark.parametrize(
    ("restart", "match"),
    [
        (np.array([1.0, np.nan, 1.0]), r"^restart must be finite, found nan"),
        (np.array([1.0, np.inf, 1.0]), r"^restart must be finite, found inf"),
        (np.array([1.0, -np.inf, 1.0]), r"^restart must be finite, found -inf"),
        (np.array([1e308, 1e308, 0.0]), r"^restart.s total mass overflows float64 .*: inf$"),
        (np.array([1.0, -0.5, 1.0]), r"^restart must be non-negative, found -0.5"),
        (np.zeros(3), r"^restart must have positive total mass"),
        (np.ones(4), r"^restart must have shape \(3,\), got \(4,\)"),
        (np.ones((3, 2)), r"^one restart vector was expected, got a block of shape \(3, 2\)"),
        (np.array([1.0, np.nan, 1.0], dtype=np.float32), r"^restart must be finite"),
    ],
)
def test_restart_column_refuses_what_restart_matrix_refuses(restart, match):
    with pytest.raises(ValueError, match=match):
        restart_column(restart, 3)
