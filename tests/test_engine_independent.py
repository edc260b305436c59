"""The real-text engine against computations written here from the definitions, not from its code.

A five-passage index whose graph, count matrix P, specificity and walks are all small enough to
compute with a dense linear solve. Each test builds what the engine should produce from the raw
triples (plain Python and numpy), then compares: the seed weights and their specificity, the v1
walk and pi . P, the hybrid restart's split between seeds and passages, the walk over passage
nodes (certified and uncertified paths), the BM25 fallback, entity linking, and v1's synonymy
eligibility rule. A change to any of these fails here, without the FINDINGS regression pin.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from pathfinding.hipporag.index.build import build_index, synonymy_eligible
from pathfinding.hipporag.query import link_entities
from pathfinding.hipporag.retrieve import HippoRetriever

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


def _hybrid_by_hand(index, ret, question, beta):
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
    want, _ = _hybrid_by_hand(index, ret, question, beta)
    got = ret.hybrid_restart(question, w)
    np.testing.assert_allclose(got, want, atol=1e-15)
    assert got[: index.n_nodes].sum() == pytest.approx(1 - beta)
    assert got[index.n_nodes :].sum() == pytest.approx(beta)


@pytest.mark.parametrize("certified", [True, False], ids=["top-k certified", "full walk"])
def test_hybrid_walk_ranks_passage_nodes_by_their_own_mass(index, certified, monkeypatch):
    import pathfinding.hipporag.retrieve as retrieve

    beta, question = 0.2, "Where was Plan 9 filmed?"
    ret = HippoRetriever(index, extractor=None, facts=0, passage_weight=beta, tol=1e-12)
    _, want = _hybrid_by_hand(index, ret, question, beta)
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
