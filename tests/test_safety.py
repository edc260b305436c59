"""The file-safety module: what counts as ours, the output guard, the writer lock, atomic writes and
the temporary files a killed write leaves."""

import errno
import gzip
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from pathfinding.errors import FileBusyError, InvalidValueError
from pathfinding.hipporag.storage.safety import (
    atomic_write,
    exclusive_lock,
    has_magic,
    is_openie_output,
    refuse_foreign,
    refuse_inputs,
    remove_stale_temps,
    temp_path,
)


def _never(path):
    return False


# --- what is ours -----------------------------------------------------------------------------------


def test_has_magic(tmp_path):
    f = tmp_path / "f"
    f.write_bytes(b"PFHIPIDX\x01rest")
    assert has_magic(f, b"PFHIPIDX") and not has_magic(f, b"PFHIPQRY")
    assert not has_magic(tmp_path / "missing", b"PFHIPIDX")
    assert not has_magic(tmp_path, b"PFHIPIDX")  # a folder
    (tmp_path / "short").write_bytes(b"PFH")
    assert not has_magic(tmp_path / "short", b"PFHIPIDX")


def test_an_openie_run_is_ours_a_release_file_is_not(tmp_path):
    run = {"docs": [], "avg_ent_chars": 0, "avg_ent_words": 0, "openie_run": {"issues": {}}}
    (tmp_path / "run.json").write_text(json.dumps(run))
    (tmp_path / "run.json.gz").write_bytes(gzip.compress(json.dumps(run).encode()))
    release = {"docs": [], "avg_ent_chars": 0, "avg_ent_words": 0}  # HippoRAG's own file
    (tmp_path / "release.json").write_text(json.dumps(release))
    (tmp_path / "corpus.json").write_text('[{"title": "openie_run", "text": "docs"}]')
    (tmp_path / "broken.json").write_text('{"docs": [], "openie_run": ')
    assert is_openie_output(tmp_path / "run.json") and is_openie_output(tmp_path / "run.json.gz")
    for name in ("release.json", "corpus.json", "broken.json", "missing.json"):
        assert not is_openie_output(tmp_path / name), name


# --- the output guard ---------------------------------------------------------------------------------


def test_refuse_foreign(tmp_path):
    ours, theirs, empty = tmp_path / "ours", tmp_path / "theirs.txt", tmp_path / "empty"
    ours.write_bytes(b"OURS")
    theirs.write_text("my thesis, chapter 1")
    empty.write_bytes(b"")
    is_ours = lambda p: has_magic(p, b"OURS")  # noqa: E731
    for free in (ours, empty, tmp_path / "absent", tmp_path):  # a folder is left to the write
        refuse_foreign(free, is_ours=is_ours, what="an index", hint="pick another")
    with pytest.raises(InvalidValueError) as exc:
        refuse_foreign(theirs, is_ours=is_ours, what="an index", hint="pick another")
    msg = str(exc.value)
    assert msg.startswith(f"{theirs}: exists and is not an index") and "b'my thesis, c'" in msg
    assert msg.endswith("refusing to overwrite it: pick another") and theirs.read_text().startswith("my")
    with pytest.raises(TypeError, match="positional argument"):
        refuse_foreign(theirs, is_ours, "an index", "pick another")  # only the path is positional


def test_a_device_is_never_replaced():
    with pytest.raises(InvalidValueError, match="not a regular file"):
        refuse_foreign(os.devnull, is_ours=_never, what="an index", hint="")


def test_refuse_inputs_same_file_link_and_folder(tmp_path):
    corpus = tmp_path / "c.json"
    corpus.write_text("[]")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("A met B.")
    (tmp_path / "link.json").symlink_to(corpus)
    os.link(corpus, tmp_path / "hard.json")
    inputs = [("the corpus", corpus), ("the OpenIE file", None), ("stdin", "-")]
    for out in (corpus, tmp_path / "link.json", tmp_path / "hard.json", tmp_path / "." / "c.json"):
        with pytest.raises(InvalidValueError, match="is the corpus this command reads"):
            refuse_inputs(out, inputs, is_ours=_never)
    refuse_inputs(tmp_path / "other.hippo", inputs, is_ours=_never)
    folder = [("the corpus", tmp_path / "docs")]
    for out in (tmp_path / "docs" / "a.txt", tmp_path / "docs" / "new.hippo"):
        with pytest.raises(InvalidValueError, match="lies inside the corpus folder"):
            refuse_inputs(out, folder, is_ours=_never)
    refuse_inputs(tmp_path / "docs" / "new.hippo", folder, is_ours=_never, force=True)  # absent
    with pytest.raises(InvalidValueError, match="lies inside"):  # --force never replaces theirs
        refuse_inputs(tmp_path / "docs" / "a.txt", folder, is_ours=_never, force=True)
    refuse_inputs(tmp_path / "docs" / "a.txt", folder, is_ours=lambda p: True, force=True)
    refuse_inputs(tmp_path / "docsx.hippo", folder, is_ours=_never)  # a sibling, not inside


# --- atomic writes ------------------------------------------------------------------------------------


def test_atomic_write_all_or_nothing(tmp_path):
    target = tmp_path / "f.bin"
    atomic_write(target, [b"old"])

    def failing():
        yield b"new, half"
        raise RuntimeError("the writer died")

    with pytest.raises(RuntimeError):
        atomic_write(target, failing())
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["f.bin"]

    def interrupted():
        yield b"new, half"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, interrupted())
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["f.bin"]


def test_a_full_disk_names_the_target_and_leaves_it(tmp_path, monkeypatch):
    target = tmp_path / "f.bin"
    atomic_write(target, [b"old"])

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as exc:
        atomic_write(target, [b"new"])
    assert exc.value.errno == errno.ENOSPC and exc.value.filename == str(target)
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["f.bin"]


# --- stale temporary files ----------------------------------------------------------------------------


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_stale_temps_removed_and_reported_live_ones_kept(tmp_path, caplog):
    target = tmp_path / "x.hippo"
    dead = _dead_pid()
    live = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        names = [f"x.hippo.tmp-{dead}", f"x.hippo.tmp-{live.pid}", f"x.hippo.tmp-{os.getpid()}"]
        names += [f"x.hippo.query-cache.tmp-{dead}", "x.hippo.tmp-abc", f"y.hippo.tmp-{dead}"]
        for name in names:
            (tmp_path / name).write_bytes(b"partial")
        with caplog.at_level(logging.WARNING, logger="pathfinding.hipporag.storage.safety"):
            removed = remove_stale_temps(target)
        assert removed == [str(tmp_path / f"x.hippo.tmp-{dead}")]
        assert sorted(os.listdir(tmp_path)) == sorted(names[1:])
        (record,) = caplog.records
        assert f"x.hippo.tmp-{dead}" in record.getMessage() and "did not finish" in record.getMessage()
    finally:
        live.stdin.close()
        live.wait()
    assert remove_stale_temps(tmp_path / "nowhere" / "x.hippo") == []  # a missing folder


def test_temp_path_is_the_pattern_cleaned():
    assert temp_path("a/x.hippo") == f"a/x.hippo.tmp-{os.getpid()}"


# --- one writer at a time -----------------------------------------------------------------------------

def test_lock_is_reentrant_in_one_thread_and_leaves_no_file(tmp_path):
    target = tmp_path / "x.hippo"
    with exclusive_lock(target) as lock:
        assert lock == f"{target}.lock" and open(lock).read() == f"{os.getpid()}\n"
        with exclusive_lock(target, wait=0):
            pass
        assert os.path.exists(lock)
    assert os.listdir(tmp_path) == []


def test_another_thread_waits_for_the_lock(tmp_path):
    target = tmp_path / "x.hippo"
    got = []
    with exclusive_lock(target):
        t = threading.Thread(target=lambda: got.append(_try(target)))
        t.start()
        t.join()
    assert isinstance(got[0], FileBusyError)


def _try(target, **kw):
    try:
        with exclusive_lock(target, wait=0, **kw):
            return "got it"
    except FileBusyError as exc:
        return exc


def test_a_second_process_is_refused_then_admitted(tmp_path, lock_holder):
    target = tmp_path / "x.hippo"
    proc = lock_holder(target)
    exc = _try(target, hint=" (try later)")
    assert isinstance(exc, FileBusyError) and isinstance(exc, OSError) and exc.filename == str(target)
    want = f"{target}: pid {proc.pid} is writing it (lock {target}.lock); gave up after waiting 0 s"
    assert str(exc) == want + " (try later)"
    proc.stdin.close()
    proc.wait()
    assert _try(target) == "got it" and os.listdir(tmp_path) == []


def test_a_waiting_writer_says_so_once_and_gets_the_lock(tmp_path, lock_holder):
    target = tmp_path / "x.hippo"
    proc = lock_holder(target)
    said = []
    threading.Timer(0.5, proc.stdin.close).start()
    t0 = time.monotonic()
    with exclusive_lock(target, wait=30, on_wait=said.append):
        waited = time.monotonic() - t0
    assert said == [f"waiting for {target}: pid {proc.pid} is writing it (up to 30 s)"] and waited >= 0.4


def test_a_killed_holder_releases_the_lock(tmp_path, lock_holder):
    target = tmp_path / "x.hippo"
    proc = lock_holder(target)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert os.path.exists(f"{target}.lock")  # left behind, but no longer locked
    assert _try(target) == "got it" and os.listdir(tmp_path) == []


def test_wait_is_checked():
    with pytest.raises(InvalidValueError, match="wait must be a number of seconds >= 0"):
        with exclusive_lock("x", wait=-1):
            pass
