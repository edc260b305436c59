"""Your own question files: the question and the titles (and texts) of its supporting passages.

:func:`read_eval_questions` reads the question files people have -- MuSiQue (``paragraphs`` with
``is_supporting``), HotpotQA and 2WikiMultihopQA (``supporting_facts``), or a simple list of
``{"question", "supporting": [titles]}`` -- as a JSON list or JSON lines, in NFC. Matching the
supporting passages to an index and scoring retrievers is
:mod:`~pathfinding.hipporag.evaluation.compare`'s.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pathfinding.errors import FormatError
from pathfinding.hipporag.io.loaders import need, read_text
from pathfinding.hipporag.language.text import nfc

__all__ = ["EvalQuestion", "read_eval_questions"]


@dataclass(frozen=True)
class EvalQuestion:
    """A question and the titles of its supporting passages (``keys``: ``title + "\\n" + text`` when
    the file gives the passage text too, as MuSiQue does; matched before titles; ``ids``: the
    passages' ids in the index, when the file names them so). In NFC."""

    id: str
    question: str
    titles: tuple[str, ...]
    keys: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()

    def __post_init__(self):
        for name in ("question", "titles", "keys", "ids"):
            value = getattr(self, name)
            fixed = nfc(value) if isinstance(value, str) else tuple(nfc(v) for v in value)
            object.__setattr__(self, name, fixed)


def _records(path) -> tuple[list[tuple[str, object]], str]:
    text, name = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
        out = []
        for i, line in enumerate(text.splitlines()):
            if line.strip():
                try:
                    out.append((f"line {i + 1}", json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise FormatError(
                        f"{name}: neither JSON nor JSON lines (line {i + 1}: {exc.msg})"
                    ) from None
        return out, name
    if isinstance(data, dict):
        return [("line 1", data)], name
    if not isinstance(data, list):
        raise FormatError(
            f"{name}: expected a JSON list of questions or JSON lines, got {type(data).__name__}"
        )
    return [(f"[{i}]", rec) for i, rec in enumerate(data)], name


def read_eval_questions(path) -> tuple[list[EvalQuestion], str]:
    """Read a question file in any of the supported shapes; return the questions and the shape's name.

    Parameters
    ----------
    path : str or path-like
        A JSON list or JSON lines (``.gz`` allowed) of records, each one of:

        * MuSiQue: ``{"question", "paragraphs": [{"title", "paragraph_text" or "text",
          "is_supporting"}]}``;
        * HotpotQA / 2WikiMultihopQA: ``{"question", "supporting_facts": [[title, sentence], ...]}``
          (a bare title is accepted as a fact); a supporting title's ``context`` entry
          ``[title, [sentence, ...]]``, when present, gives its text (the sentences joined);
        * simple: ``{"question", "supporting": [title or {"title", "text"} or {"id"}, ...]}``, an
          ``{"id": ...}`` naming a passage by its id in the index (``info --passages``: a folder
          file's path, ``"manual.md#install"`` for a part of it).

    Returns
    -------
    questions : list of EvalQuestion
    shape : str
        ``"musique"``, ``"hotpotqa/2wiki"`` or ``"simple"`` (from the first record).

    Raises
    ------
    FormatError
        If the file is not JSON or JSON lines, is empty, or a record lacks what its shape needs.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "q.jsonl")
    >>> with open(path, "w") as f:
    ...     _ = f.write('{"question": "Who directed Plan 9?", "supporting": ["Ed Wood"]}\\n')
    >>> read_eval_questions(path)
    ([EvalQuestion(id='0', question='Who directed Plan 9?', titles=('Ed Wood',), keys=(), ids=())], 'simple')
    """
    records, name = _records(path)
    if not records:
        raise FormatError(f"{name}: no questions")
    first = records[0][1]
    if not isinstance(first, dict):
        raise FormatError(f"{name}: {records[0][0]} must be a JSON object, got {type(first).__name__}")
    if "paragraphs" in first:
        shape = "musique"
    elif "supporting_facts" in first:
        shape = "hotpotqa/2wiki"
    elif "supporting" in first:
        shape = "simple"
    else:
        raise FormatError(
            f"{name}: {records[0][0]} has none of 'paragraphs' (MuSiQue), 'supporting_facts' (HotpotQA, "
            f"2WikiMultihopQA) or 'supporting' (a list of titles); keys: {sorted(first)}"
        )
    out = []
    for i, (where, rec) in enumerate(records):
        question = need(name, where, rec, "question", str)
        qid = str(rec.get("_id", rec.get("id", i)))
        titles: list[str] = []
        keys: list[str] = []
        ids: list[str] = []
        if shape == "musique":
            for p_i, para in enumerate(need(name, where, rec, "paragraphs", list)):
                pw = f"{where}.paragraphs[{p_i}]"
                if need(name, pw, para, "is_supporting", bool):
                    title = need(name, pw, para, "title", str)
                    text_key = "paragraph_text" if "paragraph_text" in para else "text"
                    keys.append(title + "\n" + need(name, pw, para, text_key, str))
                    titles.append(title)
        elif shape == "hotpotqa/2wiki":
            context = _context_texts(rec)
            for f_i, fact in enumerate(need(name, where, rec, "supporting_facts", list)):
                title = (
                    fact if isinstance(fact, str) else fact[0] if isinstance(fact, list) and fact else None
                )
                if not isinstance(title, str):
                    raise FormatError(
                        f"{name}: {where}.supporting_facts[{f_i}] must be [title, sentence], got {fact!r}"[
                            :200
                        ]
                    )
                titles.append(title)
                if title in context:
                    keys.append(title + "\n" + context[title])
        else:
            for t_i, title in enumerate(need(name, where, rec, "supporting", list)):
                if isinstance(title, dict) and "title" not in title and "id" in title:
                    ids.append(str(need(name, f"{where}.supporting[{t_i}]", title, "id", (str, int))))
                    continue
                if isinstance(title, dict):
                    tw = f"{where}.supporting[{t_i}]"
                    text = need(name, tw, title, "text", str)
                    title = need(name, tw, title, "title", str)
                    keys.append(title + "\n" + text)
                if not isinstance(title, str):
                    raise FormatError(
                        f"{name}: {where}.supporting[{t_i}] must be a title or {{title, text}}, got {title!r}"
                    )
                titles.append(title)
        titles, keys, ids = (tuple(dict.fromkeys(x)) for x in (titles, keys, ids))
        out.append(EvalQuestion(qid, question, titles, keys, ids))
    return out, shape


def _context_texts(rec) -> dict[str, str]:
    """Title -> text (sentences joined, as HotpotQA's corpus joins them) of a record's well-formed
    ``context`` entries; none when it has no context."""
    out = {}
    context = rec.get("context") if isinstance(rec, dict) else None
    for item in context if isinstance(context, list) else ():
        if isinstance(item, list | tuple) and len(item) == 2 and isinstance(item[0], str):
            sents = item[1]
            if isinstance(sents, list) and all(isinstance(x, str) for x in sents):
                out.setdefault(item[0], "".join(sents))
    return out
