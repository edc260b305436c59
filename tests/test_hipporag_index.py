"""The index on a three-passage toy corpus, checked by hand; encoders; the full MuSiQue node count."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.hipporag.datasets import fetch
from pathfinding.hipporag.index.build import build_index, cosine_neighbours, normalize_phrase
from pathfinding.hipporag.index.encoder import CharNgramEncoder
from pathfinding.hipporag.io import load_openie

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


class _TableEncoder:
    """A pluggable dense encoder: fixed unit vectors per phrase."""

    table = {"cat": [1.0, 0.0], "kitten": [0.6, 0.8], "dog": [0.0, 1.0], "pet": [0.0, 1.0]}

    def __call__(self, texts):
        return np.array([self.table.get(t, [0.0, 0.0]) for t in texts])


def test_dense_pluggable_encoder():
    idx = build_index(
        [[("cat", "is a", "pet")], [("kitten", "likes", "dog")]], encoder=_TableEncoder(), tau=0.8
    )
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


def test_small_batch_encoding_matches_sklearn_bit_for_bit():
    enc = CharNgramEncoder().fit(["journal of physics", "ed wood", "new york city", "a"])
    texts = ["journal of psychotherapy", "new york", "zzzz", "", "ed woods ed"]
    fast = enc(texts).toarray()
    slow = enc._vectorizer.transform(texts).toarray()
    np.testing.assert_array_equal(fast, slow)  # add_passages relies on batch-independent rows


@given(st.lists(st.text(alphabet="abcdefg hij", min_size=1, max_size=20), min_size=1, max_size=40))
def test_rows_do_not_depend_on_the_batch(texts):
    if all(not t.strip() for t in texts):  # no character n-gram anywhere: a clear error, not sklearn's
        with pytest.raises(ValueError, match="at least one text with a character n-gram"):
            CharNgramEncoder().fit(texts)
        return
    enc = CharNgramEncoder().fit(texts)
    whole = enc(texts + ["padding text"] * 40)[: len(texts)]  # scikit-learn's path
    for i, t in enumerate(texts):
        one = enc([t])  # the small-batch path
        assert (one != whole[[i]]).nnz == 0


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


def test_encoder_state_round_trip():
    enc = CharNgramEncoder(ngram_range=(2, 4), sublinear_tf=False).fit(["ed wood", "plan nine", "paris"])
    params, grams, idf = enc.get_state()
    back = CharNgramEncoder.from_state(params, grams, idf)
    texts = ["ed woods", "plan 9 from outer space"] * 20
    assert (back(texts) != enc(texts)).nnz == 0 and back.ngram_range == (2, 4)
    with pytest.raises(ValueError, match="idf must hold 3 finite positive values"):
        CharNgramEncoder.from_state(params, grams[:3], idf)
    with pytest.raises(ValueError, match="repeats an entry"):
        CharNgramEncoder.from_state(params, [grams[0]] * len(grams), idf)
    with pytest.raises(ValueError, match="not fitted"):
        CharNgramEncoder().get_state()


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


def test_normalize_phrase_matches_v1():
    assert normalize_phrase("Thomas C. Südhof", rule="ascii") == "thomas c  s dhof"
    assert normalize_phrase("Thomas C. Südhof") == "thomas c  südhof"
    assert normalize_phrase("  !! ") == normalize_phrase("  !! ", rule="ascii") == ""


def test_musique_node_count_reproduces_manifest():
    docs, _ = load_openie(fetch("musique_openie"))
    idx = build_index([d.triples for d in docs], synonymy=False)
    # MANIFEST: 16,235 unique phrases after v1 normalisation, which include the empty string that one
    # triple's subject or object normalises to; we skip that triple, so one node fewer.
    assert idx.n_nodes == 16234 and idx.stats.triples_empty_phrase == 1
    assert idx.stats.n_unique_triples == 17036 - 1
    assert idx.mentions.shape == (16234, 1890)
    assert idx.stats.passages_without_nodes == 2
