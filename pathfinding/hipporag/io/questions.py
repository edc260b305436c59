"""Your own questions against your own index: read a question file, match its evidence, score R@k.

:func:`read_eval_questions` reads the question files people have -- MuSiQue (``paragraphs`` with
``is_supporting``), HotpotQA and 2WikiMultihopQA (``supporting_facts``), or a simple list of
``{"question", "supporting": [titles]}`` -- as a JSON list or JSON lines. :func:`match_supporting`
finds each supporting passage among the index's passages by title and text where the file gives the
text (MuSiQue's paragraphs, HotpotQA's context, ``{"title", "text"}`` in ``supporting``), else by
title (a passage's title is its first line, as the corpus loaders write it); every string is
compared in NFC. :func:`shared_titles` names the titles matched by title alone that several passages
share, and :func:`evaluate_retrievers` ranks every question with each
retriever and reports R@k and AR@k (:mod:`~pathfinding.hipporag.evaluate`) with paired bootstrap
intervals against the first one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from pathfinding._validation import check_int
from pathfinding.errors import FormatError, InvalidValueError
from pathfinding.hipporag.evaluate import (
    all_recall_at_k,
    bootstrap_indices,
    bootstrap_mean_ci,
    paired_difference_ci,
    recall_at_k,
)
from pathfinding.hipporag.io import need, read_text
from pathfinding.hipporag.text import nfc

__all__ = ["EvalQuestion", "evaluate_retrievers", "match_supporting", "read_eval_questions", "shared_titles"]


@dataclass(frozen=True)
class EvalQuestion:
    """A question and the titles of its supporting passages (``keys``: ``title + "\\n" + text`` when
    the file gives the passage text too, as MuSiQue does; matched before titles). In NFC."""

    id: str
    question: str
    titles: tuple[str, ...]
    keys: tuple[str, ...] = ()

    def __post_init__(self):
        for name in ("question", "titles", "keys"):
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
        * simple: ``{"question", "supporting": [title or {"title", "text"}, ...]}``.

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
    ([EvalQuestion(id='0', question='Who directed Plan 9?', titles=('Ed Wood',), keys=())], 'simple')
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
        out.append(EvalQuestion(qid, question, tuple(dict.fromkeys(titles)), tuple(dict.fromkeys(keys))))
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


def _match(questions: Sequence[EvalQuestion], passages: Sequence[str]):
    passages = [nfc(p) for p in passages]
    by_key = {p: j for j, p in reversed(list(enumerate(passages)))}
    by_title: dict[str, list[int]] = {}
    for j, p in enumerate(passages):
        by_title.setdefault(p.partition("\n")[0], []).append(j)
    gold, unmatched, shared = [], {}, {}
    for q in questions:
        ids: list[int] = []
        keyed = {k.partition("\n")[0] for k in q.keys if k in by_key}
        ids.extend(by_key[k] for k in q.keys if k in by_key)
        for t in q.titles:
            if t in keyed:
                continue
            if t in by_title:
                ids.extend(by_title[t])
                if len(by_title[t]) > 1:
                    shared[t] = len(by_title[t])
            else:
                unmatched[t] = unmatched.get(t, 0) + 1
        gold.append(np.asarray(sorted(set(ids)), dtype=np.int64))
    return gold, unmatched, shared


def shared_titles(questions: Sequence[EvalQuestion], passages: Sequence[str]) -> dict[str, int]:
    """Supporting titles matched by title alone that several passages share (title -> how many):
    every one of them then counts as supporting, since nothing says which one is meant.

    Examples
    --------
    >>> q = [EvalQuestion("0", "Who?", ("A", "B"), ("B\\nb2",))]
    >>> shared_titles(q, ["A\\na1", "A\\na2", "B\\nb1", "B\\nb2"])
    {'A': 2}
    """
    return _match(questions, passages)[2]


def match_supporting(
    questions: Sequence[EvalQuestion], passages: Sequence[str]
) -> tuple[list[np.ndarray], dict[str, int]]:
    """Passage ids of each question's supporting passages, and the titles no passage has.

    A passage ``title + "\\n" + text`` is matched by its whole text (title and text) when the
    question file gives it, else by its title (its first line); then every passage with a
    supporting title counts (:func:`shared_titles` names such titles). Both sides are compared in
    NFC, so a decomposed file name matches a composed title.

    Returns
    -------
    gold : list of numpy.ndarray of int64
        Per question (empty when nothing matched).
    unmatched : dict of str to int
        Supporting title -> how many questions name it, for titles no passage has.

    Examples
    --------
    >>> q = [EvalQuestion("0", "Who?", ("Ed Wood", "Plan 10"))]
    >>> match_supporting(q, ["Ed Wood\\nEd Wood directed Plan 9.", "Paris\\nParis is in France."])
    ([array([0])], {'Plan 10': 1})
    """
    gold, unmatched, _ = _match(questions, passages)
    return gold, unmatched


def evaluate_retrievers(
    questions: Sequence[str],
    gold: Sequence[np.ndarray],
    rankers: dict[str, Callable[[str, int], np.ndarray]],
    *,
    ks: Sequence[int] = (1, 2, 5, 10),
    n_boot: int = 1000,
    seed: int = 0,
) -> dict:
    """R@k and AR@k of each ranker, with bootstrap intervals and paired differences to the first.

    Parameters
    ----------
    questions : sequence of str
    gold : sequence of numpy.ndarray
        Supporting passage ids per question, none empty.
    rankers : dict of str to callable
        Name -> ``(question, k) -> passage ids, best first``; the first is the reference of the
        paired differences.
    ks : sequence of int
    n_boot : int
        Bootstrap resamples of the questions (one draw shared by every ranker: paired).
    seed : int

    Returns
    -------
    dict
        ``{"ks", "n_questions", "n_boot", "seed", "methods": {name: {"R": [[mean, low, high], ...],
        "AR": ...}}, "differences": {name: {"R": ..., "AR": ...}}}``; differences are the first
        ranker minus each other one.
    """
    ks = [check_int("k", k, low=1) for k in ks]
    if not rankers:
        raise InvalidValueError("rankers must name at least one ranker")
    if len(questions) == 0:
        raise InvalidValueError("no question with a matched supporting passage to evaluate")
    n_boot = check_int("n_boot", n_boot, low=1)
    idx = bootstrap_indices(len(questions), n_boot=n_boot, rng=seed)
    scores = {}
    for name, rank in rankers.items():
        runs = [rank(q, max(ks)) for q in questions]
        scores[name] = {
            "R": recall_at_k(runs, gold, ks=ks),
            "AR": all_recall_at_k(runs, gold, ks=ks),
        }
    names = list(rankers)
    out = {
        "ks": ks,
        "n_questions": len(questions),
        "n_boot": n_boot,
        "seed": seed,
        "methods": {},
        "differences": {},
    }
    for name in names:
        out["methods"][name] = {m: bootstrap_mean_ci(v, idx).tolist() for m, v in scores[name].items()}
    for name in names[1:]:
        out["differences"][name] = {
            m: [
                paired_difference_ci(scores[names[0]][m][:, c], scores[name][m][:, c], idx).tolist()
                for c in range(len(ks))
            ]
            for m in ("R", "AR")
        }
    return out
