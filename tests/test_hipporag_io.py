"""Loaders: round-trips on hand-made files, counted flaws, and format errors that name the record."""

import pytest

from pathfinding.hipporag.datasets import fetch
from pathfinding.hipporag.io import (
    FormatError,
    Passage,
    check_alignment,
    load_corpus,
    load_openie,
    load_query_ner,
    load_questions,
)
from tests.test_engine_io import _write  # writes a JSON object (or text), gzipped if asked


def _doc(title, text, triples, ents=("A",)):
    return {
        "title": title,
        "text": text,
        "passage": title + "\n" + text,
        "extracted_entities": list(ents),
        "extracted_triples": triples,
    }


@pytest.mark.parametrize("gz", [False, True])
def test_openie_round_trip_and_counted_flaws(tmp_path, gz):
    docs = [
        _doc("A", "a", [["A", "is", "B"], ["A", "only two"], ["A", "x", "B", "extra"], ["Y", 1960, "Z"]]),
        _doc("B", "b", []),
        _doc("C", "c", [["C", None, "D"]], ents=("C", 7)),
    ]
    path = _write(tmp_path, "openie.json" + (".gz" if gz else ""), {"docs": docs}, gz=gz)
    out, report = load_openie(path)
    assert [p.triples for p in out] == [(("A", "is", "B"), ("Y", "1960", "Z")), (), ()]
    assert out[2].entities == ("C",)
    assert report.n_records == 3
    assert report.issues == {
        "triple_not_three": 2,
        "triple_number_coerced": 1,
        "passage_no_triples": 2,
        "triple_not_strings": 1,
        "entity_not_string": 1,
    }
    assert report.examples["triple_not_three"] == [
        "docs[0].extracted_triples[1]",
        "docs[0].extracted_triples[2]",
    ]
    text = report.summary()
    assert "triple_not_three: 2" in text and "passage_no_triples: 2" in text


def test_openie_alignment_counted(tmp_path):
    path = _write(
        tmp_path, "o.json", {"docs": [_doc("A", "a", [["A", "r", "B"]]), _doc("B", "b", [["B", "r", "C"]])]}
    )
    _, report = load_openie(path, corpus=[Passage("A", "a"), Passage("B", "different")])
    assert report.issues["misaligned_passage"] == 1
    assert report.examples["misaligned_passage"] == ["docs[1]"]


def test_check_alignment_lengths():
    a = [load_openie.__globals__["OpenIEPassage"]("T", "x", (), ())]
    rep = check_alignment(a, [])
    assert rep.issues == {"length_mismatch": 1, "misaligned_passage": 1}


@pytest.mark.parametrize(
    ("obj", "match"),
    [
        ([1, 2], r"o\.json: expected an object with a 'docs' list"),
        (
            {"docs": [{"title": "A", "text": "a", "extracted_entities": []}]},
            r"docs\[0\] has no key 'extracted_triples'",
        ),
        ({"docs": [_doc("A", "a", []), {"title": 3}]}, r"docs\[1\]\['title'\] must be str, got int"),
    ],
)
def test_openie_format_errors_name_file_and_record(tmp_path, obj, match):
    path = _write(tmp_path, "o.json", obj)
    with pytest.raises(FormatError, match=match):
        load_openie(path)


def test_not_json(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    with pytest.raises(FormatError, match="bad.json: not valid JSON"):
        load_corpus(path)


def test_corpus_round_trip_and_duplicates(tmp_path):
    path = _write(
        tmp_path,
        "c.json",
        [{"title": "A", "text": "a"}, {"title": "B", "text": "b"}, {"title": "A", "text": "a"}],
    )
    corpus, report = load_corpus(path)
    assert [p.key for p in corpus] == ["A\na", "B\nb", "A\na"]
    assert report.issues == {"duplicate_passage": 1}
    with pytest.raises(FormatError, match=r"c2.json: \[1\] has no key 'text'"):
        load_corpus(_write(tmp_path, "c2.json", [{"title": "A", "text": "a"}, {"title": "B"}]))
    with pytest.raises(FormatError, match="expected a JSON list of passages"):
        load_corpus(_write(tmp_path, "c3.json", {"title": "A"}))


def test_questions_both_paragraph_spellings(tmp_path):
    qs = [
        {
            "id": "q1",
            "question": "Q?",
            "answer": "X",
            "paragraphs": [
                {"title": "A", "paragraph_text": "a", "is_supporting": True},
                {"title": "B", "paragraph_text": "b", "is_supporting": False},
            ],
        },
        {"question": "R?", "paragraphs": [{"title": "C", "text": "c", "is_supporting": False}]},
    ]
    out, report = load_questions(_write(tmp_path, "q.json", qs))
    assert out[0].supporting == ("A\na",) and out[0].answer == ("X",)
    assert out[1].id == "1" and out[1].supporting == ()
    assert report.issues == {"no_supporting_paragraph": 1}
    qs[0]["paragraphs"][1]["is_supporting"] = "yes"
    with pytest.raises(FormatError, match=r"\[0\]\.paragraphs\[1\]\['is_supporting'\] must be bool"):
        load_questions(_write(tmp_path, "q2.json", qs))


def test_query_ner_released_rows():
    rows, report = load_query_ner(fetch("hotpotqa_query_ner"))
    assert len(rows) == 7405 and report.issues == {"no_entities": 2}  # two released rows have none
    assert rows[0].query == "Were Scott Derrickson and Ed Wood of the same nationality?"
    assert rows[0].entities == ("Scott Derrickson", "Ed Wood")
    assert rows[1].entities == ("Corliss Archer", "Kiss and Tell")


def test_query_ner_flaws_and_errors(tmp_path):
    path = tmp_path / "q.tsv"
    path.write_text(
        '\tquery\ttriples\n0\tA?\t"{""named_entities"": []}"\n1\tB?\t"{""named_entities"": [3, ""B""]}"\n'
    )
    rows, report = load_query_ner(path)
    assert [r.entities for r in rows] == [(), ("B",)]
    assert report.issues == {"no_entities": 1, "entity_not_string": 1}
    path.write_text('\tquery\ttriples\n0\tA?\t{"entities": []}\n')
    with pytest.raises(FormatError, match=r"q.tsv: row 1 'triples' must be"):
        load_query_ner(path)
    path.write_text("\tquery\tner\n")
    with pytest.raises(FormatError, match="header must have"):
        load_query_ner(path)
    path.write_text("\tquery\ttriples\n0\tA?\n")
    with pytest.raises(FormatError, match="row 1 has 2 cells, header has 3"):
        load_query_ner(path)
