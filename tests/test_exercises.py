"""The exercise checks as the notebooks import them (pathfinding.course.exercises): every check of
notebooks 1-8 is exported, and an unanswered exercise neither passes nor crashes. Each module's checks
are tested in its own file (test_answers, test_arithmetic, test_walk, test_online, test_exercises_step9).
"""

import itertools

import numpy as np
import pytest

from pathfinding.course import exercises as ex
from pathfinding.course.exercises import arithmetic, online, step9, walk
from pathfinding.course.exercises.answers import judge
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
        lambda: ex.check_chance_rank(5, ...),
        lambda: ex.check_passage_share(...),
        lambda: ex.check_defeating_shape(...),
        lambda: ex.check_slip_branching(..., seeds=3),
        lambda: ex.check_break_even(50_000, 10, ...),
        lambda: ex.check_half_share(50_000, ..., calls_per_query=3),
        lambda: ex.check_connected_probability(36, 4, 4, ...),
        lambda: ex.check_monitor(lambda query, pi: ...),
        lambda: ex.check_missed_question(None, ..., []),
        lambda: step9.check_allrecall_gains(...),
        lambda: step9.check_synonymy_threshold(None, *step9.SYNONYMY_PAIR, ...),
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
    (ex.check_passage_share, (), walk.PASSAGE_SHARE_WRONG, ()),
    (ex.check_break_even, (50_000, 10), online.BREAK_EVEN_WRONG, (50_000, 10)),
    (ex.check_break_even, (50_000, 30), online.BREAK_EVEN_WRONG, (50_000, 30)),
    (ex.check_connected_probability, (36, 4, 4), online.CONNECTED_PROBABILITY_WRONG, (36, 4, 4)),
]


def _half_share(value):
    n_passages, calls = online.HALF_SHARE_INPUTS
    return ex.check_half_share(n_passages, value, calls_per_query=calls)


VALUE_EXERCISES.append((_half_share, (), online.HALF_SHARE_WRONG, online.HALF_SHARE_INPUTS))

@pytest.mark.parametrize(
    ("check", "args", "model", "inputs"),
    [(c, a, m, i) for c, a, models, i in VALUE_EXERCISES for m in models if m.value is not None],
    ids=lambda x: getattr(x, "name", getattr(x, "__name__", None)),
)
def test_a_value_built_on_a_wrong_model_gets_its_hint(check, args, model, inputs):
    value = model.value(*inputs)
    rejected_with(check(*args, value), model.hint_for(inputs))
    rejected_with(check(*args, np.float64(value)), model.hint_for(inputs))


# --- every exercise can tell each listed confusion from the right answer and from the others --------

# (name, models, the exact answer, its precision, inputs): the value exercises at the inputs they set
SEPARATED = [
    ("1.3b", arithmetic.SPECIFICITY_MARGIN_WRONG, 1.3, arithmetic.MARGIN_PRECISION,
     (arithmetic.SPECIFICITY_COUNTS,)),
    ("1.4", arithmetic.THREE_SEEDS_WRONG, 3.0, arithmetic.MARGIN_PRECISION, ()),
    ("2.2", walk.HUB_THRESHOLD_WRONG, 29, ex.EXACT, ()),
    ("3.1", walk.CHANCE_RANK_WRONG, 6.0, ex.EXACT, (5,)),
    ("3.2", walk.PASSAGE_SHARE_WRONG, 6 / 925, walk.PASSAGE_SHARE_PRECISION, ()),
    ("5.1 at 10x", online.BREAK_EVEN_WRONG, 100_000 / 9, online.QUERIES_PRECISION, (50_000, 10)),
    ("5.1 at 30x", online.BREAK_EVEN_WRONG, 100_000 / 29, online.QUERIES_PRECISION, (50_000, 30)),
    ("5.2", online.HALF_SHARE_WRONG, 100_000 / 3, online.QUERIES_PRECISION, online.HALF_SHARE_INPUTS),
    ("6.1", online.CONNECTED_PROBABILITY_WRONG, 35960 / 58905, online.PROBABILITY_PRECISION,
     (36, 4, 4)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "models", "want", "precision", "inputs"), SEPARATED, ids=[s[0] for s in SEPARATED]
)
def test_no_confusion_gives_the_right_answer_or_another_confusions_number(
    name, models, want, precision, inputs
):
    """Where an exercise cannot tell a wrong model from the right one, its numbers must change; two
    confusions with one number would give a student the other's hint."""
    values = {m.name: m.value(*inputs) for m in models if m.value is not None}
    for model, value in values.items():
        assert judge(value, want, precision) != "right", f"{name}: {model} gives the right answer"
    hints = {m.name: m.hint_for(inputs) for m in models}
    for a, b in itertools.combinations(values, 2):
        if hints[a] != hints[b] and np.isfinite(values[a]) and np.isfinite(values[b]):
            assert judge(values[a], values[b], precision) != "right", f"{name}: {a} and {b} coincide"


@pytest.mark.parametrize(
    ("models", "cases", "want"),
    [
        (arithmetic.ONE_STEP_WRONG, arithmetic.STEP_CASES, arithmetic._one_step),
        (arithmetic.STATIONARY_WRONG, arithmetic.STEP_CASES, arithmetic._stationary),
        (arithmetic.MARGIN_WRONG, arithmetic.MARGIN_CASES, lambda r1, r2: 1 + r2 / r1),
    ],
    ids=["1.1", "1.2", "1.3"],
)
def test_a_function_exercise_separates_every_confusion_at_some_case(models, cases, want):
    for model in (m for m in models if m.value is not None):
        separated = [judge(model.value(*c), want(*c), ex.Precision(sig=3)) == "wrong" for c in cases]
        assert any(separated), model.name
