"""add_passages / delete_passages equal a fresh build_index, for both encoder modes; ids; bad input."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pathfinding.hipporag.casing import casing_model
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.index.encoder import CharNgramEncoder
from pathfinding.hipporag.index.maintenance import add_passages, delete_passages, renumber_after_delete
from pathfinding.hipporag.retrieve import HippoRetriever

# Near-duplicates so that synonymy edges exist at every tau drawn below, short phrases that are not
# eligible for synonymy, and "!!" which normalises to the empty phrase.
POOL = [
    "alice", "alice smith", "alice smyth", "bob", "bobby", "paris", "paris city", "france", "new york",
    "york", "ed wood", "edward wood", "a", "us", "plan 9", "plan nine", "!!", "the beatles", "beatles",
]  # fmt: skip
RELATIONS = ["knows", "in", "r"]
# The frozen encoder's vocabulary is fit on part of the pool only: later phrases have unknown grams.
FROZEN = CharNgramEncoder().fit(POOL[:12])


def assert_same_index(a, b):
    """Everything a fresh build determines, compared exactly (bit for bit for the matrices)."""
    assert a.phrases == b.phrases and a.phrase_ids == b.phrase_ids
    for name in ("relation_graph", "synonymy_graph", "mentions", "pairs", "node_embeddings"):
        A, B = getattr(a, name), getattr(b, name)
        assert A.shape == B.shape, name
        if sp.issparse(A):
            assert (sp.csr_array(A) != sp.csr_array(B)).nnz == 0, name
        else:
            np.testing.assert_array_equal(A, B, err_msg=name)
    np.testing.assert_array_equal(a.specificity, b.specificity)
    assert a.stats == b.stats
    assert a.passages == b.passages and a.triples == b.triples and a.settings == b.settings
    np.testing.assert_array_equal(a.dropped, b.dropped)
    assert casing_model(a) == casing_model(b)  # derived state: rebuilt from the new passages


def assert_same_retrieval(a, b, queries):
    ra, rb = HippoRetriever(a, extractor=None), HippoRetriever(b, extractor=None)
    for ents in queries:
        x = ra.retrieve("alice paris", entities=ents, k=a.n_passages)
        y = rb.retrieve("alice paris", entities=ents, k=b.n_passages)
        np.testing.assert_array_equal(x.passages, y.passages)
        np.testing.assert_array_equal(x.scores, y.scores)
        np.testing.assert_array_equal(x.seeds, y.seeds)
        assert x.fell_back == y.fell_back


triples_st = st.tuples(st.sampled_from(POOL), st.sampled_from(RELATIONS), st.sampled_from(POOL))
passage_st = st.lists(triples_st, min_size=0, max_size=3)
ops_st = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.lists(passage_st, min_size=1, max_size=3), st.booleans()),
        st.tuples(st.just("delete"), st.lists(st.integers(0, 10**6), min_size=1, max_size=3), st.booleans()),
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=60)
@given(
    initial=st.lists(passage_st, min_size=1, max_size=5),
    ops=ops_st,
    frozen=st.booleans(),
    tau=st.sampled_from([0.3, 0.5, 0.8]),
    max_synonyms=st.sampled_from([1, 2, 100]),
    synonymy=st.sampled_from([True, True, False]),
)
def test_random_add_delete_sequences_equal_a_fresh_build(initial, ops, frozen, tau, max_synonyms, synonymy):
    """Each update (encoder kept, or refit) equals the build it stands for."""
    base = {"tau": tau, "max_synonyms": max_synonyms, "synonymy": synonymy}
    first = {"encoder": FROZEN, "fit_encoder": False} if frozen else {}
    corpus = list(initial)
    texts = [f"Text {j} names {c}" for j, c in enumerate(corpus)]
    try:
        idx = build_index(corpus, passages=texts, **base, **first)
    except ValueError:
        return  # no usable triple at all: nothing to maintain
    for op, arg, refit in ops:
        # refit: a fresh build refits the build's encoder; otherwise it uses the index's as it is
        kw = (
            {**base, **first, "fit_encoder": True}
            if refit
            else {**base, "encoder": idx.encoder, "fit_encoder": False}
        )
        if op == "add":
            new_texts = [f"New {len(corpus) + i} names {c}" for i, c in enumerate(arg)]
            corpus, texts = corpus + arg, texts + new_texts
            idx = add_passages(idx, arg, new_texts, refit=refit)
        else:
            gone = sorted({i % len(corpus) for i in arg})
            corpus = [c for j, c in enumerate(corpus) if j not in gone]
            texts = [t for j, t in enumerate(texts) if j not in gone]
            try:
                idx = delete_passages(idx, gone, refit=refit)
            except ValueError as exc:
                assert "no phrase nodes" in str(exc)
                with pytest.raises(ValueError, match="no phrase nodes"):
                    build_index(corpus, passages=texts, **kw)
                return
        ref = build_index(corpus, passages=texts, **kw)
        assert_same_index(idx, ref)
        assert_same_retrieval(idx, ref, [["alice"], ["paris city", "bob"], ["plan nine"], ["zzz"]])


def test_frozen_add_costs_only_the_new_rows():
    """The frozen path reuses the old embeddings: the encoder is called on the added phrases only."""
    calls = []

    class Counting:
        def __call__(self, texts):
            calls.append(list(texts))
            return FROZEN(texts)

    idx = build_index([[("Alice", "knows", "Bob")]], encoder=Counting(), fit_encoder=False, tau=0.5)
    calls.clear()
    add_passages(idx, [[("Alice Smith", "in", "Paris")]])
    assert calls == [["alice smith", "paris"]]


def test_refit_mode_refits_a_copy_and_matches():
    """refit=True: the TF-IDF is refit on the new phrase set (every IDF changes with it)."""
    a = build_index([[("Alice", "knows", "Bob")]], tau=0.5)
    kept = add_passages(a, [[("Alice Smith", "in", "Paris")]])
    assert kept.encoder is a.encoder and kept.settings["fit_encoder"] is False
    with pytest.raises(TypeError, match="refit must be True or False"):
        add_passages(a, [], refit="yes")
    b = add_passages(a, [[("Alice Smith", "in", "Paris")]], refit=True)
    assert b.encoder is not a.encoder
    idf = [e._idf[e._vocab["ali"]] for e in (a.encoder, b.encoder)]
    assert idf[0] == pytest.approx(np.log(3 / 2) + 1) and idf[1] == pytest.approx(np.log(5 / 3) + 1)
    ref = build_index([[("Alice", "knows", "Bob")], [("Alice Smith", "in", "Paris")]], tau=0.5)
    assert_same_index(b, ref)


def test_dense_custom_encoder_frozen():
    table = {"cat": [1.0, 0.0], "kitten": [0.6, 0.8], "dog": [0.0, 1.0], "pet": [0.0, 1.0]}

    def enc(texts):
        return np.array([table.get(t, [0.0, 0.0]) for t in texts])

    a = build_index([[("cat", "is a", "pet")]], encoder=enc, tau=0.8)
    b = add_passages(a, [[("kitten", "likes", "dog")]])
    ref = build_index([[("cat", "is a", "pet")], [("kitten", "likes", "dog")]], encoder=enc, tau=0.8)
    assert b.phrases == ref.phrases
    np.testing.assert_allclose(b.synonymy_graph.toarray(), ref.synonymy_graph.toarray(), rtol=0, atol=1e-12)
    assert (b.relation_graph != ref.relation_graph).nnz == 0
    c = delete_passages(b, [0])
    assert c.phrases == ["dog", "kitten"] and c.node_embeddings.tolist() == [[0.0, 1.0], [0.6, 0.8]]


def test_ids_after_add_and_delete():
    idx = build_index(
        [[("Alice", "knows", "Bob")], [("Bob", "in", "Paris")], [("Ed Wood", "directed", "Plan 9")]],
        passages=["p0", "p1", "p2"],
    )
    grown = add_passages(idx, [[("Alice", "in", "Berlin")]], ["p3"])
    assert grown.passages == ["p0", "p1", "p2", "p3"]
    # "berlin" sorts before "bob": every later node id moves up by one; phrases are the stable key.
    assert idx.phrase_ids["bob"] == 1 and grown.phrase_ids["bob"] == 2
    shrunk = delete_passages(grown, [0, 2])
    assert shrunk.passages == ["p1", "p3"]
    assert renumber_after_delete(4, [0, 2]).tolist() == [-1, 0, -1, 1]
    assert "ed wood" not in shrunk.phrase_ids and "alice" in shrunk.phrase_ids
    assert idx.n_passages == 3 and grown.n_passages == 4  # the inputs are not modified


def test_bad_input_is_named():
    idx = build_index([[("Alice", "knows", "Bob")], [("Bob", "in", "Paris")]], passages=["p0", "p1"])
    with pytest.raises(ValueError, match="passage id 2 is out of range: the index has 2 passages"):
        delete_passages(idx, [2])
    with pytest.raises(ValueError, match="passage id 1 is given more than once"):
        delete_passages(idx, [1, 1])
    with pytest.raises(TypeError, match="passage ids must be integers, got '1'"):
        delete_passages(idx, ["1"])
    with pytest.raises(TypeError, match="must be integers, got the string"):
        delete_passages(idx, "1")
    with pytest.raises(ValueError, match="no phrase nodes"):
        delete_passages(idx, [0, 1])
    with pytest.raises(ValueError, match="keeps passage texts: pass passages="):
        add_passages(idx, [[("a b c", "r", "d e f")]])
    with pytest.raises(ValueError, match=r"one text per new passage \(1\), got 2"):
        add_passages(idx, [[("a b c", "r", "d e f")]], ["x", "y"])
    with pytest.raises(ValueError, match=r"triples_per_passage\[0\]\[0\] must be three strings"):
        add_passages(idx, [[("a", "b")]], ["x"])
    bare = build_index([[("Alice", "knows", "Bob")]])
    with pytest.raises(ValueError, match="keeps no passage texts"):
        add_passages(bare, [[("Alice", "knows", "Carol")]], ["x"])
    with pytest.raises(TypeError, match="index must be a HippoIndex"):
        add_passages("index", [])
    with pytest.raises(TypeError, match="index must be a HippoIndex"):
        delete_passages(None, [0])


class FittingTable:
    """A dense custom encoder with ``fit``: unit vectors for the phrases it was fit on."""

    def __init__(self):
        self.vocab = None

    def fit(self, texts):
        self.vocab = sorted(set(texts))
        return self

    def __call__(self, texts):
        X = np.zeros((len(texts), len(self.vocab) + 1))
        for i, t in enumerate(texts):
            X[i, self.vocab.index(t) if t in self.vocab else -1] = 1.0
        return X


def test_custom_encoder_with_fit_is_copied_and_refit():
    mine = FittingTable()
    a = build_index([[("cat", "is a", "pet")]], encoder=mine)
    assert mine.vocab is None and a.encoder.vocab == ["cat", "pet"]
    assert add_passages(a, [[("dog", "is a", "pet")]]).encoder is a.encoder  # kept unless refit
    b = add_passages(a, [[("dog", "is a", "pet")]], refit=True)
    assert a.encoder.vocab == ["cat", "pet"] and b.encoder.vocab == ["cat", "dog", "pet"]
    ref = build_index([[("cat", "is a", "pet")], [("dog", "is a", "pet")]], encoder=mine)
    assert_same_index(b, ref)
