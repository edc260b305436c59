"""The exercise checks as the notebooks import them (pathfinding.course.exercises): every check of
notebooks 1-8 is exported, and an unanswered exercise neither passes nor crashes. Each module's checks
are tested in its own file (test_answers, test_arithmetic, test_walk, test_online, test_exercises_step9).
"""

import pytest

from pathfinding.course import exercises as ex
from pathfinding.synthetic.toy import passage_count_matrix


def _unanswered_is_not_ok(feedback):
    assert not feedback and "no answer yet" in feedback.message


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
