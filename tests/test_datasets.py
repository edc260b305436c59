"""The data registry: where each file from elsewhere is looked for, how it is downloaded and verified.

Downloads go to a local HTTP server on 127.0.0.1 started here, serving a small file registered for
the test: the good bytes, wrong bytes, a truncated body, a server too slow for the timeout, a server
that is down, and a download interrupted halfway. None may leave a file under the final name, nor a
temporary file behind. The registry itself is checked against the MANIFEST of the local copy of the
release, and the package against the return of any data file from elsewhere.
"""

import _thread
import gzip
import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from scripted_server import LocalServer

from pathfinding.cli import main
from pathfinding.errors import DataDownloadError, DataNotFoundError, InvalidValueError
from pathfinding.hipporag.io import load_corpus, load_openie, load_questions
from pathfinding.hipporag.storage import datasets
from pathfinding.hipporag.storage.datasets import REGISTRY, DataFile, entry, fetch, get_data_home, locate

ROOT = Path(__file__).resolve().parents[1]
# Bigger than one read, so an interruption can land between two of them.
GOOD = json.dumps([{"title": f"T{i}", "text": "x" * 90} for i in range(2000)]).encode()
TINY = DataFile("tiny", "data/tiny.json", len(GOOD), hashlib.sha256(GOOD).hexdigest(), "test")


class FileServer(LocalServer):
    """Answers every GET with ``behaviour(handler)``; counts the requests."""

    poll_interval = 0.05

    def __init__(self, behaviour):
        self.behaviour = behaviour
        self.requests = 0
        self.start()
        self.base_url = self.base_url.removesuffix("/v1")

    def _handle(self, h) -> None:
        self.requests += 1
        try:
            self.behaviour(h)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout or an interruption)


def _head(h, length, status=200):
    h.send_response(status)
    h.send_header("Content-Type", "application/octet-stream")
    h.send_header("Content-Length", str(length))
    h.end_headers()


def good(h):
    _head(h, len(GOOD))
    h.wfile.write(GOOD)


def wrong_bytes(h):
    _head(h, len(GOOD))
    h.wfile.write(GOOD[:-3] + b"!!]")


def truncated(h):
    _head(h, len(GOOD))  # announces every byte, sends half, hangs up
    h.wfile.write(GOOD[: len(GOOD) // 2])
    h.wfile.flush()
    h.close_connection = True
    h.connection.shutdown(socket.SHUT_RDWR)


def slow(h):
    time.sleep(3.0)
    good(h)


def not_found(h):
    _head(h, 0, status=404)


def interrupted(folder):
    def behaviour(h):
        _head(h, len(GOOD))
        h.wfile.write(GOOD[:70000])
        h.wfile.flush()
        deadline = time.monotonic() + 10
        while not list(folder.glob("*.tmp-*")) and time.monotonic() < deadline:
            time.sleep(0.01)  # until the client writes its temporary file
        _thread.interrupt_main()  # Ctrl-C in the client while the body is on its way
        time.sleep(0.2)
        h.wfile.write(GOOD[70000:])

    return behaviour


@pytest.fixture
def tiny(monkeypatch, tmp_path):
    """The test file in the registry; an empty cache and no local copy."""
    monkeypatch.setitem(REGISTRY, "tiny", TINY)
    monkeypatch.setenv("PATHFINDING_DATA_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("PATHFINDING_DATA", raising=False)
    return tmp_path / "cache"


def _serve(behaviour, monkeypatch):
    server = FileServer(behaviour)
    monkeypatch.setattr(datasets, "UPSTREAM", server.base_url)
    return server


def _left_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


# --- the download ---------------------------------------------------------------------------------


def test_good_download_lands_verified_under_its_name_and_is_not_fetched_twice(tiny, monkeypatch):
    with _serve(good, monkeypatch) as server:
        path = fetch("tiny", progress=False)
        assert path == tiny / "tiny.json" and path.read_bytes() == GOOD
        assert _left_in(tiny) == ["tiny.json"]
        assert fetch("tiny.json") == path and locate("tiny") == path  # by file name too
        assert server.requests == 1


@pytest.mark.parametrize(
    ("behaviour", "why"),
    [
        (wrong_bytes, r"SHA-256 of the bytes differs from the registry's"),
        (truncated, r"(IncompleteRead|truncated)"),
        (not_found, r"HTTP 404"),
    ],
    ids=["wrong-bytes", "truncated", "http-404"],
)
def test_a_bad_download_is_one_line_and_leaves_nothing(tiny, monkeypatch, behaviour, why):
    with _serve(behaviour, monkeypatch) as server:
        with pytest.raises(DataDownloadError) as err:
            fetch("tiny", progress=False)
    msg = str(err.value)
    assert "\n" not in msg
    assert re.search(f"download from {re.escape(server.base_url)}/data/tiny.json failed .*{why}", msg)
    assert f"the cache {tiny}: missing" in msg and "$PATHFINDING_DATA is not set" in msg
    assert "`pathfinding data fetch tiny`" in msg
    assert _left_in(tiny) == []


def test_a_server_slower_than_the_timeout_fails_in_about_the_timeout(tiny, monkeypatch):
    with _serve(slow, monkeypatch):
        start = time.monotonic()
        with pytest.raises(DataDownloadError, match=r"failed \((TimeoutError|timeout)"):
            fetch("tiny", timeout=0.3, progress=False)
        assert time.monotonic() - start < 2.5  # the timeout (0.3 s) plus slack, not the server's 3 s
    assert _left_in(tiny) == []


def _closed_port() -> int:
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_server_that_is_down(tiny, monkeypatch):
    monkeypatch.setattr(datasets, "UPSTREAM", f"http://127.0.0.1:{_closed_port()}")
    with pytest.raises(DataDownloadError, match=r"failed \(ConnectionRefusedError"):
        fetch("tiny")
    assert _left_in(tiny) == []


def test_the_env_variable_names_a_mirror(tiny, monkeypatch):
    with FileServer(good) as mirror:
        monkeypatch.setenv("PATHFINDING_DATA_URL", mirror.base_url)
        assert fetch("tiny", progress=False).read_bytes() == GOOD and mirror.requests == 1


def test_offline_without_a_copy_the_data_tests_and_doctests_are_skipped_and_counted(tmp_path):
    """The suite as a fresh clone runs it with no copy of the data and no route to its host: the
    package's doctests and the tests that read the release are skipped (not failed), and the summary
    counts them and names the command that fetches the data."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PATHFINDING_DATA")}
    # empty, not unset: the root conftest would otherwise point it at the copy beside the checkout
    env |= {"PATHFINDING_DATA": "", "PATHFINDING_DATA_HOME": str(tmp_path / "cache")}
    env["PATHFINDING_DATA_URL"] = f"http://127.0.0.1:{_closed_port()}"
    args = ["pathfinding/hipporag/storage/datasets.py", "pathfinding/hipporag/io/loaders.py",
            "tests/test_datasets.py::test_released_musique_files_load_and_align"]  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:]
    counts = re.fullmatch(r"(\d+) passed, (\d+) skipped in .*", proc.stdout.splitlines()[-1])
    n = int(counts.group(2))
    assert n >= 3, proc.stdout[-3000:]
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("data: "))
    assert line.startswith(f"data: {n} tests skipped for want of the data files") and "`make data`" in line
    assert "ConnectionRefusedError" in line  # why no download brought them, said once
    assert _left_in(tmp_path / "cache") == []


@pytest.fixture
def sigint_raises():
    """Ctrl-C raises KeyboardInterrupt even in a run started as a shell's background job, which
    inherits SIGINT ignored: ``_thread.interrupt_main`` then does nothing."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def test_an_interrupted_download_leaves_no_file_and_no_temporary_file(tiny, monkeypatch, sigint_raises):
    with _serve(interrupted(tiny), monkeypatch):
        with pytest.raises(KeyboardInterrupt):
            fetch("tiny", progress=False)
    assert not (tiny / "tiny.json").exists()
    assert _left_in(tiny) == []


def test_ctrl_c_just_after_the_temporary_file_is_made_leaves_nothing(tiny, monkeypatch):
    # The narrowest window: the interrupt lands the moment the temporary file exists, before the
    # code that made it has returned its name (CI once found a temporary file left this way).
    real_open = os.open

    def open_then_interrupt(path, *args, **kwargs):
        fd = real_open(path, *args, **kwargs)
        if ".tmp-" in str(path):
            os.close(fd)
            raise KeyboardInterrupt
        return fd

    with _serve(good, monkeypatch):
        monkeypatch.setattr(os, "open", open_then_interrupt)
        with pytest.raises(KeyboardInterrupt):
            fetch("tiny", progress=False)
        monkeypatch.setattr(os, "open", real_open)
    assert _left_in(tiny) == []


def test_a_download_killed_outright_is_cleaned_and_reported_by_the_next_fetch(tiny, monkeypatch, caplog):
    tiny.mkdir()
    (tiny / "tiny.json.tmp-999999999").write_bytes(GOOD[:70000])  # its process (SIGKILL) is gone
    with _serve(good, monkeypatch), caplog.at_level("WARNING", logger="pathfinding"):
        fetch("tiny", progress=False)
    assert _left_in(tiny) == ["tiny.json"]
    assert "removed " in caplog.text and "tiny.json.tmp-999999999 (70,000 bytes)" in caplog.text


def test_a_damaged_cached_file_is_replaced_by_a_verified_download(tiny, monkeypatch):
    tiny.mkdir()
    (tiny / "tiny.json").write_bytes(GOOD[:-1] + b"?")  # right size, wrong bytes
    assert locate("tiny") is None
    with _serve(good, monkeypatch):
        assert fetch("tiny", progress=False).read_bytes() == GOOD


# --- where it is looked for -----------------------------------------------------------------------


def test_local_copy_then_cache_then_download(tiny, monkeypatch, tmp_path):
    copy = tmp_path / "copy"
    copy.mkdir()
    tiny.mkdir()
    (tiny / "tiny.json").write_bytes(GOOD)
    monkeypatch.setenv("PATHFINDING_DATA", str(copy))
    assert fetch("tiny") == tiny / "tiny.json"  # not in the local copy: the cache
    (copy / "tiny.json").write_bytes(GOOD)
    assert fetch("tiny") == copy / "tiny.json"  # the local copy comes first
    (copy / "tiny.json").write_bytes(GOOD[:100])  # a damaged copy is never returned
    assert fetch("tiny") == tiny / "tiny.json"
    (tiny / "tiny.json").unlink()
    with _serve(good, monkeypatch) as server:
        assert fetch("tiny", progress=False) == tiny / "tiny.json" and server.requests == 1
    assert (copy / "tiny.json").read_bytes() == GOOD[:100]  # a local copy is never written


def test_the_message_names_every_place_and_why(tiny, monkeypatch, tmp_path):
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "tiny.json").write_bytes(b"{}")
    monkeypatch.setenv("PATHFINDING_DATA", str(copy))
    with pytest.raises(DataNotFoundError) as err:
        fetch("tiny", source=tmp_path / "nowhere")
    assert str(err.value) == (
        f"data file tiny.json (tiny) not available: $PATHFINDING_DATA {copy}: corrupt: size differs "
        f"(2 bytes, expected {len(GOOD):,}); the cache {tiny}: missing; the folder to fetch from "
        f"{tmp_path / 'nowhere'}: missing. Fetch it with `pathfinding data fetch tiny`, or from a copy "
        "with `pathfinding data fetch tiny --from DIR_OR_URL` (or set PATHFINDING_DATA to a folder "
        "holding it)"
    )


def test_data_home_argument_then_environment_then_platform(monkeypatch, tmp_path):
    monkeypatch.setenv("PATHFINDING_DATA_HOME", str(tmp_path / "env"))
    assert get_data_home(tmp_path / "arg") == tmp_path / "arg"
    assert get_data_home() == tmp_path / "env"
    monkeypatch.delenv("PATHFINDING_DATA_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(datasets.sys, "platform", "linux")
    assert get_data_home() == tmp_path / "xdg" / "pathfinding"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert get_data_home() == Path.home() / ".cache" / "pathfinding"
    assert not (tmp_path / "arg").exists()  # only named, never created


def test_bad_arguments(tiny):
    with pytest.raises(InvalidValueError, match=r"no data file 'nope'; expected one of \['2wiki_corpus', "):
        fetch("nope")
    with pytest.raises(InvalidValueError, match=r"timeout must be a positive number of seconds, got 0"):
        fetch("tiny", timeout=0)
    with pytest.raises(TypeError, match="name must be a str"):
        entry(Path("tiny.json"))


# --- the command line -----------------------------------------------------------------------------


def test_cli_fetch_from_a_folder_then_list(tiny, tmp_path, capsys):
    src = tmp_path / "copy"
    src.mkdir()
    (src / "tiny.json").write_bytes(GOOD)
    assert main(["data", "fetch", "tiny", "--from", str(src)]) == 0
    assert capsys.readouterr().out == f"tiny: {tiny / 'tiny.json'}\n"
    assert (tiny / "tiny.json").read_bytes() == GOOD
    assert main(["data", "list", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["tiny"]["path"] == str(tiny / "tiny.json") and rows["tiny"]["size"] == len(GOOD)
    assert rows["musique_corpus"]["url"].startswith(datasets.UPSTREAM + "/data/")
    assert main(["data", "list"]) == 0
    table = capsys.readouterr().out
    assert re.search(r"^tiny +\d+\.\d [KM]iB  " + re.escape(str(tiny / "tiny.json")) + "$", table, re.M)


def test_cli_list_calls_a_corrupt_file_corrupt_and_says_how_to_replace_it(tiny, monkeypatch, capsys):
    tiny.mkdir()
    (tiny / "tiny.json").write_bytes(GOOD[:-3] + b"!!]")  # the right size, other bytes
    assert main(["data", "list"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("tiny "))
    assert f"corrupt: checksum differs (its SHA-256 is not the registry's), at {tiny / 'tiny.json'}" in row
    assert "`pathfinding data fetch tiny` downloads a verified copy into the cache" in row
    assert "corrupt: 1 (`pathfinding data fetch tiny` replaces them)" in out
    (tiny / "tiny.json").write_bytes(b"[]")
    assert main(["data", "list", "--json"]) == 0
    row = next(r for r in json.loads(capsys.readouterr().out) if r["name"] == "tiny")
    assert row["path"] is None and row["status"].startswith("corrupt: size differs (2 bytes, expected")
    with FileServer(good) as mirror:
        assert main(["data", "fetch", "tiny", "--from", mirror.base_url]) == 0  # the fix it names
    capsys.readouterr()
    assert main(["data", "list", "--json"]) == 0
    row = next(r for r in json.loads(capsys.readouterr().out) if r["name"] == "tiny")
    assert (row["path"], row["status"]) == (str(tiny / "tiny.json"), "ok")


def test_cli_fetch_of_several_files_tries_each_reports_each_and_fails_at_the_end(tiny, monkeypatch, capsys):
    other = DataFile("tiny2", "data/tiny2.json", len(GOOD), TINY.sha256, "test")
    monkeypatch.setitem(REGISTRY, "tiny2", other)
    monkeypatch.setitem(REGISTRY, "tiny3", DataFile("tiny3", "data/tiny3.json", 5, "0" * 64, "test"))
    src = tiny.parent / "copy"
    src.mkdir()
    for name in ("tiny.json", "tiny2.json"):
        (src / name).write_bytes(GOOD)
    status = main(["data", "fetch", "tiny", "tiny3", "tiny2", "--from", str(src)])
    out, err = capsys.readouterr()
    assert status == 2  # tiny3 is not in the folder
    assert out == f"tiny: {tiny / 'tiny.json'}\ntiny2: {tiny / 'tiny2.json'}\n"
    lines = err.splitlines()
    assert len(lines) == 2 and lines[0].startswith("tiny3: failed: data file tiny3.json (tiny3) not")
    assert lines[1] == (
        "pathfinding data fetch: error: 1 of 3 files failed (tiny3); the others are in place, and "
        "rerunning fetches only what is missing"
    )
    monkeypatch.setattr(datasets, "UPSTREAM", f"http://127.0.0.1:{_closed_port()}")
    assert main(["data", "fetch", "tiny3", "tiny"]) == 1  # a failed download: status 1, as for one file
    assert capsys.readouterr().out == f"tiny: {tiny / 'tiny.json'}\n"


def test_cli_fetch_from_a_mirror_url(tiny, monkeypatch, capsys):
    with FileServer(good) as mirror:
        assert main(["data", "fetch", "tiny", "--from", mirror.base_url + "/"]) == 0
    assert (tiny / "tiny.json").read_bytes() == GOOD


def test_cli_errors_are_one_line_with_their_status(tiny, monkeypatch, tmp_path, capsys):
    assert main(["data", "fetch", "tiny", "--from", str(tmp_path)]) == 2  # not in that folder
    err = capsys.readouterr().err
    assert err.startswith("pathfinding data fetch: error: data file tiny.json (tiny) not available: ")
    assert err.count("\n") == 1 and "Traceback" not in err
    monkeypatch.setattr(datasets, "UPSTREAM", f"http://127.0.0.1:{_closed_port()}")
    assert main(["data", "fetch", "tiny"]) == 1  # a failed download
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "`pathfinding data fetch tiny`" in err
    with pytest.raises(SystemExit) as exit_:
        main(["data", "fetch", "--timeout", "0"])
    assert exit_.value.code == 2 and "expected a number of seconds > 0, got '0'" in capsys.readouterr().err


# --- the registry against the release, and the package against data from elsewhere ---------------

MANIFESTS = [
    Path(os.environ.get("PATHFINDING_DATA") or "/nonexistent") / "MANIFEST.md",
    ROOT.parent / "shared" / "data" / "hipporag" / "MANIFEST.md",
]


def test_registry_equals_the_manifest_of_the_local_copy():
    manifest = next((p for p in MANIFESTS if p.is_file()), None)
    if manifest is None:
        places = [str(p) for p in MANIFESTS]
        pytest.skip(f"data unavailable: no MANIFEST of a local copy of the release at {places}")
    rows = re.findall(
        r"^\| `([^`]+)` \| `([^`]+)` \|[^|]*\| ([\d,]+) \| [0-9a-f]{40} \| ([0-9a-f]{64}) \|$",
        manifest.read_text(encoding="utf-8"),
        flags=re.M,
    )
    assert len(rows) == len(REGISTRY) == 11
    assert {f.filename: (f.path, f.size, f.sha256) for f in REGISTRY.values()} == {
        name: (path, int(size.replace(",", "")), sha) for name, path, size, sha in rows
    }
    commit = re.search(r"commit `([0-9a-f]{40})`", manifest.read_text(encoding="utf-8")).group(1)
    assert all(f.url == f"https://raw.githubusercontent.com/OSU-NLP-Group/HippoRAG/{commit}/{f.path}"
               for f in REGISTRY.values())


def test_the_package_holds_python_modules_only():
    # A data file from elsewhere must be fetched, never shipped: no package data at all is allowed.
    found = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "pathfinding").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".py"
    ]
    assert found == [], "files in the package that are not Python modules (fetch data, don't ship it)"


def test_no_file_of_the_release_is_in_the_repository():
    try:
        tracked = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    hashes = {f.sha256 for f in REGISTRY.values()}
    copies = []
    for name in filter(None, tracked):
        path = ROOT / name
        if not path.is_file():
            continue
        raw = path.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            try:
                raw = gzip.decompress(raw)
            except (OSError, EOFError):
                pass
        if hashlib.sha256(raw).hexdigest() in hashes:
            copies.append(name)
    assert copies == []


# --- the real files (skipped, with the reason, where no copy and no network are available) --------


def test_released_musique_files_load_and_align():
    corpus, c_rep = load_corpus(fetch("musique_corpus"))
    docs, o_rep = load_openie(fetch("musique_openie"), corpus=corpus)
    questions, q_rep = load_questions(fetch("musique_questions"))
    assert (len(corpus), len(docs), len(questions)) == (1890, 1890, 100)
    assert "misaligned_passage" not in o_rep.issues
    assert o_rep.issues == {"triple_not_three": 185, "passage_no_triples": 2}
    assert sum(len(d.triples) for d in docs) == 17419 - 185
    assert c_rep.issues == {"duplicate_title": 211} and q_rep.n_issues == 0  # titles, not passages, repeat
    keys = {p.key for p in corpus}
    assert all(s in keys for q in questions for s in q.supporting)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_release_file_is_available_and_verified(name):
    path = fetch(name)
    assert path.stat().st_size == REGISTRY[name].size
    assert hashlib.sha256(path.read_bytes()).hexdigest() == REGISTRY[name].sha256
