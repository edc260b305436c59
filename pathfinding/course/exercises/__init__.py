"""Checks for the course's exercises: each takes the student's answer and says whether it holds.

Every ``check_...`` function returns a :class:`Feedback`: true when the answer holds, and on failure a
hint that points at the idea the answer missed, not at the answer. Checks never raise on a wrong or
missing answer (a notebook keeps running in class); they raise ``TypeError`` only when the *shape* of
the answer cannot be read (a string where a number was asked for). The solutions in
``notebooks/solutions/`` call the same checks and assert them, so the test suite fails when an
exercise breaks.

Every number goes through one comparison, :func:`judge`: it reads any real number (int, float, a
NumPy scalar or 0-d array, :class:`fractions.Fraction`, :class:`decimal.Decimal`; a list, tuple or
array where a vector is asked) and compares it at the :class:`Precision` the exercise states. An
answer right to the stated precision passes; one that is right but written with fewer digits than
asked gets "close — keep more digits", never a hint about the idea; only an answer that is wrong at
every precision gets a concept hint.

The comparison lives in :mod:`~pathfinding.course.exercises.answers`, the checks of notebooks 1-4
in :mod:`~pathfinding.course.exercises.walk` and those of notebooks 5-7 in
:mod:`~pathfinding.course.exercises.online`, those of notebook 8 in
:mod:`~pathfinding.course.exercises.step9`; every check is importable from here.
"""

from pathfinding._lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(["EXACT", "Feedback", "Precision", "judge"], "pathfinding.course.exercises.answers"),
    **dict.fromkeys(
        ["MONITOR_DETECTION", "check_break_even", "check_connected_probability", "check_half_share",
         "check_missed_question", "check_monitor"],
        "pathfinding.course.exercises.online",
    ),
    **dict.fromkeys(
        ["check_chance_rank", "check_defeating_shape", "check_hub_threshold", "check_margin",
         "check_one_step", "check_passage_rank", "check_restart", "check_slip_branching",
         "check_specificity_margin", "check_stationary", "check_three_seeds"],
        "pathfinding.course.exercises.walk",
    ),
    **dict.fromkeys(
        ["check_allrecall_gains", "check_synonymy_threshold"], "pathfinding.course.exercises.step9"
    ),
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
