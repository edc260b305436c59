"""The explanation rows of FINDINGS (``experiments.explained``): the shares are shares, and the
default's sources add up to its whole score."""

import numpy as np
import pytest

from pathfinding.experiments.explained import run_explained


@pytest.fixture(scope="module")
def rows():
    return run_explained(seed=0, n_boot=200)


def test_the_sources_of_the_default_add_up_to_every_score(rows):
    parts = ["entity seeds", "fact seeds", "passage restart", "BM25 in the fusion"]
    assert {rows[("source", p)][0] for p in parts} == {100}  # every question has a walk
    assert sum(rows[("source", p)][1] for p in parts) == pytest.approx(100.0, abs=1e-6)


def test_meet_shares_are_percentages_over_the_questions_with_two_seeds(rows):
    for spec in (True, False):
        n_all, mean, lo, hi = rows[("meet", spec, "all")]
        assert 0 < n_all <= 100 and 0 <= lo <= mean <= hi <= 100
        assert rows[("meet", spec, "supporting")][0] <= n_all and rows[("meet", spec, "other")][0] <= n_all
    assert np.isfinite([v for key, val in rows.items() for v in val]).all()
