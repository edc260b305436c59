"""Every exception pathfinding raises on purpose.

Every check of a public function raises :class:`InvalidValueError` or :class:`InvalidTypeError`.
They subclass ``ValueError`` and ``TypeError``, so ``except ValueError`` keeps working, and both
subclass :class:`ValidationError`. A chat or embeddings endpoint that keeps failing raises
one that refuses the request :class:`LLMFatalError`; a file another process keeps locked for too
long, :class:`FileBusyError` (an ``OSError`` naming the file). All of them subclass
:class:`PathfindingError`, which the command line turns into a one-line message and status 2. A data
file from elsewhere that no local place holds and that could not be fetched raises
:class:`DataError` (status 1 when a download failed). The machine's other trouble (a full disk, a
permission) is an ``OSError``, also one line on the command line. Any other exception is a bug and
keeps its traceback.

Two more live here so that every public exception has one home: :class:`ConvergenceWarning` (a walk
stopped at ``max_iter``) and :class:`CheckFailed` (a course check, in strict mode).
"""

from __future__ import annotations

__all__ = [
    "CheckFailed",
    "ConvergenceWarning",
    "DataDownloadError",
    "DataError",
    "DataNotFoundError",
    "FileBusyError",
    "FormatError",
    "InvalidTypeError",
    "InvalidValueError",
    "LLMError",
    "LLMFatalError",
    "PathfindingError",
    "ValidationError",
]


class PathfindingError(Exception):
    """The base of every exception pathfinding raises on purpose; its message is meant for the user."""


class ValidationError(PathfindingError):
    """An argument was rejected before any work was done; the message names it and what was expected."""


class InvalidValueError(ValidationError, ValueError):
    """An argument has the right type but a value out of range, a wrong shape, or no mass."""


class InvalidTypeError(ValidationError, TypeError):
    """An argument has the wrong type (a float where an integer is needed, a boolean array, ...)."""


class FormatError(InvalidValueError):
    """A file is not in the expected format; the message names the file and the record."""


class LLMError(PathfindingError, RuntimeError):
    """A request to a chat or embeddings endpoint still failed after every allowed retry (the message
    says why)."""


class LLMFatalError(LLMError):
    """A request the server refused for a reason retrying cannot fix (bad key, model or URL)."""


class ConvergenceWarning(RuntimeWarning):
    """Personalized PageRank stopped at ``max_iter`` before reaching ``tol``."""


class CheckFailed(AssertionError):
    """A taught number or property did not hold (raised by the course's checks only in strict mode)."""


class DataError(PathfindingError):
    """A data file from elsewhere (``pathfinding.hipporag.storage.datasets``) is not available; the one-line
    message names the file, every place looked in and the command that fetches it."""


class DataNotFoundError(DataError):
    """No local place (``$PATHFINDING_DATA``, the cache, the folder given to fetch from) holds the file."""


class DataDownloadError(DataError):
    """Fetching the file failed: no network, a timeout, an HTTP error, a truncated body, or bytes whose
    size or SHA-256 differ from the registry's. Nothing is left under the file's name."""


class FileBusyError(PathfindingError, TimeoutError):
    """Another process kept a file locked for longer than the caller would wait; nothing was written.

    An ``OSError`` (``filename`` is the file, ``strerror`` says who holds it and for how long it was
    awaited), raised by :func:`pathfinding.hipporag.storage.safety.exclusive_lock`.
    """

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"
