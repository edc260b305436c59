"""`pathfinding hipporag ...`: index -> query -> add -> delete -> query, and a pipe into head.

Bad paths and arguments: one line on stderr and status 2, every command; the indexes that build but
used to fail on every query, questions that match nothing, and `add` reporting duplicates as
`index` does. Corpora as people keep them, many questions in one run, eval.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from pathfinding.cli import build_parser, main
from pathfinding.errors import FormatError
from pathfinding.hipporag.evaluation.compare import match_supporting
from pathfinding.hipporag.evaluation.metrics import all_recall_at_k, recall_at_k
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.index.persistence import load_index, save_index
from pathfinding.hipporag.io import load_openie
from pathfinding.hipporag.io.questions import read_eval_questions
from pathfinding.hipporag.retrieval.lexical import BM25Ranker
from pathfinding.hipporag.retrieval.retrieve import NO_MATCH, HippoRetriever
from pathfinding.hipporag.storage.datasets import fetch
from tests.conftest import PASSAGES
from tests.test_maintenance import assert_same_index

QUESTION = "Who founded the Journal of Psychotherapy Integration?"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    corpus = json.loads(fetch("musique_corpus").read_bytes())
    openie = json.loads(fetch("musique_openie").read_bytes())
    (d / "c1.json").write_text(json.dumps(corpus[:30]))
    (d / "c2.json").write_text(json.dumps(corpus[30:36]))
    (d / "openie.json").write_text(json.dumps({"docs": openie["docs"][:36]}))
    return d


def _run(capsys, argv):
    code = main(argv)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_round_trip(files, capsys):
    idx, oie = str(files / "i.hippo"), str(files / "openie.json")
    code, out, err = _run(capsys, ["hipporag", "index", str(files / "c1.json"), "--openie", oie, "-o", idx])
    assert code == 0 and "30 passages" in out and f"wrote {idx}" in out
    assert "6 records of" in err and "were not used" in err  # extra OpenIE records are reported

    code, out, _ = _run(capsys, ["hipporag", "query", idx, QUESTION, "-k", "3", "--json"])
    first = json.loads(out)
    assert code == 0 and len(first["passages"]) == 3 and not first["fell_back"]
    assert first["links"][0]["phrase"] == "journal of psychotherapy integration"
    assert first["passages"][0]["text"].startswith("Journal of Psychotherapy Integration\n")
    code, out, _ = _run(capsys, ["hipporag", "query", idx, QUESTION, "-k", "3"])
    assert "-> node" in out and out.count("\n  1. [") + out.count("\n  2. [") == 2
    # lower-cased, the question is read through the corpus: the same name, from the corpus
    code, out, _ = _run(capsys, ["hipporag", "query", idx, QUESTION.lower(), "-k", "3", "--json"])
    lower = json.loads(out)
    assert lower["reading"]["read_as"] == "who founded the Journal of Psychotherapy Integration?"
    assert lower["reading"]["writer_capitals_count"] is False and lower["walk_weight"] == 0.85
    (change,) = lower["reading"]["changes"]
    assert change["typed"] == "journal of psychotherapy integration" and change["origin"] == "corpus"
    (entity,) = lower["reading"]["entities"]
    assert entity["entity"] == "Journal of Psychotherapy Integration" and entity["origin"] == "corpus"
    assert entity["why"].startswith("the corpus writes 'Journal of Psychotherapy Integration' as a name")
    assert [p["id"] for p in lower["passages"]][:1] == [p["id"] for p in first["passages"]][:1]
    code, out, _ = _run(capsys, ["hipporag", "query", idx, QUESTION.upper(), "-k", "3"])
    assert "read as:  who founded the Journal of Psychotherapy Integration?" in out

    code, out, _ = _run(
        capsys, ["hipporag", "add", idx, "--corpus", str(files / "c2.json"), "--openie", oie, "--json"]
    )
    res = json.loads(out)
    assert code == 0 and res["added_ids"] == [str(j) for j in range(30, 36)]
    assert res["stats"]["n_passages"] == 36

    top = first["passages"][0]["id"]
    code, out, _ = _run(capsys, ["hipporag", "delete", idx, "0", top, "--json"])
    res = json.loads(out)
    assert code == 0 and res["stats"]["n_passages"] == 34 and res["deleted_ids"] == ["0", top]

    code, out, _ = _run(capsys, ["hipporag", "query", idx, QUESTION, "-k", "3", "--json"])
    after = json.loads(out)
    assert [p["text"] for p in after["passages"]][:1] != [first["passages"][0]["text"]]
    texts = {p["id"]: p["text"] for p in after["passages"]}
    for p in first["passages"][1:]:  # survivors keep their ids: the same id, the same passage
        assert texts.get(p["id"], p["text"]) == p["text"]
    code, out, _ = _run(capsys, ["hipporag", "info", idx, "--passages", "--json"])
    listed = [p["id"] for p in json.loads(out)["passages"]]
    assert listed == [str(j) for j in range(1, 36) if str(j) != top]

    # The file after index + add + delete equals a fresh build over the same passages with the
    # encoder the first `index` fitted (updates keep it).
    corpus = json.loads((files / "c1.json").read_text()) + json.loads((files / "c2.json").read_text())
    keep = [j for j in range(36) if j not in (0, int(top))]
    parsed, _ = load_openie(oie)
    assert [d.title for d in parsed] == [c["title"] for c in corpus]
    updated = load_index(idx)
    fresh = build_index(
        [parsed[j].triples for j in keep],
        passages=[corpus[j]["title"] + "\n" + corpus[j]["text"] for j in keep],
        encoder=updated.encoder,
        fit_encoder=False,
    )
    assert_same_index(updated, fresh)


def test_errors_are_one_line(files, capsys):
    code, _, err = _run(capsys, ["hipporag", "index", str(files / "c1.json"), "-o", str(files / "x.hippo")])
    assert code == 2 and "error: no triples for the corpus: pass --openie FILE" in err
    bad = files / "bad.hippo"
    bad.write_bytes(b"PFHIPIDX" + b"\0" * 40)
    code, _, err = _run(capsys, ["hipporag", "query", str(bad), QUESTION])
    assert code == 2 and "bad.hippo: index format version 0" in err
    good = files / "good.hippo"
    save_index(build_index([[("Ed Wood", "directed", "Plan 9")]], passages=["x"]), good)
    raw = bytearray(good.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    bad.write_bytes(bytes(raw))
    code, _, err = _run(capsys, ["hipporag", "query", str(bad), QUESTION])
    assert code == 2 and "checksum mismatch: the file is corrupted" in err and "Traceback" not in err
    code, _, err = _run(capsys, ["hipporag", "delete", str(good), "5"])
    assert code == 2 and err.count("\n") == 1 and "no passage has the id '5' (1 passages" in err


def test_pipe_into_head_is_quiet(tmp_path):
    # More than a pipe buffer (64 KiB) of lines, so the writer meets the pipe that head closed.
    n = 600
    texts = [f"Passage {j} about Ed Wood. " + "x" * 400 for j in range(n)]
    idx = build_index([[("Ed Wood", "wrote", f"Book {j}")] for j in range(n)], passages=texts)
    path = tmp_path / "p.hippo"
    save_index(idx, path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    query = f'hipporag query "{path}" "Who is Ed Wood?" -k {n}'
    cmd = f'"{sys.executable}" -m pathfinding {query} | head -n 3; exit ${{PIPESTATUS[0]}}'
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, env=env)
    assert proc.stdout.startswith("question: Who is Ed Wood?") and proc.stdout.count("\n") == 3
    assert proc.stderr == "" and proc.returncode == 141


def test_existing_commands_still_registered(capsys):
    with pytest.raises(SystemExit):
        main(["realtext-bench", "--help"])
    assert "--builds" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["hipporag", "--help"])
    out = capsys.readouterr().out
    assert all(c in out for c in ("index", "query", "add", "delete", "eval", "info", "openie"))
    assert "bench" not in out  # the timings live under `pathfinding bench`
    old_and_new = [("hipporag bench-add", "bench add"), ("hipporag bench-query", "bench query")]
    for old, new in ((a.split(), b.split()) for a, b in old_and_new):
        with pytest.raises(SystemExit):
            main([*old, "--help"])
        old_help = capsys.readouterr().out
        with pytest.raises(SystemExit):
            main([*new, "--help"])
        assert capsys.readouterr().out.split("\n\n", 1)[1] == old_help.split("\n\n", 1)[1]  # past the usage


def test_add_keeps_the_encoder_unless_refit(files, capsys):
    idx, oie = str(files / "f.hippo"), str(files / "openie.json")
    argv = ["hipporag", "index", str(files / "c2.json"), "--openie", oie, "-o", idx, "--json"]
    code, out, _ = _run(capsys, argv)
    assert code == 0 and json.loads(out)["settings"]["fit_encoder"] is True
    built = load_index(idx)
    add = ["hipporag", "add", idx, "--corpus", str(files / "c1.json"), "--openie", oie]
    code, out, _ = _run(capsys, add)
    grown = load_index(idx)
    assert code == 0 and grown.n_passages == 36 and grown.settings["fit_encoder"] is False
    (_, grams, idf), (_, grams0, idf0) = grown.encoder.get_state(), built.encoder.get_state()
    assert grams == grams0 and np.array_equal(idf, idf0)  # the encoder did not change
    code, out, _ = _run(capsys, ["hipporag", "delete", idx, "0", "--refit"])
    refit = load_index(idx)
    assert code == 0 and refit.settings["fit_encoder"] is True
    assert refit.encoder.get_state()[1] != built.encoder.get_state()[1]  # refit on the new phrase set


TINY = [{"title": "B", "text": "B met C."}, {"title": "E", "text": "E saw F."}]


def _run_or_exit(capsys, argv):
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
        ("delete", ["delete", idx, "x"], "no passage has the id 'x'"),
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
        code, out, err = _run_or_exit(capsys, ["hipporag", *argv])
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
        code, _, err = _run_or_exit(capsys, argv)
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
        code, out, err = _run_or_exit(capsys, ["hipporag", "query", str(d / "t.hippo"), q, "--json"])
        assert code == 0 and err == "", err
        rec = json.loads(out)
        assert rec["passages"] or rec["message"] == NO_MATCH
    code, out, _ = _run_or_exit(capsys, ["hipporag", "query", str(d / "t.hippo"), "Who met C?", "--json"])
    assert json.loads(out)["passages"][0]["text"] == "B\nB met C."


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
        code, out, err = _run_or_exit(capsys, argv)
        assert code == 0 and NO_MATCH in out and "  1. [" not in out, (retriever, out)
        # stop words only: nothing to search for, which the command line refuses
        code, out, err = _run_or_exit(capsys, [*argv[:3], "the of and", *argv[4:]])
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
    code, _, err = _run_or_exit(capsys, argv)
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
    code, _, err = _run_or_exit(capsys, argv)
    assert code == 0 and "2 of 3 passages gave no triple:" in err
    assert "empty text (passage 1)" in err and "no named span" in err and "(passage 0)" in err


def test_add_skips_passages_already_in_the_index_unless_asked(d, capsys):
    """`index` keeps a corpus's duplicates (and counts them); `add` of passages the index already holds
    adds nothing unless --allow-duplicates, so that rerunning an add never doubles a passage."""
    (d / "dup.json").write_text(json.dumps([TINY[0], TINY[0]]))
    code, _, err = _run_or_exit(
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
    code, out, err = _run_or_exit(capsys, [*argv, "-o", str(d / "t2.hippo"), "--json"])
    assert code == 0 and "2 of 2 passages are already in t.hippo (same title and text) and were" in err
    assert json.loads(out) == {
        "index": str(d / "t2.hippo"), "added_ids": [], "duplicates_skipped": 2, "written": False
    }  # fmt: skip
    assert not (d / "t2.hippo").exists()
    code, out, err = _run_or_exit(capsys, [*argv, "-o", str(d / "t2.hippo"), "--json", "--allow-duplicates"])
    assert code == 0 and "added again as --allow-duplicates asks" in err
    assert json.loads(out)["added_ids"] == ["2", "3"]


def test_index_from_a_folder_and_one_question(built, capsys):
    code, out, _ = _run(
        capsys, ["hipporag", "query", str(built / "i.hippo"), "Where was Bela Lugosi born?", "-k", "1"]
    )
    assert code == 0 and "1. [" in out and "Bela Lugosi | Bela Lugosi was born in Lugos" in out


def test_many_questions_in_one_run(built, capsys, monkeypatch):
    import io

    idx = str(built / "i.hippo")
    questions = ["Who directed Plan 9 from Outer Space?", "Where is Burbank?", "the of and"]
    (built / "q.txt").write_text("\n".join(questions) + "\n\n")
    (built / "q.jsonl").write_text(
        "".join(json.dumps({"question": q, "id": i}) + "\n" for i, q in enumerate(questions))
    )
    singles = []
    for q in questions[:2]:
        code, out, _ = _run(capsys, ["hipporag", "query", idx, q, "-k", "2", "--json"])
        singles.append(json.loads(out))
    for source in ("q.txt", "q.jsonl", "-"):
        if source == "-":
            monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(questions)))
        code, out, err = _run(
            capsys,
            [
                "hipporag",
                "query",
                idx,
                "--questions",
                source if source == "-" else str(built / source),
                "-k",
                "2",
            ],
        )
        rows = [json.loads(line) for line in out.splitlines()]
        # the stop-word question is not searched, its line says why, and the run reports it
        assert code == 1 and len(rows) == 3, source
        assert "1 of 3 questions have no word to search for (question 3)" in err
        for i, (row, single) in enumerate(zip(rows, singles, strict=False)):
            assert row.pop("id", i) == i
            assert row == single, source
    assert rows[2]["passages"] == [] and "question 3 has only stop words" in rows[2]["message"]


@pytest.mark.parametrize(
    "q", ["Who directed Plan 9 from Outer Space?", "who directed plan 9 from outer space?"]
)
def test_query_retrievers(built, capsys, q):
    """Each --retriever is its library twin; v1 is the library's (experiments.realtext.V1): capitalised
    spans read as typed and the walk alone, so a lower-case question has no name for it."""
    from pathfinding.experiments.realtext import V1

    idx = str(built / "i.hippo")
    index = load_index(idx)
    bm = BM25Ranker(index.passages)
    hits = {
        "v1": HippoRetriever(index, **V1).retrieve(q, k=3),
        "default": HippoRetriever(index).retrieve(q, k=3),
    }
    code, out, _ = _run(capsys, ["hipporag", "query", idx, q, "--retriever", "v1", "--json"])
    assert json.loads(out)["entities"] == list(hits["v1"].entities)
    assert ("Outer Space" in hits["v1"].entities) == (not q.islower())  # v1 reads the question as typed
    want = {name: h.passages[h.scores > 0].tolist() for name, h in hits.items()}  # zeros are not listed
    want["bm25"] = [j for j in bm.rank(q, 3).tolist() if bm.scores(q)[j] > 0]
    assert all(want.values())
    for name, ids in want.items():
        code, out, _ = _run(capsys, ["hipporag", "query", idx, q, "-k", "3", "--retriever", name, "--json"])
        rec = json.loads(out)
        got = [p["id"] for p in rec["passages"]]
        assert code == 0 and rec["retriever"] == name and got == [index.passage_ids[j] for j in ids], name


def test_question_files_of_every_shape(tmp_path):
    musique = [
        {"id": "m1", "question": "Q1?", "paragraphs": [
            {"title": "Ed Wood", "paragraph_text": PASSAGES[0][1], "is_supporting": True},
            {"title": "Burbank", "paragraph_text": "other text", "is_supporting": False}]},
    ]  # fmt: skip
    hotpot = [
        {
            "_id": "h1",
            "question": "Q2?",
            "supporting_facts": [["Bela Lugosi", 0], ["Nobody", 1], ["Bela Lugosi", 2]],
        }
    ]
    simple = [{"question": "Q3?", "supporting": ["Burbank", "Ed Wood"]}]
    for name, data, shape in (
        ("m.json", musique, "musique"),
        ("h.json", hotpot, "hotpotqa/2wiki"),
        ("s.json", simple, "simple"),
    ):
        (tmp_path / name).write_text(json.dumps(data))
        qs, got = read_eval_questions(tmp_path / name)
        assert got == shape
    passages = [t + "\n" + x for t, x in PASSAGES]
    qs = [read_eval_questions(tmp_path / n)[0][0] for n in ("m.json", "h.json", "s.json")]
    gold, unmatched = match_supporting(qs, passages)
    assert [g.tolist() for g in gold] == [[0], [2], [0, 3]] and unmatched == {"Nobody": 1}
    (tmp_path / "x.json").write_text(json.dumps([{"question": "Q?", "answer": "a"}]))
    with pytest.raises(FormatError, match="has none of 'paragraphs'"):
        read_eval_questions(tmp_path / "x.json")


def test_eval_equals_the_library(built, capsys):
    idx = str(built / "i.hippo")
    rows = [
        ("Who directed Plan 9 from Outer Space?", ["Ed Wood", "Plan 9 from Outer Space"]),
        ("Where was the star of Plan 9 born?", ["Bela Lugosi", "Plan 9 from Outer Space"]),
        ("Which county is Burbank in?", ["Burbank"]),
        ("Who is Zed?", ["Zed"]),
    ]
    (built / "eval.jsonl").write_text(
        "".join(json.dumps({"question": q, "supporting": s}) + "\n" for q, s in rows)
    )
    code, out, err = _run(
        capsys,
        [
            "hipporag",
            "eval",
            str(built / "eval.jsonl"),
            "--index",
            idx,
            "-k",
            "1",
            "2",
            "--boot",
            "50",
            "--json",
        ],
    )
    res = json.loads(out)
    assert code == 0 and res["n_questions"] == 3 and res["unmatched_titles"] == {"Zed": 1}
    assert "1 supporting title" in err and "1 of 4 questions" in err
    index = load_index(idx)
    gold, _ = match_supporting(read_eval_questions(built / "eval.jsonl")[0][:3], index.passages)
    qs = [q for q, _ in rows[:3]]
    bm = BM25Ranker(index.passages)
    hits = [HippoRetriever(index).retrieve(q, k=2) for q in qs]
    runs = {
        "default": [h.passages[h.scores > 0] for h in hits],
        "bm25": [[j for j in bm.rank(q, 2) if bm.scores(q)[j] > 0] for q in qs],
    }
    for name, ranking in runs.items():
        for metric, fn in (("R", recall_at_k), ("AR", all_recall_at_k)):
            means = [row[0] for row in res["methods"][name][metric]]
            np.testing.assert_allclose(means, fn(ranking, gold, ks=(1, 2)).mean(axis=0))
    diff = res["differences"]["bm25"]["R"]
    np.testing.assert_allclose([d[0] for d in diff], np.subtract(*[
        [row[0] for row in res["methods"][n]["R"]] for n in ("default", "bm25")]))  # fmt: skip
    code, out, _ = _run(
        capsys, ["hipporag", "eval", str(built / "eval.jsonl"), "--index", idx, "--boot", "50"]
    )
    assert code == 0 and "default - bm25" in out and "R@k" in out and "AR@k" in out


def _choices(parser):
    return set(parser._subparsers._group_actions[0].choices)


def test_every_command_is_registered():
    full = build_parser()
    top = {"instance", "rank", "data", "findings", "realtext", "bench", "realtext-bench", "hipporag"}
    assert _choices(full) == top
    group = full._subparsers._group_actions[0].choices["hipporag"]
    engine = {"index", "query", "add", "delete", "sync", "eval", "openie", "info"}
    assert _choices(group) == engine | {"bench-add", "bench-query"}  # the old spellings still parse
    bench = full._subparsers._group_actions[0].choices["bench"]
    assert _choices(bench) == {"realtext", "add", "query"}


@pytest.mark.slow
def test_bench_query_runs_fresh_processes(built, capsys):
    code, out, _ = _run(capsys, ["hipporag", "bench-query", str(built / "i.hippo"), "--runs", "1", "--json"])
    res = json.loads(out)
    assert code == 0 and len(res["cold"]) == 1 and len(res["cached"]) == 1
    assert res["passes"] == (res["median_wall"] <= res["target"])
    assert not (built / "i.hippo.query-cache.tmp").exists() and res["cached"][0]["max_rss_mb"] > 0
    steps = res["steps"]
    assert res["walk"] in ("scipy", "compiled")
    assert set(steps) == {"python", "numpy_scipy", "imports", "compiled_walk"} and min(steps.values()) > 0


# --- weak links and shared titles, as the command line says them ---------------------------------


def test_query_says_which_entities_are_not_in_the_index(built, capsys):
    """"Angela" is nearest to "los angeles county" (a few shared trigrams), below the floor: the
    answer says so, with the node and cosine, --json carries every link with "kept", and
    --min-link-cosine 0 links it again; "Zorro" shares nothing with any node."""
    from pathfinding.hipporag.retrieval.linking import MIN_LINK_COSINE

    index = str(built / "i.hippo")
    ask = ["hipporag", "query", index, "Where did Angela and Zorro meet Bela Lugosi?", "-k", "2"]
    code, out, _ = _run(capsys, ask + ["--json"])
    rec = json.loads(out)
    assert code == 0 and rec["min_link_cosine"] == MIN_LINK_COSINE
    links = {lk["entity"]: lk for lk in rec["links"]}
    assert links["Angela"]["phrase"] == "los angeles county" and not links["Angela"]["kept"]
    assert 0 < links["Angela"]["cosine"] < MIN_LINK_COSINE
    assert links["Zorro"] == {"entity": "Zorro", "node": None, "phrase": None, "cosine": 0.0, "kept": False}
    assert links["Bela Lugosi"]["kept"] and links["Bela Lugosi"]["cosine"] == 1.0
    assert rec["not_in_index"] == ["Angela", "Zorro"] and rec["unlinked"] == ["Zorro"]
    code, out, _ = _run(capsys, ask)
    assert "'Angela' is not in the index: its nearest node 'los angeles county' has cosine" in out
    assert f"below the floor {MIN_LINK_COSINE:g} (--min-link-cosine)" in out
    assert "not in the index (no node has a positive cosine with it): Zorro" in out
    code, out, _ = _run(capsys, ask + ["--json", "--min-link-cosine", "0"])
    assert code == 0 and {lk["entity"]: lk["kept"] for lk in json.loads(out)["links"]}["Angela"]


@pytest.mark.parametrize("value", ["2", "-0.1", "nan", "x"])
def test_min_link_cosine_must_be_a_number_in_the_unit_interval(built, capsys, value):
    with pytest.raises(SystemExit) as exc:
        main(["hipporag", "query", str(built / "i.hippo"), "Who?", "--min-link-cosine", value])
    assert exc.value.code == 2
    assert f"expected a number in [0, 1], got {value!r}" in capsys.readouterr().err


def test_eval_tells_passages_with_one_title_apart_by_their_text(tmp_path, capsys):
    """Three passages titled "Lugosi": with only titles every one is supporting (AR@1 = 0 even when
    the right one ranks first) and stderr names the shared title; with its text, only one is."""
    corpus = [
        {"title": "Lugosi", "text": "Bela Lugosi was born in Lugos, in the Kingdom of Hungary."},
        {"title": "Lugosi", "text": "Lugosi is a surname."},
        {"title": "Lugosi", "text": "Lugosi is also a village."},
        {"title": "Burbank", "text": "Burbank is a city in Los Angeles County."},
    ]
    (tmp_path / "c.json").write_text(json.dumps(corpus))
    index = str(tmp_path / "i.hippo")
    build = ["hipporag", "index", str(tmp_path / "c.json"), "--extractor", "cooccurrence", "-o", index]
    assert main(build) == 0
    capsys.readouterr()
    q = "Where was Bela Lugosi born, in which kingdom?"
    for name, supporting in (("t.jsonl", ["Lugosi"]), ("x.jsonl", [corpus[0]])):
        (tmp_path / name).write_text(json.dumps({"question": q, "supporting": supporting}) + "\n")
    argv = ["hipporag", "eval", "--index", index, "-k", "1", "--boot", "10", "--json"]
    argv += ["--retriever", "default"]
    code, out, err = _run(capsys, argv[:2] + [str(tmp_path / "t.jsonl")] + argv[2:])
    assert code == 0 and json.loads(out)["methods"]["default"]["AR"][0][0] == 0.0
    assert json.loads(out)["shared_titles"] == {"Lugosi": 3} and "'Lugosi' x 3" in err
    code, out, err = _run(capsys, argv[:2] + [str(tmp_path / "x.jsonl")] + argv[2:])
    assert code == 0 and json.loads(out)["methods"]["default"]["AR"][0][0] == 1.0
    assert json.loads(out)["shared_titles"] == {} and "shared" not in err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--entity", " "], "--entity needs a name, got ' '"),
        (["--retriever", "bm25", "--min-link-cosine", "0.5"], "--retriever bm25 has none"),
    ],
)
def test_query_arguments_that_mean_nothing_are_refused(built, capsys, extra, message):
    code, _, err = _run(capsys, ["hipporag", "query", str(built / "i.hippo"), "Who was Ed Wood?", *extra])
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_a_question_line_whose_question_is_not_text_says_so(built, capsys, tmp_path):
    (tmp_path / "q.jsonl").write_text('{"question": 5}\n')
    argv = ["hipporag", "query", str(built / "i.hippo"), "--questions", str(tmp_path / "q.jsonl")]
    code, _, err = _run(capsys, argv)
    assert code == 2 and 'line 1: "question" must be a string, got int 5' in err


def test_a_json_lines_corpus_keeps_its_ids_through_index_delete_and_json(tmp_path, capsys):
    """The ids a corpus gives are the ids info, query --json and delete use, and a delete of another
    passage moves none of them; an id the index lacks, or one it already has, is one line."""
    given = ["ed-wood", "plan-9", "bela", "burbank"]
    lines = [json.dumps({"id": i, "title": t, "text": x}) for i, (t, x) in zip(given, PASSAGES, strict=True)]
    (tmp_path / "c.jsonl").write_text("\n".join(lines) + "\n")
    idx = str(tmp_path / "i.hippo")
    code, _, _ = _run(capsys, ["hipporag", "index", str(tmp_path / "c.jsonl"), "--extractor", "cooccurrence",
                               "-o", idx])  # fmt: skip
    assert code == 0

    def listed():
        _, out, _ = _run(capsys, ["hipporag", "info", idx, "--passages", "--json"])
        return [p["id"] for p in json.loads(out)["passages"]]

    def top(question):
        _, out, _ = _run(capsys, ["hipporag", "query", idx, question, "-k", "1", "--json"])
        return json.loads(out)["passages"][0]["id"]

    assert listed() == given and top("Where was Bela Lugosi born?") == "bela"
    code, out, _ = _run(capsys, ["hipporag", "delete", idx, "plan-9"])
    assert code == 0 and "deleted 1 passages (plan-9); the others keep their ids" in out
    assert listed() == ["ed-wood", "bela", "burbank"] and top("Where was Bela Lugosi born?") == "bela"
    code, _, err = _run(capsys, ["hipporag", "delete", idx, "plan-9"])
    assert code == 2 and err.count("\n") == 1 and "no passage has the id 'plan-9'" in err
    again = {"id": "bela", "title": "Bela Lugosi", "text": "Bela Lugosi played Dracula in Hollywood."}
    (tmp_path / "more.jsonl").write_text(json.dumps(again) + "\n")
    code, _, err = _run(capsys, ["hipporag", "add", idx, "--corpus", str(tmp_path / "more.jsonl"),
                                 "--extractor", "cooccurrence"])  # fmt: skip
    assert code == 2 and err.count("\n") == 1 and "passage id 'bela' is already in the index" in err
    twice = lines + [json.dumps({"id": "bela", "title": "Lugos", "text": "Lugos is a town in Hungary."})]
    (tmp_path / "twice.jsonl").write_text("\n".join(twice) + "\n")
    code, _, err = _run(capsys, ["hipporag", "index", str(tmp_path / "twice.jsonl"), "--extractor",
                                 "cooccurrence", "-o", str(tmp_path / "t.hippo")])  # fmt: skip
    assert code == 2 and err.strip().endswith("passage id 'bela' is given to 2 passages (positions 2 and 4); "
                                              "an id names one passage")  # fmt: skip


COLOURS = ["Amber", "Basalt", "Cobalt", "Dune", "Ember", "Fjord", "Garnet", "Harbor", "Indigo", "Juniper"]
PARTS = ["Valve", "Pump", "Relay", "Gasket", "Rotor", "Sensor"]
TOOLS = ["Kestrel Wrench", "Lumen Gauge", "Marlin Probe", "Nimbus Meter", "Osprey Driver", "Pelican Clamp"]


def _chapter(i: int, name: str, long: bool = False) -> str:
    tool, other = TOOLS[i % len(TOOLS)], TOOLS[(i + 1) % len(TOOLS)]
    code = f"E-{400 + i}"
    install = (
        f"Mount the {name} on bracket {i} of the Orbit frame before the first start. The {name} ships with "
        f"two bolts; tighten them with the {other} until it clicks. "
    )
    calibrate = (
        f"Calibrate the {name} with the {tool} at {200 + 3 * i} kelvin. Hold the {tool} against the "
        f"{name} for {10 + i} seconds and read the value it shows. "
    )
    trouble = (
        f"Error {code} means the {name} lost pressure. Replace its seal and restart the Orbit controller. "
        f"If {code} returns, call the service desk in Tromsø. "
    )
    reps = 20 if long else 5
    return (
        f"## The {name}\n\nThe {name} is part {i} of the Orbit machine.\n\n"
        f"### Installing\n{install * reps}\n\n{install * reps}\n\n"
        f"### Calibrating\n{calibrate * reps}\n\n"
        f"### Troubleshooting\n{trouble * reps}\n"
    )


def test_a_200_kb_manual_is_split_with_heading_paths_and_a_question_finds_its_section(tmp_path, capsys):
    """A manual written for this test: 60 chapters, one of them longer than a passage may be."""
    from pathfinding.hipporag.io.splitting import DEFAULT_MAX_CHARS

    names = [f"{c} {p}" for c in COLOURS for p in PARTS]
    manual = "# Orbit Manual\n\nThis manual covers the Orbit machine.\n\n" + "\n".join(
        _chapter(i, name, long=i == 0) for i, name in enumerate(names)
    )
    assert len(manual.encode()) > 200_000
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "orbit.md").write_text(manual)
    idx = str(tmp_path / "i.hippo")
    code, _, err = _run(capsys, ["hipporag", "index", str(docs), "--extractor", "cooccurrence", "-o", idx])
    assert code == 0, err
    _, out, _ = _run(capsys, ["hipporag", "info", idx, "--passages", "--json"])
    listed = json.loads(out)["passages"]
    index = load_index(idx)
    assert all(len(p.partition("\n")[2]) <= DEFAULT_MAX_CHARS for p in index.passages)
    by_id = {p["id"]: p for p in listed}
    cobalt = by_id["orbit.md#orbit-manual/the-cobalt-relay"]
    assert cobalt["title"] == "orbit > Orbit Manual > The Cobalt Relay"
    # the long chapter is cut at its sections, and its longest section at its paragraphs
    long = [p["id"] for p in listed if p["id"].startswith("orbit.md#orbit-manual/the-amber-valve")]
    assert long == [
        "orbit.md#orbit-manual/the-amber-valve",
        "orbit.md#orbit-manual/the-amber-valve/installing",
        "orbit.md#orbit-manual/the-amber-valve/installing:2",
        "orbit.md#orbit-manual/the-amber-valve/calibrating",
        "orbit.md#orbit-manual/the-amber-valve/troubleshooting",
    ]
    assert by_id[long[3]]["source"]["headings"] == ["Orbit Manual", "The Amber Valve", "Calibrating"]
    src = by_id[long[4]]["source"]
    assert manual[src["start"] : src["end"]].startswith("Error E-400 means the Amber Valve lost pressure.")
    asked = {
        "How do I calibrate the Cobalt Relay?": "orbit.md#orbit-manual/the-cobalt-relay",
        "What does error E-400 of the Amber Valve mean?": long[4],
        "At what temperature is the Amber Valve calibrated with the Kestrel Wrench?": long[3],
        "Which tool tightens the bolts of the Juniper Sensor?": "orbit.md#orbit-manual/the-juniper-sensor",
        "Where does the Fjord Gasket mount?": "orbit.md#orbit-manual/the-fjord-gasket",
    }
    for question, want in asked.items():
        _, out, _ = _run(capsys, ["hipporag", "query", idx, question, "-k", "1", "--json"])
        assert json.loads(out)["passages"][0]["id"] == want, question
    # eval names the supporting passages by id
    lines = [json.dumps({"question": q, "supporting": [{"id": i}]}) for q, i in asked.items()]
    (tmp_path / "q.jsonl").write_text("\n".join(lines) + "\n")
    argv = ["hipporag", "eval", str(tmp_path / "q.jsonl"), "--index", idx, "-k", "1", "--json"]
    code, out, _ = _run(capsys, argv)
    res = json.loads(out)
    assert code == 0 and res["n_questions"] == 5 and res["methods"]["default"]["R"][0][0] == 1.0
