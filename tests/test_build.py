"""Index building: the graph on a toy corpus checked by hand, the encoder contract, synonymy pairs
at their edges, index_from_openie, P from the passage text, and the full MuSiQue node count.

A mutation run over ``index/build.py`` left these alive: the caller's encoder object modified
through a shallow copy or an encoder without ``clone`` rejected, exactly two eligible phrases
getting no synonymy pair, the neighbour cap applied before the cap step, the OpenIE passages'
texts or keyword arguments not reaching the index, and error messages that name nothing.
P as the paper defines it (phrase occurrences in the passage text) is checked beside v1's triple
counts.
"""

from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.core.specificity import node_specificity
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.build import (
    BUILD_STAGES,
    build_index,
    check_unit_rows,
    cosine_neighbours,
    index_from_openie,
    prepare_encoder,
    similar_pairs,
    text_mentions,
)
from pathfinding.hipporag.index.encoder import CharNgramEncoder
from pathfinding.hipporag.index.maintenance import add_passages, delete_passages
from pathfinding.hipporag.index.persistence import load_index, save_index
from pathfinding.hipporag.io import load_openie
from pathfinding.hipporag.storage.datasets import fetch
from tests.conftest import Table


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


def test_similar_pairs_keep_each_nodes_k_nearest_the_lowest_ids_on_ties():
    n = 103  # every row has 102 neighbours at cosine 1: k = 100 keeps the 100 lowest other ids
    E = np.full((n, 4), 0.5)
    pairs = similar_pairs(E, np.ones(n, dtype=bool), tau=0.8)
    assert np.diff(pairs.indptr).tolist() == [100] * n
    assert pairs[[102]].indices.tolist() == list(range(100))
    assert similar_pairs(E, np.ones(n, dtype=bool), tau=0.8, k=2)[[0]].indices.tolist() == [1, 2]


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


TOY = [
    [("Alice", "knows", "Bob"), ("Alice", "likes", "Bob")],
    [("Bob", "lives in", "Paris"), ("Alice", "visited", "Paris")],
    [("Paris City", "is in", "France")],
]


ALICE, BOB, FRANCE, PARIS, PARIS_CITY = range(5)


@pytest.fixture(scope="module")
def toy():
    return build_index(TOY, passages=["p0", "p1", "p2"], tau=0.5)


def test_toy_nodes_edges_and_counts(toy):
    assert toy.phrases == ["alice", "bob", "france", "paris", "paris city"]
    R = toy.relation_graph.toarray()
    expected = np.zeros((5, 5))
    for a, b, w in [(ALICE, BOB, 2), (BOB, PARIS, 1), (ALICE, PARIS, 1), (PARIS_CITY, FRANCE, 1)]:
        expected[a, b] = expected[b, a] = w
    np.testing.assert_array_equal(R, expected)
    # P[i, j]: distinct triples of passage j naming node i as subject or object.
    np.testing.assert_array_equal(
        toy.mentions.toarray(),
        [[2, 1, 0], [2, 1, 0], [0, 0, 1], [0, 2, 0], [0, 0, 1]],
    )
    np.testing.assert_array_equal(toy.specificity, [0.5, 0.5, 1.0, 1.0, 1.0])
    assert toy.stats.n_nodes == 5 and toy.stats.n_relation_edges == 4 and toy.stats.n_triples == 5


def test_toy_one_synonymy_edge(toy):
    S = toy.synonymy_graph
    assert S.nnz == 2  # paris <-> paris city, both directions
    X = toy.encoder(["paris", "paris city"])
    cos = float((X @ X.T).toarray()[0, 1])
    assert 0.5 <= cos < 1
    assert float(S[PARIS, PARIS_CITY]) == float(S[PARIS_CITY, PARIS]) == pytest.approx(cos)
    assert toy.graph(synonymy=False).nnz == 8 and toy.graph().nnz == 10
    strict = build_index(TOY, tau=0.99)
    assert strict.synonymy_graph.nnz == 0


def test_synonymy_never_overrides_a_relation_edge():
    idx = build_index([[("Paris", "near", "Paris City")]], tau=0.1)
    assert idx.synonymy_graph.nnz == 0 and float(idx.relation_graph[0, 1]) == 1.0


def test_empty_phrase_and_self_loop_counted():
    idx = build_index([[("!!", "is", "A thing"), ("Bob", "is", "bob"), ("Bob", "knows", "Al")]])
    assert idx.stats.triples_empty_phrase == 1 and idx.stats.triples_self_loop == 1
    assert idx.phrases == ["al", "bob"]
    assert idx.mentions.toarray().tolist() == [[1.0], [2.0]]


def test_dense_pluggable_encoder():
    idx = build_index([[("cat", "is a", "pet")], [("kitten", "likes", "dog")]], encoder=Table(), tau=0.8)
    ids = idx.phrase_ids
    assert float(idx.synonymy_graph[ids["dog"], ids["pet"]]) == 1.0
    assert float(idx.synonymy_graph[ids["kitten"], ids["dog"]]) == 0.0  # linked by a triple already
    assert float(idx.synonymy_graph[ids["kitten"], ids["pet"]]) == pytest.approx(0.8)  # tau is inclusive
    assert float(idx.synonymy_graph[ids["kitten"], ids["cat"]]) == 0.0  # cosine 0.6 < tau
    assert idx.synonymy_graph.nnz == 4


def test_encoder_must_return_unit_rows():
    with pytest.raises(ValueError, match="must return unit rows .* row 0 has norm 2"):
        build_index([[("a b c", "r", "d e f")]], encoder=lambda texts: np.full((len(texts), 1), 2.0))
    with pytest.raises(ValueError, match="one row per text"):
        build_index([[("abc", "r", "def")]], encoder=lambda texts: np.ones((1, 1)))


def test_bad_triples_and_params():
    with pytest.raises(ValueError, match=r"triples_per_passage\[0\]\[0\] must be three strings"):
        build_index([[("a", "b")]])
    with pytest.raises(ValueError, match=r"tau must be in \[-1.0, 1.0\], got 1.5"):
        build_index(TOY, tau=1.5)
    with pytest.raises(ValueError, match="passages must have one text per passage"):
        build_index(TOY, passages=["x"])


def test_build_does_not_modify_the_callers_encoder():
    mine = CharNgramEncoder()
    idx = build_index(TOY, encoder=mine)
    assert not mine.is_fitted and idx.encoder is not mine and idx.encoder.is_fitted
    fitted = CharNgramEncoder().fit(["zebra", "yak"])
    before = fitted.get_state()
    build_index(TOY, encoder=fitted)  # refit on a copy
    after = fitted.get_state()
    assert before[1] == after[1] and np.array_equal(before[2], after[2])
    frozen = build_index(TOY, encoder=fitted, fit_encoder=False)
    assert frozen.encoder is fitted and frozen.settings["fit_encoder"] is False
    with pytest.raises(ValueError, match="fit_encoder=False needs a fitted encoder"):
        build_index(TOY, fit_encoder=False)


@given(st.lists(st.text(alphabet="abcde ", min_size=1, max_size=8), min_size=2, max_size=12, unique=True))
def test_cosine_neighbours_matches_dense(texts):
    enc = CharNgramEncoder(ngram_range=(1, 2)).fit(texts)
    X = enc(texts)
    S = cosine_neighbours(X, tau=0.3, max_neighbours=100, chunk=3).toarray()
    D = (X @ X.T).toarray()
    np.fill_diagonal(D, 0)
    D[D < 0.3 - 1e-12] = 0
    np.testing.assert_allclose(S, D, atol=1e-12)


def test_cosine_neighbours_cap():
    X = np.array([[1.0, 0.0], [0.99, np.sqrt(1 - 0.99**2)], [0.98, np.sqrt(1 - 0.98**2)]])
    S = cosine_neighbours(X, tau=0.5, max_neighbours=1).toarray()
    assert (S > 0).sum(axis=1).tolist() == [1, 1, 1]
    assert S[2, 1] > 0 and S[2, 0] == 0  # row 2's best neighbour is row 1


def test_musique_node_count_reproduces_manifest():
    docs, _ = load_openie(fetch("musique_openie"))
    idx = build_index([d.triples for d in docs], synonymy=False)
    # MANIFEST: 16,235 unique phrases after v1 normalisation, which include the empty string that one
    # triple's subject or object normalises to; we skip that triple, so one node fewer.
    assert idx.n_nodes == 16234 and idx.stats.triples_empty_phrase == 1
    assert idx.stats.n_unique_triples == 17036 - 1
    assert idx.mentions.shape == (16234, 1890)
    assert idx.stats.passages_without_nodes == 2


TRIPLES = [
    [("Ed Wood", "directed", "Plan 9")],
    [("Plan 9", "filmed in", "Burbank")],
    [("Paris", "capital of", "France")],
]


PASSAGES = [
    "Ed Wood directed Plan 9. Ed Wood also wrote it.",
    "Plan 9 was filmed in Burbank, not in Paris.",
    "Paris is the capital of France. Red wood grows in France.",
]


def test_text_mentions_counts_whole_word_occurrences():
    P = text_mentions(["ed wood", "france", "plan 9", "wood"], PASSAGES).toarray()
    # "ed wood" twice in passage 0 and never inside "red wood"; "wood" is a word of both
    np.testing.assert_array_equal(P[0], [2, 0, 0])
    np.testing.assert_array_equal(P[1], [0, 0, 2])
    np.testing.assert_array_equal(P[2], [1, 1, 0])
    np.testing.assert_array_equal(P[3], [2, 0, 1])


def test_build_index_text_p_differs_from_triple_p_where_the_text_says_more():
    by_triples = build_index(TRIPLES, passages=PASSAGES)
    by_text = build_index(TRIPLES, passages=PASSAGES, mentions="text")
    assert by_triples.phrases == by_text.phrases  # same nodes and edges, only P differs
    assert (by_triples.relation_graph != by_text.relation_graph).nnz == 0
    paris = by_text.phrase_ids["paris"]
    # Paris is named in passage 1's text, though no triple of passage 1 mentions it
    assert by_triples.mentions[paris, 1] == 0 and by_text.mentions[paris, 1] == 1
    assert by_text.mentions[by_text.phrase_ids["ed wood"], 0] == 2
    np.testing.assert_array_equal(by_text.specificity, node_specificity(by_text.mentions))
    assert by_text.specificity[paris] == 0.5 and by_triples.specificity[paris] == 1.0
    assert "mentions" not in by_triples.settings and by_text.settings["mentions"] == "text"


def test_text_p_survives_save_and_load(tmp_path):
    idx = build_index(TRIPLES, passages=PASSAGES, mentions="text")
    save_index(idx, tmp_path / "i.hippo")
    back = load_index(tmp_path / "i.hippo")
    assert (back.mentions != idx.mentions).nnz == 0
    np.testing.assert_array_equal(back.specificity, idx.specificity)


def test_bad_mentions_and_missing_passages_are_named():
    with pytest.raises(InvalidValueError, match="mentions must be 'triples' or 'text', got 'words'"):
        build_index(TRIPLES, passages=PASSAGES, mentions="words")
    with pytest.raises(InvalidValueError, match="pass passages="):
        build_index(TRIPLES, mentions="text")


def test_text_p_index_refuses_in_place_updates():
    idx = build_index(TRIPLES, passages=PASSAGES, mentions="text")
    with pytest.raises(InvalidValueError, match="mentions='text'"):
        delete_passages(idx, [0])
    with pytest.raises(InvalidValueError, match="rebuild it"):
        add_passages(idx, [[("A b c", "is", "D e f")]], ["A b c is D e f."])


# -- interrupted builds -----------------------------------------------------------------------------


def _threads_settle(before: int) -> bool:
    import threading
    import time

    for _ in range(100):
        if threading.active_count() <= before:
            return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("stage", [*BUILD_STAGES, "save"])
def test_ctrl_c_at_any_stage_leaves_nothing_behind(stage, tmp_path, monkeypatch):
    """Ctrl-C (KeyboardInterrupt) as each stage starts, or while the index file is written: it
    reaches the caller, no thread of the build is left running and no file is left in the folder."""
    import os
    import threading

    from pathfinding.hipporag.index.persistence import save_index
    from pathfinding.synthetic.corpus import synthetic_corpus

    monkeypatch.chdir(tmp_path)
    c = synthetic_corpus(60, rng=4)
    before = threading.active_count()

    def interrupt(at):
        if at == stage:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        idx = build_index(c.triples, passages=c.passages, progress=interrupt)
        monkeypatch.setattr(os, "fsync", lambda fd: interrupt("save"))
        save_index(idx, tmp_path / "x.hippo")
    assert _threads_settle(before) and os.listdir(tmp_path) == []


def test_ctrl_c_inside_the_threaded_synonymy_search_stops_it(monkeypatch):
    """An interrupt while the search's blocks run on two threads: the blocks not started are
    dropped, the interrupt reaches the caller, and the threads end."""
    import threading

    from pathfinding.hipporag.index import neighbours
    from pathfinding.synthetic.corpus import synthetic_corpus

    c = synthetic_corpus(300, rng=4)
    real, calls = neighbours._topk_rows, []

    def third_interrupts(*args):
        import time

        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        time.sleep(0.05)  # a block that takes a while, as at scale
        return real(*args)

    monkeypatch.setattr(neighbours, "_topk_rows", third_interrupts)
    monkeypatch.setattr(neighbours, "_default_threads", lambda: 2)
    before = threading.active_count()
    with pytest.raises(KeyboardInterrupt):
        build_index(c.triples, passages=c.passages, progress=False)
    assert len(calls) < 16 and _threads_settle(before)  # of 64 blocks: the rest were dropped


def test_a_progress_callable_hears_every_stage_in_order_then_done():
    heard = []
    build_index([[("Ed Wood", "directed", "Plan 9")]], progress=heard.append)
    assert heard == [*BUILD_STAGES, "done"]
