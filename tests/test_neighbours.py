"""Synonymy neighbours: the defaults, the keep threshold at its edge, the caller's matrix left alone,
and the per-node cap of the synonymy edges, on examples small enough to work out by hand; exact
synonymy by prefix filtering equals all pairs, for any thread count.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pathfinding.errors import InvalidValueError
from pathfinding.hipporag.index.encoder import CharNgramEncoder
from pathfinding.hipporag.index.nearest import BOUND_SLACK, KEEP_SLACK
from pathfinding.hipporag.index.neighbours import (
    SEARCH_BUDGET,
    _postings,
    _topk_rows,
    candidate_pairs,
    cosine_neighbours_prefix,
    cosine_neighbours_topk,
)
from pathfinding.hipporag.index.synonymy import cosine_neighbours_allpairs, keep_nearest
from pathfinding.hipporag.language.text import normalize_phrase
from pathfinding.synthetic.corpus import synthetic_corpus

# Row 0 = (1, 0); row 1 at cosine 0.81 with it; row 2 at 0.79; row 3 orthogonal to row 0.
C81, C79 = 0.81, 0.79
X = np.array([[1.0, 0.0], [C81, np.sqrt(1 - C81**2)], [C79, np.sqrt(1 - C79**2)], [0.0, 1.0]])


@pytest.mark.parametrize("search", [cosine_neighbours_allpairs, cosine_neighbours_prefix])
def test_the_default_threshold_is_0_8(search):
    """With tau = 0.8 by default, 0-1 (0.81) is a pair and 0-2 (0.79) is not; 1-2 (about 1.0) is."""
    for M in (X, sp.csr_array(X)):
        S = search(M).toarray()
        assert S[0, 1] == pytest.approx(C81) and S[0, 2] == 0 and S[1, 2] > 0.99


@pytest.mark.parametrize("search", [cosine_neighbours_allpairs, cosine_neighbours_prefix])
def test_the_default_cap_is_100_neighbours(search):
    """102 identical rows: each has 101 neighbours at cosine 1, and the default keeps 100 of them,
    the lowest ids first."""
    S = search(sp.csr_array(np.ones((102, 1))))
    counts = np.diff(S.indptr)
    assert counts.tolist() == [100] * 102
    assert S[[0]].indices.tolist() == list(range(1, 101))


@pytest.mark.parametrize("search", [cosine_neighbours_allpairs, cosine_neighbours_prefix])
def test_a_pair_exactly_at_the_keep_threshold_is_kept(search):
    """A pair is kept when its cosine is at least tau - 1e-12: with tau = 0.6 + 1e-12 that bound is
    exactly 0.6, the cosine of (1, 0) and (0.6, 0.8), which must be kept, dense or sparse."""
    tau = 0.6 + 1e-12
    assert tau - 1e-12 == 0.6
    rows = np.array([[1.0, 0.0], [0.6, 0.8]])
    for M in (rows, sp.csr_array(rows)):
        np.testing.assert_array_equal(search(M, tau=tau).toarray(), [[0.0, 0.6], [0.6, 0.0]])


def _with_duplicates():
    """A CSR matrix whose row 0 stores feature 0 twice (0.3 + 0.3) and row 1 out of order."""
    data = np.array([0.3, 0.3, 0.8, 0.8, 0.6])
    indices = np.array([0, 0, 1, 1, 0])
    indptr = np.array([0, 3, 5])
    return sp.csr_array((data, indices, indptr), shape=(2, 2))


@pytest.mark.parametrize(
    "search",
    [lambda M: candidate_pairs(M, 0.5), lambda M: cosine_neighbours_prefix(M, tau=0.5, threads=1)],
)
def test_the_callers_matrix_is_left_as_it_was(search):
    """The search sums duplicate entries and sorts indices on its own copy, never the caller's."""
    M = _with_duplicates()
    before = (M.data.copy(), M.indices.copy(), M.indptr.copy())
    search(M)
    for got, want in zip((M.data, M.indices, M.indptr), before, strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"tau": 1.5}, r"^tau must be in \[-1.0, 1.0\], got 1.5"),
        ({"tau": -1.5}, r"^tau must be in \[-1.0, 1.0\], got -1.5"),
        ({"max_neighbours": 0}, r"^max_neighbours must be in \[1, inf\], got 0"),
        ({"chunk": 0}, r"^chunk must be in \[1, inf\], got 0"),
        ({"threads": 0}, r"^threads must be in \[1, inf\], got 0"),
    ],
)
def test_search_settings_are_checked_by_name(kw, message):
    with pytest.raises(InvalidValueError, match=message):
        cosine_neighbours_prefix(sp.csr_array(X), **kw)
    if "threads" not in kw:
        with pytest.raises(InvalidValueError, match=message):
            cosine_neighbours_allpairs(X, **kw)


def test_limits_of_the_settings_are_accepted():
    """tau = 1 and -1, one neighbour, chunks of one row are all valid settings."""
    M = sp.csr_array(X)
    assert cosine_neighbours_prefix(M, tau=1.0, max_neighbours=1, chunk=1, threads=1).shape == (4, 4)
    S = cosine_neighbours_allpairs(X, tau=-1.0, max_neighbours=1, chunk=1)
    assert np.diff(S.indptr).tolist() == [1, 1, 1, 1]


@pytest.mark.parametrize("search", [cosine_neighbours_allpairs, cosine_neighbours_prefix])
def test_no_rows_and_all_zero_rows_give_no_pairs(search):
    """An index with no nodes gives an empty 0 x 0 matrix; an all-zero row (a phrase with no
    features) pairs with nothing, wherever it sits, and stores nothing."""
    for M in (np.zeros((0, 3)), sp.csr_array((0, 3))):
        S = search(M)
        assert S.shape == (0, 0) and S.nnz == 0
    rows = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.0, 0.0]])
    want = np.zeros((5, 5))
    want[1, 3] = want[3, 1] = 1.0
    for M in (rows, sp.csr_array(rows)):
        S = search(M, tau=0.5)
        np.testing.assert_array_equal(S.toarray(), want)
        assert S.nnz == 2
    assert candidate_pairs(sp.csr_array(rows), 0.5).tolist() == [1 * 5 + 3]


@pytest.mark.parametrize("search", [cosine_neighbours_allpairs, cosine_neighbours_prefix])
def test_float32_vectors_are_multiplied_in_float64(search):
    """A neural encoder's float32 vectors give the cosines of the same numbers in float64, not
    float32 products (which differ in the eighth digit and can move a pair across tau)."""
    rng = np.random.default_rng(3)
    V = rng.normal(size=(40, 6)).astype(np.float32)
    V[20:] = V[:20] + np.float32(0.3) * rng.normal(size=(20, 6)).astype(np.float32)
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    for M32 in (V, sp.csr_array(V)):
        want = search(M32.astype(np.float64), tau=0.5)
        got = search(M32, tau=0.5)
        assert got.dtype == np.float64 and want.nnz > 40
        np.testing.assert_array_equal(got.toarray(), want.toarray())


def test_a_threshold_at_the_search_slack_is_handed_to_the_reference():
    """At tau = 1e-12 + 1e-9 the prefix bound is exactly 0, where no prefix can be cut: the search
    hands over to the all-pairs reference, and every positive cosine is a pair."""
    from pathfinding.hipporag.index.nearest import BOUND_SLACK, KEEP_SLACK

    tau = KEEP_SLACK + BOUND_SLACK
    assert tau - KEEP_SLACK - BOUND_SLACK == 0.0
    rows = np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.0, 1.0], [0.0, 0.6, 0.8]])
    M = sp.csr_array(rows)
    want = cosine_neighbours_allpairs(M, tau=tau)
    assert want.nnz == 6  # 0-1, 1-3, 2-3 and their mirrors
    np.testing.assert_array_equal(cosine_neighbours_prefix(M, tau=tau).toarray(), want.toarray())


@pytest.fixture(scope="module")
def musique_index():
    from pathfinding.experiments.realtext import musique_index as build

    return build(0.8)


def _unit_rows(rng, n, d, density):
    X = sp.random_array((n, d), density=density, rng=rng, format="csr")
    X.data = np.round(X.data * 4 + 0.5)  # small integer counts: many exact ties
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    norms[norms == 0] = 1
    return sp.csr_array(sp.diags_array(1 / norms) @ X)


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 60), d=st.integers(1, 25),
       density=st.floats(0.05, 0.6), tau=st.sampled_from([0.3, 0.5, 0.8, 0.9, 1.0]))
def test_prefix_filter_equals_all_pairs(seed, n, d, density, tau):
    X = _unit_rows(np.random.default_rng(seed), n, d, density)
    want = cosine_neighbours_allpairs(X, tau=tau, max_neighbours=n)
    got = cosine_neighbours_prefix(X, tau=tau, max_neighbours=n)
    # scipy's compiled product may fuse multiply-adds: values agree to 1e-15, and a pair can only
    # differ when its cosine is within that of tau.
    np.testing.assert_allclose(got.toarray(), want.toarray(), rtol=0, atol=1e-14)
    diff = sp.coo_array(abs((want > 0).astype(int) - (got > 0).astype(int)))
    assert np.all(abs(want.toarray()[diff.row, diff.col] + got.toarray()[diff.row, diff.col] - tau) < 1e-12)


def test_cap_keeps_largest_then_lowest_column():
    X = sp.csr_array(np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.6, 0.8]]))
    S = cosine_neighbours_prefix(X, tau=0.5, max_neighbours=2).toarray()
    np.testing.assert_array_equal(S[0], [0, 1, 1, 0])  # ties at 1.0 to the lower ids, 0.6 cut
    np.testing.assert_array_equal(S[3], [0.6, 0.6, 0, 0])


def test_candidates_cover_every_pair_and_are_fewer():
    c = synthetic_corpus(200, rng=3)
    phrases = sorted({normalize_phrase(p) for doc in c.triples for s, _, o in doc for p in (s, o)})
    X = CharNgramEncoder().fit(phrases)(phrases)
    exact = sp.coo_array(sp.triu(cosine_neighbours_allpairs(X, tau=0.8, max_neighbours=10**6), k=1))
    codes = candidate_pairs(X, 0.8 - 1e-9)
    n = X.shape[0]
    assert np.isin(exact.row.astype(np.int64) * n + exact.col, codes).all()
    all_pairs = sp.triu(X @ X.T, k=1).nnz
    assert codes.size < all_pairs / 5


def test_musique_synonymy_edges_equal_exact(musique_index):
    idx = musique_index
    eligible = np.flatnonzero([len(re.sub("[^a-z0-9]", "", p)) > 2 for p in idx.phrases])
    E = idx.node_embeddings[eligible]
    want = cosine_neighbours_allpairs(E, tau=0.8)
    got = cosine_neighbours_prefix(E, tau=0.8)
    assert want.nnz > 1000 and (want != got).nnz == 0


def test_thread_count_changes_nothing(musique_index):
    E = musique_index.node_embeddings
    one = cosine_neighbours_prefix(E, tau=0.8, threads=1)
    assert one.nnz > 1000
    for threads in (2, 3):
        got = cosine_neighbours_prefix(E, tau=0.8, threads=threads)
        # Bit for bit: the same pairs, values and order whatever the thread count.
        for a, b in ((one.indptr, got.indptr), (one.indices, got.indices), (one.data, got.data)):
            np.testing.assert_array_equal(a, b)


def test_prefix_features_read_from_the_row_past_the_inline_ones(monkeypatch, musique_index):
    """With one inline feature per posting entry the count reads the rest from the row: same result."""
    from pathfinding.hipporag.index import neighbours

    E = musique_index.node_embeddings
    want = cosine_neighbours_allpairs(E, tau=0.8)
    monkeypatch.setattr(neighbours, "_INLINE", 1)
    got = cosine_neighbours_prefix(E, tau=0.8)
    assert want.nnz > 1000 and (want != got).nnz == 0


@pytest.mark.parametrize("threads", [0, 1.5])
def test_prefix_rejects_a_bad_thread_count(threads):
    with pytest.raises((ValueError, TypeError), match="threads"):
        cosine_neighbours_prefix(sp.csr_array(np.eye(3)), threads=threads)


@pytest.mark.slow  # two fresh interpreters: about 9 s on the shared machine
def test_neighbour_kernels_agree_without_jit():
    import json
    import os
    import subprocess
    import sys

    script = (
        "import json, numpy as np\n"
        "from pathfinding.hipporag.index.build import build_index\n"
        "from pathfinding.hipporag.retrieval.linking import link_entities\n"
        "from pathfinding.synthetic.corpus import synthetic_corpus\n"
        "c = synthetic_corpus(150, rng=5)\n"
        "idx = build_index(c.triples)\n"
        "S = idx.synonymy_graph.tocoo()\n"
        "link = link_entities(idx, [q.entities[0][:-1] + 'x' for q in c.questions[:10]], top_k=2)\n"
        "print(json.dumps([S.row.tolist(), S.col.tolist(), S.data.tolist(), link.nodes.tolist(),"
        " link.scores.tolist()]))\n"
    )
    out = []
    for flag in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=flag)
        proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                              check=True)
        out.append(json.loads(proc.stdout))
    jit, py = out
    assert jit[0] == py[0] and jit[1] == py[1] and jit[3] == py[3] and len(jit[0]) > 10
    np.testing.assert_allclose(jit[2], py[2], rtol=0, atol=1e-14)
    np.testing.assert_allclose(jit[4], py[4], rtol=0, atol=1e-14)


# -- the search bounded per row ---------------------------------------------------------------------


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 60), d=st.integers(1, 25),
       density=st.floats(0.05, 0.6), tau=st.sampled_from([0.3, 0.5, 0.8, 0.9, 1.0]), k=st.integers(1, 5))
def test_an_uncut_topk_search_is_each_rows_k_nearest_exact_pairs(seed, n, d, density, tau, k):
    """With a budget no row reaches, row x holds exactly the k best of x's pairs, bit for bit."""
    X = _unit_rows(np.random.default_rng(seed), n, d, density)
    want = keep_nearest(cosine_neighbours_prefix(X, tau=tau, max_neighbours=n), k)
    got, cut = cosine_neighbours_topk(X, tau=tau, k=k, budget=10**6, return_cut=True)
    assert not cut.any()
    for a, b in ((want.indptr, got.indptr), (want.indices, got.indices), (want.data, got.data)):
        np.testing.assert_array_equal(a, b)


def test_a_cut_search_keeps_true_pairs_only_and_flags_its_rows():
    """A budget of 3 entries cuts the search of rows in longer lists: what they keep is still a true
    pair with its exact cosine, at most k per row, and the cut rows are the ones flagged."""
    c = synthetic_corpus(300, rng=2)
    phrases = sorted({normalize_phrase(p) for doc in c.triples for s, _, o in doc for p in (s, o)})
    X = CharNgramEncoder().fit(phrases)(phrases)
    exact = cosine_neighbours_prefix(X, tau=0.8, max_neighbours=X.shape[0])
    got, cut = cosine_neighbours_topk(X, k=2, budget=3, return_cut=True)
    assert 0 < cut.sum() < cut.size and np.diff(got.indptr).max() <= 2
    g = sp.coo_array(got)
    np.testing.assert_array_equal(np.asarray(exact[g.row, g.col]).ravel(), g.data)
    uncut = np.flatnonzero(~cut)
    want = keep_nearest(exact, 2)
    assert (want[uncut] != got[uncut]).nnz == 0


def test_topk_thread_count_changes_nothing(musique_index):
    E = musique_index.node_embeddings
    one = cosine_neighbours_topk(E, budget=50, threads=1)
    for threads in (2, 3):
        got = cosine_neighbours_topk(E, budget=50, threads=threads)
        for a, b in ((one.indptr, got.indptr), (one.indices, got.indices), (one.data, got.data)):
            np.testing.assert_array_equal(a, b)


def test_the_musique_search_at_the_default_budget_finds_the_exact_pairs(musique_index):
    """On the released MuSiQue phrases the default budget cuts at most a node or two, and the search
    still returns each node's exact k nearest: the synonymy edges are the exact ones."""
    eligible = np.flatnonzero([len(re.sub("[^a-z0-9]", "", p)) > 2 for p in musique_index.phrases])
    E = musique_index.node_embeddings[eligible]
    got, cut = cosine_neighbours_topk(E, return_cut=True)
    want = keep_nearest(cosine_neighbours_prefix(E, max_neighbours=E.shape[0]), 100)
    assert cut.sum() <= 2 and want.nnz > 1000 and (want != got).nnz == 0


def test_topk_rejects_a_bad_budget():
    with pytest.raises(InvalidValueError, match="budget"):
        cosine_neighbours_topk(sp.csr_array(np.eye(3)), budget=0)


def test_the_top_k_output_grows_past_its_first_capacity():
    """36 groups of 6 equal rows, k = 5: 1080 pairs, past the 1024 the kernel's output starts with.
    Its plain-Python run (where a write past an array's end raises, as a compiled one does not)
    gives the compiled search's pairs."""
    X = sp.csr_array(np.repeat(np.eye(36), 6, axis=0))
    bound = 0.8 - KEEP_SLACK - BOUND_SLACK
    args = (*_postings(X, bound), bound, 0.8 - KEEP_SLACK, 5, SEARCH_BUDGET)
    a, b, v, cut = _topk_rows.py_func(0, X.shape[0], *args)
    assert a.size == 1080 and not cut.any() and np.all(v == 1.0)
    C = sp.coo_array(cosine_neighbours_topk(X, k=5, tau=0.8, threads=1))
    got = sorted(zip(a.tolist(), b.tolist(), strict=True))
    assert sorted(zip(C.row.tolist(), C.col.tolist(), strict=True)) == got
