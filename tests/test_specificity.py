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
