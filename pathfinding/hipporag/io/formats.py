"""Question files of the paper's other two datasets: HotpotQA and 2WikiMultihopQA.

Both come as a JSON list of records ``{"_id", "question", "answer", "supporting_facts", "context",
...}``. ``supporting_facts`` lists ``[title, sentence index]`` pairs and ``context`` lists
``[title, [sentence, ...]]`` pairs. Neither dataset marks supporting *passages*; HippoRAG scores them
by title (a retrieved passage counts when its title is a supporting title), so these loaders match
each supporting title to the corpus passage with that title and store its key
(``title + "\\n" + text``) in :attr:`~pathfinding.hipporag.io.records.Question.supporting`, which
:func:`~pathfinding.hipporag.evaluation.metrics.supporting_ids` then finds as for MuSiQue.

The corpora are read by :func:`pathfinding.hipporag.io.load_corpus`: HotpotQA's is an object
``{title: [sentence, ...]}``, 2WikiMultihopQA's a list of ``{"title", "text"}``.
"""

from __future__ import annotations

from collections.abc import Sequence

from pathfinding.errors import FormatError, InvalidTypeError
from pathfinding.hipporag.io.loaders import need, read_json
from pathfinding.hipporag.io.records import LoadReport, Passage, Question
from pathfinding.hipporag.language.text import nfc

__all__ = ["load_2wiki_questions", "load_hotpotqa_questions"]


def _title_index(corpus: Sequence[Passage]) -> dict[str, list[str]]:
    if isinstance(corpus, str) or not all(isinstance(p, Passage) for p in corpus):
        raise InvalidTypeError(
            "corpus must be a sequence of Passage (from pathfinding.hipporag.io.load_corpus)"
        )
    by_title: dict[str, list[str]] = {}
    for p in corpus:
        by_title.setdefault(p.title, []).append(p.key)
    return by_title


def _context(name: str, where: str, rec: dict) -> dict[str, list[str]]:
    """Title -> its sentences, from a record's ``context`` (validated)."""
    context = need(name, where, rec, "context", list)
    out = {}
    for c_i, item in enumerate(context):
        cw = f"{where}.context[{c_i}]"
        if (
            not isinstance(item, list | tuple)
            or len(item) != 2
            or not isinstance(item[0], str)
            or not isinstance(item[1], list)
            or not all(isinstance(s, str) for s in item[1])
        ):
            raise FormatError(f"{name}: {cw} must be [title, [sentence, ...]], got {str(item)[:80]}")
        out[nfc(item[0])] = item[1]
    return out


def _load(path, corpus, *, dataset: str, need_context: bool) -> tuple[list[Question], LoadReport]:
    by_title = _title_index(corpus)
    data, name = read_json(path)
    if not isinstance(data, list):
        raise FormatError(f"{name}: expected a JSON list of {dataset} questions, got {type(data).__name__}")
    report = LoadReport(source=name, n_records=len(data))
    out = []
    for i, rec in enumerate(data):
        where = f"[{i}]"
        question = need(name, where, rec, "question", str)
        facts = need(name, where, rec, "supporting_facts", list)
        context = _context(name, where, rec) if need_context or "context" in rec else None
        titles: list[str] = []
        for f_i, fact in enumerate(facts):
            fw = f"{where}.supporting_facts[{f_i}]"
            if isinstance(fact, str) and not need_context:
                title, sent = fact, None
            elif (
                isinstance(fact, list | tuple)
                and len(fact) == 2
                and isinstance(fact[0], str)
                and isinstance(fact[1], int)
                and not isinstance(fact[1], bool)
            ):
                title, sent = fact
            else:
                raise FormatError(f"{name}: {fw} must be [title, sentence index], got {str(fact)[:80]}")
            title = nfc(title)
            if context is not None:
                if title not in context:
                    report.add("supporting_title_not_in_context", fw)
                elif sent is not None and not 0 <= sent < len(context[title]):
                    report.add("supporting_sentence_out_of_range", fw)
            if title not in by_title:
                raise FormatError(
                    f"{name}: {fw} names the title {title!r}, which no corpus passage has "
                    "(supporting passages are matched by title)"
                )
            if title not in titles:
                titles.append(title)
        if not titles:
            report.add("no_supporting_paragraph", where)
        supporting = []
        for t in titles:
            keys = by_title[t]
            if len(keys) > 1 and context is not None and t in context:
                # a title several passages share: the context's text says which one is meant
                key = nfc(t + "\n" + "".join(context[t]))
                keys = [key] if key in keys else keys
            if len(keys) > 1:
                report.add("title_matches_several_passages", f"{where}: {t!r}")
            supporting.extend(keys)
        answer = rec.get("answer", ())
        answer = (answer,) if isinstance(answer, str) else tuple(str(a) for a in answer)
        qid = rec.get("_id", rec.get("id", i))
        out.append(Question(id=str(qid), question=question, answer=answer, supporting=tuple(supporting)))
    return out, report


def load_hotpotqa_questions(path, corpus: Sequence[Passage]) -> tuple[list[Question], LoadReport]:
    """Read HotpotQA questions; supporting passages are the corpus passages with a supporting title.

    Parameters
    ----------
    path : str, path-like or Traversable
        A JSON list of ``{"_id", "question", "answer", "supporting_facts": [[title, sent], ...],
        "context": [[title, [sentence, ...]], ...]}`` (``.gz`` allowed).
    corpus : sequence of Passage
        The corpus the questions are asked against (HotpotQA's ``{title: sentences}`` file read by
        :func:`~pathfinding.hipporag.io.load_corpus`).

    Returns
    -------
    questions : list of Question
        ``id`` is ``_id``; ``supporting`` holds one passage key per distinct supporting title.
    report : LoadReport
        Counts ``supporting_title_not_in_context``, ``supporting_sentence_out_of_range`` (the
        question is kept: the title still names the passage), ``no_supporting_paragraph`` and
        ``title_matches_several_passages``: a title several corpus passages share is matched by
        title and text (the context's sentences joined); when no passage has that text, every
        passage with the title is supporting, and counted here.

    Raises
    ------
    FormatError
        If the file is not a JSON list, a record lacks ``question``, ``supporting_facts`` or
        ``context``, a fact is not ``[title, int]``, a context item is not ``[title, [str, ...]]``,
        or a supporting title is not the title of any corpus passage. The message names the file and
        the record.

    Examples
    --------
    >>> import json, os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> q = [{"_id": "a1", "question": "Who?", "answer": "Ed",
    ...       "supporting_facts": [["Ed Wood", 0]], "context": [["Ed Wood", ["Ed Wood was a director."]]]}]
    >>> with open(os.path.join(d, "q.json"), "w") as f:
    ...     json.dump(q, f)
    >>> corpus = [Passage("Ed Wood", "Ed Wood was a director.")]
    >>> qs, rep = load_hotpotqa_questions(os.path.join(d, "q.json"), corpus)
    >>> qs[0].supporting, rep.n_issues
    (('Ed Wood\\nEd Wood was a director.',), 0)
    """
    return _load(path, corpus, dataset="HotpotQA", need_context=True)


def load_2wiki_questions(path, corpus: Sequence[Passage]) -> tuple[list[Question], LoadReport]:
    """Read 2WikiMultihopQA questions; supporting passages are matched by title.

    Parameters
    ----------
    path : str, path-like or Traversable
        A JSON list of ``{"_id", "question", "answer", "supporting_facts", ...}`` where each fact is
        ``[title, sentence index]`` or just a title; ``context`` (as in HotpotQA) is checked when
        present.
    corpus : sequence of Passage
        E.g. ``load_corpus("2wikimultihopqa_corpus.json")`` (a list of ``{"title", "text"}``).

    Returns
    -------
    questions : list of Question
    report : LoadReport
        As for :func:`load_hotpotqa_questions`.

    Raises
    ------
    FormatError
        As for :func:`load_hotpotqa_questions`, except that ``context`` is optional.
    """
    return _load(path, corpus, dataset="2WikiMultihopQA", need_context=False)
