"""Splitting documents into passages: headings, paragraphs, sentences, words, never inside a word."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathfinding.errors import InvalidTypeError, InvalidValueError
from pathfinding.hipporag.io.corpusfiles import split_records
from pathfinding.hipporag.io.loaders import load_corpus
from pathfinding.hipporag.io.records import LoadReport
from pathfinding.hipporag.io.splitting import DEFAULT_MAX_CHARS, heading_only, slug, split_document
from pathfinding.hipporag.storage.datasets import fetch

MANUAL = """\
Read this first.

# Manual

## Install

Download the installer. Run it as an administrator.

Reboot when it asks.

## Install

A second section with the same heading.

### Linux
Use the package manager.

```
# a comment in code, not a heading

more code
```

## Use
Open a file. Save it.
"""


def _pieces(doc, **kw):
    return [(p.fragment, p.headings, p.text) for p in split_document(doc, **kw)]


def test_a_document_that_fits_is_one_passage_and_a_blank_one_none():
    assert _pieces(MANUAL) == [("", (), MANUAL.strip())]
    assert split_document("  \n\n ") == []
    assert _pieces("\n  Ed Wood directed Plan 9.  \n") == [("", (), "Ed Wood directed Plan 9.")]


def test_headings_cut_first_and_name_every_part():
    got = _pieces(MANUAL, max_chars=60)
    assert got == [
        ("top", (), "Read this first."),
        ("manual/install", ("Manual", "Install"), "Download the installer. Run it as an administrator."),
        ("manual/install:2", ("Manual", "Install"), "Reboot when it asks."),
        ("manual/install-2", ("Manual", "Install"), "A second section with the same heading."),
        ("manual/install-2/linux", ("Manual", "Install", "Linux"), "Use the package manager."),
        (
            "manual/install-2/linux:2",
            ("Manual", "Install", "Linux"),
            "```\n# a comment in code, not a heading\n\nmore code\n```",
        ),
        ("manual/use", ("Manual", "Use"), "Open a file. Save it."),
    ]
    # a section that fits keeps its subsections, headings and all
    whole = _pieces(MANUAL, max_chars=200)
    assert (
        "manual/install-2",
        ("Manual", "Install"),
        MANUAL[MANUAL.index("A second") : MANUAL.index("\n\n## Use")],
    ) in whole


def test_paragraphs_then_sentences_then_words_and_no_word_is_cut():
    doc = "One two three. Four five six.\n\nSeven eight nine ten eleven twelve thirteen."
    assert [p.text for p in split_document(doc, max_chars=30)] == [
        "One two three. Four five six.",
        "Seven eight nine ten eleven",
        "twelve thirteen.",
    ]
    # a word longer than the bound is kept whole, over it
    assert [p.text for p in split_document("a " + "x" * 12 + " b", max_chars=5)] == ["a", "x" * 12, "b"]
    # a script without spaces is cut between characters, never before a combining mark
    assert [p.text for p in split_document("東京都大阪府", max_chars=4)] == ["東京都大", "阪府"]


def test_a_txt_file_has_no_headings_to_cut_at():
    doc = "# not a heading\n\nPara one is here.\n\nPara two is here."
    assert [p.headings for p in split_document(doc, max_chars=20, markdown=False)] == [(), (), ()]
    assert [p.headings for p in split_document(doc, max_chars=20)] == [("not a heading",)] * 2


def test_an_edit_elsewhere_leaves_a_section_as_it_was():
    before = {p.fragment: p.text for p in split_document(MANUAL, max_chars=60)}
    edited = MANUAL.replace("Reboot when it asks.", "Reboot when it asks, then log in again. " * 3)
    edited = edited.replace("# Manual\n", "# Manual\n\nA new paragraph at the top of the manual.\n")
    after = {p.fragment: p.text for p in split_document(edited, max_chars=60)}
    same = {"manual/install-2", "manual/install-2/linux", "manual/install-2/linux:2", "manual/use", "top"}
    assert {f: after[f] for f in same} == {f: before[f] for f in same}


def test_heading_only_and_slugs():
    assert heading_only("# A\n\n## B\n   \n")
    assert not heading_only("# A\ntext") and not heading_only("no headings") and not heading_only("")
    assert not heading_only("```\n# in code\n```")
    assert slug("Ünïcode Çafé") == "ünïcode-çafé" and slug("") == "section"


def test_bad_arguments_are_named():
    with pytest.raises(InvalidTypeError, match="text must be a string"):
        split_document(b"bytes")
    with pytest.raises(InvalidValueError, match="max_chars"):
        split_document("x", max_chars=0)


# --- properties over random documents -------------------------------------------------------------

WORD = st.text(alphabet="abcdefgh", min_size=1, max_size=14)
SENTENCE = st.lists(WORD, min_size=1, max_size=12).map(lambda ws: " ".join(ws).capitalize() + ".")
PARAGRAPH = st.lists(SENTENCE, min_size=1, max_size=5).map(" ".join)
BLOCK = st.one_of(
    PARAGRAPH,
    st.tuples(st.integers(1, 4), st.lists(WORD, min_size=1, max_size=3)).map(
        lambda t: "#" * t[0] + " " + " ".join(t[1])
    ),
)
DOCUMENT = st.lists(BLOCK, min_size=1, max_size=14).map("\n\n".join)
HEADING_LINE = re.compile(r"^#{1,6} .*$", re.M)


@given(doc=DOCUMENT, max_chars=st.integers(5, 400))
def test_pieces_are_spans_in_order_within_the_bound_and_lose_no_text(doc, max_chars):
    pieces = split_document(doc, max_chars=max_chars)
    at = 0
    for p in pieces:
        assert doc[p.start : p.end] == p.text and p.text == p.text.strip() and p.start >= at
        at = p.end
        # never inside a word: a cut lies at white space or an end of the document
        assert p.start == 0 or doc[p.start - 1].isspace()
        assert p.end == len(doc) or doc[p.end].isspace()
        assert len(p.text) <= max_chars or not re.search(r"\s", p.text)
    assert len({p.fragment for p in pieces}) == len(pieces)
    covered = set()
    for p in pieces:
        covered.update(range(p.start, p.end))
    for m in HEADING_LINE.finditer(doc):
        covered.update(range(m.start(), m.end()))
    assert all(i in covered for i, ch in enumerate(doc) if not ch.isspace())


@given(doc=DOCUMENT, max_chars=st.integers(5, 400))
def test_a_record_that_fits_is_kept_exactly(doc, max_chars):
    from pathfinding.hipporag.io.records import Passage

    record = Passage("T", doc, doc_id="r1")
    out, where = split_records([record], ["[0]"], max_chars, LoadReport("x"))
    if len(split_document(doc, max_chars=max_chars)) <= 1:  # it fits (or has no second part)
        assert out == [record] and out[0].text == doc
    else:
        assert all(p.doc_id.startswith("r1#") and p.title.startswith("T") for p in out)
        assert len(where) == len(out)


@pytest.mark.parametrize("name", ["musique_corpus", "2wiki_corpus"])
def test_splitting_the_released_corpora_changes_nothing(name):
    """Their passages are Wikipedia paragraphs: the default bound keeps every one as it is."""
    corpus, _ = load_corpus(fetch(name))
    again, report = load_corpus(fetch(name), split=True)
    assert again == corpus and [p.doc_id for p in again] == [p.doc_id for p in corpus]
    assert "split_record" not in report.issues
    assert max(len(p.text) for p in corpus) <= DEFAULT_MAX_CHARS
