"""The exceptions pathfinding raises for bad input.

Every check of a public function raises :class:`InvalidValueError` or :class:`InvalidTypeError`.
They subclass ``ValueError`` and ``TypeError``, so ``except ValueError`` keeps working, and both
subclass :class:`ValidationError`, which the command line turns into a one-line message. Any other
exception is a bug (or the machine's trouble) and keeps its traceback, except :class:`DataError`:
a data file from elsewhere that no local place holds and that could not be fetched, which the
command line also turns into one line (the message says how to fetch it).
"""

from __future__ import annotations

__all__ = [
    "DataDownloadError",
    "DataError",
    "DataNotFoundError",
    "FormatError",
    "InvalidTypeError",
    "InvalidValueError",
    "ValidationError",
]


class ValidationError(Exception):
    """An argument was rejected before any work was done; the message names it and what was expected."""


class InvalidValueError(ValidationError, ValueError):
    """An argument has the right type but a value out of range, a wrong shape, or no mass."""


class InvalidTypeError(ValidationError, TypeError):
    """An argument has the wrong type (a float where an integer is needed, a boolean array, ...)."""


class FormatError(InvalidValueError):
    """A file is not in the expected format (the message names the file and the record); raised by
    the HippoRAG loaders (``pathfinding.hipporag.io`` exports it too)."""


class DataError(Exception):
    """A data file from elsewhere (``pathfinding.hipporag.datasets``) is not available; the one-line
    message names the file, every place looked in and the command that fetches it."""


class DataNotFoundError(DataError):
    """No local place (``$PATHFINDING_DATA``, the cache, the folder given to fetch from) holds the file."""


class DataDownloadError(DataError):
    """Fetching the file failed: no network, a timeout, an HTTP error, a truncated body, or bytes whose
    size or SHA-256 differ from the registry's. Nothing is left under the file's name."""
