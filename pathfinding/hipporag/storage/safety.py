"""Writing files without losing any: the output guard, one writer at a time, atomic writes.

Every file the engine writes (the index, its query cache, an OpenIE run) goes through here:

* :func:`refuse_foreign` and :func:`refuse_inputs` -- an output path that holds a file this package
  did not write, that is an input of the same command, or that lies inside an input folder, is
  refused with one message naming it;
* :func:`exclusive_lock` -- an OS lock (``flock``) on ``TARGET.lock`` beside the target, held for a
  whole read-modify-write, so that two processes updating one index take turns instead of one
  silently dropping the other's work;
* :func:`atomic_write` -- the bytes go to ``TARGET.tmp-PID`` and are renamed over the target, so an
  interrupted write never leaves a half-written file under the final name; an ``OSError`` (a full
  disk, a permission) names the target;
* :func:`remove_stale_temps` -- a temporary file left by a process that was killed mid-write is
  removed by the next save or load of that target, and reported on the ``pathfinding.hipporag.storage.safety``
  logger (one line on stderr when logging is not configured).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator

from pathfinding.errors import FileBusyError, InvalidValueError

__all__ = [
    "DEFAULT_WAIT",
    "LOCK_SUFFIX",
    "atomic_write",
    "exclusive_lock",
    "has_magic",
    "is_openie_output",
    "refuse_foreign",
    "refuse_inputs",
    "remove_stale_temps",
    "temp_path",
]

LOCK_SUFFIX = ".lock"
DEFAULT_WAIT = 60.0
"""Seconds a writer waits for another one to finish before it gives up (one line, no work lost)."""

_TEMP = ".tmp-"
_POLL = 0.05
_log = logging.getLogger(__name__)


def temp_path(path) -> str:
    """Where this process writes ``path`` before renaming it: ``PATH.tmp-PID``."""
    return f"{os.fspath(path)}{_TEMP}{os.getpid()}"


# --- what is ours -----------------------------------------------------------------------------------


def has_magic(path, magic: bytes) -> bool:
    """True when ``path`` is a file that starts with ``magic`` (a file this package wrote).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "f")
    >>> with open(path, "wb") as fh:
    ...     _ = fh.write(b"PFHIPIDX...")
    >>> has_magic(path, b"PFHIPIDX"), has_magic(path, b"PFHIPQRY")
    (True, False)
    """
    try:
        with open(path, "rb") as fh:
            return fh.read(len(magic)) == magic
    except OSError:
        return False


def is_openie_output(path) -> bool:
    """True when ``path`` holds an OpenIE run this package wrote: a JSON object (``.gz`` or plain)
    with a ``docs`` list and the ``openie_run`` record. A HippoRAG release's OpenIE file has no
    ``openie_run``, so it is the user's, and never replaced."""
    import gzip
    import json
    import zlib

    try:
        with open(path, "rb") as fh:
            raw = fh.read()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        if not raw.lstrip().startswith(b"{") or b'"openie_run"' not in raw:
            return False
        data = json.loads(raw)
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile, ValueError):
        return False
    return isinstance(data, dict) and isinstance(data.get("docs"), list) and "openie_run" in data


def _head(path) -> str:
    try:
        with open(path, "rb") as fh:
            return repr(fh.read(12))
    except OSError as exc:
        return exc.strerror or type(exc).__name__


def refuse_foreign(path, *, is_ours: Callable[[str], bool], what: str, hint: str) -> None:
    """Raise unless ``path`` is free to write: absent, empty, or a file for which ``is_ours`` holds.

    Parameters
    ----------
    path : str or path-like
    is_ours : callable
        ``path -> bool``: the file was written by this package, as the kind about to be written.
    what : str
        The kind with its article, for the message ("a pathfinding index").
    hint : str
        What the caller can do instead, appended to the message.

    Raises
    ------
    InvalidValueError
        If ``path`` holds something else: the message names it and how it starts.
    """
    path = os.fspath(path)
    if os.path.exists(path) and not (os.path.isfile(path) or os.path.isdir(path)):
        raise InvalidValueError(f"{path}: is not a regular file (a device or a pipe); refusing to replace it")
    # a folder is left to the write itself, whose error names it
    if not os.path.isfile(path) or os.path.getsize(path) == 0 or is_ours(path):
        return
    raise InvalidValueError(
        f"{path}: exists and is not {what} (it starts with {_head(path)}); refusing to overwrite it: {hint}"
    )


def _inside(path: str, folder: str) -> bool:
    return os.path.commonpath([path, folder]) == folder


def refuse_inputs(path, inputs: Iterable[tuple[str, object]], *, is_ours, force: bool = False) -> None:
    """Raise when ``path`` is one of the command's inputs, or lies inside an input folder.

    Parameters
    ----------
    path : str or path-like
        The output.
    inputs : iterable of (str, path or None)
        What each input is ("the corpus") and its path; None (an option not given) is skipped.
    is_ours : callable
        ``path -> bool``, as for :func:`refuse_foreign`.
    force : bool, default False
        Overwrite anyway when the output is a file of ours (or absent, inside a folder).

    Raises
    ------
    InvalidValueError
        Naming the output and the input it would overwrite.

    Examples
    --------
    >>> import os, tempfile
    >>> corpus = os.path.join(tempfile.mkdtemp(), "c.json")
    >>> open(corpus, "w").close()
    >>> try:
    ...     refuse_inputs(corpus, [("the corpus", corpus)], is_ours=lambda p: False)
    ... except ValueError as exc:
    ...     print(str(exc).split(": ", 1)[1])
    is the corpus this command reads; refusing to overwrite it
    """
    out = os.path.realpath(path)
    exists = os.path.exists(out)
    for label, given in inputs:
        if given is None or os.fspath(given) == "-":
            continue
        src = os.path.realpath(given)
        if os.path.isdir(src):
            if _inside(out, src) and not (force and (not exists or is_ours(out))):
                raise InvalidValueError(
                    f"{path}: lies inside {label} folder {given}, which this command reads; write it "
                    f"elsewhere (--force writes there anyway, over a file of ours only)"
                )
        elif out == src or (exists and os.path.exists(src) and os.path.samefile(out, src)):
            if not (force and is_ours(out)):
                raise InvalidValueError(f"{path}: is {label} this command reads; refusing to overwrite it")


# --- one writer at a time ---------------------------------------------------------------------------

_held: dict[tuple[str, int], int] = {}
_held_guard = threading.Lock()


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        text = ""
    return f"pid {text}" if text.isdigit() else "another process"


def _try_lock(lock: str) -> tuple[int | None, str]:
    """Open and lock ``lock`` without blocking: (fd, "") or (None, who holds it)."""
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        who = _holder(fd)
        os.close(fd)
        return None, who
    except BaseException:
        os.close(fd)
        raise
    # The previous holder unlinks the lock file on release: if it did between our open and our
    # flock, we hold a lock on a file nobody else will open; try again on the new one.
    try:
        same = os.path.samestat(os.fstat(fd), os.stat(lock))
    except FileNotFoundError:
        same = False
    if not same:
        os.close(fd)
        return None, ""
    with contextlib.suppress(OSError):  # the pid only names the holder to a waiter; a full disk may refuse it
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
    return fd, ""


@contextlib.contextmanager
def exclusive_lock(
    path, *, wait: float = DEFAULT_WAIT, on_wait: Callable[[str], None] | None = None, hint: str = ""
) -> Iterator[str]:
    """Hold an exclusive OS lock on ``path`` (on the file ``PATH.lock`` beside it) for a ``with`` block.

    A writer that finds the lock taken waits for it, up to ``wait`` seconds (saying so once through
    ``on_wait``), then gives up. The lock is the kernel's (``flock``), so a process that dies
    releases it; the lock file is removed when released. The same thread may take the same lock
    again inside the block (a command holding it can call :func:`save_index`, which takes it too).

    Parameters
    ----------
    path : str or path-like
        The file about to be read, changed and written.
    wait : float, default DEFAULT_WAIT
        Seconds to wait for another writer; 0 gives up at once.
    on_wait : callable, optional
        Called once with a message when this writer has to wait.
    hint : str, optional
        Appended to the message of the error raised on giving up.

    Yields
    ------
    str
        The lock file's path.

    Raises
    ------
    FileBusyError
        If another process still holds the lock after ``wait`` seconds; nothing was written.
    OSError
        If the lock file cannot be created (a read-only folder), naming it.
    """
    if not (isinstance(wait, int | float) and wait >= 0):
        raise InvalidValueError(f"wait must be a number of seconds >= 0, got {wait!r}")
    lock = os.fspath(path) + LOCK_SUFFIX
    key = (os.path.realpath(lock), threading.get_ident())
    with _held_guard:
        if key in _held:
            _held[key] += 1
            reentered = True
        else:
            reentered = False
    if reentered:
        try:
            yield lock
        finally:
            with _held_guard:
                _held[key] -= 1
        return
    deadline = time.monotonic() + wait
    told = False
    while True:
        fd, who = _try_lock(lock)
        if fd is not None:
            break
        if not who:
            continue
        if time.monotonic() >= deadline:
            raise FileBusyError(
                errno.EAGAIN,
                f"{who} is writing it (lock {lock}); gave up after waiting {wait:g} s{hint}",
                os.fspath(path),
            )
        if on_wait is not None and not told:
            on_wait(f"waiting for {os.fspath(path)}: {who} is writing it (up to {wait:g} s)")
            told = True
        time.sleep(_POLL)
    with _held_guard:
        _held[key] = 1
    try:
        yield lock
    finally:
        with _held_guard:
            del _held[key]
        # Unlink while still holding the lock: a waiter that opened the old file sees it is gone.
        with contextlib.suppress(OSError):
            os.unlink(lock)
        os.close(fd)


# --- atomic writes and their leftovers --------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # no such process (or no such pid at all)
        return False
    except PermissionError:  # another user's process
        return True
    return True


def remove_stale_temps(path) -> list[str]:
    """Remove ``PATH.tmp-PID`` files whose process is gone; report each; return their paths.

    Called before every save and load of ``path``: a write killed mid-way (SIGKILL, a power cut)
    leaves its temporary file, which nothing else would ever clean. A file whose process is still
    running is another writer's, and is left alone. A folder that cannot be listed or changed is
    left as it is. Each removal is a warning on this module's logger, which Python prints on
    stderr when logging is not configured.

    Examples
    --------
    >>> import os, tempfile
    >>> target = os.path.join(tempfile.mkdtemp(), "x.hippo")
    >>> open(target + ".tmp-999999999", "wb").close()  # no such process
    >>> [os.path.basename(p) for p in remove_stale_temps(target)]
    ['x.hippo.tmp-999999999']
    """
    path = os.fspath(path)
    folder, base = os.path.split(path)
    pattern = re.compile(re.escape(base + _TEMP) + r"(\d+)")
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return []
    removed = []
    for name in sorted(names):
        m = pattern.fullmatch(name)
        if m is None or int(m.group(1)) == os.getpid() or _alive(int(m.group(1))):
            continue
        stale = os.path.join(folder, name)
        try:
            size = os.path.getsize(stale)
            os.remove(stale)
        except OSError:
            continue
        removed.append(stale)
        _log.warning(
            "removed %s (%s bytes), left by a write of %s that did not finish (process %s is gone)",
            stale, f"{size:,}", base, m.group(1),
        )  # fmt: skip
    return removed


def atomic_write(path, chunks: Iterable[bytes]) -> None:
    """Write ``chunks`` to ``path`` all or nothing: into ``PATH.tmp-PID``, synced, then renamed.

    Temporary files that a killed earlier write of ``path`` left are removed first, and reported
    (:func:`remove_stale_temps`). An error or an interrupt (Ctrl-C) removes this write's temporary
    file and leaves ``path`` as it was. An ``OSError`` (no space left, permission denied) is raised
    again naming ``path``, since the operating system's own error names no file when a write fails.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "f.bin")
    >>> atomic_write(path, [b"ab", b"c"])
    >>> open(path, "rb").read(), os.listdir(os.path.dirname(path))
    (b'abc', ['f.bin'])
    """
    path = os.fspath(path)
    remove_stale_temps(path)
    tmp = temp_path(path)
    try:
        with open(tmp, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        if exc.filename in (None, tmp):
            raise type(exc)(exc.errno, exc.strerror or str(exc), path) from None
        raise
    finally:
        with contextlib.suppress(OSError):
            os.remove(tmp)
