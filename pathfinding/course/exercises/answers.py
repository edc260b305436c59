"""Reading and judging a student's answer: the one comparison every exercise check uses.

:func:`judge` compares at the :class:`Precision` an exercise states: an answer is right when it is
the exact value rounded to that precision (or given with more digits), and "close" only when it *is*
the exact value rounded to fewer digits. :class:`WrongModel` names a confusion a student brings to an
exercise, what that confusion computes from the same inputs, and the hint that names it;
:func:`diagnose` runs an answer through them. :func:`read_number` and :func:`read_numbers` read any
real number (int, float, a NumPy scalar or 0-d array, :class:`fractions.Fraction`,
:class:`decimal.Decimal`; a list, tuple or array where several are asked) and raise
:class:`~pathfinding.errors.InvalidTypeError` for anything else; :func:`feedback_on_unreadable`
turns that into feedback that says what was expected, so a check never ends a lesson with a
traceback.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from numbers import Real
from typing import Literal

import numpy as np

from pathfinding.errors import InvalidTypeError

__all__ = [
    "EXACT",
    "NOT_YET",
    "Feedback",
    "Precision",
    "WrongModel",
    "close_message",
    "diagnose",
    "feedback_on_unreadable",
    "judge",
    "judge_cases",
    "judge_value",
    "not_the_exercise",
    "percent_model",
    "read_function",
    "read_number",
    "read_numbers",
    "scaled",
    "verdict_feedback",
]


@dataclass(frozen=True)
class Feedback:
    """The verdict of one check: ``ok`` and a sentence for the student. Truthy when ``ok``."""

    ok: bool
    message: str

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return ("correct: " if self.ok else "not yet: ") + self.message


@dataclass(frozen=True)
class Precision:
    """The precision an exercise asks for: the exact value rounded to it, or more digits, passes.

    Give at most one of ``sig`` (significant digits) and ``decimals`` (decimal places): an answer
    within half a unit of the last digit asked for passes. ``whole`` asks for a count that may be
    rounded either way to a whole number (the exercise says so). None of them asks for the exact
    value (up to floating-point error), as for a count that has one right integer.

    Examples
    --------
    >>> str(Precision(sig=2)), str(Precision(decimals=4)), str(Precision(whole=True)), str(EXACT)
    ('to 2 significant digits', 'to 4 decimal places', 'to a whole number', 'exactly')
    >>> str(Precision(decimals=1)), str(Precision(sig=1))
    ('to 1 decimal place', 'to 1 significant digit')
    """

    sig: int | None = None
    decimals: int | None = None
    whole: bool = False

    def __str__(self) -> str:
        if self.sig is not None:
            return f"to {self.sig} significant digit{'s' if self.sig != 1 else ''}"
        if self.decimals is not None:
            return f"to {self.decimals} decimal place{'s' if self.decimals != 1 else ''}"
        return "to a whole number" if self.whole else "exactly"

    def unit(self, want: np.ndarray) -> np.ndarray:
        """The value of one unit in the last digit asked for, per entry of ``want`` (0 when exact)."""
        want = np.abs(np.asarray(want, dtype=float))
        if self.sig is not None:
            with np.errstate(divide="ignore"):
                lead = np.floor(np.log10(np.where(want > 0, want, 1.0)))
            return np.where(want > 0, 10.0 ** (lead - self.sig + 1), 0.0)
        if self.decimals is not None:
            return np.full(want.shape, 10.0**-self.decimals)
        return np.full(want.shape, 1.0 if self.whole else 0.0)


EXACT = Precision()


def _slack(want: np.ndarray) -> np.ndarray:
    # floating-point error of a value computed another way (a fraction, a different order of sums)
    return 1e-9 * np.maximum(np.abs(want), 1e-3)


def _rounds_to(got: float, want: float, unit: float) -> bool:
    """Whether ``got`` is ``want`` rounded to a multiple of ``unit`` (either way at an exact half)."""
    steps = got / unit
    on_grid = abs(steps - round(steps)) < 1e-6
    return on_grid and abs(got - want) <= unit / 2 * (1 + 1e-9) + float(_slack(np.asarray(want)))


def _fewer_digits(got: float, want: float, unit: float) -> bool:
    """Whether ``got`` is ``want`` rounded to fewer digits than ``unit`` asks for (not to zero)."""
    if unit == 0 or got == 0 or want == 0:
        return False
    coarse, leading = unit * 10, 10.0 ** math.floor(math.log10(abs(want)))
    while coarse <= leading * (1 + 1e-9):  # down to one significant digit, no coarser
        if _rounds_to(got, want, coarse):
            return True
        coarse *= 10
    return False


def _right(g: np.ndarray, w: np.ndarray, precision: Precision) -> np.ndarray:
    unit = precision.unit(w)
    right = np.abs(g - w) <= unit / 2 * (1 + 1e-9) + _slack(w)
    if precision.whole:  # the exercise accepts the count rounded down or up
        right |= (np.abs(g - w) < 1) & (np.abs(g - np.round(g)) < 1e-9)
    return right


def judge(got, want, precision: Precision = EXACT) -> Literal["right", "close", "wrong"]:
    """Compare an answer with the expected value at the precision the exercise states.

    Parameters
    ----------
    got : real number or sequence of real numbers
        The answer, already read by the check (see :func:`read_number`); same length as ``want``.
    want : real number or sequence of real numbers
        The exact value.
    precision : Precision, default EXACT

    Returns
    -------
    {"right", "close", "wrong"}
        ``"right"`` when every entry is within half a unit of the last digit asked for (the exact
        value rounded as asked, or given with more digits); ``"close"`` when every entry is right
        or *is* the exact value rounded to fewer digits (``0.6`` for ``0.61047`` asked to 2
        significant digits); ``"wrong"`` otherwise.

    Examples
    --------
    >>> from fractions import Fraction
    >>> judge(0.61, 0.61047, Precision(sig=2)), judge(0.6105, 0.61047, Precision(sig=2))
    ('right', 'right')
    >>> judge(0.6, 0.61047, Precision(sig=2)), judge(0.62, 0.61047, Precision(sig=2))
    ('close', 'wrong')
    >>> judge(0.7, 0.61047, Precision(sig=2)), judge(Fraction(1, 3), 1 / 3, Precision(decimals=4))
    ('wrong', 'right')
    """
    g = np.atleast_1d(np.asarray(got, dtype=float))
    w = np.atleast_1d(np.asarray(want, dtype=float))
    if g.shape != w.shape:
        return "wrong"
    right = _right(g, w, precision)
    if right.all():
        return "right"
    unit = precision.unit(w)
    if all(right[i] or _fewer_digits(g[i], w[i], unit[i]) for i in range(g.size)):
        return "close"
    return "wrong"


def close_message(what: str, precision: Precision) -> str:
    """The feedback for an answer that is the exact value rounded to fewer digits than asked."""
    return f"close — keep more digits: {what} is the answer rounded too far; give it {precision}."


def not_the_exercise(exercise: str, asked: str, given: str) -> Feedback:
    """The feedback for a check called with other inputs than its exercise's (a changed question).

    Examples
    --------
    >>> not_the_exercise("3.1", "5 distractors", "4 distractors").message[:58]
    'this is the check of exercise 3.1, which asks about 5 dist'
    """
    return Feedback(
        False,
        f"this is the check of exercise {exercise}, which asks about {asked}; it was given {given}. "
        "Put the exercise's inputs back: the right answer to another question does not pass.",
    )


def scaled(value, factor: float):
    """``value`` (a number, or a tuple or array of numbers) times ``factor``, in the same shape."""
    if isinstance(value, tuple):
        return tuple(factor * v for v in value)
    return factor * np.asarray(value, dtype=float) if np.ndim(value) else factor * float(value)


def percent_model(value: Callable, what: str = "a probability") -> WrongModel:
    """The confusion "a percentage where a share is asked": ``value`` (the right answer's function of
    the exercise's inputs) times 100.

    Examples
    --------
    >>> model = percent_model(lambda: 0.61)
    >>> model.shown_by(61.0, (), Precision(sig=2)), model.hint_for()[:36]
    (True, 'that is a percentage: the exercise a')
    """
    return WrongModel(
        "a percentage",
        f"that is a percentage: the exercise asks for {what}, a number between 0 and 1 (write 0.25, "
        "not 25).",
        value=lambda *inputs: scaled(value(*inputs), 100.0),
    )


@dataclass(frozen=True)
class WrongModel:
    """A confusion a student brings to an exercise, and the hint that names it.

    Give ``value`` or ``holds``. ``value(*inputs)`` is what the confusion computes from the
    exercise's own inputs (a number or a tuple of numbers); an answer equal to it at the stated
    precision shows the confusion. ``holds(answer, *inputs)`` says directly whether an answer shows
    it, for confusions that are a property rather than one number. ``hint`` is a sentence, or a
    function of the inputs that writes one.

    Examples
    --------
    >>> flipped = WrongModel("restart vs damping", "alpha is the restart share", value=lambda a: a)
    >>> flipped.shown_by(0.15, (0.15,), Precision(decimals=2)), flipped.shown_by(0.85, (0.15,), EXACT)
    (True, False)
    """

    name: str
    hint: str | Callable
    value: Callable | None = None
    holds: Callable | None = None

    def hint_for(self, inputs: Sequence = ()) -> str:
        """The hint, written for ``inputs`` when it depends on them."""
        return self.hint(*inputs) if callable(self.hint) else self.hint

    def shown_by(self, answer, inputs: Sequence, precision: Precision) -> bool:
        """Whether ``answer`` (already read) is what this confusion gives for ``inputs``."""
        if self.holds is not None:
            return bool(self.holds(answer, *inputs))
        wrong = self.value(*inputs)
        if np.shape(wrong) != np.shape(answer):
            return False
        return judge(answer, wrong, precision) == "right"


def diagnose(got, want, precision: Precision, wrong_models: Sequence[WrongModel], inputs: Sequence = ()):
    """The verdict on an answer, and the hint of the confusion it shows, if any.

    Returns ``(verdict, hint)``, tried in this order: ``("right", None)``; ``("wrong model", hint)``
    for the first model in ``wrong_models`` with a ``value`` the answer equals at ``precision``;
    ``("close", None)`` for the exact value rounded to fewer digits; ``("wrong model", hint)`` for
    the first model whose ``holds`` property the answer shows (a property such as "sums to 1" is
    also broken by rounding too far, so it comes after "close"); ``("wrong", None)``.

    Examples
    --------
    >>> models = [WrongModel("independent", "they are not independent", value=lambda: 0.624)]
    >>> p = Precision(sig=2)
    >>> [diagnose(x, 0.61047, p, models)[0] for x in (0.61, 0.62, 0.6, 0.5)]
    ['right', 'wrong model', 'close', 'wrong']
    """
    verdict = judge(got, want, precision)
    if verdict == "right":
        return "right", None
    for model in wrong_models:
        if model.value is not None and model.shown_by(got, inputs, precision):
            return "wrong model", model.hint_for(inputs)
    if verdict == "close":
        return "close", None
    for model in wrong_models:
        if model.holds is not None and model.shown_by(got, inputs, precision):
            return "wrong model", model.hint_for(inputs)
    return "wrong", None


def _describe(value) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def read_number(name: str, value) -> float | None:
    """``value`` as a float, None when the student has not answered yet (``...``).

    Reads any real number: int, float, NumPy scalar or 0-d array, Fraction, Decimal. Raises
    :class:`~pathfinding.errors.InvalidTypeError`, naming what was expected, for anything else
    (text, None, NaN, a list).
    """
    if value is Ellipsis:
        return None
    if value is None:
        raise InvalidTypeError(
            f"{name} is None: a number was expected (if {name} comes from a function, it must `return` it)"
        )
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, str):
        raise InvalidTypeError(
            f"{name} is the text {value!r}: write the number itself, without quotes "
            "(0.61, 1/3 or Fraction(1, 3))"
        )
    if isinstance(value, bool | np.bool_) or not isinstance(value, Real | Decimal):
        raise InvalidTypeError(
            f"{name} must be one number (int, float, NumPy number or Fraction), got {_describe(value)}"
        )
    number = float(value)
    if not math.isfinite(number):
        raise InvalidTypeError(f"{name} is {number}: a finite number was expected")
    return number


def read_numbers(name: str, value, n: int | None, *, entries: str = "") -> tuple[float, ...] | None:
    """``value`` as ``n`` floats (any length when ``n`` is None); None when any entry is unanswered.

    ``entries`` names what the numbers are (``"(answer mass, dead-end mass)"``), for the message
    when the shape is wrong.
    """
    if value is Ellipsis:
        return None
    if isinstance(value, np.ndarray) and np.squeeze(value).ndim <= 1:
        value = np.reshape(value, -1).tolist()  # a column or row vector reads as a vector
    expected = ("numbers" if n is None else f"{n} numbers") + (f" {entries}" if entries else "")
    if value is None:
        raise InvalidTypeError(
            f"{name} is None: {expected} were expected, as a tuple, list or array (if {name} comes "
            "from a function, it must `return` them)"
        )
    if isinstance(value, str):
        read_number(name, value)  # says to write the numbers without quotes
    if not isinstance(value, tuple | list):
        raise InvalidTypeError(
            f"{name} must be {expected}, as a tuple, list or array; got {_describe(value)}"
        )
    if n is not None and len(value) != n:
        raise InvalidTypeError(f"{name} must be {expected}; got {len(value)}: {_describe(value)}")
    read = [read_number(f"{name}[{i}]", v) for i, v in enumerate(value)]
    return None if any(v is None for v in read) else tuple(read)


def read_function(name: str, fn, signature: str) -> Callable | None:
    """``fn`` if it can be called, None when unanswered (``...``); InvalidTypeError otherwise."""
    if fn is Ellipsis:
        return None
    if not callable(fn):
        raise InvalidTypeError(f"{name} must be a function {signature}, got {_describe(fn)}")
    return fn


NOT_YET = Feedback(False, "no answer yet: replace the ... with your answer and run the cell again.")


def _number(x: float) -> str:
    """``x`` to 6 significant digits, or every digit when 6 would show a whole number it is not."""
    short = f"{x:.6g}"
    return repr(x) if float(short).is_integer() and float(short) != x else short


def _show(got) -> str:
    if isinstance(got, tuple):
        return "(" + ", ".join(_number(x) for x in got) + ")"
    return _number(got) if isinstance(got, float) else str(got)


def verdict_feedback(verdict: str, hint, *, shown, precision, right: str, fallback: str, where: str = ""):
    """The :class:`Feedback` for a verdict of :func:`diagnose`.

    ``right`` is the message when the answer holds, ``fallback`` the hint for a wrong answer that
    shows no listed confusion; ``shown`` is the answer as the message quotes it, after ``where`` (the
    case it was judged at, if any).

    Examples
    --------
    >>> verdict_feedback("close", None, shown=0.6, precision=Precision(sig=2), right="", fallback="")
    not yet: close — keep more digits: 0.6 is the answer rounded too far; give it to 2 significant digits.
    """
    if verdict == "right":
        return Feedback(True, right)
    if verdict == "close":
        return Feedback(False, close_message(f"{where}{_show(shown)}", precision))
    return Feedback(False, f"{where}{_show(shown)}; hint: {hint or fallback}")


def judge_value(name: str, value, want, precision: Precision, wrong_models, inputs=(), **messages):
    """Judge one number: read ``value``, run it through ``wrong_models`` and give the feedback.

    ``messages`` are :func:`verdict_feedback`'s ``right`` and ``fallback``.
    """
    got = read_number(name, value)
    if got is None:
        return NOT_YET
    verdict, hint = diagnose(got, want, precision, wrong_models, inputs)
    return verdict_feedback(verdict, hint, shown=got, precision=precision, **messages)


def judge_cases(fn, name: str, cases, want: Callable, wrong_models, precision: Precision, **messages):
    """Judge a function answer ``fn(*case)`` on every case, and give the feedback of the first it fails.

    ``want(*case)`` is the exact value (a number, or a tuple whose length ``fn`` must return);
    ``messages`` are :func:`verdict_feedback`'s ``right`` and ``fallback``, and ``entries``, what the
    numbers are, for a result of the wrong shape.
    """
    entries = messages.pop("entries", "")
    if read_function(name, fn, f"{name}({', '.join('...' for _ in cases[0])})") is None:
        return NOT_YET
    for case in cases:
        exact = want(*case)
        result = fn(*case)
        if isinstance(exact, tuple):
            got = read_numbers(f"{name}{case}", result, len(exact), entries=entries)
        else:
            got = read_number(f"{name}{case}", result)
        if got is None:
            return NOT_YET
        verdict, hint = diagnose(got, exact, precision, wrong_models, case)
        if verdict != "right":
            where = f"at {name}{case}: "
            return verdict_feedback(verdict, hint, shown=got, precision=precision, where=where, **messages)
    return Feedback(True, messages["right"])


def feedback_on_unreadable(check: Callable) -> Callable:
    """Wrap a check so that an answer it cannot read comes back as feedback, not as a traceback."""

    @functools.wraps(check)
    def checked(*args, **kwargs) -> Feedback:
        try:
            return check(*args, **kwargs)
        except InvalidTypeError as err:
            return Feedback(False, f"cannot read this answer: {err}.")

    return checked
