"""Index building: the encoder contract, synonymy pairs at their edges, and index_from_openie.

A mutation run over ``index/build.py`` left these alive: the caller's encoder object modified
through a shallow copy or an encoder without ``clone`` rejected, exactly two eligible phrases
getting no synonymy pair, the neighbour cap applied before the cap step, the OpenIE passages'
texts or keyword arguments not reaching the index, and error messages that name nothing.
"""

from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp

from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.build import (
    build_index,
    check_unit_rows,
    cosine_neighbours,
    index_from_openie,
    prepare_encoder,
    similar_pairs,
)
from pathfinding.hipporag.index.encoder import CharNgramEncoder


class _CountingEncoder:
    """An encoder with ``fit`` and no ``clone``: one-hot rows over the phrases it was fit on.

    ``fitted_on`` is a list that ``fit`` extends in place, so a shallow copy would change the caller's.
    """

    def __init__(self):
        self.fitted_on = []

    def fit(self, texts):
        self.fitted_on.extend(texts)
        return self

    def __call__(self, texts):
        vocab = {t: i for i, t in enumerate(self.fitted_on)}
        X = np.zeros((len(texts), max(1, len(vocab))))
        for r, t in enumerate(texts):
            if t in vocab:
                X[r, vocab[t]] = 1.0
        return X


def test_an_encoder_without_clone_is_deep_copied_and_the_callers_left_as_it_was():
    mine = _CountingEncoder()
    idx = build_index([[("Ed Wood", "directed", "Plan 9")]], encoder=mine)
    assert mine.fitted_on == []
    assert idx.encoder is not mine and idx.encoder.fitted_on == ["ed wood", "plan 9"]
    np.testing.assert_array_equal(idx.node_embeddings, np.eye(2))


def test_prepare_encoder_fits_a_copy_by_default():
    enc = prepare_encoder(None, ["ed wood", "plan 9"])
    assert isinstance(enc, CharNgramEncoder)
    assert enc(["ed wood"]).shape[0] == 1


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"fit_encoder": False}, InvalidValueError, r"^fit_encoder=False needs a fitted encoder"),
        ({"encoder": 3}, InvalidTypeError, r"^encoder must be callable \(list\[str\] -> matrix\), got int$"),
        ({"encoder": lambda texts: 2 * np.eye(len(texts))}, InvalidValueError, r"^encoder "),
    ],
)
def test_build_names_a_bad_encoder(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        build_index([[("Ed Wood", "directed", "Plan 9")]], **kwargs)


def test_two_eligible_phrases_are_enough_for_a_synonymy_edge():
    # "ab" and "cd" are too short to be eligible; the two namesakes are the only eligible pair
    idx = build_index([[("Ed Wood", "is", "ab")], [("Ed Woods", "is", "cd")]], tau=0.5)
    ids = idx.phrase_ids
    assert idx.synonymy_graph[ids["ed wood"], ids["ed woods"]] > 0.5
    assert idx.stats.n_synonymy_edges == 1


def test_similar_pairs_are_uncapped():
    n = 103  # every row has 102 neighbours at cosine 1, more than any default cap
    E = np.full((n, 4), 0.5)
    pairs = similar_pairs(E, np.ones(n, dtype=bool), tau=0.8)
    assert pairs.nnz == n * (n - 1)


def test_index_from_openie_keeps_title_newline_text_and_passes_keywords():
    docs = [
        SimpleNamespace(title="Ed Wood", text="He directed it.", triples=[("Ed Wood", "directed", "Plan 9")]),
        SimpleNamespace(title="Plan 9", text="A film.", triples=[("Plan 9", "is a", "film")]),
    ]
    idx = index_from_openie(docs, synonymy=False)
    assert idx.passages == ["Ed Wood\nHe directed it.", "Plan 9\nA film."]
    assert idx.settings["synonymy"] is False


def _same_vector(texts):
    return np.full((len(texts), 4), 0.5)


@pytest.mark.parametrize(("cap", "kwargs"), [(100, {}), (1, {"max_synonyms": 1})])
def test_each_node_keeps_max_synonyms_best_pairs_ties_to_lower_ids(cap, kwargs):
    # 103 eligible phrases, all at cosine 1, each with a private two-letter (ineligible) neighbour:
    # every node keeps its `cap` lowest-id partners, so the highest id ends with exactly `cap`
    names = [f"node {i:03d}" for i in range(103)]
    fillers = [a + b for a in "abcdefghij" for b in "abcdefghijk"][:103]
    triples = [[(n, "r", f)] for n, f in zip(names, fillers, strict=True)]
    idx = build_index(triples, encoder=_same_vector, **kwargs)
    S = idx.synonymy_graph.toarray() > 0
    last = idx.phrase_ids[names[-1]]
    assert S[last].sum() == cap
    np.testing.assert_array_equal(np.flatnonzero(S[last]), sorted(idx.phrase_ids[n] for n in names[:cap]))


ONE = [[("Ed Wood", "r", "Plan 9")]]


@pytest.mark.parametrize(
    ("triples", "kwargs", "error", "pattern"),
    [
        (ONE, {"tau": 1.5}, InvalidValueError, r"^tau must be in \[-1.0, 1.0\]"),
        (ONE, {"max_synonyms": 0}, InvalidValueError, r"^max_synonyms must be in \[1"),
        (ONE, {"passages": "one"}, InvalidTypeError, r"^passages must be a sequence of strings, got a str"),
        ([[("!!", "r", "??")]], {}, InvalidValueError, r"^no phrase nodes: every passage has no usable"),
    ],
)
def test_build_names_bad_arguments(triples, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        build_index(triples, **kwargs)


def test_stats_count_what_the_triples_hold():
    triples = [
        [("Ed Wood", "directed", "Plan 9")] * 2 + [("!!", "is", "x"), ("x", "y", "")],  # two dropped
        [("Ed Woods", "is", "Ed Woods"), ("Plan 9", "is a", "film")],  # a self-loop: a node, no edge
        [("Ed Wood", "directed", "Plan 9")],
        [],  # a passage with no triple, last: P must keep its column
    ]
    idx = build_index(triples, tau=0.5)
    # distinct triples: (ed wood, directed, plan 9), (ed woods, is, ed woods), (plan 9, is a, film)
    want = {
        "n_passages": 4, "n_triples": 7, "n_unique_triples": 3, "n_nodes": 4,
        "n_relation_edges": 2,  # ed wood - plan 9, plan 9 - film
        "n_synonymy_edges": 1,  # ed wood - ed woods
        "triples_empty_phrase": 2, "triples_self_loop": 1, "passages_without_nodes": 1,
    }  # fmt: skip
    got = {name: getattr(idx.stats, name) for name in want}
    assert got == want and all(type(v) is int for v in got.values())
    assert idx.mentions.shape == (4, 4) and idx.synonymy_graph.nnz == 2


def test_no_synonymy_computes_no_pairs():
    idx = build_index([[("Ed Wood", "is", "ab")], [("Ed Woods", "is", "cd")]], tau=0.5, synonymy=False)
    assert idx.pairs.shape == (idx.n_nodes, idx.n_nodes) and idx.pairs.nnz == 0
    assert idx.synonymy_graph.nnz == 0


def test_build_names_a_string_instead_of_passages_of_triples():
    with pytest.raises(InvalidTypeError, match=r"^triples_per_passage must be a sequence of lists"):
        build_index("Ed Wood directed Plan 9")


@pytest.mark.parametrize(
    ("X", "n", "pattern"),
    [
        (np.ones(2), 2, r"^encoder must return a 2-D matrix, got shape \(2,\)"),
        (np.eye(3, 5), 2, r"^encoder must return one row per text \(2\), got 3 rows$"),
        (np.full((2, 2), np.nan), 2, r"^encoder returned non-finite values$"),
        (np.array([[1.0, 0.0], [0.6, 0.6]]), 2, r"^encoder must return unit rows .*, row 1 has norm 0.848"),
    ],
)
def test_check_unit_rows_names_what_is_wrong(X, n, pattern):
    with pytest.raises(InvalidValueError, match=pattern):
        check_unit_rows("encoder", X, n)


def test_check_unit_rows_gives_float64_and_tolerates_rounding():
    near = np.array([[1.0 + 1e-7, 0.0], [0.0, 0.0]])  # a float32 encoder's norms are this far from 1
    for X in (near, [[1, 0], [0, 1]], sp.csr_array(np.eye(2, dtype=np.int64))):
        out = check_unit_rows("encoder", X, 2)
        assert out.dtype == np.float64


@pytest.mark.parametrize(
    "norm, ok", [(1 + 9e-6, True), (1 - 9e-6, True), (1 + 1.05e-5, False), (1 - 2e-5, False)]
)
def test_check_unit_rows_allows_norms_within_1e_5_of_one(norm, ok):
    """The tolerance is 1e-5 either side of 1 and no wider: 1 + 1.05e-5 is refused (numpy's isclose
    with atol=1e-5 would let it pass, adding its default relative 1e-5)."""
    X = np.array([[norm, 0.0]])
    if ok:
        check_unit_rows("encoder", X, 1)
    else:
        with pytest.raises(InvalidValueError, match=f"row 0 has norm {norm:.6g}"):
            check_unit_rows("encoder", X, 1)


def test_cosine_neighbours_defaults_tau_0_8_and_100_neighbours():
    X = np.array([[1.0, 0.0], [0.8, 0.6], [0.6, 0.8]])  # cosines 0.8, 0.6 and 0.96
    got = cosine_neighbours(X).toarray() > 0
    np.testing.assert_array_equal(got, [[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    many = cosine_neighbours(np.full((103, 4), 0.5))
    assert np.diff(many.indptr).max() == 100
