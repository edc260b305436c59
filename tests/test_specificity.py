"""Node specificity s_i = 1/|P_i| and the restart vector."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.core.specificity import node_specificity, passage_counts, restart_vector
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
