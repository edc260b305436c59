"""Query extractors, linking, retrieval on the HippoRAG sample files, recall@k on hand-made rankings."""

from pathlib import Path

import numpy as np
import pytest

from pathfinding.hipporag.evaluate import (
    bootstrap_indices,
    bootstrap_mean_ci,
    paired_difference_ci,
    recall_at_k,
    supporting_ids,
)
from pathfinding.hipporag.index import index_from_openie
from pathfinding.hipporag.io import load_corpus, load_openie, load_query_ner, load_questions, vendored
from pathfinding.hipporag.query import capitalised_spans, link_entities, ner_lookup, node_ngrams
from pathfinding.hipporag.retrieve import BM25Ranker, HippoRetriever, top_k
from pathfinding.ppr import personalized_pagerank
from pathfinding.ranking import passage_scores
from pathfinding.specificity import restart_vector

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


def test_sample_retrieval_finds_the_supporting_passage(sample):
    corpus, idx, questions = sample
    gold = supporting_ids(questions, corpus)
    assert [g.tolist() for g in gold] == [[0]]
    ret = HippoRetriever(idx, extractor="node_ngrams")
    r = ret.retrieve(questions[0].question, k=3)
    assert not r.fell_back and [idx.phrases[s] for s in r.seeds] == ["stanford university"]
    assert sorted(r.passages.tolist()) == [0, 1, 2]  # all three professors' passages mention Stanford
    assert recall_at_k([r.passages], gold, ks=(3,)).tolist() == [[1.0]]
    # The pipeline is exactly restart -> PPR -> pi . P, with the package's functions.
    s = restart_vector(idx.n_nodes, r.seeds, specificity=idx.specificity)
    expected = passage_scores(personalized_pagerank(idx.prepared(), s, restart_prob=0.5), idx.mentions)
    np.testing.assert_allclose(r.scores, expected[r.passages])
    # Naming the person puts his passage first.
    r2 = ret.retrieve("?", entities=["Thomas Sudhof"], k=3)
    assert r2.passages[0] == 0 and idx.phrases[r2.seeds[0]] == "thomas c  sudhof"


def test_fallback_to_bm25_when_nothing_links(sample):
    corpus, idx, _ = sample
    ret = HippoRetriever(idx, extractor="capitalised")
    r = ret.retrieve("which scientist studies optogenetics?", k=2)
    assert r.fell_back and r.seeds.size == 0
    assert r.passages[0] == 2  # BM25: only Deisseroth's passage has "optogenetics"


def test_ablation_scorers(sample):
    _, idx, _ = sample
    seeds = ["Karl Deisseroth"]
    only = HippoRetriever(idx, scorer="rq_nodes", extractor=None).retrieve("?", entities=seeds, k=3)
    assert only.passages.tolist() == [2]  # only the seed's own passage scores
    hop = HippoRetriever(idx, scorer="rq_neighbours", extractor=None).retrieve("?", entities=seeds, k=3)
    assert hop.passages[0] == 2 and set(hop.passages.tolist()) == {0, 1, 2}  # via Stanford University


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
    with pytest.raises(ValueError, match="no extractor"):
        HippoRetriever(idx, extractor=None).retrieve("x")


def test_capitalised_spans_literals():
    assert capitalised_spans("Who founded the Center for Science and Law?") == ["Center for Science and Law"]
    assert capitalised_spans("In which year was Karl Deisseroth born?") == ["Karl Deisseroth"]
    assert capitalised_spans("what is this?") == []


def test_top_k_positive_only_ties_by_id():
    assert top_k([0.2, 0.0, 0.2, 0.5], 10).tolist() == [3, 0, 2]


def test_bm25_ranker():
    bm = BM25Ranker(["the cat sat", "a dog ran", "cat and dog"])
    assert bm.rank("cat", 5).tolist() == [0, 2] or bm.rank("cat", 5).tolist() == [2, 0]
    assert bm.rank("zebra", 5).size == 0


def test_recall_at_k_hand_made():
    rankings = [[4, 1, 9], [0], [], [2, 3, 5, 6, 7, 8]]
    gold = [[1, 9], [7], [3], [8, 2]]
    R = recall_at_k(rankings, gold, ks=(1, 2, 5, 10))
    np.testing.assert_array_equal(R, [[0, 0.5, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0], [0.5, 0.5, 0.5, 1]])
    with pytest.raises(ValueError, match="gold\\[0\\] is empty"):
        recall_at_k([[1]], [[]])


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
