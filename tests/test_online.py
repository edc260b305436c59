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
    value = model.value(*online.HALF_SHARE_INPUTS)
    hint = model.hint_for(online.HALF_SHARE_INPUTS)
    _rejected_with(ex.check_half_share(50_000, value, calls_per_query=3), hint)


# --- notebook 5 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("ratio", [10, 30])
def test_break_even_against_the_cost_model(ratio):
    q = float(break_even_queries(50_000, CostModel(step_cost=ratio / 2)))
    for answer in (q, math.floor(q), math.ceil(q), np.int64(round(q)), Fraction(q).limit_denominator(100)):
        verdict = ex.check_break_even(50_000, ratio, answer)
        assert verdict, (answer, verdict.message)
    assert not ex.check_break_even(50_000, ratio, math.ceil(q) + 1)
    coarse = ex.check_break_even(50_000, ratio, round(q, -2))  # "about 11,100 queries"
    assert not coarse and coarse.message.startswith("close — keep more digits")


def test_break_even_names_the_sign_and_the_side_slips():
    _rejected_with(ex.check_break_even(50_000, 10, 2 * 50_000 / (1 - 10)), "a negative number of queries")
    _rejected_with(ex.check_break_even(50_000, 10, -5), "check which per-query cost")  # any negative count
    _rejected_with(ex.check_break_even(50_000, 10, 9 / 100_000), "upside down")
    _rejected_with(ex.check_break_even(50_000, 30, 50_000 * 29 / 2), "ONCE")


def test_break_even_refuses_other_inputs_than_the_exercises():
    q = float(break_even_queries(10_000, CostModel(step_cost=10)))  # right for 10,000 passages at 20x
    changed = ex.check_break_even(10_000, 20, q)
    _rejected_with(changed, "exercise 5.1, which asks about 50,000 passages")


def test_half_share_against_the_cost_model():
    n, calls = online.HALF_SHARE_INPUTS
    q = 2 * n / calls
    assert float(offline_share(n, q, CostModel(ner_calls_per_query=calls))) == pytest.approx(0.5)
    for answer in (q, math.floor(q), math.ceil(q), np.float32(q), Fraction(2 * n, calls)):
        assert ex.check_half_share(n, answer, calls_per_query=calls), answer
    # one coarser unit away is not "close": 40,000 is not 33,333 rounded
    assert "close" not in ex.check_half_share(n, 40_000, calls_per_query=calls).message
    # the old numbers: with two calls per query the 10x break-even is N/4, a count other slips give too
    _rejected_with(ex.check_half_share(n, n, calls_per_query=2), "exercise 5.2, which asks about")


# --- notebook 6 ------------------------------------------------------------------------------------


def test_connected_probability_by_enumeration():
    n, k, b = online.CONNECTED_INPUTS
    spared = sum(1 for gone in itertools.combinations(range(n), k) if not set(gone) & set(range(b)))
    assert ex.check_connected_probability(n, k, b, spared / math.comb(n, k))
    assert "without replacement" in ex.check_connected_probability(n, k, b, (1 - k / n) ** b).message
    kept_one = sum(1 for gone in itertools.combinations(range(n), k) if not set(range(b)) <= set(gone))
    _rejected_with(ex.check_connected_probability(n, k, b, kept_one / math.comb(n, k)), "at least ONE")
    _rejected_with(ex.check_connected_probability(n, k, b, 100 * spared / math.comb(n, k)), "percentage")
    _rejected_with(ex.check_connected_probability(8, 3, 2, 10 / 28), "exercise 6.1, which asks about 36")


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

    passed = ex.check_monitor(meet_share)
    assert passed, passed.message
    # wrong facts keep the graph connected: the seeds stay connected, and the seeds' mass barely moves
    assert not online.judge_monitor(connected, queries=120, seed=0)
    weak = online.judge_monitor(seed_mass, queries=120, seed=0)
    assert not weak and "below 80%" in weak.message, weak.message
    blind = online.judge_monitor(graph_size, queries=120, seed=0)
    assert not blind and "average the same on the damaged index" in blind.message
    assert "does not have" in ex.check_monitor(reads_the_answer).message
    assert "without quotes" in ex.check_monitor(lambda query, pi: "high").message


def test_a_monitor_that_counts_its_calls_is_refused():
    """alarm_rates shows each query intact, then damaged: a monitor that answers by the parity of its
    calls would alarm on every damaged batch without looking at the index."""
    from pathfinding.course.monitoring import alarm_rates

    def parity():
        calls = itertools.count(1)
        return lambda query, pi: float(next(calls) % 2)

    assert alarm_rates(parity(), queries=40, damage=online.MONITOR_DAMAGE).detection == 1.0  # the loophole
    _rejected_with(ex.check_monitor(parity()), "the same query")
    rng = np.random.default_rng(0)
    _rejected_with(ex.check_monitor(lambda query, pi: float(rng.random())), "not of how many calls")

    def edits_pi(query, pi):  # a pure monitor that writes into pi is still judged on what it is shown
        pi[query.seeds] = 0
        return float(pi.sum())

    assert "the same query" not in ex.check_monitor(edits_pi).message


# --- notebook 7 ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def realtext():
    from pathfinding.experiments.realtext import load_realtext
    from pathfinding.hipporag import HippoRetriever, index_from_openie

    data = load_realtext()
    index = index_from_openie(data["openie"], tau=0.8)
    return data, index, HippoRetriever(index, **online.V1_SETTINGS)  # notebook 7's v1 retriever


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


def test_missed_question_refuses_inputs_that_are_not_the_notebooks(realtext):
    import dataclasses

    from pathfinding.hipporag import HippoRetriever, index_from_openie

    data, index, retriever = realtext
    questions, corpus = data["questions"], data["corpus"]
    complete = next(
        q for q in questions[:30]
        if ex.check_missed_question(retriever, q, corpus).message.startswith("the top 5 holds")
    )  # fmt: skip
    # each loophole turns a question v1 answers completely into a "miss"
    other_index = HippoRetriever(index_from_openie(data["openie"], tau=0.5), **online.V1_SETTINGS)
    _rejected_with(ex.check_missed_question(other_index, complete, corpus), "built on another index")
    _rejected_with(ex.check_missed_question(retriever, complete, corpus[::-1]), "changed or reordered")
    replaced = dataclasses.replace(complete, question=questions[0].question + " Clonbrook?")
    _rejected_with(ex.check_missed_question(retriever, replaced, corpus), "its text or its gold passages")
    default = HippoRetriever(index, facts=0)
    assert not ex.check_missed_question(default, complete, corpus)
    _rejected_with(ex.check_missed_question(retriever, complete, corpus, k=1), "top 5, not its top 1")
