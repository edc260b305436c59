"""The ``pathfinding`` command line (also ``python -m pathfinding``): the parser, and how a command ends.

Each command group registers its own parsers from its module of :mod:`pathfinding.cli` and imports
its work only when it runs. :func:`main` turns every way a command can end into one line and a
status: a rejected argument or a refused value (2), a data file that is not there (1 or 2), a file
the machine cannot read or write (2), Ctrl-C (130), a reader that closed the pipe (141, quietly).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import signal
import sys

__all__ = [
    "BROKEN_PIPE_STATUS",
    "INTERRUPTED_STATUS",
    "OneLineParser",
    "build_parser",
    "console",
    "is_interrupt",
    "main",
]

# The command groups, in the order --help lists them: each module's ``add_commands(subparsers)``
# registers its parsers only.
_GROUPS: tuple[str, ...] = (
    "pathfinding.cli.synthetic",
    "pathfinding.cli.data",
    "pathfinding.cli.experiments",
    "pathfinding.cli.bench",
    "pathfinding.cli.hipporag",
)

# What a shell reports for a process that SIGPIPE killed (128 + signal 13), as for `yes | head -1`.
BROKEN_PIPE_STATUS = 141
# ... and for one that Ctrl-C stopped (128 + SIGINT).
INTERRUPTED_STATUS = 130


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose rejections are one line on stderr (and status 2), like every
    other error of the command line; ``--help`` still shows the usage."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class _StderrLines(logging.Handler):
    """Each message of the library's loggers as one plain line on stderr (looked up when written,
    so a redirected stderr is honoured)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:
            self.handleError(record)


@contextlib.contextmanager
def _library_messages():
    """Show the library's progress and retry messages (logger ``pathfinding``, INFO and up) on stderr
    while a command runs: a slow or dead endpoint is never silence."""
    logger = logging.getLogger("pathfinding")
    handler, level = _StderrLines(logging.INFO), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and documentation).

    Building it imports no numerical library: every module registers parsers only and imports its
    work when its command runs, so ``pathfinding hipporag query`` pays for nothing else.
    """
    parser = OneLineParser(
        prog="pathfinding",
        description="HippoRAG's path-finding claim, reproduced: instances, rankers, findings.",
    )
    import pathfinding

    parser.add_argument("--version", action="version", version=f"pathfinding {pathfinding.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    for module in _GROUPS:
        importlib.import_module(module).add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status.

    A rejected argument or an endpoint that refused or never answered (any
    :class:`~pathfinding.errors.PathfindingError`), or the machine's trouble (an ``OSError``: a file
    that cannot be read or written, a full disk, a file another writer keeps locked) prints one line
    and returns 2; argparse's own rejections are one line too, and exit with status 2 as argparse
    does. A data file that is not available (:class:`~pathfinding.errors.DataError`) is one line too,
    which says how to fetch it: status 1 when a download failed, 2 when it was not found. Ctrl-C
    prints "interrupted" (and, from a command that writes a file, whether it did) and returns 130.
    Any other exception is a bug and keeps its traceback. A reader that stops early (``pathfinding
    instance | head -1``) ends the command quietly with status 141, as SIGPIPE does for Unix tools.
    """
    args = None
    try:
        args = build_parser().parse_args(argv)
        return _run(args)
    except (KeyboardInterrupt, SystemError) as exc:
        if not is_interrupt(exc):
            raise
        # a command that writes raises it again with what it left: "i.hippo is as it was ..."
        detail = f": {exc}" if isinstance(exc, KeyboardInterrupt) and str(exc) else ""
        print(f"{_command_name(args)}: interrupted{detail}", file=sys.stderr)
        return INTERRUPTED_STATUS


def is_interrupt(exc: BaseException) -> bool:
    """True for Ctrl-C: a KeyboardInterrupt, or the SystemError CPython raises in its place when the
    interrupt is noticed while a compiled (numba) function hands back its result ("... returned a
    result with an exception set"), with the KeyboardInterrupt as its cause.

    Examples
    --------
    >>> try:
    ...     raise SystemError("returned a result with an exception set") from KeyboardInterrupt()
    ... except SystemError as exc:
    ...     is_interrupt(exc), is_interrupt(SystemError("a bug"))
    (True, False)
    """
    return isinstance(exc, KeyboardInterrupt) or (
        isinstance(exc, SystemError) and isinstance(exc.__cause__, KeyboardInterrupt)
    )


def _run(args) -> int:
    from pathfinding.errors import DataDownloadError, DataError, PathfindingError

    try:
        with _library_messages():
            status = args.func(args)
        sys.stdout.flush()  # a closed pipe must fail here, not in the interpreter's flush at exit
        return status
    except BrokenPipeError:
        # Python flushes stdout again at exit; send that flush to devnull so it cannot fail too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE_STATUS
    except DataError as exc:
        # The machine's trouble (network, a missing copy), told in one line that says how to fetch.
        print(f"{_command_name(args)}: error: {exc}", file=sys.stderr)
        return 1 if isinstance(exc, DataDownloadError) else 2
    except PathfindingError as exc:
        print(f"{_command_name(args)}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        # A path the user gave (missing, a directory, unreadable), or the machine: a full disk, a
        # permission, a lock another process holds.
        what = exc.strerror or str(exc) or type(exc).__name__
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"{_command_name(args)}: error: {where}{what}", file=sys.stderr)
        return 2


def _command_name(args) -> str:
    """``pathfinding COMMAND [SUBCOMMAND]``, as the error line names it."""
    if args is None:
        return "pathfinding"
    sub = getattr(args, "hipporag_command", None) or getattr(args, "data_command", None)
    return f"pathfinding {args.command}" + (f" {sub}" if sub else "")


def console() -> None:
    """The program (``pathfinding`` and ``python -m pathfinding``): :func:`main`, then exit with its
    status.

    Once ``main`` has returned, the command's work is done and told ("wrote i.hippo"). A Ctrl-C that
    lands after that, while the interpreter shuts down, is ignored: otherwise it would end the
    process with status 130 and say "interrupted" about a command that finished.
    """
    status = main()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(status)
