"""Index maintenance: delete's default, what a bad id or text is called, repeated triples, the rule.

A mutation run over ``index/maintenance.py`` left alive a ``delete_passages`` whose default refits
the encoder, type and value errors that name the wrong id, type or nothing, a repeated triple
counted twice when it touches node 0, and added phrases normalised by the default rule instead of
the index's. Expected values are written by hand.
"""

import numpy as np
import pytest

from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.index.maintenance import add_passages, delete_passages, renumber_after_delete

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
    from tests.test_hipporag_maintenance import assert_same_index

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
    from tests.test_hipporag_maintenance import assert_same_index

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
    from tests.test_hipporag_maintenance import assert_same_index

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


def test_deleting_no_passage_changes_nothing():
    """An empty list of ids deletes nothing: the index equals a fresh build of the same passages
    with its encoder, and every id maps to itself."""
    from tests.test_hipporag_maintenance import assert_same_index

    idx = _fresh(BASE, tau=0.5)
    same = delete_passages(idx, [])
    assert_same_index(same, _fresh(BASE, tau=0.5, encoder=idx.encoder, fit_encoder=False))
    assert renumber_after_delete(3, []).tolist() == [0, 1, 2]


def test_adding_keeps_the_width_of_a_wider_frozen_encoder():
    """With an encoder fit on more phrases than the index has, the embedding matrix keeps one
    column per n-gram of the encoder after an add, as a fresh build has it, also for n-grams that
    no phrase of the index uses (here those of "zebra xylophone")."""
    from pathfinding.hipporag.index.encoder import CharNgramEncoder
    from tests.test_hipporag_maintenance import assert_same_index

    enc = CharNgramEncoder().fit(["alice smith", "bob", "paris", "france", "zebra xylophone"])
    idx = _fresh(BASE, encoder=enc, fit_encoder=False, tau=0.5)
    width = len(enc.get_state()[1])
    assert idx.node_embeddings.shape[1] == width
    grown = add_passages(idx, MORE, _texts(MORE, len(BASE)))
    assert grown.node_embeddings.shape == (len(grown.phrases), width)
    assert_same_index(grown, _fresh(BASE + MORE, encoder=enc, fit_encoder=False, tau=0.5))


def test_a_cosine_exactly_at_tau_is_a_synonym_after_an_add():
    """A new phrase whose cosine with an old one is exactly tau (0.6 = (1, 0) . (0.6, 0.8)) gets the
    synonymy edge a fresh build gives it, with a sparse encoder."""
    import scipy.sparse as sp

    from tests.test_hipporag_maintenance import assert_same_index

    table = {"cat": [1.0, 0.0], "kitten": [0.6, 0.8], "dog": [0.0, 1.0], "pet": [0.0, 1.0]}

    def enc(texts):
        return sp.csr_array(np.array([table.get(t, [0.0, 0.0]) for t in texts]))

    kw = {"encoder": enc, "fit_encoder": False, "tau": 0.6}
    idx = build_index([[("cat", "is a", "pet")]], **kw)
    grown = add_passages(idx, [[("kitten", "likes", "dog")]])
    fresh = build_index([[("cat", "is a", "pet")], [("kitten", "likes", "dog")]], **kw)
    assert_same_index(grown, fresh)
    i, j = grown.phrase_ids["cat"], grown.phrase_ids["kitten"]
    assert grown.synonymy_graph[i, j] == 0.6


def test_deleting_with_a_sparse_encoder_as_wide_as_the_remaining_phrases():
    """A delete that leaves as many phrases as the encoder has columns (two) keeps only the rows of
    the remaining phrases, as a fresh build does; deleting every passage is refused by name."""
    import scipy.sparse as sp

    from tests.test_hipporag_maintenance import assert_same_index

    table = {"cat": [1.0, 0.0], "kitten": [0.6, 0.8], "dog": [0.0, 1.0], "pet": [0.0, 1.0]}

    def enc(texts):
        return sp.csr_array(np.array([table.get(t, [0.0, 0.0]) for t in texts]))

    kw = {"encoder": enc, "fit_encoder": False, "tau": 0.6}
    idx = build_index([[("cat", "is a", "pet")], [("kitten", "likes", "dog")]], **kw)
    smaller = delete_passages(idx, [1])
    assert smaller.phrases == ["cat", "pet"] and smaller.node_embeddings.shape == (2, 2)
    assert_same_index(smaller, build_index([[("cat", "is a", "pet")]], **kw))
    with pytest.raises(InvalidValueError, match=r"^no phrase nodes: every passage has no usable triple$"):
        delete_passages(idx, [0, 1])


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


def test_the_casing_model_follows_the_passages_through_add_and_delete():
    """The casing model is derived from the passages: an added passage's names are read in the next
    question, a deleted passage's are not, and each equals a fresh build's."""
    from pathfinding.hipporag.casing import casing_model
    from pathfinding.hipporag.reading import read_question

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
