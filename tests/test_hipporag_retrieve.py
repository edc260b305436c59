"""Query extractors, linking, retrieval on the HippoRAG sample files, recall@k on hand-made rankings."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.core import reference
from pathfinding.hipporag.evaluate import (
    all_recall_at_k,
    bootstrap_indices,
    bootstrap_mean_ci,
    paired_difference_ci,
    recall_at_k,
    supporting_ids,
)
from pathfinding.hipporag.index.build import build_index, index_from_openie
from pathfinding.hipporag.io import load_corpus, load_openie, load_query_ner, load_questions, vendored
from pathfinding.hipporag.lexical import FactLinker
from pathfinding.hipporag.query import capitalised_spans, link_entities, ner_lookup, node_ngrams
from pathfinding.hipporag.retrieve import NO_MATCH, BM25Ranker, HippoRetriever, top_k

DATA = Path(__file__).parent / "data" / "hipporag"


@pytest.fixture(scope="module")
def sample():
    corpus, _ = load_corpus(vendored("sample_corpus"))
    docs, report = load_openie(DATA / "sample_openie.json", corpus=corpus)
    questions, _ = load_questions(vendored("sample_questions"))
    assert report.n_issues == 0
    return corpus, index_from_openie(docs), questions


def test_sample_extractors(sample):
    _, idx, questions = sample
    q = questions[0].question
    assert q == "Which Stanford University professor works on Alzheimer's?"
    assert capitalised_spans(q) == ["Stanford University", "Alzheimer's"]
    assert node_ngrams(q, idx) == ["stanford university"]


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


def test_link_entities_nearest_node(sample):
    _, idx, _ = sample
    link = link_entities(idx, ["Stanford Univ.", "Eagleman", "!!!"])
    assert [idx.phrases[n] for n in link.nodes] == ["stanford university", "david eagleman"]
    assert link.unlinked == ("!!!",) and np.all((link.scores > 0) & (link.scores <= 1))
    two = link_entities(idx, ["Stanford"], top_k=2)
    assert two.nodes.size == 2 and two.scores[0] >= two.scores[1]
    with pytest.raises(TypeError, match="got the string"):
        link_entities(idx, "Stanford")


def test_ner_lookup_from_tsv():
    rows, _ = load_query_ner(DATA / "hotpotqa_queries_head.tsv")
    extract = ner_lookup(rows)
    assert extract(rows[0].query) == ["Scott Derrickson", "Ed Wood"]
    with pytest.raises(KeyError, match="no query-NER row"):
        extract("unknown")


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


def test_capitalised_spans_literals():
    # "and" splits names (two films are more common in questions than a name with "and" in it)
    assert capitalised_spans("Who founded the Center for Science and Law?") == ["Center for Science", "Law"]
    assert capitalised_spans("In which year was Karl Deisseroth born?") == ["Karl Deisseroth"]
    assert capitalised_spans("what is this?") == []


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


def test_recall_at_k_hand_made():
    rankings = [[4, 1, 9], [0], [], [2, 3, 5, 6, 7, 8]]
    gold = [[1, 9], [7], [3], [8, 2]]
    R = recall_at_k(rankings, gold, ks=(1, 2, 5, 10))
    np.testing.assert_array_equal(R, [[0, 0.5, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0.5, 0.5, 0.5, 1]])
    with pytest.raises(ValueError, match="gold\\[0\\] is empty"):
        recall_at_k([[1]], [[]])
    AR = all_recall_at_k(rankings, gold, ks=(1, 2, 5, 10))
    np.testing.assert_array_equal(AR, [[0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1]])


def test_bootstrap_paired_is_tighter_and_seeded():
    rng = np.random.default_rng(1)
    base = rng.random(100)
    a, b = base + 0.05, base
    idx = bootstrap_indices(100, n_boot=500, rng=0)
    np.testing.assert_array_equal(idx, bootstrap_indices(100, n_boot=500, rng=0))
    d = paired_difference_ci(a, b, idx)
    assert d[0] == pytest.approx(0.05) and d[1] == pytest.approx(0.05) and d[2] == pytest.approx(0.05)
    ca, cb = bootstrap_mean_ci(a, idx), bootstrap_mean_ci(b, idx)
    assert ca[1] < cb[2]  # separate intervals overlap although every question improved
