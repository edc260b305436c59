"""The records every loader returns: passages, questions, query-NER rows, and the report of what a
loader found wrong inside a well-formed file.

Every string that enters the package through one of these records is put in Unicode normal form C
once, here (:func:`~pathfinding.hipporag.language.text.nfc`): a passage, title or question read from a
decomposed (NFD) file equals the same one composed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from pathfinding.hipporag.language.text import nfc

__all__ = ["FileStamp", "LoadReport", "OpenIEPassage", "Passage", "QueryNER", "Question", "Source"]


@dataclass(frozen=True)
class FileStamp:
    """What a corpus folder's file was when its passages were made: the SHA-256 of its bytes and the
    passage size it was split to. A file whose stamp differs is re-read by
    :mod:`~pathfinding.hipporag.index.sync` (a time stamp decides nothing)."""

    sha256: str
    max_chars: int


@dataclass(frozen=True)
class Source:
    """Where a passage came from: a file of a corpus folder (its path relative to the folder, ``/``
    between parts; None for a record of a corpus file), the headings it sits under, outermost first,
    and its character span ``[start, end)`` in that file's text (or the record's text)."""

    file: str | None
    headings: tuple[str, ...] = ()
    start: int = 0
    end: int = 0

    def to_dict(self) -> dict:
        """Plain-dict form for ``--json`` output."""
        return {"file": self.file, "headings": list(self.headings), "start": self.start, "end": self.end}


@dataclass
class LoadReport:
    """What a loader found wrong inside a well-formed file.

    Attributes
    ----------
    source : str
        The file (or ``"<memory>"``) the records came from.
    n_records : int
        Records read.
    issues : dict of str to int
        Issue name -> how many times it occurred.
    examples : dict of str to list of str
        Issue name -> up to three locations (``"docs[12].extracted_triples[3]"``), for a reader
        who wants to look.
    files : dict of str to FileStamp
        For a corpus folder: each file read (its path relative to the folder) and its stamp, taken
        from the very bytes its passages were made of.
    """

    source: str
    n_records: int = 0
    issues: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[str]] = field(default_factory=dict)
    files: dict[str, FileStamp] = field(default_factory=dict)

    def add(self, issue: str, where: str, count: int = 1) -> None:
        """Count ``count`` occurrences (one by default) of ``issue`` at location ``where``."""
        self.issues[issue] = self.issues.get(issue, 0) + count
        ex = self.examples.setdefault(issue, [])
        if len(ex) < 3:
            ex.append(where)

    def merge(self, other: LoadReport) -> None:
        """Add ``other``'s counts to this report's, and its examples up to three per issue."""
        for issue, count in other.issues.items():
            self.issues[issue] = self.issues.get(issue, 0) + count
            ex = self.examples.setdefault(issue, [])
            ex.extend(other.examples.get(issue, [])[: 3 - len(ex)])

    @property
    def n_issues(self) -> int:
        """Total count over all issues."""
        return sum(self.issues.values())

    def summary(self) -> str:
        """One line per issue, e.g. ``"  triple_not_three: 185 (e.g. docs[3]...)"``."""
        name = os.path.basename(self.source)
        head = f"{name}: {self.n_records} records"
        if not self.issues:
            return head + ", no issues"
        lines = [head + ":"]
        for issue in sorted(self.issues):
            lines.append(f"  {issue}: {self.issues[issue]} (e.g. {', '.join(self.examples[issue])})")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Plain-dict form for ``--json`` output."""
        return {
            "source": os.path.basename(self.source),
            "n_records": self.n_records,
            "issues": dict(sorted(self.issues.items())),
        }


def _composed(obj, *names: str) -> None:
    """Put the named string fields (or tuples of strings) of a frozen dataclass in NFC: every text
    that enters the package through one of these records is composed once, here."""
    for name in names:
        object.__setattr__(obj, name, _nfc_any(getattr(obj, name)))


def _nfc_any(value):
    if isinstance(value, str):
        return nfc(value)
    if isinstance(value, tuple):
        return tuple(_nfc_any(v) for v in value)
    return value


@dataclass(frozen=True)
class Passage:
    """One corpus passage; ``key`` is ``title + "\\n" + text``, the id HippoRAG matches on.

    Title and text are kept in Unicode normal form C, so a passage read from a decomposed file
    (NFD: macOS file names, many editors) equals the same passage composed. ``doc_id`` is the
    record's own id (``id``, ``_id`` or ``doc_id`` of a JSON record; for a folder, the file's path,
    with ``#`` and the part for a file split in several passages), when it has one: never part of
    the title, the text or the graph. ``source`` says where it came from (:class:`Source`).

    Examples
    --------
    >>> Passage("Zoe\u0308", "x") == Passage("Zoë", "x")
    True
    """

    title: str
    text: str
    doc_id: str | None = field(default=None, kw_only=True, compare=False, repr=False)
    source: Source | None = field(default=None, kw_only=True, compare=False, repr=False)

    def __post_init__(self):
        _composed(self, "title", "text")

    @property
    def key(self) -> str:
        return self.title + "\n" + self.text


@dataclass(frozen=True)
class OpenIEPassage(Passage):
    """One passage of an OpenIE file: its named entities and its well-formed triples (NFC)."""

    entities: tuple[str, ...]
    triples: tuple[tuple[str, str, str], ...]

    def __post_init__(self):
        _composed(self, "title", "text", "entities", "triples")


@dataclass(frozen=True)
class Question:
    """One question; ``supporting`` holds the passage keys (``title + "\\n" + text``) of its evidence
    (every string in NFC, as :class:`Passage`)."""

    id: str
    question: str
    answer: tuple[str, ...]
    supporting: tuple[str, ...]

    def __post_init__(self):
        _composed(self, "question", "answer", "supporting")


@dataclass(frozen=True)
class QueryNER:
    """One row of a query-NER TSV (NFC)."""

    query: str
    entities: tuple[str, ...]

    def __post_init__(self):
        _composed(self, "query", "entities")
