"""The loaders on small hand-made files: what each shape gives, every flaw counted where it is, and
format errors that name the file, the record and what was expected; HippoRAG 2 OpenIE files and
damaged archives; the released MuSiQue files loaded and aligned.
"""

import gzip
import json
import unicodedata

import pytest

from pathfinding.errors import FormatError
from pathfinding.hipporag.index.build import index_from_openie
from pathfinding.hipporag.io import (
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
from pathfinding.hipporag.storage.datasets import fetch
from tests.conftest import PASSAGES


def _write(tmp_path, name, obj, *, gz=False):
    path = tmp_path / name
    raw = (obj if isinstance(obj, str) else json.dumps(obj)).encode()
    path.write_bytes(gzip.compress(raw, mtime=0) if gz else raw)
    return path


# --- the report and the shared readers -------------------------------------------------------------


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


def test_a_long_record_is_split_only_when_asked_and_its_parts_named_after_its_id(tmp_path):
    long = "# Guide\n\n## Install\nMount the pump on the frame.\n\n## Repair\nReplace the seal of the pump."
    lines = [{"id": "g", "title": "G", "text": long}, {"id": "s", "title": "S", "text": "Short."}]
    path = _write(tmp_path, "c.jsonl", "\n".join(json.dumps(r) for r in lines))
    kept, _ = load_corpus(path, max_chars=40)
    assert [p.doc_id for p in kept] == ["g", "s"] and kept[0].text == long
    cut, rep = load_corpus(path, max_chars=40, split=True)
    assert [(p.doc_id, p.title) for p in cut] == [
        ("g#guide/install", "G > Guide > Install"), ("g#guide/repair", "G > Guide > Repair"), ("s", "S")
    ]  # fmt: skip
    assert [long[p.source.start : p.source.end] for p in cut[:2]] == [p.text for p in cut[:2]]
    assert cut[2] == kept[1] and rep.issues == {"split_record": 1}
    assert load_corpus(path, max_chars=0, split=True)[0] == kept  # 0: nothing is cut


def test_one_text_file_is_read_as_its_folder_would_read_it_alone(tmp_path):
    """A .txt or .md file that is not JSON is a document: split as in a folder, its name the id; a
    .txt file of JSON lines stays JSON lines (above), and another name is refused with the hint."""
    (tmp_path / "other.txt").write_text("Not read.")
    doc = tmp_path / "guide.md"
    doc.write_text("# Guide\n\n## Install\nMount the pump.\n\n## Repair\nReplace the seal.\n")
    corpus, rep = load_corpus(doc, max_chars=30)
    assert [(p.title, p.doc_id) for p in corpus] == [
        ("guide > Guide > Install", "guide.md#guide/install"),
        ("guide > Guide > Repair", "guide.md#guide/repair"),
    ]
    assert rep.source == str(doc) and list(rep.files) == ["guide.md"] and rep.n_records == 2
    folder, _ = load_corpus(tmp_path, max_chars=30)
    assert [p for p in folder if p.doc_id.startswith("guide.md")] == corpus
    for text in ("3", "Ed Wood directed Plan 9.", ""):  # a number, prose, nothing: documents all
        got, _ = load_corpus(_write(tmp_path, "n.txt", text))
        assert [(p.title, p.text, p.doc_id) for p in got] == [("n", text, "n.txt")]
    with pytest.raises(FormatError, match=r"n.rst: not valid JSON or JSON lines \(.*\); a text document is "
                       r"read when its name ends in .txt or .md$"):  # fmt: skip
        load_corpus(_write(tmp_path, "n.rst", "Ed Wood directed Plan 9."))
    with pytest.raises(FormatError, match=r"n.json: not valid JSON or JSON lines \([^;]*\)$"):
        load_corpus(_write(tmp_path, "n.json", "Ed Wood directed Plan 9."))


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"\x89PNG\r\n\x00", r"a\.md: a binary file, not text \(a NUL byte at byte 6\)"),
        (b"caf\xe9 au lait", r"a\.md: not UTF-8 text \(byte 3: invalid continuation byte\)"),
        (b"# Title\n\n## Part\n", r"a\.md: Markdown headings and no text under them"),
    ],
)
def test_a_folder_with_a_file_that_is_not_a_document_is_refused_naming_it(tmp_path, data, words):
    (tmp_path / "b.txt").write_text("Plain text.")
    (tmp_path / "a.md").write_bytes(data)
    with pytest.raises(FormatError, match=words):
        load_corpus(tmp_path)


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


# --- evaluation question files ----------------------------------------------------------------------


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


def test_corpus_shapes_give_the_same_passages(tmp_path):
    want = [Passage(t, x) for t, x in PASSAGES]
    (tmp_path / "c.json").write_text(json.dumps([{"title": t, "text": x} for t, x in PASSAGES]))
    lines = "".join(json.dumps({"title": t, "text": x}) + "\n" for t, x in PASSAGES)
    (tmp_path / "c.jsonl").write_text(lines)
    (tmp_path / "c.jsonl.gz").write_bytes(gzip.compress(lines.encode()))
    (tmp_path / "lines.txt").write_text(lines)  # JSON lines under any name
    folder = tmp_path / "docs"
    folder.mkdir()
    for t, x in PASSAGES:
        (folder / f"{t}.{'md' if t.startswith('B') else 'txt'}").write_text(x + "\n\n")
    (folder / "notes.pdf").write_bytes(b"%PDF")
    for path in ("c.json", "c.jsonl", "c.jsonl.gz", "lines.txt"):
        corpus, report = load_corpus(tmp_path / path)
        assert corpus == want and report.n_issues == 0, path
    corpus, report = load_corpus(folder)
    assert sorted(corpus, key=lambda p: p.title) == sorted(want, key=lambda p: p.title)
    assert report.issues == {"skipped_file": 1}
    (tmp_path / "ids.jsonl").write_text('{"id": 7, "text": "x"}\n{"id": "b", "text": "y"}\n')
    ids = load_corpus(tmp_path / "ids.jsonl")[0]  # ids are ids: no title, not text
    assert ids == [Passage("", "x"), Passage("", "y")] and [p.doc_id for p in ids] == ["7", "b"]


def test_corpus_shape_errors(tmp_path):
    (tmp_path / "bad.jsonl").write_text('{"title": "a", "text": "x"}\n{"title": "b"\n')
    with pytest.raises(FormatError, match="line 2 is not a JSON object"):
        load_corpus(tmp_path / "bad.jsonl")
    (tmp_path / "no_text.jsonl").write_text('{"title": "a", "text": "x"}\n{"title": "b"}\n')
    with pytest.raises(FormatError, match="line 2 has no key 'text'"):
        load_corpus(tmp_path / "no_text.jsonl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FormatError, match="needs at least one .txt or .md file"):
        load_corpus(tmp_path / "empty")


def test_an_openie_files_repeated_strings_are_held_once(tmp_path):
    """A passage names its subject in most of its triples and a corpus reuses its relations: each
    occurrence read from the file is one string object, not a copy (the triples of 100,000 passages
    took half the memory)."""
    first_doc = _doc("A", "a", [["Ed Wood", "directed", "Plan 9"], ["Ed Wood", "born in", "Poughkeepsie"]])
    docs = {"docs": [first_doc, _doc("B", "b", [["Bela Lugosi", "directed", "Ed Wood"]])]}
    out, _ = load_openie(_write(tmp_path, "o.json", docs))
    (first, second), (third,) = out[0].triples, out[1].triples
    assert first[0] is second[0] is third[2] and first[1] is third[1]
