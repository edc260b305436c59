"""What the commands share: output lines, ``--json``, progress bars, and paths checked first.

Paths are checked before any work, so that a typo does not cost a whole build first: each
problem is an :class:`~pathfinding.errors.InvalidValueError` naming the path and what was expected,
which the command line prints as one line (status 2). An output never replaces what the user gave
(:func:`guard_output`), and a command that rewrites a file holds its lock throughout
(:func:`writer_lock`); both come from :mod:`~pathfinding.hipporag.storage.safety`.
"""

from __future__ import annotations

import os
import sys

from pathfinding._argtypes import seconds
from pathfinding.cli.entry import is_interrupt
from pathfinding.errors import InvalidValueError

__all__ = [
    "add_corpus_flags",
    "add_endpoint_flags",
    "add_json_flag",
    "add_write_flags",
    "check_input_path",
    "check_output_path",
    "check_text_input",
    "configure_endpoint",
    "corpus_options",
    "emit",
    "guard_output",
    "human_size",
    "note",
    "progress",
    "says_what_was_written",
    "writer_lock",
]


def emit(text: str) -> None:
    """One line on stdout, flushed (so that a closed pipe is found at once)."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def human_size(n: float) -> str:
    """A number of bytes for a person: "2.4 KiB", "353.1 MiB", "3.4 GiB" (KiB below 0.1 MiB)."""
    if n >= 2**30:
        return f"{n / 2**30:.1f} GiB"
    return f"{n / 2**20:,.1f} MiB" if n >= 0.1 * 2**20 else f"{n / 2**10:.1f} KiB"


def note(text: str) -> None:
    """A line for the person at the terminal, on stderr."""
    print(text, file=sys.stderr)


def progress(total: int, desc: str, *, unit: str = "step"):
    """A tqdm bar on stderr, shown on a terminal only."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=None, leave=False)


def add_json_flag(p) -> None:
    """``--json``: the command's result as one JSON document on stdout, in place of its lines."""
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")


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


def add_write_flags(p, *, lock: bool = True) -> None:
    """``--force`` (and ``--wait SECONDS`` for a command that rewrites a file under its lock)."""
    from pathfinding.hipporag.storage.safety import DEFAULT_WAIT

    p.add_argument(
        "--force",
        action="store_true",
        help="write the output even inside an input folder, or over an input that is a file of ours "
        "(a file this package did not write is never replaced)",
    )
    if lock:
        p.add_argument(
            "--wait",
            type=seconds(),
            default=DEFAULT_WAIT,
            metavar="SECONDS",
            help=f"how long to wait while another process writes the same file (default {DEFAULT_WAIT:g})",
        )


_KINDS = {
    "index": ("a pathfinding index", "an index file"),
    "openie": ("an OpenIE file written by this package", "an OpenIE file"),
}


def _is_ours(kind: str):
    from pathfinding.hipporag.storage.safety import is_openie_output

    if kind == "index":
        from pathfinding.hipporag.index.persistence import is_index_file

        return is_index_file
    return is_openie_output


def guard_output(path: str, *, kind: str, inputs=(), force: bool = False) -> str:
    """``path`` if the command may write its ``kind`` of file there ("index" or "openie").

    Refused, with one line naming it: a file this package did not write (``--force`` or not), an
    input of the same command (``inputs``: pairs of what it is and its path), a path inside an
    input folder (both allowed with ``--force`` when the file is absent or ours).
    """
    from pathfinding.hipporag.storage.safety import refuse_foreign, refuse_inputs

    is_ours = _is_ours(kind)
    refuse_inputs(path, inputs, is_ours=is_ours, force=force)
    what, short = _KINDS[kind]
    refuse_foreign(
        path, is_ours=is_ours, what=what,
        hint=f"choose another output path (--force replaces only {short} of ours)",
    )  # fmt: skip
    return path


def writer_lock(path: str, args):
    """The exclusive lock on ``path`` for a whole read-modify-write, waiting up to ``--wait``
    seconds (and saying so on stderr) while another process holds it."""
    from pathfinding.hipporag.storage.safety import exclusive_lock

    return exclusive_lock(
        path, wait=args.wait, on_wait=note, hint=" (--wait SECONDS waits longer; nothing was written)"
    )


def check_text_input(path: str, what: str, *, folder_ok: bool = False) -> str:
    """:func:`check_input_path` for a text input (a corpus, questions, an OpenIE file): a file this
    package wrote (an index, its query cache) given in its place is named for what it is."""
    from pathfinding.hipporag.index.persistence import is_index_file
    from pathfinding.hipporag.retrieval.querycache import is_cache_file

    check_input_path(path, what, folder_ok=folder_ok)
    if path == "-" or os.path.isdir(path):
        return path
    if is_index_file(path):
        raise InvalidValueError(
            f"{path}: this is an index file, not {what}; use `pathfinding hipporag query {path} "
            f"QUESTION` to ask it, `info {path}` to see it, or `add {path} --corpus NEW` to grow it"
        )
    if is_cache_file(path):
        raise InvalidValueError(
            f"{path}: this is an index's query cache, not {what} (the index is the file without "
            f"the .query-cache suffix)"
        )
    return path


def add_endpoint_flags(p, what: str, *, timeout: float) -> None:
    """``--timeout``, ``--retries`` and ``--backoff`` for a command that talks to ``what``.

    An endpoint that never answers costs at most ``(RETRIES + 1) x TIMEOUT`` plus the waits between
    tries (:meth:`~pathfinding.hipporag.transport.http.Transport.max_wait`); every retry is reported on
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


def add_corpus_flags(p) -> None:
    """``--max-chars N`` and ``--split``: how a corpus is cut into passages
    (:mod:`~pathfinding.hipporag.io.splitting`); every command that reads a corpus takes them, so
    ``openie``, ``index``, ``add`` and ``sync`` see the same passages."""
    from pathfinding._argtypes import whole_number
    from pathfinding.hipporag.io.splitting import DEFAULT_MAX_CHARS

    p.add_argument(
        "--max-chars", type=whole_number(0), default=DEFAULT_MAX_CHARS, metavar="N",
        help=f"split a folder's files into passages of at most N characters, along their Markdown "
        f"headings, blank-line paragraphs, then sentences, never inside a word (default "
        f"{DEFAULT_MAX_CHARS}: the longest passage of the released corpora fits; 0 keeps each file whole)",
    )  # fmt: skip
    p.add_argument(
        "--split", action="store_true",
        help="split a corpus file's records too (by default each JSON record is one passage, as given)",
    )  # fmt: skip


def corpus_options(args) -> dict:
    """The keyword arguments of :func:`~pathfinding.hipporag.io.loaders.load_corpus` that
    :func:`add_corpus_flags` chose (its defaults for a command without them)."""
    from pathfinding.hipporag.io.splitting import DEFAULT_MAX_CHARS

    max_chars = getattr(args, "max_chars", DEFAULT_MAX_CHARS)
    return {"max_chars": max_chars, "split": getattr(args, "split", False)}


def _file_state(path: str):
    """What identifies the file at ``path`` now (a save replaces it by a new file), or None."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def says_what_was_written(run, command: str, target, done: str):
    """The command ``run`` with a Ctrl-C turned into a report of the state of the file it writes
    (``target(args)``), told from the file itself, so that an interrupt landing between the rename
    and the next line is told right: not replaced, the interrupt goes on with that said (status 130);
    replaced, the work is done (``done``), which one line says, and the status is 0."""

    def cmd(args) -> int:
        path = target(args)
        before = _file_state(path)
        try:
            return run(args)
        except (KeyboardInterrupt, SystemError) as exc:
            if not is_interrupt(exc):
                raise
            if _file_state(path) == before:
                what = "was not written" if before is None else "is as it was (nothing written)"
                raise KeyboardInterrupt(f"{path} {what}; rerunning the command is safe") from None
            note(
                f"pathfinding hipporag {command}: interrupted after {path} was saved ({done}); its "
                f"query cache may be missing, and the next query writes it"
            )
            return 0

    return cmd
