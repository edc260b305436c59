"""The exercise checks as the notebooks import them (pathfinding.course.exercises): every check of
notebooks 1-8 is exported, and an unanswered exercise neither passes nor crashes. Each module's checks
are tested in its own file (test_answers, test_arithmetic, test_walk, test_online, test_exercises_step9).
"""

import numpy as np
import pytest

from pathfinding.course import exercises as ex
from pathfinding.course.exercises import arithmetic, online, walk
from pathfinding.synthetic.toy import passage_count_matrix


def _unanswered_is_not_ok(feedback):
    assert not feedback and "no answer yet" in feedback.message


def rejected_with(feedback, hint):
    """Assert that a check rejected an answer with ``hint`` in its feedback (the module tests use it)."""
    assert not feedback, feedback.message
    assert hint in feedback.message, feedback.message


@pytest.mark.parametrize(
    "check",
    [
        lambda: ex.check_one_step(lambda d, a: ...),
        lambda: ex.check_stationary(lambda d, a: ...),
        lambda: ex.check_margin(lambda r1, r2: ...),
        lambda: ex.check_specificity_margin(...),
        lambda: ex.check_three_seeds(...),
        lambda: ex.check_restart(passage_count_matrix((20, 5)), [0, 1], ...),
        lambda: ex.check_hub_threshold(...),
        lambda: ex.check_chance_rank(8, ...),
        lambda: ex.check_passage_rank(2, ...),
        lambda: ex.check_defeating_shape(...),
        lambda: ex.check_slip_branching(...),
        lambda: ex.check_break_even(10, 20, ...),
        lambda: ex.check_half_share(10, ...),
        lambda: ex.check_connected_probability(36, 4, 4, ...),
        lambda: ex.check_monitor(lambda query, pi: ..., queries=2),
        lambda: ex.check_missed_question(None, ..., []),
    ],
)
def test_an_unanswered_exercise_says_so_and_does_not_crash(check):
    _unanswered_is_not_ok(check())


def test_every_check_is_exported_from_the_package():
    import pathfinding.course.exercises.arithmetic as arithmetic
    import pathfinding.course.exercises.online as online
    import pathfinding.course.exercises.step9 as step9
    import pathfinding.course.exercises.walk as walk

    checks = {n for m in (arithmetic, online, step9, walk) for n in m.__all__ if n.startswith("check_")}
    assert checks <= set(ex.__all__)


# --- every wrong model listed next to a check is rejected with its own hint ---------------------------

FUNCTION_EXERCISES = [
    (ex.check_one_step, arithmetic.ONE_STEP_WRONG, arithmetic.STEP_CASES),
    (ex.check_stationary, arithmetic.STATIONARY_WRONG, arithmetic.STEP_CASES),
    (ex.check_margin, arithmetic.MARGIN_WRONG, arithmetic.MARGIN_CASES),
]


@pytest.mark.parametrize(
    ("check", "model"),
    [(c, m) for c, models, _ in FUNCTION_EXERCISES for m in models if m.value is not None],
    ids=lambda x: getattr(x, "name", getattr(x, "__name__", "")),
)
def test_a_function_answer_built_on_a_wrong_model_gets_its_hint(check, model):
    rejected_with(check(lambda *args: model.value(*args)), model.hint)


VALUE_EXERCISES = [
    (ex.check_specificity_margin, (), arithmetic.SPECIFICITY_MARGIN_WRONG, (arithmetic.SPECIFICITY_COUNTS,)),
    (ex.check_three_seeds, (), arithmetic.THREE_SEEDS_WRONG, ()),
    (ex.check_hub_threshold, (), walk.HUB_THRESHOLD_WRONG, ()),
    (ex.check_chance_rank, (5,), walk.CHANCE_RANK_WRONG, (5,)),
    (ex.check_passage_rank, (4,), walk.PASSAGE_RANK_WRONG, (4,)),
    (ex.check_break_even, (50_000, 10), online.BREAK_EVEN_WRONG, (50_000, 10)),
    (ex.check_break_even, (50_000, 30), online.BREAK_EVEN_WRONG, (50_000, 30)),
    (ex.check_connected_probability, (36, 4, 4), online.CONNECTED_PROBABILITY_WRONG, (36, 4, 4)),
]


@pytest.mark.parametrize(
    ("check", "args", "model", "inputs"),
    [(c, a, m, i) for c, a, models, i in VALUE_EXERCISES for m in models if m.value is not None],
    ids=lambda x: getattr(x, "name", getattr(x, "__name__", None)),
)
def test_a_value_built_on_a_wrong_model_gets_its_hint(check, args, model, inputs):
    value = model.value(*inputs)
    rejected_with(check(*args, value), model.hint_for(inputs))
    rejected_with(check(*args, np.float64(value)), model.hint_for(inputs))
