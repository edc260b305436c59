"""The checks of notebooks 5-7 (pathfinding.course.exercises.online): the bill against the cost model,
bridge survival by enumeration, monitors judged on wrong facts, real-text restarts and misses."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from pathfinding.core.specificity import node_specificity, restart_vector
from pathfinding.course import exercises as ex
from pathfinding.course.costs import CostModel, break_even_queries, offline_share
from pathfinding.course.exercises import online, walk
from tests.test_exercises import rejected_with as _rejected_with


@pytest.mark.parametrize("model", online.HALF_SHARE_WRONG, ids=lambda m: m.name)
def test_half_share_wrong_models(model):
    value = model.value(50_000, 2)
    _rejected_with(ex.check_half_share(50_000, value, calls_per_query=2), model.hint_for((50_000, 2)))


# --- notebook 5 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("ratio", [10, 20, 30])
def test_break_even_against_the_cost_model(ratio):
    q = float(break_even_queries(50_000, CostModel(step_cost=ratio / 2)))
    for answer in (q, math.floor(q), math.ceil(q), np.int64(round(q)), Fraction(q).limit_denominator(100)):
        verdict = ex.check_break_even(50_000, ratio, answer)
        assert verdict, (answer, verdict.message)
    assert not ex.check_break_even(50_000, ratio, math.ceil(q) + 1)
    coarse = ex.check_break_even(50_000, ratio, round(q, -2))  # "about 11,100 queries"
    assert not coarse and coarse.message.startswith("close — keep more digits")


def test_half_share_against_the_cost_model():
    assert float(offline_share(10_000, 20_000)) == pytest.approx(0.5)
    assert ex.check_half_share(10_000, 20_000) and ex.check_half_share(10_000, np.float32(20_000))
    assert float(offline_share(50_000, 50_000, CostModel(ner_calls_per_query=2))) == pytest.approx(0.5)
    assert ex.check_half_share(50_000, 50_000, calls_per_query=2)
    assert ex.check_half_share(50_000, Fraction(50_000), calls_per_query=2)
    # one coarser unit away is not "close": 60,000 is not 50,000 rounded
    assert "close" not in ex.check_half_share(50_000, 60_000, calls_per_query=2).message


# --- notebook 6 ------------------------------------------------------------------------------------


def test_connected_probability_by_enumeration():
    n, k, b = 8, 3, 2
    spared = sum(1 for gone in itertools.combinations(range(n), k) if not set(gone) & set(range(b)))
    assert ex.check_connected_probability(n, k, b, spared / math.comb(n, k))
    assert "without replacement" in ex.check_connected_probability(n, k, b, (1 - k / n) ** b).message


def test_connected_probability_rejects_independence_however_it_is_written():
    spared = Fraction(math.comb(32, 4), math.comb(36, 4))
    for answer in (
        spared,
        float(spared),
        round(float(spared), 2),
        round(float(spared), 4),
        np.float64(spared),
    ):
        verdict = ex.check_connected_probability(36, 4, 4, answer)
        assert verdict, (answer, verdict.message)
    for independent in ((8 / 9) ** 4, 0.624, 0.62, 0.9**4, 0.66):
        _rejected_with(ex.check_connected_probability(36, 4, 4, independent), "without replacement")
    coarse = ex.check_connected_probability(36, 4, 4, 0.6)
    assert not coarse and coarse.message.startswith("close — keep more digits")
    assert "close" not in ex.check_connected_probability(36, 4, 4, 0.7).message


def test_monitor_is_judged_on_wrong_facts_a_size_count_cannot_see():
    from scipy.sparse.csgraph import connected_components

    from pathfinding.experiments.passages import meet_mass

    def meet_share(query, pi):  # the solution's monitor: how much of the walk every seed's walk shares
        others = np.setdiff1d(np.arange(query.n_nodes), query.seeds)
        others = others[pi[others] > 0]
        return float((meet_mass(query)[others] / pi[others]).max())

    def connected(query, pi):
        labels = connected_components(query.graph, directed=False)[1]
        return float(np.unique(labels[query.seeds]).size == 1)

    def seed_mass(query, pi):
        return float(pi[query.seeds].sum())

    def graph_size(query, pi):  # never looks at the query
        return float(query.graph.nnz + query.mentions.nnz + len(query.passages))

    def reads_the_answer(query, pi):
        return float(pi[query.answer])

    passed = ex.check_monitor(meet_share, queries=120)
    assert passed, passed.message
    # wrong facts keep the graph connected: the seeds stay connected, and the seeds' mass barely moves
    assert not ex.check_monitor(connected, queries=120)
    weak = ex.check_monitor(seed_mass, queries=120)
    assert not weak and "below 80%" in weak.message, weak.message
    blind = ex.check_monitor(graph_size, queries=120)
    assert not blind and "average the same on the damaged index" in blind.message
    assert "does not have" in ex.check_monitor(reads_the_answer, queries=20).message
    assert "without quotes" in ex.check_monitor(lambda query, pi: "high", queries=2).message


# --- notebook 7 ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def realtext():
    from pathfinding.experiments.realtext import load_realtext
    from pathfinding.hipporag import HippoRetriever, index_from_openie

    data = load_realtext()
    index = index_from_openie(data["openie"], tau=0.8)
    return data, index, HippoRetriever(index)


def test_real_restart_with_counts_above_one(realtext):
    _, real, _ = realtext
    counts = np.diff(real.mentions.tocsr().indptr)
    sums = np.asarray(real.mentions.sum(axis=1)).ravel()
    seeds = np.flatnonzero((sums > counts) & (counts > 2))[:2]  # nodes named more than once a passage
    want = restart_vector(real.n_nodes, seeds, specificity=node_specificity(real.mentions))
    assert ex.check_restart(real.mentions, seeds, want) and ex.check_restart(
        real.mentions, seeds, np.round(want, 3)
    )
    by_mentions = walk.RESTART_WRONG[3].value(real.mentions, seeds)
    _rejected_with(ex.check_restart(real.mentions, seeds, by_mentions), "not how often")
    two_entries = ex.check_restart(real.mentions, seeds, want[seeds])
    assert not two_entries and f"one entry per node of the graph ({real.n_nodes})" in two_entries.message


def test_missed_question_on_real_text(realtext):
    from pathfinding.hipporag import supporting_ids

    data, _, retriever = realtext
    questions, corpus = data["questions"], data["corpus"]
    gold = supporting_ids(questions[:30], corpus)
    found = [set(retriever.retrieve(q.question, k=5).passages.tolist()) for q in questions[:30]]
    missed = next(i for i in range(30) if not set(gold[i].tolist()) <= found[i])
    complete = next(i for i in range(30) if set(gold[i].tolist()) <= found[i])
    hit = ex.check_missed_question(retriever, questions[missed], corpus)
    assert hit and "missed gold passages" in hit.message
    assert not ex.check_missed_question(retriever, questions[complete], corpus)
    text = ex.check_missed_question(retriever, questions[missed].question, corpus)
    assert not text and "questions[i]" in text.message
