"""The shapes a corpus comes in besides a JSON list: JSON lines, HotpotQA's object, a folder of files.

:func:`~pathfinding.hipporag.io.load_corpus` reads every shape; the readers of the three other than
a JSON list of ``{"title", "text"}`` live here. A folder's files are split into passages
(:mod:`~pathfinding.hipporag.io.splitting`) one file at a time by :func:`folder_document`, which
:mod:`~pathfinding.hipporag.index.sync` calls for the files that changed only.
"""

from __future__ import annotations

import hashlib
import json
import os

from pathfinding.errors import FormatError
from pathfinding.hipporag.io.records import FileStamp, LoadReport, Passage, Source
from pathfinding.hipporag.io.splitting import DEFAULT_MAX_CHARS, heading_only, split_document

__all__ = [
    "CORPUS_SUFFIXES", "folder_document", "folder_files", "json_lines", "read_document", "split_records",
    "title_sentences",
]

CORPUS_SUFFIXES = (".txt", ".md")
"""File endings read from a corpus folder (title = the file's path without them)."""


def json_lines(text: str, name: str) -> list[tuple[str, object]] | None:
    """The records of a JSON-lines text (location, record), or None when it is one JSON document.

    A text is JSON lines when its first non-blank line is a complete JSON object and more follows
    (or the file is named ``.jsonl``); a one-line file holding one object is read as JSON.
    """
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return None
    base = name[:-3] if name.endswith(".gz") else name
    if not base.endswith(".jsonl"):
        head = lines[first].strip()
        if not head.startswith("{"):
            return None
        try:
            json.loads(head)
        except json.JSONDecodeError:
            return None  # an object spread over several lines: one JSON document
        if not any(line.strip() for line in lines[first + 1 :]):
            return None
    out = []
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            out.append((f"line {i + 1}", json.loads(line)))
        except json.JSONDecodeError as exc:
            raise FormatError(f"{name}: line {i + 1} is not a JSON object ({exc.msg})") from None
    return out


def folder_files(folder: str) -> tuple[list[str], list[str]]:
    """Every ``.txt``/``.md`` file under ``folder``, subfolders included, as its path relative to
    ``folder`` (``/`` between parts), in path order; and the other entries, skipped. Hidden entries
    (a name starting with ``.``: ``.git``, editor swap files) are neither read nor counted, and a
    link to a folder is not followed.

    Raises
    ------
    FormatError
        If the folder holds no such file, or vanishes while it is listed.
    """
    files, skipped = [], []
    try:
        os.listdir(folder)  # a folder that is not there (any more) is named as such, not as empty
        for top, dirs, names in os.walk(folder, onerror=_raise):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            rel_top = os.path.relpath(top, folder)
            for name in sorted(names):
                if name.startswith("."):
                    continue
                rel = name if rel_top == "." else f"{rel_top}/{name}".replace(os.sep, "/")
                full = os.path.join(top, name)
                if os.path.splitext(name)[1].lower() in CORPUS_SUFFIXES and os.path.isfile(full):
                    files.append(rel)
                else:
                    skipped.append(rel)
    except OSError as exc:
        what = exc.strerror or exc
        raise FormatError(f"{folder}: the folder cannot be read ({what}); did it move?") from None
    if not files:
        raise FormatError(
            f"{folder}: a corpus folder needs at least one {' or '.join(CORPUS_SUFFIXES)} file, found none"
        )
    return sorted(files), skipped


def _raise(exc: OSError) -> None:
    raise exc


def read_document(folder: str, rel: str) -> tuple[str, str]:
    """A corpus folder's file as text (UTF-8, a byte-order mark dropped) and the SHA-256 of its bytes.

    Raises
    ------
    FormatError
        If the file holds binary data (a NUL byte) or is not UTF-8, or vanished since it was listed.
    """
    full = os.path.join(folder, *rel.split("/"))
    try:
        with open(full, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise FormatError(f"{full}: cannot be read ({exc.strerror or exc}); did it move?") from None
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise FormatError(
            f"{full}: a binary file, not text (a NUL byte at byte {nul}); move it out of "
            f"the folder or give it another extension than {' or '.join(CORPUS_SUFFIXES)}"
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(
            f"{full}: not UTF-8 text (byte {exc.start}: {exc.reason}); save it as UTF-8"
        ) from None
    return text, hashlib.sha256(raw).hexdigest()


def title_sentences(name: str, data: dict) -> list[dict]:
    """HotpotQA's corpus object ``{title: [sentence, ...]}`` as ``{"title", "text"}`` records, the
    sentences joined with no separator (they keep their own leading spaces), in key order."""
    out = []
    for title, sentences in data.items():
        where = f"[{title!r}]"
        if not isinstance(sentences, list):
            raise FormatError(
                f"{name}: expected a JSON list of passages, or HotpotQA's object title -> [sentence, ...]; "
                f"got an object whose {where} is {type(sentences).__name__}"
            )
        for s_i, sent in enumerate(sentences):
            if not isinstance(sent, str):
                raise FormatError(f"{name}: {where}[{s_i}] must be a string, got {type(sent).__name__}")
        out.append({"title": title, "text": "".join(sentences)})
    return out


def folder_document(folder: str, rel: str, *, max_chars: int = DEFAULT_MAX_CHARS, read=None):
    """The passages of one file of a corpus folder, and its :class:`FileStamp`.

    ``read`` is the file's ``(text, sha256)`` when the caller has read it already
    (:func:`read_document`), so that the stamp is that of the very bytes split.

    The file is split by :func:`~pathfinding.hipporag.io.splitting.split_document` (Markdown
    headings in a ``.md`` file; ``max_chars=0`` keeps it whole). A passage's title is the file's
    path without its extension, then its heading path (``"guide/manual > Install > Linux"``); its
    id is the path (``"guide/manual.md"``), with ``#`` and the part's fragment when the file gives
    several passages (``"guide/manual.md#install/linux"``); its :class:`Source` holds the path, the
    headings and the span. A blank file gives one empty passage.

    Raises
    ------
    FormatError
        If the file is binary or not UTF-8, holds Markdown headings and no text, or vanished.
    """
    text, sha = read_document(folder, rel) if read is None else read
    stem, ext = os.path.splitext(rel)
    markdown = ext.lower() == ".md"
    if markdown and heading_only(text):
        raise FormatError(
            f"{os.path.join(folder, rel)}: Markdown headings and no text under them: nothing to index "
            f"(write the text, or move the file out of the folder)"
        )
    pieces = split_document(text, max_chars=max_chars or len(text) + 1, markdown=markdown)
    if not pieces:  # blank: one empty passage, as a JSON record with no text
        return [Passage(stem, "", doc_id=rel, source=Source(rel))], FileStamp(sha, max_chars)
    out = [
        Passage(
            " > ".join((stem, *p.headings)), p.text,
            doc_id=f"{rel}#{p.fragment}" if p.fragment else rel,
            source=Source(rel, p.headings, p.start, p.end),
        )
        for p in pieces
    ]  # fmt: skip
    return out, FileStamp(sha, max_chars)


def split_records(passages: list[Passage], where: list[str], max_chars: int, report: LoadReport):
    """Each record longer than ``max_chars`` as its pieces (title ``"T > heading"``, id ``"id#part"``,
    a :class:`Source` without a file); a record that fits is kept exactly as given."""
    out, out_where = [], []
    for p, w in zip(passages, where, strict=True):
        pieces = split_document(p.text, max_chars=max_chars)
        if len(pieces) <= 1:
            out.append(p)
            out_where.append(w)
            continue
        report.add("split_record", w)
        for piece in pieces:
            out.append(
                Passage(
                    " > ".join((p.title, *piece.headings)) if piece.headings else p.title, piece.text,
                    doc_id=f"{p.doc_id}#{piece.fragment}" if p.doc_id is not None else None,
                    source=Source(None, piece.headings, piece.start, piece.end),
                )
            )  # fmt: skip
            out_where.append(f"{w}#{piece.fragment}")
    return out, out_where
