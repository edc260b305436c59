"""The loaders on small hand-made files: what each shape gives, every flaw counted where it is, and
format errors that name the file, the record and what was expected; HippoRAG 2 OpenIE files and
damaged archives; the released MuSiQue files loaded and aligned.
"""

import gzip
import json
import unicodedata

import numpy as np
import pytest

from pathfinding.errors import FormatError, InvalidValueError
from pathfinding.hipporag.datasets import fetch
from pathfinding.hipporag.index.build import index_from_openie
from pathfinding.hipporag.io import (
    LoadReport,
    OpenIEPassage,
    Passage,
    check_alignment,
    load_corpus,
    load_openie,
    load_query_ner,
    load_questions,
    need,
    read_json,
    read_text,
)
from pathfinding.hipporag.io.formats import load_2wiki_questions, load_hotpotqa_questions
from pathfinding.hipporag.io.questions import (
    EvalQuestion,
    evaluate_retrievers,
    match_supporting,
    read_eval_questions,
)


def _write(tmp_path, name, obj, *, gz=False):
    path = tmp_path / name
    raw = (obj if isinstance(obj, str) else json.dumps(obj)).encode()
    path.write_bytes(gzip.compress(raw, mtime=0) if gz else raw)
    return path


# --- the report and the shared readers -------------------------------------------------------------


def test_a_report_counts_every_issue_and_keeps_three_examples():
    rep = LoadReport(source="/data/x/q.json", n_records=7)
    for i in range(5):
        rep.add("b_issue", f"[{i}]")
    rep.add("a_issue", "[9]")
    assert rep.issues == {"b_issue": 5, "a_issue": 1} and rep.n_issues == 6
    assert rep.examples == {"b_issue": ["[0]", "[1]", "[2]"], "a_issue": ["[9]"]}
    assert rep.summary() == "q.json: 7 records:\n  a_issue: 1 (e.g. [9])\n  b_issue: 5 (e.g. [0], [1], [2])"
    assert rep.to_dict() == {"source": "q.json", "n_records": 7, "issues": {"a_issue": 1, "b_issue": 5}}
    assert list(rep.to_dict()["issues"]) == ["a_issue", "b_issue"]
    assert LoadReport(source="/d/c.json", n_records=2).summary() == "c.json: 2 records, no issues"


def test_merging_reports_adds_counts_and_keeps_three_examples():
    rep = LoadReport(source="f", n_records=4)
    rep.add("both", "[0]")
    rep.add("both", "[1]")
    rep.add("mine", "[2]")
    other = LoadReport(source="g", n_records=9)
    for where in ["(a)", "(b)", "(c)"]:
        other.add("both", where)
    other.add("theirs", "(d)")
    rep.merge(other)
    assert rep.issues == {"both": 5, "mine": 1, "theirs": 1}
    assert rep.examples == {"both": ["[0]", "[1]", "(a)"], "mine": ["[2]"], "theirs": ["(d)"]}
    assert (rep.source, rep.n_records) == ("f", 4)
    assert other.issues == {"both": 3, "theirs": 1}  # the merged report is left as it was


def test_gzip_is_recognised_by_name_or_by_its_magic_bytes(tmp_path):
    (tmp_path / "plain.json").write_bytes(gzip.compress(b'{"a": 1}', mtime=0))
    assert read_json(tmp_path / "plain.json") == ({"a": 1}, str(tmp_path / "plain.json"))
    (tmp_path / "t.txt.gz").write_bytes(gzip.compress("Łódź".encode(), mtime=0))
    assert read_text(str(tmp_path / "t.txt.gz")) == ("Łódź", str(tmp_path / "t.txt.gz"))
    (tmp_path / "bad.gz").write_bytes(b"not gzip at all")
    with pytest.raises(FormatError, match=r"bad.gz: not a readable gzip file \(BadGzipFile: "):
        read_text(tmp_path / "bad.gz")
    (tmp_path / "latin.txt").write_bytes(b"ab\xe9cd")
    with pytest.raises(FormatError, match=r"latin.txt: not UTF-8 text \(byte 2: invalid continuation byte"):
        read_text(tmp_path / "latin.txt")
    (tmp_path / "x.json").write_text("{")
    with pytest.raises(FormatError, match=r"x.json: not valid JSON \(Expecting property name"):
        read_json(tmp_path / "x.json")


def test_a_packaged_file_is_read_through_its_read_bytes(tmp_path):
    # importlib.resources hands out Traversables, which are not os.PathLike; a zip member is one.
    import zipfile

    with zipfile.ZipFile(tmp_path / "pkg.zip", "w") as zf:
        zf.writestr("data/c.json", '[{"title": "Łódź", "text": "a city"}]')
        zf.writestr("data/c.json.gz", gzip.compress(b'{"a": 1}', mtime=0))
    member = zipfile.Path(tmp_path / "pkg.zip", "data/c.json")
    assert read_text(member) == ('[{"title": "Łódź", "text": "a city"}]', str(member))
    assert load_corpus(member)[0] == [Passage("Łódź", "a city")]
    assert read_json(zipfile.Path(tmp_path / "pkg.zip", "data/c.json.gz"))[0] == {"a": 1}


def test_need_names_the_record_the_key_and_the_types():
    assert need("f", "[0]", {"a": 3}, "a", (str, int)) == 3
    with pytest.raises(FormatError, match=r"^f: \[0\] must be a JSON object, got list$"):
        need("f", "[0]", [1], "a", str)
    with pytest.raises(FormatError, match=r"^f: \[0\] has no key 'a' \(keys: \['b', 'c'\]\)$"):
        need("f", "[0]", {"c": 1, "b": 2}, "a", str)
    with pytest.raises(FormatError, match=r"^f: \[0\]\['a'\] must be str/int, got float$"):
        need("f", "[0]", {"a": 1.5}, "a", (str, int))
    with pytest.raises(FormatError, match=r"^f: \[0\]\['a'\] must be list, got str$"):
        need("f", "[0]", {"a": "x"}, "a", list)


# --- OpenIE ---------------------------------------------------------------------------------------


def test_openie_flaws_are_counted_where_they_are(tmp_path):
    docs = [
        {
            "title": "A",
            "text": "a",
            "extracted_entities": ["Ed", 3, None],
            "extracted_triples": [
                ["Ed", "born", 1924],
                ["Ed", "r"],
                ["Ed", None, "x"],
                ["Ed", True, "x"],
                "abc",
            ],
        },
        {"title": "B", "text": "b", "extracted_entities": [], "extracted_triples": [["B", "is", "b"]]},
    ]
    out, rep = load_openie(_write(tmp_path, "o.json", {"docs": docs}))
    assert out[0] == OpenIEPassage("A", "a", ("Ed",), (("Ed", "born", "1924"),))
    assert out[1] == OpenIEPassage("B", "b", (), (("B", "is", "b"),))
    assert rep.n_records == 2
    assert rep.issues == {
        "entity_not_string": 2,
        "triple_number_coerced": 1,
        "triple_not_three": 2,
        "triple_not_strings": 2,
    }
    assert rep.examples["entity_not_string"] == [
        "docs[0].extracted_entities[1]",
        "docs[0].extracted_entities[2]",
    ]
    assert rep.examples["triple_not_three"] == [
        "docs[0].extracted_triples[1]",
        "docs[0].extracted_triples[4]",
    ]
    assert rep.examples["triple_not_strings"] == [
        "docs[0].extracted_triples[2]",
        "docs[0].extracted_triples[3]",
    ]
    assert rep.examples["triple_number_coerced"] == ["docs[0].extracted_triples[0]"]


def test_openie_without_triples_and_against_a_corpus(tmp_path):
    docs = [
        {"title": "A", "text": "a", "extracted_entities": ["A"], "extracted_triples": [["x", "y"]]},
        {"title": "B", "text": "b", "extracted_entities": [], "extracted_triples": [["B", "is", "b"]]},
    ]
    path = _write(tmp_path, "o.json", {"docs": docs})
    _, rep = load_openie(path, corpus=[Passage("A", "a"), Passage("B", "other"), Passage("C", "c")])
    assert rep.issues == {
        "triple_not_three": 1,
        "passage_no_triples": 1,
        "length_mismatch": 1,
        "misaligned_passage": 2,
    }
    assert rep.examples["passage_no_triples"] == ["docs[0]"]
    assert rep.examples["misaligned_passage"] == ["docs[1]", "docs[2]"]
    assert rep.examples["length_mismatch"] == ["openie has 2 passages, corpus 3"]
    _, clean = load_openie(path, corpus=[Passage("A", "a"), Passage("B", "b")])
    assert "misaligned_passage" not in clean.issues and "length_mismatch" not in clean.issues


def test_hipporag_2_records_split_the_passage_at_its_first_line(tmp_path):
    docs = [
        {"idx": "p0", "passage": "Ed Wood\nEd Wood was a director.\nHe was born in 1924.",
         "extracted_entities": ["Ed Wood"], "extracted_triples": [["Ed Wood", "born in", "1924"]]},
        {"idx": 1, "passage": "no title line", "extracted_entities": [],
         "extracted_triples": [["a", "b", "c"]]},
    ]  # fmt: skip
    out, rep = load_openie(_write(tmp_path, "v2.json", {"docs": docs}))
    assert (out[0].title, out[0].text) == ("Ed Wood", "Ed Wood was a director.\nHe was born in 1924.")
    assert (out[1].title, out[1].text) == ("", "no title line")
    assert rep.issues == {"passage_without_title_line": 1} and rep.examples["passage_without_title_line"] == [
        "docs[1]"
    ]
    docs[1]["idx"] = 1.5
    with pytest.raises(FormatError, match=r"v2b.json: docs\[1\]\['idx'\] must be str/int, got float"):
        load_openie(_write(tmp_path, "v2b.json", {"docs": docs}))


def test_a_v1_file_is_not_read_as_v2_when_its_first_record_has_a_title(tmp_path):
    docs = [
        {
            "title": "T",
            "text": "t",
            "idx": 0,
            "passage": "X\nY",
            "extracted_entities": [],
            "extracted_triples": [],
        }
    ]
    out, _ = load_openie(_write(tmp_path, "o.json", {"docs": docs}))
    assert (out[0].title, out[0].text) == ("T", "t")
    empty, rep = load_openie(_write(tmp_path, "e.json", {"docs": []}))
    assert empty == [] and rep.n_records == 0


@pytest.mark.parametrize(
    ("obj", "got"),
    [([1], "got list"), ({"doc": []}, r"got keys \['doc'\]"), ({"docs": {}}, r"got keys \['docs'\]")],
)
def test_an_openie_file_without_a_docs_list_is_named(tmp_path, obj, got):
    with pytest.raises(
        FormatError, match=r"o.json: expected an object with a 'docs' list \(HippoRAG OpenIE\), " + got
    ):
        load_openie(_write(tmp_path, "o.json", obj))


def test_alignment_compares_title_and_text_position_by_position():
    a = [OpenIEPassage("T", "x", (), ()), OpenIEPassage("U", "y", (), ())]
    assert check_alignment(a, [Passage("T", "x"), Passage("U", "y")]).issues == {}
    rep = check_alignment(a, [Passage("T", "x"), Passage("V", "y")])
    assert rep.issues == {"misaligned_passage": 1} and rep.examples["misaligned_passage"] == ["docs[1]"]
    rep = check_alignment(a[:1], [Passage("T", "z"), Passage("U", "y")])
    assert rep.issues == {"length_mismatch": 1, "misaligned_passage": 2} and rep.n_records == 2
    rep = check_alignment(a + a[:1], [Passage("T", "x"), Passage("U", "y")])  # one passage too many
    assert rep.issues == {"length_mismatch": 1, "misaligned_passage": 1} and rep.n_records == 3
    assert rep.examples == {
        "length_mismatch": ["openie has 3 passages, corpus 2"],
        "misaligned_passage": ["docs[2]"],
    }
    assert rep.source == "<alignment>"


# --- corpora --------------------------------------------------------------------------------------


def test_a_corpus_folder_counts_skipped_empty_and_duplicate_files(tmp_path):
    (tmp_path / "a.txt").write_text("\nsame text\n\n")
    (tmp_path / "a.md").write_text("same text")
    (tmp_path / "b.txt").write_text("\n")
    (tmp_path / "c.csv").write_text("x")
    (tmp_path / "d.txt").write_text("other")
    corpus, rep = load_corpus(tmp_path)
    assert [(p.title, p.text) for p in corpus] == [
        ("a", "same text"),
        ("a", "same text"),
        ("b", ""),
        ("d", "other"),
    ]
    assert rep.issues == {"skipped_file": 1, "empty_passage": 1, "duplicate_passage": 1}
    assert rep.examples == {
        "skipped_file": ["c.csv"],
        "empty_passage": ["b.txt"],
        "duplicate_passage": ["a.txt"],
    }
    assert rep.n_records == 4 and rep.source == str(tmp_path)
    corpus_str, _ = load_corpus(str(tmp_path))
    assert corpus_str == corpus


def test_corpus_json_lines_with_ids_and_titles(tmp_path):
    text = (
        '{"id": 7, "text": "seven"}\n\n{"title": "T", "text": "t"}\n{"id": "x", "title": "X", "text": "x"}\n'
    )
    corpus, rep = load_corpus(_write(tmp_path, "c.txt", text))
    # an id is the passage's id, never its title: a record with an id and no title has none
    assert corpus == [Passage("", "seven"), Passage("T", "t"), Passage("X", "x")]
    assert [p.doc_id for p in corpus] == ["7", None, "x"]
    assert rep.n_records == 3 and rep.issues == {"no_title": 1} and rep.examples["no_title"] == ["line 1"]
    with pytest.raises(FormatError, match=r"c2.txt: line 1\['id'\] must be str/int, got float"):
        load_corpus(_write(tmp_path, "c2.txt", '{"id": 1.5, "text": "a"}\n{"id": 2, "text": "b"}\n'))


def test_corpus_shapes_and_their_errors(tmp_path):
    corpus, rep = load_corpus(_write(tmp_path, "h.json", {"B": ["b1.", " b2."], "A": []}))
    assert corpus == [Passage("B", "b1. b2."), Passage("A", "")] and rep.n_records == 2
    with pytest.raises(FormatError, match=r"n.json: not valid JSON or JSON lines \("):
        load_corpus(_write(tmp_path, "n.json", "[1, 2"))
    with pytest.raises(FormatError, match=r"s.json: expected a JSON list of passages.*got int"):
        load_corpus(_write(tmp_path, "s.json", "3"))


# --- MuSiQue questions and query NER -----------------------------------------------------------------


def test_musique_questions_keep_ids_answers_and_every_supporting_paragraph(tmp_path):
    qs = [
        {"id": 11, "question": "Q?", "answer": ["X", 2], "paragraphs": [
            {"title": "A", "paragraph_text": "a", "is_supporting": True},
            {"title": "B", "text": "b", "is_supporting": True}]},
        {"question": "R?", "paragraphs": [{"title": "C", "text": "c", "is_supporting": True}]},
    ]  # fmt: skip
    out, rep = load_questions(_write(tmp_path, "q.json", qs))
    assert out[0].id == "11" and out[0].answer == ("X", "2") and out[0].supporting == ("A\na", "B\nb")
    assert out[1].id == "1" and out[1].answer == () and out[1].supporting == ("C\nc",)
    assert rep.n_records == 2 and rep.n_issues == 0
    with pytest.raises(FormatError, match=r"q2.json: expected a JSON list of questions, got dict"):
        load_questions(_write(tmp_path, "q2.json", {"question": "Q?"}))
    with pytest.raises(FormatError, match=r"q3.json: \[0\]\.paragraphs\[0\] has no key 'text'"):
        load_questions(_write(tmp_path, "q3.json", [{"question": "Q?", "paragraphs": [{"title": "A"}]}]))


def test_query_ner_reads_a_question_column_and_skips_blank_rows(tmp_path):
    path = tmp_path / "q.tsv"
    path.write_text(
        'question\ttriples\nWho?\t"{""named_entities"": [""Ed""]}"\n\n'
        'Where?\t"{""named_entities"": [""X""]}"\n'
    )
    rows, rep = load_query_ner(path)
    assert [(r.query, r.entities) for r in rows] == [("Who?", ("Ed",)), ("Where?", ("X",))]
    assert rep.n_records == 2 and rep.n_issues == 0 and rep.source == str(path)


def test_query_ner_flaws_are_counted_on_the_row_they_are_on(tmp_path):
    path = tmp_path / "q.tsv"
    path.write_text(
        'query\ttriples\nA?\t"{""named_entities"": [""Ed""]}"\n'
        'B?\t"{""named_entities"": [3, ""X"", null]}"\n'
        'C?\t"{""named_entities"": []}"\n'
        'D?\t"{""named_entities"": [[""Y""]]}"\n'
    )
    rows, rep = load_query_ner(path)
    assert [r.entities for r in rows] == [("Ed",), ("X",), (), ()]
    assert rep.issues == {"entity_not_string": 3, "no_entities": 2}
    assert rep.examples == {
        "entity_not_string": ["row 2", "row 2", "row 4"],
        "no_entities": ["row 3", "row 4"],
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", r"q.tsv: empty file, expected a TSV header with 'query' and 'triples'"),
        (
            "query\tentities\nA?\t[]\n",
            r"q.tsv: header must have a 'query' \(or 'question'\) and a 'triples' column, "
            r"got \['query', 'entities'\]",
        ),
        ("text\ttriples\nA?\t[]\n", r"header must have a 'query'"),
        (
            "query\ttriples\nA?\t{}\textra\n",
            r"q.tsv: row 1 has 3 cells, header has 2: \['A\?', '\{\}', 'extra'\]",
        ),
        ("query\ttriples\nA?\t{nope\n", r"q.tsv: row 1 'triples' is not JSON: '\{nope'"),
        ("query\ttriples\nA?\t[1]\n", r"q.tsv: row 1 'triples' must be"),
    ],
)
def test_query_ner_errors_name_the_row(tmp_path, text, message):
    path = tmp_path / "q.tsv"
    path.write_text(text)
    with pytest.raises(FormatError, match=message):
        load_query_ner(path)


# --- HotpotQA and 2WikiMultihopQA -------------------------------------------------------------------

CORPUS = [
    Passage("Ed Wood", "Ed Wood was a director."),
    Passage("Plan 9", "A film."),
    Passage("Ed Wood", "A film."),
]


def test_2wiki_facts_may_be_bare_titles_and_context_is_optional(tmp_path):
    qs = [
        {"_id": "w1", "id": "ignored", "question": "Q1?", "answer": ["a", 1],
         "supporting_facts": ["Plan 9", ["Plan 9", 0]]},
        {"id": "w2", "question": "Q2?", "supporting_facts": [["Ed Wood", 0]]},
        {"question": "Q3?", "supporting_facts": []},
    ]  # fmt: skip
    out, rep = load_2wiki_questions(_write(tmp_path, "w.json", qs), CORPUS)
    assert [q.id for q in out] == ["w1", "w2", "2"]
    assert out[0].supporting == ("Plan 9\nA film.",) and out[0].answer == ("a", "1")
    assert out[1].supporting == ("Ed Wood\nEd Wood was a director.", "Ed Wood\nA film.")
    assert out[2].supporting == () and out[2].answer == ()
    assert rep.issues == {"title_matches_several_passages": 1, "no_supporting_paragraph": 1}
    assert rep.examples["title_matches_several_passages"] == ["[1]: 'Ed Wood'"]
    assert rep.examples["no_supporting_paragraph"] == ["[2]"] and rep.n_records == 3


def test_2wiki_checks_context_when_it_is_there(tmp_path):
    ctx = [["Plan 9", ["s0", "s1"]]]
    qs = [
        {
            "question": "Q?",
            "supporting_facts": [["Plan 9", 1], ["Plan 9", 2], ["Plan 9", -1], ["Ed Wood", 0]],
            "context": ctx,
        }
    ]
    _, rep = load_2wiki_questions(_write(tmp_path, "w.json", qs), CORPUS)
    assert rep.issues == {
        "supporting_sentence_out_of_range": 2,
        "supporting_title_not_in_context": 1,
        "title_matches_several_passages": 1,
    }
    assert rep.examples["supporting_sentence_out_of_range"] == [
        "[0].supporting_facts[1]",
        "[0].supporting_facts[2]",
    ]
    assert rep.examples["supporting_title_not_in_context"] == ["[0].supporting_facts[3]"]


@pytest.mark.parametrize(
    ("facts", "message"),
    [
        (
            [["Plan 9", True]],
            r"w.json: \[0\]\.supporting_facts\[0\] must be \[title, sentence index\], got \['Plan 9', True\]",
        ),
        ([["Plan 9", 0, 1]], r"supporting_facts\[0\] must be \[title, sentence index\]"),
        ([[9, 0]], r"supporting_facts\[0\] must be \[title, sentence index\]"),
        ([3], r"supporting_facts\[0\] must be \[title, sentence index\], got 3"),
        (
            [["Nobody", 0]],
            r"w.json: \[0\]\.supporting_facts\[0\] names the title 'Nobody', which no corpus passage has",
        ),
    ],
)
def test_2wiki_bad_facts_are_named(tmp_path, facts, message):
    with pytest.raises(FormatError, match=message):
        load_2wiki_questions(
            _write(tmp_path, "w.json", [{"question": "Q?", "supporting_facts": facts}]), CORPUS
        )


def test_hotpotqa_needs_context_and_pairs(tmp_path):
    ok = {"question": "Q?", "supporting_facts": [["Plan 9", 0]], "context": [["Plan 9", ["s"]]]}
    out, rep = load_hotpotqa_questions(_write(tmp_path, "h.json", [ok]), CORPUS)
    assert out[0].supporting == ("Plan 9\nA film.",) and out[0].id == "0" and rep.n_issues == 0
    with pytest.raises(
        FormatError,
        match=r"h2.json: \[0\]\.supporting_facts\[0\] must be \[title, sentence index\], got Plan 9",
    ):
        load_hotpotqa_questions(_write(tmp_path, "h2.json", [{**ok, "supporting_facts": ["Plan 9"]}]), CORPUS)
    with pytest.raises(FormatError, match=r"h3.json: \[0\] has no key 'context'"):
        load_hotpotqa_questions(
            _write(tmp_path, "h3.json", [{"question": "Q?", "supporting_facts": []}]), CORPUS
        )
    for bad in (["Plan 9"], ["Plan 9", ["s"], 1], [9, ["s"]], ["Plan 9", "s"], ["Plan 9", ["s", 2]]):
        with pytest.raises(
            FormatError, match=r"h4.json: \[0\]\.context\[0\] must be \[title, \[sentence, \.\.\.\]\], got "
        ):
            load_hotpotqa_questions(_write(tmp_path, "h4.json", [{**ok, "context": [bad]}]), CORPUS)


@pytest.mark.parametrize("loader", [load_hotpotqa_questions, load_2wiki_questions])
def test_question_files_must_be_lists_and_corpora_passages(tmp_path, loader):
    dataset = "HotpotQA" if loader is load_hotpotqa_questions else "2WikiMultihopQA"
    with pytest.raises(FormatError, match=rf"q.json: expected a JSON list of {dataset} questions, got dict"):
        loader(_write(tmp_path, "q.json", {"question": "Q?"}), CORPUS)
    for corpus in ("Ed Wood", [Passage("A", "a"), "B\nb"]):
        with pytest.raises(TypeError, match="corpus must be a sequence of Passage"):
            loader(_write(tmp_path, "q2.json", []), corpus)


# --- evaluation question files ----------------------------------------------------------------------


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


def test_matching_uses_the_whole_passage_first_then_every_passage_with_the_title():
    """Passages 0 and 2 share the title "A"; a question giving A's full text matches 0 only, one
    giving the title matches both; "Z" matches nothing and is counted once per question naming it."""
    passages = ["A\nfirst", "B\nb", "A\nsecond", "A\nfirst"]
    qs = [
        EvalQuestion("0", "Q?", ("A", "Z"), ("A\nfirst",)),
        EvalQuestion("1", "Q?", ("A", "B")),
        EvalQuestion("2", "Q?", ("Z",)),
        EvalQuestion("3", "Q?", ("B",), ("B\nnot there",)),
    ]
    gold, unmatched = match_supporting(qs, passages)
    assert [g.tolist() for g in gold] == [[0], [0, 1, 2, 3], [], [1]]
    assert all(g.dtype == np.int64 for g in gold)
    assert unmatched == {"Z": 2}


def test_evaluation_numbers_by_hand():
    """Gold {0} and {1, 2}. Ranker "a" returns [0, 5] and [1, 2]: R@1 = (1 + 1/2)/2 = 0.75, R@2 = 1,
    AR@1 = (1 + 0)/2 = 0.5, AR@2 = 1. Ranker "b" returns [5, 0] and [3, 4]: R@1 = 0, R@2 = 0.5,
    AR@1 = 0, AR@2 = 0.5. The differences a - b are 0.75, 0.5 (R) and 0.5, 0.5 (AR); every
    interval holds its mean, and the same seed gives the same intervals."""
    runs = {"a": {"q1": [0, 5], "q2": [1, 2]}, "b": {"q1": [5, 0], "q2": [3, 4]}}
    asked = []

    def ranker(name):
        def rank(q, k):
            asked.append(k)
            return np.array(runs[name][q])

        return rank

    gold = [np.array([0]), np.array([1, 2])]
    out = evaluate_retrievers(
        ["q1", "q2"], gold, {"a": ranker("a"), "b": ranker("b")}, ks=(1, 2), n_boot=50, seed=3
    )
    assert asked == [2, 2, 2, 2]
    assert (out["ks"], out["n_questions"], out["n_boot"], out["seed"]) == ([1, 2], 2, 50, 3)
    means = {n: {m: [row[0] for row in v] for m, v in out["methods"][n].items()} for n in ("a", "b")}
    assert means == {"a": {"R": [0.75, 1.0], "AR": [0.5, 1.0]}, "b": {"R": [0.0, 0.5], "AR": [0.0, 0.5]}}
    assert list(out["differences"]) == ["b"]
    diff = out["differences"]["b"]
    assert [row[0] for row in diff["R"]] == [0.75, 0.5] and [row[0] for row in diff["AR"]] == [0.5, 0.5]
    for rows in [*out["methods"]["a"].values(), *out["methods"]["b"].values(), diff["R"], diff["AR"]]:
        assert all(lo <= mean <= hi for mean, lo, hi in rows)
    again = evaluate_retrievers(
        ["q1", "q2"], gold, {"a": ranker("a"), "b": ranker("b")}, ks=(1, 2), n_boot=50, seed=3
    )
    assert again == out
    assert evaluate_retrievers(["q1", "q2"], gold, {"a": ranker("a")}, ks=(2,), n_boot=50)["seed"] == 0


def test_a_ranker_compared_with_itself_differs_by_exactly_zero():
    rank = {"q1": [0], "q2": [2], "q3": [9]}
    gold = [np.array([0]), np.array([1, 2]), np.array([3])]
    out = evaluate_retrievers(
        list(rank), gold, {"x": lambda q, k: rank[q], "y": lambda q, k: rank[q]}, ks=(1,), n_boot=40
    )
    assert out["differences"]["y"] == {"R": [[0.0, 0.0, 0.0]], "AR": [[0.0, 0.0, 0.0]]}
    assert out["methods"]["x"]["R"][0][0] == pytest.approx(0.5) and out["methods"]["x"]["AR"][0][
        0
    ] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"ks": (1, 0)}, r"^k must be in \[1, inf\], got 0"),
        ({"rankers": {}}, r"^rankers must name at least one ranker"),
        ({"questions": []}, r"^no question with a matched supporting passage to evaluate"),
        ({"n_boot": 0}, r"^n_boot must be in \[1, inf\], got 0"),
    ],
)
def test_evaluation_arguments_are_checked(kw, message):
    args = {"questions": ["q"], "gold": [np.array([0])], "rankers": {"a": lambda q, k: [0]}, **kw}
    with pytest.raises(InvalidValueError, match=message):
        evaluate_retrievers(args.pop("questions"), args.pop("gold"), args.pop("rankers"), **args)


@pytest.mark.parametrize("loader", [load_hotpotqa_questions, load_2wiki_questions])
def test_question_loaders_keep_the_text_and_name_the_file(tmp_path, loader):
    """Each question keeps its text; the report names the file it read; a record without supporting
    facts, or a context entry of the wrong shape, is named by file, record and (for the entry) value."""
    ctx = [["Plan 9", ["s"]]]
    qs = [
        {"question": f"Who made film {i}?", "supporting_facts": [["Plan 9", 0]], "context": ctx}
        for i in (1, 2)
    ]
    out, rep = loader(_write(tmp_path, "q.json", qs), CORPUS)
    assert [q.question for q in out] == ["Who made film 1?", "Who made film 2?"]
    assert rep.source.endswith("q.json")
    with pytest.raises(FormatError, match=r"q2.json: \[1\] has no key 'supporting_facts'"):
        loader(_write(tmp_path, "q2.json", [qs[0], {"question": "Q?", "context": ctx}]), CORPUS)
    with pytest.raises(
        FormatError, match=r"context\[0\] must be \[title, \[sentence, \.\.\.\]\], got \['Ed', 7\]$"
    ):
        loader(_write(tmp_path, "q3.json", [{**qs[0], "context": [["Ed", 7]]}]), CORPUS)


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


def test_a_title_is_the_first_line_of_a_passage_of_several_lines():
    """A passage key is its title, a newline and its text; a text of several lines keeps its title."""
    gold, unmatched = match_supporting([EvalQuestion("0", "Q?", ("A",))], ["A\nline one\nline two", "B\nb"])
    assert [g.tolist() for g in gold] == [[0]] and unmatched == {}
    gold, _ = match_supporting(
        [EvalQuestion("0", "Q?", ("A",), ("A\nline one\nline two",))], ["A\nline one\nline two", "A\nx"]
    )
    assert [g.tolist() for g in gold] == [[0]]


def test_evaluation_resamples_as_asked():
    """1000 resamples by default; one resample gives intervals of zero width (its own mean); the seed
    decides the draw (the same seed, the same intervals; another seed, other intervals); k and n_boot
    must be at least 1."""
    hits = {f"q{i}": [i % 3] for i in range(30)}  # right for every third question
    gold = [np.array([0])] * 30
    rankers = {"a": lambda q, k: np.array(hits[q])}
    qs = list(hits)
    assert evaluate_retrievers(qs, gold, rankers, ks=(1,))["n_boot"] == 1000
    one = evaluate_retrievers(qs, gold, rankers, ks=(1,), n_boot=1)["methods"]["a"]["R"][0]
    assert one[1] == one[2]
    runs = [
        evaluate_retrievers(qs, gold, rankers, ks=(1,), n_boot=20, seed=s)["methods"]["a"]["R"]
        for s in (5, 5, 6)
    ]
    assert runs[0] == runs[1] != runs[2]
    with pytest.raises(InvalidValueError, match=r"^k must be in \[1, inf\], got 0$"):
        evaluate_retrievers(qs, gold, rankers, ks=(0,))
    with pytest.raises(InvalidValueError, match=r"^n_boot must be in \[1, inf\], got 0$"):
        evaluate_retrievers(qs, gold, rankers, n_boot=0)


@pytest.mark.parametrize(
    ("loader", "name", "content", "message"),
    [
        (
            load_corpus,
            "c.json",
            [{"title": "A", "text": "a"}, {"text": "b"}],
            r"c.json: \[1\] has no key 'title'",
        ),
        (
            load_openie,
            "o.json",
            {"docs": [{"idx": 1, "passage": "B\nb", "extracted_triples": []}]},
            r"o.json: docs\[0\] has no key 'extracted_entities'",
        ),
        (
            load_openie,
            "o.json",
            {"docs": [{"title": "A", "extracted_entities": [], "extracted_triples": []}]},
            r"o.json: docs\[0\] has no key 'text'",
        ),
        (
            load_openie,
            "o.json",
            {"docs": [{"text": "a", "extracted_entities": [], "extracted_triples": []}]},
            r"o.json: docs\[0\] has no key 'title'",
        ),
        (load_questions, "q.json", [{"id": "x", "paragraphs": []}], r"q.json: \[0\] has no key 'question'"),
        (
            load_questions,
            "q.json",
            [{"question": "Q", "paragraphs": 3}],
            r"q.json: \[0\]\['paragraphs'\] must be list",
        ),
        (
            load_questions,
            "q.json",
            [{"question": "Q?", "paragraphs": [{"paragraph_text": "a", "is_supporting": True}]}],
            r"q.json: \[0\]\.paragraphs\[0\] has no key 'title'",
        ),
        (
            load_questions,
            "q.json",
            [{"question": "Q?", "paragraphs": [{"title": "A", "paragraph_text": "a"}]}],
            r"q.json: \[0\]\.paragraphs\[0\] has no key 'is_supporting'",
        ),
    ],
)
def test_loader_errors_name_the_file_the_record_and_the_field(tmp_path, loader, name, content, message):
    """Corpus, OpenIE and MuSiQue question files: a missing or mistyped field is named by file,
    record and field."""
    with pytest.raises(FormatError, match=message):
        loader(_write(tmp_path, name, content))


def test_musique_questions_by_hand(tmp_path):
    """A MuSiQue question keeps its text and its answer (a string is one answer, not its letters);
    the report names its file; a question with no supporting paragraph is reported by its record;
    a repeated corpus passage is reported by its record."""
    para = {"title": "A", "paragraph_text": "a", "is_supporting": True}
    qs = [
        {"id": "x", "question": "Q1?", "answer": "Ann Lee", "paragraphs": [para]},
        {"id": "y", "question": "Q2?", "paragraphs": [{**para, "is_supporting": False}]},
    ]
    out, rep = load_questions(_write(tmp_path, "q.json", qs))
    assert [(q.question, q.answer) for q in out] == [("Q1?", ("Ann Lee",)), ("Q2?", ())]
    assert rep.source.endswith("q.json") and rep.examples == {"no_supporting_paragraph": ["[1]"]}
    _, rep = load_corpus(_write(tmp_path, "c.json", [{"title": "A", "text": "a"}] * 2))
    assert rep.source.endswith("c.json") and rep.examples == {"duplicate_passage": ["[1]"]}


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


def _v2(idx, passage, triples, ents=("A",)):
    return {"idx": idx, "passage": passage, "extracted_entities": list(ents), "extracted_triples": triples}


# -- HippoRAG 2 OpenIE ---------------------------------------------------------------------------------
def test_openie_v2_round_trip_and_counted_flaws(tmp_path):
    docs = [
        _v2("chunk-1", "Ed Wood\nEd Wood directed Plan 9.", [["Ed Wood", "directed", "Plan 9"]]),
        _v2("chunk-2", "A passage without a title line.", [["x", "y"], ["Plan 9", "filmed in", 1956]]),
    ]
    path = _write(tmp_path, "openie_v2.json", {"docs": docs, "avg_ent_chars": 4.0, "avg_ent_words": 1.0})
    out, report = load_openie(path)
    assert [(d.title, d.text) for d in out] == [
        ("Ed Wood", "Ed Wood directed Plan 9."),
        ("", "A passage without a title line."),
    ]
    assert out[1].triples == (("Plan 9", "filmed in", "1956"),)
    assert report.issues == {
        "passage_without_title_line": 1,
        "triple_not_three": 1,
        "triple_number_coerced": 1,
    }
    idx = index_from_openie(out)
    assert idx.n_passages == 2 and "plan 9" in idx.phrase_ids


@pytest.mark.parametrize(
    "bad, match",
    [
        (
            {"idx": "c1", "passage": 3, "extracted_entities": [], "extracted_triples": []},
            r"docs\[1\]\['passage'\]",
        ),
        (
            {"passage": "T\nx", "extracted_entities": [], "extracted_triples": []},
            r"docs\[1\] has no key 'idx'",
        ),
        (
            {"idx": "c1", "passage": "T\nx", "extracted_entities": []},
            r"docs\[1\] has no key 'extracted_triples'",
        ),
    ],
)
def test_openie_v2_malformed_record_names_file_and_record(tmp_path, bad, match):
    good = _v2("c0", "T\nx", [["a", "b", "c"]])
    with pytest.raises(FormatError, match=r"bad_v2.json: " + match):
        load_openie(_write(tmp_path, "bad_v2.json", {"docs": [good, bad]}))


# -- damaged archives ----------------------------------------------------------------------------------
@pytest.mark.parametrize("damage", ["not_gzip", "truncated", "flipped"])
def test_damaged_gz_is_a_format_error_naming_the_file(tmp_path, damage):
    raw = gzip.compress(json.dumps({"docs": [_v2("c", "T\nx", [["a", "b", "c"]])] * 50}).encode(), mtime=0)
    if damage == "not_gzip":
        raw = b"plain text, not an archive"
    elif damage == "truncated":
        raw = raw[: len(raw) // 2]
    else:  # a flipped byte in the deflate stream (or its CRC) must not pass as data
        raw = raw[:20] + bytes([raw[20] ^ 0xFF]) + raw[21:]
    path = tmp_path / "openie.json.gz"
    path.write_bytes(raw)
    for loader in (load_openie, load_corpus, load_questions):
        with pytest.raises(FormatError, match=r"openie.json.gz: not a readable gzip file"):
            loader(path)


def test_non_utf8_is_a_format_error(tmp_path):
    path = tmp_path / "corpus.json"
    path.write_bytes(b'[{"title": "\xff", "text": "x"}]')
    with pytest.raises(FormatError, match=r"corpus.json: not UTF-8"):
        load_corpus(path)


# --- corpus shapes: ids, shared titles, decomposed names ------------------------------------------


@pytest.mark.parametrize("field", ["id", "_id", "doc_id"])
def test_an_id_field_is_an_id_never_a_title_text_or_node(tmp_path, field):
    """{"id", "text"} records made their ids ('0', '1', ...) titles, and so graph nodes joined to
    every span of their passage; an id is now the passage's doc_id and nothing else."""
    from pathfinding.hipporag.extract.cooccurrence import cooccurrence_docs
    from pathfinding.hipporag.index.build import index_from_openie

    records = [
        {field: 0, "text": "Marie Curie was born in Warsaw."},
        {field: "1", "text": "Pierre Curie was born in Paris."},
        {field: 2, "title": "Warsaw", "text": "Warsaw is the capital of Poland."},
    ]
    path = _write(tmp_path, "c.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    corpus, rep = load_corpus(path)
    assert [(p.title, p.doc_id) for p in corpus] == [("", "0"), ("", "1"), ("Warsaw", "2")]
    assert [p.text for p in corpus] == [r["text"] for r in records]
    assert rep.issues == {"no_title": 2}
    phrases = set(index_from_openie(cooccurrence_docs(corpus)).phrases)
    assert not phrases & {"0", "1", "2"} and {"marie curie", "pierre curie", "warsaw"} <= phrases
    listed, _ = load_corpus(_write(tmp_path, "c.json", records))  # a JSON list reads the same
    assert listed == corpus and [p.doc_id for p in listed] == ["0", "1", "2"]


def test_titles_shared_by_passages_are_reported_with_counts(tmp_path):
    """Same title, other text: counted per passage, one example per title with its positions.
    The same title *and* text is a duplicate passage instead, and not counted twice."""
    records = [
        {"title": "A", "text": "the letter."},
        {"title": "B", "text": "b."},
        {"title": "A", "text": "the river."},
        {"title": "A", "text": "the film."},
        {"title": "B", "text": "b."},
    ]
    corpus, rep = load_corpus(_write(tmp_path, "c.json", records))
    assert rep.issues == {"duplicate_title": 3, "duplicate_passage": 1}
    assert rep.examples["duplicate_title"] == ["'A' x 3 ([0], [2], [3])"]
    assert "duplicate_title: 3 (e.g. 'A' x 3 ([0], [2], [3]))" in rep.summary()


def test_a_decomposed_file_name_is_a_composed_title(tmp_path):
    """macOS writes file names decomposed (NFD): the title is composed, as a typed one is, and two
    files whose names differ only by that form are one title with two texts."""
    folder = tmp_path / "notes"
    folder.mkdir()
    decomposed = unicodedata.normalize("NFD", "Zoë Ñúñez")
    (folder / (decomposed + ".txt")).write_text("Zoe\u0308 founded a cafe\u0301.")
    (folder / "Zoë Ñúñez.md").write_text("Another text.")
    corpus, rep = load_corpus(folder)
    assert [p.title for p in corpus] == ["Zoë Ñúñez", "Zoë Ñúñez"] and corpus[0].text == "Zoë founded a café."
    assert rep.issues == {"duplicate_title": 2}


def test_eval_matches_a_repeated_title_by_its_text():
    """Three passages titled "A": a question that gives the text (HotpotQA's context, MuSiQue's
    paragraph, or {"title", "text"}) gets the one passage it means, and AR@1 can be 1 again; a
    question that gives only the title gets every "A", and the title is named as shared."""
    from pathfinding.hipporag.io.questions import shared_titles

    passages = ["A\nthe letter.", "A\nthe river.", "B\nb.", "A\nthe film."]
    by_text = EvalQuestion("0", "Q?", ("A",), ("A\nthe river.",))
    by_title = EvalQuestion("1", "Q?", ("A", "B"))
    gold, unmatched = match_supporting([by_text, by_title], passages)
    assert [g.tolist() for g in gold] == [[1], [0, 1, 2, 3]] and unmatched == {}
    assert shared_titles([by_text, by_title], passages) == {"A": 3}
    assert shared_titles([by_text], passages) == {}
    # decomposed on one side only: still the same passage
    nfd = [unicodedata.normalize("NFD", p) for p in ["Zoë\nx.", "Zoë\ny."]]
    gold, _ = match_supporting([EvalQuestion("2", "Q?", ("Zoë",), ("Zoë\ny.",))], nfd)
    assert [g.tolist() for g in gold] == [[1]]


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


def test_hotpotqa_loader_picks_the_passage_whose_text_the_context_gives(tmp_path):
    corpus = [Passage("A", "the letter."), Passage("A", "the river."), Passage("B", "b.")]
    qs = [{"_id": "q", "question": "?", "supporting_facts": [["A", 0], ["B", 0]],
           "context": [["A", ["the ", "river."]], ["B", ["b."]]]}]  # fmt: skip
    out, rep = load_hotpotqa_questions(_write(tmp_path, "q.json", qs), corpus)
    assert out[0].supporting == ("A\nthe river.", "B\nb.") and rep.n_issues == 0
    qs[0]["context"][0][1] = ["another ", "text."]  # no passage has it: every "A", and said so
    out, rep = load_hotpotqa_questions(_write(tmp_path, "q2.json", qs), corpus)
    assert out[0].supporting == ("A\nthe letter.", "A\nthe river.", "B\nb.")
    assert rep.issues == {"title_matches_several_passages": 1}
