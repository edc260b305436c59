"""``pathfinding hipporag sync INDEX FOLDER``: a folder edited, then synced; a dry run writes nothing;
bad files are one line; two syncs, or a sync and an add, take turns and lose nothing; with the
endpoint route, only the new passages cost a request."""

import json
import os
import shutil
import signal

import pytest
from replay_server import ReplayServer

from pathfinding.cli import main
from pathfinding.cli.openie import add_openie_command
from pathfinding.hipporag.index import sync as sync_module
from pathfinding.hipporag.index.persistence import load_index
from tests.test_cli_stranger import COOC, _wait_for_line, cli, one_line, popen

MANUAL = (
    "# Plan 9\n\n## Cast\nBela Lugosi starred in Plan 9 from Outer Space.\n\n## Crew\nEd Wood directed it.\n"
)


def _run(capsys, *argv):
    code = main(["hipporag", *map(str, argv)])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _ids(index):
    return list(load_index(index).passage_ids)


@pytest.fixture
def work(tmp_path, capsys):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "plan9.md").write_text(MANUAL)
    (docs / "burbank.txt").write_text("Burbank is a city in Los Angeles County, California.")
    code, _, err = _run(capsys, "index", docs, *COOC, "--max-chars", 60, "-o", tmp_path / "i.hippo")
    assert code == 0, err
    return tmp_path


def test_edit_then_sync_a_dry_run_first(work, capsys):
    idx, docs = work / "i.hippo", work / "docs"
    assert _ids(idx) == ["burbank.txt", "plan9.md#plan-9/cast", "plan9.md#plan-9/crew"]
    (docs / "plan9.md").write_text(MANUAL.replace("Ed Wood directed it.", "Ed Wood directed it in Burbank."))
    (docs / "glendale.txt").write_text("Glendale lies north of Burbank.")
    os.remove(docs / "burbank.txt")
    before = idx.read_bytes()
    code, out, _ = _run(capsys, "sync", idx, docs, "--dry-run")
    assert code == 0 and idx.read_bytes() == before
    assert out.splitlines() == [
        "  added: glendale.txt",
        "  changed: plan9.md",
        "  removed: burbank.txt",
        f"would sync {idx} with {docs}: 1 added, 1 changed, 1 removed, 0 unchanged files; passages: +3, -3 "
        "(nothing written)",
    ]
    code, out, _ = _run(capsys, "sync", idx, docs, *COOC)
    assert code == 0 and out.startswith(f"synced {docs}: 1 added, 1 changed, 1 removed, 0 unchanged files;")
    assert _ids(idx) == ["glendale.txt", "plan9.md#plan-9/cast", "plan9.md#plan-9/crew"]
    code, out, _ = _run(capsys, "query", idx, "Who directed Plan 9 in Burbank?", "-k", "1", "--json")
    (top,) = json.loads(out)["passages"]
    assert top["id"] == "plan9.md#plan-9/crew" and top["source"]["headings"] == ["Plan 9", "Crew"]
    code, out, _ = _run(capsys, "sync", idx, docs, *COOC, "--json")
    res = json.loads(out)
    assert code == 0 and res["unchanged"] == 2 and res["added"] == res["changed"] == res["removed"] == []


def test_what_sync_refuses_is_one_line_and_leaves_the_index(work, capsys):
    idx, docs = work / "i.hippo", work / "docs"
    before = idx.read_bytes()
    cases = [
        ([idx, docs], "sync needs the new passages' triples: pass --openie FILE"),
        ([idx, work / "nope", *COOC], "nope: no such file (expected a folder of .txt/.md files)"),
        ([idx, idx, *COOC], "i.hippo: not a folder; sync compares an index with a folder"),
        ([docs, docs, *COOC], "docs: is a directory, expected an index file"),
    ]
    for name, data, words in [
        ("bad.md", b"\x00\x01\x02binary", "bad.md: a binary file, not text (a NUL byte at byte 0)"),
        ("bad.md", "Caf\xe9".encode("latin-1"), "bad.md: not UTF-8 text (byte 3: unexpected end of data)"),
        ("bad.md", b"# Title\n\n## Only headings\n", "bad.md: Markdown headings and no text under them"),
    ]:
        (docs / name).write_bytes(data)
        code, out, err = _run(capsys, "sync", idx, docs, *COOC)
        assert code == 2 and out == "" and err.count("\n") == 1 and words in err, err
        assert err.startswith("pathfinding hipporag sync: error: ")
        os.remove(docs / name)
    for argv, words in cases:
        code, out, err = _run(capsys, "sync", *argv)
        assert code == 2 and out == "" and err.count("\n") == 1 and words in err, (argv, err)
    assert idx.read_bytes() == before


def test_a_folder_that_vanishes_mid_sync_is_one_line(work, capsys, monkeypatch):
    idx, docs = work / "i.hippo", work / "docs"
    (docs / "new.txt").write_text("Glendale lies north of Burbank.")
    before = idx.read_bytes()
    real = sync_module.read_document

    def vanishing(folder, rel):
        shutil.rmtree(folder, ignore_errors=True)
        return real(folder, rel)

    monkeypatch.setattr(sync_module, "read_document", vanishing)
    code, out, err = _run(capsys, "sync", idx, docs, *COOC)
    assert (
        code == 2 and out == "" and err.count("\n") == 1 and "cannot be read" in err and "did it move?" in err
    )
    assert idx.read_bytes() == before


def test_two_syncs_and_a_sync_beside_an_add_lose_nothing(work, lock_holder):
    """All three start while a fourth process holds the lock, so they really race for it."""
    docs = work / "docs"
    (docs / "glendale.txt").write_text("Glendale lies north of Burbank, near Los Angeles.")
    (work / "more.jsonl").write_text(json.dumps({"id": "rome", "title": "Rome", "text": "Rome is in Italy."}))
    holder = lock_holder(work / "i.hippo")
    procs = [
        popen("hipporag", "sync", "i.hippo", "docs", *COOC, "--wait", 300, cwd=work),
        popen("hipporag", "add", "i.hippo", "--corpus", "more.jsonl", *COOC, "--wait", 300, cwd=work),
        popen("hipporag", "sync", "i.hippo", "docs", *COOC, "--wait", 300, cwd=work),
    ]
    for p in procs:
        _wait_for_line(p.stderr, "waiting for i.hippo")
    holder.stdin.close()
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    # whichever ran last, the added passage and the folder's new file are both in
    ids = sorted(_ids(work / "i.hippo"))
    assert ids == ["burbank.txt", "glendale.txt", "plan9.md#plan-9/cast", "plan9.md#plan-9/crew", "rome"]


def test_ctrl_c_while_a_sync_waits_leaves_the_index(work, lock_holder):
    (work / "docs" / "new.txt").write_text("Glendale lies north of Burbank.")
    lock_holder(work / "i.hippo")
    before = (work / "i.hippo").read_bytes()
    p = popen("hipporag", "sync", "i.hippo", "docs", *COOC, cwd=work)
    _wait_for_line(p.stderr, "waiting for i.hippo")
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    said = (
        "pathfinding hipporag sync: interrupted: i.hippo is as it was (nothing written); "
        "rerunning the command is safe\n"
    )
    assert p.returncode == 130 and err == said and out == ""
    assert (work / "i.hippo").read_bytes() == before


def test_sync_of_a_file_that_is_not_a_folder_says_what_to_use(work):
    proc = cli("hipporag", "sync", "i.hippo", "i.hippo", *COOC, cwd=work)
    assert "use `add INDEX --corpus i.hippo`" in one_line(proc, "sync")


def _openie(argv):
    import argparse

    parser = argparse.ArgumentParser(prog="pathfinding hipporag")
    add_openie_command(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args([str(a) for a in argv])
    return args.func(args)


def test_with_the_endpoint_route_only_new_passages_cost_a_request(released, tmp_path, capsys):
    """A folder of released MuSiQue passages (one file each, named by its title): `openie` again after
    an edit answers every passage it saw from its cache, so the requests are those of the new file."""
    corpus = [p for p in released["corpus"][:200] if "/" not in p.title and not p.title.startswith(".")]
    first, extra = corpus[:6], corpus[6]
    docs = tmp_path / "docs"
    docs.mkdir()
    for p in first:
        (docs / f"{p.title}.txt").write_text(p.text)
    oie = tmp_path / "openie.json"
    with ReplayServer(released["raw"]) as srv:
        llm = ["--base-url", srv.base_url, "--model", "gpt-replay", "-o", oie]
        assert _openie(["openie", docs, *llm]) == 0
        assert len(srv.log) == 2 * len(first)
        code, _, err = _run(capsys, "index", docs, "--openie", oie, "-o", tmp_path / "i.hippo")
        assert code == 0, err
        (docs / f"{extra.title}.txt").write_text(extra.text)
        os.remove(docs / f"{first[0].title}.txt")
        n = len(srv.log)
        assert _openie(["openie", docs, *llm]) == 0
        assert len(srv.log) - n == 2  # the new passage's two steps; the other five from the cache
    code, out, err = _run(capsys, "sync", tmp_path / "i.hippo", docs, "--openie", oie)
    assert code == 0 and "1 added, 0 changed, 1 removed, 5 unchanged files" in out, err
    index = load_index(tmp_path / "i.hippo")
    assert sorted(index.passage_ids) == sorted(f"{p.title}.txt" for p in [*first[1:], extra])
    want = {p.key: d.triples for p, d in zip(released["corpus"], released["docs"], strict=True)}
    assert all(index.triples[j] or not want[key] for j, key in enumerate(index.passages))
