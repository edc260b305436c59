"""argparse types shared by every command: whole numbers and seconds, with messages that name the value.

Standard library only, so a command line that starts with them loads no numerical library before it
knows what it will run.
"""

from __future__ import annotations

import argparse

__all__ = ["positive_int", "seconds", "whole_number"]


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


def seconds(text: str) -> float:
    """An argparse ``type`` for a duration in seconds, ``>= 0`` (``inf`` is allowed: no limit)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value
