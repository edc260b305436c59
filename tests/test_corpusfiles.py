"""The corpus shapes besides a JSON list (pathfinding.hipporag.io.corpusfiles): when a text is JSON
lines, what a folder gives, and HotpotQA's object turned into passages."""

import pytest

from pathfinding.errors import FormatError
from pathfinding.hipporag.io.corpusfiles import (
    CORPUS_SUFFIXES,
    folder_document,
    folder_files,
    json_lines,
    read_document,
    title_sentences,
)
from pathfinding.hipporag.io.records import FileStamp

# --- JSON lines ----------------------------------------------------------------------------------


def test_json_lines_are_read_with_their_line_numbers():
    text = '\n{"title": "a", "text": "x"}\n\n{"title": "b", "text": "y"}\n'
    assert json_lines(text, "c.json") == [
        ("line 2", {"title": "a", "text": "x"}),
        ("line 4", {"title": "b", "text": "y"}),
    ]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ('{"title": "a", "text": "x"}\n', "c.json"),  # one object on one line: a JSON document
        ('[{"title": "a", "text": "x"}]\n', "c.json"),  # a list
        ('{\n  "title": "a",\n  "text": "x"\n}\n', "c.json"),  # one object over several lines
        ("\n  \n", "c.json"),  # nothing at all
        ('{"a": [1, 2]}  \n\n  \n', "c.json"),  # trailing blank lines are not more records
    ],
)
def test_a_single_json_document_is_not_json_lines(text, name):
    assert json_lines(text, name) is None


def test_a_jsonl_name_means_json_lines_even_for_one_line():
    assert json_lines('{"title": "a", "text": "x"}\n', "c.jsonl") == [("line 1", {"title": "a", "text": "x"})]
    assert json_lines('{"title": "a", "text": "x"}\n', "c.jsonl.gz") == [
        ("line 1", {"title": "a", "text": "x"})
    ]
    assert json_lines('{"title": "a", "text": "x"}\n', "c.json.gz") is None


def test_a_broken_line_is_named():
    with pytest.raises(FormatError, match=r"^c.jsonl: line 3 is not a JSON object \(Expecting"):
        json_lines('{"a": 1}\n{"a": 2}\n{"a": \n', "c.jsonl")
    with pytest.raises(FormatError, match="^c.txt: line 2 is not a JSON object"):
        json_lines('{"a": 1}\nnot json\n', "c.txt")  # JSON lines whatever the name, once the first line is


# --- a folder of files ---------------------------------------------------------------------------


def test_a_folder_lists_its_text_files_in_path_order_and_the_rest_as_skipped(tmp_path):
    (tmp_path / "b.md").write_text("\n\nSecond.\n\nMore.\n\n")
    (tmp_path / "a.txt").write_bytes("\ufeffFirst, with a BOM.\r\n".encode())
    (tmp_path / "C.TXT").write_text("Upper-case suffix.")
    (tmp_path / "notes.pdf").write_bytes(b"%PDF")
    (tmp_path / ".draft.txt").write_text("hidden: neither read nor counted")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.txt").write_text("In a subfolder.")
    files, skipped = folder_files(str(tmp_path))
    assert files == ["C.TXT", "a.txt", "b.md", "sub/c.txt"]
    assert skipped == ["notes.pdf"]
    assert CORPUS_SUFFIXES == (".txt", ".md")


def test_a_folder_without_text_is_refused(tmp_path):
    (tmp_path / "x.pdf").write_bytes(b"%PDF")
    with pytest.raises(FormatError, match=r"needs at least one \.txt or \.md file, found none"):
        folder_files(str(tmp_path))
    with pytest.raises(FormatError):
        folder_files(str(tmp_path / "gone"))


def test_a_file_kept_whole_gives_one_passage_and_a_blank_one_an_empty_passage(tmp_path):
    (tmp_path / "a.txt").write_text("Ed Wood directed Plan 9.\n\nIt was filmed in Burbank.")
    (tmp_path / "blank.txt").write_text("")
    whole, stamp = folder_document(str(tmp_path), "a.txt", max_chars=0)
    assert [(p.title, p.text, p.doc_id) for p in whole] == [
        ("a", "Ed Wood directed Plan 9.\n\nIt was filmed in Burbank.", "a.txt")
    ]
    assert isinstance(stamp, FileStamp) and stamp.max_chars == 0
    blank, _ = folder_document(str(tmp_path), "blank.txt", max_chars=0)
    assert [(p.title, p.text, p.doc_id) for p in blank] == [("blank", "", "blank.txt")]


def test_a_file_that_vanished_is_named_with_the_reason(tmp_path):
    with pytest.raises(FormatError, match=r"gone\.txt: cannot be read \(No such file or directory\); did it"):
        read_document(str(tmp_path), "gone.txt")


# --- HotpotQA's object ---------------------------------------------------------------------------


def test_hotpotqa_sentences_are_joined_as_they_are():
    data = {"Ed Wood": ["Ed Wood was a director.", " He made Plan 9."], "Empty": []}
    assert title_sentences("h.json", data) == [
        {"title": "Ed Wood", "text": "Ed Wood was a director. He made Plan 9."},
        {"title": "Empty", "text": ""},
    ]


def test_a_hotpotqa_object_of_the_wrong_shape_is_named():
    with pytest.raises(
        FormatError, match=r"h.json: expected a JSON list of passages, .* whose \['x'\] is str"
    ):
        title_sentences("h.json", {"x": "not a list"})
    with pytest.raises(FormatError, match=r"^h.json: \['x'\]\[1\] must be a string, got int$"):
        title_sentences("h.json", {"x": ["fine", 3]})
