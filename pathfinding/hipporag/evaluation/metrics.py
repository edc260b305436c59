"""Recall@k and all-recall@k against supporting passages, with bootstrap intervals over questions.

recall@k (R@k) of one question is the fraction of its supporting passages found in the top k;
all-recall@k (AR@k, the paper's Table 6) is 1 when *every* supporting passage is in the top k and 0
otherwise. The score of a retriever is the mean over questions. Uncertainty comes from resampling
*questions* with replacement: one (n_boot, n_questions) index matrix is drawn from a seeded generator
and shared by every method, so the difference of two methods is bootstrapped *paired* (both
evaluated on the same resampled questions), which is much tighter than comparing two separate intervals.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pathfinding._validation import check_int
from pathfinding.errors import InvalidValueError
from pathfinding.hipporag.io.records import Passage, Question

__all__ = [
    "KS",
    "all_recall_at_k",
    "bootstrap_indices",
    "bootstrap_mean_ci",
    "paired_difference_ci",
    "recall_at_k",
    "supporting_ids",
]

KS = (1, 2, 5, 10)
"""The cut-offs reported: R@1, R@2, R@5, R@10."""


def supporting_ids(questions: Sequence[Question], corpus: Sequence[Passage]) -> list[np.ndarray]:
    """Corpus ids of each question's supporting passages, matched on ``title + "\\n" + text``.

    Raises
    ------
    ValueError
        If a supporting passage is not in the corpus, or a question has none (recall would be
        undefined).

    Examples
    --------
    >>> corpus = [Passage("A", "a."), Passage("B", "b.")]
    >>> supporting_ids([Question("q1", "?", (), ("B\\nb.",))], corpus)
    [array([1])]
    """
    key = {}
    for j, p in enumerate(corpus):
        key.setdefault(p.key, j)
    out = []
    for q in questions:
        if not q.supporting:
            raise InvalidValueError(f"question {q.id!r} has no supporting passage; recall is undefined")
        ids = []
        for s in q.supporting:
            if s not in key:
                raise InvalidValueError(
                    f"question {q.id!r}: supporting passage {s[:60]!r}... is not in the corpus"
                )
            ids.append(key[s])
        out.append(np.unique(np.asarray(ids, dtype=np.int64)))
    return out


def recall_at_k(rankings: Sequence, gold: Sequence, *, ks: Sequence[int] = KS) -> np.ndarray:
    """Per-question recall at each cut-off.

    Parameters
    ----------
    rankings : sequence of array_like of int
        Passage ids, best first, one per question (may be shorter than max(ks)).
    gold : sequence of array_like of int
        Supporting passage ids, one non-empty set per question.
    ks : sequence of int, default (1, 2, 5, 10)

    Returns
    -------
    numpy.ndarray of float64, shape (n_questions, len(ks))

    Examples
    --------
    Two supporting passages, one found at rank 1 and the other at rank 4:

    >>> recall_at_k([[7, 3, 9, 5]], [[7, 5]], ks=(1, 2, 5))
    array([[0.5, 0.5, 1. ]])
    """
    if len(rankings) != len(gold):
        raise InvalidValueError(
            f"rankings and gold must have one entry per question, got {len(rankings)} and {len(gold)}"
        )
    ks = [check_int("k", k, low=1) for k in ks]
    out = np.zeros((len(gold), len(ks)))
    for i, (ranking, g) in enumerate(zip(rankings, gold, strict=True)):
        g = set(np.asarray(g, dtype=np.int64).tolist())
        if not g:
            raise InvalidValueError(f"gold[{i}] is empty; recall is undefined")
        r = np.asarray(ranking, dtype=np.int64).tolist()
        for c, k in enumerate(ks):
            out[i, c] = len(g.intersection(r[:k])) / len(g)
    return out


def all_recall_at_k(rankings: Sequence, gold: Sequence, *, ks: Sequence[int] = KS) -> np.ndarray:
    """Per-question all-recall at each cut-off: 1.0 if every supporting passage is in the top k.

    Multi-hop questions need all their passages; R@k gives half credit for finding one of two,
    AR@k gives none (HippoRAG's Table 6). A question with two supporting passages always has
    AR@1 = 0.

    Parameters
    ----------
    rankings, gold, ks
        As in :func:`recall_at_k`.

    Returns
    -------
    numpy.ndarray of float64, shape (n_questions, len(ks))
        Zeros and ones.

    Examples
    --------
    Two supporting passages, found at ranks 1 and 4:

    >>> all_recall_at_k([[7, 3, 9, 5]], [[7, 5]], ks=(1, 2, 5))
    array([[0., 0., 1.]])
    """
    return (recall_at_k(rankings, gold, ks=ks) == 1.0).astype(np.float64)


def bootstrap_indices(n: int, *, n_boot: int = 2000, rng=None) -> np.ndarray:
    """An (n_boot, n) matrix of question indices drawn with replacement.

    Examples
    --------
    >>> bootstrap_indices(3, n_boot=2, rng=0).shape
    (2, 3)
    """
    n = check_int("n", n, low=1)
    n_boot = check_int("n_boot", n_boot, low=1)
    return np.random.default_rng(rng).integers(0, n, size=(n_boot, n))


def bootstrap_mean_ci(values, idx: np.ndarray, *, level: float = 0.95) -> np.ndarray:
    """Mean and percentile bootstrap interval of each column of ``values``.

    Parameters
    ----------
    values : array_like, shape (n,) or (n, m)
    idx : numpy.ndarray of int, shape (n_boot, n)
        From :func:`bootstrap_indices`.
    level : float, default 0.95

    Returns
    -------
    numpy.ndarray, shape (m, 3) (or (3,) for 1-D values)
        ``[mean, low, high]`` per column.

    Examples
    --------
    >>> import numpy as np
    >>> bootstrap_mean_ci(np.array([1.0, 1.0, 1.0]), bootstrap_indices(3, n_boot=50, rng=0))
    array([1., 1., 1.])
    """
    v = np.asarray(values, dtype=np.float64)
    one = v.ndim == 1
    v2 = v[:, None] if one else v
    if idx.ndim != 2 or idx.shape[1] != v2.shape[0]:
        raise InvalidValueError(f"idx must have shape (n_boot, {v2.shape[0]}), got {idx.shape}")
    means = v2[idx].mean(axis=1)  # (n_boot, m)
    a = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [a, 1.0 - a], axis=0)
    out = np.stack([v2.mean(axis=0), lo, hi], axis=1)
    return out[0] if one else out


def paired_difference_ci(a, b, idx: np.ndarray, *, level: float = 0.95) -> np.ndarray:
    """Mean of ``a - b`` with a paired bootstrap interval (same resampled questions for both).

    Examples
    --------
    >>> import numpy as np
    >>> a, b = np.array([1.0, 0.5, 1.0]), np.array([0.5, 0.5, 0.5])
    >>> bootstrap_mean_ci(a - b, bootstrap_indices(3, n_boot=200, rng=0))[0]
    np.float64(0.3333333333333333)
    >>> paired_difference_ci(a, b, bootstrap_indices(3, n_boot=200, rng=0))[0]
    np.float64(0.3333333333333333)
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise InvalidValueError(f"a and b must have the same shape, got {a.shape} and {b.shape}")
    return bootstrap_mean_ci(a - b, idx, level=level)
