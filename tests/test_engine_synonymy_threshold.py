"""Adding passages finds the synonym pairs a fresh build finds, at the threshold too.

A fresh build keeps a pair whose cosine is ``tau`` up to a rounding slack (1e-12); the pairs an
addition computes for its new rows must be the same pairs, for dense vectors (a neural encoder) as
for sparse ones (the character n-grams), or an index grown by additions differs from the index built
at once from the same passages.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from pathfinding.hipporag.index.build import similar_pairs
from pathfinding.hipporag.index.maintenance import _new_pairs

PHRASES = ["alpha", "alphabet", "gamma ray"]


def _vectors(c: float) -> np.ndarray:
    """Three unit rows: rows 0 and 1 have cosine exactly ``c`` (1*c + 0*s); row 2 is orthogonal to 0."""
    return np.array([[1.0, 0.0], [c, np.sqrt(1.0 - c * c)], [0.0, 1.0]])


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("c", [0.8, 0.8 - 5e-13, 0.8 - 1e-9], ids=["at-tau", "within-slack", "below"])
def test_new_rows_get_the_pairs_a_fresh_build_gives(sparse, c):
    """The pairs of row 0 after adding it equal the fresh build's pairs of row 0, whatever side of
    the threshold the cosine 0.8 - 5e-13 falls on (kept by both) or 0.8 - 1e-9 (dropped by both)."""
    E = _vectors(c)
    E = sp.csr_array(E) if sparse else E
    fresh = similar_pairs(E, np.ones(3, dtype=bool), tau=0.8).toarray()
    added = _new_pairs(E, np.array([0]), PHRASES, 0.8).toarray()
    assert (added[0] > 0).tolist() == (fresh[0] > 0).tolist()
    assert (fresh[0, 1] > 0) == (c > 0.8 - 1e-12)
