"""Hypothesis strategies shared by the test modules."""

import numpy as np
import scipy.sparse as sp
from hypothesis import strategies as st


@st.composite
def weighted_graphs(draw, max_nodes=12, symmetric=None, loops=False):
    """A random non-negative weighted graph as a CSR array, possibly with isolated nodes, dangling
    nodes, several components, a single node, or unit weights; with ``loops``, also self-loops."""
    n = draw(st.integers(1, max_nodes))
    density = draw(st.floats(0.0, 0.8))
    seed = draw(st.integers(0, 2**32 - 1))
    unit = draw(st.booleans())
    sym = draw(st.booleans()) if symmetric is None else symmetric
    rng = np.random.default_rng(seed)
    mask = rng.random((n, n)) < density
    if not loops:
        np.fill_diagonal(mask, False)
    weights = np.ones((n, n)) if unit else rng.uniform(0.1, 10.0, size=(n, n))
    A = np.where(mask, weights, 0.0)
    if sym:
        A = np.triu(A, 0 if loops else 1)
        A = A + np.triu(A, 1).T
    return sp.csr_array(A)


@st.composite
def restart_vectors(draw, n):
    """A non-negative vector with positive mass, on a random subset of nodes."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    r = rng.random(n) * (rng.random(n) < 0.5)
    r[rng.integers(n)] += 0.1
    return r / r.sum()
