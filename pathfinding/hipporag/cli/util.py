"""What every ``pathfinding hipporag`` command shares: output, quiet pipes, and paths checked first.

Paths are checked before any work, so that a typo does not cost a whole build first: each
problem is an :class:`~pathfinding.errors.InvalidValueError` naming the path and what was expected,
which the command line prints as one line (status 2).
"""

from __future__ import annotations

import os
import sys

from pathfinding.errors import InvalidValueError

__all__ = [
    "PIPE_CLOSED",
    "add_endpoint_flags",
    "check_input_path",
    "check_output_path",
    "configure_endpoint",
    "emit",
    "note",
    "progress",
    "quiet_pipe",
]

PIPE_CLOSED = 141  # 128 + SIGPIPE: what `yes | head` reports for `yes`


def emit(text: str) -> None:
    """One line on stdout, flushed (so that a closed pipe is found at once)."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def note(text: str) -> None:
    """A line for the person at the terminal, on stderr."""
    print(text, file=sys.stderr)


def progress(total: int, desc: str):
    """A tqdm bar on stderr, shown on a terminal only."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="step", file=sys.stderr, disable=None, leave=False)


def quiet_pipe(func):
    """Run a command; when stdout's reader has gone (``| head``), stop without a traceback."""

    def run(args) -> int:
        try:
            return func(args)
        except BrokenPipeError:
            # Point stdout at /dev/null so the interpreter's final flush does not fail again.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return PIPE_CLOSED

    return run


def check_input_path(path: str, what: str, *, folder_ok: bool = False) -> str:
    """``path`` if it can be read (``"-"`` is stdin), else an InvalidValueError that names it and
    what was expected (``what`` with its article: "an index file")."""
    if path == "-":
        return path
    if not os.path.exists(path):
        raise InvalidValueError(f"{path}: no such file (expected {what})")
    if os.path.isdir(path) and not folder_ok:
        raise InvalidValueError(f"{path}: is a directory, expected {what}")
    if not os.access(path, os.R_OK):
        raise InvalidValueError(f"{path}: cannot read {what} (permission denied)")
    return path


def check_output_path(path: str, what: str = "the index file") -> str:
    """``path`` if a file can be written there, else an InvalidValueError naming the problem."""
    if os.path.isdir(path):
        raise InvalidValueError(
            f"{path}: is a directory; give {what} a file name (e.g. {os.path.join(path, 'out')})"
        )
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InvalidValueError(f"{path}: the folder {folder} does not exist (create it first)")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise InvalidValueError(f"{path}: cannot write there (permission denied)")
    return path


def add_endpoint_flags(p, what: str, *, timeout: float) -> None:
    """``--timeout``, ``--retries`` and ``--backoff`` for a command that talks to ``what``.

    An endpoint that never answers costs at most ``(RETRIES + 1) x TIMEOUT`` plus the waits between
    tries (:meth:`~pathfinding.hipporag.transport.Transport.max_wait`); every retry is reported on
    stderr as it happens.
    """
    from pathfinding._argtypes import seconds, whole_number

    p.add_argument(
        "--timeout", type=seconds(positive=True), default=timeout, metavar="S",
        help=f"seconds to wait for {what} to connect and for each read of its answer (default {timeout:g})",
    )  # fmt: skip
    p.add_argument(
        "--retries", "--max-retries", dest="retries", type=whole_number(0), default=6, metavar="N",
        help=f"retries of a failed request to {what} (default 6); one that never answers costs at most "
        "(N + 1) x TIMEOUT + the waits between tries",
    )  # fmt: skip
    p.add_argument(
        "--backoff", type=seconds(), default=1.0, metavar="S",
        help="first wait before a retry; it doubles with each retry, with jitter, up to 60 s (default 1)",
    )  # fmt: skip


def configure_endpoint(encoder, args) -> None:
    """Give an index's embeddings encoder the command's ``--timeout``, ``--retries`` and ``--backoff``
    (an index with the offline encoder talks to no endpoint: nothing to do)."""
    configure = getattr(encoder, "configure", None)  # only the embeddings encoder has one
    if callable(configure):
        configure(timeout=args.timeout, max_retries=args.retries, backoff=args.backoff)
