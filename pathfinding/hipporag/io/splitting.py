"""Long documents as passages: split along their own structure into passages of a bounded size.

A document that fits in ``max_chars`` characters stays one passage. A longer one is cut where its
writer cut it, coarsest first, as recursive splitters do (LangChain's ``MarkdownHeaderTextSplitter``,
LlamaIndex's ``MarkdownNodeParser``), without depending on them:

1. **Markdown headings** (ATX: ``#`` to ``######`` at the start of a line, outside fenced code): a
   section that fits, subsections and all, is one passage; a longer one gives its text before the
   first subheading and then each subsection, recursively;
2. **blank-line paragraphs** (a fenced code block is never cut): consecutive paragraphs are packed
   into one passage while they fit;
3. **sentences** (:func:`~pathfinding.hipporag.language.text.sentence_bounds`), packed the same way;
4. **words**, for a sentence longer than the bound; a cut falls only at white space, so no word is
   ever cut: a single word longer than the bound (a long URL) is kept whole, over the bound.

Each :class:`Piece` keeps its heading path (outermost first) and its span in the document
(``document[start:end] == piece.text``), and a ``fragment``, its name inside the document: the
slugs of its heading path joined by ``/`` (``"install/linux"``; ``"top"`` before the first heading),
with ``-2``, ``-3`` for a repeated sibling heading and ``:2``, ``:3`` for the second and later
pieces of one section. A fragment depends only on the headings above the piece and on its own
section, so an edit elsewhere in the document leaves it as it was.

The default bound, :data:`DEFAULT_MAX_CHARS`, is chosen on the released corpora, whose passages
are Wikipedia paragraphs: it is the longest passage text of MuSiQue and 2WikiMultihopQA rounded up to
the next 500 characters, so that splitting either corpus changes nothing (tested; ``index --estimate``
prints the length distribution of any corpus).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from pathfinding.errors import InvalidTypeError
from pathfinding.hipporag.language.text import is_unspaced_char, sentence_bounds

__all__ = ["DEFAULT_MAX_CHARS", "Piece", "heading_only", "slug", "split_document"]

DEFAULT_MAX_CHARS = 6500
"""Characters of passage text a split aims under (``--max-chars``): the longest passage text of the
released MuSiQue (1,909) and 2WikiMultihopQA (6,434) corpora, rounded up to the next 500."""

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))??(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_BLANK = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class Piece:
    """One passage of a document: its text, its span ``[start, end)``, its heading path and the
    name of the part (``fragment``, ``""`` for a document kept whole)."""

    text: str
    start: int
    end: int
    headings: tuple[str, ...]
    fragment: str


@dataclass
class _Section:
    level: int
    title: str
    start: int  # where the heading line starts (0 for the document)
    body: int  # where the text under the heading starts
    end: int
    children: list


def slug(heading: str) -> str:
    """A heading as a name in an id: case-folded letters and digits, runs of anything else as ``-``.

    Examples
    --------
    >>> slug("2.1 Installing on Linux (x86)"), slug("Ünïcode Çafé"), slug("???")
    ('2-1-installing-on-linux-x86', 'ünïcode-çafé', 'section')
    """
    text = unicodedata.normalize("NFC", heading).casefold()
    parts = "".join(ch if unicodedata.category(ch)[0] in "LMN" else " " for ch in text).split()
    return "-".join(parts) or "section"


def _lines(text: str):
    """(start offset, line without its newline, inside a fenced code block) for each line."""
    pos, fence = 0, None
    for line in text.split("\n"):
        m = _FENCE.match(line)
        inside = fence is not None
        if m and (fence is None or m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)):
            fence = m.group(1) if fence is None else None
            inside = True
        yield pos, line, inside
        pos += len(line) + 1


def _sections(text: str) -> _Section:
    """The document as a tree of sections, one per ATX heading outside fenced code."""
    root = _Section(0, "", 0, 0, len(text), [])
    stack = [root]
    for pos, line, fenced in _lines(text):
        m = None if fenced else _HEADING.match(line)
        if m is None:
            continue
        level = len(m.group(1))
        while stack[-1].level >= level:
            stack.pop().end = pos
        body = min(pos + len(line) + 1, len(text))
        node = _Section(level, (m.group(2) or "").strip(), pos, body, len(text), [])
        stack[-1].children.append(node)
        stack.append(node)
    return root


def heading_only(text: str) -> bool:
    """True when ``text`` has Markdown headings and nothing else but white space.

    Examples
    --------
    >>> heading_only("# Manual\\n\\n## Install\\n"), heading_only("# Manual\\nRead me.")
    (True, False)
    """
    root = _sections(text)
    return bool(root.children) and not "".join(_bodies(text, root)).strip()


def _bodies(text: str, node: _Section):
    first = node.children[0].start if node.children else node.end
    yield text[node.body : first]
    for child in node.children:
        yield from _bodies(text, child)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _paragraphs(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans of the blank-line paragraphs of ``text[start:end]``; a fenced block is never cut."""
    spans, first, last = [], None, start
    for pos, line, fenced in _lines(text[start:end]):
        if not line.strip() and not fenced:
            if first is not None:
                spans.append((first, last))
            first = None
        else:
            first = start + pos if first is None else first
            last = start + pos + len(line)
    if first is not None:
        spans.append((first, last))
    return [s for s in (_trim(text, a, min(b, end)) for a, b in spans) if s[0] < s[1]]


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return [_trim(text, start + a, start + b) for a, b in sentence_bounds(text[start:end])]


def _words(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return [(start + m.start(), start + m.end()) for m in re.finditer(r"\S+", text[start:end])]


def _characters(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A run of a script written without spaces (Chinese, Japanese, Thai ...) in characters, which
    are its only cut points; any other word stays whole. No cut before a combining mark."""
    if not all(is_unspaced_char(ch) or unicodedata.combining(ch) for ch in text[start:end]):
        return [(start, end)]
    out: list[tuple[int, int]] = []
    for a in range(start, end):
        if out and unicodedata.combining(text[a]):
            out[-1] = (out[-1][0], a + 1)
        else:
            out.append((a, a + 1))
    return out


def _pack(text: str, units: list[tuple[int, int]], max_chars: int, finer) -> list[tuple[int, int]]:
    """Consecutive units joined while their span fits; a unit that alone does not fit is cut into
    the ``finer`` level's units (``finer = (level, next finer)``; None: kept whole)."""
    out: list[tuple[int, int]] = []
    for a, b in units:
        if b - a > max_chars and finer is not None:
            level, nxt = finer
            parts = _pack(text, level(text, a, b), max_chars, nxt)
        else:
            parts = [(a, b)]
        for p in parts:
            if out and p[1] - out[-1][0] <= max_chars:
                out[-1] = (out[-1][0], p[1])
            else:
                out.append(p)
    return out


_FINER = (_sentences, (_words, (_characters, None)))


def _split_section(text, node: _Section, path, name, max_chars, out) -> None:
    start, end = _trim(text, node.body, node.end)
    if start >= end:
        return
    if end - start <= max_chars:
        out.append(Piece(text[start:end], start, end, path, name))
        return
    first = node.children[0].start if node.children else node.end
    a, b = _trim(text, node.body, first)
    if a < b:
        spans = _pack(text, _paragraphs(text, a, b), max_chars, _FINER)
        for k, (s, e) in enumerate(spans):
            out.append(Piece(text[s:e], s, e, path, name if k == 0 else f"{name}:{k + 1}"))
    seen: dict[str, int] = {}
    for child in node.children:
        own = slug(child.title)
        seen[own] = seen.get(own, 0) + 1
        own = own if seen[own] == 1 else f"{own}-{seen[own]}"
        child_name = own if node.level == 0 else f"{name}/{own}"
        _split_section(text, child, (*path, child.title), child_name, max_chars, out)


def split_document(text: str, *, max_chars: int = DEFAULT_MAX_CHARS, markdown: bool = True) -> list[Piece]:
    """The passages of one document, in document order (see the module docstring for the rules).

    Parameters
    ----------
    text : str
        The document (Markdown or plain text; plain text has no headings to cut at).
    max_chars : int, default DEFAULT_MAX_CHARS
        Characters a passage's text may hold; only a single word longer than this exceeds it.
    markdown : bool, default True
        Cut at Markdown headings first; False (a ``.txt`` file) starts at paragraphs.

    Returns
    -------
    list of Piece
        One piece with the whole document (white space around it dropped, fragment ``""``) when it
        fits, else its parts; none for a blank document.

    Examples
    --------
    >>> doc = "# Guide\\n\\n## Install\\nRun the installer.\\n\\n## Use\\nOpen a file. Save it."
    >>> for p in split_document(doc, max_chars=25):
    ...     print(p.headings, p.fragment, repr(p.text))
    ('Guide', 'Install') guide/install 'Run the installer.'
    ('Guide', 'Use') guide/use 'Open a file. Save it.'
    >>> len(split_document(doc)), split_document(doc)[0].fragment
    (1, '')
    """
    if not isinstance(text, str):
        raise InvalidTypeError(f"text must be a string, got {type(text).__name__}")
    # imported here: the command line reads DEFAULT_MAX_CHARS to build its parser, before numpy
    from pathfinding._validation import check_int

    max_chars = check_int("max_chars", max_chars, low=1)
    start, end = _trim(text, 0, len(text))
    if start >= end:
        return []
    if end - start <= max_chars:
        return [Piece(text[start:end], start, end, (), "")]
    out: list[Piece] = []
    root = _sections(text) if markdown else _Section(0, "", 0, 0, len(text), [])
    _split_section(text, root, (), "top", max_chars, out)
    return out
