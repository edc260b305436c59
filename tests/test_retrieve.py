"""Every knob of :class:`HippoRetriever` reaches the computation it names.

A mutation run over ``retrieve.py`` left alive changes that the hand computations of
``test_engine_independent.py`` could not see: a ``restart_prob`` or ``tol`` not passed on to a walk,
``link_top_k`` or ``facts`` not passed on to the linker, synonymy edges dropped from the walk, the
hybrid restart when BM25 scores nothing or less than 1 in total, a callable extractor rejected, a
user's BM25 ranker ignored, the ablations fed an unnormalised restart. Each test here computes what
the retriever should return from the raw triples (dense linear solves, plain numpy) and compares.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.lexical import QUESTION_WORDS, BM25Ranker
from pathfinding.hipporag.retrieve import NO_MATCH, HippoRetriever
from tests.test_engine_independent import PASSAGES, TRIPLES

# Two near-duplicate names join the graph by synonymy edges once tau is 0.5.
SYN_TRIPLES = [
    *TRIPLES,
    [("Burbank city", "in", "Los Angeles County"), ("Ed Woods", "lived in", "Burbank city")],
]
SYN_PASSAGES = [*PASSAGES, "Burbank city is in Los Angeles County; Ed Woods lived in Burbank city."]


@pytest.fixture(scope="module")
def index():
    return build_index(TRIPLES, passages=PASSAGES)


@pytest.fixture(scope="module")
def syn_index():
    idx = build_index(SYN_TRIPLES, passages=SYN_PASSAGES, tau=0.5)
    assert idx.synonymy_graph.nnz > 0
    return idx


def _ppr_dense(A, restart, a):
    """pi = a r + (1 - a) W pi, W the column-normalised A (every node here has an edge)."""
    W = A / A.sum(axis=0, keepdims=True)
    return np.linalg.solve(np.eye(len(restart)) - (1 - a) * W, a * restart)


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
    import pathfinding.hipporag.retrieve as retrieve

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
    import pathfinding.hipporag.retrieve as retrieve

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
    np.testing.assert_array_equal(seen["candidates"], passage_nodes)
