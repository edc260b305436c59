"""Your own questions against your own index: match each question's evidence, score retrievers.

:func:`match_supporting` finds each supporting passage of an
:class:`~pathfinding.hipporag.io.questions.EvalQuestion` among the index's passages by title and text
where the file gives the text, else by title (a passage's title is its first line, as the corpus
loaders write it); every string is compared in NFC. :func:`shared_titles` names the titles matched by
title alone that several passages share, and :func:`evaluate_retrievers` ranks every question with
each retriever and reports R@k and AR@k (:mod:`~pathfinding.hipporag.evaluation.metrics`) with paired
bootstrap intervals against the first one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from pathfinding._validation import check_int
from pathfinding.errors import InvalidValueError
from pathfinding.hipporag.evaluation.metrics import (
    all_recall_at_k,
    bootstrap_indices,
    bootstrap_mean_ci,
    paired_difference_ci,
    recall_at_k,
)
from pathfinding.hipporag.io.questions import EvalQuestion
from pathfinding.hipporag.language.text import nfc

__all__ = ["evaluate_retrievers", "match_supporting", "shared_titles"]


def _match(questions: Sequence[EvalQuestion], passages: Sequence[str], passage_ids=None):
    passages = [nfc(p) for p in passages]
    by_id = {} if passage_ids is None else {nfc(x): j for j, x in enumerate(passage_ids)}
    by_key = {p: j for j, p in reversed(list(enumerate(passages)))}
    by_title: dict[str, list[int]] = {}
    for j, p in enumerate(passages):
        by_title.setdefault(p.partition("\n")[0], []).append(j)
    gold, unmatched, shared = [], {}, {}
    for q in questions:
        ids: list[int] = [by_id[x] for x in q.ids if x in by_id]
        for x in q.ids:
            if x not in by_id:
                unmatched[x] = unmatched.get(x, 0) + 1
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
    questions: Sequence[EvalQuestion], passages: Sequence[str], *, passage_ids=None
) -> tuple[list[np.ndarray], dict[str, int]]:
    """Positions of each question's supporting passages, and the titles (or ids) no passage has.

    A passage ``title + "\\n" + text`` is matched by its id when the question names one (with
    ``passage_ids``, the index's :attr:`~pathfinding.hipporag.index.model.HippoIndex.passage_ids`),
    by its whole text (title and text) when the question file gives it, else by its title (its
    first line); then every passage with a supporting title counts (:func:`shared_titles` names
    such titles). Both sides are compared in NFC, so a decomposed file name matches a composed title.

    Returns
    -------
    gold : list of numpy.ndarray of int64
        Per question (empty when nothing matched).
    unmatched : dict of str to int
        Supporting title (or id) -> how many questions name it, for those no passage has.

    Examples
    --------
    >>> q = [EvalQuestion("0", "Who?", ("Ed Wood", "Plan 10"))]
    >>> match_supporting(q, ["Ed Wood\\nEd Wood directed Plan 9.", "Paris\\nParis is in France."])
    ([array([0])], {'Plan 10': 1})
    """
    gold, unmatched, _ = _match(questions, passages, passage_ids)
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
