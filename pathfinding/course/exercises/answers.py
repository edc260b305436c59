"""Reading and judging a student's answer: the one comparison every exercise check uses.

:func:`judge` compares at the :class:`Precision` an exercise states; :func:`read_number` and
:func:`read_numbers` read any real number (int, float, a NumPy scalar or 0-d array,
:class:`fractions.Fraction`, :class:`decimal.Decimal`; a list, tuple or array where a vector is
asked) and raise ``TypeError`` only for what cannot be read as one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
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
    "call_answer",
    "close_message",
    "judge",
    "read_number",
    "read_numbers",
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
    """The precision an exercise asks for; an answer within one unit of its last digit passes.

    Give at most one of ``sig`` (significant digits) and ``decimals`` (decimal places), or ``whole``
    for a count that may be rounded either way to a whole number; none of them asks for the exact
    value (up to floating-point error), as for a count that has one right integer.

    Examples
    --------
    >>> str(Precision(sig=2)), str(Precision(decimals=4)), str(Precision(whole=True)), str(EXACT)
    ('to 2 significant digits', 'to 4 decimal places', 'to a whole number', 'exactly')
    """

    sig: int | None = None
    decimals: int | None = None
    whole: bool = False

    def __str__(self) -> str:
        if self.sig is not None:
            return f"to {self.sig} significant digits"
        if self.decimals is not None:
            return f"to {self.decimals} decimal places"
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


def _fewer_digits(got: float, want: float, unit: float) -> bool:
    """Whether ``got`` is ``want`` written with fewer digits than ``unit`` asks for."""
    if unit == 0 or got == 0 or want == 0:
        return False
    coarse, leading = unit * 10, 10.0 ** math.floor(math.log10(abs(want)))
    while coarse <= leading * (1 + 1e-9):  # down to one significant digit, no coarser
        steps = got / coarse
        if abs(steps - round(steps)) < 1e-6 and abs(got - want) <= coarse * (1 + 1e-9):
            return True
        coarse *= 10
    return False


def judge(got, want, precision: Precision = EXACT) -> Literal["right", "close", "wrong"]:
    """Compare an answer with the expected value at the precision the exercise states.

    Parameters
    ----------
    got : real number or sequence of real numbers
        The answer, already read by the check (see :func:`read_number`); same length as ``want``.
    want : real number or sequence of real numbers
    precision : Precision, default EXACT

    Returns
    -------
    {"right", "close", "wrong"}
        ``"right"`` when every entry is within one unit of the last digit asked for; ``"close"``
        when every entry is right or is the value written with fewer digits (``0.6`` for
        ``0.61047`` asked to 2 significant digits); ``"wrong"`` otherwise.

    Examples
    --------
    >>> from fractions import Fraction
    >>> judge(0.61, 0.61047, Precision(sig=2)), judge(0.6105, 0.61047, Precision(sig=2))
    ('right', 'right')
    >>> judge(0.6, 0.61047, Precision(sig=2)), judge(0.66, 0.61047, Precision(sig=2))
    ('close', 'wrong')
    >>> judge([Fraction(1, 5), Fraction(4, 5)], [0.2, 0.8]), judge(2222, 20_000 / 9, Precision(whole=True))
    ('right', 'right')
    """
    g = np.atleast_1d(np.asarray(got, dtype=float))
    w = np.atleast_1d(np.asarray(want, dtype=float))
    if g.shape != w.shape:
        return "wrong"
    unit = precision.unit(w)
    right = np.abs(g - w) <= unit * (1 + 1e-9) + _slack(w)
    if right.all():
        return "right"
    if all(right[i] or _fewer_digits(g[i], w[i], unit[i]) for i in range(g.size)):
        return "close"
    return "wrong"


def close_message(what: str, precision: Precision) -> str:
    """The feedback for an answer right only when rounded to fewer digits than asked."""
    return f"close — keep more digits: {what} is the answer rounded too far; give it {precision}."


def read_number(name: str, value) -> float | None:
    """``value`` as a float, None when the student has not answered yet (None or ...).

    Reads any real number: int, float, NumPy scalar or 0-d array, Fraction, Decimal.
    """
    if value is None or value is Ellipsis:
        return None
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, bool | np.bool_) or not isinstance(value, Real | Decimal):
        raise InvalidTypeError(
            f"{name} must be a number (int, float, NumPy number or Fraction), "
            f"got {type(value).__name__} {value!r}"
        )
    return float(value)


def read_numbers(name: str, value, n: int | None) -> tuple[float, ...] | None:
    """``value`` as ``n`` floats (any length when ``n`` is None); None when any entry is unanswered."""
    if value is None or value is Ellipsis:
        return None
    if isinstance(value, np.ndarray) and np.squeeze(value).ndim <= 1:
        value = np.reshape(value, -1).tolist()  # a column or row vector reads as a vector
    if not isinstance(value, tuple | list) or (n is not None and len(value) != n):
        want = "numbers" if n is None else f"{n} numbers"
        raise InvalidTypeError(f"{name} must be {want} (a tuple, list or array), got {value!r}")
    read = [read_number(f"{name}[{i}]", v) for i, v in enumerate(value)]
    return None if any(v is None for v in read) else tuple(read)


NOT_YET = Feedback(False, "no answer yet: replace the ... with your answer and run the cell again.")


def call_answer(fn: Callable | None, name: str, n: int, *args) -> tuple[float, ...] | None:
    """``fn(*args)`` read as ``n`` numbers; None when ``fn`` or its result is unanswered."""
    if fn is None or fn is Ellipsis:
        return None
    if not callable(fn):
        raise InvalidTypeError(f"expected a function for {name}, got {type(fn).__name__}")
    return read_numbers(f"{name}{args}", fn(*args), n)
