"""The few statistics the findings report: normal 95% intervals of a mean, and of chance.

One home for the 95% quantile and the two intervals, so the experiment's summary rows, FINDINGS.md
and the course notebooks cannot drift apart.
"""

from __future__ import annotations

import numpy as np

from pathfinding._validation import check_int
from pathfinding.errors import InvalidValueError

__all__ = ["Z95", "chance_interval", "format_ci", "mean_ci", "wilson"]

Z95 = 1.959963984540054
"""Two-sided 95% quantile of the standard normal distribution, Phi^-1(0.975)."""


def mean_ci(values) -> tuple[float, float, float]:
    """Sample mean and its normal-approximation 95% interval, ``mean ± Z95 * sd / sqrt(n)``.

    Parameters
    ----------
    values : array_like of float, shape (n,)
        At least one value; with one value the interval has width 0.

    Returns
    -------
    (mean, low, high) : tuple of float

    Examples
    --------
    >>> mean, lo, hi = mean_ci([1.0, 2.0, 3.0, 4.0])
    >>> mean, round(lo, 3), round(hi, 3)
    (2.5, 1.235, 3.765)
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise InvalidValueError(f"values must be a non-empty 1-D array, got shape {values.shape}")
    mean = float(values.mean())
    half = Z95 * float(values.std(ddof=1)) / float(np.sqrt(values.size)) if values.size > 1 else 0.0
    return mean, mean - half, mean + half


def chance_interval(n_candidates: int, trials: int) -> tuple[float, float]:
    """95% sampling interval of the mean of ``trials`` uniform ranks in 1..n_candidates.

    One uniform rank has mean ``(n + 1) / 2`` and variance ``(n² - 1) / 12``; the mean of ``trials``
    of them is within ``Z95 * sqrt((n² - 1) / (12 trials))`` of ``(n + 1) / 2`` 95% of the time.

    Examples
    --------
    >>> lo, hi = chance_interval(17, 1000)
    >>> round(float(lo), 2), round(float(hi), 2)
    (8.7, 9.3)
    """
    n_candidates = check_int("n_candidates", n_candidates, low=1)
    trials = check_int("trials", trials, low=1)
    mean = (n_candidates + 1) / 2
    sd = np.sqrt((n_candidates**2 - 1) / 12)
    half = Z95 * sd / np.sqrt(trials)
    return mean - half, mean + half


def wilson(successes: int, n: int) -> tuple[float, float, float]:
    """A proportion and its 95% Wilson interval (sensible at 0% and 100%, unlike the normal one).

    Examples
    --------
    >>> p, lo, hi = wilson(0, 20)
    >>> p, lo, round(hi, 3)
    (0.0, 0.0, 0.161)
    """
    p = successes / n
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * np.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    # at 0 or n successes the bound is exactly 0 or 1; rounding would leave a speck
    lo = 0.0 if successes == 0 else max(0.0, float(centre - half))
    hi = 1.0 if successes == n else min(1.0, float(centre + half))
    return p, lo, hi


def format_ci(mean, lo, hi, fmt: str = ".2f") -> str:
    """``mean [lo, hi]`` as FINDINGS.md writes a mean and its interval.

    Examples
    --------
    >>> format_ci(1.0, 0.5, 1.5)
    '1.00 [0.50, 1.50]'
    """
    return f"{mean:{fmt}} [{lo:{fmt}}, {hi:{fmt}}]"
