"""argparse types shared by every command: numbers with messages that name the value.

Standard library only, so a command line that starts with them loads no numerical library before it
knows what it will run.
"""

from __future__ import annotations

import argparse

__all__ = ["positive_int", "positive_seconds", "seconds", "unit_interval", "whole_number"]


def whole_number(low: int):
    """An argparse ``type`` accepting whole numbers ``>= low``, with a message naming the value."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {low}, got {value}")
        return value

    return parse


positive_int = whole_number(1)
"""An argparse ``type`` for whole numbers >= 1."""


def _number(text: str, ok, expected: str) -> float:
    """``text`` as a float for which ``ok(value)`` holds, else an error saying what was ``expected``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not ok(value):  # NaN fails every comparison, so it is refused too
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def positive_seconds(text: str) -> float:
    """An argparse ``type`` for a duration in seconds > 0, with a message naming the value."""
    return _number(text, lambda v: 0 < v < float("inf"), "a number of seconds > 0")


def seconds(text: str) -> float:
    """An argparse ``type`` for a duration in seconds ``>= 0`` (``inf`` is allowed: no limit)."""
    return _number(text, lambda v: v >= 0, "a number of seconds >= 0")


def unit_interval(text: str) -> float:
    """An argparse ``type`` accepting a number in [0, 1], with a message naming the value."""
    return _number(text, lambda v: 0.0 <= v <= 1.0, "a number in [0, 1]")
