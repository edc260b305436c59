"""One list of a large JSON object, read item by item, so that the file is never parsed whole.

HippoRAG's OpenIE file holds every passage's entities and triples in one object,
``{"docs": [...], ...}``. At a million passages it is 1.46 GB, and ``json.loads`` builds every
record's dicts, lists and strings at once: 5.4 GB above the text it decodes, held before the first
passage is used. :func:`iter_list` reads the file in chunks (UTF-8, gzip or plain), decodes one item
of the list at a time with the standard library's decoder and hands it over, so a reader keeps only
what it takes from each item. The other keys' values are decoded and dropped.

Errors are those of :func:`~pathfinding.hipporag.io.loaders.read_json`: a file that is not UTF-8,
not JSON or a damaged gzip raises :class:`~pathfinding.errors.FormatError` naming the file (and, for
JSON, the line, column and character, as ``json`` says them); a top-level value that is not an
object holding the list raises one naming what it is instead.
"""

from __future__ import annotations

import codecs
import gzip
import json
import os
import re
import zlib
from collections.abc import Iterator

from pathfinding.errors import FormatError

__all__ = ["CHUNK", "iter_list", "read_bytes"]

CHUNK = 1 << 20
"""Bytes read from the file at a time."""

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_NUMBER_GOES_ON = re.compile(r"[0-9.eE+\-]*")
_GZIP_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error)


class _Text:
    """The file's text, decoded as it is needed; ``pos`` is a position in ``buf``, whose first
    character is the file's character ``base``."""

    def __init__(self, fh, name: str, chunk: int):
        self.fh, self.name, self.chunk = fh, name, chunk
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.buf, self.pos, self.base, self.read, self.eof = "", 0, 0, 0, False
        self.lines, self.line_start = 0, 0  # newlines before buf; the file position after the last

    def more(self, at_least: int = 0) -> None:
        """Drop the text already used, then read at least one chunk (sets ``eof`` at the end)."""
        try:
            raw = self.fh.read(max(self.chunk, at_least))
        except _GZIP_ERRORS as exc:
            raise _not_gzip(self.name, exc) from None
        pending = len(self.decoder.getstate()[0])
        try:
            text = self.decoder.decode(raw, final=not raw)
        except UnicodeDecodeError as exc:
            at = self.read - pending + exc.start
            raise FormatError(f"{self.name}: not UTF-8 text (byte {at}: {exc.reason})") from None
        self.read += len(raw)
        self.eof = not raw
        if self.pos:
            self.lines += self.buf.count("\n", 0, self.pos)
            nl = self.buf.rfind("\n", 0, self.pos)
            if nl >= 0:
                self.line_start = self.base + nl + 1
            self.base += self.pos
            self.buf, self.pos = self.buf[self.pos :], 0
        self.buf += text

    def peek(self) -> str:
        """The next character that is not whitespace ("" at the end), not consumed."""
        while True:
            self.pos = _WHITESPACE.match(self.buf, self.pos).end()
            if self.pos < len(self.buf) or self.eof:
                return self.buf[self.pos : self.pos + 1]
            self.more()

    def take(self, chars: str, expecting: str) -> str:
        """Consume the next character, which must be one of ``chars``."""
        c = self.peek()
        if not c or c not in chars:
            raise self.invalid(expecting, self.pos)
        self.pos += 1
        return c

    def value(self):
        """Decode the JSON value at the position. A value cut by the chunk's end is decoded again
        with more text, the text read at least doubling each time (a long value costs a few
        decodes, not one per chunk)."""
        self.peek()
        while True:
            try:
                v, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if self.eof:
                    raise self.invalid(exc.msg, exc.pos) from None
            else:  # a number at the text's end ("0", "0.", "1e") may go on in the next chunk
                if self.eof or _NUMBER_GOES_ON.fullmatch(self.buf, end) is None:
                    self.pos = end
                    return v
            self.more(len(self.buf) - self.pos)

    def invalid(self, msg: str, pos: int) -> FormatError:
        """The error for ``msg`` at ``pos``, placed in the file as ``json`` places it."""
        nl = self.buf.rfind("\n", 0, pos)
        line = self.lines + self.buf.count("\n", 0, pos) + 1
        column = pos - nl if nl >= 0 else self.base + pos - self.line_start + 1
        where = f"line {line} column {column} (char {self.base + pos})"
        return FormatError(f"{self.name}: not valid JSON ({msg}: {where})")


def _not_gzip(name: str, exc: Exception) -> FormatError:
    return FormatError(f"{name}: not a readable gzip file ({type(exc).__name__}: {exc})")


def _open(path):
    """A binary file object for ``path`` (a path or a Traversable), gzip read through when the name
    ends in ``.gz`` or the file starts with gzip's magic bytes, and the file object underneath."""
    fh = open(path, "rb") if isinstance(path, str | os.PathLike) else path.open("rb")
    head = fh.peek(2)[:2] if hasattr(fh, "peek") else b""
    if not head:
        head = fh.read(2)
        fh.seek(0)
    if str(path).endswith(".gz") or head == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=fh, mode="rb"), fh
    return fh, fh


def read_bytes(path) -> bytes:
    """A file's bytes (a path or a Traversable), gzip read through as :func:`iter_list` reads it: a
    damaged archive is a :class:`~pathfinding.errors.FormatError` naming the file, not gzip's error.

    Examples
    --------
    >>> import gzip, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.txt.gz")
    >>> _ = open(path, "wb").write(gzip.compress(b"text"))
    >>> read_bytes(path)
    b'text'
    """
    try:
        stream, raw = _open(path)
        with raw, stream:
            return stream.read()
    except _GZIP_ERRORS as exc:
        raise _not_gzip(str(path), exc) from None


def iter_list(path, key: str, *, expected: str, chunk: int = CHUNK) -> Iterator[tuple[int, object]]:
    """Every item of the list at ``key`` of the JSON object in ``path``, with its position, decoded one
    at a time.

    Parameters
    ----------
    path : str, path-like or Traversable
        A JSON file, gzip or plain, UTF-8.
    key : str
        The top-level key whose list is read.
    expected : str
        What the file should be, for the error when it is not (``"an object with a 'docs' list"``).
    chunk : int, default CHUNK
        Bytes read at a time.

    Yields
    ------
    (int, object)
        The item's position in the list and the item.

    Raises
    ------
    FormatError
        ``"{path}: expected {expected}, got ..."`` when the file holds another value (its type) or an
        object without that list (its keys); a file that is not UTF-8, not JSON, or a damaged gzip,
        as :func:`~pathfinding.hipporag.io.loaders.read_json` says it. Items already yielded stay
        yielded: an error late in the file is raised when the reading reaches it.

    Examples
    --------
    >>> import json, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "o.json")
    >>> _ = open(path, "w").write(json.dumps({"n": 2, "docs": [{"a": 1}, [2]], "x": "y"}))
    >>> list(iter_list(path, "docs", expected="an object with a 'docs' list"))
    [(0, {'a': 1}), (1, [2])]
    """
    name = str(path)
    try:
        stream, raw = _open(path)
    except _GZIP_ERRORS as exc:
        raise _not_gzip(name, exc) from None
    with raw, stream:
        text = _Text(stream, name, int(chunk))
        if text.peek() != "{":
            got = type(text.value()).__name__  # the whole value decoded: an error path only
            text.peek()
            if text.pos < len(text.buf):
                raise text.invalid("Extra data", text.pos)
            raise FormatError(f"{name}: expected {expected}, got {got}")
        text.take("{", "Expecting '{'")
        keys, found = [], False
        if text.peek() == "}":
            text.pos += 1
        else:
            while True:
                if text.peek() != '"':
                    raise text.invalid("Expecting property name enclosed in double quotes", text.pos)
                k = text.value()
                if k == key and found:  # json.loads would keep the last silently
                    raise FormatError(f"{name}: {key!r} appears twice; expected {expected}")
                keys.append(k)
                text.take(":", "Expecting ':' delimiter")
                if k == key and not found and text.peek() == "[":
                    found = True
                    text.pos += 1
                    i = 0
                    if text.peek() == "]":
                        text.pos += 1
                    else:
                        while True:
                            yield i, text.value()
                            i += 1
                            if text.take(",]", "Expecting ',' delimiter") == "]":
                                break
                else:
                    text.value()
                if text.take(",}", "Expecting ',' delimiter") == "}":
                    break
        if text.peek():
            raise text.invalid("Extra data", text.pos)
        if not found:
            raise FormatError(f"{name}: expected {expected}, got keys {sorted(set(keys))}")
