"""Recall@k on hand-made rankings and the paired bootstrap."""

import numpy as np
import pytest

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
