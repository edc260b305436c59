"""`pathfinding hipporag ...` on bad paths and arguments: one line on stderr and status 2, every command.

Also the indexes that build but used to fail on every query, questions that match nothing, and
`add` reporting duplicates as `index` does.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from pathfinding.cli import main
from pathfinding.hipporag.index import build_index
from pathfinding.hipporag.lexical import BM25Ranker
from pathfinding.hipporag.retrieve import NO_MATCH, HippoRetriever

TINY = [{"title": "B", "text": "B met C."}, {"title": "E", "text": "E saw F."}]


def _run(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own rejections exit, as argparse does
        code = exc.code
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _one_error_line(err: str, command: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"pathfinding hipporag {command}: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture(scope="module")
def d(tmp_path_factory):
    d = tmp_path_factory.mktemp("errors")
    (d / "tiny.json").write_text(json.dumps(TINY))
    (d / "broken.json").write_text('[{"title": "x", ')
    (d / "folder").mkdir()
    (d / "q.jsonl").write_text('{"question": "Who met C?", "supporting": ["B"]}\n')
    assert (
        main(
            [
                "hipporag",
                "index",
                str(d / "tiny.json"),
                "--extractor",
                "cooccurrence",
                "-o",
                str(d / "t.hippo"),
            ]
        )
        == 0
    )
    return d


def _commands(d):
    """Every command with a bad path in each position: (command, argv, words expected in the message)."""
    idx, tiny, missing, folder = (
        str(d / "t.hippo"),
        str(d / "tiny.json"),
        str(d / "nope.json"),
        str(d / "folder"),
    )
    nofolder, broken = str(d / "no" / "x.hippo"), str(d / "broken.json")
    cooc = ["--extractor", "cooccurrence"]
    llm = ["--base-url", "http://127.0.0.1:9/v1", "--model", "m"]
    return [
        ("index", ["index", missing, *cooc, "-o", str(d / "x.hippo")], "no such file"),
        ("index", ["index", tiny, *cooc, "-o", nofolder], "does not exist"),
        ("index", ["index", tiny, *cooc, "-o", folder], "is a directory"),
        ("index", ["index", broken, *cooc, "-o", str(d / "x.hippo")], "not valid JSON"),
        ("index", ["index", tiny, "--openie", missing, "-o", str(d / "x.hippo")], "no such file"),
        ("index", ["index", tiny, "--openie", folder, "-o", str(d / "x.hippo")], "is a directory"),
        ("query", ["query", str(d / "nope.hippo"), "who?"], "no such file"),
        ("query", ["query", folder, "who?"], "is a directory"),
        ("query", ["query", broken, "who?"], "not a pathfinding HippoRAG index"),
        ("query", ["query", idx, "--questions", missing], "no such file"),
        ("query", ["query", idx, "--questions", folder], "is a directory"),
        ("query", ["query", idx], "give one question"),
        ("query", ["query", idx, "who?", "-k", "0"], "argument -k"),
        ("query", ["query", idx, "who?", "--retriever", "bm26"], "argument --retriever"),
        ("add", ["add", str(d / "nope.hippo"), "--corpus", tiny, *cooc], "no such file"),
        ("add", ["add", idx, "--corpus", missing, *cooc], "no such file"),
        ("add", ["add", idx, "--corpus", broken, *cooc], "not valid JSON"),
        ("add", ["add", idx, "--corpus", tiny, *cooc, "-o", nofolder], "does not exist"),
        ("add", ["add", idx, "--corpus", tiny, *cooc, "-o", folder], "is a directory"),
        ("delete", ["delete", folder, "0"], "is a directory"),
        ("delete", ["delete", idx, "0", "-o", nofolder], "does not exist"),
        ("delete", ["delete", idx, "x"], "argument ID"),
        ("openie", ["openie", missing, *llm, "-o", str(d / "o.json")], "no such file"),
        ("openie", ["openie", tiny, *llm, "-o", str(d / "no" / "o.json")], "does not exist"),
        ("openie", ["openie", tiny, *llm, "-o", folder], "is a directory"),
        ("eval", ["eval", missing, "--index", idx], "no such file"),
        ("eval", ["eval", str(d / "q.jsonl"), "--index", folder], "is a directory"),
        ("eval", ["eval", broken, "--index", idx], "neither JSON nor JSON lines"),
        ("eval", ["eval", str(d / "q.jsonl"), "--index", idx, "-k"], "argument -k"),
    ]


def test_every_bad_path_is_one_line(d, capsys):
    before = (d / "t.hippo").read_bytes()
    for command, argv, words in _commands(d):
        code, out, err = _run(capsys, ["hipporag", *argv])
        line = _one_error_line(err, command)
        assert code == 2 and words in line, (argv, err)
        assert out == "", argv
    assert (d / "t.hippo").read_bytes() == before  # no failed command touched the index


def test_unreadable_file(d, capsys, monkeypatch):
    locked = d / "locked.json"
    locked.write_text(json.dumps(TINY))
    locked.chmod(0)
    if os.geteuid() == 0:  # root reads every file: make this one unreadable to the check
        real = os.access
        monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(locked) else real(p, mode))
    try:
        argv = ["hipporag", "index", str(locked), "--extractor", "cooccurrence", "-o", str(d / "l.hippo")]
        code, _, err = _run(capsys, argv)
        assert code == 2 and "permission denied" in _one_error_line(err, "index")
    finally:
        locked.chmod(0o600)


def test_a_subprocess_sees_one_line(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    missing = tmp_path / "missing.hippo"
    cmd = [sys.executable, "-m", "pathfinding", "hipporag", "query", str(missing), "who?"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert proc.returncode == 2 and proc.stdout == ""
    assert (
        proc.stderr
        == f"pathfinding hipporag query: error: {missing}: no such file (expected an index file)\n"
    )


def test_tiny_index_answers_every_query(d, capsys):
    # Before: each query died inside bm25s ("max() arg is an empty sequence"): no fact has a word.
    for q in ("Who met C?", "Who saw F?", "B", "what is G?"):
        code, out, err = _run(capsys, ["hipporag", "query", str(d / "t.hippo"), q, "--json"])
        assert code == 0 and err == "", err
        rec = json.loads(out)
        assert rec["passages"] or rec["message"] == NO_MATCH
    code, out, _ = _run(capsys, ["hipporag", "query", str(d / "t.hippo"), "Who met C?", "--json"])
    assert json.loads(out)["passages"][0]["text"] == "B\nB met C."


def test_bm25_over_texts_without_words():
    bm = BM25Ranker(["", ""])
    assert bm.scores("anything at all").tolist() == [0.0, 0.0]
    assert BM25Ranker(["B met C.", "E saw F."]).scores("who met").argmax() == 0


def test_no_match_in_the_library_and_the_cli(d, capsys):
    idx = build_index([[("Ed Wood", "directed", "Plan 9")], [("Paris", "capital of", "France")]],
                      passages=["Ed Wood directed Plan 9.", "Paris is in France."])  # fmt: skip
    for q in ("the of and what", "zebra quantum"):  # stop words only; no word in the corpus
        r = HippoRetriever(idx).retrieve(q, k=2)
        assert r.passages.size == 0 and r.scores.size == 0 and r.note == NO_MATCH
    hit = HippoRetriever(idx).retrieve("Where is Paris?", k=2)
    assert hit.passages[0] == 1 and hit.note == ""
    for retriever in ("default", "bm25", "v1"):
        argv = ["hipporag", "query", str(d / "t.hippo"), "zebra quantum", "--retriever", retriever]
        code, out, err = _run(capsys, argv)
        assert code == 0 and NO_MATCH in out and "  1. [" not in out, (retriever, out)
        # stop words only: nothing to search for, which the command line refuses
        code, out, err = _run(capsys, [*argv[:3], "the of and", *argv[4:]])
        assert code == 2 and "only stop words" in _one_error_line(err, "query"), (retriever, err)


def test_no_triples_says_what_to_do(d, capsys):
    (d / "none.json").write_text(
        json.dumps([{"title": "a", "text": "the of and."}, {"title": "b", "text": "..."}])
    )
    argv = [
        "hipporag",
        "index",
        str(d / "none.json"),
        "--extractor",
        "cooccurrence",
        "-o",
        str(d / "n.hippo"),
    ]
    code, _, err = _run(capsys, argv)
    line = _one_error_line(err, "index")
    assert code == 2 and "found no triple in any of the 2 passages" in line and "--openie" in line
    assert not (d / "n.hippo").exists()


def test_index_says_per_passage_why_the_extractor_found_nothing(d, capsys):
    corpus = [
        {"title": "", "text": "he was here."},
        {"title": "Ed Wood", "text": "  "},
        {"title": "Ed Wood", "text": "Ed Wood met Bela Lugosi in Burbank."},
    ]
    (d / "mixed.json").write_text(json.dumps(corpus))
    argv = ["hipporag", "index", str(d / "mixed.json"), "--extractor", "cooccurrence"]
    argv += ["-o", str(d / "m.hippo")]
    code, _, err = _run(capsys, argv)
    assert code == 0 and "2 of 3 passages gave no triple:" in err
    assert "empty text (passage 1)" in err and "no named span" in err and "(passage 0)" in err


def test_add_reports_duplicates_as_index_does(d, capsys):
    (d / "dup.json").write_text(json.dumps([TINY[0], TINY[0]]))
    code, _, err = _run(
        capsys,
        ["hipporag", "index", str(d / "dup.json"), "--extractor", "cooccurrence", "-o", str(d / "d.hippo")],
    )
    assert code == 0 and "duplicate_passage: 1" in err
    argv = [
        "hipporag",
        "add",
        str(d / "t.hippo"),
        "--corpus",
        str(d / "tiny.json"),
        "--extractor",
        "cooccurrence",
    ]
    code, out, err = _run(capsys, [*argv, "-o", str(d / "t2.hippo"), "--json"])
    assert code == 0 and "2 of 2 passages are already in t.hippo" in err
    assert json.loads(out)["duplicates_of_index"] == 2
    np.testing.assert_array_equal(json.loads(out)["added_ids"], [2, 3])
