"""Incremental specificity equals a rebuild; IDF moves everywhere; the edges of the counts and
errors that name the value.

The hand-written numbers below are worked out in each docstring; none uses the module's formulas.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.core.incremental import SpecificityIndex, corpus_idf, replay_additions
from pathfinding.core.specificity import node_specificity, passage_counts
from pathfinding.errors import InvalidValueError
from pathfinding.synthetic.instances import make_instance


@given(
    hops=st.integers(1, 3), distractors=st.integers(0, 5), hub=st.integers(0, 6), seed=st.integers(0, 10**6)
)
def test_incremental_counts_equal_rebuild(hops, distractors, hub, seed):
    inst = make_instance(hops, distractors=distractors, hub_passages=hub, rng=seed)
    log = replay_additions(inst.mentions)
    np.testing.assert_array_equal(log.index.counts, passage_counts(inst.mentions))
    np.testing.assert_array_equal(log.index.specificity(), node_specificity(inst.mentions))
    assert log.index.n_passages == inst.n_passages
    # one passage per fact: every addition touches exactly two nodes
    assert np.all(log.touched == 2)
    assert np.all(log.changed_specificity <= log.touched)


def test_idf_changes_for_every_seen_node():
    inst = make_instance(2, rng=0)
    log = replay_additions(inst.mentions)
    # from the second passage on, every node seen before the addition has a new log(N/df)...
    prev_seen = np.concatenate([[0], log.seen[:-1]])
    # ...except those whose df grew in the same proportion as N, which cannot happen for N >= 2 here
    assert np.all(log.changed_idf[1:] >= prev_seen[1:] - 2)
    assert log.changed_idf[-1] >= inst.n_nodes - 2
    assert log.changed_specificity.max() <= 2


def test_index_grows_and_validates():
    idx = SpecificityIndex()
    assert idx.add_passage([]).size == 0
    assert idx.n_passages == 1
    np.testing.assert_array_equal(idx.add_passage([5, 5, 1]), [1, 5])
    assert idx.n_nodes == 6
    np.testing.assert_array_equal(idx.counts, [0, 1, 0, 0, 0, 1])
    with pytest.raises(ValueError, match="non-negative"):
        idx.add_passage([-1])
    with pytest.raises(ValueError, match="integer node ids"):
        idx.add_passage([0.5])
    with pytest.raises(ValueError, match="n_nodes"):
        SpecificityIndex(-1)


def test_corpus_idf_literal_and_validation():
    np.testing.assert_allclose(corpus_idf([1, 4, 0], 4), [np.log(4), 0.0, np.log(4)])
    with pytest.raises(ValueError, match="n_passages"):
        corpus_idf([1], 0)
    with pytest.raises(ValueError, match=r"counts must be in \[0, n_passages=2\]"):
        corpus_idf([3], 2)


def test_a_new_index_knows_no_node_and_an_empty_passage_still_counts():
    """A fresh index has no node; each passage, empty or not, adds one to N.

    Three passages ([0, 1], [1], []) leave N = 3 and |P| = (1, 2); the empty one returns an empty
    *integer* array, so it can index the counts like any other answer.
    """
    idx = SpecificityIndex()
    assert idx.n_nodes == 0 and idx.specificity().size == 0
    idx.add_passage([0, 1])
    idx.add_passage([1])
    touched = idx.add_passage([])
    assert idx.n_passages == 3
    assert np.issubdtype(touched.dtype, np.integer)
    assert idx.counts[touched].size == 0
    np.testing.assert_array_equal(idx.counts, [1, 2])


def test_the_index_grows_to_the_largest_node_of_a_passage():
    """A passage naming nodes 1, 2 and 7 of an empty index grows it to 8 nodes, each counted once."""
    idx = SpecificityIndex()
    np.testing.assert_array_equal(idx.add_passage([7, 1, 2]), [1, 2, 7])
    assert idx.n_nodes == 8
    np.testing.assert_array_equal(idx.counts, [0, 1, 1, 0, 0, 0, 0, 1])


def test_idf_after_one_passage_is_zero_for_its_nodes():
    """With N = 1 every mentioned node has df = 1, so log(1/1) = 0; after a second passage that
    mentions only node 1, node 0 has log(2/1) and node 1 log(2/2) = 0."""
    idx = SpecificityIndex()
    idx.add_passage([0, 1])
    np.testing.assert_array_equal(idx.idf(), [0.0, 0.0])
    idx.add_passage([1])
    np.testing.assert_allclose(idx.idf(), [np.log(2.0), 0.0])


def test_corpus_idf_refuses_an_empty_corpus_by_name():
    """N = 0 has no IDF (log(0/1) = -inf): the error names ``n_passages`` and the 0 it got."""
    with pytest.raises(InvalidValueError, match=r"^n_passages must be in \[1, inf\], got 0"):
        corpus_idf([0], 0)
    with pytest.raises(InvalidValueError, match=r"^n_passages must be in \[1, inf\], got 0"):
        corpus_idf([], 0)


@pytest.mark.parametrize(
    ("counts", "named"),
    [(np.array([1.0, 2.0]), r"dtype float64 shape \(2,\)"), (np.array([[1, 2]]), r"shape \(1, 2\)")],
)
def test_corpus_idf_wants_one_dimensional_integer_counts(counts, named):
    """Float counts and a 2-D array are refused, each error naming the dtype and shape it got."""
    with pytest.raises(InvalidValueError, match=named):
        corpus_idf(counts, 4)


def test_a_negative_node_count_is_refused_by_name():
    """``SpecificityIndex(-1)``'s error names the parameter ``n_nodes`` and the -1."""
    with pytest.raises(InvalidValueError, match=r"^n_nodes must be in \[0, inf\], got -1"):
        SpecificityIndex(-1)


def test_replay_names_a_bad_mentions_matrix():
    """A 1-D array is not a count matrix: the error names ``mentions`` and the shape."""
    with pytest.raises(InvalidValueError, match=r"^mentions must be 2-D, got an array of shape \(3,\)"):
        replay_additions(np.array([1, 0, 1]))


def test_replay_logs_integer_counts():
    """Every per-step count in the log is an integer array (they count nodes).

    P has passages {0, 1} then {1}: seen = (2, 2), touched = (2, 1); s changes for no node at step 1
    (a node in no passage already has s = 1) and for node 1 at step 2 (1 -> 1/2); IDF changes for
    node 0 at step 2 (log 1 -> log 2) while node 1's stays log(2/2) = 0.
    """
    log = replay_additions(np.array([[1, 0], [1, 1]]))
    for name in ("touched", "changed_specificity", "changed_idf", "seen"):
        assert np.issubdtype(getattr(log, name).dtype, np.integer), name
    np.testing.assert_array_equal(log.seen, [2, 2])
    np.testing.assert_array_equal(log.touched, [2, 1])
    np.testing.assert_array_equal(log.changed_specificity, [0, 1])
    np.testing.assert_array_equal(log.changed_idf, [0, 1])
