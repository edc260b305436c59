"""argparse types shared by every command: numbers and seconds, with messages that name the value.

Standard library only, so a command line that starts with them loads no numerical library before it
knows what it will run.
"""

from __future__ import annotations

import argparse
import math

__all__ = ["amount", "positive_int", "positive_seconds", "seconds", "unit_interval", "whole_number"]


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


def amount(what: str, *, positive: bool = False):
    """An argparse ``type`` for a finite number of ``what`` (``"dollars"``), ``> 0`` when ``positive``
    else ``>= 0``, with a message naming the value."""
    bound = "> 0" if positive else ">= 0"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of {what}, got {text!r}") from None
        if not math.isfinite(value) or value < 0 or (positive and value == 0):
            raise argparse.ArgumentTypeError(f"expected a number of {what} {bound}, got {text!r}")
        return value

    return parse


def seconds(*, positive: bool = False):
    """An argparse ``type`` for a finite number of seconds, ``> 0`` when ``positive`` else ``>= 0``."""
    return amount("seconds", positive=positive)


positive_seconds = seconds(positive=True)
"""An argparse ``type`` for a duration in seconds > 0."""


def unit_interval(text: str) -> float:
    """An argparse ``type`` accepting a number in [0, 1], with a message naming the value."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}") from None
    if not 0.0 <= value <= 1.0:  # NaN fails too
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return value
