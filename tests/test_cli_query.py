"""``pathfinding hipporag query`` and ``eval`` (pathfinding.cli.query): the question checks, the
question files, the retriever each name stands for, and what a record of an answer holds. The
command end to end against the library is in test_cli_hipporag.py."""

import io
import json

import numpy as np
import pytest

from pathfinding.cli import main
from pathfinding.cli.query import RETRIEVERS, Answerer, _question_lines, check_question
from pathfinding.errors import InvalidValueError
from pathfinding.hipporag.index.build import build_index
from pathfinding.hipporag.index.persistence import load_index, save_index
from pathfinding.hipporag.retrieval.lexical import BM25Ranker
from pathfinding.hipporag.retrieval.oneshot import OneShotRetriever
from pathfinding.hipporag.retrieval.retrieve import NO_MATCH, HippoRetriever


@pytest.fixture(scope="module")
def index(built):
    return load_index(built / "i.hippo")


def _run(capsys, argv):
    code = main(["hipporag", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# --- a question worth searching ----------------------------------------------------------------------


def test_a_question_needs_a_word_that_is_not_a_stop_word():
    assert check_question("Who directed Plan 9?") == "Who directed Plan 9?"
    assert check_question("9") == "9"  # a number is something to look for
    with pytest.raises(
        InvalidValueError, match=r"^the question is empty: '  \?! ' has no word to search for$"
    ):
        check_question("  ?! ")
    with pytest.raises(
        InvalidValueError, match=r"^question 4 has only stop words \('What IS the'\): name what"
    ):
        check_question("What IS the", "question 4")  # stop words in any case


# --- question files ---------------------------------------------------------------------------------


def test_a_question_file_holds_plain_lines_or_json_lines(tmp_path):
    f = tmp_path / "q.txt"
    f.write_text('Who directed Plan 9?\n\n  {"question": "Where is Burbank?", "id": 7}\n  Where?  \n')
    assert _question_lines(str(f)) == [
        {"question": "Who directed Plan 9?"},
        {"question": "Where is Burbank?", "id": 7},
        {"question": "Where?"},
    ]


def test_questions_from_stdin(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("one?\ntwo?"))
    assert _question_lines("-") == [{"question": "one?"}, {"question": "two?"}]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('ok?\n{"question": "x"\n', r"q.txt: line 2 starts like JSON but is not \("),
        ('{"q": "x", "id": 1}\n', r'q.txt: line 1 has no "question" \(keys: \[\'id\', \'q\'\]\)'),
        ('{"question": 3}\n', r'q.txt: line 1: "question" must be a string, got int 3'),
        ("\n  \n", r'q.txt: no question \(one per line, or JSON lines with "question"\)'),
    ],
)
def test_a_bad_question_file_is_named_with_its_line(tmp_path, text, message):
    (tmp_path / "q.txt").write_text(text)
    with pytest.raises(InvalidValueError, match=message):
        _question_lines(str(tmp_path / "q.txt"))


# --- the retrievers ---------------------------------------------------------------------------------


def test_each_name_is_its_retriever(index):
    assert RETRIEVERS == ("default", "bm25", "v1")
    assert isinstance(Answerer(index, "default", one_shot=True).retriever, OneShotRetriever)
    assert type(Answerer(index, "default").retriever) is HippoRetriever  # eval keeps the compiled walk
    v1 = Answerer(index, "v1", one_shot=True).retriever
    assert type(v1) is HippoRetriever and (v1.facts, v1.passage_weight, v1.guess_weight) == (0, 0.0, 1.0)
    assert Answerer(index, "default").retriever.facts > 0
    bm25 = Answerer(index, "bm25")
    assert isinstance(bm25.bm25, BM25Ranker) and not hasattr(bm25, "retriever")


def test_bm25_needs_texts_and_lists_only_passages_that_share_a_word(index, tmp_path):
    bare = build_index([[("Ed Wood", "directed", "Plan 9")]])
    with pytest.raises(
        InvalidValueError, match="--retriever bm25 needs passage texts, and this index has none"
    ):
        Answerer(bare, "bm25")
    bm25 = Answerer(index, "bm25")
    ids, scores, hit, why = bm25.answer("Burbank", 4)
    assert hit is None and why is None  # no walk, and no explanation unless asked
    assert ids.size == 2 and np.all(scores > 0)  # two passages name Burbank; no zeros
    assert np.all(np.diff(scores) <= 0)  # best first


def test_a_passage_the_walk_never_reaches_is_not_listed():
    """Two passages with nothing in common: a walk from Plan 9 gives the other passage 0, which
    is no evidence, so it is not listed (for every retriever alike)."""
    two = build_index(
        [[("Ed Wood", "directed", "Plan 9")], [("Bela Lugosi", "born in", "Lugos")]],
        passages=["Ed Wood\nEd Wood directed Plan 9.", "Bela Lugosi\nBela Lugosi was born in Lugos."],
    )
    for one_shot in (False, True):
        ids, scores, hit, why = Answerer(two, "default", one_shot=one_shot).answer("Who directed Plan 9?", 2)
        assert ids.tolist() == [0] and scores[0] > 0 and why is None  # none unless asked
        assert hit.passages.tolist() == [0, 1] and hit.scores[1] == 0  # what was left out
    assert Answerer(two, "default").rank("Who directed Plan 9?", 2).tolist() == [0]


def test_a_record_says_what_was_linked_and_what_was_not(index):
    rec = Answerer(index, "default", one_shot=True).record("Did Zorblax direct Plan 9?", 2)
    assert rec["retriever"] == "default" and rec["question"] == "Did Zorblax direct Plan 9?"
    assert set(rec) >= {"entities", "links", "unlinked", "not_in_index", "walk_weight", "fell_back", "walk"}
    kept = [lk for lk in rec["links"] if lk["kept"]]
    assert all(index.phrases[lk["node"]] == lk["phrase"] for lk in kept)
    assert all(lk["entity"] in rec["not_in_index"] for lk in rec["links"] if not lk["kept"])
    assert [p["rank"] for p in rec["passages"]] == list(range(1, len(rec["passages"]) + 1))
    assert all(p["text"] == index.passages[list(index.passage_ids).index(p["id"])] for p in rec["passages"])
    nothing = Answerer(index, "bm25").record("xyzzy", 3)
    assert nothing["passages"] == [] and nothing["message"] == NO_MATCH and "entities" not in nothing


# --- the commands -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["who?", "--questions", "q.txt"],
            'give one question, or --questions FILE (or "-" for stdin), not both',
        ),
        ([], "give one question, or --questions FILE"),
        (["who?", "--retriever", "bm25", "--entity", "Ed Wood"], "--retriever bm25 has none"),
        (["who?", "--retriever", "bm25", "--min-link-cosine", "0.5"], "--retriever bm25 has none"),
        (["who?", "--entity", "  "], "--entity needs a name, got '  '"),
        (["the of and"], "has only stop words"),
        (
            ["who?", "--encoder", "http://127.0.0.1:9/v1"],
            "was built with the offline character-trigram encoder",
        ),
    ],
)
def test_query_arguments_are_checked_in_one_line(built, capsys, argv, message):
    code, out, err = _run(capsys, ["query", str(built / "i.hippo"), *argv])
    assert code == 2 and out == "" and message in err and len(err.splitlines()) == 1


def test_a_batch_answers_every_question_and_keeps_each_lines_fields(built, capsys, tmp_path):
    (tmp_path / "q.jsonl").write_text(
        '{"question": "Where is Burbank?", "id": "a"}\n{"question": "what is the", "id": "b"}\n'
    )
    code, out, err = _run(capsys, ["query", str(built / "i.hippo"), "--questions", str(tmp_path / "q.jsonl")])
    first, second = (json.loads(line) for line in out.splitlines())
    assert code == 1 and first["id"] == "a" and first["passages"]
    assert (
        second["id"] == "b"
        and second["passages"] == []
        and "question 2 has only stop words" in second["message"]
    )
    assert "1 of 2 questions have no word to search for (question 2)" in err


def test_eval_needs_texts_and_a_supporting_passage(built, capsys, tmp_path):
    q = tmp_path / "q.jsonl"
    q.write_text('{"question": "Who is Zed?", "supporting": ["Zed"]}\n')
    code, _, err = _run(capsys, ["eval", str(q), "--index", str(built / "i.hippo"), "--boot", "10"])
    assert code == 2 and "no question of" in err and "has a supporting passage in" in err
    bare = tmp_path / "bare.hippo"
    save_index(build_index([[("Ed Wood", "directed", "Plan 9")]]), bare)
    code, _, err = _run(capsys, ["eval", str(q), "--index", str(bare)])
    assert code == 2 and "has no passage texts, so no title to match supporting passages to" in err


def test_a_first_query_says_on_a_terminal_why_it_waits(tmp_path, built, capsys, monkeypatch):
    """The first query of an index reads it whole and writes its cache (18 s at 100,000 passages):
    on a terminal it says so once; in a pipe or the next time it says nothing."""
    idx = tmp_path / "i.hippo"
    idx.write_bytes((built / "i.hippo").read_bytes())
    code, _, err = _run(capsys, ["query", str(idx), "Who directed Plan 9?"])
    assert code == 0 and "query cache" not in err  # stderr is not a terminal here
    (tmp_path / "i.hippo.query-cache").unlink()
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    code, _, err = _run(capsys, ["query", str(idx), "Who directed Plan 9?"])
    assert code == 0 and err.startswith(f"{idx}: no current query cache; reading the index whole (")
    assert f"into {idx}.query-cache, which later queries read" in err
    code, _, err = _run(capsys, ["query", str(idx), "Who directed Plan 9?"])
    assert code == 0 and "query cache" not in err


def test_an_explained_path_marks_its_passages_so_a_title_that_is_a_phrase_reads_as_a_step():
    """Found on a stranger's folder: the title "doc2" is also a phrase, and its path read
    "doc2 -[mentioned 5x]- doc2", like a loop. A passage end is bracketed, as in the ranking lines;
    a path through a passage (the hybrid walk) leaves it again to a phrase."""
    from pathfinding.cli.query import _path_text

    def step(a, b, kind, label):
        return {"from": a, "to": b, "kind": kind, "label": label, "probability": 0.5}

    assert _path_text([step("doc2", "doc2", "passage", "mentioned 5x")]) == "doc2 -[mentioned 5x]- [doc2]"
    steps = [
        step("ada", "Meeting", "passage", "mentioned 1x"), step("Meeting", "bob", "passage", "mentioned 2x"),
        step("bob", "bobby", "synonymy", "cosine 0.90"), step("bobby", "Bob", "passage", "mentioned 1x"),
    ]  # fmt: skip
    assert _path_text(steps) == (
        "ada -[mentioned 1x]- [Meeting] -[mentioned 2x]- bob -[cosine 0.90]- bobby -[mentioned 1x]- [Bob]"
    )
