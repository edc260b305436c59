"""The running example (pathfinding.experiments.step9.casestudy), asked as the chapter asks it."""

import numpy as np
import pytest

from pathfinding.experiments.step9 import paper


def test_the_running_example_is_asked_as_the_chapter_asks_it():
    from pathfinding.experiments.step9.casestudy import CHAPTER_QUESTION, bm25_ranks, load_university

    assert CHAPTER_QUESTION == paper.TABLE_7["question"]
    question, corpus = load_university()
    ranks = bm25_ranks(CHAPTER_QUESTION, corpus)
    assert sorted(ranks.tolist()) == list(range(1, len(corpus) + 1))
    top = [corpus[j].title for j in ranks.argsort()[:3]]
    assert not any(t.startswith("Thomas C. S") for t in top)  # a per-passage ranker misses the professor


def test_the_walk_puts_sudhof_first_on_the_hand_written_triples_only():
    from pathfinding.experiments.step9.casestudy import CHAPTER_QUESTION, hand_triples, load_university, walk
    from pathfinding.hipporag.extract.cooccurrence import cooccurrence_docs

    question, corpus = load_university()
    sudhof = [j for j, p in enumerate(corpus) if p.title.startswith("Thomas C. S")]
    by_hand = walk(hand_triples(), corpus, CHAPTER_QUESTION, nodes=["Thomas C. Südhof"])
    no_model = walk([d.triples for d in cooccurrence_docs(corpus)], corpus, CHAPTER_QUESTION)
    assert by_hand.best_rank(sudhof) == 1 and by_hand.hops["thomas c  s dhof"] == (1.0, 1.0)
    assert no_model.best_rank(sudhof) > 5


def test_walk_explains_the_ranking_it_measured():
    # the explanation is of the same ranking: its passages in passage_rank's order, each score's parts
    # adding up to it, one part per linked query entity
    from pathfinding.experiments.step9.casestudy import CHAPTER_QUESTION, hand_triples, load_university, walk

    question, corpus = load_university()
    case = walk(hand_triples(), corpus, CHAPTER_QUESTION)
    why = case.explanation
    assert list(why.ids) == list(np.argsort(case.passage_rank, kind="stable"))
    for pe in why.passages:
        assert sum(p.score for p in pe.parts) == pytest.approx(pe.score, rel=1e-9, abs=1e-12)
        assert sorted(p.entity for p in pe.parts) == sorted(case.seeds)
