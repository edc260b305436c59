"""The retriever against computations written here from the definitions, not from its code.

A five-passage index whose graph, count matrix P, specificity and walks are all small enough to
compute with a dense linear solve. Each test builds what the engine should produce from the raw
triples (plain Python and numpy), then compares: the seed weights and their specificity, the v1
walk and pi . P, the hybrid restart's split between seeds and passages, the walk over passage
nodes (certified and uncertified paths), the BM25 fallback, and v1's synonymy eligibility rule.

Every knob of :class:`HippoRetriever` reaches the computation it names: a mutation run over
``retrieve.py`` left alive a ``restart_prob`` or ``tol`` not passed on to a walk, ``link_top_k`` or
``facts`` not passed on to the linker, synonymy edges dropped from the walk, the hybrid restart when
BM25 scores nothing or less than 1 in total, a callable extractor rejected, a user's BM25 ranker
ignored, the ablations fed an unnormalised restart.

Also retrieval on the HippoRAG sample files and the fusion with BM25 when the graph has little to say.
"""


import numpy as np
import pytest
import scipy.sparse as sp

from pathfinding.core import reference
from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.evaluation.metrics import recall_at_k, supporting_ids
from pathfinding.hipporag.extract.cooccurrence import cooccurrence_docs
from pathfinding.hipporag.index.build import build_index, index_from_openie, synonymy_eligible
from pathfinding.hipporag.io import Passage
from pathfinding.hipporag.language.casing import CasingModel
from pathfinding.hipporag.retrieval.lexical import QUESTION_WORDS, BM25Ranker, FactLinker, top_k
from pathfinding.hipporag.retrieval.linking import default_entities, link_entities
from pathfinding.hipporag.retrieval.retrieve import NO_MATCH, HippoRetriever
from tests.test_casing import TEXTS as CASING_TEXTS
from tests.test_casing import TRIPLES as CASING_TRIPLES

TRIPLES = [
    [("Ed Wood", "directed", "Plan 9"), ("Plan 9", "is a", "film")],
    [("Plan 9", "filmed in", "Burbank")],
    [("Burbank", "in", "California"), ("Ed Wood", "born in", "Poughkeepsie")],
    [("Paris", "capital of", "France")],
    [("Tim Burton", "directed", "Ed Wood"), ("Ed Wood", "is a", "film")],
]


PASSAGES = [
    "Ed Wood directed Plan 9 from Outer Space, a film.",
    "Plan 9 was filmed in Burbank.",
    "Burbank is a city in California. Ed Wood was born in Poughkeepsie.",
    "Paris is the capital of France.",
    "Tim Burton directed Ed Wood, a film about the director.",
]


RESTART_PROB = 0.5

# Two near-duplicate names join the graph by synonymy edges once tau is 0.5.
SYN_TRIPLES = [
    *TRIPLES,
    [("Burbank city", "in", "Los Angeles County"), ("Ed Woods", "lived in", "Burbank city")],
]
SYN_PASSAGES = [*PASSAGES, "Burbank city is in Los Angeles County; Ed Woods lived in Burbank city."]


@pytest.fixture(scope="module")
def syn_index():
    idx = build_index(SYN_TRIPLES, passages=SYN_PASSAGES, tau=0.5)
    assert idx.synonymy_graph.nnz > 0
    return idx


def _counts(index, triples):
    """Relation graph A and count matrix P from the raw triples, in the index's node order."""
    ids = index.phrase_ids
    n, m = index.n_nodes, len(triples)
    A, P = np.zeros((n, n)), np.zeros((n, m))
    for j, doc in enumerate(triples):
        for s, _, o in dict.fromkeys(doc):
            a, b = ids[s.lower()], ids[o.lower()]
            A[a, b] += 1
            A[b, a] += 1
            P[a, j] += 1
            P[b, j] += 1
    return A, P


def _entity_restart(index, P, names):
    """Seeds of weight 1 times 1/|P_i|, normalised."""
    r = np.zeros(index.n_nodes)
    for name in names:
        i = index.phrase_ids[name]
        r[i] = 1.0 / np.count_nonzero(P[i])
    return r / r.sum()


def _hybrid_by_hand(index, A, P, names, bm, beta, a):
    n, m = P.shape
    seeds = _entity_restart(index, P, names)
    beta = beta if bm.sum() > 0 else 0.0
    bm_part = beta * bm / bm.sum() if bm.sum() > 0 else np.zeros(m)
    restart = np.concatenate([(1 - beta) * seeds, bm_part])
    big = np.block([[A, P], [P.T, np.zeros((m, m))]])
    return restart, _ppr_dense(big, restart, a)[n:]


def _order(scores):
    return np.lexsort((np.arange(scores.size), -scores))


def _never_certified(monkeypatch):
    import pathfinding.hipporag.retrieval.retrieve as retrieve

    real = retrieve.ppr_top_k

    def never(*args, **kwargs):
        res = real(*args, **kwargs)
        return type(res)(**{**res.__dict__, "certified": False})

    monkeypatch.setattr(retrieve, "ppr_top_k", never)


def test_restart_prob_reaches_the_v1_walk(index):
    A, P = _counts(index, TRIPLES)
    names = ["ed wood", "burbank"]
    want = _ppr_dense(A, _entity_restart(index, P, names), 0.3) @ P
    ret = HippoRetriever(index, extractor=None, facts=0, passage_weight=0, restart_prob=0.3, tol=1e-13)
    got = ret.retrieve("?", k=index.n_passages, entities=["Ed Wood", "Burbank"])
    np.testing.assert_array_equal(got.passages, _order(want))
    np.testing.assert_allclose(got.scores, want[got.passages], atol=1e-11)
    assert got.entities == ("Ed Wood", "Burbank") and got.fell_back is False


def test_a_loose_tol_reaches_the_v1_walk(index):
    A, P = _counts(index, TRIPLES)
    want = _ppr_dense(A, _entity_restart(index, P, ["ed wood", "burbank"]), 0.5) @ P
    ret = HippoRetriever(index, extractor=None, facts=0, passage_weight=0, tol=0.05)
    got = ret.retrieve("?", k=index.n_passages, entities=["Ed Wood", "Burbank"])
    err = np.abs(got.scores - want[got.passages])
    # the walk stopped early (its error is visible) but within the certified L1 bound times max P
    assert err.max() > 1e-6 and err.max() <= 0.05 * P.max()
    assert got.walk_error == 0.05


@pytest.mark.parametrize("certified", [True, False], ids=["top-k certified", "full walk"])
def test_restart_prob_reaches_the_hybrid_walk(index, certified, monkeypatch):
    A, P = _counts(index, TRIPLES)
    question, beta = "Where was Plan 9 filmed?", 0.2
    ret = HippoRetriever(index, extractor=None, facts=0, passage_weight=beta, restart_prob=0.3, tol=1e-12)
    _, want = _hybrid_by_hand(index, A, P, ["ed wood", "burbank"], ret.bm25.scores(question), beta, 0.3)
    if not certified:
        _never_certified(monkeypatch)
    got = ret.retrieve(question, k=index.n_passages, entities=["Ed Wood", "Burbank"])
    np.testing.assert_array_equal(got.passages, _order(want))
    assert np.all(np.abs(got.scores - want[got.passages]) <= got.walk_error + 1e-12)
    assert got.entities == ("Ed Wood", "Burbank") and got.fell_back is False


@pytest.mark.parametrize("certified", [True, False], ids=["top-k certified", "full walk"])
def test_a_loose_tol_reaches_the_hybrid_walk(index, certified, monkeypatch):
    A, P = _counts(index, TRIPLES)
    question, beta, tol = "Where was Plan 9 filmed?", 0.2, 0.05
    ret = HippoRetriever(index, extractor=None, facts=0, passage_weight=beta, tol=tol)
    _, want = _hybrid_by_hand(index, A, P, ["ed wood", "burbank"], ret.bm25.scores(question), beta, 0.5)
    if not certified:
        _never_certified(monkeypatch)
    got = ret.retrieve(question, k=index.n_passages, entities=["Ed Wood", "Burbank"])
    err = np.abs(got.scores - want[got.passages])
    # a walk run to the default 1e-10 would be exact to 1e-10; this one stops at the loose tol
    assert err.max() > 1e-6 and np.all(err <= got.walk_error + 1e-12)
    if not certified:
        assert got.walk_error == tol


def test_the_hybrid_restart_when_bm25_scores_nothing_is_the_seeds_alone(index):
    A, P = _counts(index, TRIPLES)
    question = "zebra"  # no indexed token: beta falls to 0, the whole restart is on the seeds
    ret = HippoRetriever(index, extractor=None, facts=0, passage_weight=0.2, tol=1e-12)
    assert not ret.bm25.scores(question).any()
    w = ret.seed_weights(question, ["Ed Wood", "Burbank"]) * index.specificity
    want_restart, want = _hybrid_by_hand(index, A, P, ["ed wood", "burbank"], np.zeros(5), 0.2, 0.5)
    np.testing.assert_allclose(ret.hybrid_restart(question, w), want_restart, atol=1e-15)
    got = ret.retrieve(question, k=index.n_passages, entities=["Ed Wood", "Burbank"])
    np.testing.assert_array_equal(got.passages, _order(want))


def test_the_hybrid_split_holds_when_bm25_totals_less_than_one(index):
    A, P = _counts(index, TRIPLES)
    question, beta = "film", 0.2
    ret = HippoRetriever(index, extractor=None, facts=0, passage_weight=beta)
    bm = ret.bm25.scores(question)
    assert 0 < bm.sum() < 1  # one rare word: the split must not depend on the total's size
    w = ret.seed_weights(question, ["Ed Wood", "Burbank"]) * index.specificity
    want, _ = _hybrid_by_hand(index, A, P, ["ed wood", "burbank"], bm, beta, 0.5)
    got = ret.hybrid_restart(question, w)
    np.testing.assert_allclose(got, want, atol=1e-15)
    assert got[index.n_nodes :].sum() == pytest.approx(beta)


def _fact_seeds_by_hand(index, question, n_facts):
    """Best facts by BM25 over "subject object" texts; a node keeps its best fact's relative score."""
    facts = sorted(
        {tuple(sorted((index.phrase_ids[s.lower()], index.phrase_ids[o.lower()])))
         for doc in TRIPLES for s, _, o in doc}  # fmt: skip
    )
    texts = [f"{index.phrases[a]} {index.phrases[b]}" for a, b in facts]
    s = BM25Ranker(texts, query_stopwords=QUESTION_WORDS).scores(question)
    best = [f for f in sorted(range(len(facts)), key=lambda f: (-s[f], f))[:n_facts] if s[f] > 0]
    rel = {}
    for f in best:
        for node in facts[f]:
            rel[node] = max(rel.get(node, 0.0), s[f] / s[best[0]])
    return rel


@pytest.mark.parametrize("n_facts", [1, 2, 5])
def test_fact_seeds_use_facts_and_weigh_fact_weight_times_relative_score(index, n_facts):
    question = "Ed Wood film"
    want = _fact_seeds_by_hand(index, question, n_facts)
    assert min(want.values()) < 1 or n_facts == 1  # relative scores below 1 make x and / differ
    ret = HippoRetriever(index, extractor=None, facts=n_facts, fact_weight=0.25, passage_weight=0)
    w = ret.seed_weights(question, [])
    assert set(np.flatnonzero(w)) == set(want)
    np.testing.assert_allclose([w[i] for i in sorted(want)], [0.25 * want[i] for i in sorted(want)])


def test_link_top_k_links_each_entity_to_its_k_nearest_nodes(syn_index):
    index = syn_index  # "ed wood" has near namesakes here
    E = index.node_embeddings
    E = E.toarray() if sp.issparse(E) else np.asarray(E)
    q = index.encoder(["ed wood"])
    q = (q.toarray() if sp.issparse(q) else np.asarray(q))[0]
    cos = E @ q
    want = np.lexsort((np.arange(cos.size), -cos))[:2]
    assert cos[want[1]] > 0
    ret = HippoRetriever(index, extractor=None, facts=0, passage_weight=0, link_top_k=2)
    w = ret.seed_weights("?", ["Ed Wood"])
    np.testing.assert_array_equal(np.flatnonzero(w), np.sort(want))
    assert np.all(w[want] == 1.0)


@pytest.mark.parametrize("synonymy", [True, False])
def test_synonymy_edges_join_the_v1_walk_only_when_asked(syn_index, synonymy):
    A, P = _counts(syn_index, SYN_TRIPLES)
    if synonymy:
        A = A + syn_index.synonymy_graph.toarray()
    names = ["ed wood", "burbank"]
    want = _ppr_dense(A, _entity_restart(syn_index, P, names), 0.5) @ P
    kwargs = {} if synonymy else {"synonymy": False}  # synonymy=True is the default
    ret = HippoRetriever(syn_index, extractor=None, facts=0, passage_weight=0, tol=1e-13, **kwargs)
    got = ret.retrieve("?", k=syn_index.n_passages, entities=["Ed Wood", "Burbank"])
    np.testing.assert_allclose(got.scores, want[got.passages], atol=1e-11)
    np.testing.assert_array_equal(got.passages, _order(want))


@pytest.mark.parametrize("synonymy", [True, False])
def test_synonymy_edges_join_the_hybrid_walk_only_when_asked(syn_index, synonymy, monkeypatch):
    A, P = _counts(syn_index, SYN_TRIPLES)
    if synonymy:
        A = A + syn_index.synonymy_graph.toarray()
    question, beta = "Where was Plan 9 filmed?", 0.2
    ret = HippoRetriever(
        syn_index, extractor=None, facts=0, passage_weight=beta, synonymy=synonymy, tol=1e-12
    )
    # a retriever of the other kind built first must not hand this one its graph
    HippoRetriever(syn_index, passage_weight=beta, synonymy=not synonymy).graph_with_passages()
    _, want = _hybrid_by_hand(syn_index, A, P, ["ed wood", "burbank"], ret.bm25.scores(question), beta, 0.5)
    _never_certified(monkeypatch)
    got = ret.retrieve(question, k=syn_index.n_passages, entities=["Ed Wood", "Burbank"])
    np.testing.assert_allclose(got.scores, want[got.passages], atol=1e-9)
    np.testing.assert_array_equal(got.passages, _order(want))


@pytest.mark.parametrize("scorer", ["rq_nodes", "rq_neighbours"])
def test_the_ablations_get_the_normalised_restart(index, scorer):
    A, P = _counts(index, TRIPLES)
    r = _entity_restart(index, P, ["ed wood", "burbank"])
    node = r if scorer == "rq_nodes" else r + (A / A.sum(axis=0, keepdims=True)) @ r
    want = node @ P
    ret = HippoRetriever(index, extractor=None, facts=0, passage_weight=0, scorer=scorer)
    got = ret.retrieve("?", k=index.n_passages, entities=["Ed Wood", "Burbank"])
    np.testing.assert_allclose(got.scores, want[got.passages], atol=1e-14)
    np.testing.assert_array_equal(got.passages, _order(want))


def test_a_callable_extractor_gives_the_entities(index):
    calls = []

    def extract(question):
        calls.append(question)
        return ["Ed Wood", "Burbank"]

    ret = HippoRetriever(index, extractor=extract, facts=0, passage_weight=0)
    got = ret.retrieve("anything", k=3)
    want = HippoRetriever(index, extractor=None, facts=0, passage_weight=0).retrieve(
        "anything", k=3, entities=["Ed Wood", "Burbank"]
    )
    assert calls == ["anything"] and got.entities == ("Ed Wood", "Burbank")
    np.testing.assert_array_equal(got.passages, want.passages)


def test_fact_seeds_alone_need_no_extractor(index):
    ret = HippoRetriever(index, extractor=None, facts=5, passage_weight=0)
    got = ret.retrieve("Ed Wood film", k=3)
    assert got.entities == () and not got.fell_back
    np.testing.assert_array_equal(got.seeds, sorted(_fact_seeds_by_hand(index, "Ed Wood film", 5)))


def test_a_given_bm25_ranker_is_the_one_used(index):
    # a ranker over other texts: only passage 1 mentions "zebra" there
    bm = BM25Ranker(["a", "zebra crossing", "b", "c", "d"])
    ret = HippoRetriever(index, extractor=None, facts=0, bm25=bm)
    assert ret.bm25 is bm
    got = ret.retrieve("zebra", k=2, entities=[])
    assert got.fell_back and got.passages.tolist() == [1, 0] and got.entities == ()
    assert (got.walk_weight, got.walk_error, got.note) == (0.0, 0.0, "")  # BM25 alone ranked them


def test_the_defaults_are_the_documented_ones(index):
    ret = HippoRetriever(index)
    assert (ret.facts, ret.fact_weight, ret.passage_weight, ret.restart_prob, ret.tol, ret.link_top_k) == (
        5, 0.1, 0.2, 0.5, 1e-10, 1
    )
    assert ret.specificity is True and ret.synonymy is True and ret.scorer == "ppr"
    assert (ret.guess_weight, ret.fusion_c) == (0.65, 10.0)
    many = build_index([[(f"Thing {i}", "near", "Hub")] for i in range(12)])
    got = HippoRetriever(many, facts=0, passage_weight=0).retrieve("?", entities=["Hub"])
    assert got.passages.size == 10  # k defaults to 10


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"facts": -1}, "facts must be in"),
        ({"fact_weight": 0.0}, "fact_weight must be in"),
        ({"fact_weight": 1.5}, "fact_weight must be in"),
        ({"passage_weight": 1.0}, "passage_weight must be in"),
        ({"restart_prob": 0.0}, "restart_prob must be in"),
        ({"tol": -1.0}, "tol must be in"),
        ({"tol": np.inf}, r"^tol must be in \[0.0, inf\), got inf$"),
        ({"guess_weight": 1.5}, r"^guess_weight must be in \[0.0, 1.0\], got 1.5$"),
        ({"fusion_c": 0.0}, r"^fusion_c must be in \(0.0, inf\), got 0.0$"),
        ({"fusion_c": np.inf}, r"^fusion_c must be in \(0.0, inf\), got inf$"),
        ({"link_top_k": 0}, "link_top_k must be in"),
        ({"extractor": 3}, "extractor must be a name, a callable or None, got int"),
        ({"extractor": "nope"}, "extractor must be one of"),
        ({"scorer": "nope"}, "scorer must be one of"),
    ],
)
def test_bad_settings_are_named_in_the_error(index, kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        HippoRetriever(index, **kwargs)


def test_bad_calls_are_named_in_the_error(index):
    with pytest.raises(TypeError, match="index must be a HippoIndex, got str"):
        HippoRetriever("an index")
    ret = HippoRetriever(index)
    with pytest.raises(ValueError, match="k must be in"):
        ret.retrieve("?", k=0)
    with pytest.raises(TypeError, match="question must be a string, got int"):
        ret.retrieve(3)
    with pytest.raises(
        ValueError, match=r"^this retriever has no extractor and no fact seeds: pass entities=\[\.\.\.\]$"
    ):
        HippoRetriever(index, extractor=None, facts=0).retrieve("?")


def test_no_seed_and_no_shared_word_is_an_empty_answer_that_says_so(index):
    """The no-match answer has the shapes and types of any other: no passages (int64 ids), no
    scores, the entities as given, no seeds, fell back, with the walk's weight and error 0."""
    got = HippoRetriever(index, facts=0).retrieve("zebra", k=2, entities=[])
    assert got.note == NO_MATCH and got.fell_back
    assert got.passages.dtype == np.int64 and got.passages.shape == got.scores.shape == (0,)
    assert got.entities == () and got.seeds.size == 0
    assert (got.walk_weight, got.walk_error) == (0.0, 0.0)


def test_the_retrievers_tol_is_both_the_certified_walks_tolerance_and_margin(index, monkeypatch):
    """The certified top k must be separated by the same tol the full walk would run to."""
    import pathfinding.hipporag.retrieval.retrieve as retrieve

    seen = {}
    real = retrieve.ppr_top_k

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(retrieve, "ppr_top_k", spy)
    ret = HippoRetriever(index, extractor=None, facts=0, passage_weight=0.2, restart_prob=0.3, tol=1e-7)
    ret.retrieve("Where was Plan 9 filmed?", k=2, entities=["Ed Wood", "Burbank"])
    assert seen["tol"] == 1e-7 and seen["margin"] == 1e-7 and seen["restart_prob"] == 0.3
    passage_nodes = np.arange(index.n_nodes, index.n_nodes + index.n_passages)
    np.testing.assert_array_equal(seen["candidates"].ids, passage_nodes)


@pytest.fixture(scope="module")
def small():
    texts = [
        "Ed Wood directed Plan 9 from Outer Space.",
        "Plan 9 from Outer Space was filmed in Burbank.",
        "Burbank is a city in California.",
        "Paris is the capital of France.",
        "Tim Burton directed the film Ed Wood in Burbank.",
    ]
    idx = index_from_openie(cooccurrence_docs([Passage(f"p{i}", t) for i, t in enumerate(texts)]))
    return idx, BM25Ranker(idx.passages)


def test_named_seed_walks_alone_guessed_seeds_are_fused(small):
    idx, bm = small
    ret = HippoRetriever(idx, bm25=bm)
    assert ret.retrieve("Where was the film by Ed Wood shot?").walk_weight == 1.0
    lower = ret.retrieve("where was the film by ed wood shot?")
    # the corpus names Ed Wood: a name read from the corpus is fused at the restored weight
    assert not lower.fell_back and lower.walk_weight == ret.restored_weight == 0.85
    assert lower.entities == ("Ed Wood",)
    typed = HippoRetriever(idx, bm25=bm, casing=False).retrieve("where was the film by ed wood shot?")
    assert not typed.fell_back and typed.walk_weight == ret.guess_weight == 0.65
    assert default_entities("where was the film by ed wood shot?", idx) == ["ed wood"]


def test_a_capitalised_entity_that_links_to_no_node_does_not_make_the_seeds_named(small):
    """Only a *linked* capitalised entity is a named seed: with "Qzxv Jjj" unlinked and the lower-case
    "ed wood" linked, the seeds are guesses and the walk is fused with BM25 (weight 0.65, not 1)."""
    idx, bm = small
    ret = HippoRetriever(idx, bm25=bm)
    assert link_entities(idx, ["Qzxv Jjj", "ed wood"]).unlinked == ("Qzxv Jjj",)
    got = ret.retrieve("where was the film by ed wood shot?", entities=["Qzxv Jjj", "ed wood"])
    assert not got.fell_back and got.walk_weight == ret.guess_weight == 0.65
    named = ret.retrieve("where was the film by ed wood shot?", entities=["Qzxv Jjj", "Ed Wood"])
    assert named.walk_weight == 1.0


def test_guess_weight_zero_is_bm25_and_no_seed_falls_back(small):
    idx, bm = small
    q = "where was plan 9 from outer space filmed?"
    r = HippoRetriever(idx, bm25=bm, guess_weight=0.0).retrieve(q, k=5)
    s = bm.scores(q)
    positive = top_k(s, 5)[: int((s > 0).sum())]
    np.testing.assert_array_equal(r.passages[: positive.size], positive)
    none = HippoRetriever(idx, bm25=bm).retrieve("zzz qqq", k=3)
    assert none.fell_back and none.walk_weight == 0.0
    with pytest.raises(ValueError, match="guess_weight"):
        HippoRetriever(idx, guess_weight=1.5)
    with pytest.raises(ValueError, match="fusion_c"):
        HippoRetriever(idx, fusion_c=0.0)


def test_fuse_is_weighted_reciprocal_rank(small):
    idx, _ = small
    ret = HippoRetriever(idx, fusion_c=1.0)
    # walk ranks: p2 1st, p1 2nd; BM25 ranks: p0 1st, p1 2nd; p0 has no walk score
    np.testing.assert_allclose(
        ret.fuse([0.0, 0.2, 0.9], [3.0, 1.0, 0.0], 0.25), [0.75 / 2, 0.25 / 3 + 0.75 / 3, 0.25 / 2]
    )


V1 = {"facts": 0, "passage_weight": 0.0, "guess_weight": 1.0}  # v1: the walk alone, never fused


def _v1_oracle(idx, seeds):
    """v1's passage scores from the dense reference solve on index.graph(): no package solver."""
    r = np.zeros(idx.n_nodes)
    r[seeds] = 1.0 / np.asarray((idx.mentions.toarray() > 0).sum(axis=1))[seeds]  # s_i = 1/|P_i|
    pi = reference.ppr_linear_solve(idx.graph().toarray(), r / r.sum(), 0.5)
    return reference.passage_scores_loops(pi, idx.mentions)


def test_sample_retrieval_finds_the_supporting_passage(sample):
    corpus, idx, questions = sample
    gold = supporting_ids(questions, corpus)
    assert [g.tolist() for g in gold] == [[0]]
    ret = HippoRetriever(idx, extractor="node_ngrams", **V1)
    r = ret.retrieve(questions[0].question, k=3)
    assert not r.fell_back and [idx.phrases[s] for s in r.seeds] == ["stanford university"]
    assert sorted(r.passages.tolist()) == [0, 1, 2]  # all three professors' passages mention Stanford
    assert recall_at_k([r.passages], gold, ks=(3,)).tolist() == [[1.0]]
    expected = _v1_oracle(idx, r.seeds)
    np.testing.assert_allclose(r.scores, expected[r.passages], rtol=1e-8)
    assert np.all(np.diff(r.scores) <= 0)
    # Naming the person puts his passage first.
    r2 = ret.retrieve("?", entities=["Thomas Sudhof"], k=3)
    assert r2.passages[0] == 0 and idx.phrases[r2.seeds[0]] == "thomas c  sudhof"
    np.testing.assert_allclose(r2.scores, _v1_oracle(idx, r2.seeds)[r2.passages], rtol=1e-8)
    # two seeds with different specificity (1/3 and 1): the restart weights them 1 : 3
    r3 = ret.retrieve("?", entities=["Stanford University", "Karl Deisseroth"], k=3)
    np.testing.assert_allclose(r3.scores, _v1_oracle(idx, r3.seeds)[r3.passages], rtol=1e-8)


def test_hybrid_matches_the_dense_solve_with_passage_nodes(sample):
    _, idx, _ = sample
    bm = BM25Ranker(idx.passages)
    q = "Which Stanford University professor works on optogenetics?"
    ret = HippoRetriever(idx, bm25=bm, facts=0, passage_weight=0.3)
    r = ret.retrieve(q, k=3)
    n, m = idx.n_nodes, idx.n_passages
    P = idx.mentions.toarray()
    A = np.block([[idx.graph().toarray(), P], [P.T, np.zeros((m, m))]])
    w = np.zeros(n)
    w[r.seeds] = 1.0 / (P[r.seeds] > 0).sum(axis=1)
    b = bm.scores(q)
    restart = np.r_[0.7 * w / w.sum(), 0.3 * b / b.sum()]
    pi = reference.ppr_linear_solve(A, restart, 0.5)
    # the walk stops once the top 3 are certified: exact order, scores within the certified bound
    assert np.abs(r.scores - pi[n:][r.passages]).sum() <= r.walk_error
    assert r.passages.tolist() == np.argsort(-pi[n:], kind="stable").tolist()
    assert 0 < r.walk_error < 0.1


def test_hybrid_walk_runs_to_tol_when_a_tie_blocks_the_certificate():
    # passages 0 and 1 are the same text with the same fact: their scores tie exactly
    idx = build_index(
        [[("Ed Wood", "directed", "Plan 9")]] * 2 + [[("Paris", "in", "France")]],
        passages=["Ed Wood directed Plan 9.", "Ed Wood directed Plan 9.", "Paris is in France."],
    )
    ret = HippoRetriever(idx)
    tied = ret.retrieve("Which film did Ed Wood direct?", k=1)
    assert tied.passages.tolist() == [0] and tied.walk_error == ret.tol
    far = ret.retrieve("Which country is Paris in?", k=1)
    assert far.passages.tolist() == [2] and far.walk_error > ret.tol  # no tie: certified early


def test_default_retriever_reads_a_lower_case_question_through_the_corpus(sample):
    _, idx, questions = sample
    ret = HippoRetriever(idx)
    lower = ret.retrieve(questions[0].question.lower(), k=3)
    # the corpus writes "Stanford University" as a name: the lower-cased question finds it, and the
    # walk from a name read from the corpus is fused with BM25 at the restored weight
    assert not lower.fell_back and lower.entities == ("Stanford University",)
    assert lower.walk_weight == ret.restored_weight < 1
    assert lower.reading.origin("Stanford University") == "corpus"
    assert "stanford university" in [idx.phrases[s] for s in lower.seeds]
    # read as typed, no capitals: the multi-word node phrases are guesses, fused at the guess weight
    typed = HippoRetriever(idx, casing=False).retrieve(questions[0].question.lower(), k=3)
    assert typed.entities == ("stanford university",) and typed.reading is None
    assert typed.walk_weight == ret.guess_weight < ret.restored_weight
    # fact seeds come from BM25, which lower-cases: same seeds for any casing of a fact-only query
    a, b = (
        FactLinker(idx).seeds("WHO STUDIES OPTOGENETICS?"),
        FactLinker(idx).seeds("who studies optogenetics?"),
    )
    assert a[0].tolist() == b[0].tolist() and np.array_equal(a[1], b[1]) and a[0].size > 0


def test_fallback_to_bm25_when_nothing_links(sample):
    corpus, idx, _ = sample
    ret = HippoRetriever(idx, extractor="capitalised", **V1)
    r = ret.retrieve("which scientist studies optogenetics?", k=2)
    assert r.fell_back and r.seeds.size == 0
    assert r.passages[0] == 2  # BM25: only Deisseroth's passage has "optogenetics"
    assert HippoRetriever(idx).retrieve("which scientist studies optogenetics?", k=2).fell_back is False


def test_k_passages_whenever_the_corpus_has_k(sample):
    _, idx, _ = sample
    only = HippoRetriever(idx, scorer="rq_nodes", extractor=None, **V1)
    r = only.retrieve("?", entities=["Karl Deisseroth"], k=3)
    assert r.passages.tolist() == [2, 0, 1] and r.scores[1] == r.scores[2] == 0  # zeros by id
    assert only.retrieve("?", entities=["Karl Deisseroth"], k=10).passages.size == 3
    nothing = HippoRetriever(idx).retrieve("zebra", k=5)  # no seed, no shared word: no ranking by id
    assert nothing.passages.size == 0 and nothing.fell_back and nothing.note == NO_MATCH


def test_ablation_scorers(sample):
    _, idx, _ = sample
    seeds = ["Karl Deisseroth"]
    only = HippoRetriever(idx, scorer="rq_nodes", extractor=None, **V1).retrieve("?", entities=seeds, k=3)
    assert only.passages[0] == 2 and only.scores[1] == 0  # only the seed's own passage scores
    hop = HippoRetriever(idx, scorer="rq_neighbours", extractor=None, **V1).retrieve("?", entities=seeds, k=3)
    assert hop.passages[0] == 2 and np.all(hop.scores > 0)  # via Stanford University
    two = HippoRetriever(idx, scorer="rq_neighbours_v1", extractor=None, **V1).retrieve(
        "?", entities=seeds, k=3
    )
    assert two.passages[0] == 2 and np.all(two.scores > 0)


def test_retriever_validation(sample):
    _, idx, _ = sample
    with pytest.raises(ValueError, match="extractor must be one of"):
        HippoRetriever(idx, extractor="llm")
    with pytest.raises(ValueError, match="scorer must be one of"):
        HippoRetriever(idx, scorer="pagerank")
    with pytest.raises(ValueError, match=r"restart_prob must be in \(0.0, 1.0\], got 0.0"):
        HippoRetriever(idx, restart_prob=0.0)
    with pytest.raises(ValueError, match="no extractor and no fact seeds"):
        HippoRetriever(idx, extractor=None, facts=0).retrieve("x")
    with pytest.raises(ValueError, match="needs passage_weight=0"):
        HippoRetriever(idx, scorer="rq_nodes")
    with pytest.raises(ValueError, match=r"passage_weight must be in \[0.0, 1.0\), got 1.0"):
        HippoRetriever(idx, passage_weight=1.0)
    with pytest.raises(TypeError, match="got the string 'Ed Wood'"):
        HippoRetriever(idx).retrieve("x", entities="Ed Wood")
    with pytest.raises(TypeError, match="question must be a string"):
        HippoRetriever(idx).retrieve(None)


def test_tol_zero_is_accepted_as_by_personalized_pagerank(sample):
    _, idx, _ = sample
    ents = ["Karl Deisseroth"]
    exact = HippoRetriever(idx, tol=0.0, **V1).retrieve("?", entities=ents, k=3)  # 1000 power iterations
    np.testing.assert_allclose(exact.scores, _v1_oracle(idx, exact.seeds)[exact.passages], rtol=1e-9)
    with pytest.raises(ValueError, match="tol"):
        HippoRetriever(idx, tol=-1e-3)


@pytest.fixture(scope="module")
def index():
    idx = build_index(TRIPLES, passages=PASSAGES)
    assert idx.synonymy_graph.nnz == 0  # the hand computations below assume relation edges only
    return idx


def _by_hand(index):
    """Relation graph, P and specificity from the raw triples, in the index's node order."""
    ids = {p: i for i, p in enumerate(index.phrases)}
    n, m = len(ids), len(TRIPLES)
    A = np.zeros((n, n))
    P = np.zeros((n, m))
    for j, triples in enumerate(TRIPLES):
        for s, _, o in dict.fromkeys(triples):
            a, b = ids[s.lower()], ids[o.lower()]
            A[a, b] += 1
            A[b, a] += 1
            P[a, j] += 1
            P[b, j] += 1
    spec = 1.0 / (P > 0).sum(axis=1)
    return ids, A, P, spec


def _ppr_dense(A, restart, a=RESTART_PROB):
    """pi = a r + (1 - a) W pi with W column-stochastic (every node here has an edge)."""
    W = A / A.sum(axis=0, keepdims=True)
    return np.linalg.solve(np.eye(len(restart)) - (1 - a) * W, a * restart)


def test_the_index_is_the_graph_and_counts_of_its_triples(index):
    _, A, P, spec = _by_hand(index)
    np.testing.assert_array_equal(index.relation_graph.toarray(), A)
    np.testing.assert_array_equal(sp.csr_array(index.mentions).toarray(), P)
    np.testing.assert_allclose(index.specificity, spec)


def test_entity_seeds_weigh_one_times_their_specificity(index):
    ids, _, _, spec = _by_hand(index)
    ret = HippoRetriever(index, extractor=None, facts=0, passage_weight=0)
    w = ret.seed_weights("?", ["Ed Wood", "Burbank"])
    want = np.zeros(index.n_nodes)
    want[[ids["ed wood"], ids["burbank"]]] = 1.0
    np.testing.assert_array_equal(w, want)
    # in 3 and 2 passages: 1/3 and 1/2 of the restart before normalising -> 0.4 / 0.6
    restart = want * spec
    np.testing.assert_allclose(restart[[ids["ed wood"], ids["burbank"]]] / restart.sum(), [0.4, 0.6])


def test_fact_seeds_weigh_fact_weight_times_relative_score_and_never_lower_an_entity(index):
    ids, *_ = _by_hand(index)
    ret = HippoRetriever(index, extractor=None, facts=5, fact_weight=0.25, passage_weight=0)
    question = "Which city is Burbank in?"
    nodes, rel = ret._facts.seeds(question, n_facts=5)
    assert ids["burbank"] in nodes and rel.max() == 1.0 and np.all(rel > 0)
    only_facts = ret.seed_weights(question, [])
    np.testing.assert_allclose(only_facts[nodes], 0.25 * rel)
    assert np.count_nonzero(only_facts) == nodes.size
    with_entity = ret.seed_weights(question, ["Burbank"])
    assert with_entity[ids["burbank"]] == 1.0  # the entity's 1 beats any fact's 0.25 x rel
    others = np.setdiff1d(nodes, [ids["burbank"]])
    np.testing.assert_allclose(with_entity[others], only_facts[others])


def test_v1_walk_scores_passages_by_pi_dot_p(index):
    ids, A, P, spec = _by_hand(index)
    r = np.zeros(index.n_nodes)
    r[[ids["ed wood"], ids["burbank"]]] = spec[[ids["ed wood"], ids["burbank"]]]
    pi = _ppr_dense(A, r / r.sum())
    want = pi @ P
    ret = HippoRetriever(index, extractor=None, facts=0, passage_weight=0, tol=1e-13)
    got = ret.retrieve("?", k=index.n_passages, entities=["Ed Wood", "Burbank"])
    order = np.lexsort((np.arange(want.size), -want))
    np.testing.assert_array_equal(got.passages, order)
    np.testing.assert_allclose(got.scores, want[order], atol=1e-11)
    assert got.scores[-1] == 0.0 and got.passages[-1] == 3  # Paris is never reached


def _hybrid_restart_by_hand(index, ret, question, beta):
    ids, A, P, spec = _by_hand(index)
    n, m = P.shape
    w = np.zeros(n)
    w[[ids["ed wood"], ids["burbank"]]] = spec[[ids["ed wood"], ids["burbank"]]]
    bm = ret.bm25.scores(question)
    assert bm.sum() > 0
    restart = np.concatenate([(1 - beta) * w / w.sum(), beta * bm / bm.sum()])
    big = np.block([[A, P], [P.T, np.zeros((m, m))]])
    return restart, _ppr_dense(big, restart)[n:]


@pytest.mark.parametrize("beta", [0.2, 0.5])
def test_hybrid_restart_puts_one_minus_beta_on_seeds_and_beta_on_passages_by_bm25(index, beta):
    ret = HippoRetriever(index, extractor=None, facts=0, passage_weight=beta)
    question = "Where was Plan 9 filmed?"
    w = ret.seed_weights(question, ["Ed Wood", "Burbank"]) * index.specificity
    want, _ = _hybrid_restart_by_hand(index, ret, question, beta)
    got = ret.hybrid_restart(question, w)
    np.testing.assert_allclose(got, want, atol=1e-15)
    assert got[: index.n_nodes].sum() == pytest.approx(1 - beta)
    assert got[index.n_nodes :].sum() == pytest.approx(beta)


@pytest.mark.parametrize("certified", [True, False], ids=["top-k certified", "full walk"])
def test_hybrid_walk_ranks_passage_nodes_by_their_own_mass(index, certified, monkeypatch):
    import pathfinding.hipporag.retrieval.retrieve as retrieve

    beta, question = 0.2, "Where was Plan 9 filmed?"
    ret = HippoRetriever(index, extractor=None, facts=0, passage_weight=beta, tol=1e-12)
    _, want = _hybrid_restart_by_hand(index, ret, question, beta)
    if not certified:  # the path the retriever takes when push cannot separate the top k
        real = retrieve.ppr_top_k

        def never_certified(*args, **kwargs):
            res = real(*args, **kwargs)
            return type(res)(**{**res.__dict__, "certified": False})

        monkeypatch.setattr(retrieve, "ppr_top_k", never_certified)
    got = ret.retrieve(question, k=3, entities=["Ed Wood", "Burbank"])
    order = np.lexsort((np.arange(want.size), -want))[:3]
    np.testing.assert_array_equal(got.passages, order)
    # certified: the order is exact and the scores within the certified bound; the full walk: to tol
    bound = got.walk_error if certified else 1e-9
    assert certified or got.walk_error == ret.tol  # the full walk ran to the retriever's tolerance
    assert np.all(np.abs(got.scores - want[order]) <= bound + 1e-12)


def test_no_seed_falls_back_to_bm25_order_with_ties_by_id(index):
    ret = HippoRetriever(index, extractor=None, facts=0)
    question = "capital city"
    got = ret.retrieve(question, k=index.n_passages, entities=[])
    bm = ret.bm25.scores(question)
    assert got.fell_back and got.seeds.size == 0
    np.testing.assert_array_equal(got.passages, np.lexsort((np.arange(bm.size), -bm)))
    np.testing.assert_array_equal(got.scores, bm[got.passages])


def test_linking_picks_the_nearest_node_by_encoder_cosine(index):
    link = link_entities(index, ["Ed Wood", "Edd Woods", "Burbnk", "qqqq"])
    E = index.node_embeddings
    E = E.toarray() if sp.issparse(E) else np.asarray(E)
    Q = index.encoder(["edd woods", "burbnk"])
    Q = Q.toarray() if sp.issparse(Q) else np.asarray(Q)
    cos = Q @ E.T
    assert link.entities == ("Ed Wood", "Edd Woods", "Burbnk") and link.unlinked == ("qqqq",)
    assert index.phrases[link.nodes[0]] == "ed wood" and link.scores[0] == 1.0  # exact match
    np.testing.assert_array_equal(link.nodes[1:], cos.argmax(axis=1))
    np.testing.assert_allclose(link.scores[1:], cos.max(axis=1))


@pytest.mark.parametrize(
    ("phrase", "eligible"),
    [("ab", False), ("a b", False), ("u2", False), ("abc", True), ("a b c", True), ("123", True),
     ("", False)],  # fmt: skip
)
def test_synonymy_needs_three_letters_or_digits(phrase, eligible):
    assert bool(synonymy_eligible([phrase])[0]) is eligible


def test_synonymy_edges_join_eligible_pairs_over_tau_only():
    # cosine 1 between each phrase and its repetition: the rule, not the encoder, decides
    names = ["ab", "ab ab", "ab ab ab", "abc", "abc abc", "xy", "xy xy"]
    idx = build_index([[(name, "r", f"filler {i} q")] for i, name in enumerate(names)])
    E = idx.node_embeddings
    E = E.toarray() if sp.issparse(E) else np.asarray(E)
    cos = E @ E.T
    alnum = np.array([sum(ch.isalnum() for ch in p) for p in idx.phrases])
    want = (cos >= 0.8 - 1e-12) & np.outer(alnum >= 3, alnum >= 3) & (idx.relation_graph.toarray() == 0)
    np.fill_diagonal(want, False)
    got = idx.synonymy_graph.toarray() > 0
    np.testing.assert_array_equal(got, want)
    ids = idx.phrase_ids
    assert got[ids["abc"], ids["abc abc"]] and not got[ids["ab"], ids["ab ab"]]


def test_derived_state_has_one_owner_the_index(index):
    a = HippoRetriever(index, passage_weight=0.2)
    b = HippoRetriever(index, passage_weight=0.5)
    assert a.graph_with_passages() is b.graph_with_passages()
    assert a.bm25 is b.bm25 and a._facts is b._facts
    from pathfinding.hipporag.index.maintenance import add_passages

    grown = add_passages(index, [[("Ed Wood", "born in", "Poughkeepsie")]], ["Ed Wood, from Poughkeepsie."])
    c = HippoRetriever(grown, passage_weight=0.2)
    assert c.graph_with_passages() is not a.graph_with_passages()
    assert c.graph_with_passages().n_nodes == grown.n_nodes + grown.n_passages


# --- every script reads right, and weak links are said ------------------------------------------


def _zoe_index(decomposed: bool):
    """Two people whose names differ only by accents; the corpus optionally decomposed (NFD), and
    built from raw strings so that no loader composes it first."""
    import unicodedata

    from pathfinding.hipporag.extract.cooccurrence import cooccurrence_triples

    texts = [
        ("Zoë Ñúñez", "Zoë Ñúñez founded the Café Société in Paris."),
        ("Zoe Nunez", "Zoe Nunez runs a bicycle shop in Lyon."),
        ("Paris", "Paris is the capital of France."),
    ]
    if decomposed:
        texts = [tuple(unicodedata.normalize("NFD", x) for x in pair) for pair in texts]
    triples = [cooccurrence_triples(t, x) for t, x in texts]
    return build_index(triples, passages=[t + "\n" + x for t, x in texts])


@pytest.mark.parametrize("corpus_nfd", [False, True])
@pytest.mark.parametrize("question_nfd", [False, True])
def test_decomposed_and_composed_text_give_the_same_nodes_and_answer(corpus_nfd, question_nfd):
    """Before, the NFD corpus had the nodes zoe, n, cafe, socie and the NFC question "Who is Zoë
    Ñúñez?" answered with Zoe Nunez's bicycle shop; an NFD question linked "Jose", "Nu"."""
    import unicodedata

    idx = _zoe_index(corpus_nfd)
    assert set(idx.phrases) == set(_zoe_index(False).phrases)
    assert {"zoë ñúñez", "café société", "zoe nunez"} <= set(idx.phrases)
    question = "Who is Zoë Ñúñez?"
    if question_nfd:
        question = unicodedata.normalize("NFD", question)
    hit = HippoRetriever(idx).retrieve(question, k=3)
    assert hit.entities == ("Zoë Ñúñez",)
    assert [idx.phrases[lk.node] for lk in hit.links] == ["zoë ñúñez"] and hit.links[0].kept
    assert hit.passages[0] == 0


def test_a_devanagari_word_finds_its_passage():
    """'गांधी' used to give no token at all (its vowel signs split it), so the exact word found nothing."""
    passages = ["महात्मा गांधी का जन्म पोरबंदर में हुआ।", "दिल्ली भारत की राजधानी है।", "Ed Wood directed Plan 9."]
    bm = BM25Ranker(passages)
    assert bm.tokens("गांधी कहाँ पैदा हुए?")[0] == "गांधी"
    assert bm.rank("गांधी", 1).tolist() == [0]
    from pathfinding.hipporag.extract.cooccurrence import cooccurrence_triples

    idx = build_index([cooccurrence_triples("", p) for p in passages], passages=passages)
    hit = HippoRetriever(idx).retrieve("महात्मा गांधी कहाँ पैदा हुए?", k=1)
    assert hit.passages.tolist() == [0] and not hit.fell_back


def _weak_index():
    facts = [
        [("Zora Neale Hurston", "wrote", "Their Eyes Were Watching God")],
        [("Burbank", "city in", "California")],
        [("Zoroastrianism", "founded in", "Persia")],
    ]
    texts = [
        "Zora Neale Hurston wrote Their Eyes Were Watching God.",
        "Burbank is a city in California.",
        "Zoroastrianism was founded in Persia.",
    ]
    return build_index(facts, passages=texts)


def test_a_weak_link_is_said_and_seeds_nothing():
    """"Zorro" is nearest to "zoroastrianism" by a few shared trigrams, far below the floor: the
    entity is not in the index, the walk is not seeded from it and the answer is BM25's (no
    passage shares a word: no answer); with no floor it seeded the walk and Persia came back."""
    from pathfinding.hipporag.retrieval.linking import MIN_LINK_COSINE

    idx = _weak_index()
    hit = HippoRetriever(idx).retrieve("Where did Zorro live?", k=2)
    (lk,) = hit.links
    assert idx.phrases[lk.node] == "zoroastrianism" and 0 < lk.cosine < MIN_LINK_COSINE and not lk.kept
    assert hit.seeds.size == 0 and hit.fell_back and hit.note == NO_MATCH and hit.passages.size == 0
    loose = HippoRetriever(idx, min_link_cosine=0.0).retrieve("Where did Zorro live?", k=2)
    assert loose.links[0].kept and idx.phrases[loose.seeds[0]] == "zoroastrianism"
    assert loose.passages[0] == 2 and loose.walk_weight == 1.0


def test_a_weak_capitalised_entity_is_not_a_named_seed():
    """The walk alone ranks a question only when a *linked* entity has capitals; a weak one counts
    for nothing, so the fact seeds' walk is fused with BM25 as for a question without a name."""
    idx = _weak_index()
    hit = HippoRetriever(idx).retrieve("Was Zorro a city in California?", k=3, entities=["Zorro"])
    assert not hit.links[0].kept and not hit.fell_back and hit.walk_weight == 0.65
    named = HippoRetriever(idx, min_link_cosine=0.0).retrieve(
        "Was Zorro a city in California?", k=3, entities=["Zorro"]
    )
    assert named.walk_weight == 1.0


def test_min_link_cosine_is_validated_and_defaults_by_encoder():
    from pathfinding.hipporag.retrieval.linking import MIN_LINK_COSINE

    idx = _weak_index()
    assert HippoRetriever(idx).min_link_cosine == MIN_LINK_COSINE > 0
    with pytest.raises(ValueError, match="min_link_cosine"):
        HippoRetriever(idx, min_link_cosine=1.5)
    with pytest.raises(TypeError, match="min_link_cosine must be a real number"):
        HippoRetriever(idx, min_link_cosine="0.5")


# --- questions read through the casing model --------------------------------------------------


@pytest.fixture(scope="module")
def casing_index():
    return build_index(CASING_TRIPLES, passages=CASING_TEXTS)


def test_lower_and_upper_questions_find_the_cased_questions_entities(casing_index):
    ret = HippoRetriever(casing_index)
    cased = ret.retrieve("Which film by Ed Wood stars Bela Lugosi?", k=5)
    for typed in ("which film by ed wood stars bela lugosi?", "WHICH FILM BY ED WOOD STARS BELA LUGOSI?"):
        got = ret.retrieve(typed, k=5)
        assert got.entities == cased.entities == ("Ed Wood", "Bela Lugosi")
        assert got.reading.text.lower() == typed.lower()
        # names read from the corpus are weighed against BM25; the writer's are walked alone
        assert (got.walk_weight, cased.walk_weight) == (ret.restored_weight, 1.0)


def test_casing_off_or_a_model_of_ones_own(casing_index):
    off = HippoRetriever(casing_index, casing=False).retrieve("which film by ed wood stars bela lugosi?")
    assert off.reading is None and off.entities == ("ed wood", "bela lugosi")  # node-phrase guesses
    assert off.walk_weight == 0.65
    own = CasingModel.from_passages(["Dracula starred Bela Lugosi."])
    got = HippoRetriever(casing_index, casing=own).retrieve("which film by ed wood stars bela lugosi?")
    assert got.entities == ("Bela Lugosi",) and got.walk_weight == 0.85
    # a caller's extractor, and every named one but the default, reads the question as typed
    mine = HippoRetriever(casing_index, extractor=lambda q: ["Ed Wood"]).retrieve("which film by ed wood?")
    assert mine.reading is None and mine.walk_weight == 1.0
    v1 = HippoRetriever(casing_index, extractor="capitalised").retrieve("which film by ed wood?")
    assert v1.reading is None and v1.entities == ()
    # entities given to retrieve: no reading, their capitals are the caller's
    given_ = HippoRetriever(casing_index).retrieve("which film?", entities=["Ed Wood"])
    assert given_.reading is None and given_.walk_weight == 1.0


def test_restored_weight_one_walks_alone_and_zero_is_bm25(casing_index):
    q = "which film by ed wood stars bela lugosi?"
    assert HippoRetriever(casing_index, restored_weight=1.0).retrieve(q).walk_weight == 1.0
    ret = HippoRetriever(casing_index, restored_weight=0.0)
    got, bm = ret.retrieve(q, k=5), ret.bm25.scores(q)
    positive = int((bm > 0).sum())
    assert got.passages[:positive].tolist() == np.argsort(-bm, kind="stable")[:positive].tolist()


def test_bad_casing_arguments_are_named(casing_index):
    with pytest.raises(InvalidTypeError, match="casing must be True, False or a CasingModel, got str"):
        HippoRetriever(casing_index, casing="yes")
    with pytest.raises(InvalidValueError, match="restored_weight"):
        HippoRetriever(casing_index, restored_weight=1.5)


def test_an_index_without_texts_reads_questions_as_typed():
    no_texts = build_index(CASING_TRIPLES)
    assert HippoRetriever(no_texts).read("which film by ed wood?").text == "which film by ed wood?"


def test_a_walk_from_a_few_seeds_allocates_nothing_as_long_as_the_nodes():
    # 8,000 nodes, 100 passages: an array over every node (64 KB) would dwarf what a question needs.
    import tracemalloc

    triples = [[(f"Alpha{j} Person{i}", "knows", f"Beta{j} Thing{i}") for i in range(40)] for j in range(100)]
    texts = [" ".join(f"Alpha{j} Person{i} knows Beta{j} Thing{i}." for i in range(40)) for j in range(100)]
    index = build_index(triples, passages=texts)
    ret = HippoRetriever(index, facts=0)
    question, entities = "Whom does Alpha3 Person4 know?", ["Alpha3 Person4"]
    assert ret.retrieve(question, k=1, entities=entities).passages.tolist() == [3]  # caches warmed
    tracemalloc.start()
    try:
        hit = ret.retrieve(question, k=1, entities=entities)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert hit.passages.tolist() == [3] and hit.walk_weight == 1.0
    assert peak < index.n_nodes * 8 / 2, f"{peak} bytes for a question over {index.n_nodes} nodes"
