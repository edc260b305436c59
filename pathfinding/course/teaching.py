"""Checks that teach: a notebook's numbers, checked without crashing the lesson.

A course notebook asserts the numbers it teaches. A bare ``assert`` stops the lesson the moment a
student changes ``restart_prob`` on purpose; :func:`check` and :func:`expect` instead print which idea
no longer holds and let the notebook go on. The test suite sets ``PATHFINDING_STRICT=1``
(``tests/test_notebooks.py``), and then a failed check raises, so a changed number still fails
``make test``.
"""

from __future__ import annotations

import os

import numpy as np

from pathfinding.errors import CheckFailed, InvalidTypeError

__all__ = ["STRICT_ENV", "check", "expect", "strict"]

STRICT_ENV = "PATHFINDING_STRICT"
"""Environment variable: ``1`` makes a failed check raise :class:`~pathfinding.errors.CheckFailed`."""


def strict() -> bool:
    """Whether failed checks raise (``PATHFINDING_STRICT`` set to anything but ``""`` or ``0``)."""
    return os.environ.get(STRICT_ENV, "") not in ("", "0")


def _fail(message: str) -> None:
    if strict():
        raise CheckFailed(message)
    print(
        f"CHECK DID NOT HOLD: {message}\n"
        "  Changed a parameter on purpose? Then this is the idea your change touched.\n"
        "  If not, re-run the notebook from the top."
    )


def check(condition, *, idea: str) -> None:
    """Check a property the notebook teaches.

    Parameters
    ----------
    condition : bool
    idea : str
        The idea that holds when ``condition`` is true, as a sentence a student can act on.

    Returns
    -------
    None
        Nothing is shown when the check holds (so a notebook cell ends quietly); a false condition
        prints ``idea``, or raises :class:`~pathfinding.errors.CheckFailed` in strict mode.

    Examples
    --------
    >>> check(2 > 1, idea="two is more than one")
    """
    if not isinstance(idea, str) or not idea:
        raise InvalidTypeError(f"idea must be a non-empty sentence, got {idea!r}")
    if not bool(np.all(condition)):
        _fail(idea)


def expect(value, expected, *, idea: str, atol: float = 0.0, rtol: float = 0.0) -> None:
    """Check that a computed value equals the number the notebook teaches, within a stated tolerance.

    Parameters
    ----------
    value, expected : number, array_like, or any value comparable with ``==``
    idea : str
        What it means that they agree.
    atol, rtol : float, default 0
        Tolerances for numbers (``numpy.allclose``); other values must be equal.

    Returns
    -------
    None
        As :func:`check`.

    Examples
    --------
    >>> expect(0.5 * 0.5 / 9, 0.0278, atol=5e-5, idea="one inflow is 0.0278")
    >>> import os
    >>> os.environ.pop("PATHFINDING_STRICT", None) and None
    >>> expect(0.03, 0.0278, atol=5e-5, idea="one inflow is 0.0278")
    CHECK DID NOT HOLD: one inflow is 0.0278 (got 0.03, expected 0.0278 within atol=5e-05)
      Changed a parameter on purpose? Then this is the idea your change touched.
      If not, re-run the notebook from the top.
    """
    if not isinstance(idea, str) or not idea:
        raise InvalidTypeError(f"idea must be a non-empty sentence, got {idea!r}")
    try:
        a = np.asarray(value, dtype=np.float64)
        b = np.asarray(expected, dtype=np.float64)
        numeric = a.shape == b.shape or b.ndim == 0
    except (TypeError, ValueError):
        numeric = False
    if numeric:
        ok = bool(np.allclose(a, b, atol=atol, rtol=rtol))
        tol = f" within atol={atol:g}" + (f", rtol={rtol:g}" if rtol else "")
    else:
        ok = value == expected
        ok = bool(np.all(ok)) if not isinstance(ok, bool) else ok
        tol = ""
    if not ok:
        _fail(f"{idea} (got {_short(value)}, expected {_short(expected)}{tol})")


def _short(x) -> str:
    text = np.array2string(np.asarray(x), precision=6, threshold=8) if np.ndim(x) else repr(x)
    if isinstance(x, (float, np.floating)):
        text = f"{float(x):.6g}"
    return text if len(text) < 120 else text[:117] + "..."
