"""The exceptions pathfinding raises for bad input.

Every check of a public function raises :class:`InvalidValueError` or :class:`InvalidTypeError`.
They subclass ``ValueError`` and ``TypeError``, so ``except ValueError`` keeps working, and both
subclass :class:`ValidationError`, which the command line turns into a one-line message. The
machine's trouble (a full disk, a permission, a file another process keeps locked:
:class:`FileBusyError`) is an ``OSError`` naming the file, also one line on the command line. Any other
exception is a bug and keeps its traceback.
"""

from __future__ import annotations

__all__ = ["FileBusyError", "FormatError", "InvalidTypeError", "InvalidValueError", "ValidationError"]


class ValidationError(Exception):
    """An argument was rejected before any work was done; the message names it and what was expected."""


class InvalidValueError(ValidationError, ValueError):
    """An argument has the right type but a value out of range, a wrong shape, or no mass."""


class InvalidTypeError(ValidationError, TypeError):
    """An argument has the wrong type (a float where an integer is needed, a boolean array, ...)."""


class FormatError(InvalidValueError):
    """A file is not in the expected format (the message names the file and the record); raised by
    the HippoRAG loaders (``pathfinding.hipporag.io`` exports it too)."""


class FileBusyError(TimeoutError):
    """Another process kept a file locked for longer than the caller would wait; nothing was written.

    An ``OSError`` (``filename`` is the file, ``strerror`` says who holds it and for how long it was
    awaited), raised by :func:`pathfinding.hipporag.safety.exclusive_lock`.
    """

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"
