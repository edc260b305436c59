"""Incremental specificity equals a rebuild; IDF moves everywhere."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.core.incremental import SpecificityIndex, corpus_idf, replay_additions
from pathfinding.core.specificity import node_specificity, passage_counts
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
