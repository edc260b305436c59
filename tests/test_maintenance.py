"""Index maintenance: add_passages / delete_passages equal a fresh build_index, for both encoder
modes; delete's default, what a bad id or text is called, repeated triples, the rule.

A mutation run over ``index/maintenance.py`` left alive a ``delete_passages`` whose default refits
the encoder, type and value errors that name the wrong id, type or nothing, a repeated triple
counted twice when it touches node 0, and added phrases normalised by the default rule instead of
the index's. Expected values are written by hand.

Adding passages finds the synonym pairs a fresh build finds, at the threshold too: a fresh build
keeps a pair whose cosine is ``tau`` up to a rounding slack (1e-12); the pairs an addition computes
for its new rows must be the same pairs, for dense vectors (a neural encoder) as for sparse ones
(the character n-grams), or an index grown by additions differs from the index built at once.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.build import build_index, similar_pairs
from pathfinding.hipporag.index.encoder import CharNgramEncoder
from pathfinding.hipporag.index.maintenance import (
    _new_pairs,
    add_passages,
    delete_passages,
    renumber_after_delete,
)
from pathfinding.hipporag.index.model import PositionalIds
from pathfinding.hipporag.io.records import FileStamp, Source
from pathfinding.hipporag.language.casing import casing_model
from pathfinding.hipporag.retrieval.retrieve import HippoRetriever
from tests.conftest import Table

TRIPLES = [[("Ed Wood", "directed", "Plan 9")], [("Plan 9", "filmed in", "Burbank")]]


def test_delete_keeps_the_encoder_unless_asked_to_refit():
    """``refit`` defaults to False, as in add_passages: the new index uses the same encoder object."""
    idx = build_index(TRIPLES)
    smaller = delete_passages(idx, [0])
    assert smaller.encoder is idx.encoder and smaller.settings["fit_encoder"] is False
    assert smaller.phrases == ["burbank", "plan 9"]
    assert delete_passages(idx, [0], refit=True).encoder is not idx.encoder


def test_a_passage_id_of_the_wrong_type_is_named_with_its_type():
    """The error shows the bad id and its own type (here a string inside the list)."""
    with pytest.raises(InvalidTypeError, match=r"^passage ids must be integers, got 'a' \(str\)$"):
        renumber_after_delete(3, ["a"])


def test_a_repeated_passage_id_is_the_one_named():
    """Of ids 3, 1, 3 the repeated one is 3; the smaller id 1, given once, is not blamed."""
    with pytest.raises(InvalidValueError, match=r"^passage id 3 is given more than once$"):
        renumber_after_delete(5, [3, 1, 3])


def test_adding_a_triple_the_index_has_counts_it_once():
    """Two passages with the same triple hold one unique triple, also when its subject or its object
    is the first phrase of the index (node 0): "alice" sorts before "bob"."""
    for triple in [("Alice", "knows", "Bob"), ("Bob", "knows", "Alice")]:
        idx = build_index([[triple]])
        assert idx.phrases[0] == "alice" and idx.stats.n_unique_triples == 1
        grown = add_passages(idx, [[triple]])
        assert grown.n_passages == 2 and grown.stats.n_unique_triples == 1


def test_an_add_keeps_the_embeddings_32_bit_column_indices():
    # 64-bit offsets beside 32-bit columns made scipy copy every column index into 64 bits: twice the
    # memory, and most of an add's time at a million passages.
    idx = build_index([[("Ed Wood", "directed", "Plan 9")]], passages=["Ed Wood directed Plan 9."])
    assert idx.node_embeddings.indices.dtype == np.int32
    new = add_passages(idx, [[("Bela Lugosi", "starred in", "Plan 9")]], ["Bela Lugosi starred in Plan 9."])
    E = new.node_embeddings
    assert (E.indices.dtype, E.indptr.dtype) == (np.int32, np.int32)
    assert new.phrases == ["bela lugosi", "ed wood", "plan 9"]


def test_added_phrases_are_normalised_by_the_index_rule():
    """An index built with v1's ASCII rule keeps it for added passages: "Thomas Südhof" becomes
    "thomas s dhof" there (the ü is a space), and "thomas südhof" in a default (Unicode) index."""
    added = [[("Thomas Südhof", "won", "Nobel Prize")]]
    v1 = add_passages(build_index(TRIPLES, normalization="ascii"), added)
    assert "thomas s dhof" in v1.phrases and v1.settings["normalization"] == "ascii"
    assert "thomas südhof" in add_passages(build_index(TRIPLES), added).phrases


NEW = [[("Plan 9", "filmed in", "Burbank")]]


@pytest.mark.parametrize(
    ("texts", "passages", "error", "pattern"),
    [
        (
            ["Ed Wood directed Plan 9.", "Plan 9 was filmed in Burbank."],
            "one text",
            InvalidTypeError,
            r"^passages must be a sequence of strings, got a string$",
        ),
        (
            None,
            ["a text"],
            InvalidValueError,
            r"^this index keeps no passage texts \(built without passages=\): pass none$",
        ),
        (
            ["Ed Wood directed Plan 9.", "Plan 9 was filmed in Burbank."],
            [3],
            InvalidTypeError,
            r"^passages\[0\] must be a string, got int$",
        ),
    ],
)
def test_new_passage_texts_are_checked_by_name(texts, passages, error, pattern):
    """Each wrong ``passages`` argument of add_passages gets a message that names it and says why."""
    idx = build_index(TRIPLES, passages=texts)
    with pytest.raises(error, match=pattern):
        add_passages(idx, NEW, passages)


# A fixed corpus with what updates must keep right: near-duplicate phrases (synonymy edges), a
# repeated triple, a self-loop, a triple whose subject normalises to nothing, a passage without triples.
BASE = [
    [("Alice Smith", "knows", "Bob"), ("Alice Smyth", "in", "Paris")],
    [("Paris", "in", "France"), ("Paris City", "in", "France")],
    [("Ed Wood", "directed", "Plan 9"), ("!!", "is", "x")],
    [("Bob", "knows", "Bob"), ("Alice Smith", "knows", "Bob")],
    [],
    [("Edward Wood", "directed", "Plan Nine"), ("New York", "in", "US")],
]
MORE = [
    [("Bobby", "knows", "Alice Smith"), ("The Beatles", "in", "New York")],
    [("Beatles", "in", "Paris"), ("Alice Smith", "knows", "Bob")],
]
MANY = [[(f"Person {i:03d}", "knows", f"Place {i:03d}")] for i in range(40)]  # 80 new phrases


def _texts(corpus, start=0):
    return [f"passage {start + j}" for j in range(len(corpus))]


def _fresh(corpus, **kw):
    return build_index(corpus, passages=_texts(corpus), **kw)


@pytest.mark.parametrize("synonymy", [True, False])
@pytest.mark.parametrize("more", [MORE, MANY, MORE + MANY], ids=["few", "many", "both"])
def test_adding_equals_a_fresh_build_with_the_encoder_kept(more, synonymy):
    """Passages appended with the encoder kept give the index a fresh build of the whole corpus gives
    with that encoder fixed: phrases, matrices (bit for bit), stats, texts and settings. "Many" adds
    80 new phrases, more than are inserted into the phrase list one by one."""

    kw = {"tau": 0.5, "max_synonyms": 2, "synonymy": synonymy}
    idx = _fresh(BASE, **kw)
    grown = add_passages(idx, more, _texts(more, len(BASE)))
    assert_same_index(grown, _fresh(BASE + more, encoder=idx.encoder, fit_encoder=False, **kw))
    assert grown.settings["fit_encoder"] is False and grown.encoder is idx.encoder
    refit = add_passages(idx, more, _texts(more, len(BASE)), refit=True)
    assert_same_index(refit, _fresh(BASE + more, **kw))


@pytest.mark.parametrize("gone", [[0], [3], [5], [1, 2], [0, 3, 4]])
def test_deleting_equals_a_fresh_build_of_the_rest(gone):
    """Deleting passages gives the index a fresh build of the remaining passages gives (the encoder
    kept, or refit), for the first, a middle, the last and several passages."""

    kw = {"tau": 0.5, "max_synonyms": 2}
    idx = _fresh(BASE + MORE, **kw)
    rest = [doc for j, doc in enumerate(BASE + MORE) if j not in gone]
    texts = [t for j, t in enumerate(_texts(BASE + MORE)) if j not in gone]
    smaller = delete_passages(idx, gone)
    assert_same_index(
        smaller, build_index(rest, passages=texts, encoder=idx.encoder, fit_encoder=False, **kw)
    )
    assert_same_index(delete_passages(idx, gone, refit=True), build_index(rest, passages=texts, **kw))


def test_updates_with_a_dense_encoder_equal_a_fresh_build():
    """With a custom dense encoder (nothing to refit), adding and deleting give a fresh build's index."""

    def enc(texts):
        X = np.array([[len(t), t.count("a") + 1.0, t.count(" ") + 1.0] for t in texts], dtype=float)
        return X / np.linalg.norm(X, axis=1, keepdims=True)

    kw = {"tau": 0.99, "max_synonyms": 3, "encoder": enc}
    idx = _fresh(BASE, **kw)
    grown = add_passages(idx, MORE, _texts(MORE, len(BASE)), refit=True)
    assert_same_index(grown, _fresh(BASE + MORE, fit_encoder=False, **kw))
    assert grown.synonymy_graph.nnz > 0
    rest = [doc for j, doc in enumerate(BASE + MORE) if j != 1]
    texts = [t for j, t in enumerate(_texts(BASE + MORE)) if j != 1]
    assert_same_index(delete_passages(grown, [1]), build_index(rest, passages=texts, fit_encoder=False, **kw))


def test_a_node_whose_nearest_is_deleted_takes_its_next_nearest():
    """k = 1 and three phrases at cosine 1: "aaa x" keeps "aaa y" (the lower id), and when the passage
    of "aaa y" goes, it takes "aaa z", which it never stored: its list is searched again."""

    def same(texts):
        return np.full((len(texts), 2), np.sqrt(0.5))

    docs = [[("aaa x", "r", "q1")], [("aaa y", "r", "q2")], [("aaa z", "r", "q3")]]
    idx = build_index(docs, encoder=same, max_synonyms=1)
    x, y, z = (idx.phrase_ids[p] for p in ("aaa x", "aaa y", "aaa z"))
    assert idx.pairs[[x]].indices.tolist() == [y]
    smaller = delete_passages(idx, [1])
    fresh = build_index([docs[0], docs[2]], encoder=same, max_synonyms=1, fit_encoder=False)
    assert_same_index(smaller, fresh)
    assert smaller.pairs[[smaller.phrase_ids["aaa x"]]].indices.tolist() == [smaller.phrase_ids["aaa z"]]


def test_two_synonyms_a_deleted_triple_joined_become_synonymy_edges():
    """A relation edge keeps two similar phrases from a synonymy edge; when the only passage that
    joined them goes and both stay, the edge appears, as in a fresh build of the rest."""

    def same(texts):
        return np.full((len(texts), 2), np.sqrt(0.5))

    docs = [[("aaa x", "r", "aaa y")], [("aaa x", "r", "q1")], [("aaa y", "r", "q2")]]
    idx = build_index(docs, encoder=same, max_synonyms=5)
    x, y = idx.phrase_ids["aaa x"], idx.phrase_ids["aaa y"]
    assert idx.synonymy_graph[x, y] == 0  # the relation edge holds them apart
    smaller = delete_passages(idx, [0])
    assert_same_index(smaller, build_index(docs[1:], encoder=same, max_synonyms=5, fit_encoder=False))
    assert smaller.synonymy_graph[smaller.phrase_ids["aaa x"], smaller.phrase_ids["aaa y"]] > 0


def test_deleting_no_passage_changes_nothing():
    """An empty list of ids deletes nothing: the index equals a fresh build of the same passages
    with its encoder, and every id maps to itself."""

    idx = _fresh(BASE, tau=0.5)
    same = delete_passages(idx, [])
    assert_same_index(same, _fresh(BASE, tau=0.5, encoder=idx.encoder, fit_encoder=False))
    assert renumber_after_delete(3, []).tolist() == [0, 1, 2]


def test_adding_keeps_the_width_of_a_wider_frozen_encoder():
    """With an encoder fit on more phrases than the index has, the embedding matrix keeps one
    column per n-gram of the encoder after an add, as a fresh build has it, also for n-grams that
    no phrase of the index uses (here those of "zebra xylophone")."""
    from pathfinding.hipporag.index.encoder import CharNgramEncoder

    enc = CharNgramEncoder().fit(["alice smith", "bob", "paris", "france", "zebra xylophone"])
    idx = _fresh(BASE, encoder=enc, fit_encoder=False, tau=0.5)
    width = len(enc.get_state()[1])
    assert idx.node_embeddings.shape[1] == width
    grown = add_passages(idx, MORE, _texts(MORE, len(BASE)))
    assert grown.node_embeddings.shape == (len(grown.phrases), width)
    assert_same_index(grown, _fresh(BASE + MORE, encoder=enc, fit_encoder=False, tau=0.5))


def _sparse_table(texts):
    """:class:`tests.conftest.Table`'s vectors as a sparse matrix (as the character n-grams give)."""
    return sp.csr_array(Table()(texts))


def test_a_cosine_exactly_at_tau_is_a_synonym_after_an_add():
    """A new phrase whose cosine with an old one is exactly tau (0.6 = (1, 0) . (0.6, 0.8)) gets the
    synonymy edge a fresh build gives it, with a sparse encoder."""
    kw = {"encoder": _sparse_table, "fit_encoder": False, "tau": 0.6}
    idx = build_index([[("cat", "is a", "pet")]], **kw)
    grown = add_passages(idx, [[("kitten", "likes", "dog")]])
    fresh = build_index([[("cat", "is a", "pet")], [("kitten", "likes", "dog")]], **kw)
    assert_same_index(grown, fresh)
    i, j = grown.phrase_ids["cat"], grown.phrase_ids["kitten"]
    assert grown.synonymy_graph[i, j] == 0.6


def test_deleting_with_a_sparse_encoder_as_wide_as_the_remaining_phrases():
    """A delete that leaves as many phrases as the encoder has columns (two) keeps only the rows of
    the remaining phrases, as a fresh build does; deleting every passage is refused by name."""
    kw = {"encoder": _sparse_table, "fit_encoder": False, "tau": 0.6}
    idx = build_index([[("cat", "is a", "pet")], [("kitten", "likes", "dog")]], **kw)
    smaller = delete_passages(idx, [1])
    assert smaller.phrases == ["cat", "pet"] and smaller.node_embeddings.shape == (2, 2)
    assert_same_index(smaller, build_index([[("cat", "is a", "pet")]], **kw))
    with pytest.raises(InvalidValueError, match=r"^deleting all 2 passages would leave an empty index"):
        delete_passages(idx, [0, 1])
    idx = build_index([[("cat", "is a", "pet")], [("!!", "r", "??")]], **kw)  # the other has no phrase
    with pytest.raises(InvalidValueError, match=r"^no phrase nodes would remain: none of the 1 passages"):
        delete_passages(idx, [0])


def test_an_index_that_cannot_be_updated_is_named():
    """Updates need a HippoIndex with its triples, stored pairs and settings, whose P counts triples;
    each refusal says what is wrong, and a non-index is named by its type."""
    import dataclasses

    idx = build_index(TRIPLES, passages=["Ed Wood directed Plan 9.", "Plan 9 was filmed in Burbank."])
    with pytest.raises(InvalidTypeError, match=r"^index must be a HippoIndex, got dict$"):
        add_passages({}, NEW)
    lacks = r"^this index lacks the triples, pairs or settings that updates need; rebuild it$"
    for broken in (dataclasses.replace(idx, pairs=None), dataclasses.replace(idx, settings={})):
        with pytest.raises(InvalidValueError, match=lacks):
            delete_passages(broken, [0])
    text_p = build_index(
        TRIPLES, passages=["Ed Wood directed Plan 9.", "Plan 9 was filmed in Burbank."], mentions="text"
    )
    with pytest.raises(
        InvalidValueError,
        match=r"^this index counts P as mentions='text'; updates keep P as triple counts, so rebuild it "
        r"with build_index instead$",
    ):
        delete_passages(text_p, [0])


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
    """Each update (encoder kept, or refit) equals the build it stands for, and every passage keeps
    its id: new ones take the next free integers, a delete (by position or by id) renumbers none."""
    base = {"tau": tau, "max_synonyms": max_synonyms, "synonymy": synonymy}
    first = {"encoder": FROZEN, "fit_encoder": False} if frozen else {}
    corpus = list(initial)
    texts = [f"Text {j} names {c}" for j, c in enumerate(corpus)]
    ids = [str(j) for j in range(len(corpus))]
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
            top = max(map(int, ids), default=-1)
            ids += [str(top + 1 + i) for i in range(len(arg))]
            idx = add_passages(idx, arg, new_texts, refit=refit)
        else:
            gone = sorted({i % len(corpus) for i in arg})
            gone_ids = [ids[j] for j in gone]
            corpus = [c for j, c in enumerate(corpus) if j not in gone]
            texts = [t for j, t in enumerate(texts) if j not in gone]
            ids = [x for j, x in enumerate(ids) if j not in gone]
            try:
                idx = delete_passages(idx, ids=gone_ids, refit=refit) if refit else delete_passages(idx, gone)
            except ValueError as exc:
                if not corpus:  # every passage would go: refused, as an empty index would be
                    assert "would leave an empty index" in str(exc)
                    return
                assert "no phrase nodes" in str(exc)
                with pytest.raises(ValueError, match="no phrase nodes"):
                    build_index(corpus, passages=texts, **kw)
                return
        ref = build_index(corpus, passages=texts, **kw)
        assert_same_index(idx, ref)
        assert_same_retrieval(idx, ref, [["alice"], ["paris city", "bob"], ["plan nine"], ["zzz"]])
        assert list(idx.passage_ids) == ids


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
    enc = Table()
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
    with pytest.raises(ValueError, match="passage id 7 is out of range: the index has 2 passages"):
        delete_passages(idx, [7])
    with pytest.raises(ValueError, match="passage id 1 is given more than once"):
        delete_passages(idx, [1, 1])
    with pytest.raises(TypeError, match="passage ids must be integers, got '1'"):
        delete_passages(idx, ["1"])
    with pytest.raises(TypeError, match="must be integers, got the string"):
        delete_passages(idx, "1")
    with pytest.raises(ValueError, match="deleting all 2 passages would leave an empty index"):
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


PHRASES = ["alpha", "alphabet", "gamma ray"]


def _vectors(c: float) -> np.ndarray:
    """Three unit rows: rows 0 and 1 have cosine exactly ``c`` (1*c + 0*s); row 2 is orthogonal to 0."""
    return np.array([[1.0, 0.0], [c, np.sqrt(1.0 - c * c)], [0.0, 1.0]])


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize(
    "c", [0.8, 0.8 - 5e-13, 0.8 - 1e-12, 0.8 - 1e-9], ids=["at-tau", "within-slack", "at-slack", "below"]
)
def test_new_rows_get_the_pairs_a_fresh_build_gives(sparse, c):
    """The pairs of row 0 after adding it equal the fresh build's pairs of row 0, whatever side of
    the threshold the cosine 0.8 - 5e-13 falls on (kept by both), exactly tau - KEEP_SLACK (kept by
    both: the bound is inclusive) or 0.8 - 1e-9 (dropped by both)."""
    E = _vectors(c)
    E = sp.csr_array(E) if sparse else E
    fresh = similar_pairs(E, np.ones(3, dtype=bool), tau=0.8).toarray()
    added = _new_pairs(E, np.array([0]), PHRASES, 0.8).toarray()
    assert (added[0] > 0).tolist() == (fresh[0] > 0).tolist()
    assert (fresh[0, 1] > 0) == (c >= 0.8 - 1e-12)


def test_the_casing_model_follows_the_passages_through_add_and_delete():
    """The casing model is derived from the passages: an added passage's names are read in the next
    question, a deleted passage's are not, and each equals a fresh build's."""
    from pathfinding.hipporag.language.reading import read_question

    idx = build_index(TRIPLES, passages=["Ed Wood directed Plan 9.", "Plan 9 was filmed in Burbank."])
    q = "who starred with bela lugosi?"
    assert read_question(q, casing_model(idx)).text == q
    bigger = add_passages(idx, [[("Bela Lugosi", "starred in", "Plan 9")]], ["Plan 9 starred Bela Lugosi."])
    assert read_question(q, casing_model(bigger)).text == "who starred with Bela Lugosi?"
    fresh = build_index([*TRIPLES, [("Bela Lugosi", "starred in", "Plan 9")]],
                        passages=["Ed Wood directed Plan 9.", "Plan 9 was filmed in Burbank.",
                                  "Plan 9 starred Bela Lugosi."])  # fmt: skip
    assert casing_model(bigger) == casing_model(fresh)
    smaller = delete_passages(bigger, [2])
    assert casing_model(smaller) == casing_model(idx)
    assert casing_model(smaller).evidence("bela lugosi") is None


# --- ids, sources and file stamps -----------------------------------------------------------------


def test_an_add_takes_given_ids_or_the_next_free_integers_and_refuses_a_taken_one():
    idx = build_index([[("Alice", "knows", "Bob")], [("Bob", "lives in", "Paris")]], tau=0.5)
    grown = add_passages(idx, [[("Alice", "in", "Rome")], [("Bob", "in", "Oslo")]], ids=["notes.md", None])
    assert list(grown.passage_ids) == ["0", "1", "notes.md", "2"]
    # an index whose ids are its positions keeps them as a count while adds append
    plain = add_passages(idx, [[("Alice", "in", "Rome")]])
    assert isinstance(plain.passage_ids, PositionalIds) and list(plain.passage_ids) == ["0", "1", "2"]
    with pytest.raises(InvalidValueError, match="passage id 'notes.md' is already in the index"):
        add_passages(grown, [[("Alice", "in", "Lima")]], ids=["notes.md"])
    with pytest.raises(InvalidValueError, match="passage id '1' is already in the index"):
        add_passages(grown, [[("Alice", "in", "Lima")]], ids=["1"])
    with pytest.raises(InvalidValueError, match="passage id '1' is already in the index"):
        add_passages(plain, [[("Alice", "in", "Lima")]], ids=["1"])  # ids kept as a count
    with pytest.raises(InvalidValueError, match="passage id 'x' is given to 2 passages"):
        add_passages(idx, [[("Alice", "in", "Lima")], [("Bob", "in", "Lima")]], ids=["x", "x"])
    with pytest.raises(InvalidValueError, match=r"one id \(or None\) per new passage \(1\), got 2"):
        add_passages(idx, [[("Alice", "in", "Lima")]], ids=["x", "y"])


def test_a_delete_by_id_renumbers_no_other_id():
    idx = build_index([[("Alice", "knows", "Bob")], [("Bob", "lives in", "Paris")], [("Eve", "in", "Rome")]])
    smaller = delete_passages(idx, ids=["1"])
    assert list(smaller.passage_ids) == ["0", "2"] and smaller.positions_of(["2"]).tolist() == [1]
    assert list(add_passages(smaller, [[("Eve", "in", "Oslo")]]).passage_ids) == ["0", "2", "3"]
    with pytest.raises(InvalidValueError, match="no passage has the id '1'"):
        delete_passages(smaller, ids=["1"])
    with pytest.raises(InvalidValueError, match="by positions or by ids=, one of the two"):
        delete_passages(smaller, [0], ids=["0"])
    with pytest.raises(InvalidTypeError, match="passage ids are strings"):
        delete_passages(smaller, ids=[0])


def test_sources_follow_their_passages_and_a_files_stamp_lives_while_one_of_its_passages_does():
    idx = build_index([[("Alice", "knows", "Bob")]], passages=["Alice knows Bob."])
    a, b = Source("a.md", ("Intro",), 0, 10), Source("b.md", (), 0, 5)
    stamps = {"a.md": FileStamp("a" * 64, 6500), "b.md": FileStamp("b" * 64, 6500)}
    grown = add_passages(
        idx, [[("Bob", "in", "Paris")], [("Eve", "in", "Rome")], [("Eve", "likes", "Bob")]],
        ["p", "q", "r"], ids=["a.md#intro", "a.md#use", "b.md"], sources=[a, a, b], files=stamps,
    )  # fmt: skip
    assert grown.sources == [None, a, a, b] and grown.files == stamps
    one_left = delete_passages(grown, ids=["a.md#intro", "b.md"])
    assert one_left.sources == [None, a] and one_left.files == {"a.md": stamps["a.md"]}
    assert delete_passages(one_left, ids=["a.md#use"]).sources is None
    assert delete_passages(one_left, ids=["a.md#use"]).files == {}
