"""Loaders for the file formats of the HippoRAG release.

Four formats, each read by one function (the HotpotQA and 2WikiMultihopQA question files are read by
:mod:`pathfinding.hipporag.io.formats`):

* :func:`load_openie` -- the OpenIE JSON (``{"docs": [{"title", "text", "passage",
  "extracted_entities", "extracted_triples"}, ...], ...}``), and HippoRAG 2's variant whose records
  are ``{"idx", "passage", "extracted_entities", "extracted_triples"}``;
* :func:`load_corpus` -- a corpus: a JSON list of ``{"title", "text"}``, JSON lines of
  ``{"title", "text"}`` or ``{"id", "text"}``, HotpotQA's object ``{title: [sentence, ...]}``, a
  folder of ``.txt``/``.md`` files, or one such file;
* :func:`load_questions` -- a MuSiQue-style question JSON (``{"id", "question", "answer",
  "paragraphs": [{"title", "paragraph_text" or "text", "is_supporting"}]}``);
* :func:`load_query_ner` -- the query-NER TSV whose ``triples`` column holds
  ``{"named_entities": [...]}``.

Two kinds of trouble are kept apart. A file that is not the expected format at all (not JSON, a
top-level value of the wrong type, a record without a required key) raises :class:`FormatError`
naming the file and the first bad record. Flaws *inside* a well-formed file -- a triple that is not
three strings, a passage without triples, an OpenIE passage that does not match the corpus -- are
counted in a :class:`LoadReport` returned beside the data (and printed by the CLI), never dropped
without a trace.

Files ending in ``.gz`` (or starting with gzip's magic bytes) are decompressed transparently; a
damaged archive is a :class:`FormatError` like any other unreadable file. The release's files
themselves are not shipped: :func:`pathfinding.hipporag.storage.datasets.fetch` returns a verified local copy.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections.abc import Iterator, Sequence

from pathfinding._validation import check_int
from pathfinding.errors import FormatError
from pathfinding.hipporag.io.corpusfiles import (
    CORPUS_SUFFIXES,
    folder_document,
    folder_files,
    json_lines,
    split_records,
    title_sentences,
)
from pathfinding.hipporag.io.jsonstream import iter_list, read_bytes
from pathfinding.hipporag.io.records import LoadReport, OpenIEPassage, Passage, QueryNER, Question
from pathfinding.hipporag.io.splitting import DEFAULT_MAX_CHARS

__all__ = [
    "ID_FIELDS", "check_alignment", "iter_openie", "load_corpus", "load_openie", "load_query_ner",
    "load_questions", "need", "read_json", "read_text",
]


def read_text(path) -> tuple[str, str]:
    """A text file's content (gzip or plain, UTF-8) and the name errors should use."""
    name = str(path)
    raw = read_bytes(path)  # a Traversable too (importlib.resources, zipfile.Path); gzip read through
    try:
        return raw.decode("utf-8"), name
    except UnicodeDecodeError as exc:
        raise FormatError(f"{name}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None


def read_json(path):
    """A JSON file (gzip or plain) and the name errors should use: FormatError when it is not JSON."""
    text, name = read_text(path)
    try:
        return json.loads(text), name
    except json.JSONDecodeError as exc:
        raise FormatError(f"{name}: not valid JSON ({exc})") from None


def need(name: str, where: str, record, key: str, kind):
    """``record[key]``, checked to be of ``kind``; a FormatError naming the file and record otherwise."""
    if not isinstance(record, dict):
        raise FormatError(f"{name}: {where} must be a JSON object, got {type(record).__name__}")
    if key not in record:
        raise FormatError(f"{name}: {where} has no key {key!r} (keys: {sorted(record)})")
    value = record[key]
    if not isinstance(value, kind):
        kinds = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise FormatError(f"{name}: {where}[{key!r}] must be {kinds}, got {type(value).__name__}")
    return value


def load_openie(path, *, corpus: Sequence[Passage] | None = None) -> tuple[list[OpenIEPassage], LoadReport]:
    """Read a HippoRAG OpenIE file: per passage, its named entities and (subject, relation, object) triples.

    Parameters
    ----------
    path : str, path-like or Traversable
        The ``openie_*.json`` file (``.gz`` allowed). HippoRAG v1 records carry ``title`` and
        ``text``; HippoRAG 2 records (``{"idx", "passage", "extracted_entities",
        "extracted_triples"}``, recognised by the first record) are read too, the passage split at
        its first newline into title and text (v2 writes ``title + "\n" + text``); a passage
        without a newline gets an empty title and is counted as ``passage_without_title_line``.
    corpus : sequence of Passage, optional
        When given, passage ``j`` of the OpenIE file is checked against passage ``j`` of the corpus
        (see :func:`check_alignment`); mismatches are counted as ``misaligned_passage``.

    Returns
    -------
    passages : list of OpenIEPassage
        One per record of ``docs``, in file order; ``triples`` keeps only well-formed ones.
    report : LoadReport
        Counts of ``triple_not_three`` (length other than 3; dropped), ``triple_not_strings`` (an
        element that is not a string; numbers are turned into strings and counted as
        ``triple_number_coerced``, anything else drops the triple), ``entity_not_string``
        (dropped), ``passage_no_triples`` and ``misaligned_passage``.

    Raises
    ------
    FormatError
        If the file is not JSON (or a damaged ``.gz``), has no ``docs`` list, or a record lacks
        ``title``, ``text`` (v2: ``idx``, ``passage``), ``extracted_entities`` or
        ``extracted_triples`` (or they have the wrong type).

    Examples
    --------
    >>> from pathfinding.hipporag.storage.datasets import fetch
    >>> docs, report = load_openie(fetch("musique_openie"))
    >>> len(docs), report.issues["triple_not_three"], report.issues["passage_no_triples"]
    (1890, 185, 2)
    """
    report = LoadReport(source=str(path))
    out = list(iter_openie(path, report))
    if corpus is not None:
        report.merge(check_alignment(out, corpus))
    return out, report


def iter_openie(path, report: LoadReport) -> Iterator[OpenIEPassage]:
    """:func:`load_openie`'s passages one at a time, the file read as they are taken
    (:func:`~pathfinding.hipporag.io.jsonstream.iter_list`): a reader that keeps only the triples
    never holds the file's records. What each record had wrong is counted in ``report``, and
    ``report.n_records`` is the number read so far."""
    name = str(path)
    v2 = None
    for j, rec in iter_list(path, "docs", expected="an object with a 'docs' list (HippoRAG OpenIE)"):
        if v2 is None:  # HippoRAG 2 writes {"idx", "passage", ...} records without title/text
            first = rec if isinstance(rec, dict) else {}
            v2 = "title" not in first and {"idx", "passage"} <= set(first)
        where = f"docs[{j}]"
        if v2:
            need(name, where, rec, "idx", (str, int))
            passage = need(name, where, rec, "passage", str)
            title, sep, text = passage.partition("\n")
            if not sep:
                report.add("passage_without_title_line", where)
                title, text = "", passage
        else:
            title = need(name, where, rec, "title", str)
            text = need(name, where, rec, "text", str)
        ents_raw = need(name, where, rec, "extracted_entities", list)
        triples_raw = need(name, where, rec, "extracted_triples", list)
        ents, triples = _clean_record(report, where, ents_raw, triples_raw)
        report.n_records = j + 1
        yield OpenIEPassage(title=title, text=text, entities=ents, triples=triples)


def _clean_record(report: LoadReport, where: str, ents_raw: list, triples_raw: list):
    """Entities and well-formed triples of one OpenIE record; every flaw is counted in ``report``.

    Their strings are interned: a passage names its subject in most of its triples and a corpus
    uses a few hundred relations, and each occurrence was a string of its own (the triples of
    100,000 synthetic passages, held until the build ends, took 0.255 GB; interned, 0.124 GB)."""
    ents = []
    for e_i, ent in enumerate(ents_raw):
        if isinstance(ent, str):
            ents.append(sys.intern(ent))
        else:
            report.add("entity_not_string", f"{where}.extracted_entities[{e_i}]")
    triples = []
    for t_i, tri in enumerate(triples_raw):
        loc = f"{where}.extracted_triples[{t_i}]"
        if not isinstance(tri, list | tuple) or len(tri) != 3:
            report.add("triple_not_three", loc)
            continue
        parts = []
        for x in tri:
            if isinstance(x, str):
                parts.append(sys.intern(x))
            elif isinstance(x, int | float) and not isinstance(x, bool):
                report.add("triple_number_coerced", loc)
                parts.append(str(x))
            else:
                parts = None
                break
        if parts is None:
            report.add("triple_not_strings", loc)
            continue
        triples.append(tuple(parts))
    if not triples:
        report.add("passage_no_triples", where)
    return tuple(ents), tuple(triples)


def check_alignment(openie: Sequence[OpenIEPassage], corpus: Sequence[Passage]) -> LoadReport:
    """Count OpenIE passages that do not match the corpus passage at the same position.

    Returns
    -------
    LoadReport
        ``misaligned_passage`` counts positions whose ``title``/``text`` differ, and
        ``length_mismatch`` is 1 when the two lists have different lengths (the extra passages of
        the longer one are then also counted as misaligned).

    Examples
    --------
    >>> a = [OpenIEPassage("T", "x", (), (("t", "is", "x"),))]
    >>> check_alignment(a, [Passage("T", "x")]).issues
    {}
    >>> check_alignment(a, [Passage("T", "y"), Passage("U", "z")]).issues
    {'length_mismatch': 1, 'misaligned_passage': 2}
    """
    report = LoadReport(source="<alignment>", n_records=max(len(openie), len(corpus)))
    if len(openie) != len(corpus):
        report.add("length_mismatch", f"openie has {len(openie)} passages, corpus {len(corpus)}")
    for j in range(max(len(openie), len(corpus))):
        if j >= len(openie) or j >= len(corpus):
            report.add("misaligned_passage", f"docs[{j}]")
        elif (openie[j].title, openie[j].text) != (corpus[j].title, corpus[j].text):
            report.add("misaligned_passage", f"docs[{j}]")
    return report


ID_FIELDS = ("id", "_id", "doc_id")
"""Fields of a corpus record that hold its id: kept as :attr:`Passage.doc_id`, never read as its title
or its text."""


def _title_and_id(name: str, where: str, rec, report: LoadReport) -> tuple[str, str | None]:
    """A record's title (empty when it has only an id) and its id (None when it has none)."""
    field_name = next((k for k in ID_FIELDS if isinstance(rec, dict) and k in rec), None)
    doc_id = None if field_name is None else str(need(name, where, rec, field_name, (str, int)))
    if field_name is not None and "title" not in rec:
        report.add("no_title", where)
        return "", doc_id
    return need(name, where, rec, "title", str), doc_id


def _shared_titles(passages: Sequence[Passage], where: Sequence[str], report: LoadReport) -> None:
    """Count passages whose title another passage with another text also has (``duplicate_title``,
    one example per title with its passages): such a title alone cannot name a gold passage."""
    by_title: dict[str, list[int]] = {}
    for j, p in enumerate(passages):
        if p.title:
            by_title.setdefault(p.title, []).append(j)
    for title, ids in by_title.items():
        if len(ids) > 1 and len({passages[j].text for j in ids}) > 1:
            shown = ", ".join(where[j] for j in ids[:3]) + (", ..." if len(ids) > 3 else "")
            report.add("duplicate_title", f"{title!r} x {len(ids)} ({shown})", count=len(ids))


def _is_document(path) -> bool:
    """Whether ``path`` is a file a folder would read as a document (``.txt``/``.md``)."""
    return isinstance(path, str | os.PathLike) and os.path.splitext(path)[1].lower() in CORPUS_SUFFIXES


def _load_document(path, max_chars: int) -> tuple[list[Passage], LoadReport]:
    """One text file as the corpus: read as its folder would read it if it held nothing else."""
    folder, name = os.path.split(os.path.abspath(path))
    return _load_folder(folder, max_chars, only=name)


def _load_folder(folder: str, max_chars: int, only: str | None = None) -> tuple[list[Passage], LoadReport]:
    """A folder's passages; ``only``: the one file of it to read (a text file given as the corpus)."""
    report = LoadReport(source=folder if only is None else os.path.join(folder, only))
    out, where = [], []
    seen = set()
    files, skipped = folder_files(folder) if only is None else ([only], [])
    for entry in skipped:
        report.add("skipped_file", entry)
    for rel in files:
        passages, stamp = folder_document(folder, rel, max_chars=max_chars)
        report.files[rel] = stamp
        for p in passages:
            if not p.text.strip():
                report.add("empty_passage", rel)
            if p.key in seen:
                report.add("duplicate_passage", p.doc_id)
            seen.add(p.key)
            out.append(p)
            where.append(p.doc_id)
    report.n_records = len(out)
    _shared_titles(out, where, report)
    return out, report


def load_corpus(
    path, *, max_chars: int = DEFAULT_MAX_CHARS, split: bool = False
) -> tuple[list[Passage], LoadReport]:
    """Read a corpus: a JSON list, JSON lines, HotpotQA's title -> sentences, or text files.

    Four shapes are recognised, and one text file read as a folder of one:

    * a JSON list of ``{"title": ..., "text": ...}`` (HippoRAG's corpus files);
    * JSON lines (``.jsonl``, or any file whose first line is a complete JSON object), one
      ``{"title", "text"}`` per line;
    * HotpotQA's one object mapping each title to its list of sentences; a passage's text is the
      sentences joined with no separator (they keep their own leading spaces), as HippoRAG does, in
      the file's key order;
    * a folder: every ``.txt`` and ``.md`` file in it and its subfolders, in path order, split into
      passages of at most ``max_chars`` characters along its headings, paragraphs and sentences
      (:func:`~pathfinding.hipporag.io.corpusfiles.folder_document`: a file that fits is one
      passage titled with its path without the extension, with the file's path as its id); other
      files are counted as ``skipped_file``. A ``.txt`` or ``.md`` file that is not JSON (lines) is
      read as its folder would read it if it held nothing else (ids and the file stamp name it by
      its file name).

    A record's ``id``, ``_id`` or ``doc_id`` (:data:`ID_FIELDS`) is its id
    (:attr:`Passage.doc_id`), never its title or text: a record with an id and no title gets an
    empty title (counted as ``no_title``). Titles and texts are read in NFC (:class:`Passage`).

    Parameters
    ----------
    path : str, path-like or Traversable
    max_chars : int, default DEFAULT_MAX_CHARS
        Passage size a folder's files are split to (0: each file whole).
    split : bool, default False
        Split the records of a corpus file too (each kept exactly as given when it fits); by
        default they are passages already.

    Returns
    -------
    passages : list of Passage
    report : LoadReport
        Counts ``duplicate_passage`` (same title and text as an earlier passage; kept),
        ``duplicate_title`` (passages sharing a title with another passage of another text, one
        example per title with its count), ``no_title``, ``skipped_file``, ``empty_passage`` (no
        text; kept) and ``split_record``; ``files`` holds a folder's file stamps.

    Raises
    ------
    FormatError
        If the file is not JSON or JSON lines (nor a ``.txt``/``.md`` document), a record lacks a
        string ``title`` (or an id) or
        ``text``, a folder holds no text file, or a text file is binary, not UTF-8 or only headings.

    Examples
    --------
    >>> from pathfinding.hipporag.storage.datasets import fetch
    >>> corpus, report = load_corpus(fetch("musique_corpus"))
    >>> len(corpus), report.issues, report.examples["duplicate_title"][0]
    (1890, {'duplicate_title': 211}, "'Adolescence' x 2 ([10], [1419])")
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> with open(os.path.join(d, "Ed Wood.txt"), "w") as f:
    ...     _ = f.write("Ed Wood directed Plan 9.\\n")
    >>> load_corpus(d)[0]
    [Passage(title='Ed Wood', text='Ed Wood directed Plan 9.')]
    """
    max_chars = check_int("max_chars", max_chars, low=0)
    if isinstance(path, str | os.PathLike) and os.path.isdir(path):
        return _load_folder(os.fspath(path), max_chars)
    text, name = read_text(path)
    report = LoadReport(source=name)
    records = json_lines(text, name)
    if records is None:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            if _is_document(path):
                return _load_document(path, max_chars)
            hint = ""
            if not name.lower().removesuffix(".gz").endswith((".json", ".jsonl")):  # a document?
                hint = f"; a text document is read when its name ends in {' or '.join(CORPUS_SUFFIXES)}"
            raise FormatError(f"{name}: not valid JSON or JSON lines ({exc}){hint}") from None
        if isinstance(data, dict):
            data = title_sentences(name, data)
        if not isinstance(data, list) and _is_document(path):
            return _load_document(path, max_chars)
        if not isinstance(data, list):
            raise FormatError(
                f"{name}: expected a JSON list of passages, JSON lines of {{title, text}}, or an object "
                f"title -> sentences, got {type(data).__name__}"
            )
        records = [(f"[{j}]", rec) for j, rec in enumerate(data)]
    report.n_records = len(records)
    out = []
    for where, rec in records:
        title, doc_id = _title_and_id(name, where, rec, report)
        out.append(Passage(title, need(name, where, rec, "text", str), doc_id=doc_id))
    where = [w for w, _ in records]
    if split and max_chars:
        out, where = split_records(out, where, max_chars, report)
    seen = set()
    for p, w in zip(out, where, strict=True):
        if p.key in seen:
            report.add("duplicate_passage", w)
        seen.add(p.key)
    _shared_titles(out, where, report)
    return out, report


def load_questions(path) -> tuple[list[Question], LoadReport]:
    """Read a MuSiQue-style question file with supporting paragraphs.

    Each record needs ``question`` and ``paragraphs``; each paragraph needs ``title``,
    ``paragraph_text`` (MuSiQue) or ``text`` (the HippoRAG ``sample.json``) and ``is_supporting``.
    ``id`` defaults to the position and ``answer`` (string or list) to empty.

    Returns
    -------
    questions : list of Question
    report : LoadReport
        Counts ``no_supporting_paragraph`` (the question is kept; its recall is undefined and the
        evaluation will refuse it).

    Raises
    ------
    FormatError
        If the file is not a JSON list or a record or paragraph lacks a required key.

    Examples
    --------
    >>> from pathfinding.hipporag.storage.datasets import fetch
    >>> qs, report = load_questions(fetch("musique_questions"))
    >>> len(qs), sum(len(q.supporting) for q in qs), report.n_issues
    (100, 237, 0)
    """
    data, name = read_json(path)
    if not isinstance(data, list):
        raise FormatError(f"{name}: expected a JSON list of questions, got {type(data).__name__}")
    report = LoadReport(source=name, n_records=len(data))
    out = []
    for i, rec in enumerate(data):
        where = f"[{i}]"
        question = need(name, where, rec, "question", str)
        paragraphs = need(name, where, rec, "paragraphs", list)
        answer = rec.get("answer", ())
        answer = (answer,) if isinstance(answer, str) else tuple(str(a) for a in answer)
        supporting = []
        for k, par in enumerate(paragraphs):
            pw = f"{where}.paragraphs[{k}]"
            title = need(name, pw, par, "title", str)
            key = "paragraph_text" if isinstance(par, dict) and "paragraph_text" in par else "text"
            text = need(name, pw, par, key, str)
            if need(name, pw, par, "is_supporting", bool):
                supporting.append(title + "\n" + text)
        if not supporting:
            report.add("no_supporting_paragraph", where)
        out.append(
            Question(id=str(rec.get("id", i)), question=question, answer=answer, supporting=tuple(supporting))
        )
    return out, report


def load_query_ner(path) -> tuple[list[QueryNER], LoadReport]:
    """Read a HippoRAG query-NER TSV (columns include ``query`` or ``question``, and ``triples``).

    The ``triples`` cell holds JSON such as ``{"named_entities": ["Scott Derrickson", "Ed Wood"]}``.

    Returns
    -------
    rows : list of QueryNER
    report : LoadReport
        Counts ``entity_not_string`` (dropped) and ``no_entities`` (a row whose list is empty).

    Raises
    ------
    FormatError
        If the header lacks a query column or ``triples``, a row has the wrong number of cells, or a
        ``triples`` cell is not JSON with a ``named_entities`` list.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> p = os.path.join(d, "q.tsv")
    >>> with open(p, "w") as f:
    ...     _ = f.write('\\tquery\\ttriples\\n0\\tWho is Ed Wood?\\t"{""named_entities"": [""Ed Wood""]}"\\n')
    >>> rows, report = load_query_ner(p)
    >>> rows[0].entities
    ('Ed Wood',)
    """
    text, name = read_text(path)
    reader = csv.reader(io.StringIO(text), delimiter="\t")
    try:
        header = next(reader)
    except StopIteration:
        raise FormatError(f"{name}: empty file, expected a TSV header with 'query' and 'triples'") from None
    qcol = "query" if "query" in header else "question" if "question" in header else None
    if qcol is None or "triples" not in header:
        raise FormatError(
            f"{name}: header must have a 'query' (or 'question') and a 'triples' column, got {header}"
        )
    qi, ti = header.index(qcol), header.index("triples")
    report = LoadReport(source=name)
    out = []
    for r, row in enumerate(reader, start=1):
        if not row:
            continue
        where = f"row {r}"
        if len(row) != len(header):
            raise FormatError(f"{name}: {where} has {len(row)} cells, header has {len(header)}: {row[:3]}")
        try:
            cell = json.loads(row[ti])
        except json.JSONDecodeError:
            raise FormatError(f"{name}: {where} 'triples' is not JSON: {row[ti][:80]!r}") from None
        if not isinstance(cell, dict) or not isinstance(cell.get("named_entities"), list):
            raise FormatError(
                f"{name}: {where} 'triples' must be {{\"named_entities\": [...]}}, got {row[ti][:80]!r}"
            )
        ents = []
        for e in cell["named_entities"]:
            if isinstance(e, str):
                ents.append(e)
            else:
                report.add("entity_not_string", where)
        if not ents:
            report.add("no_entities", where)
        out.append(QueryNER(query=row[qi], entities=tuple(ents)))
    report.n_records = len(out)
    return out, report
