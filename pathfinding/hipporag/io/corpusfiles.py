"""The shapes a corpus comes in besides a JSON list: JSON lines, HotpotQA's object, a folder of files.

:func:`~pathfinding.hipporag.io.load_corpus` reads every shape; the readers of the three other than
a JSON list of ``{"title", "text"}`` live here, each returning plain records that it turns into
passages.
"""

from __future__ import annotations

import json
import os

from pathfinding.errors import FormatError

__all__ = ["CORPUS_SUFFIXES", "folder_texts", "json_lines", "title_sentences"]

CORPUS_SUFFIXES = (".txt", ".md")
"""File endings read from a corpus folder (one passage per file, title = file name without them)."""


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


def folder_texts(folder: str) -> tuple[list[tuple[str, str, str]], list[str]]:
    """``(file name, title, text)`` of every ``.txt``/``.md`` file directly in ``folder``, in name
    order (title = the name without its extension; text without surrounding blank lines), and the
    names of the other entries, skipped.

    Raises
    ------
    FormatError
        If a file is not UTF-8 text, or the folder holds no such file.
    """
    texts, skipped = [], []
    for entry in sorted(os.listdir(folder)):
        full = os.path.join(folder, entry)
        stem, ext = os.path.splitext(entry)
        if ext.lower() not in CORPUS_SUFFIXES or not os.path.isfile(full):
            skipped.append(entry)
            continue
        with open(full, "rb") as fh:
            raw = fh.read()
        try:
            text = raw.decode("utf-8-sig").strip("\n\r")
        except UnicodeDecodeError as exc:
            raise FormatError(f"{full}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
        texts.append((entry, stem, text))
    if not texts:
        raise FormatError(
            f"{folder}: a corpus folder needs at least one {' or '.join(CORPUS_SUFFIXES)} file "
            f"(one passage per file), found none"
        )
    return texts, skipped


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
