"""What the commands share (pathfinding.cli.common): output lines, flags, paths checked before any
work, the output guard and the writer lock, each called as a command calls it."""

import argparse
import io
import os
import threading
import time

import pytest

from pathfinding.cli import common
from pathfinding.errors import FileBusyError, InvalidValueError
from pathfinding.hipporag.index.persistence import MAGIC
from pathfinding.hipporag.retrieval.querycache import LAYOUT as CACHE_LAYOUT
from pathfinding.hipporag.storage.safety import DEFAULT_WAIT
from tests.conftest import lock_is_held

# --- output ---------------------------------------------------------------------------------------


class _Stream(io.StringIO):
    flushes = 0

    def flush(self):
        self.flushes += 1
        super().flush()


def test_emit_writes_one_flushed_line_on_stdout_and_note_writes_on_stderr(monkeypatch, capsys):
    out = _Stream()
    monkeypatch.setattr("sys.stdout", out)
    common.emit("a line")
    assert out.getvalue() == "a line\n" and out.flushes == 1  # a closed pipe is found at this line
    monkeypatch.undo()
    common.note("for the person")
    assert capsys.readouterr() == ("", "for the person\n")


def test_human_size_says_kib_below_a_tenth_of_a_mib_mib_below_a_gib_and_gib_from_it():
    assert common.human_size(370_299_423) == "353.1 MiB"
    assert common.human_size(2**30 - 1) == "1,024.0 MiB"
    assert common.human_size(2**30) == "1.0 GiB"
    assert common.human_size(2_500) == "2.4 KiB" and common.human_size(0.1 * 2**20) == "0.1 MiB"
    assert common.human_size(3_608_211_007) == "3.4 GiB"


def test_the_progress_bar_stays_off_a_pipe(capsys):
    with common.progress(3, "index") as bar:
        bar.update()
        assert (bar.total, bar.disable) == (3, True)
    assert capsys.readouterr() == ("", "")  # not a terminal: no bar at all


def _parser(add, *args, **kwargs):
    p = argparse.ArgumentParser(exit_on_error=False)
    add(p, *args, **kwargs)
    return p


def test_json_and_write_flags_have_their_defaults():
    assert _parser(common.add_json_flag).parse_args([]).json is False
    assert _parser(common.add_json_flag).parse_args(["--json"]).json is True
    args = _parser(common.add_write_flags).parse_args([])
    assert (args.force, args.wait) == (False, DEFAULT_WAIT)
    args = _parser(common.add_write_flags).parse_args(["--force", "--wait", "0"])
    assert (args.force, args.wait) == (True, 0.0)
    assert not hasattr(_parser(common.add_write_flags, lock=False).parse_args([]), "wait")


@pytest.mark.parametrize("bad", ["-1", "nan", "soon"])
def test_wait_takes_seconds_only(bad):
    with pytest.raises(argparse.ArgumentError, match="expected a number of seconds"):
        _parser(common.add_write_flags).parse_args(["--wait", bad])


def test_endpoint_flags_bound_every_request():
    p = _parser(common.add_endpoint_flags, "the endpoint", timeout=7.0)
    args = p.parse_args([])
    assert (args.timeout, args.retries, args.backoff) == (7.0, 6, 1.0)
    args = p.parse_args(["--timeout", "2.5", "--max-retries", "0", "--backoff", "0"])
    assert (args.timeout, args.retries, args.backoff) == (2.5, 0, 0.0)  # --max-retries is --retries
    for bad in (["--timeout", "0"], ["--retries", "-1"], ["--backoff", "-1"]):
        with pytest.raises(argparse.ArgumentError, match=bad[0]):
            p.parse_args(bad)


def test_configure_endpoint_passes_the_flags_to_an_encoder_that_takes_them():
    class Endpoint:
        def configure(self, **kw):
            self.kw = kw

    enc = Endpoint()
    common.configure_endpoint(enc, argparse.Namespace(timeout=3.0, retries=2, backoff=0.5))
    assert enc.kw == {"timeout": 3.0, "max_retries": 2, "backoff": 0.5}
    common.configure_endpoint(object(), argparse.Namespace())  # the offline encoder: nothing to do


# --- paths, checked before any work ---------------------------------------------------------------


def test_check_input_path(tmp_path, monkeypatch):
    f = tmp_path / "f.json"
    f.write_text("[]")
    assert common.check_input_path(str(f), "a corpus") == str(f)
    assert common.check_input_path("-", "a corpus") == "-"  # stdin
    with pytest.raises(InvalidValueError, match=r"nope: no such file \(expected an index file\)$"):
        common.check_input_path(str(tmp_path / "nope"), "an index file")
    with pytest.raises(InvalidValueError, match="is a directory, expected a corpus"):
        common.check_input_path(str(tmp_path), "a corpus")
    assert common.check_input_path(str(tmp_path), "a corpus", folder_ok=True) == str(tmp_path)
    monkeypatch.setattr(os, "access", lambda path, mode: False)  # root reads everything: pretend
    with pytest.raises(InvalidValueError, match=r"f.json: cannot read a corpus \(permission denied\)"):
        common.check_input_path(str(f), "a corpus")


def test_check_output_path(tmp_path, monkeypatch):
    out = str(tmp_path / "i.hippo")
    assert common.check_output_path(out) == out  # absent, in a folder that exists
    with pytest.raises(InvalidValueError, match=r"is a directory; give the index file a file name \(e.g. "):
        common.check_output_path(str(tmp_path))
    with pytest.raises(InvalidValueError, match="is a directory; give the OpenIE file a file name"):
        common.check_output_path(str(tmp_path), "the OpenIE file")
    with pytest.raises(InvalidValueError, match=r"the folder .*nowhere does not exist \(create it first\)"):
        common.check_output_path(str(tmp_path / "nowhere" / "i.hippo"))
    writable = {str(tmp_path): True}
    monkeypatch.setattr(os, "access", lambda path, mode: writable.get(str(path), False))
    (tmp_path / "i.hippo").write_bytes(b"")
    with pytest.raises(InvalidValueError, match=r"cannot write there \(permission denied\)"):
        common.check_output_path(out)  # the folder is writable, the file is not
    writable[str(tmp_path)] = False
    (tmp_path / "i.hippo").unlink()
    with pytest.raises(InvalidValueError, match="permission denied"):
        common.check_output_path(out)  # absent, in a folder that is not writable


def test_a_file_of_ours_given_as_text_is_named_for_what_it_is(tmp_path):
    index, cache, corpus = tmp_path / "i.hippo", tmp_path / "i.hippo.query-cache", tmp_path / "c.json"
    index.write_bytes(MAGIC + b"rest")
    cache.write_bytes(CACHE_LAYOUT.magic + b"rest")
    corpus.write_text("[]")
    with pytest.raises(InvalidValueError, match=r"this is an index file, not a corpus; use `pathfinding"):
        common.check_text_input(str(index), "a corpus")
    with pytest.raises(InvalidValueError, match="this is an index's query cache, not a questions file"):
        common.check_text_input(str(cache), "a questions file")
    assert common.check_text_input(str(corpus), "a corpus") == str(corpus)
    assert common.check_text_input(str(tmp_path), "a corpus", folder_ok=True) == str(tmp_path)
    assert common.check_text_input("-", "a questions file") == "-"
    with pytest.raises(InvalidValueError, match="no such file"):  # the input checks come first
        common.check_text_input(str(tmp_path / "nope"), "a corpus")


# --- the output guard ------------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("Ed Wood directed Plan 9.")
    (tmp_path / "corpus.json").write_text('[{"title": "t", "text": "x"}]')
    (tmp_path / "old.hippo").write_bytes(MAGIC + b"an index of ours")
    (tmp_path / "openie.json").write_text('{"docs": [], "openie_run": {}}')
    return tmp_path


def test_the_guard_refuses_an_output_that_is_an_input(files):
    corpus = str(files / "corpus.json")
    inputs = [("the corpus", corpus), ("the OpenIE file", None)]
    with pytest.raises(InvalidValueError, match=r"corpus.json: is the corpus this command reads; refusing"):
        common.guard_output(corpus, kind="index", inputs=inputs)
    with pytest.raises(InvalidValueError, match="is the corpus this command reads"):
        common.guard_output(corpus, kind="index", inputs=inputs, force=True)  # not ours: never
    index = str(files / "old.hippo")
    with pytest.raises(InvalidValueError, match="old.hippo: is the corpus this command reads"):
        common.guard_output(index, kind="index", inputs=[("the corpus", index)])
    assert common.guard_output(index, kind="index", inputs=[("the corpus", index)], force=True) == index


def test_the_guard_refuses_an_output_inside_an_input_folder(files):
    docs = str(files / "docs")
    inputs = [("the corpus", docs)]
    for name in ("new.hippo", "a.txt"):
        with pytest.raises(InvalidValueError, match=f"{name}: lies inside the corpus folder .*docs"):
            common.guard_output(os.path.join(docs, name), kind="index", inputs=inputs)
    new = os.path.join(docs, "new.hippo")
    assert common.guard_output(new, kind="index", inputs=inputs, force=True) == new  # absent: allowed
    with pytest.raises(InvalidValueError, match="a.txt: lies inside .* over a file of ours only"):
        common.guard_output(os.path.join(docs, "a.txt"), kind="index", inputs=inputs, force=True)


def test_the_guard_never_replaces_a_file_it_did_not_write(files):
    corpus = str(files / "corpus.json")
    with pytest.raises(InvalidValueError, match=r"exists and is not a pathfinding index \(it starts with"):
        common.guard_output(corpus, kind="index", force=True)
    with pytest.raises(InvalidValueError, match="is not an OpenIE file written by this package"):
        common.guard_output(corpus, kind="openie")
    with pytest.raises(InvalidValueError, match="is not a pathfinding index"):
        common.guard_output(str(files / "openie.json"), kind="index")  # ours, but not an index
    assert common.guard_output(str(files / "old.hippo"), kind="index") == str(files / "old.hippo")
    assert common.guard_output(str(files / "openie.json"), kind="openie") == str(files / "openie.json")
    assert common.guard_output(str(files / "new.hippo"), kind="index") == str(files / "new.hippo")


# --- the writer lock -------------------------------------------------------------------------------


def test_writer_lock_gives_up_at_once_with_wait_zero(tmp_path, hold_lock):
    path = str(tmp_path / "i.hippo")
    release = hold_lock(path)
    with pytest.raises(FileBusyError, match=r"gave up after waiting 0 s \(--wait SECONDS waits longer;"):
        with common.writer_lock(path, argparse.Namespace(wait=0.0)):
            pass
    release()
    with common.writer_lock(path, argparse.Namespace(wait=0.0)) as lock:  # free again
        assert lock == path + ".lock" and lock_is_held(path)


def test_writer_lock_waits_for_the_other_writer_and_says_so(tmp_path, capsys, hold_lock):
    path = str(tmp_path / "i.hippo")
    threading.Timer(0.3, hold_lock(path)).start()
    t0 = time.monotonic()
    with common.writer_lock(path, argparse.Namespace(wait=30.0)):
        waited = time.monotonic() - t0
    assert waited >= 0.25
    assert capsys.readouterr().err.startswith(f"waiting for {path}: ")


def _interrupted_in_compiled_code(args):
    # what CPython raises when Ctrl-C is noticed as a numba function returns its result
    raise SystemError("CPUDispatcher(<function permute_csr>) returned a result with an exception set") from (
        KeyboardInterrupt()
    )


def test_an_interrupt_noticed_in_compiled_code_is_told_as_an_interrupt(tmp_path):
    path = str(tmp_path / "i.hippo")
    run = _interrupted_in_compiled_code
    cmd = common.says_what_was_written(run, "index", lambda a: path, "the whole index")
    with pytest.raises(KeyboardInterrupt, match="i.hippo was not written; rerunning the command is safe"):
        cmd(argparse.Namespace())

    def bug(args):
        raise SystemError("a bug")

    with pytest.raises(SystemError, match="a bug"):  # not an interrupt: its traceback stays
        common.says_what_was_written(bug, "index", lambda a: path, "the whole index")(argparse.Namespace())
