"""Exact nearest rows by a sparse dot product that stops once the bound rules the rest out."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from pathfinding.hipporag.index.nearest import NearestRows


def test_nearest_rows_stops_early_on_a_rare_feature():
    # Feature 0 is rare and decisive; feature 1 is in every row. The search must not need feature 1.
    rng = np.random.default_rng(0)
    X = sp.csr_array(np.c_[np.r_[1.0, np.zeros(999)], rng.uniform(0.1, 0.2, 1000)])
    X = sp.csr_array(sp.diags_array(1 / np.sqrt(X.multiply(X).sum(axis=1))) @ X)
    nearest = NearestRows(X)
    rows, dots = nearest.top_k(np.array([0, 1]), np.array([0.99, np.sqrt(1 - 0.99**2)]), k=1)
    assert rows.tolist() == [0]
    full = (X @ np.array([0.99, np.sqrt(1 - 0.99**2)]))
    assert dots[0] == full[0] == full.max()
