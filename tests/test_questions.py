"""Your own question files, in every shape people have (``io.questions``)."""

import gzip
import json

import pytest

from pathfinding.errors import FormatError
from pathfinding.hipporag.io.questions import EvalQuestion, read_eval_questions


def _write(tmp_path, name, obj, *, gz=False):
    path = tmp_path / name
    raw = (obj if isinstance(obj, str) else json.dumps(obj)).encode()
    path.write_bytes(gzip.compress(raw, mtime=0) if gz else raw)
    return path


def test_eval_questions_from_json_lines_a_single_object_or_a_list(tmp_path):
    lines = (
        '{"_id": "a", "id": "b", "question": "Q1?", "supporting": ["T", "U", "T"]}\n\n'
        '{"id": 5, "question": "Q2?", "supporting": []}\n'
    )
    qs, shape = read_eval_questions(_write(tmp_path, "q.jsonl", lines))
    assert shape == "simple"
    assert qs == [EvalQuestion("a", "Q1?", ("T", "U")), EvalQuestion("5", "Q2?", ())]
    one, _ = read_eval_questions(_write(tmp_path, "one.json", {"question": "Q?", "supporting": ["T"]}))
    assert one == [EvalQuestion("0", "Q?", ("T",))]
    many, _ = read_eval_questions(_write(tmp_path, "l.json", [{"question": "Q?", "supporting": []}] * 2))
    assert [q.id for q in many] == ["0", "1"]


def test_eval_questions_in_the_musique_and_hotpotqa_shapes(tmp_path):
    mus = [{"question": "Q?", "paragraphs": [
        {"title": "A", "paragraph_text": "a", "is_supporting": True},
        {"title": "B", "text": "b", "is_supporting": True},
        {"title": "C", "is_supporting": False},
        {"title": "A", "paragraph_text": "a", "is_supporting": True}]}]  # fmt: skip
    qs, shape = read_eval_questions(_write(tmp_path, "m.json", mus))
    assert shape == "musique" and qs == [EvalQuestion("0", "Q?", ("A", "B"), ("A\na", "B\nb"))]
    hot = [{"question": "Q?", "supporting_facts": [["A", 0], "B", ["A", 3]]}]
    qs, shape = read_eval_questions(_write(tmp_path, "h.json", hot))
    assert shape == "hotpotqa/2wiki" and qs == [EvalQuestion("0", "Q?", ("A", "B"))]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", r"q.json: no questions"),
        ("[]", r"q.json: no questions"),
        ("3", r"q.json: expected a JSON list of questions or JSON lines, got int"),
        ("[3]", r"q.json: \[0\] must be a JSON object, got int"),
        ('{"question": "Q?"}\n{bad\n', r"q.json: neither JSON nor JSON lines \(line 2: "),
        (
            '[{"question": "Q?", "answer": 1}]',
            r"q.json: \[0\] has none of 'paragraphs' \(MuSiQue\).*keys: \['answer', 'question'\]",
        ),
        (
            '[{"question": "Q?", "supporting_facts": [[]]}]',
            r"q.json: \[0\]\.supporting_facts\[0\] must be \[title, sentence\], got \[\]",
        ),
        (
            '[{"question": "Q?", "supporting_facts": [[1, 0]]}]',
            r"supporting_facts\[0\] must be \[title, sentence\], got \[1, 0\]",
        ),
        (
            '[{"question": "Q?", "supporting": ["A", 2]}]',
            r"q.json: \[0\]\.supporting\[1\] must be a title or \{title, text\}, got 2",
        ),
        (
            '[{"question": "Q?", "supporting": []}, {"question": 3, "supporting": []}]',
            r"q.json: \[1\]\['question'\] must be str",
        ),
    ],
)
def test_eval_question_errors_name_the_record(tmp_path, content, message):
    with pytest.raises(FormatError, match=message):
        read_eval_questions(_write(tmp_path, "q.json", content))


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "q.jsonl",
            '{"question": "Q?", "supporting": []}\n\n{"question": 3, "supporting": []}\n',
            r"q.jsonl: line 3\['question'\] must be str, got int",  # the file's line, blank lines counted
        ),
        ("m.json", [{"question": "Q?", "paragraphs": 3}], r"m.json: \[0\]\['paragraphs'\] must be list"),
        (
            "m.json",
            [
                {
                    "question": "Q?",
                    "paragraphs": [{"title": "A", "text": "a", "is_supporting": True}, {"title": "B"}],
                }
            ],
            r"m.json: \[0\]\.paragraphs\[1\] has no key 'is_supporting'",
        ),
        (
            "m.json",
            [{"question": "Q?", "paragraphs": [{"text": "a", "is_supporting": True}]}],
            r"m.json: \[0\]\.paragraphs\[0\] has no key 'title'",
        ),
        (
            "m.json",
            [{"question": "Q?", "paragraphs": [{"title": "A", "is_supporting": True}]}],
            r"m.json: \[0\]\.paragraphs\[0\] has no key 'text'",
        ),
        (
            "h.json",
            [{"question": "Q?", "supporting_facts": 3}],
            r"h.json: \[0\]\['supporting_facts'\] must be list",
        ),
        ("s.json", [{"question": "Q?", "supporting": 3}], r"s.json: \[0\]\['supporting'\] must be list"),
    ],
)
def test_eval_question_errors_name_the_file_and_the_place(tmp_path, name, content, message):
    """Every shape's missing or mistyped field is named by file, record (or JSON line) and field."""
    with pytest.raises(FormatError, match=message):
        read_eval_questions(_write(tmp_path, name, content))


def test_eval_question_files_give_the_text_of_a_supporting_title(tmp_path):
    hot = [{"question": "Q?", "supporting_facts": [["A", 0], ["B", 1]],
            "context": [["A", ["the ", "river."]], ["B", ["b1.", "b2."]], ["C", ["c."]]]}]  # fmt: skip
    qs, _ = read_eval_questions(_write(tmp_path, "h.json", hot))
    assert qs == [EvalQuestion("0", "Q?", ("A", "B"), ("A\nthe river.", "B\nb1.b2."))]
    simple = {"question": "Q?", "supporting": [{"title": "A", "text": "the river."}, "B"]}
    qs, _ = read_eval_questions(_write(tmp_path, "s.json", simple))
    assert qs == [EvalQuestion("0", "Q?", ("A", "B"), ("A\nthe river.",))]
    with pytest.raises(FormatError, match=r"s2.json: \[0\]\.supporting\[0\] has no key 'text'"):
        read_eval_questions(_write(tmp_path, "s2.json", [{"question": "Q?", "supporting": [{"title": "A"}]}]))


def test_a_supporting_passage_named_by_its_id(tmp_path):
    rec = {"question": "Q?", "supporting": [{"id": "manual.md#install"}, "Title", {"id": 7}]}
    (q,), shape = read_eval_questions(_write(tmp_path, "q.jsonl", rec))
    assert shape == "simple" and q.ids == ("manual.md#install", "7") and q.titles == ("Title",)
