"""Recall@k on hand-made rankings and the paired bootstrap."""

import numpy as np
import pytest

from pathfinding.errors import InvalidValueError
from pathfinding.hipporag.evaluation.metrics import (
    all_recall_at_k,
    bootstrap_indices,
    bootstrap_mean_ci,
    paired_difference_ci,
    recall_at_k,
)


def test_recall_at_k_hand_made():
    rankings = [[4, 1, 9], [0], [], [2, 3, 5, 6, 7, 8]]
    gold = [[1, 9], [7], [3], [8, 2]]
    R = recall_at_k(rankings, gold, ks=(1, 2, 5, 10))
    np.testing.assert_array_equal(R, [[0, 0.5, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0.5, 0.5, 0.5, 1]])
    with pytest.raises(ValueError, match="gold\\[0\\] is empty"):
        recall_at_k([[1]], [[]])
    AR = all_recall_at_k(rankings, gold, ks=(1, 2, 5, 10))
    np.testing.assert_array_equal(AR, [[0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]])


def test_bootstrap_paired_is_tighter_and_seeded():
    rng = np.random.default_rng(1)
    base = rng.random(100)
    a, b = base + 0.05, base
    idx = bootstrap_indices(100, n_boot=500, rng=0)
    np.testing.assert_array_equal(idx, bootstrap_indices(100, n_boot=500, rng=0))
    d = paired_difference_ci(a, b, idx)
    assert d[0] == pytest.approx(0.05) and d[1] == pytest.approx(0.05) and d[2] == pytest.approx(0.05)
    ca, cb = bootstrap_mean_ci(a, idx), bootstrap_mean_ci(b, idx)
    assert ca[1] < cb[2]  # separate intervals overlap although every question improved


def test_default_cut_offs_are_1_2_5_and_10():
    """Without ``ks`` the columns are R@1, R@2, R@5, R@10 (the paper's R@2 and R@5 among them): gold
    passages at ranks 2 and 5 give 0, 1/2, 1, 1 and all-recall 0, 0, 1, 1."""
    rankings, gold = [[9, 7, 8, 6, 3, 1]], [[7, 3]]
    np.testing.assert_array_equal(recall_at_k(rankings, gold), [[0, 0.5, 1, 1]])
    np.testing.assert_array_equal(all_recall_at_k(rankings, gold), [[0, 0, 1, 1]])


@pytest.mark.parametrize(("na", "nb"), [(1, 3), (3, 1), (2, 3)])
def test_paired_difference_needs_the_same_questions_on_both_sides(na, nb):
    """A length-1 side would broadcast into a difference of the wrong questions; any mismatch is refused."""
    idx = bootstrap_indices(3, n_boot=10, rng=0)
    with pytest.raises(InvalidValueError, match=rf"same shape, got \({na},\) and \({nb},\)"):
        paired_difference_ci(np.ones(na), np.ones(nb), idx)
