"""The statistics FINDINGS reports (pathfinding.experiments.stats): the 95% quantile, a mean's
interval, chance's interval, Wilson's interval of a proportion, and how an interval is written."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.errors import InvalidValueError
from pathfinding.experiments.stats import Z95, chance_interval, format_ci, mean_ci, wilson


def test_z95_is_the_standard_normals_97_5_percent_quantile():
    assert 0.5 * math.erfc(-Z95 / math.sqrt(2)) == pytest.approx(0.975, abs=1e-15)


def test_a_means_interval_uses_the_sample_standard_deviation():
    """1, 2, 3, 4: sd (ddof=1) = sqrt(5/3), so the half-width is 1.96 x 1.291 / 2 = 1.265."""
    mean, lo, hi = mean_ci([1.0, 2.0, 3.0, 4.0])
    half = Z95 * math.sqrt(5 / 3) / 2
    assert mean == 2.5 and lo == pytest.approx(2.5 - half, abs=1e-15) and hi == pytest.approx(2.5 + half)
    assert mean_ci([7.0]) == (7.0, 7.0, 7.0)  # one value: no spread to estimate
    assert mean_ci(np.full(10, 3.0)) == (3.0, 3.0, 3.0)


@pytest.mark.parametrize("bad", [[], [[1.0, 2.0]]])
def test_a_means_interval_needs_a_list_of_values(bad):
    with pytest.raises(InvalidValueError, match="^values must be a non-empty 1-D array, got shape"):
        mean_ci(bad)


def test_chances_interval_is_the_mean_of_uniform_ranks():
    lo, hi = chance_interval(17, 1000)  # mean 9, sd sqrt(288 / 12) = sqrt(24)
    assert (lo + hi) / 2 == pytest.approx(9.0) and hi - lo == pytest.approx(2 * Z95 * math.sqrt(24 / 1000))
    assert chance_interval(1, 50) == (1.0, 1.0)  # one candidate: always rank 1
    with pytest.raises(InvalidValueError, match="n_candidates"):
        chance_interval(0, 10)
    with pytest.raises(InvalidValueError, match="trials"):
        chance_interval(9, 0)


def test_wilson_by_hand_and_at_its_ends():
    p, lo, hi = wilson(5, 10)  # centre 1/2, half-width 1.96 sqrt(1/40 + 1.96^2/400) / (1 + 1.96^2/10)
    half = Z95 * math.sqrt(0.25 / 10 + Z95**2 / 400) / (1 + Z95**2 / 10)
    assert p == 0.5 and lo == pytest.approx(0.5 - half) and hi == pytest.approx(0.5 + half)
    assert round(lo, 4) == 0.2366
    assert wilson(0, 20)[:2] == (0.0, 0.0) and wilson(20, 20)[0::2] == (1.0, 1.0)  # exact, no speck
    assert 0.0 < wilson(1, 20)[1] < 0.05 and wilson(19, 20)[2] < 1.0


@given(n=st.integers(1, 500), data=st.data())
def test_wilson_brackets_the_proportion_and_mirrors(n, data):
    k = data.draw(st.integers(0, n))
    p, lo, hi = wilson(k, n)
    assert 0.0 <= lo <= p <= hi <= 1.0
    q, qlo, qhi = wilson(n - k, n)
    assert q == pytest.approx(1 - p) and qlo == pytest.approx(1 - hi, abs=1e-12)
    assert qhi == pytest.approx(1 - lo, abs=1e-12)


def test_an_interval_is_written_mean_then_bounds():
    assert format_ci(1.0, 0.5, 1.5) == "1.00 [0.50, 1.50]"
    assert format_ci(0.12345, 0.1, 0.2, ".1%") == "12.3% [10.0%, 20.0%]"
