"""A stranger at the command line: nothing given is lost, two writers keep both, every failure is one line.

Each case runs ``python -m pathfinding`` in a subprocess, as a user's shell does: what is tested is
the process (its status, its stderr, the files it leaves), including a Ctrl-C, a full disk, a second
writer and a save killed half-way.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

import pathfinding

ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
COOC = ["--extractor", "cooccurrence"]
CORPUS = [
    {"title": "Ed Wood", "text": "Ed Wood directed Plan 9 from Outer Space, shot in Burbank."},
    {"title": "Bela Lugosi", "text": "Bela Lugosi starred in Plan 9 from Outer Space. He was born in Lugos."},
    {"title": "Burbank", "text": "Burbank is a city in Los Angeles County."},
]


def cli(*args, cwd, prefix=(), **kw) -> subprocess.CompletedProcess:
    """``python [prefix] -m pathfinding ARGS`` in ``cwd``; ``prefix`` runs code before the CLI."""
    cmd = [sys.executable, *prefix, *([] if prefix else ["-m", "pathfinding"]), *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, env=ENV, cwd=cwd, timeout=300, **kw)


def popen(*args, cwd) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "pathfinding", *map(str, args)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV, cwd=cwd)


def one_line(proc, command: str, status: int = 2) -> str:
    """The single error line of a failed command (status, no traceback, nothing on stdout)."""
    lines = proc.stderr.splitlines()
    assert proc.returncode == status and len(lines) == 1, (proc.returncode, proc.stderr)
    assert lines[0].startswith(f"pathfinding hipporag {command}: ") and proc.stdout == "", proc.stderr
    return lines[0]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A corpus file, a corpus folder and an index of the file, built once."""
    d = tmp_path_factory.mktemp("stranger")
    (d / "c.json").write_text(json.dumps(CORPUS))
    (d / "docs").mkdir()
    for p in CORPUS[:2]:
        (d / "docs" / f"{p['title']}.txt").write_text(p["text"])
    proc = cli("hipporag", "index", "c.json", *COOC, "-o", "i.hippo", cwd=d)
    assert proc.returncode == 0, proc.stderr
    return d


@pytest.fixture
def work(built, tmp_path):
    """A private copy of the built folder (without the query cache), for a test that writes."""
    for name in ("c.json", "i.hippo"):
        shutil.copy(built / name, tmp_path / name)
    shutil.copytree(built / "docs", tmp_path / "docs")
    return tmp_path


def _snapshot(folder) -> dict:
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in files}


def _titles(folder, index="i.hippo") -> list:
    proc = cli("hipporag", "info", index, "--passages", "--json", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    return [p["title"] for p in json.loads(proc.stdout)["passages"]]


# --- never overwrite what the user gave ---------------------------------------------------------


@pytest.mark.parametrize(
    "command, args, words",
    [
        ("index", ["c.json", *COOC, "-o", "c.json"], "c.json: is the corpus this command reads"),
        ("index", ["c.json", *COOC, "-o", "c.json", "--force"], "c.json: is the corpus"),
        ("index", ["docs", *COOC, "-o", "docs/Ed Wood.txt"], "lies inside the corpus folder docs"),
        ("index", ["docs", *COOC, "-o", "docs/Ed Wood.txt", "--force"], "lies inside the corpus folder"),
        ("index", ["docs", *COOC, "-o", "docs/new.hippo"], "docs/new.hippo: lies inside the corpus folder"),
        ("index", ["c.json", *COOC, "-o", "docs/Ed Wood.txt"], "exists and is not a pathfinding index"),
        ("index", ["c.json", *COOC, "-o", "docs/Ed Wood.txt", "--force"], "is not a pathfinding index"),
        ("add", ["i.hippo", "--corpus", "c.json", *COOC, "-o", "c.json"], "c.json: is the corpus"),
        ("add", ["i.hippo", "--corpus", "docs", *COOC, "-o", "docs/x.hippo"], "lies inside the corpus"),
        ("delete", ["i.hippo", "0", "-o", "c.json"], "c.json: exists and is not a pathfinding index"),
        (
            "openie",
            ["c.json", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "-o", "c.json"],
            "c.json: is the corpus this command reads",
        ),
        (
            "openie",
            ["c.json", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "-o", "i.hippo"],
            "i.hippo: exists and is not an OpenIE file written by this package",
        ),
    ],
)
def test_an_output_over_what_the_user_gave_is_refused(work, command, args, words):
    before = _snapshot(work)
    proc = cli("hipporag", command, *args, cwd=work)
    assert words in one_line(proc, command)
    assert _snapshot(work) == before  # nothing written, nothing removed


def test_force_writes_a_new_index_inside_the_corpus_folder_and_an_index_is_rebuilt_in_place(work):
    before = (work / "docs" / "Ed Wood.txt").read_bytes()
    proc = cli("hipporag", "index", "docs", *COOC, "-o", "docs/new.hippo", "--force", cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert (work / "docs" / "Ed Wood.txt").read_bytes() == before
    assert _titles(work, "docs/new.hippo") == ["Bela Lugosi", "Ed Wood"]
    proc = cli("hipporag", "index", "docs", *COOC, "-o", "i.hippo", cwd=work)  # an index of ours
    assert proc.returncode == 0 and _titles(work) == ["Bela Lugosi", "Ed Wood"], proc.stderr


# --- one writer at a time -------------------------------------------------------------------------


def _wait_for_line(stream, words: str, timeout: float = 120) -> str:
    """The first line of a subprocess's stream that contains ``words``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = stream.readline()
        if words in line:
            return line
        assert line, f"stream ended before {words!r}"
    raise AssertionError(f"no {words!r} within {timeout} s")


def test_two_concurrent_adds_keep_both_passages(work, lock_holder):
    (work / "a.json").write_text(json.dumps([{"title": "Paris", "text": "Paris is in France."}]))
    (work / "b.json").write_text(json.dumps([{"title": "Rome", "text": "Rome is in Italy."}]))
    # Both start while a third holds the lock, so they really race for it when it is released.
    holder = lock_holder(work / "i.hippo")
    adds = [popen("hipporag", "add", "i.hippo", "--corpus", f, *COOC, "--wait", 300, cwd=work)
            for f in ("a.json", "b.json")]  # fmt: skip
    for p in adds:
        assert "is writing it" in _wait_for_line(p.stderr, "waiting for i.hippo")
    holder.stdin.close()
    for p in adds:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0 and "added 1 passages" in out, err
    titles = _titles(work)
    assert titles[:3] == [p["title"] for p in CORPUS] and sorted(titles[3:]) == ["Paris", "Rome"]
    left = ["a.json", "b.json", "c.json", "docs", "i.hippo", "i.hippo.query-cache"]
    assert sorted(os.listdir(work)) == left  # no lock or temporary file


def test_a_writer_that_will_not_wait_fails_in_one_line(work, lock_holder):
    holder = lock_holder(work / "i.hippo")
    before = (work / "i.hippo").read_bytes()
    for argv in (["add", "i.hippo", "--corpus", "c.json", *COOC], ["delete", "i.hippo", "0"]):
        proc = cli("hipporag", *argv, "--wait", "0", cwd=work)
        line = one_line(proc, argv[0])
        assert f"i.hippo: pid {holder.pid} is writing it" in line and "--wait SECONDS" in line
    assert (work / "i.hippo").read_bytes() == before


# --- one line for every failure -------------------------------------------------------------------


def test_ctrl_c_is_one_line_and_status_130(work, lock_holder):
    """SIGINT while the command waits for the lock (a moment that does not depend on timing)."""
    lock_holder(work / "i.hippo")
    before = (work / "i.hippo").read_bytes()
    p = popen("hipporag", "add", "i.hippo", "--corpus", "c.json", *COOC, cwd=work)
    _wait_for_line(p.stderr, "waiting for i.hippo")
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130 and out == "" and err == (
        "pathfinding hipporag add: interrupted: i.hippo is as it was (nothing written); rerunning the "
        "command is safe\n"
    )
    assert (work / "i.hippo").read_bytes() == before
    assert not [n for n in os.listdir(work) if ".tmp-" in n]


# A real SIGINT, sent by the process to itself just before or just after one call: a stage of the
# command, reached without depending on timing.
_SIGNAL_AT = """
import importlib, os, signal, sys
module = importlib.import_module("{module}")
real = getattr(module, "{name}")
def at_stage(*args, **kwargs):
    if "{when}" == "before":
        os.kill(os.getpid(), signal.SIGINT)
    out = real(*args, **kwargs)
    if "{when}" == "after":
        os.kill(os.getpid(), signal.SIGINT)
    return out
setattr(module, "{name}", at_stage)
from pathfinding.cli import main
sys.exit(main(sys.argv[1:]))
"""

# (module, function, before or after it): every stage of `add` and `index`, in order, and whether the
# index is saved when the interrupt comes.
_SAVING = [
    ("os", "fsync", "after", False),  # the new file written in full, not yet renamed over the old
    ("os", "replace", "after", True),  # renamed: saved, the next line not yet run
    ("pathfinding.hipporag.retrieval.querycache", "write_cache", "before", True),
    ("pathfinding.hipporag.retrieval.querycache", "write_cache", "after", True),
    ("pathfinding.cli.index", "emit", "before", True),  # printing the summary
]
_READ = ("pathfinding.hipporag.io.loaders", "load_corpus", "after", False)  # the corpus read
_ADD_STAGES = [
    _READ,
    ("pathfinding.hipporag.index.persistence", "load_index", "after", False),  # the index read
    ("pathfinding.hipporag.index.maintenance", "add_passages", "after", False),  # the new index made
    *_SAVING,
]
_INDEX_STAGES = [_READ, ("pathfinding.hipporag.index.build", "build_index", "after", False), *_SAVING]


def _ids(stages) -> list[str]:
    return [f"{name}-{when}" for _, name, when, _ in stages]


@pytest.mark.parametrize("module, name, when, saved", _ADD_STAGES, ids=_ids(_ADD_STAGES))
def test_an_interrupt_at_each_stage_of_add_says_whether_the_index_was_saved(work, module, name, when, saved):
    (work / "new.json").write_text(json.dumps([{"title": "Paris", "text": "Paris is in France."}]))
    before = (work / "i.hippo").read_bytes()
    prefix = ["-c", _SIGNAL_AT.format(module=module, name=name, when=when)]
    proc = cli("hipporag", "add", "i.hippo", "--corpus", "new.json", *COOC, cwd=work, prefix=prefix)
    assert not [n for n in os.listdir(work) if ".tmp-" in n]
    if not saved:
        assert proc.returncode == 130 and proc.stdout == "" and proc.stderr == (
            "pathfinding hipporag add: interrupted: i.hippo is as it was (nothing written); rerunning "
            "the command is safe\n"
        )
        assert (work / "i.hippo").read_bytes() == before
        proc = cli("hipporag", "add", "i.hippo", "--corpus", "new.json", *COOC, cwd=work)  # as it says
        assert proc.returncode == 0 and "added 1 passages" in proc.stdout, proc.stderr
    else:
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.splitlines()[-1] == (
            "pathfinding hipporag add: interrupted after i.hippo was saved (the new passages added); its "
            "query cache may be missing, and the next query writes it"
        )
        proc = cli("hipporag", "add", "i.hippo", "--corpus", "new.json", *COOC, cwd=work)  # run again
        assert proc.returncode == 0 and proc.stdout == "added 0 passages: i.hippo is unchanged\n"
        assert "1 of 1 passages are already in i.hippo (same title and text) and were skipped" in proc.stderr
    assert _titles(work) == [p["title"] for p in CORPUS] + ["Paris"]  # one copy, however it went


@pytest.mark.parametrize("module, name, when, saved", _INDEX_STAGES, ids=_ids(_INDEX_STAGES))
def test_an_interrupt_at_each_stage_of_index_says_whether_it_was_written(work, module, name, when, saved):
    prefix = ["-c", _SIGNAL_AT.format(module=module, name=name, when=when)]
    for target in ("new.hippo", "i.hippo"):  # a new file, and a rebuild over an index of ours
        before = _snapshot(work)
        proc = cli("hipporag", "index", "c.json", *COOC, "-o", target, cwd=work, prefix=prefix)
        assert not [n for n in os.listdir(work) if ".tmp-" in n]
        if not saved:
            what = "was not written" if target == "new.hippo" else "is as it was (nothing written)"
            assert proc.returncode == 130 and proc.stderr == (
                f"pathfinding hipporag index: interrupted: {target} {what}; rerunning the command is safe\n"
            )
            assert _snapshot(work) == before
        else:
            assert proc.returncode == 0 and proc.stderr.splitlines()[-1].startswith(
                f"pathfinding hipporag index: interrupted after {target} was saved (the whole index)"
            )
            assert _titles(work, target) == [p["title"] for p in CORPUS]


_FAIL = """
import errno, os, sys
def fail(*args):
    raise OSError(errno.{code}, os.strerror(errno.{code}))
os.{call} = fail
from pathfinding.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize(
    "code, call, words",
    [("ENOSPC", "fsync", "No space left on device"), ("EACCES", "replace", "Permission denied")],
)
def test_a_full_disk_or_a_permission_is_one_line(work, code, call, words):
    (work / "new.json").write_text(json.dumps([{"title": "Paris", "text": "Paris is in France."}]))
    before = _snapshot(work)
    prefix = ["-c", _FAIL.format(code=code, call=call)]
    proc = cli("hipporag", "index", "c.json", *COOC, "-o", "new.hippo", cwd=work, prefix=prefix)
    assert one_line(proc, "index") == f"pathfinding hipporag index: error: new.hippo: {words}"
    proc = cli("hipporag", "add", "i.hippo", "--corpus", "new.json", *COOC, cwd=work, prefix=prefix)
    assert one_line(proc, "add") == f"pathfinding hipporag add: error: i.hippo: {words}"
    assert _snapshot(work) == before  # no new file, no temporary file, the index as it was


def test_deleting_the_last_passages_is_refused_with_the_reason(work):
    before = _snapshot(work)
    line = one_line(cli("hipporag", "delete", "i.hippo", "0", "1", "2", cwd=work), "delete")
    assert "deleting all 3 passages would leave an empty index" in line and "build a new index" in line
    assert _snapshot(work) == before


def test_a_full_disk_under_a_query_is_called_a_full_disk_not_a_read_only_folder(work):
    """The query cache cannot be written: the question is answered, and the note says why."""
    prefix = ["-c", _FAIL.format(code="ENOSPC", call="fsync")]
    proc = cli("hipporag", "query", "i.hippo", "Who directed Plan 9?", cwd=work, prefix=prefix)
    assert proc.returncode == 0 and "Ed Wood" in proc.stdout, proc.stderr
    assert proc.stderr.startswith("note: could not write i.hippo.query-cache (No space left on device)")
    assert "read-only" not in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert sorted(os.listdir(work)) == ["c.json", "docs", "i.hippo"]  # no cache, no temporary file


_KILLED_SAVE = """
import sys
from pathfinding.hipporag.storage.safety import atomic_write
def chunks():
    yield b"PFHIPIDX half of an index"
    print("writing", flush=True)
    sys.stdin.read()  # killed here, half-way
atomic_write(sys.argv[1], chunks())
"""


def _killed_save(folder, target: str) -> str:
    """Kill a process half-way through writing ``target``; return the temporary file it leaves."""
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_SAVE, target], cwd=folder, env=ENV,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert proc.stdout.readline() == "writing\n"
    proc.kill()
    proc.wait()
    stale = f"{target}.tmp-{proc.pid}"
    assert os.path.exists(folder / stale)
    return stale


def test_a_killed_save_leaves_a_temporary_file_that_the_next_load_or_save_removes(work):
    stale = _killed_save(work, "i.hippo")
    proc = cli("hipporag", "query", "i.hippo", "Who directed Plan 9?", cwd=work)
    assert proc.returncode == 0 and "Ed Wood" in proc.stdout, proc.stderr
    assert f"removed {stale}" in proc.stderr and "did not finish" in proc.stderr
    assert not (work / stale).exists()
    stale = _killed_save(work, "i.hippo")
    proc = cli("hipporag", "delete", "i.hippo", "2", cwd=work)
    assert proc.returncode == 0 and f"removed {stale}" in proc.stderr, proc.stderr
    assert sorted(os.listdir(work)) == ["c.json", "docs", "i.hippo", "i.hippo.query-cache"]


# --- small things -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question, words",
    [("", "the question is empty"), ("  ?! ", "the question is empty"),
     ("What is the?", "the question has only stop words"), ("who were they", "only stop words")],
)  # fmt: skip
def test_an_empty_or_stop_word_question_is_one_line(built, question, words):
    assert words in one_line(cli("hipporag", "query", "i.hippo", question, cwd=built), "query")


def test_a_stop_word_line_in_a_questions_file_is_answered_by_why_not(built, tmp_path):
    """The other questions are answered; the line of the one with nothing to search for says so,
    and the run ends with one line on stderr and status 1."""
    (tmp_path / "q.txt").write_text("Who directed Plan 9?\n\nwhat is it\n")
    proc = cli("hipporag", "query", built / "i.hippo", "--questions", "q.txt", cwd=tmp_path)
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert proc.returncode == 1 and [r["question"] for r in rows] == ["Who directed Plan 9?", "what is it"]
    assert rows[0]["passages"][0]["text"].startswith("Ed Wood") and rows[1]["passages"] == []
    assert rows[1]["message"].startswith("question 2 has only stop words ('what is it')")
    assert proc.stderr == (
        "pathfinding hipporag query: error: 1 of 2 questions have no word to search for (question 2); "
        "their lines say why\n"
    )


@pytest.mark.parametrize(
    "command, args",
    [
        ("index", ["i.hippo", *COOC, "-o", "j.hippo"]),
        ("add", ["i.hippo", "--corpus", "i.hippo", *COOC, "-o", "j.hippo"]),
        ("index", ["c.json", "--openie", "i.hippo", "-o", "j.hippo"]),
        ("eval", ["i.hippo", "--index", "i.hippo"]),
        ("openie", ["i.hippo", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "-o", "o.json"]),
    ],
)
def test_an_index_given_where_text_is_expected_is_named(built, command, args):
    line = one_line(cli("hipporag", command, *args, cwd=built), command)
    assert "i.hippo: this is an index file, not a" in line and "not UTF-8" not in line
    assert not (built / "j.hippo").exists()


def _on_a_terminal(*args, cwd) -> tuple[int, str, str]:
    """``python -m pathfinding ARGS`` with stderr on a pseudo-terminal (as in a shell): (status,
    stdout, what the terminal showed)."""
    import fcntl
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    # 24 rows of 120 columns: a terminal of no width shows a bar of no width
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    cmd = [sys.executable, "-m", "pathfinding", *map(str, args)]
    env = ENV | {"TQDM_MININTERVAL": "0"}  # every update drawn, however quick the run
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=follower, text=True, env=env, cwd=cwd)
    os.close(follower)
    shown = bytearray()
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the other end closed (EIO on Linux)
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    out = proc.stdout.read()
    return proc.wait(timeout=300), out, shown.decode(errors="replace")


def test_eval_of_a_long_question_file_shows_its_progress_on_a_terminal(built, tmp_path):
    rows = [{"question": f"Who directed Plan 9 ({i})?", "supporting": ["Ed Wood"]} for i in range(60)]
    (tmp_path / "q.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    index = built / "i.hippo"
    status, out, shown = _on_a_terminal("hipporag", "eval", "q.jsonl", "--index", index, cwd=tmp_path)
    assert status == 0 and "60 questions" in out, shown
    assert "eval" in shown and "120/120" in shown and "question" in shown  # two retrievers x 60
    proc = cli("hipporag", "eval", "q.jsonl", "--index", index, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == "" and proc.stdout == out  # no bar into a file


def test_version():
    from importlib.metadata import version

    proc = cli("--version", cwd=".")
    assert proc.returncode == 0 and proc.stdout == f"pathfinding {pathfinding.__version__}\n"
    assert pathfinding.__version__ == version("hipporag-pathfinding")


def test_info_counts_settings_and_passages(built):
    proc = cli("hipporag", "info", "i.hippo", cwd=built)
    assert proc.returncode == 0 and proc.stdout.splitlines()[1].startswith("  3 passages, "), proc.stdout
    assert "tau=0.8" in proc.stdout and "kind=char_ngram" in proc.stdout and "[0]" not in proc.stdout
    proc = cli("hipporag", "info", "i.hippo", "--passages", cwd=built)
    assert proc.stdout.splitlines()[-3:] == ["  [0] Ed Wood", "  [1] Bela Lugosi", "  [2] Burbank"]
    info = json.loads(cli("hipporag", "info", "i.hippo", "--passages", "--json", cwd=built).stdout)
    assert info["stats"]["n_passages"] == 3 and info["settings"]["tau"] == 0.8
    want = [{"id": str(j), "title": p["title"], "source": None} for j, p in enumerate(CORPUS)]
    assert info["passages"] == want
    assert info["bytes"] == os.path.getsize(built / "i.hippo") and info["query_cache"] == "current"
    proc = cli("hipporag", "info", "c.json", cwd=built)
    assert "c.json: not a pathfinding HippoRAG index" in one_line(proc, "info")


def test_index_help_names_every_corpus_shape():
    text = " ".join(cli("hipporag", "index", "--help", cwd=".").stdout.split())
    for shape in ("JSON list of {title, text}", "JSON lines", "HotpotQA", "folder of .txt/.md files"):
        assert shape in text
