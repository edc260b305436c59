"""Checks for the course's exercises: each takes the student's answer and says whether it holds.

Every ``check_...`` function returns a :class:`Feedback`: true when the answer holds, and on failure a
hint that names the idea the answer missed. Checks never raise on an answer: a wrong one gets a hint,
an unanswered one (``...``) says so, and one whose type or shape cannot be read (text, None, NaN, a
vector of the wrong length, a dict with the wrong keys) gets feedback that says what was expected,
so a notebook keeps running in class. The solutions in ``notebooks/solutions/`` call the same
checks, and the test suite runs them.

Every number goes through one comparison, :func:`judge`: an answer is right when it is the exact
value rounded to the :class:`Precision` the exercise states (or given with more digits), written as
any real number (int, float, a NumPy scalar or 0-d array, :class:`fractions.Fraction`,
:class:`decimal.Decimal`; a list, tuple or array where a vector is asked). It is "close — keep more
digits" only when it *is* the exact value rounded to fewer digits and no listed confusion gives it.
Next to each check, a tuple of :class:`WrongModel` lists the confusions students bring to that
exercise (restart against damping, networkx's fixed 0.85, one step against stationary, independence
against drawing without replacement, ``|P_i|`` against ``1/|P_i|``, forgetting to renormalise, a
percentage for a probability, ...), each computed from the exercise's own inputs; an answer that
matches one gets the hint that names it.

Every check also verifies that what it was handed is what its exercise set (the inputs the exercise
names, an instance whose candidates are the exercise's, a monitor that is a function of what it is
shown, the notebook's retriever, corpus and question) and says so in one sentence when it is not: a
right answer to a changed question does not pass.

The comparison lives in :mod:`~pathfinding.course.exercises.answers`; the checks of notebook 1 in
:mod:`~pathfinding.course.exercises.arithmetic`, of notebooks 0, 2 and 3 in
:mod:`~pathfinding.course.exercises.walk`, of notebook 4 in
:mod:`~pathfinding.course.exercises.shapes`, of notebooks 5-7 in
:mod:`~pathfinding.course.exercises.online` and of notebook 8 in
:mod:`~pathfinding.course.exercises.step9`; every check is importable from here.
"""

from pathfinding._lazy import lazy_exports

_EXPORTS = {
    **dict.fromkeys(
        ["EXACT", "Feedback", "Precision", "WrongModel", "judge"], "pathfinding.course.exercises.answers"
    ),
    **dict.fromkeys(
        ["check_margin", "check_one_step", "check_specificity_margin", "check_stationary",
         "check_three_seeds"],
        "pathfinding.course.exercises.arithmetic",
    ),
    **dict.fromkeys(
        ["MONITOR_DETECTION", "check_break_even", "check_connected_probability", "check_half_share",
         "check_missed_question", "check_monitor"],
        "pathfinding.course.exercises.online",
    ),
    **dict.fromkeys(
        ["check_chance_rank", "check_hub_threshold", "check_passage_share", "check_restart"],
        "pathfinding.course.exercises.walk",
    ),
    **dict.fromkeys(["check_defeating_shape", "check_slip_branching"], "pathfinding.course.exercises.shapes"),
    **dict.fromkeys(
        ["check_allrecall_gains", "check_synonymy_threshold"], "pathfinding.course.exercises.step9"
    ),
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
