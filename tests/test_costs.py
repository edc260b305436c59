"""The cost model's arithmetic, checked by hand."""

import numpy as np
import pytest

from pathfinding.course.costs import (
    CostModel,
    break_even_queries,
    iterative_calls,
    offline_calls,
    offline_share,
    online_calls,
)


def test_bills_by_hand():
    m = CostModel(openie_calls_per_passage=2, openie_cost=3, ner_cost=0.5, steps_per_query=4, step_cost=2)
    assert offline_calls(100, m) == 600
    assert online_calls(10, m) == 5
    assert iterative_calls(10, m) == 80
    # 600 + 0.5 Q = 8 Q  ->  Q = 80
    assert break_even_queries(100, m) == pytest.approx(80.0)
    np.testing.assert_allclose(offline_share(100, [0, 1200], m), [1.0, 0.5])


def test_break_even_is_where_bills_cross():
    m = CostModel(steps_per_query=3)
    for n in (10, 1_000, 123_456):
        q = break_even_queries(n, m)
        assert offline_calls(n, m) + online_calls(q, m) == pytest.approx(iterative_calls(q, m))


def test_never_breaks_even_without_saving():
    assert np.isinf(break_even_queries([1, 2], CostModel(steps_per_query=0.5, step_cost=1))).all()
    assert np.isfinite(break_even_queries([1, 2], CostModel(steps_per_query=0.5, step_cost=3))).all()


def test_offline_share_zero_corpus_zero_queries():
    assert offline_share(0, 0) == 0.0


def test_validation_names_bad_values():
    with pytest.raises(ValueError, match="steps_per_query"):
        CostModel(steps_per_query=-1)
    with pytest.raises(ValueError, match="n_passages"):
        offline_calls(-5)


