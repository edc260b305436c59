"""BM25 and the fact linker against the formula written here, and their edge cases.

Lucene's BM25 (bm25s' default): idf(w) = ln(1 + (N - df + 0.5) / (df + 0.5)) and
score(d) = sum over distinct query words of idf(w) * tf / (tf + k1 (1 - b + b |d| / avgdl)), with
English stop words removed from the passages (so |d| counts the words left). A mutation run showed
that ``k1``/``b`` not reaching bm25s, stop words kept in the passages, an index without relation
edges, and the default numbers of facts and passages were all unpinned.
"""



import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.language.text import words
from pathfinding.hipporag.retrieval import lexical
from pathfinding.hipporag.retrieval.lexical import (
    QUESTION_WORDS,
    BM25Ranker,
    FactLinker,
    _chunks,
    near_tie,
    ranks_that_matter,
    top_k,
)

DOCS = ["the cat sat on the mat", "dog chased cat", "dog dog barked at the mailman loudly", "birds sing"]
STOP = {"the", "on", "at"}  # the English stop words among DOCS' words


def _bm25_by_hand(docs, query, k1, b):
    toks = [[w for w in d.split() if w not in STOP] for d in docs]
    avgdl = np.mean([len(t) for t in toks])
    s = np.zeros(len(toks))
    for w in dict.fromkeys(query.split()):
        df = sum(w in t for t in toks)
        if df == 0:
            continue
        idf = np.log(1 + (len(toks) - df + 0.5) / (df + 0.5))
        for j, t in enumerate(toks):
            tf = t.count(w)
            s[j] += idf * tf / (tf + k1 * (1 - b + b * len(t) / avgdl))
    return s


@pytest.mark.parametrize(("k1", "b"), [(1.5, 0.75), (0.5, 0.3), (2.0, 1.0)])
def test_bm25_is_lucenes_formula_with_stop_words_dropped(k1, b):
    bm = BM25Ranker(DOCS, k1=k1, b=b)
    for query in ["cat dog", "dog", "the cat", "mailman birds"]:
        np.testing.assert_allclose(bm.scores(query), _bm25_by_hand(DOCS, query, k1, b), rtol=1e-6)


def test_bm25_defaults_are_k1_1_5_b_0_75_and_ten_passages():
    want = _bm25_by_hand(DOCS, "cat dog", 1.5, 0.75)
    np.testing.assert_allclose(BM25Ranker(DOCS).scores("cat dog"), want, rtol=1e-6)
    many = BM25Ranker([f"word{i} cat" for i in range(12)])
    assert many.rank("cat").tolist() == list(range(10))


def test_bm25_is_blind_to_case_on_both_sides():
    """A question scores the same in lower, upper or mixed case, and a corpus written in capitals
    scores as the same corpus in lower case (both sides are lower-cased)."""
    docs = ["Ed Wood directed Plan 9.", "Plan 9 was filmed in Burbank.", "Burbank is in California."]
    bm = BM25Ranker(docs)
    want = bm.scores("ed wood burbank")
    assert np.count_nonzero(want) == 3
    for q in ("ED WOOD BURBANK", "Ed Wood Burbank", "eD wOOD bUrBaNk"):
        np.testing.assert_array_equal(bm.scores(q), want)
    np.testing.assert_array_equal(BM25Ranker([d.upper() for d in docs]).scores("ed wood burbank"), want)
    np.testing.assert_array_equal(BM25Ranker([d.lower() for d in docs]).scores("Ed Wood Burbank"), want)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "pattern"),
    [
        (([],), {}, InvalidValueError, r"^passages must be a non-empty sequence of strings$"),
        (("one text",), {}, InvalidValueError, r"^passages must be a non-empty sequence of strings$"),
        ((DOCS,), {"k1": -1.0}, InvalidValueError, r"^k1 must be in"),
        ((DOCS,), {"b": 1.5}, InvalidValueError, r"^b must be in \[0, 1\]"),
        ((DOCS,), {"b": -0.5}, InvalidValueError, r"^b must be in \[0, 1\]"),
    ],
)
def test_bm25_names_bad_arguments(args, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        BM25Ranker(*args, **kwargs)


def test_bm25_names_a_bad_question():
    with pytest.raises(InvalidTypeError, match=r"^question must be a string, got int$"):
        BM25Ranker(DOCS).scores(3)


def test_top_k_names_bad_arguments():
    with pytest.raises(InvalidValueError, match=r"^k must be in \[1, inf\]"):
        top_k([1.0, 2.0], 0)
    with pytest.raises(InvalidValueError, match=r"^scores must be 1-D, got shape \(1, 2\)"):
        top_k([[1.0, 2.0]], 1)


@settings(max_examples=200)
@given(data=st.data(), n=st.integers(1, 12), lam=st.floats(0.05, 0.95), c=st.sampled_from([1.0, 10.0, 60.0]))
def test_walk_ranks_beyond_those_that_matter_leave_the_fused_top_k_alone(data, n, lam, c):
    """Two walks that rank the same passages first, in the same order, up to ranks_that_matter (the
    order near_tie checks), fuse with BM25 to the same top k, however they rank the rest."""
    from pathfinding.hipporag.retrieval.retrieve import HippoRetriever

    fuse = HippoRetriever(build_index([[("Ed Wood", "directed", "Plan 9")]]), fusion_c=c).fuse
    level = st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.5])  # few values: ties of every kind
    walk, bm = (np.array(data.draw(st.lists(level, min_size=n, max_size=n))) for _ in range(2))
    k = data.draw(st.integers(1, n))
    reach = ranks_that_matter(fuse(walk, bm, lam), k, lam, c)
    tail = top_k(walk, n)[reach:]
    tail = tail[walk[tail] > 0]  # passages the walk ranks below reach (a zero has no walk rank)
    moved = walk.copy()
    moved[tail] = data.draw(st.permutations(walk[tail].tolist())) if tail.size else moved[tail]
    assume(top_k(moved, min(reach, n)).tolist() == top_k(walk, min(reach, n)).tolist())
    assert top_k(fuse(moved, bm, lam), k).tolist() == top_k(fuse(walk, bm, lam), k).tolist()


def test_near_tie_reads_the_best_k_plus_one():
    scores = [0.4, 0.0, 0.3, 0.3 + 1e-13, 0.1, 0.1]
    assert not near_tie(scores, 1e-12, 1)  # 0.4 and 0.3: apart
    assert near_tie(scores, 1e-12, 2)  # the two 0.3s
    assert not near_tie([0.2, 0.0, 0.0], 1.0, 3)  # zeros are no tie: no walk rank at all


# Words with what bm25s and our tokenizer must agree on: stop words, case, a mark, unspaced scripts,
# a word under two letters, repeats (the strategy draws with replacement).
WORDS = ["the", "of", "Ed", "wood", "WOOD", "Südhof", "東京都", "x", "9th", "a", "is", "plan", "it's"]
texts = st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join)


def _bm25s_state(docs):
    """The vocabulary (in id order) and score arrays bm25s builds from our tokens."""
    bm25s = pytest.importorskip("bm25s")
    toks = bm25s.tokenize([" ".join(words(d)) for d in docs], lower=False, token_pattern=r"\S+",
                          stopwords="en", show_progress=False)
    if not toks.vocab:
        return [], {}
    model = bm25s.BM25()
    model.index(toks, show_progress=False)
    vocab = sorted(model.vocab_dict, key=model.vocab_dict.__getitem__)
    return vocab, {key: np.asarray(model.scores[key]) for key in ("data", "indices", "indptr")}


@settings(max_examples=60)
@given(docs=st.lists(texts, min_size=1, max_size=7))
def test_bm25_indexes_as_bm25s_does_bit_for_bit(docs):
    """Our own indexing gives bm25s' vocabulary (numbered in its order) and its score arrays,
    values and dtypes alike."""
    _, vocab, arrays = BM25Ranker(docs).get_state()
    want_vocab, want = _bm25s_state(docs)
    assert vocab == want_vocab
    assert arrays.keys() == want.keys()
    for key in want:
        assert arrays[key].dtype == want[key].dtype and np.array_equal(arrays[key], want[key]), key


@settings(max_examples=20)
@given(facts=st.lists(st.tuples(texts, texts), min_size=1, max_size=6))
def test_fact_linker_indexes_each_fact_as_its_text(facts):
    """Facts indexed from their phrases' tokens equal BM25 over the texts "subject object"."""
    index = build_index([[(s, "r", o)] for s, o in facts if s.strip() and o.strip()] or [[("a1", "r", "b2")]])
    linker = FactLinker(index)
    pairs = zip(linker.heads, linker.tails, strict=True)
    fact_texts = [f"{index.phrases[h]} {index.phrases[t]}" for h, t in pairs]
    if not fact_texts:
        assert linker.get_state()[2] is None
        return
    want = BM25Ranker(fact_texts, query_stopwords=QUESTION_WORDS).get_state()
    got = linker.get_state()[2].get_state()
    assert got[:2] == want[:2]
    assert all(np.array_equal(got[2][k], want[2][k]) for k in want[2])


@pytest.mark.parametrize("prune", [False, True], ids=["scan", "maxscore"])
@settings(max_examples=60)
@given(docs=st.lists(texts, min_size=1, max_size=9), question=texts, k=st.integers(1, 10))
def test_best_is_top_k_of_every_score_without_zeros(docs, question, k, prune):
    """The best k read from the passages a token reaches are the top k of all scores, bit for
    bit, zeros left out (ties by id: the words repeat, so equal scores are common); the same when
    every question is pruned (MaxScore), however short its lists."""
    bm = BM25Ranker(docs)
    if prune:
        bm = _pruning(bm)
    scores = bm.scores(question)
    want = top_k(scores, k)
    want = want[scores[want] > 0]
    ids, got = bm.best(question, k)
    assert ids.dtype == np.int64 and np.array_equal(ids, want)
    assert got.dtype == np.float64 and np.array_equal(got, scores[want])


def _pruning(bm):
    """``bm`` with MaxScore on every question, whatever its lists' length."""
    from unittest.mock import patch

    class Always(BM25Ranker):
        def best(self, question, k):
            with patch.object(lexical, "PRUNE_FROM", -1):
                return super().best(question, k)

    return Always.from_state(*bm.get_state())


def test_maxscore_reads_only_the_lists_that_can_matter():
    """On a corpus where a common word reaches every passage and two rare ones a few each, the best 5
    are the full scan's, bit for bit, and the passages scored are the rare words', not all 2,000."""
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(300)]
    docs = [" ".join(["common", *rng.choice(vocab, 6)]) for _ in range(2000)]
    for j, word in ((5, "zanzibar"), (700, "zanzibar"), (1999, "zanzibar"), (40, "quokka"), (1500, "quokka")):
        docs[j] += f" {word} {word}"
    bm = BM25Ranker(docs)
    question = "common zanzibar w7 quokka"
    scores = bm.scores(question)
    want = top_k(scores, 5)
    assert set(want.tolist()) == {5, 700, 1999, 40, 1500}
    cols = np.array([bm._vocab[t] for t in bm.tokens(question)])
    cand = bm._candidates(cols, 5)
    assert cand is not None and set(want.tolist()) <= set(cand.tolist()) and cand.size < 100
    ids, got = _pruning(bm).best(question, 5)
    assert np.array_equal(ids, want) and np.array_equal(got, scores[want])


@pytest.fixture(scope="module")
def woods():
    """Seven facts that "wood" matches equally, each joining two nodes with consecutive ids."""
    return build_index([[(f"wood {c}", "r", f"wood {c}{c}")] for c in "abcdefg"])


def test_fact_linker_takes_five_facts_by_default_ties_by_id(woods):
    linker = FactLinker(woods)
    nodes, weights = linker.seeds("wood")
    want = sorted(woods.phrase_ids[p] for c in "abcde" for p in (f"wood {c}", f"wood {c}{c}"))
    assert nodes.tolist() == want and np.all(weights == 1.0)
    assert linker.seeds("wood", n_facts=6)[0].size == 12


def test_fact_linker_reads_every_relation_edge_as_a_fact(woods):
    # "wood a" < "wood aa" < "wood b" ...: each fact joins neighbouring ids, the first upper diagonal
    linker = FactLinker(woods)
    pairs = {(woods.phrases[h], woods.phrases[t]) for h, t in zip(linker.heads, linker.tails, strict=True)}
    assert pairs == {(f"wood {c}", f"wood {c}{c}") for c in "abcdefg"}


def test_fact_linker_with_no_fact_or_no_match_gives_empty_int_ids():
    no_edges = build_index([[("Ed Wood", "is", "Ed Wood")]])  # a self-loop: a node, no edge
    assert no_edges.relation_graph.nnz == 0
    no_match = FactLinker(build_index([[("a1", "r", "b2")]]))
    for linker, question in [(FactLinker(no_edges), "ed wood"), (no_match, "zz")]:
        nodes, weights = linker.seeds(question)
        assert nodes.shape == (0,) and nodes.dtype == np.int64 and weights.shape == (0,)


def test_fact_linker_names_bad_arguments(woods):
    with pytest.raises(InvalidTypeError, match=r"^index must be a HippoIndex, got str$"):
        FactLinker("index")
    with pytest.raises(InvalidValueError, match=r"^n_facts must be in \[1, inf\]"):
        FactLinker(woods).seeds("wood", n_facts=0)


def test_fact_linker_drops_question_words_and_keeps_each_nodes_best_fact():
    """"where" and "did" match no fact (an album titled "Where It All Began" would otherwise be a
    seed), and "ed wood", in the best fact and in a weaker one, keeps the best fact's weight 1."""
    index = build_index(
        [
            [("Where It All Began", "is", "album")],
            [("Ed Wood", "directed", "Plan 9")],
            [("Ed Wood", "born in", "Poughkeepsie")],
        ]
    )
    nodes, weights = FactLinker(index).seeds("where did ed wood film plan 9?")
    found = dict(zip((index.phrases[i] for i in nodes), weights.tolist(), strict=True))
    assert set(found) == {"ed wood", "plan 9", "poughkeepsie"}
    assert found["ed wood"] == found["plan 9"] == 1.0 and 0 < found["poughkeepsie"] < 1


def test_bm25_scores_are_float64_and_query_stop_words_must_be_words():
    assert BM25Ranker(DOCS).scores("cat").dtype == np.float64
    with pytest.raises(InvalidTypeError, match=r"^query_stopwords must be an iterable of words"):
        BM25Ranker(DOCS, query_stopwords=["the", 3])


def test_fact_linker_weights_by_best_fact():
    idx = build_index(
        [
            [("Ed Wood", "directed", "Plan 9")],
            [("Plan 9", "filmed in", "Burbank")],
            [("Paris", "capital of", "France")],
        ]
    )
    nodes, w = FactLinker(idx).seeds("ed wood plan 9", n_facts=2)
    got = dict(zip([idx.phrases[i] for i in nodes], w.tolist(), strict=True))
    assert got["ed wood"] == 1.0 and got["plan 9"] == 1.0  # the best fact names both
    assert 0 < got["burbank"] < 1.0 and "paris" not in got
    assert FactLinker(idx).seeds("zebra")[0].size == 0


def test_fact_linker_ignores_question_words():
    # "when did ... where" must not pick the song titles over the question's only rare entity
    idx = build_index(
        [
            [("Did It for the Girl", "performed by", "Greg Bates")],
            [("Where It All Began", "charted on", "Country Airplay")],
            [("Clonbrook", "located in", "Guyana")],
        ]
    )
    nodes, _ = FactLinker(idx).seeds("when did the country where clonbrook is located join?", n_facts=1)
    assert [idx.phrases[i] for i in nodes] == ["clonbrook", "guyana"]
    assert FactLinker(idx).seeds("when did where")[0].size == 0  # nothing but question words
    with pytest.raises(TypeError, match="query_stopwords"):
        BM25Ranker(["a text"], query_stopwords="when")


@given(st.lists(st.sampled_from([-1.0, 0.0, 0.1, 0.5, 2.0]), min_size=1, max_size=300), st.integers(1, 80))
def test_top_k_selection_equals_a_full_sort(scores, k):
    s = np.array(scores)
    assert top_k(s, k).tolist() == np.lexsort((np.arange(s.size), -s))[:k].tolist()


def test_top_k_ties_by_id_zeros_last():
    assert top_k([0.2, 0.0, 0.2, 0.5], 10).tolist() == [3, 0, 2, 1]
    assert top_k([0.2, 0.0, 0.2, 0.5], 2).tolist() == [3, 0]
    assert top_k([0.0, 0.0, 0.0], 2).tolist() == [0, 1]


def test_bm25_ranker_pins_the_promised_tie_order():
    bm = BM25Ranker(["the cat sat", "a dog ran", "cat and dog"])
    s = bm.scores("cat")
    assert s[0] == s[2] > 0 == s[1]  # "cat sat" and "cat dog": same length, same tf
    assert bm.rank("cat", 5).tolist() == [0, 2, 1]
    assert bm.rank("zebra", 2).tolist() == [0, 1]


def test_turkish_suffixes_and_capitals_match():
    """"İstanbul'da" (in Istanbul) folds to "istanbul" + "da": a lower-case question finds it."""
    passages = ["Orhan Pamuk İstanbul'da doğdu.", "Ankara Türkiye'nin başkentidir.", "Paris is in France."]
    bm = BM25Ranker(passages)
    assert bm.rank("istanbul", 1).tolist() == [0] and bm.rank("İSTANBUL", 1).tolist() == [0]
    assert bm.rank("türkiye", 1).tolist() == [1]


def test_bm25_over_texts_without_words():
    bm = BM25Ranker(["", ""])
    assert bm.scores("anything at all").tolist() == [0.0, 0.0]
    assert BM25Ranker(["B met C.", "E saw F."]).scores("who met").argmax() == 0


def test_documents_are_indexed_in_consecutive_runs_of_about_size_items():
    """Documents ending at items 2, 5, 9, 10, in runs of about 3 items: a run takes documents while
    they fit and at least one (document 2 alone holds 4); each starts where the last ended."""
    runs = list(_chunks(np.array([2, 5, 9, 10]), 3))
    assert runs == [(0, 1, 0, 2), (1, 2, 2, 5), (2, 3, 5, 9), (3, 4, 9, 10)]
    assert list(_chunks(np.array([2, 5, 9, 10]), 100)) == [(0, 4, 0, 10)]
